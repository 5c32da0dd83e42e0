//! `converge uniformity FILE`: uniform and divergent values of every function (LLVM's
//! `UniformityInfo`), as readable text, `opt`'s `print<uniformity>` layout (LLVM 22), JSON, or
//! nothing (`--format none`, with `--time-passes` for per-phase timings). Functions are analysed in
//! parallel; output is assembled in function order, so it does not depend on the thread count.

use crate::common::color::{Style, paint};
use crate::common::{CliError, Format, FunctionArgs, TargetArg};
use crate::mode::ModeArg;
use converge_graph::{Block, Cycle};
use converge_ir::{FuncId, InstId, Module, Value};
use converge_uniformity::llvm::{LlvmFunction, Rules, Target};
use converge_uniformity::{LlvmVersion, Mode, Structure, Uniformity, analyze_with};
use rayon::prelude::*;
use serde_json::json;
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
    #[arg(long, alias = "llvm", value_name = "N", default_value_t = 22, value_parser = crate::common::llvm_version())]
    pub llvm_version: u32,
    /// `llvm` reproduces LLVM (bugs included); `precise` is sound by the semantics, with
    /// convergence tokens, and tighter where that is sound (docs/precise-mode.md).
    #[arg(long, value_enum, default_value_t = ModeArg::Llvm)]
    pub mode: ModeArg,
}

