//! `converge verify FILE`: the static rules of convergence control tokens, as LLVM's verifier applies
//! them, with rustc-style diagnostics (`text`), LLVM's own messages (`llvm`, what `opt -passes=verify`
//! and `llvm-as` print) or JSON. Exit 0 valid, 1 invalid, 2 unreadable. Rendering:
//! `converge_report::reports::verify`.

use crate::common::{CliError, Format, FunctionArgs, LlvmVersion};
use converge_report::reports::verify as report;
use converge_verify::llvm::{self, Flavor};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll); `-` reads standard input.
    pub file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Which LLVM's verifier to reproduce where LLVM versions differ: 22 (the reference) or 19
    /// (a predecessor unreachable from the entry makes a cycle irreducible).
    #[arg(long = "llvm-version", alias = "llvm", value_name = "N", default_value = "22", value_parser = crate::common::llvm_version())]
    pub llvm: crate::common::LlvmRelease,
    /// Only the findings of these functions (all are still read).
    #[command(flatten)]
    pub target_independent: crate::common::target::TargetIndependent,
    #[command(flatten)]
    pub functions: FunctionArgs,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let module = crate::common::load_module(&args.file)?;
    let flavor = match args.llvm.version() {
        LlvmVersion::V19 => Flavor::Llvm19,
        LlvmVersion::V22 => Flavor::Llvm22,
    };
    let selected = args.functions.select(&module)?;
    let mut findings = crate::common::progress::during("verifying tokens", || {
        llvm::verify_module(&module, flavor)
    });
    if args.functions.is_set() {
        let mut keep = vec![false; module.functions.len()];
        for f in &selected {
            keep[f.0 as usize] = true;
        }
        findings.retain(|fd| keep[fd.func.0 as usize]);
    }
    let name = crate::common::input_name(&args.file);
    let out = match args.format {
        Format::None => String::new(),
        Format::Llvm => report::llvm(&module, &name, &findings),
        Format::Json => crate::common::output::json_text(&report::json(&module, &name, &findings)),
        Format::Text => report::text(
            &module,
            &name,
            &findings,
            selected.len(),
            crate::common::color::painter(),
        ),
    };
    crate::common::emit(&out);
    Ok(ExitCode::from(if findings.is_empty() { 0 } else { 1 }))
}
