//! `converge uniformity`'s report: per function, uniform and divergent arguments and
//! instructions, cycles assumed divergent, cycles with a divergent exit and temporal divergence,
//! as readable text ([`text`]), `opt -passes='print<uniformity>'`'s layout ([`llvm`]) or JSON
//! ([`UniformityReport`], schema `converge.uniformity/1`).

use super::style::{Painter, Style};
use super::{CycleJson, count, cycle_line};
use converge_graph::{Block, Cycle};
use converge_ir::{InstId, LocalName, Value};
use converge_uniformity::Mode;
use converge_uniformity::llvm::FunctionAnalysis;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The JSON document: the mode and one entry per function, in module order.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct UniformityReport {
    /// `converge.uniformity/1`.
    pub schema: String,
    /// `llvm` or `precise`.
    pub mode: String,
    /// One entry per selected function, in module order.
    pub functions: Vec<FunctionJson>,
}

impl UniformityReport {
    /// The document for analysis mode `mode` with `functions`, schema filled in.
    pub fn new(mode: Mode, functions: Vec<FunctionJson>) -> UniformityReport {
        UniformityReport {
            schema: super::schema("uniformity"),
            mode: mode.name().to_string(),
            functions,
        }
    }
}

/// One function.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct FunctionJson {
    /// The function's name, without `@`.
    pub name: String,
    /// False when the target has no branch divergence (every value uniform, nothing analysed).
    pub analysed: bool,
    /// The function's arguments, in order.
    pub arguments: Vec<ArgumentJson>,
    /// The function's blocks, in function order.
    pub blocks: Vec<BlockJson>,
    /// Cycles entered on diverged paths (irreducible cycles whose entries are reached by
    /// threads that took different sides of a divergent branch): every value defined in them
    /// is assumed divergent. LLVM's `CYCLES ASSUMED DIVERGENT`.
    pub cycles_assumed_divergent: Vec<CycleJson>,
    /// Cycles with a divergent exit: threads may leave them in different iterations, so values
    /// defined inside and used outside show temporal divergence. LLVM's `CYCLES WITH DIVERGENT
    /// EXIT`.
    pub cycles_with_divergent_exit: Vec<CycleJson>,
    /// Uses outside a cycle of values defined in it, for cycles with a divergent exit (LLVM
    /// 22's `TEMPORAL DIVERGENCE LIST`).
    pub temporal_divergence: Vec<TemporalJson>,
}

/// One argument of a function and whether it is divergent.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ArgumentJson {
    /// Position in the parameter list, from 0.
    pub index: usize,
    /// `%name`, or `%N` for an unnamed argument.
    pub name: String,
    /// The argument may differ between threads (the target's rule for arguments, e.g. a
    /// kernel's arguments are uniform).
    pub divergent: bool,
}

/// One block of a function and its instructions.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct BlockJson {
    /// The block's raw name (`print<cycles>`'s spelling: no `%`; the slot number when unnamed).
    pub name: String,
    /// Reachable from the function's entry block.
    pub reachable: bool,
    /// The block's instructions in order, terminator last.
    pub instructions: Vec<InstructionJson>,
}

/// One instruction and its uniformity.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct InstructionJson {
    /// Index within the block.
    pub position: usize,
    /// `%name`, or null for an instruction without a result name.
    pub name: Option<String>,
    /// The instruction as LLVM prints it.
    pub text: String,
    /// The instruction ends its block (`br`, `switch`, `ret`, …).
    pub terminator: bool,
    /// The value may differ between threads; for a terminator, the branch is divergent
    /// (threads may take different successors).
    pub divergent: bool,
    /// The target says the result is uniform whatever its operands (e.g. a
    /// `readfirstlane`).
    pub always_uniform: bool,
}

