//! `converge simulate`: run one function for a group of threads and show its dynamic instances, the
//! converged-with relation (maximal for a chosen cycle hierarchy, controlled where tokens are used),
//! the groups of communicating operations, and per static instruction whether converged instances
//! produced equal values. `--all-hierarchies` repeats the run under every distinct hierarchy of the
//! CFG and reports which blocks are m-converged.

use crate::common::{CliError, Format, FunctionArgs, TargetArg, formats};
use converge_ir::{Function, Module};
use converge_sim::hierarchy::{Hierarchy, enumerate};
use converge_sim::inputs::{parse_mem, parse_value};
use converge_sim::interp::{self, Options, Program, Run, Status, Target};
use converge_sim::report::{Verdict, block_name, inst_name, m_converged, table, value_uniformity};
use serde_json::{Value as Json, json};
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll); `-` reads standard input.
    pub file: PathBuf,
    /// The function to run (may be omitted when the module defines exactly one; a glob must
    /// select exactly one).
    #[command(flatten)]
    pub functions: FunctionArgs,
    /// Number of threads in the group.
    #[arg(long, default_value_t = 4)]
    pub threads: u32,
    /// Kernel arguments, comma-separated, in parameter order (integers, floats, `_` for random).
    /// Missing arguments are drawn from `--seed`; they are the same in every thread.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// Memory contents, repeatable: `@global=v1,v2,..` (initial contents of a global, elements
    /// of its array type), `#k=[TYPE:]v1,..` or `%name=[TYPE:]v1,..` (pointer parameter k points
    /// at a buffer of exactly these elements; TYPE i8 i16 i32 i64 f32 f64, default i32); `v*N`
    /// repeats. Accesses outside a buffer or a global stop the thread with an error.
    #[arg(long = "mem", value_name = "TARGET=VALUES")]
    pub mem: Vec<String>,
    /// The work-group (x) this group of threads is, for group-id and global-id queries.
    #[arg(long, default_value_t = 0)]
    pub group_id: u32,
    /// The number of work-groups (x), for grid-size queries.
    #[arg(long, default_value_t = 1)]
    pub num_groups: u32,
    /// Seed for missing arguments and for the values of unknown calls and divergent loads.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The cycle hierarchy for maximal convergence: `llvm` (default, LLVM's CycleInfo), `reversed`
    /// (each block's successors explored in the other order), or an index into the list that
    /// `--all-hierarchies` prints.
    #[arg(long, default_value = "llvm")]
    pub hierarchy: String,
    /// Run under every distinct cycle hierarchy of the CFG and report the m-converged blocks.
    #[arg(long)]
    pub all_hierarchies: bool,
    /// DFS successor orders tried when enumerating hierarchies (beyond it, orders are sampled with
    /// a fixed seed, so hierarchy indices depend on this value).
    #[arg(long, default_value_t = 20_000)]
    pub enumeration_cap: u64,
    /// Instructions per thread before the thread is stopped.
    #[arg(long, default_value_t = 100_000)]
    pub step_limit: u64,
    /// Target whose id intrinsics and wave size apply: auto (the module's triple),
    /// amdgpu|amdgcn, nvptx|nvptx64, none, or a triple; also `-mtriple=T`.
    #[arg(long, alias = "mtriple", default_value = "auto", value_parser = crate::common::target::parse)]
    pub target: TargetArg,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = formats(&[Format::Text, Format::Json, Format::None]))]
    pub format: Format,
}

