//! `converge uniformity FILE`: uniform and divergent values of every function (LLVM's
//! `UniformityInfo`), as readable text, `opt`'s `print<uniformity>` layout (LLVM 22), JSON, or
//! nothing (`--format none`, with `--time-passes` for per-phase timings). Functions are analysed in
//! parallel; output is assembled in function order, so it does not depend on the thread count.
//! The analysis is `converge_uniformity::llvm::Setup`, the rendering
//! `converge_report::reports::uniformity`.

use crate::common::{CliError, Format, FunctionArgs, TargetArg};
use crate::mode::ModeArg;
use converge_report::reports::style::counted;
use converge_report::reports::uniformity as report;
use converge_uniformity::llvm::{PhaseTimes, Rules, Setup};
use converge_uniformity::{LlvmVersion, Mode};
use rayon::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll); `-` reads standard input.
    pub file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Target model: auto (the module's triple), amdgpu|amdgcn, nvptx|nvptx64, none, or a
    /// triple; also `-mtriple=T`.
    #[arg(long, alias = "mtriple", default_value = "auto", value_parser = crate::common::target::parse)]
    pub target: TargetArg,
    #[command(flatten)]
    pub functions: FunctionArgs,
    /// Processor (AMDGPU: decides the wave size, wave32 from gfx10 on); overrides "target-cpu".
    #[arg(long)]
    pub mcpu: Option<String>,
    /// Print per-phase times to stderr.
    #[arg(long = "time-passes", alias = "time")]
    pub time: bool,
    /// Reproduce this LLVM release (22, the reference; or 19, with its join-detection early stop,
    /// unreachable predecessors as cycle entries, no temporal-divergence list and the `ASSSUMED`
    /// spelling).
    #[arg(long, alias = "llvm", value_name = "N", default_value = "22", value_parser = crate::common::llvm_version())]
    pub llvm_version: crate::common::LlvmRelease,
    /// `llvm` reproduces LLVM (bugs included); `precise` is sound by the semantics, with
    /// convergence tokens, and tighter where that is sound (docs/precise-mode.md).
    #[arg(long, value_enum, default_value_t = ModeArg::Llvm)]
    pub mode: ModeArg,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let t0 = Instant::now();
    let module = crate::common::load_module(&args.file)?;
    let t_parse = t0.elapsed();
    let mut setup = Setup::new(
        args.target.model(&module, args.mcpu.as_deref()),
        args.mode.mode(args.llvm_version.version()),
    );
    // `--llvm-version main` in llvm mode: LLVM main's target-model rules and print orders.
    let main = args.llvm_version.is_main() && args.mode == ModeArg::Llvm;
    if main {
        setup = setup.with_rules(Rules::Main);
    }
    let mode = setup.mode();
    let t1 = Instant::now();
    let defined = args.functions.select(&module)?;
    let progress = crate::common::progress::Progress::start("uniformity", defined.len());
    let painter = crate::common::color::painter();
    let results: Vec<(Rendered, Times)> = defined
        .par_iter()
        .map(|&fid| {
            let (a, phases) = setup.analyse_timed(&module, fid);
            let r = Instant::now();
            let out = match args.format {
                Format::Llvm => {
                    Rendered::Text(report::llvm(&a, mode == Mode::Llvm(LlvmVersion::V19), main))
                }
                Format::Json => Rendered::Json(Box::new(report::json(&a))),
                Format::Text => Rendered::Text(report::text(&a, painter)),
                Format::None => Rendered::Text(String::new()),
            };
            progress.inc();
            (
                out,
                Times {
                    phases,
                    render: r.elapsed(),
                },
            )
        })
        .collect();
    drop(progress);
    let times: Vec<Times> = results.iter().map(|r| r.1).collect();
    let t_analyse = t1.elapsed();
    let t2 = Instant::now();
    match args.format {
        Format::Json => {
            let functions = results
                .into_iter()
                .filter_map(|(r, _)| match r {
                    Rendered::Json(v) => Some(*v),
                    Rendered::Text(_) => None,
                })
                .collect();
            crate::common::emit_json(&report::UniformityReport::new(mode, functions));
        }
        Format::None => {}
        _ => {
            let mut out = report::preamble(mode, args.format == Format::Llvm).to_string();
            for (r, _) in &results {
                if let Rendered::Text(s) = r {
                    out.push_str(s);
                }
            }
            crate::common::emit(&out);
        }
    }
    if args.time {
        let mut sum = Times::default();
        for t in &times {
            sum.phases.cfg += t.phases.cfg;
            sum.phases.structure += t.phases.structure;
            sum.phases.analysis += t.phases.analysis;
            sum.render += t.render;
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        eprintln!(
            "time: parse {:.2} ms; {} in {:.2} ms wall on {} (summed: cfg+uses {:.2} ms, dominators+cycles {:.2} ms, uniformity {:.2} ms, render {:.2} ms); output {:.2} ms; total {:.2} ms",
            ms(t_parse),
            counted(times.len() as u64, "function"),
            ms(t_analyse),
            counted(rayon::current_num_threads() as u64, "thread"),
            ms(sum.phases.cfg),
            ms(sum.phases.structure),
            ms(sum.phases.analysis),
            ms(sum.render),
            ms(t2.elapsed()),
            ms(t0.elapsed()),
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Default, Clone, Copy)]
struct Times {
    phases: PhaseTimes,
    render: Duration,
}

/// One function's report: text for the readable and llvm formats, JSON for `json`.
enum Rendered {
    Text(String),
    Json(Box<report::FunctionJson>),
}