/// Temporal divergence: a value defined in a cycle with a divergent exit and used outside it,
/// where threads that left in different iterations see different dynamic instances of it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct TemporalJson {
    /// The instruction defining the value, as LLVM prints it.
    pub value: String,
    /// The instruction using the value outside the cycle, as LLVM prints it.
    pub user: String,
    /// The cycle the value's uses leave.
    pub cycle: CycleJson,
}

/// What precedes the functions in the text formats: nothing in llvm mode, a line naming precise
/// mode otherwise (a comment in LLVM's layout).
pub fn preamble(mode: Mode, llvm_layout: bool) -> &'static str {
    match (mode, llvm_layout) {
        (Mode::Precise, true) => "; converge uniformity --mode precise\n",
        (Mode::Precise, false) => {
            "mode: precise (sound by the semantics; docs/precise-mode.md)\n\n"
        }
        _ => "",
    }
}

fn cyc(a: &FunctionAnalysis<'_>, c: Cycle, main: bool) -> String {
    if main {
        return super::main_cycle_line(a.lf.module, a.lf.func, &a.structure.cycles, c);
    }
    cycle_line(a.lf.module, a.lf.func, &a.structure.cycles, c)
}

/// A cycle in the readable text (`super::cycle_brief`: big cycles by header and size).
fn brief(a: &FunctionAnalysis<'_>, c: Cycle) -> String {
    super::cycle_brief(a.lf.module, a.lf.func, &a.structure.cycles, c)
}

fn cyc_json(a: &FunctionAnalysis<'_>, c: Cycle) -> CycleJson {
    CycleJson::new(a.lf.module, a.lf.func, &a.structure.cycles, c)
}

fn inst_text<'b>(buf: &'b mut String, a: &FunctionAnalysis<'_>, i: u32) -> &'b str {
    buf.clear();
    a.lf.module.inst_text_into(buf, a.lf.fid, InstId(i));
    buf
}

/// `opt -passes='print<uniformity>'` as LLVM 22 prints it (19's when `llvm19`: the `ASSSUMED`
/// spelling, no temporal-divergence list). With `main`, as LLVM's development branch prints it
/// (`--llvm-version main`): cycles listed outer before inner, blocks in depth-first preorder.
/// [`write_llvm`] into a `String`.
pub fn llvm(a: &FunctionAnalysis<'_>, llvm19: bool, main: bool) -> String {
    let mut out = String::new();
    let _ = write_llvm(&mut out, a, llvm19, main);
    out
}

