//! `converge simulate`'s report: one run (or one per cycle hierarchy with `--all-hierarchies`)
//! of a function for a group of threads, as the seeds' table of dynamic instances with
//! communicating operations and per-instruction value verdicts ([`text`]) or JSON
//! ([`SimulateReport`], schema `converge.simulate/1`). The simulation is the caller's.

use super::CycleJson;
use super::style::{Painter, Style};
use converge_graph::Block;
use converge_ir::{Function, Module};
use converge_sim::hierarchy::Hierarchy;
use converge_sim::interp::{Run, Status};
use converge_sim::report::{Verdict, block_name, inst_name, m_converged, table, value_uniformity};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// What was simulated, besides the runs.
pub struct Setting<'a> {
    /// The module the function is in.
    pub m: &'a Module,
    /// The function simulated.
    pub f: &'a Function,
    /// Threads in the group.
    pub threads: u32,
    /// The target's name (`amdgpu`, `nvptx`, `generic`).
    pub target: String,
    /// The hierarchies run, the chosen one first in the text (`chosen` indexes them).
    pub hierarchies: &'a [Hierarchy],
    /// One run per hierarchy, `runs[k]` under `hierarchies[k]`.
    pub runs: &'a [Run],
    /// Index into `hierarchies` and `runs` of the hierarchy reported first.
    pub chosen: usize,
    /// How the chosen hierarchy was asked for (`llvm`, `reversed`, an index).
    pub hierarchy_arg: &'a str,
    /// `--all-hierarchies`: every hierarchy was run and is reported.
    pub all: bool,
    /// Every DFS successor order was tried to find the hierarchies (otherwise sampled).
    pub exhaustive: bool,
}

/// The JSON document.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SimulateReport {
    /// `converge.simulate/1`.
    pub schema: String,
    /// The function run, without `@`.
    pub function: String,
    /// Threads in the group.
    pub threads: u32,
    /// The target's name: `amdgpu`, `nvptx` or `generic`.
    pub target: String,
    /// Whether the function uses convergence control tokens (controlled convergence).
    pub controlled: bool,
    /// The kernel arguments used (drawn ones included).
    pub arguments: Vec<String>,
    /// The cycles of the chosen hierarchy (no `entries`: a hierarchy records header and blocks).
    pub hierarchy: Vec<CycleJson>,
    /// The run under the chosen hierarchy.
    pub run: RunJson,
    /// With `--all-hierarchies` only; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_hierarchies: Option<AllHierarchiesJson>,
}

/// Every hierarchy's run and what holds under all of them.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct AllHierarchiesJson {
    /// Every DFS successor order was tried (otherwise sampled).
    pub exhaustive: bool,
    /// Each hierarchy's cycles (no `entries`); index 0 is LLVM's.
    pub hierarchies: Vec<Vec<CycleJson>>,
    /// Blocks with the same converged-with relation under every hierarchy.
    pub m_converged: Vec<String>,
    /// The other blocks: their converged-with relation depends on the hierarchy.
    pub not_m_converged: Vec<String>,
    /// Instructions whose converged dynamic instances agree on their value under every
    /// hierarchy that executes them.
    pub uniform_under_every_hierarchy: Vec<String>,
    /// One run per hierarchy, in the order of `hierarchies`.
    pub runs: Vec<RunJson>,
}

/// One run: the table of dynamic instances, the communicating operations and the value
/// verdicts.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RunJson {
    /// One entry per thread, in thread order.
    pub threads: Vec<ThreadJson>,
    /// Number of columns of the table (converged block instances).
    pub columns: usize,
    /// Converged dynamic instances of communicating operations, in the order the simulator
    /// released them.
    pub communicating: Vec<GroupJson>,
    /// One verdict per static instruction of the function that the run executed with a value,
    /// in function order.
    pub values: Vec<ValueJson>,
    /// The simulator's remarks on the run.
    pub notes: Vec<String>,
    /// Why the run is not a valid complete execution (empty when it is).
    pub failures: Vec<String>,
}

