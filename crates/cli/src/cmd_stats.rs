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
//! Layout: `converge_report::reports::stats`.

use crate::common::{CliError, Format, FunctionArgs, formats};
use converge_graph::{CycleInfo, Graph};
use converge_ir::{CallConv, FuncId, Module};
use converge_report::reports::stats::{
    FunctionCounts, FunctionStats, StatsReport, text as stats_text,
};
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
    pub functions: FunctionArgs,
    /// Report the time spent reading the module on stderr.
    #[arg(long = "time-passes", alias = "time")]
    pub time: bool,
}

/// Counts of one defined function.
struct FnStats {
    id: FuncId,
    blocks: usize,
    insts: usize,
    /// Cycles (all depths), top-level cycles, irreducible cycles, deepest nesting.
    cycles: Option<CycleCounts>,
}

#[derive(Copy, Clone, Default)]
struct CycleCounts {
    total: usize,
    top_level: usize,
    irreducible: usize,
    max_depth: u32,
}

fn cycle_counts(m: &Module, f: FuncId) -> CycleCounts {
    let cfg = m.func(f).cfg();
    if cfg.num_blocks() == 0 {
        return CycleCounts::default();
    }
    let ci = CycleInfo::new(&cfg);
    let mut c = CycleCounts {
        total: ci.len(),
        top_level: ci.num_top_level(),
        ..CycleCounts::default()
    };
    for cy in ci.cycles() {
        if !ci.is_reducible(cy) {
            c.irreducible += 1;
        }
        c.max_depth = c.max_depth.max(ci.depth(cy));
    }
    c
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let t0 = Instant::now();
    let m = crate::common::load_module(&args.file)?;
    if args.time {
        eprintln!("read: {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
    }
    let with_cycles = args.format != Format::None;
    let all_defined = m.func_ids().filter(|f| !m.func(*f).is_declaration).count();
    let defined: Vec<FuncId> = args.functions.select(&m)?;
    let progress = crate::common::progress::Progress::start("counting", defined.len());
    let stats: Vec<FnStats> = defined
        .par_iter()
        .map(|&f| FnStats {
            id: f,
            blocks: m.func(f).num_blocks(),
            insts: m.func(f).num_insts(),
            cycles: with_cycles.then(|| {
                let c = cycle_counts(&m, f);
                progress.inc();
                c
            }),
        })
        .collect();
    drop(progress);
    let declared = m.functions.len() - all_defined;
    let blocks: usize = stats.iter().map(|s| s.blocks).sum();
    let insts: usize = stats.iter().map(|s| s.insts).sum();
    let total = |sel: fn(&CycleCounts) -> usize| -> usize {
        stats
            .iter()
            .filter_map(|s| s.cycles.as_ref())
            .map(sel)
            .sum()
    };
    let file = crate::common::input_name(&args.file);
    // `Module::is_kernel` scans `!nvvm.annotations`; do that once for the whole module.
    let nvvm = m.nvvm_kernels();
    let is_kernel = |f: FuncId| {
        nvvm.contains(&f)
            || matches!(m.func(f).cc, CallConv::Named(s) if matches!(m.str(s), "amdgpu_kernel" | "ptx_kernel" | "spir_kernel"))
    };
    let report = StatsReport {
        schema: StatsReport::schema(),
        file,
        source_filename: m.source_filename.clone(),
        target_triple: m.triple.clone(),
        functions: FunctionCounts {
            total: m.functions.len(),
            defined: all_defined,
            declared,
        },
        globals: m.globals.len(),
        blocks,
        instructions: insts,
        cycles: total(|c| c.total),
        irreducible_cycles: total(|c| c.irreducible),
        named_metadata: m.named_metadata.len(),
        per_function: stats
            .iter()
            .map(|s| {
                let c = s.cycles.unwrap_or_default();
                FunctionStats {
                    name: m.str(m.func(s.id).name).to_string(),
                    calling_convention: cc_name(&m, s.id),
                    kernel: is_kernel(s.id),
                    params: m.func(s.id).params.len(),
                    blocks: s.blocks,
                    instructions: s.insts,
                    cycles: c.total,
                    top_level_cycles: c.top_level,
                    irreducible_cycles: c.irreducible,
                    max_cycle_depth: c.max_depth,
                }
            })
            .collect(),
    };
    match args.format {
        Format::None | Format::Llvm => {}
        Format::Json => crate::common::emit_json(&report),
        Format::Text => crate::common::emit(&stats_text(&report)),
    }
    Ok(ExitCode::SUCCESS)
}

fn cc_name(m: &Module, f: FuncId) -> String {
    match m.func(f).cc {
        CallConv::C => "ccc".to_string(),
        CallConv::Named(s) => m.str(s).to_string(),
    }
}