/// [`llvm`] written to `out` piece by piece, so a function whose text is larger than memory can go
/// straight to a file or pipe: LLVM's layout lists every block of a cycle on each cycle line, so
/// a nest thousands deep prints a quadratic amount (750 MB for a 16,000-block nest in precise
/// mode). Stops at the first error of `out` (a closed pipe).
pub fn write_llvm(
    out: &mut impl std::fmt::Write,
    a: &FunctionAnalysis<'_>,
    llvm19: bool,
    main: bool,
) -> std::fmt::Result {
    let sorted = |cs: &[Cycle]| -> Vec<Cycle> {
        let mut cs = cs.to_vec();
        if main {
            cs.sort_unstable();
        }
        cs
    };
    let (lf, u) = (&a.lf, &a.uniformity);
    let (m, f, fid) = (lf.module, lf.func, lf.fid);
    // One instruction or name at a time: the IR printer writes into a `String`.
    let mut line = String::new();
    writeln!(out, "UniformityInfo for function '{}':", lf.name())?;
    if !u.has_divergence() {
        return out.write_str("ALL VALUES UNIFORM\n");
    }
    if u.divergent_args.iter().any(|&d| d) {
        out.write_str("DIVERGENT ARGUMENTS:\n")?;
        for (k, p) in f.params.iter().enumerate() {
            if u.divergent_args[k] {
                out.write_str("  DIVERGENT: ")?;
                out.write_str(&m.type_text(p.ty))?;
                out.write_char(' ')?;
                out.write_str(&m.value_name(fid, Value::Arg(k as u32)))?;
                out.write_char('\n')?;
            }
        }
    }
    if !u.assumed_divergent.is_empty() {
        // LLVM 19 spells it with three S.
        out.write_str(if llvm19 {
            "CYCLES ASSSUMED DIVERGENT:\n"
        } else {
            "CYCLES ASSUMED DIVERGENT:\n"
        })?;
        for c in sorted(&u.assumed_divergent) {
            writeln!(out, "  {}", cyc(a, c, main))?;
        }
    }
    if !u.divergent_exit_cycles.is_empty() {
        out.write_str("CYCLES WITH DIVERGENT EXIT:\n")?;
        for c in sorted(&u.divergent_exit_cycles) {
            writeln!(out, "  {}", cyc(a, c, main))?;
        }
    }
    if !llvm19 && !u.temporal_divergence.is_empty() {
        out.write_str("\nTEMPORAL DIVERGENCE LIST:\n")?;
        for t in &u.temporal_divergence {
            line.clear();
            line.push_str("Value         :");
            m.inst_text_into(&mut line, fid, InstId(t.value.0));
            line.push_str("\nUsed by       :");
            m.inst_text_into(&mut line, fid, InstId(t.user.0));
            out.write_str(&line)?;
            write!(out, "\nOutside cycle :{}\n\n", cyc(a, t.cycle, main))?;
        }
    }
    for b in 0..f.blocks.len() {
        line.clear();
        line.push_str("\nBLOCK ");
        m.write_block_name(f, Block(b as u32), &mut line);
        line.push_str("\nDEFINITIONS\n");
        out.write_str(&line)?;
        // LLVM prints the non-terminators, then the terminators, each flagged when divergent.
        for terminators in [false, true] {
            if terminators {
                out.write_str("TERMINATORS\n")?;
            }
            for i in f.block_range(Block(b as u32)).range() {
                if f.insts[i].op.is_terminator() != terminators {
                    continue;
                }
                let div = if terminators {
                    u.divergent_terminators[b]
                } else {
                    u.divergent_insts[i]
                };
                line.clear();
                line.push_str(if div {
                    "  DIVERGENT: "
                } else {
                    "             "
                });
                m.inst_text_into(&mut line, fid, InstId(i as u32));
                line.push('\n');
                out.write_str(&line)?;
            }
        }
        out.write_str("END BLOCK\n")?;
    }
    Ok(())
}

/// About how many bytes [`llvm`] prints for `a`, from its counts alone: the cycle lines (a
/// block name per block of each cycle listed) and a line per instruction. The CLI renders a
/// function whose estimate is large straight into its output instead of a buffer.
pub fn llvm_size_hint(a: &FunctionAnalysis<'_>, llvm19: bool) -> u64 {
    let (ci, u, f) = (&a.structure.cycles, &a.uniformity, a.lf.func);
    if !u.has_divergence() {
        return 64;
    }
    // A block name with its separator; an instruction line; a block's fixed lines.
    const NAME: u64 = 8;
    const INST: u64 = 64;
    const BLOCK: u64 = 48;
    let listed = |c: Cycle| 24 + NAME * ci.blocks(c).len() as u64;
    let mut n: u64 = 64 + INST * f.insts.len() as u64 + BLOCK * f.blocks.len() as u64;
    n += u.assumed_divergent.iter().map(|&c| listed(c)).sum::<u64>();
    n += u
        .divergent_exit_cycles
        .iter()
        .map(|&c| listed(c))
        .sum::<u64>();
    if !llvm19 {
        n += u
            .temporal_divergence
            .iter()
            .map(|t| 2 * INST + listed(t.cycle))
            .sum::<u64>();
    }
    n
}