/// One thread's row of the table.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ThreadJson {
    /// The thread id.
    pub thread: u32,
    /// How the thread ended: `returned`, `returned V`, `STOPPED: step limit reached`,
    /// ``reached `unreachable` ``, or `error: …`.
    pub status: String,
    /// Instructions the thread executed.
    pub steps: u64,
    /// The thread's dynamic block instances, in execution order.
    pub instances: Vec<InstanceJson>,
    /// For each column of the table, the index into `instances` of this thread's instance, or null.
    pub columns: Vec<Option<usize>>,
}

/// A dynamic instance of a block executed by one thread.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct InstanceJson {
    /// The block's raw name.
    pub block: String,
    /// The converged-with class of the instance: instances of different threads with the same
    /// class are converged (share a column of the table).
    pub class: u32,
}

/// The threads of one converged instance of a communicating operation.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct GroupJson {
    /// The function the operation is in, without `@` (the simulated one, or a callee).
    pub function: String,
    /// The operation's instruction.
    pub instruction: String,
    /// The block of the operation, in `function`.
    pub block: String,
    /// The threads that executed this dynamic instance together (sorted).
    pub threads: Vec<u32>,
    /// A convergent operation (false: a shared-memory access).
    pub convergent: bool,
}

/// Whether converged instances of one static instruction produced equal values.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ValueJson {
    /// The static instruction.
    pub instruction: String,
    /// `not executed`, `uniform` or `divergent`.
    pub verdict: String,
    /// With `uniform` only: classes of converged instances (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classes: Option<usize>,
    /// With `uniform` only: the classes executed by several threads (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared: Option<usize>,
    /// With `divergent` only: two converged instances with different values (absent
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<Vec<WitnessJson>>,
}

/// One thread's value at a converged dynamic instance, half of a divergence witness.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct WitnessJson {
    /// The thread id.
    pub thread: u32,
    /// The value the thread computed, rendered.
    pub value: String,
}

/// Columns of the text table; wider tables are cut (the JSON output has everything).
const MAX_TEXT_COLUMNS: usize = 48;

fn hierarchy_json(h: &Hierarchy, name: &dyn Fn(Block) -> String) -> Vec<CycleJson> {
    h.cycles
        .iter()
        .map(|c| CycleJson {
            depth: c.depth,
            header: name(c.header),
            entries: Vec::new(),
            blocks: c.blocks.iter().map(|&b| name(b)).collect(),
        })
        .collect()
}

fn run_json(
    m: &Module,
    f: &Function,
    r: &Run,
    name: &dyn Fn(Block) -> String,
) -> Result<RunJson, String> {
    let t = table(r).map_err(|e| format!("error: {e}"))?;
    let threads = r
        .threads
        .iter()
        .zip(&t.cells)
        .map(|(th, row)| ThreadJson {
            thread: th.tid,
            status: status_text(&th.status),
            steps: th.steps,
            instances: th
                .blocks
                .iter()
                .map(|&(b, c)| InstanceJson {
                    block: name(b),
                    class: c,
                })
                .collect(),
            columns: row.clone(),
        })
        .collect();
    let communicating = r
        .groups
        .iter()
        .map(|g| {
            let gf = &m.functions[g.func.0 as usize];
            GroupJson {
                function: m.strings.resolve(gf.name).to_string(),
                instruction: inst_name(m, gf, g.inst),
                block: block_name(m, gf, gf.insts[g.inst.0 as usize].block),
                threads: g.threads.clone(),
                convergent: g.convergent,
            }
        })
        .collect();
    let values = value_uniformity(r, f.insts.len())
        .into_iter()
        .map(|(i, v)| {
            let instruction = inst_name(m, f, i);
            let none = ValueJson {
                instruction,
                verdict: String::new(),
                classes: None,
                shared: None,
                witness: None,
            };
            match v {
                Verdict::NotExecuted => ValueJson {
                    verdict: "not executed".into(),
                    ..none
                },
                Verdict::Uniform { classes, shared } => ValueJson {
                    verdict: "uniform".into(),
                    classes: Some(classes),
                    shared: Some(shared),
                    ..none
                },
                Verdict::Divergent { a, b } => ValueJson {
                    verdict: "divergent".into(),
                    witness: Some(vec![
                        WitnessJson {
                            thread: a.0,
                            value: a.1,
                        },
                        WitnessJson {
                            thread: b.0,
                            value: b.1,
                        },
                    ]),
                    ..none
                },
            }
        })
        .collect();
    Ok(RunJson {
        threads,
        columns: t.columns.len(),
        communicating,
        values,
        notes: r.notes.clone(),
        failures: r.failures(),
    })
}

