//! `converge stats FILE`: the smoke test. Functions (defined and declared), blocks, instructions and
//! cycles (LLVM's `CycleInfo`, from `converge_graph`), for the module and per defined function.
//!
//! - `--format text` (default): totals, then one line per defined function;
//! - `--format json`: the same as one JSON object;
//! - `--format none`: read the module and count, print nothing (cycles are not computed): the
//!   whole-process timing of the reader that `scripts/bench-parse.sh` uses.
//!
//! `--function` restricts the per-function lines and the block/instruction/cycle totals to the
//! selected functions; `--time-passes` (alias `--time`) reports the time spent reading on stderr.
//! Counting and layout: `converge_report::reports::stats`.

use crate::common::{CliError, Format, FunctionArgs, formats};
use converge_ir::FuncId;
use converge_report::reports::stats::{FunctionStats, StatsReport, text_painted as stats_text};
use rayon::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll); `-` reads standard input.
    pub file: PathBuf,
    /// Output format (`none`: read and count only, for timing the reader).
    #[arg(long, default_value = "text", value_parser = formats(&[Format::Text, Format::Json, Format::None]))]
    pub format: Format,
    #[command(flatten)]
    pub target_independent: crate::common::target::TargetIndependent,
    #[command(flatten)]
    pub functions: FunctionArgs,
    /// Report the time spent reading the module on stderr.
    #[arg(long = "time-passes", alias = "time")]
    pub time: bool,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let t0 = Instant::now();
    let m = crate::common::load_module(&args.file)?;
    if args.time {
        eprintln!("read: {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
    }
    let with_cycles = args.format != Format::None;
    let defined: Vec<FuncId> = args.functions.select(&m)?;
    // `Module::nvvm_kernels` scans `!nvvm.annotations`; do that once for the whole module.
    let nvvm = m.nvvm_kernels();
    let progress = crate::common::progress::Progress::start("counting", defined.len());
    let per_function: Vec<FunctionStats> = defined
        .par_iter()
        .map(|&f| {
            let s = FunctionStats::count(&m, f, with_cycles, &nvvm);
            progress.inc();
            s
        })
        .collect();
    drop(progress);
    let report = StatsReport::new(&m, crate::common::input_name(&args.file), per_function);
    match args.format {
        Format::None | Format::Llvm => {}
        Format::Json => crate::common::emit_json(&report),
        Format::Text => crate::common::emit(&stats_text(&report, crate::common::color::painter())),
    }
    Ok(ExitCode::SUCCESS)
}
