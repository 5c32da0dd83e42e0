//! `converge dot FILE`: each function's CFG as Graphviz DOT (one `digraph`; several functions are
//! clusters of one graph, so `dot -Tpng` draws them all), with
//! cycles as nested clusters and, with `--uniformity`, divergent branches, joins, divergent cycle
//! exits and temporal divergence highlighted. Render with `dot -Tpng`; or `--svg` for the picture of
//! `converge explore` (laid out by converge, no Graphviz needed).

use crate::common::{CliError, FunctionArgs, TargetArg};
use crate::mode::ModeArg;
use converge_report::dot::{DotOptions, combine, render, render_into};
use converge_report::explain::Analysed;
use converge_report::reports::style::counted;
use converge_uniformity::LlvmVersion;
use converge_uniformity::llvm::Target;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll); `-` reads standard input.
    pub file: PathBuf,
    #[command(flatten)]
    pub functions: FunctionArgs,
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
    /// Target model: auto (the module's triple), amdgpu|amdgcn, nvptx|nvptx64, none, or a
    /// triple; also `-mtriple=T`.
    #[arg(long, alias = "mtriple", default_value = "auto", value_parser = crate::common::target::parse)]
    pub target: TargetArg,
    /// Processor (AMDGPU: decides the wave size); overrides "target-cpu".
    #[arg(long)]
    pub mcpu: Option<String>,
    /// `llvm` (LLVM's answer, `--llvm-version` picks the release) or `precise` (sound by the semantics; docs/precise-mode.md).
    #[arg(long, value_enum, default_value_t = ModeArg::Llvm)]
    pub mode: ModeArg,
    /// Reproduce this LLVM release in llvm mode (22, the reference; or 19, with its
    /// join-detection early stop and unreachable predecessors as cycle entries).
    #[arg(long, alias = "llvm", value_name = "N", default_value = "22", value_parser = crate::common::llvm_release())]
    pub llvm_version: LlvmVersion,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let module = crate::common::load_module(&args.file)?;
    let target = if args.uniformity {
        args.target.model(&module, args.mcpu.as_deref())
    } else {
        Target::Uniform
    };
    let funcs = args.functions.select(&module)?;
    let opts = DotOptions {
        uniformity: args.uniformity,
        instructions: args.instructions,
    };
    if args.svg {
        let [f] = funcs.as_slice() else {
            return Err(format!(
                "error: --svg draws one function; {} {}: choose one with --function",
                crate::common::input_name(&args.file),
                if args.functions.is_set() {
                    format!("selects {}", counted(funcs.len() as u64, "function"))
                } else {
                    format!("defines {}", counted(funcs.len() as u64, "function"))
                }
            ));
        };
        let a = Analysed::new_with(&module, *f, &target, args.mode.mode(args.llvm_version));
        crate::common::emit(&converge_report::explore::standalone_svg(&a));
        return Ok(ExitCode::SUCCESS);
    }
    let precise_note = args.uniformity && args.mode == ModeArg::Precise;
    if let [f] = funcs.as_slice() {
        // One function is one graph, written as it is drawn: its clusters nest as deep as its
        // cycles, so a deep nest draws far more text than it reads.
        let progress = crate::common::progress::Progress::start("drawing", 1);
        let a = Analysed::new_with(&module, *f, &target, args.mode.mode(args.llvm_version));
        let mut out = crate::common::output::stream();
        if precise_note {
            let _ = out.write_str("// converge dot --uniformity --mode precise\n");
        }
        let _ = render_into(&mut out, &a, &opts);
        progress.inc();
        drop(progress);
        out.flush();
        return Ok(ExitCode::SUCCESS);
    }
    let progress = crate::common::progress::Progress::start("drawing", funcs.len());
    let graphs: Vec<String> = funcs
        .iter()
        .map(|&f| {
            let g = render(
                &Analysed::new_with(&module, f, &target, args.mode.mode(args.llvm_version)),
                &opts,
            );
            progress.inc();
            g
        })
        .collect();
    drop(progress);
    // One `digraph` per function would show only the first with `dot -Tpng`: several functions
    // become one graph with a cluster per function.
    let mut out = String::new();
    if precise_note {
        out.push_str("// converge dot --uniformity --mode precise\n");
    }
    out.push_str(&combine(&crate::common::input_name(&args.file), &graphs));
    crate::common::emit(&out);
    Ok(ExitCode::SUCCESS)
}
