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
pub fn llvm(a: &FunctionAnalysis<'_>, llvm19: bool, main: bool) -> String {
    let sorted = |cs: &[Cycle]| -> Vec<Cycle> {
        let mut cs = cs.to_vec();
        if main {
            cs.sort_unstable();
        }
        cs
    };
    let (lf, u) = (&a.lf, &a.uniformity);
    let (m, f, fid) = (lf.module, lf.func, lf.fid);
    let mut out = format!("UniformityInfo for function '{}':\n", lf.name());
    if !u.has_divergence() {
        out.push_str("ALL VALUES UNIFORM\n");
        return out;
    }
    if u.divergent_args.iter().any(|&d| d) {
        out.push_str("DIVERGENT ARGUMENTS:\n");
        for (k, p) in f.params.iter().enumerate() {
            if u.divergent_args[k] {
                out.push_str("  DIVERGENT: ");
                out.push_str(&m.type_text(p.ty));
                out.push(' ');
                out.push_str(&m.value_name(fid, Value::Arg(k as u32)));
                out.push('\n');
            }
        }
    }
    if !u.assumed_divergent.is_empty() {
        // LLVM 19 spells it with three S.
        out.push_str(if llvm19 {
            "CYCLES ASSSUMED DIVERGENT:\n"
        } else {
            "CYCLES ASSUMED DIVERGENT:\n"
        });
        for c in sorted(&u.assumed_divergent) {
            let _ = writeln!(out, "  {}", cyc(a, c, main));
        }
    }
    if !u.divergent_exit_cycles.is_empty() {
        out.push_str("CYCLES WITH DIVERGENT EXIT:\n");
        for c in sorted(&u.divergent_exit_cycles) {
            let _ = writeln!(out, "  {}", cyc(a, c, main));
        }
    }
    if !llvm19 && !u.temporal_divergence.is_empty() {
        out.push_str("\nTEMPORAL DIVERGENCE LIST:\n");
        for t in &u.temporal_divergence {
            out.push_str("Value         :");
            m.inst_text_into(&mut out, fid, InstId(t.value.0));
            out.push_str("\nUsed by       :");
            m.inst_text_into(&mut out, fid, InstId(t.user.0));
            let _ = write!(out, "\nOutside cycle :{}\n\n", cyc(a, t.cycle, main));
        }
    }
    for b in 0..f.blocks.len() {
        let _ = write!(
            out,
            "\nBLOCK {}\nDEFINITIONS\n",
            m.block_name_in(f, Block(b as u32))
        );
        // LLVM prints the non-terminators, then the terminators, each flagged when divergent.
        for terminators in [false, true] {
            if terminators {
                out.push_str("TERMINATORS\n");
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
                out.push_str(if div {
                    "  DIVERGENT: "
                } else {
                    "             "
                });
                m.inst_text_into(&mut out, fid, InstId(i as u32));
                out.push('\n');
            }
        }
        out.push_str("END BLOCK\n");
    }
    out
}

/// One function as JSON.
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

/// The readable default: the function with each divergent item flagged, then the cycle facts.
pub fn text(a: &FunctionAnalysis<'_>, p: Painter) -> String {
    let (lf, s, u) = (&a.lf, &a.structure, &a.uniformity);
    let (mut buf, mut buf2) = (String::new(), String::new());
    let (m, f, fid) = (lf.module, lf.func, lf.fid);
    let nd = u.divergent_insts.iter().filter(|&&d| d).count()
        + u.divergent_args.iter().filter(|&&d| d).count();
    let mut out = p.paint(Style::Bold, &format!("function @{}", lf.name()));
    if !u.analysed {
        out.push_str(": no branch divergence on this target; every value is uniform\n\n");
        return out;
    }
    let _ = writeln!(
        out,
        ": {}, {}",
        count(nd, "divergent value", "divergent values"),
        count(
            u.divergent_terminators.iter().filter(|&&d| d).count(),
            "divergent terminator",
            "divergent terminators"
        )
    );
    for (k, prm) in f.params.iter().enumerate() {
        let ty = m.type_text(prm.ty);
        let _ = writeln!(
            out,
            "  {} arg {ty} {}",
            if u.divergent_args[k] {
                p.paint(Style::Error, "divergent")
            } else {
                "uniform  ".to_string()
            },
            m.value_name(fid, Value::Arg(k as u32))
        );
    }
    for &c in &u.assumed_divergent {
        let _ = writeln!(
            out,
            "  cycle assumed divergent (diverged entry): {}",
            brief(a, c)
        );
    }
    for &c in &u.divergent_exit_cycles {
        let _ = writeln!(out, "  cycle with divergent exit: {}", brief(a, c));
    }
    for t in &u.temporal_divergence {
        let _ = writeln!(
            out,
            "  temporal divergence: {} used by {} outside {}",
            inst_text(&mut buf, a, t.value.0).trim(),
            inst_text(&mut buf2, a, t.user.0).trim(),
            brief(a, t.cycle)
        );
    }
    for b in 0..f.blocks.len() {
        let blk = Block(b as u32);
        let _ = write!(out, "{}:", m.block_name_in(f, blk));
        if !s.is_reachable(blk) {
            out.push_str("  ; unreachable");
        } else if let Some(c) = s.cycle_of(blk) {
            let _ = write!(out, "  ; in cycle {}", brief(a, Cycle(c)));
        }
        out.push('\n');
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
                out,
                "  {} {}",
                if div {
                    p.paint(Style::Error, &mark)
                } else {
                    mark
                },
                inst_text(&mut buf, a, i as u32).trim_start()
            );
        }
    }
    out.push('\n');
    out
}
