//! The simulation panel's data, computed when the page is written (the page is static): the
//! function is run by `converge-sim` (the oracle) for the chosen threads and arguments under LLVM's
//! cycle hierarchy and, when the CFG is irreducible, under a few other hierarchies; for each run
//! the seeds' table (one row per thread, converged block instances in one column), the threads of
//! every converged instance of each communicating operation, and per instruction whether its
//! converged instances computed equal values.

use super::data::vid;
use crate::explain::{Analysed, Node};
use converge_graph::Block;
use converge_sim::hierarchy::{Hierarchy, enumerate};
use converge_sim::interp::{self, ArgValue, Options, Program, Run, Status, Target};
use converge_sim::report::{Verdict, block_name, table, value_uniformity};
use serde_json::{Value as Json, json};
use std::collections::HashMap;

/// What to simulate.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Threads in the simulated group (thread ids `0..threads`).
    pub threads: u32,
    /// Per parameter, the value every thread gets; a missing or `None` entry is drawn from
    /// `seed`.
    pub args: Vec<Option<ArgValue>>,
    /// Seed of the unspecified values: arguments not given, memory contents, `undef` reads.
    pub seed: u64,
    /// Instructions each thread may execute before it is stopped (a run that hits it is shown
    /// as such, so a page is written even for a function that does not terminate).
    pub step_limit: u64,
    /// At most this many hierarchies (LLVM's first).
    pub max_hierarchies: usize,
    /// At most this many columns per table.
    pub max_columns: usize,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            threads: 4,
            args: Vec::new(),
            seed: 0,
            step_limit: 20_000,
            max_hierarchies: 4,
            max_columns: 300,
        }
    }
}

/// DFS successor orders tried when listing hierarchies of an irreducible CFG, times the number of
/// blocks (each order builds a hierarchy in about linear time): 2,000 orders for a 100-block
/// function, 200 for 1,000 blocks, never fewer than 16.
const ENUMERATION_WORK: u64 = 200_000;

/// Simulation work allowed for the hierarchies after LLVM's, in executed instructions (all
/// threads) times blocks: the scheduler's cost per step grows with the function. Four runs of
/// 4 threads up to the default step limit fit for a 100-block function; a 1,000-block function
/// whose threads all run to the step limit gets LLVM's hierarchy only (the page says so).
const SIM_WORK: u64 = 50_000_000;

/// The cell names of a run: `H1`, `H2` … (a thread's first, second execution of `H`), `b0.1` when
/// the name ends in a digit, as `converge simulate` prints them.
pub fn cell_labels(name: &dyn Fn(Block) -> String, blocks: &[(Block, u32)]) -> Vec<String> {
    let mut count: HashMap<Block, u32> = HashMap::new();
    blocks
        .iter()
        .map(|&(b, _)| {
            let c = count.entry(b).or_insert(0);
            *c += 1;
            let n = name(b);
            if n.ends_with(|ch: char| ch.is_ascii_digit()) {
                format!("{n}.{c}")
            } else {
                format!("{n}{c}")
            }
        })
        .collect()
}

fn status_text(s: &Status, steps: u64) -> String {
    match s {
        Status::Returned(None) => "returned".to_string(),
        Status::Returned(Some(v)) => format!("returned {v}"),
        Status::StepLimit => format!("stopped: step limit ({steps} steps)"),
        Status::Unreachable => "reached `unreachable`".to_string(),
        Status::Error(e) => format!("error: {e}"),
    }
}

