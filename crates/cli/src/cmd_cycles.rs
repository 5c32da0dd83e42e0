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
//! comparison with opt's `DominatorTreeAnalysis`).

use crate::common::color::{Style, paint};
use crate::common::{CliError, Format, FunctionArgs};
use converge_graph::{Block, Cfg, Cycle, CycleInfo, DominatorTree, UnreachablePreds};
use converge_ir::{Function, LocalName, Module};
use rayon::prelude::*;
use serde_json::{Value, json};
use std::fmt::Write;
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
    #[arg(long = "llvm-version", alias = "llvm", value_name = "N", default_value_t = 22, value_parser = crate::common::llvm_version())]
    pub llvm: u32,
    #[command(flatten)]
    pub functions: FunctionArgs,
    /// Report per-phase times on stderr (also computes dominator trees, to compare with
    /// `opt -time-passes`).
    #[arg(long = "time-passes", alias = "time")]
    pub time_passes: bool,
}

/// A block's name as LLVM's printers show it: raw name, or the slot number of an unnamed block.
fn raw_block_name(m: &Module, f: &Function, b: Block, out: &mut String) {
    match f.blocks[b.index()].name {
        LocalName::Named(s) => out.push_str(m.strings.resolve(s)),
        LocalName::Slot(n) => {
            let _ = write!(out, "{n}");
        }
        LocalName::None => {
            let _ = write!(out, "<block {}>", b.0);
        }
    }
}

