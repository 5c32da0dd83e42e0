//! `converge dot FILE`: each function's CFG as Graphviz DOT (one `digraph` per function), with
//! cycles as nested clusters and, with `--uniformity`, divergent branches, joins, divergent cycle
//! exits and temporal divergence highlighted. Render with `dot -Tpng`.

use crate::cmd_explain::{select_functions, target_of};
use crate::common::{CliError, TargetArg};
use crate::mode::ModeArg;
use converge_report::dot::{DotOptions, render};
use converge_report::explain::Analysed;
use converge_uniformity::LlvmVersion;
use converge_uniformity::llvm::Target;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll).
    pub file: PathBuf,
    /// Only this function (name with or without `@`).
    #[arg(long)]
    pub function: Option<String>,
    /// Run the uniformity analysis and colour divergence.
    #[arg(long)]
    pub uniformity: bool,
    /// List every instruction in the blocks (default: the terminator only).
    #[arg(long)]
    pub instructions: bool,
    /// Target model (`auto` reads the module's target triple).
    #[arg(long, value_enum, default_value_t = TargetArg::Auto)]
    pub target: TargetArg,
    /// Processor (AMDGPU: decides the wave size); overrides "target-cpu".
    #[arg(long)]
    pub mcpu: Option<String>,
    /// `llvm` (LLVM 22's answer) or `precise` (sound by the semantics; docs/precise-mode.md).
    #[arg(long, value_enum, default_value_t = ModeArg::Llvm)]
    pub mode: ModeArg,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let module = crate::common::load_module(&args.file)?;
    let target = if args.uniformity {
        target_of(&module, args.target, args.mcpu.as_deref())
    } else {
        Target::Uniform
    };
    let funcs = select_functions(&module, args.function.as_deref())?;
    let opts = DotOptions {
        uniformity: args.uniformity,
        instructions: args.instructions,
    };
    let mut out = String::new();
    if args.uniformity && args.mode == ModeArg::Precise {
        out.push_str("// converge dot --uniformity --mode precise\n");
    }
    for f in funcs {
        let a = Analysed::new_with(&module, f, &target, args.mode.mode(LlvmVersion::V22));
        out.push_str(&render(&a, &opts));
    }
    crate::common::emit(&out);
    Ok(ExitCode::SUCCESS)
}
