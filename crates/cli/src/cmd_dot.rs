//! `converge dot FILE`: each function's CFG as Graphviz DOT (one `digraph` per function), with
//! cycles as nested clusters and, with `--uniformity`, divergent branches, joins, divergent cycle
//! exits and temporal divergence highlighted. Render with `dot -Tpng`; or `--svg` for the picture of
//! `converge explore` (laid out by converge, no Graphviz needed).

use crate::cmd_explain::{select_functions, target_of};
use crate::common::{CliError, TargetArg};
use converge_report::dot::{DotOptions, render};
use converge_report::explain::Analysed;
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
    /// Write the picture as SVG, laid out by converge itself (the layout of `converge explore`:
    /// no Graphviz needed) instead of DOT; one function (`--function` when there are several).
    #[arg(long, conflicts_with = "instructions")]
    pub svg: bool,
    /// Target model (`auto` reads the module's target triple).
    #[arg(long, value_enum, default_value_t = TargetArg::Auto)]
    pub target: TargetArg,
    /// Processor (AMDGPU: decides the wave size); overrides "target-cpu".
    #[arg(long)]
    pub mcpu: Option<String>,
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
    if args.svg {
        let [f] = funcs.as_slice() else {
            return Err(format!(
                "error: --svg draws one function; {} defines {}: choose one with --function",
                module.source_name,
                funcs.len()
            ));
        };
        let a = Analysed::new(&module, *f, &target);
        crate::common::emit(&converge_report::explore::standalone_svg(&a));
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    for f in funcs {
        let a = Analysed::new(&module, f, &target);
        out.push_str(&render(&a, &opts));
    }
    crate::common::emit(&out);
    Ok(ExitCode::SUCCESS)
}