/// One function as JSON, built whole: the reference [`write_json`] matches byte for byte
/// (through [`super::json_text`]); tests and library callers use it.
pub fn json(a: &FunctionAnalysis<'_>) -> FunctionJson {
    let (lf, s, u) = (&a.lf, &a.structure, &a.uniformity);
    let mut buf = String::new();
    let (m, f, fid) = (lf.module, lf.func, lf.fid);
    let arguments = (0..f.params.len())
        .map(|k| ArgumentJson {
            index: k,
            name: m.value_name(fid, Value::Arg(k as u32)),
            divergent: u.divergent_args[k],
        })
        .collect();
    let blocks = f
        .blocks
        .iter()
        .enumerate()
        .map(|(b, _)| BlockJson {
            name: m.block_name_in(f, Block(b as u32)),
            reachable: s.is_reachable(Block(b as u32)),
            instructions: f
                .block_range(Block(b as u32))
                .range()
                .enumerate()
                .map(|(k, i)| {
                    let inst = &f.insts[i];
                    let term = inst.op.is_terminator();
                    InstructionJson {
                        position: k,
                        name: (inst.name() != LocalName::None)
                            .then(|| m.value_name(fid, Value::Inst(InstId(i as u32)))),
                        text: inst_text(&mut buf, a, i as u32).trim_start().to_string(),
                        terminator: term,
                        divergent: if term {
                            u.divergent_terminators[b]
                        } else {
                            u.divergent_insts[i]
                        },
                        always_uniform: u.always_uniform[i],
                    }
                })
                .collect(),
        })
        .collect();
    let cycles = |cs: &[Cycle]| cs.iter().map(|&c| cyc_json(a, c)).collect();
    let temporal_divergence = u
        .temporal_divergence
        .iter()
        .map(|t| TemporalJson {
            value: inst_text(&mut buf, a, t.value.0).trim_start().to_string(),
            user: inst_text(&mut buf, a, t.user.0).trim_start().to_string(),
            cycle: cyc_json(a, t.cycle),
        })
        .collect();
    FunctionJson {
        name: lf.name().to_string(),
        analysed: u.analysed,
        arguments,
        blocks,
        cycles_assumed_divergent: cycles(&u.assumed_divergent),
        cycles_with_divergent_exit: cycles(&u.divergent_exit_cycles),
        temporal_divergence,
    }
}

/// [`UniformityReport`]'s JSON, streamed: [`write_json_head`], each function through
/// [`super::jsonw::ListDocument::element`] and [`write_json`], then [`write_json_tail`]; the
/// bytes [`super::json_text`] prints for the whole report.
pub fn write_json_head(out: impl std::fmt::Write) -> std::fmt::Result {
    frame(&[]).head(out)
}

/// The end of [`UniformityReport`]'s JSON after `count` functions (see [`write_json_head`]).
pub fn write_json_tail(out: impl std::fmt::Write, mode: Mode, count: usize) -> std::fmt::Result {
    let schema = super::schema("uniformity");
    frame(&[("mode", mode.name()), ("schema", &schema)]).tail(out, count)
}

/// The keys around `functions`, in sorted order.
fn frame<'a>(after: &'a [(&'a str, &'a str)]) -> super::jsonw::ListDocument<'a> {
    super::jsonw::ListDocument {
        before: &[],
        list: "functions",
        after,
    }
}

