//! `converge cycles FILE`: the cycle hierarchy of every defined function, as LLVM's `CycleInfo`
//! computes it (`converge_graph::CycleInfo`).
//!
//! - `--format llvm` prints what `opt -passes='print<cycles>' -disable-output` prints (LLVM 22;
//!   `--llvm-version 19` counts unreachable predecessors as entries, as LLVM 19 does);
//! - `--format json`: per cycle its depth, header, entries, blocks, parent, children, reducible
//!   flag, exits and exiting blocks;
//! - `--format text` (default): the same, readable.
//!
//! Functions are analysed in parallel (rayon) and printed in module order, so the output does not
//! depend on the thread count. `--time-passes` (alias `--time`) reports, on stderr, the time spent reading, building
//! CFGs, computing cycles and dominator trees (the latter from the cycle analysis's DFS, for
//! comparison with opt's `DominatorTreeAnalysis`). Rendering: `converge_report::reports::cycles`.

use crate::common::{CliError, Format, FunctionArgs, LlvmVersion};
use converge_graph::{Cfg, CycleInfo, DominatorTree, UnreachablePreds};
use converge_ir::{FuncId, Function};
use converge_report::reports::cycles as report;
use converge_report::reports::style::counted;
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
    /// Which LLVM's cycle entries to reproduce: 22 (the reference: unreachable predecessors are
    /// ignored) or 19 (an unreachable predecessor makes its block an extra cycle entry).
    #[arg(long = "llvm-version", alias = "llvm", value_name = "N", default_value = "22", value_parser = crate::common::llvm_version())]
    pub llvm: crate::common::LlvmRelease,
    #[command(flatten)]
    pub target_independent: crate::common::target::TargetIndependent,
    #[command(flatten)]
    pub functions: FunctionArgs,
    /// Report per-phase times on stderr (also computes dominator trees, to compare with
    /// `opt -time-passes`).
    #[arg(long = "time-passes", alias = "time")]
    pub time_passes: bool,
}

#[derive(Default, Clone, Copy)]
struct Times {
    cfg: Duration,
    dom: Duration,
    cycles: Duration,
}

/// Per-thread analysis state, reused across functions so the steady state does not allocate.
#[derive(Default)]
struct State {
    dom: DominatorTree,
    ci: CycleInfo,
}

fn analyse(st: &mut State, f: &Function, mode: UnreachablePreds, with_dom: bool) -> (Cfg, Times) {
    let t0 = Instant::now();
    let cfg = f.cfg();
    let t1 = Instant::now();
    st.ci.compute(&cfg, mode);
    let t2 = Instant::now();
    if with_dom {
        // Dominators reuse the cycle analysis's DFS instead of walking the graph again.
        st.dom.compute_from_dfs(&cfg, st.ci.dfs());
    }
    let t3 = Instant::now();
    let times = Times {
        cfg: t1 - t0,
        cycles: t2 - t1,
        dom: t3 - t2,
    };
    (cfg, times)
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let start = Instant::now();
    let module = crate::common::load_module(&args.file)?;
    let parsed = Instant::now();
    let mode = match args.llvm.version() {
        LlvmVersion::V19 => UnreachablePreds::AreEntries,
        LlvmVersion::V22 => UnreachablePreds::Ignore,
    };
    let funcs: Vec<FuncId> = args.functions.select(&module)?;
    let format = args.format;
    let m = &module;
    let progress = crate::common::progress::Progress::start("cycles", funcs.len());
    let painter = crate::common::color::painter();
    let results: Vec<(String, Option<report::FunctionCycles>, Times)> = funcs
        .par_iter()
        .map_init(State::default, |st, &fid| {
            progress.inc();
            let (cfg, times) = analyse(st, m.func(fid), mode, args.time_passes);
            let ci = &st.ci;
            let (text, json) = match format {
                Format::Llvm => (report::llvm(m, fid, ci, args.llvm.is_main()), None),
                Format::Text => (report::text(m, fid, &cfg, ci, painter), None),
                Format::Json => (String::new(), Some(report::json(m, fid, &cfg, ci))),
                Format::None => (String::new(), None),
            };
            (text, json, times)
        })
        .collect();
    drop(progress);
    let analysed = Instant::now();
    let mut total = Times::default();
    for (_, _, t) in &results {
        total.cfg += t.cfg;
        total.dom += t.dom;
        total.cycles += t.cycles;
    }
    match format {
        Format::Json => {
            let functions = results.into_iter().filter_map(|r| r.1).collect();
            let doc = report::CyclesReport::new(crate::common::input_name(&args.file), functions);
            crate::common::emit_json(&doc);
        }
        Format::None => {}
        _ => {
            let mut s = String::new();
            for (t, _, _) in &results {
                s.push_str(t);
            }
            crate::common::emit(&s);
        }
    }
    if args.time_passes {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let blocks: usize = funcs.iter().map(|&f| m.func(f).blocks.len()).sum();
        eprintln!(
            "converge cycles: {}, {}, {}",
            counted(funcs.len() as u64, "function"),
            counted(blocks as u64, "block"),
            counted(rayon::current_num_threads() as u64, "thread")
        );
        eprintln!("  read+parse         {:10.3} ms (wall)", ms(parsed - start));
        eprintln!(
            "  cfg                {:10.3} ms (sum over functions)",
            ms(total.cfg)
        );
        eprintln!(
            "  dominators         {:10.3} ms (sum over functions)",
            ms(total.dom)
        );
        eprintln!(
            "  cycles             {:10.3} ms (sum over functions)",
            ms(total.cycles)
        );
        eprintln!(
            "  dominators+cycles  {:10.3} ms (sum over functions)",
            ms(total.dom + total.cycles)
        );
        eprintln!(
            "  analysis+output    {:10.3} ms (wall)",
            ms(analysed - parsed)
        );
    }
    Ok(ExitCode::SUCCESS)
}