pub fn run_cmd(args: &Args) -> Result<ExitCode, CliError> {
    if args.threads == 0 || args.threads > 1024 {
        return Err(format!(
            "error: --threads must be between 1 and 1024 (got {})",
            args.threads
        ));
    }
    let m = crate::common::load_module(&args.file)?;
    let f = m.func(args.functions.select_one(&m)?);
    let target = match args.target {
        TargetArg::Auto => Target::from_triple(m.triple.as_deref()),
        TargetArg::Amdgpu => Target::Amdgpu,
        TargetArg::Nvptx => Target::Nvptx,
        TargetArg::None => Target::Generic,
    };
    let argv = parse_args(&args.args)?;
    let mut memory = Vec::new();
    for spec in &args.mem {
        memory.push(parse_mem(spec).map_err(|e| format!("error: --mem: {e}"))?);
    }
    if args.num_groups == 0 || args.group_id >= args.num_groups {
        return Err(format!(
            "error: --group-id must be below --num-groups (got {} of {})",
            args.group_id, args.num_groups
        ));
    }
    if argv.len() > f.params.len() {
        return Err(format!(
            "error: --args: {} values given, @{} has {} parameters",
            argv.len(),
            m.strings.resolve(f.name),
            f.params.len()
        ));
    }
    let opts = Options {
        threads: args.threads,
        args: argv,
        seed: args.seed,
        step_limit: args.step_limit,
        target,
        memory,
        group_id: args.group_id,
        num_groups: args.num_groups,
        ..Options::default()
    };
    let prog = Program::new(&m, f, target);
    interp::check_inputs(&prog, &opts).map_err(|e| format!("error: {e}"))?;
    let name = |b| block_name(&m, f, b);

    let (hierarchies, exhaustive, chosen) = if args.all_hierarchies {
        let e = enumerate(&prog.cfg, args.enumeration_cap.max(1));
        (e.hierarchies, e.exhaustive, 0)
    } else {
        let h = match args.hierarchy.as_str() {
            "llvm" => Hierarchy::llvm(&prog.cfg),
            "reversed" => Hierarchy::reversed(&prog.cfg),
            s => {
                let k: usize = s.parse().map_err(|_| {
                    format!(
                        "error: --hierarchy: expected `llvm`, `reversed` or an index, got `{s}`"
                    )
                })?;
                let e = enumerate(&prog.cfg, args.enumeration_cap.max(1));
                let n = e.hierarchies.len();
                e.hierarchies.into_iter().nth(k).ok_or_else(|| {
                    format!("error: --hierarchy {k}: the CFG has {n} distinct hierarchies (0..{n})")
                })?
            }
        };
        (vec![h], true, 0)
    };
    let progress = crate::common::progress::Progress::start(
        format!("simulating {} threads", args.threads),
        hierarchies.len(),
    );
    let runs: Vec<Run> = hierarchies
        .iter()
        .map(|h| {
            let r = interp::run(&prog, h, &opts);
            progress.inc();
            r
        })
        .collect();
    drop(progress);
    let main = &runs[chosen];
    let fname = m.strings.resolve(f.name).to_string();

    match args.format {
        Format::Json => {
            let mut j = json!({
                "function": fname,
                "threads": args.threads,
                "target": format!("{target:?}").to_lowercase(),
                "controlled": main.controlled,
                "arguments": main.args.iter().map(|v| v.render()).collect::<Vec<_>>(),
                "hierarchy": hierarchy_json(&hierarchies[chosen], &name),
                "run": run_json(&m, f, main, &name)?,
            });
            if args.all_hierarchies {
                let pairs: Vec<(&Hierarchy, &Run)> = hierarchies.iter().zip(runs.iter()).collect();
                let mc = m_converged(&pairs, f.blocks.len());
                j["all_hierarchies"] = json!({
                    "exhaustive": exhaustive,
                    "hierarchies": hierarchies.iter().map(|h| hierarchy_json(h, &name)).collect::<Vec<_>>(),
                    "m_converged": (0..f.blocks.len()).filter(|&b| mc[b]).map(|b| name(converge_graph::Block(b as u32))).collect::<Vec<_>>(),
                    "not_m_converged": (0..f.blocks.len()).filter(|&b| !mc[b]).map(|b| name(converge_graph::Block(b as u32))).collect::<Vec<_>>(),
                    "uniform_under_every_hierarchy": uniform_everywhere(&m, f, &runs),
                    "runs": runs.iter().map(|r| run_json(&m, f, r, &name)).collect::<Result<Vec<_>, _>>()?,
                });
            }
            crate::common::emit_json(&j);
        }
        Format::None => {}
        Format::Text | Format::Llvm => {
            let mut out = String::new();
            let _ = writeln!(
                out,
                "function @{fname}: {} threads, target {}, {} convergence",
                args.threads,
                format!("{target:?}").to_lowercase(),
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
                if args.all_hierarchies {
                    "0 (LLVM's)".to_string()
                } else {
                    args.hierarchy.clone()
                },
                hierarchies[chosen].describe(&name)
            );
            render_run(&mut out, &m, f, main, &name)?;
            if args.all_hierarchies {
                let _ = writeln!(
                    out,
                    "\n{} distinct cycle hierarch{} ({}):",
                    hierarchies.len(),
                    if hierarchies.len() == 1 { "y" } else { "ies" },
                    if exhaustive {
                        "every DFS successor order tried"
                    } else {
                        "sampled DFS successor orders; more may exist"
                    }
                );
                for (k, h) in hierarchies.iter().enumerate() {
                    let _ = writeln!(out, "  [{k}] {}", h.describe(&name));
                }
                let pairs: Vec<(&Hierarchy, &Run)> = hierarchies.iter().zip(runs.iter()).collect();
                let mc = m_converged(&pairs, f.blocks.len());
                let yes: Vec<String> = (0..f.blocks.len())
                    .filter(|&b| mc[b])
                    .map(|b| name(converge_graph::Block(b as u32)))
                    .collect();
                let no: Vec<String> = (0..f.blocks.len())
                    .filter(|&b| !mc[b])
                    .map(|b| name(converge_graph::Block(b as u32)))
                    .collect();
                let _ = writeln!(
                    out,
                    "m-converged blocks (same converged-with relation under every hierarchy): {}",
                    list(&yes)
                );
                let _ = writeln!(out, "not m-converged: {}", list(&no));
                let u = uniform_everywhere(&m, f, &runs);
                let _ = writeln!(out, "values uniform under every hierarchy: {}", list(&u));
                for (k, r) in runs.iter().enumerate().skip(1) {
                    let _ = writeln!(out, "\n-- under hierarchy [{k}]:");
                    render_run(&mut out, &m, f, r, &name)?;
                }
            }
            crate::common::emit(&out);
        }
    }
    // The run is shown either way, but a thread that stopped on an error or at the step limit,
    // or a barrier not reached by the whole group, means the execution is not a valid complete
    // one: say so on stderr and exit 1 rather than pass it off as a finished simulation.
    let mut failed = false;
    for (k, r) in runs.iter().enumerate() {
        for msg in r.failures() {
            let under = if runs.len() > 1 {
                format!(" (hierarchy [{k}])")
            } else {
                String::new()
            };
            eprintln!("error: {msg}{under}");
            failed = true;
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--args`: integers (decimal or `0x` hex), floats, pointers into `--mem` buffers, as
/// [`converge_sim::inputs::parse_value`] reads them; `_` (or empty) for "draw it from the seed".
pub fn parse_args(
    list: &[String],
) -> Result<Vec<Option<converge_sim::interp::ArgValue>>, CliError> {
    let mut argv = Vec::new();
    for (k, a) in list.iter().enumerate() {
        let a = a.trim();
        argv.push(if a == "_" || a.is_empty() {
            None
        } else {
            Some(parse_value(a).map_err(|e| format!("error: --args: argument {}: {e}", k + 1))?)
        });
    }
    Ok(argv)
}

/// Columns of the text table; wider tables are cut (the JSON output has everything).
const MAX_TEXT_COLUMNS: usize = 48;

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    run_cmd(args)
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
    name: &dyn Fn(converge_graph::Block) -> String,
) -> Result<(), CliError> {
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
                "thread {}: {} after {} steps",
                th.tid,
                status_text(&th.status),
                th.steps
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
                    "  unshared   {n}  ({classes} instance(s), none converged with another thread's)"
                );
            }
            Verdict::Uniform { classes, shared } => {
                let _ = writeln!(
                    out,
                    "  uniform    {n}  ({classes} converged instance(s), {shared} shared by several threads)"
                );
            }
            Verdict::Divergent { a, b } => {
                let _ = writeln!(
                    out,
                    "  divergent  {n}  (thread {}: {}, thread {}: {})",
                    a.0, a.1, b.0, b.1
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

fn hierarchy_json(h: &Hierarchy, name: &dyn Fn(converge_graph::Block) -> String) -> Json {
    Json::Array(
        h.cycles
            .iter()
            .map(|c| {
                json!({
                    "header": name(c.header),
                    "depth": c.depth,
                    "blocks": c.blocks.iter().map(|&b| name(b)).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

fn run_json(
    m: &Module,
    f: &Function,
    r: &Run,
    name: &dyn Fn(converge_graph::Block) -> String,
) -> Result<Json, CliError> {
    let t = table(r).map_err(|e| format!("error: {e}"))?;
    let threads: Vec<Json> = r
        .threads
        .iter()
        .zip(&t.cells)
        .map(|(th, row)| {
            json!({
                "thread": th.tid,
                "status": status_text(&th.status),
                "steps": th.steps,
                "instances": th.blocks.iter().map(|&(b, c)| json!({"block": name(b), "class": c})).collect::<Vec<_>>(),
                "columns": row,
            })
        })
        .collect();
    let groups: Vec<Json> = r
        .groups
        .iter()
        .map(|g| {
            let gf = &m.functions[g.func.0 as usize];
            json!({
                "function": m.strings.resolve(gf.name),
                "instruction": inst_name(m, gf, g.inst),
                "block": block_name(m, gf, gf.insts[g.inst.0 as usize].block),
                "threads": g.threads,
                "convergent": g.convergent,
            })
        })
        .collect();
    let values: Vec<Json> = value_uniformity(r, f.insts.len())
        .into_iter()
        .map(|(i, v)| {
            let n = inst_name(m, f, i);
            match v {
                Verdict::NotExecuted => json!({"instruction": n, "verdict": "not executed"}),
                Verdict::Uniform { classes, shared } => json!({"instruction": n, "verdict": "uniform", "classes": classes, "shared": shared}),
                Verdict::Divergent { a, b } => json!({"instruction": n, "verdict": "divergent", "witness": [{"thread": a.0, "value": a.1}, {"thread": b.0, "value": b.1}]}),
            }
        })
        .collect();
    Ok(json!({
        "threads": threads,
        "columns": t.columns.len(),
        "communicating": groups,
        "values": values,
        "notes": r.notes,
        "failures": r.failures(),
    }))
}