fn block_lists(s: &Setting<'_>, name: &dyn Fn(Block) -> String) -> (Vec<String>, Vec<String>) {
    let pairs: Vec<(&Hierarchy, &Run)> = s.hierarchies.iter().zip(s.runs.iter()).collect();
    let n = s.f.blocks.len();
    let mc = m_converged(&pairs, n);
    let yes = (0..n)
        .filter(|&b| mc[b])
        .map(|b| name(Block(b as u32)))
        .collect();
    let no = (0..n)
        .filter(|&b| !mc[b])
        .map(|b| name(Block(b as u32)))
        .collect();
    (yes, no)
}

/// The JSON document (an error when a run's instances cannot be laid out in a table).
pub fn json(s: &Setting<'_>) -> Result<SimulateReport, String> {
    let (m, f) = (s.m, s.f);
    let name = |b| block_name(m, f, b);
    let main = &s.runs[s.chosen];
    let all_hierarchies = if s.all {
        let (yes, no) = block_lists(s, &name);
        Some(AllHierarchiesJson {
            exhaustive: s.exhaustive,
            hierarchies: s
                .hierarchies
                .iter()
                .map(|h| hierarchy_json(h, &name))
                .collect(),
            m_converged: yes,
            not_m_converged: no,
            uniform_under_every_hierarchy: uniform_everywhere(m, f, s.runs),
            runs: s
                .runs
                .iter()
                .map(|r| run_json(m, f, r, &name))
                .collect::<Result<Vec<_>, _>>()?,
        })
    } else {
        None
    };
    Ok(SimulateReport {
        schema: super::schema("simulate"),
        function: m.strings.resolve(f.name).to_string(),
        threads: s.threads,
        target: s.target.clone(),
        controlled: main.controlled,
        arguments: main.args.iter().map(|v| v.render()).collect(),
        hierarchy: hierarchy_json(&s.hierarchies[s.chosen], &name),
        run: run_json(m, f, main, &name)?,
        all_hierarchies,
    })
}

/// The readable report, without colour.
pub fn text(s: &Setting<'_>) -> Result<String, String> {
    text_painted(s, Painter::PLAIN)
}