/// `%name`, quoted when LLVM would quote it.
fn ir_block_name(m: &Module, f: &Function, b: Block) -> String {
    let mut raw = String::new();
    raw_block_name(m, f, b, &mut raw);
    let plain = !raw.is_empty()
        && raw
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_'));
    if plain {
        format!("%{raw}")
    } else {
        format!("%\"{}\"", raw.replace('\\', "\\5C").replace('"', "\\22"))
    }
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
    let mode = if args.llvm < 22 {
        UnreachablePreds::AreEntries
    } else {
        UnreachablePreds::Ignore
    };
    let funcs: Vec<&Function> = args
        .functions
        .select(&module)?
        .into_iter()
        .map(|f| module.func(f))
        .collect();
    let format = args.format;
    let m = &module;
    let progress = crate::common::progress::Progress::start("cycles", funcs.len());
    let results: Vec<(String, Option<Value>, Times)> = funcs
        .par_iter()
        .map_init(State::default, |st, f| {
            progress.inc();
            let (cfg, times) = analyse(st, f, mode, args.time_passes);
            let ci = &st.ci;
            let (text, json) = match format {
                Format::Llvm => (
                    render_llvm(m, f, ci, args.llvm == crate::common::LLVM_MAIN),
                    None,
                ),
                Format::Text => (render_text(m, f, &cfg, ci), None),
                Format::Json => (String::new(), Some(render_json(m, f, &cfg, ci))),
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
            let functions: Vec<Value> = results.into_iter().filter_map(|r| r.1).collect();
            let doc =
                json!({ "file": crate::common::input_name(&args.file), "functions": functions });
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
        let blocks: usize = funcs.iter().map(|f| f.blocks.len()).sum();
        eprintln!(
            "converge cycles: {} functions, {blocks} blocks, {} threads",
            funcs.len(),
            rayon::current_num_threads()
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

fn render_llvm(m: &Module, f: &Function, ci: &CycleInfo, main: bool) -> String {
    let mut s = String::new();
    s.push_str("CycleInfo for function: ");
    s.push_str(m.strings.resolve(f.name));
    s.push('\n');
    if main {
        // `--llvm-version main`: LLVM's development branch prints blocks in DFS preorder.
        for c in ci.cycles() {
            let (entries, others) = converge_uniformity::llvm::main_print_order(ci, c);
            s.push_str(&"    ".repeat(ci.depth(c) as usize));
            let _ = write!(s, "depth={}: entries(", ci.depth(c));
            for (k, &e) in entries.iter().enumerate() {
                if k > 0 {
                    s.push(' ');
                }
                raw_block_name(m, f, e, &mut s);
            }
            s.push(')');
            for &b in &others {
                s.push(' ');
                raw_block_name(m, f, b, &mut s);
            }
            s.push('\n');
        }
        return s;
    }
    ci.print_llvm(&mut s, |b, out| raw_block_name(m, f, b, out));
    s
}

fn names(m: &Module, f: &Function, bs: &[Block]) -> Vec<String> {
    bs.iter().map(|&b| ir_block_name(m, f, b)).collect()
}

fn render_json(m: &Module, f: &Function, cfg: &Cfg, ci: &CycleInfo) -> Value {
    let raw = |b: Block| {
        let mut s = String::new();
        raw_block_name(m, f, b, &mut s);
        s
    };
    let raws = |bs: &[Block]| bs.iter().map(|&b| raw(b)).collect::<Vec<_>>();
    let cycles: Vec<Value> = ci
        .cycles()
        .map(|c| {
            json!({
                "id": c.0,
                "depth": ci.depth(c),
                "header": raw(ci.header(c)),
                "entries": raws(ci.entries(c)),
                "blocks": raws(ci.blocks(c)),
                "parent": ci.parent(c).map(|p| p.0),
                "children": ci.children(c).iter().map(|ch| ch.0).collect::<Vec<_>>(),
                "reducible": ci.is_reducible(c),
                "exits": raws(&ci.exit_blocks(cfg, c)),
                "exiting": raws(&ci.exiting_blocks(cfg, c)),
            })
        })
        .collect();
    json!({
        "name": m.strings.resolve(f.name),
        "blocks": f.blocks.len(),
        "cycles": cycles,
    })
}

fn render_text(m: &Module, f: &Function, cfg: &Cfg, ci: &CycleInfo) -> String {
    let mut s = String::new();
    let irreducible = ci.cycles().filter(|&c| !ci.is_reducible(c)).count();
    let max_depth = ci.cycles().map(|c| ci.depth(c)).max().unwrap_or(0);
    let _ = write!(
        s,
        "{}: ",
        paint(
            Style::Bold,
            &format!("function @{}", m.strings.resolve(f.name))
        )
    );
    match ci.len() {
        0 => s.push_str("no cycles\n"),
        n => {
            let _ = writeln!(
                s,
                "{n} cycle{} ({irreducible} irreducible), nesting depth {max_depth}",
                if n == 1 { "" } else { "s" }
            );
        }
    }
    let join = |v: Vec<String>| v.join(" ");
    for c in ci.cycles() {
        let indent = "  ".repeat(ci.depth(c) as usize);
        let kind = if ci.is_reducible(c) {
            "reducible".to_string()
        } else {
            paint(Style::Warn, "irreducible")
        };
        let _ = writeln!(
            s,
            "{indent}cycle #{} (depth {}, {kind}) header {}",
            c.0,
            ci.depth(c),
            ir_block_name(m, f, ci.header(c))
        );
        if !ci.is_reducible(c) {
            let _ = writeln!(s, "{indent}  entries: {}", join(names(m, f, ci.entries(c))));
        }
        let _ = writeln!(
            s,
            "{indent}  blocks ({}): {}",
            ci.blocks(c).len(),
            join(names(m, f, ci.blocks(c)))
        );
        let exits = ci.exit_blocks(cfg, c);
        let _ = writeln!(
            s,
            "{indent}  exits: {}",
            if exits.is_empty() {
                "none (the cycle never terminates)".to_string()
            } else {
                format!(
                    "{}  (exiting: {})",
                    join(names(m, f, &exits)),
                    join(names(m, f, &ci.exiting_blocks(cfg, c)))
                )
            }
        );
        if let Some(p) = ci.parent(c) {
            let _ = writeln!(s, "{indent}  parent: #{}", p.0);
        }
        let kids: &[Cycle] = ci.children(c);
        if !kids.is_empty() {
            let k: Vec<String> = kids.iter().map(|k| format!("#{}", k.0)).collect();
            let _ = writeln!(s, "{indent}  children: {}", k.join(" "));
        }
    }
    s
}