/// [`json`] written into `w` as it is rendered, keys in sorted order, the bytes
/// [`super::json_text`] prints for the [`FunctionJson`]: its cycle lists are quadratic in a
/// deep nest (342 MB for an 8,000-block nest in precise mode), so the function is never built
/// as a value. Stops at the first error of `w`'s sink.
pub fn write_json(
    w: &mut super::jsonw::JsonWriter<impl std::fmt::Write>,
    a: &FunctionAnalysis<'_>,
) -> std::fmt::Result {
    let (lf, s, u) = (&a.lf, &a.structure, &a.uniformity);
    let (m, f, fid) = (lf.module, lf.func, lf.fid);
    let ci = &s.cycles;
    let mut buf = String::new();
    w.begin_object()?;
    w.key("analysed")?;
    w.bool(u.analysed)?;
    w.key("arguments")?;
    w.begin_array()?;
    for k in 0..f.params.len() {
        w.item()?;
        w.begin_object()?;
        w.key("divergent")?;
        w.bool(u.divergent_args[k])?;
        w.key("index")?;
        w.uint(k as u64)?;
        w.key("name")?;
        w.str(&m.value_name(fid, Value::Arg(k as u32)))?;
        w.end_object()?;
    }
    w.end_array()?;
    w.key("blocks")?;
    w.begin_array()?;
    for b in 0..f.blocks.len() {
        let blk = Block(b as u32);
        w.item()?;
        w.begin_object()?;
        w.key("instructions")?;
        w.begin_array()?;
        for (k, i) in f.block_range(blk).range().enumerate() {
            let inst = &f.insts[i];
            let term = inst.op.is_terminator();
            w.item()?;
            w.begin_object()?;
            w.key("always_uniform")?;
            w.bool(u.always_uniform[i])?;
            w.key("divergent")?;
            w.bool(if term {
                u.divergent_terminators[b]
            } else {
                u.divergent_insts[i]
            })?;
            w.key("name")?;
            if inst.name() != LocalName::None {
                w.str(&m.value_name(fid, Value::Inst(InstId(i as u32))))?;
            } else {
                w.null()?;
            }
            w.key("position")?;
            w.uint(k as u64)?;
            w.key("terminator")?;
            w.bool(term)?;
            w.key("text")?;
            w.str(inst_text(&mut buf, a, i as u32).trim_start())?;
            w.end_object()?;
        }
        w.end_array()?;
        w.key("name")?;
        w.str_with(&mut buf, |t| m.write_block_name(f, blk, t))?;
        w.key("reachable")?;
        w.bool(s.is_reachable(blk))?;
        w.end_object()?;
    }
    w.end_array()?;
    for (key, cs) in [
        ("cycles_assumed_divergent", &u.assumed_divergent),
        ("cycles_with_divergent_exit", &u.divergent_exit_cycles),
    ] {
        w.key(key)?;
        w.begin_array()?;
        for &c in cs.iter() {
            w.item()?;
            CycleJson::write(w, m, f, ci, c, &mut buf)?;
        }
        w.end_array()?;
    }
    w.key("name")?;
    w.str(lf.name())?;
    w.key("temporal_divergence")?;
    w.begin_array()?;
    for t in &u.temporal_divergence {
        w.item()?;
        w.begin_object()?;
        w.key("cycle")?;
        CycleJson::write(w, m, f, ci, t.cycle, &mut buf)?;
        w.key("user")?;
        w.str(inst_text(&mut buf, a, t.user.0).trim_start())?;
        w.key("value")?;
        w.str(inst_text(&mut buf, a, t.value.0).trim_start())?;
        w.end_object()?;
    }
    w.end_array()?;
    w.end_object()
}

/// About how many bytes [`write_json`] prints for `a` (see [`llvm_size_hint`]): an
/// instruction's object, a block's, and a line per block of each cycle listed.
pub fn json_size_hint(a: &FunctionAnalysis<'_>) -> u64 {
    let (ci, u, f) = (&a.structure.cycles, &a.uniformity, a.lf.func);
    const INST: u64 = 320;
    const BLOCK: u64 = 120;
    // An indented, quoted name, its comma and line break.
    const NAME: u64 = 24;
    let listed = |c: Cycle| 96 + NAME * (ci.blocks(c).len() + ci.entries(c).len()) as u64;
    let mut n =
        256 + INST * f.insts.len() as u64 + BLOCK * (f.blocks.len() + f.params.len()) as u64;
    n += u.assumed_divergent.iter().map(|&c| listed(c)).sum::<u64>();
    n += u
        .divergent_exit_cycles
        .iter()
        .map(|&c| listed(c))
        .sum::<u64>();
    n += u
        .temporal_divergence
        .iter()
        .map(|t| 2 * INST + listed(t.cycle))
        .sum::<u64>();
    n
}