/// The readable report, painted by `p` (the headline bold, divergent values and stopped threads
/// in the colours of every report, [`super::style`]); with colour off, [`text`].
pub fn text_painted(s: &Setting<'_>, p: Painter) -> Result<String, String> {
    let (m, f) = (s.m, s.f);
    let name = |b| block_name(m, f, b);
    let main = &s.runs[s.chosen];
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {}, target {}, {} convergence",
        p.paint(
            Style::Bold,
            &format!("function @{}", m.strings.resolve(f.name))
        ),
        super::style::counted(s.threads, "thread"),
        s.target,
        if main.controlled {
            "controlled (tokens)"
        } else {
            "maximal"
        }
    );
    if !main.args.is_empty() {
        let a: Vec<String> = main.args.iter().map(|v| v.render()).collect();
        let _ = writeln!(out, "arguments: {}", a.join(", "));
    }
    let _ = writeln!(
        out,
        "hierarchy {}: {}",
        if s.all {
            "0 (LLVM's)".to_string()
        } else {
            s.hierarchy_arg.to_string()
        },
        s.hierarchies[s.chosen].describe(&name)
    );
    render_run(&mut out, m, f, main, &name, p)?;
    if s.all {
        let n = s.hierarchies.len();
        let _ = writeln!(
            out,
            "\n{} distinct cycle hierarch{} ({}):",
            n,
            if n == 1 { "y" } else { "ies" },
            if s.exhaustive {
                "every DFS successor order tried"
            } else {
                "sampled DFS successor orders; more may exist"
            }
        );
        for (k, h) in s.hierarchies.iter().enumerate() {
            let _ = writeln!(out, "  [{k}] {}", h.describe(&name));
        }
        let (yes, no) = block_lists(s, &name);
        let _ = writeln!(
            out,
            "m-converged blocks (same converged-with relation under every hierarchy): {}",
            list(&yes)
        );
        let _ = writeln!(out, "not m-converged: {}", list(&no));
        let u = uniform_everywhere(m, f, s.runs);
        let _ = writeln!(out, "values uniform under every hierarchy: {}", list(&u));
        for (k, r) in s.runs.iter().enumerate().skip(1) {
            let _ = writeln!(out, "\n-- under hierarchy [{k}]:");
            render_run(&mut out, m, f, r, &name, p)?;
        }
    }
    Ok(out)
}

fn list(xs: &[String]) -> String {
    if xs.is_empty() {
        "(none)".to_string()
    } else {
        xs.join(" ")
    }
}

fn status_text(s: &Status) -> String {
    match s {
        Status::Returned(None) => "returned".to_string(),
        Status::Returned(Some(v)) => format!("returned {v}"),
        Status::StepLimit => "STOPPED: step limit reached".to_string(),
        Status::Unreachable => "reached `unreachable`".to_string(),
        Status::Error(e) => format!("error: {e}"),
    }
}