fn run_json(a: &Analysed<'_>, r: &Run, max_columns: usize) -> Result<Json, String> {
    let (m, f) = (a.module(), a.lf.func);
    let name = |b: Block| block_name(m, f, b);
    let t = table(r)?;
    let ncol = t.columns.len().min(max_columns);
    // The block of each column, from any thread that has an instance there.
    let mut col_block = vec![-1i64; ncol];
    let rows: Vec<Json> = r
        .threads
        .iter()
        .zip(&t.cells)
        .map(|(th, row)| {
            let labels = cell_labels(&name, &th.blocks);
            let cells: Vec<Json> = row[..ncol]
                .iter()
                .enumerate()
                .map(|(c, cell)| match cell {
                    Some(k) => {
                        col_block[c] = th.blocks[*k].0.0 as i64;
                        json!(labels[*k])
                    }
                    None => Json::Null,
                })
                .collect();
            json!({"tid": th.tid, "status": status_text(&th.status, th.steps), "cells": cells})
        })
        .collect();
    let mut groups: serde_json::Map<String, Json> = serde_json::Map::new();
    for g in &r.groups {
        let key = vid(a, Node::Inst(g.inst.0)).to_string();
        if let Json::Array(v) = groups.entry(key).or_insert_with(|| json!([])) {
            v.push(json!(g.threads));
        }
    }
    let mut verdicts: serde_json::Map<String, Json> = serde_json::Map::new();
    for (i, v) in value_uniformity(r, f.insts.len()) {
        let text = match v {
            Verdict::NotExecuted => continue,
            Verdict::Uniform { classes, shared } => format!(
                "equal on converged instances ({classes} class{}, {shared} shared by several threads)",
                if classes == 1 { "" } else { "es" }
            ),
            Verdict::Divergent { a: x, b: y } => format!(
                "differs on converged instances: thread {} computed {}, thread {} computed {}",
                x.0, x.1, y.0, y.1
            ),
        };
        verdicts.insert(vid(a, Node::Inst(i.0)).to_string(), json!(text));
    }
    Ok(json!({
        "rows": rows,
        "cols": col_block,
        "columns": t.columns.len(),
        "groups": groups,
        "verdicts": verdicts,
        "notes": r.notes,
        "controlled": r.controlled,
    }))
}

/// Runs the function and returns the panel's data (or an explanation of why there is none).
pub fn simulate(a: &Analysed<'_>, opts: &SimOptions) -> Json {
    let (m, f) = (a.module(), a.lf.func);
    if opts.args.len() > f.params.len() {
        return json!({"error": format!(
            "{} arguments given, @{} has {} parameters",
            opts.args.len(),
            a.lf.name(),
            f.params.len()
        )});
    }
    let target = Target::from_triple(m.triple.as_deref());
    let prog = Program::new(m, f, target);
    let irreducible = (0..a.s.num_cycles() as u32).any(|c| !a.s.is_reducible(c));
    let (hierarchies, exhaustive) = if irreducible && opts.max_hierarchies > 1 {
        let cap = (ENUMERATION_WORK / f.blocks.len().max(1) as u64).clamp(16, 2_000);
        let e = enumerate(&prog.cfg, cap);
        let n = e.hierarchies.len();
        let mut hs = e.hierarchies;
        hs.truncate(opts.max_hierarchies);
        (hs, e.exhaustive && n <= opts.max_hierarchies)
    } else {
        (vec![Hierarchy::llvm(&prog.cfg)], !irreducible)
    };
    let sopts = Options {
        threads: opts.threads,
        args: opts.args.clone(),
        seed: opts.seed,
        step_limit: opts.step_limit,
        target,
        ..Options::default()
    };
    let name = |b: Block| block_name(m, f, b);
    let mut runs = Vec::new();
    let mut args_shown = Vec::new();
    let mut work = 0u64;
    let mut cut = None;
    for (k, h) in hierarchies.iter().enumerate() {
        if work >= SIM_WORK {
            cut = Some(format!(
                "{} more cycle hierarch{} not simulated: the simulation work budget for a function of {} blocks is used up (steps × blocks); `converge simulate --hierarchy K` runs one",
                hierarchies.len() - k,
                if hierarchies.len() - k == 1 {
                    "y"
                } else {
                    "ies"
                },
                f.blocks.len()
            ));
            break;
        }
        let r = interp::run(&prog, h, &sopts);
        let steps: u64 = r.threads.iter().map(|t| t.steps).sum();
        work = work.saturating_add(steps.saturating_mul(f.blocks.len() as u64));
        if k == 0 {
            args_shown = r.args.iter().map(|v| v.render()).collect();
        }
        let desc = if k == 0 {
            format!("LLVM's: {}", h.describe(&name))
        } else {
            format!("[{k}] {}", h.describe(&name))
        };
        match run_json(a, &r, opts.max_columns) {
            Ok(mut j) => {
                j["desc"] = json!(desc);
                runs.push(j);
            }
            Err(e) => runs.push(json!({"desc": desc, "error": e})),
        }
    }
    let mut out = json!({
        "threads": opts.threads,
        "args": args_shown,
        "target": format!("{target:?}").to_lowercase(),
        "runs": runs,
        "allHierarchies": exhaustive && cut.is_none(),
        "maxColumns": opts.max_columns,
    });
    if let Some(c) = cut {
        out["cut"] = json!(c);
    }
    out
}