#[derive(Default, Clone, Copy)]
struct Times {
    cfg: Duration,
    structure: Duration,
    analysis: Duration,
    render: Duration,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let t0 = Instant::now();
    let module = crate::common::load_module(&args.file)?;
    let t_parse = t0.elapsed();
    let llvm19 = args.llvm_version < 22 && args.mode == ModeArg::Llvm;
    let version = if llvm19 {
        LlvmVersion::V19
    } else {
        LlvmVersion::V22
    };
    let mode = args.mode.mode(version);
    let mut target = args
        .target
        .model(&module, args.mcpu.as_deref())
        .for_version(version);
    if args.llvm_version == crate::common::LLVM_MAIN && args.mode == ModeArg::Llvm {
        target = target.with_rules(Rules::Main);
    }
    let t1 = Instant::now();
    let defined: Vec<usize> = args
        .functions
        .select(&module)?
        .into_iter()
        .map(|f| f.0 as usize)
        .collect();
    let progress = crate::common::progress::Progress::start("uniformity", defined.len());
    let results: Vec<(Rendered, Times)> = defined
        .par_iter()
        .map(|&fi| {
            let r = analyse_one(&module, fi, &target, args.format, mode);
            progress.inc();
            r
        })
        .collect();
    drop(progress);
    let times: Vec<Times> = results.iter().map(|r| r.1).collect();
    let t_analyse = t1.elapsed();
    let t2 = Instant::now();
    match args.format {
        Format::Json => {
            let functions: Vec<serde_json::Value> = results
                .into_iter()
                .filter_map(|(r, _)| match r {
                    Rendered::Json(v) => Some(v),
                    Rendered::Text(_) => None,
                })
                .collect();
            crate::common::emit_json(
                &serde_json::json!({ "mode": mode.name(), "functions": functions }),
            );
        }
        Format::None => {}
        _ => {
            let mut out = String::new();
            if mode == Mode::Precise {
                out.push_str(if args.format == Format::Llvm {
                    "; converge uniformity --mode precise\n"
                } else {
                    "mode: precise (sound by the semantics; docs/precise-mode.md)\n\n"
                });
            }
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
            sum.cfg += t.cfg;
            sum.structure += t.structure;
            sum.analysis += t.analysis;
            sum.render += t.render;
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        eprintln!(
            "time: parse {:.2} ms; {} functions in {:.2} ms wall on {} threads (summed: cfg+uses {:.2} ms, dominators+cycles {:.2} ms, uniformity {:.2} ms, render {:.2} ms); output {:.2} ms; total {:.2} ms",
            ms(t_parse),
            times.len(),
            ms(t_analyse),
            rayon::current_num_threads(),
            ms(sum.cfg),
            ms(sum.structure),
            ms(sum.analysis),
            ms(sum.render),
            ms(t2.elapsed()),
            ms(t0.elapsed()),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// One function's report: text for the readable and llvm formats, a JSON value for `json`.
enum Rendered {
    Text(String),
    Json(serde_json::Value),
}

fn analyse_one(
    module: &Module,
    fi: usize,
    target: &Target,
    format: Format,
    mode: Mode,
) -> (Rendered, Times) {
    let llvm19 = mode == Mode::Llvm(LlvmVersion::V19);
    let mut t = Times::default();
    let a = Instant::now();
    let lf = LlvmFunction::new(module, FuncId(fi as u32));
    t.cfg = a.elapsed();
    let a = Instant::now();
    let g = converge_uniformity::SsaFunction::cfg(&lf);
    let s = if llvm19 {
        Structure::new_llvm19(g)
    } else {
        Structure::new(g)
    };
    t.structure = a.elapsed();
    let a = Instant::now();
    let u = analyze_with(&lf, target, &s, mode);
    t.analysis = a.elapsed();
    let a = Instant::now();
    let text = match format {
        Format::Llvm => Rendered::Text(render_llvm(&lf, &s, &u, llvm19, target.rules())),
        Format::Json => Rendered::Json(render_json(&lf, &s, &u)),
        Format::Text => Rendered::Text(render_text(&lf, &s, &u)),
        Format::None => Rendered::Text(String::new()),
    };
    t.render = a.elapsed();
    (text, t)
}

// ---- names and text ------------------------------------------------------------------------------

fn value_name(m: &Module, f: FuncId, v: Value) -> String {
    m.value_name(f, v)
}

fn block_name(m: &Module, f: FuncId, b: Block) -> String {
    m.block_name(f, b)
}

/// The instruction as LLVM prints it, in `buf` (reused per function: no allocation per
/// instruction once it has grown).
fn inst_text<'b>(buf: &'b mut String, m: &Module, f: FuncId, i: u32) -> &'b str {
    buf.clear();
    m.inst_text_into(buf, f, InstId(i));
    buf
}

fn cycle_text(m: &Module, fid: FuncId, s: &Structure, c: u32) -> String {
    cycle_text_in(m, fid, s, c, Rules::V22)
}

/// [`cycle_text`] in the block order of `rules` (LLVM main: DFS preorder).
fn cycle_text_in(m: &Module, fid: FuncId, s: &Structure, c: u32, rules: Rules) -> String {
    let ci = &s.cycles;
    let cy = Cycle(c);
    if rules == Rules::Main {
        let (entries, others) = converge_uniformity::llvm::main_print_order(ci, cy);
        let names =
            |bs: &[Block]| -> Vec<String> { bs.iter().map(|&b| block_name(m, fid, b)).collect() };
        let mut out = format!(
            "depth={}: entries({})",
            ci.depth(cy),
            names(&entries).join(" ")
        );
        for n in names(&others) {
            out.push(' ');
            out.push_str(&n);
        }
        return out;
    }
    let mut out = format!("depth={}: entries(", ci.depth(cy));
    for (k, &e) in ci.entries(cy).iter().enumerate() {
        if k > 0 {
            out.push(' ');
        }
        out.push_str(&block_name(m, fid, e));
    }
    out.push(')');
    for &b in ci.blocks(cy) {
        if !ci.is_entry(cy, b) {
            out.push(' ');
            out.push_str(&block_name(m, fid, b));
        }
    }
    out
}

// ---- formats -------------------------------------------------------------------------------------

/// `opt -passes='print<uniformity>'` as LLVM 22 prints it.
fn render_llvm(
    lf: &LlvmFunction<'_>,
    s: &Structure,
    u: &Uniformity,
    llvm19: bool,
    rules: Rules,
) -> String {
    // LLVM main lists cycles in CycleInfo's order (outer before inner) and prints each cycle's
    // blocks in DFS preorder.
    let sorted = |cs: &[u32]| -> Vec<u32> {
        let mut cs = cs.to_vec();
        if rules == Rules::Main {
            cs.sort_unstable();
        }
        cs
    };
    let cycle_text =
        |m: &Module, fid: FuncId, s: &Structure, c: u32| cycle_text_in(m, fid, s, c, rules);
    let (m, f, fid) = (lf.module, lf.func, lf.fid);
    let mut out = format!("UniformityInfo for function '{}':\n", lf.name());
    if !u.has_divergence() {
        out.push_str("ALL VALUES UNIFORM\n");
        return out;
    }
    if u.divergent_args.iter().any(|&d| d) {
        out.push_str("DIVERGENT ARGUMENTS:\n");
        for (a, p) in f.params.iter().enumerate() {
            if u.divergent_args[a] {
                out.push_str("  DIVERGENT: ");
                out.push_str(&m.type_text(p.ty));
                out.push(' ');
                out.push_str(&value_name(m, fid, Value::Arg(a as u32)));
                out.push('\n');
            }
        }
    }
    if !u.assumed_divergent.is_empty() {
        out.push_str(if llvm19 {
            "CYCLES ASSSUMED DIVERGENT:\n"
        } else {
            "CYCLES ASSUMED DIVERGENT:\n"
        });
        for c in sorted(&u.assumed_divergent) {
            let _ = writeln!(out, "  {}", cycle_text(m, fid, s, c));
        }
    }
    if !u.divergent_exit_cycles.is_empty() {
        out.push_str("CYCLES WITH DIVERGENT EXIT:\n");
        for c in sorted(&u.divergent_exit_cycles) {
            let _ = writeln!(out, "  {}", cycle_text(m, fid, s, c));
        }
    }
    if !llvm19 && !u.temporal_divergence.is_empty() {
        out.push_str("\nTEMPORAL DIVERGENCE LIST:\n");
        for t in &u.temporal_divergence {
            out.push_str("Value         :");
            m.inst_text_into(&mut out, fid, InstId(t.value));
            out.push_str("\nUsed by       :");
            m.inst_text_into(&mut out, fid, InstId(t.user));
            let _ = write!(
                out,
                "\nOutside cycle :{}\n\n",
                cycle_text(m, fid, s, t.cycle)
            );
        }
    }
    for (b, bd) in f.blocks.iter().enumerate() {
        let _ = write!(
            out,
            "\nBLOCK {}\nDEFINITIONS\n",
            block_name(m, fid, Block(b as u32))
        );
        let r = bd.insts.range();
        for i in r.clone() {
            if f.insts[i].op.is_terminator() {
                continue;
            }
            out.push_str(if u.divergent_insts[i] {
                "  DIVERGENT: "
            } else {
                "             "
            });
            m.inst_text_into(&mut out, fid, InstId(i as u32));
            out.push('\n');
        }
        out.push_str("TERMINATORS\n");
        for i in r {
            if !f.insts[i].op.is_terminator() {
                continue;
            }
            out.push_str(if u.divergent_terminators[b] {
                "  DIVERGENT: "
            } else {
                "             "
            });
            m.inst_text_into(&mut out, fid, InstId(i as u32));
            out.push('\n');
        }
        out.push_str("END BLOCK\n");
    }
    out
}

fn cycle_json(m: &Module, fid: FuncId, s: &Structure, c: u32) -> serde_json::Value {
    let ci = &s.cycles;
    let cy = Cycle(c);
    let list =
        |bs: &[Block]| -> Vec<String> { bs.iter().map(|&b| block_name(m, fid, b)).collect() };
    json!({
        "depth": ci.depth(cy),
        "header": block_name(m, fid, ci.header(cy)),
        "entries": list(ci.entries(cy)),
        "blocks": list(ci.blocks(cy)),
    })
}

/// One JSON object per function.
fn render_json(lf: &LlvmFunction<'_>, s: &Structure, u: &Uniformity) -> serde_json::Value {
    let mut buf = String::new();
    let (m, f, fid) = (lf.module, lf.func, lf.fid);
    let arguments: Vec<serde_json::Value> = (0..f.params.len())
        .map(|a| {
            json!({
                "index": a,
                "name": value_name(m, fid, Value::Arg(a as u32)),
                "divergent": u.divergent_args[a],
            })
        })
        .collect();
    let blocks: Vec<serde_json::Value> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(b, bd)| {
            let insts: Vec<serde_json::Value> = bd
                .insts
                .range()
                .enumerate()
                .map(|(k, i)| {
                    let inst = &f.insts[i];
                    let term = inst.op.is_terminator();
                    let div = if term {
                        u.divergent_terminators[b]
                    } else {
                        u.divergent_insts[i]
                    };
                    let name = (inst.name != converge_ir::LocalName::None)
                        .then(|| value_name(m, fid, Value::Inst(InstId(i as u32))));
                    json!({
                        "position": k,
                        "name": name,
                        "text": inst_text(&mut buf, m, fid, i as u32).trim_start(),
                        "terminator": term,
                        "divergent": div,
                        "always_uniform": u.always_uniform[i],
                    })
                })
                .collect();
            json!({
                "name": block_name(m, fid, Block(b as u32)),
                "reachable": s.is_reachable(Block(b as u32)),
                "instructions": insts,
            })
        })
        .collect();
    let cycles = |cs: &[u32]| -> Vec<serde_json::Value> {
        cs.iter().map(|&c| cycle_json(m, fid, s, c)).collect()
    };
    let temporal: Vec<serde_json::Value> = u
        .temporal_divergence
        .iter()
        .map(|t| {
            json!({
                "value": inst_text(&mut buf, m, fid, t.value).trim_start(),
                "user": inst_text(&mut buf, m, fid, t.user).trim_start(),
                "cycle": cycle_json(m, fid, s, t.cycle),
            })
        })
        .collect();
    json!({
        "name": lf.name(),
        "analysed": u.analysed,
        "arguments": arguments,
        "blocks": blocks,
        "cycles_assumed_divergent": cycles(&u.assumed_divergent),
        "cycles_with_divergent_exit": cycles(&u.divergent_exit_cycles),
        "temporal_divergence": temporal,
    })
}

/// The readable default: the function with each divergent item flagged, then the cycle facts.
fn render_text(lf: &LlvmFunction<'_>, s: &Structure, u: &Uniformity) -> String {
    let (mut buf, mut buf2) = (String::new(), String::new());
    let (m, f, fid) = (lf.module, lf.func, lf.fid);
    let nd = u.divergent_insts.iter().filter(|&&d| d).count()
        + u.divergent_args.iter().filter(|&&d| d).count();
    let mut out = paint(Style::Bold, &format!("function @{}", lf.name()));
    if !u.analysed {
        out.push_str(": no branch divergence on this target; every value is uniform\n\n");
        return out;
    }
    let _ = writeln!(
        out,
        ": {}, {}",
        crate::common::count(nd, "divergent value", "divergent values"),
        crate::common::count(
            u.divergent_terminators.iter().filter(|&&d| d).count(),
            "divergent terminator",
            "divergent terminators"
        )
    );
    for (a, p) in f.params.iter().enumerate() {
        let ty = m.type_text(p.ty);
        let _ = writeln!(
            out,
            "  {} arg {ty} {}",
            if u.divergent_args[a] {
                paint(Style::Error, "divergent")
            } else {
                "uniform  ".to_string()
            },
            value_name(m, fid, Value::Arg(a as u32))
        );
    }
    for &c in &u.assumed_divergent {
        let _ = writeln!(
            out,
            "  cycle assumed divergent (diverged entry): {}",
            cycle_text(m, fid, s, c)
        );
    }
    for &c in &u.divergent_exit_cycles {
        let _ = writeln!(
            out,
            "  cycle with divergent exit: {}",
            cycle_text(m, fid, s, c)
        );
    }
    for t in &u.temporal_divergence {
        let _ = writeln!(
            out,
            "  temporal divergence: {} used by {} outside {}",
            inst_text(&mut buf, m, fid, t.value).trim(),
            inst_text(&mut buf2, m, fid, t.user).trim(),
            cycle_text(m, fid, s, t.cycle)
        );
    }
    for (b, bd) in f.blocks.iter().enumerate() {
        let blk = Block(b as u32);
        let _ = write!(out, "{}:", block_name(m, fid, blk));
        if !s.is_reachable(blk) {
            out.push_str("  ; unreachable");
        } else if let Some(c) = s.cycle_of(blk) {
            let _ = write!(out, "  ; in cycle {}", cycle_text(m, fid, s, c));
        }
        out.push('\n');
        for i in bd.insts.range() {
            let inst = &f.insts[i];
            let div = if inst.op.is_terminator() {
                u.divergent_terminators[b]
            } else {
                u.divergent_insts[i]
            };
            let mark = if div {
                "divergent"
            } else if u.always_uniform[i] {
                "always-uniform"
            } else {
                ""
            };
            let mark = format!("{mark:>14}");
            let _ = writeln!(
                out,
                "  {} {}",
                if div {
                    paint(Style::Error, &mark)
                } else {
                    mark
                },
                inst_text(&mut buf, m, fid, i as u32).trim_start()
            );
        }
    }
    out.push('\n');
    out
}