fn render_run(
    out: &mut String,
    m: &Module,
    f: &Function,
    r: &Run,
    name: &dyn Fn(Block) -> String,
    p: Painter,
) -> Result<(), String> {
    let t = table(r).map_err(|e| format!("error: {e}"))?;
    let _ = writeln!(
        out,
        "\ndynamic instances (one row per thread; converged block instances share a column):"
    );
    // Cell text: block name and the thread's execution count of it.
    let texts: Vec<Vec<String>> = r
        .threads
        .iter()
        .zip(&t.cells)
        .map(|(th, row)| {
            let mut count = std::collections::HashMap::new();
            let labels: Vec<String> = th
                .blocks
                .iter()
                .map(|&(b, _)| {
                    let c = count.entry(b).or_insert(0u32);
                    *c += 1;
                    let n = name(b);
                    // `H1` as in the seeds; `b0.1` when the name itself ends in a digit.
                    if n.ends_with(|ch: char| ch.is_ascii_digit()) {
                        format!("{n}.{c}")
                    } else {
                        format!("{n}{c}")
                    }
                })
                .collect();
            row.iter()
                .map(|c| c.map_or(".".to_string(), |k| labels[k].clone()))
                .collect()
        })
        .collect();
    // Long runs: show the first columns; JSON has all of them.
    let ncol = t.columns.len().min(MAX_TEXT_COLUMNS);
    let widths: Vec<usize> = (0..ncol)
        .map(|c| {
            texts
                .iter()
                .map(|r| r[c].len())
                .max()
                .unwrap_or(1)
                .max((c + 1).to_string().len())
        })
        .collect();
    let lw = format!("thread {}", r.threads.len().saturating_sub(1)).len();
    let mut line = format!("{:lw$}", "");
    for (c, w) in widths.iter().enumerate() {
        let _ = write!(line, "  {:>w$}", c + 1);
    }
    let _ = writeln!(out, "{}", line.trim_end());
    for (k, row) in texts.iter().enumerate() {
        let mut line = format!("{:lw$}", format!("thread {}", r.threads[k].tid));
        for (c, w) in widths.iter().enumerate() {
            let _ = write!(line, "  {:>w$}", row[c]);
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    if t.columns.len() > ncol {
        let _ = writeln!(
            out,
            "({} more columns not shown; --format json lists every instance)",
            t.columns.len() - ncol
        );
    }
    for th in &r.threads {
        if !matches!(th.status, Status::Returned(_)) || th.steps == 0 {
            let _ = writeln!(
                out,
                "thread {}: {} after {}",
                th.tid,
                p.paint(Style::Warn, &status_text(&th.status)),
                super::style::counted(th.steps, "step")
            );
        }
    }
    let rets: Vec<String> = r
        .threads
        .iter()
        .filter_map(|th| match &th.status {
            Status::Returned(Some(v)) => Some(format!("{}={v}", th.tid)),
            _ => None,
        })
        .collect();
    if !rets.is_empty() {
        let _ = writeln!(out, "returned: {}", rets.join(" "));
    }
    if !r.groups.is_empty() {
        let _ = writeln!(
            out,
            "\ncommunicating operations (threads of each converged instance, in execution order):"
        );
        let mut order: Vec<(converge_ir::FuncId, converge_ir::InstId)> = Vec::new();
        for g in &r.groups {
            if !order.contains(&(g.func, g.inst)) {
                order.push((g.func, g.inst));
            }
        }
        for (func, i) in order {
            let gf = &m.functions[func.0 as usize];
            let gs: Vec<String> = r
                .groups
                .iter()
                .filter(|g| (g.func, g.inst) == (func, i))
                .map(|g| {
                    format!(
                        "[{}]",
                        g.threads
                            .iter()
                            .map(|t| t.to_string())
                            .collect::<Vec<_>>()
                            .join(" ")
                    )
                })
                .collect();
            let place = if std::ptr::eq(gf, f) {
                name(f.insts[i.0 as usize].block)
            } else {
                format!(
                    "{} of @{}",
                    block_name(m, gf, gf.insts[i.0 as usize].block),
                    m.strings.resolve(gf.name)
                )
            };
            let _ = writeln!(
                out,
                "  {} (@{} in {}): {}",
                inst_name(m, gf, i),
                converge_sim::interp::callee_name_of(m, gf, i),
                place,
                gs.join(" ")
            );
        }
    }
    let _ = writeln!(
        out,
        "\nvalues of converged instances, per static instruction:"
    );
    for (i, v) in value_uniformity(r, f.insts.len()) {
        let n = inst_name(m, f, i);
        match v {
            Verdict::NotExecuted => {}
            Verdict::Uniform { classes, shared: 0 } => {
                let _ = writeln!(
                    out,
                    "  unshared   {n}  ({classes} instance{}, none converged with another thread's)",
                    if classes == 1 { "" } else { "s" }
                );
            }
            Verdict::Uniform { classes, shared } => {
                let _ = writeln!(
                    out,
                    "  uniform    {n}  ({classes} converged instance{}, {shared} shared by several threads)",
                    if classes == 1 { "" } else { "s" }
                );
            }
            Verdict::Divergent { a, b } => {
                let _ = writeln!(
                    out,
                    "  {}  {n}  (thread {}: {}, thread {}: {})",
                    p.paint(Style::Error, "divergent"),
                    a.0,
                    a.1,
                    b.0,
                    b.1
                );
            }
        }
    }
    for note in &r.notes {
        let _ = writeln!(out, "note: {note}");
    }
    Ok(())
}

fn uniform_everywhere(m: &Module, f: &Function, runs: &[Run]) -> Vec<String> {
    let mut ok: Vec<Option<bool>> = vec![None; f.insts.len()];
    for r in runs {
        for (i, v) in value_uniformity(r, f.insts.len()) {
            let u = matches!(v, Verdict::Uniform { .. });
            let e = &mut ok[i.0 as usize];
            *e = Some(e.unwrap_or(true) && u);
        }
    }
    ok.iter()
        .enumerate()
        .filter(|(_, v)| **v == Some(true))
        .map(|(i, _)| inst_name(m, f, converge_ir::InstId(i as u32)))
        .collect()
}
