//! `converge uniformity FILE`: uniform and divergent values of every function (LLVM's
//! `UniformityInfo`), as readable text, `opt`'s `print<uniformity>` layout (LLVM 22), JSON, or
//! nothing (`--format none`, with `--time` for per-phase timings). Functions are analysed in
//! parallel; output is assembled in function order, so it does not depend on the thread count.

use crate::common::{CliError, Format, TargetArg};
use crate::mode::ModeArg;
use converge_graph::{Block, Cycle};
use converge_ir::{FuncId, InstId, Module, Value};
use converge_uniformity::llvm::{Amdgpu, LlvmFunction, Nvptx, Target};
use converge_uniformity::{LlvmVersion, Mode, Structure, Uniformity, analyze_with};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll).
    pub file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Target model (`auto` reads the module's target triple).
    #[arg(long, value_enum, default_value_t = TargetArg::Auto)]
    pub target: TargetArg,
    /// Processor (AMDGPU: decides the wave size, wave32 from gfx10 on); overrides "target-cpu".
    #[arg(long)]
    pub mcpu: Option<String>,
    /// Print per-phase times to stderr.
    #[arg(long)]
    pub time: bool,
    /// Reproduce this LLVM release (22, the reference; or 19, with its join-detection early stop,
    /// unreachable predecessors as cycle entries, no temporal-divergence list and the `ASSSUMED`
    /// spelling).
    #[arg(long, default_value_t = 22, value_parser = clap::value_parser!(u32).range(19..=22))]
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
    let mode = args.mode.mode(if llvm19 {
        LlvmVersion::V19
    } else {
        LlvmVersion::V22
    });
    let target = match args.target {
        TargetArg::Auto => Target::from_triple(module.triple.as_deref(), args.mcpu.as_deref()),
        TargetArg::Amdgpu => Target::Amdgpu(Amdgpu::new(args.mcpu.as_deref())),
        TargetArg::Nvptx => Target::Nvptx(Nvptx),
        TargetArg::None => Target::Uniform,
    }
    .for_version(if llvm19 {
        LlvmVersion::V19
    } else {
        LlvmVersion::V22
    });
    let t1 = Instant::now();
    let defined: Vec<usize> = (0..module.functions.len())
        .filter(|&i| !module.functions[i].is_declaration)
        .collect();
    let results: Vec<(String, Times)> = defined
        .par_iter()
        .map(|&fi| analyse_one(&module, fi, &target, args.format, mode))
        .collect();
    let t_analyse = t1.elapsed();
    let t2 = Instant::now();
    let mut out = String::new();
    match args.format {
        Format::Json => {
            let _ = write!(out, "{{\"mode\":\"{}\",\"functions\":[", mode.name());
            for (k, (s, _)) in results.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                out.push_str(s);
            }
            out.push_str("]}\n");
        }
        Format::None => {}
        _ => {
            if mode == Mode::Precise {
                out.push_str(if args.format == Format::Llvm {
                    "; converge uniformity --mode precise\n"
                } else {
                    "mode: precise (sound by the semantics; docs/precise-mode.md)\n\n"
                });
            }
            for (s, _) in &results {
                out.push_str(s);
            }
        }
    }
    crate::common::emit(&out);
    if args.time {
        let mut sum = Times::default();
        for (_, t) in &results {
            sum.cfg += t.cfg;
            sum.structure += t.structure;
            sum.analysis += t.analysis;
            sum.render += t.render;
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        eprintln!(
            "time: parse {:.2} ms; {} functions in {:.2} ms wall on {} threads (summed: cfg+uses {:.2} ms, dominators+cycles {:.2} ms, uniformity {:.2} ms, render {:.2} ms); output {:.2} ms; total {:.2} ms",
            ms(t_parse),
            results.len(),
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

fn analyse_one(
    module: &Module,
    fi: usize,
    target: &Target,
    format: Format,
    mode: Mode,
) -> (String, Times) {
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
        Format::Llvm => render_llvm(&lf, &s, &u, llvm19),
        Format::Json => render_json(&lf, &s, &u),
        Format::Text => render_text(&lf, &s, &u),
        Format::None => String::new(),
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
    let ci = &s.cycles;
    let cy = Cycle(c);
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
fn render_llvm(lf: &LlvmFunction<'_>, s: &Structure, u: &Uniformity, llvm19: bool) -> String {
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
        for &c in &u.assumed_divergent {
            let _ = writeln!(out, "  {}", cycle_text(m, fid, s, c));
        }
    }
    if !u.divergent_exit_cycles.is_empty() {
        out.push_str("CYCLES WITH DIVERGENT EXIT:\n");
        for &c in &u.divergent_exit_cycles {
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

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Appends `s` as a JSON string literal (serde_json's escapes) without a temporary per call.
fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn cycle_json(m: &Module, fid: FuncId, s: &Structure, c: u32) -> String {
    let ci = &s.cycles;
    let cy = Cycle(c);
    let list = |bs: &[Block]| -> String {
        let v: Vec<String> = bs
            .iter()
            .map(|&b| json_str(&block_name(m, fid, b)))
            .collect();
        format!("[{}]", v.join(","))
    };
    format!(
        "{{\"depth\":{},\"header\":{},\"entries\":{},\"blocks\":{}}}",
        ci.depth(cy),
        json_str(&block_name(m, fid, ci.header(cy))),
        list(ci.entries(cy)),
        list(ci.blocks(cy))
    )
}

/// One JSON object per function.
fn render_json(lf: &LlvmFunction<'_>, s: &Structure, u: &Uniformity) -> String {
    let mut buf = String::new();
    let (m, f, fid) = (lf.module, lf.func, lf.fid);
    let mut out = format!(
        "{{\"name\":{},\"analysed\":{},\"arguments\":[",
        json_str(lf.name()),
        u.analysed
    );
    for a in 0..f.params.len() {
        if a > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"index\":{a},\"name\":{},\"divergent\":{}}}",
            json_str(&value_name(m, fid, Value::Arg(a as u32))),
            u.divergent_args[a]
        );
    }
    out.push_str("],\"blocks\":[");
    for (b, bd) in f.blocks.iter().enumerate() {
        if b > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"name\":{},\"reachable\":{},\"instructions\":[",
            json_str(&block_name(m, fid, Block(b as u32))),
            s.is_reachable(Block(b as u32))
        );
        for (k, i) in bd.insts.range().enumerate() {
            if k > 0 {
                out.push(',');
            }
            let inst = &f.insts[i];
            let term = inst.op.is_terminator();
            let div = if term {
                u.divergent_terminators[b]
            } else {
                u.divergent_insts[i]
            };
            let name = if inst.name == converge_ir::LocalName::None {
                String::new()
            } else {
                value_name(m, fid, Value::Inst(InstId(i as u32)))
            };
            let _ = write!(out, "{{\"position\":{k},\"name\":");
            if name.is_empty() {
                out.push_str("null");
            } else {
                push_json_str(&mut out, &name);
            }
            out.push_str(",\"text\":");
            push_json_str(&mut out, inst_text(&mut buf, m, fid, i as u32).trim_start());
            let _ = write!(
                out,
                ",\"terminator\":{term},\"divergent\":{div},\"always_uniform\":{}}}",
                u.always_uniform[i]
            );
        }
        out.push_str("]}");
    }
    let cycles = |cs: &[u32]| -> String {
        let v: Vec<String> = cs.iter().map(|&c| cycle_json(m, fid, s, c)).collect();
        format!("[{}]", v.join(","))
    };
    let _ = write!(
        out,
        "],\"cycles_assumed_divergent\":{},\"cycles_with_divergent_exit\":{},\"temporal_divergence\":[",
        cycles(&u.assumed_divergent),
        cycles(&u.divergent_exit_cycles)
    );
    for (k, t) in u.temporal_divergence.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"value\":{},\"user\":{},\"cycle\":{}}}",
            json_str(inst_text(&mut buf, m, fid, t.value).trim_start()),
            json_str(inst_text(&mut buf, m, fid, t.user).trim_start()),
            cycle_json(m, fid, s, t.cycle)
        );
    }
    out.push_str("]}");
    out
}

/// The readable default: the function with each divergent item flagged, then the cycle facts.
fn render_text(lf: &LlvmFunction<'_>, s: &Structure, u: &Uniformity) -> String {
    let (mut buf, mut buf2) = (String::new(), String::new());
    let (m, f, fid) = (lf.module, lf.func, lf.fid);
    let nd = u.divergent_insts.iter().filter(|&&d| d).count()
        + u.divergent_args.iter().filter(|&&d| d).count();
    let mut out = format!("function @{}", lf.name());
    if !u.analysed {
        out.push_str(": no branch divergence on this target; every value is uniform\n\n");
        return out;
    }
    let _ = writeln!(
        out,
        ": {nd} divergent values, {} divergent terminators",
        u.divergent_terminators.iter().filter(|&&d| d).count()
    );
    for (a, p) in f.params.iter().enumerate() {
        let ty = m.type_text(p.ty);
        let _ = writeln!(
            out,
            "  {} arg {ty} {}",
            if u.divergent_args[a] {
                "divergent"
            } else {
                "uniform  "
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
            let _ = writeln!(
                out,
                "  {mark:>14} {}",
                inst_text(&mut buf, m, fid, i as u32).trim_start()
            );
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::{json_str, push_json_str};

    #[test]
    fn push_json_str_escapes_like_serde_json() {
        for s in [
            "",
            "  %x = call i32 asm \"v_mov_b32 $0, 1\", \"=v\"()",
            "a\\b\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f} é ∀ 𝄞",
            "c\"\\\"",
        ] {
            let mut out = String::from("x");
            push_json_str(&mut out, s);
            assert_eq!(out[1..], json_str(s), "{s:?}");
        }
    }
}
