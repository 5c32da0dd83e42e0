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
use converge_report::reports::jsonw::ListDocument;
use converge_report::reports::style::counted;
use rayon::prelude::*;
use std::fmt::Write as _;
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

/// Functions per window of parallel work (see `run`).
const WINDOW: usize = 16;

/// Past this many bytes of estimated text, a function is rendered straight into the output.
const LARGE: u64 = 4 << 20;

/// One function's report: its text (readable, llvm or JSON), or its CFG and cycles when its
/// text is long and rendered in its turn into the output.
enum Rendered {
    Text(String),
    Later(Box<(Cfg, CycleInfo)>),
    None,
}

/// The JSON of function number `index` of the document, its separator included.
fn json_element(
    m: &converge_ir::Module,
    fid: FuncId,
    cfg: &Cfg,
    ci: &CycleInfo,
    index: usize,
) -> String {
    let mut w = match ListDocument::element(String::new(), index) {
        Ok(w) => w,
        Err(_) => return String::new(),
    };
    let _ = report::write_json(&mut w, m, fid, cfg, ci);
    w.into_inner()
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
    let main = args.llvm.is_main();
    let mut total = Times::default();
    let json = format == Format::Json;
    let mut stream = (format != Format::None).then(crate::common::output::stream);
    if json && let Some(out) = &mut stream {
        let _ = report::write_json_head(out, &crate::common::input_name(&args.file));
    }
    // As `uniformity` does: windows of functions in parallel, written in module order; a function
    // whose text would be long (every cycle lists its blocks: quadratic in a deep nest) keeps its
    // cycles and is rendered straight into the output in its turn.
    for (w, window) in funcs.chunks(WINDOW).enumerate() {
        let results: Vec<(Rendered, Times)> = window
            .par_iter()
            .enumerate()
            .map_init(State::default, |st, (k, &fid)| {
                progress.inc();
                let (cfg, times) = analyse(st, m.func(fid), mode, args.time_passes);
                let ci = &st.ci;
                let hint = match format {
                    Format::Json => report::json_size_hint(ci),
                    _ => report::size_hint(ci, format == Format::Text),
                };
                let out = match format {
                    Format::None => Rendered::None,
                    _ if hint > LARGE => {
                        Rendered::Later(Box::new((cfg, std::mem::take(&mut st.ci))))
                    }
                    Format::Llvm => Rendered::Text(report::llvm(m, fid, ci, main)),
                    Format::Text => Rendered::Text(report::text(m, fid, &cfg, ci, painter)),
                    // The function's index in the document decides its separator.
                    Format::Json => Rendered::Text(json_element(m, fid, &cfg, ci, w * WINDOW + k)),
                };
                (out, times)
            })
            .collect();
        for ((r, t), (k, &fid)) in results.into_iter().zip(window.iter().enumerate()) {
            total.cfg += t.cfg;
            total.dom += t.dom;
            total.cycles += t.cycles;
            match (r, &mut stream) {
                (Rendered::Text(s), Some(out)) => {
                    let _ = out.write_str(&s);
                }
                (Rendered::Later(l), Some(out)) => {
                    let (cfg, ci) = &*l;
                    let _ = match format {
                        Format::Llvm => report::write_llvm(out, m, fid, ci, main),
                        Format::Json => ListDocument::element(out, w * WINDOW + k)
                            .and_then(|mut jw| report::write_json(&mut jw, m, fid, cfg, ci)),
                        _ => report::write_text(out, m, fid, cfg, ci, painter),
                    };
                }
                _ => {}
            }
        }
        // Standard output was closed (`| head`): nothing more can be shown.
        if stream.as_ref().is_some_and(|s| s.closed()) {
            break;
        }
    }
    drop(progress);
    if let Some(mut out) = stream {
        if json {
            let _ = report::write_json_tail(&mut out, funcs.len());
        }
        out.flush();
    }
    let analysed = Instant::now();
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