/// The readable default: the function with each divergent item flagged, then the cycle facts.
/// [`write_text`] into a `String`.
pub fn text(a: &FunctionAnalysis<'_>, p: Painter) -> String {
    let mut out = String::new();
    let _ = write_text(&mut out, a, p);
    out
}

/// [`text`] written to `out` a block at a time (see [`write_llvm`]). Stops at the first error of
/// `out`.
pub fn write_text(
    out: &mut impl std::fmt::Write,
    a: &FunctionAnalysis<'_>,
    p: Painter,
) -> std::fmt::Result {
    let (lf, s, u) = (&a.lf, &a.structure, &a.uniformity);
    let (mut buf, mut buf2) = (String::new(), String::new());
    let (m, f, fid) = (lf.module, lf.func, lf.fid);
    let nd = u.divergent_insts.iter().filter(|&&d| d).count()
        + u.divergent_args.iter().filter(|&&d| d).count();
    out.write_str(&p.paint(Style::Bold, &format!("function @{}", lf.name())))?;
    if !u.analysed {
        return out.write_str(": no branch divergence on this target; every value is uniform\n\n");
    }
    writeln!(
        out,
        ": {}, {}",
        count(nd, "divergent value", "divergent values"),
        count(
            u.divergent_terminators.iter().filter(|&&d| d).count(),
            "divergent terminator",
            "divergent terminators"
        )
    )?;
    for (k, prm) in f.params.iter().enumerate() {
        let ty = m.type_text(prm.ty);
        writeln!(
            out,
            "  {} arg {ty} {}",
            if u.divergent_args[k] {
                p.paint(Style::Error, "divergent")
            } else {
                "uniform  ".to_string()
            },
            m.value_name(fid, Value::Arg(k as u32))
        )?;
    }
    for &c in &u.assumed_divergent {
        writeln!(
            out,
            "  cycle assumed divergent (diverged entry): {}",
            brief(a, c)
        )?;
    }
    for &c in &u.divergent_exit_cycles {
        writeln!(out, "  cycle with divergent exit: {}", brief(a, c))?;
    }
    for t in &u.temporal_divergence {
        writeln!(
            out,
            "  temporal divergence: {} used by {} outside {}",
            inst_text(&mut buf, a, t.value.0).trim(),
            inst_text(&mut buf2, a, t.user.0).trim(),
            brief(a, t.cycle)
        )?;
    }
    // A block at a time into `line`, then to `out`.
    let mut line = String::new();
    for b in 0..f.blocks.len() {
        let blk = Block(b as u32);
        line.clear();
        m.write_block_name(f, blk, &mut line);
        line.push(':');
        if !s.is_reachable(blk) {
            line.push_str("  ; unreachable");
        } else if let Some(c) = s.cycle_of(blk) {
            let _ = write!(line, "  ; in cycle {}", brief(a, Cycle(c)));
        }
        line.push('\n');
        for i in f.block_range(blk).range() {
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
                line,
                "  {} {}",
                if div {
                    p.paint(Style::Error, &mark)
                } else {
                    mark
                },
                inst_text(&mut buf, a, i as u32).trim_start()
            );
        }
        out.write_str(&line)?;
    }
    out.write_char('\n')
}

/// About how many bytes [`text`] prints for `a` (see [`llvm_size_hint`]): linear, since big
/// cycles are named briefly.
pub fn text_size_hint(a: &FunctionAnalysis<'_>) -> u64 {
    let (u, f) = (&a.uniformity, a.lf.func);
    const INST: u64 = 80;
    const BLOCK: u64 = 160;
    let facts =
        u.assumed_divergent.len() + u.divergent_exit_cycles.len() + 3 * u.temporal_divergence.len();
    128 + INST * (f.insts.len() + f.params.len()) as u64 + BLOCK * (f.blocks.len() + facts) as u64
}
