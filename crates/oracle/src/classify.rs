//! Names the violations of llvm mode that reproduce a documented LLVM bug.
//!
//! llvm mode reproduces LLVM, bugs included (docs/llvm-differences.md), so the oracle finds those
//! bugs again. Each violation is matched against the pattern of each known bug, on LLVM's own
//! structure (the analysis' cycle hierarchy), and must itself be the root of the pattern or be
//! reached from such a root through operands or branch conditions (a value computed from a falsely
//! uniform value, or a phi joining paths split by a falsely uniform branch). Anything else is
//! unexplained: a bug of ours or of the simulator. Precise mode is never excused.

use crate::check::{Claims, Violation};
use converge_ir::{Module, Opcode, Value};
use converge_uniformity::llvm::LlvmFunction;
use converge_uniformity::{Inst, SsaFunction, Structure};

/// A documented LLVM bug (docs/llvm-differences.md, by entry number).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KnownBug {
    /// 1. LLVM 22 misses the join at a divergent branch block that is an entry of an irreducible
    ///    cycle.
    JoinAtIrreducibleEntry,
    /// 2 and 7. An exit phi whose incoming values (constants, or values from outside the cycle) differ
    ///    between threads that left in different iterations or through different exits.
    ExitPhiConstants,
    /// 3. An always-uniform value leaving a cycle that is assumed divergent.
    AlwaysUniformLeavesAssumedCycle,
    /// 8. `llvm.amdgcn.global.load.tr.<type>` (gfx12's transposing load) is no divergence source
    ///    in LLVM 19; newer LLVM's tests expect it divergent.
    GlobalLoadTrNotSource,
    /// 9. LLVM ignores convergence-control tokens: an always-uniform communicating operation
    ///    controlled by a token whose grouping may be finer than maximal convergence (an anchor,
    ///    "Convergent Operation Semantics") is uniform only within its group, and its value
    ///    leaves the token's region.
    TokensIgnored,
    /// 11. A loop whose header ends in a divergent branch: LLVM never passes the label coming
    ///     back to the branch block on to the loop's exits, and misses the divergent exit that
    ///     threads going round once more take an iteration later.
    HeaderBranchExit,
}

impl KnownBug {
    /// A short name that says which entry of `docs/llvm-differences.md` the bug is.
    pub fn name(self) -> &'static str {
        match self {
            KnownBug::JoinAtIrreducibleEntry => "llvm-differences 1: join at an irreducible entry",
            KnownBug::ExitPhiConstants => {
                "llvm-differences 2 and 7: exit phi with incomings from outside the cycle"
            }
            KnownBug::AlwaysUniformLeavesAssumedCycle => {
                "llvm-differences 3: always-uniform value leaving an assumed-divergent cycle"
            }
            KnownBug::GlobalLoadTrNotSource => {
                "llvm-differences 8: llvm.amdgcn.global.load.tr is no divergence source"
            }
            KnownBug::TokensIgnored => {
                "llvm-differences 9: tokens ignored (a controlled always-uniform value leaves its anchor's region)"
            }
            KnownBug::HeaderBranchExit => {
                "llvm-differences 11: divergent exit missed after a divergent branch in a loop header"
            }
        }
    }
}

/// Per violation (same order): the known LLVM bug it reproduces, or `None`.
pub fn classify(
    m: &Module,
    fi: converge_ir::FuncId,
    claims: &Claims,
    violations: &[Violation],
) -> Vec<Option<KnownBug>> {
    let Some(u) = &claims.llvm else {
        return vec![None; violations.len()];
    };
    let f = &m.functions[fi.0 as usize];
    let lf = LlvmFunction::new(m, fi);
    let s = Structure::new(lf.cfg());
    let n = f.insts.len();
    // Violations per hierarchy, by instruction.
    let hierarchies = violations
        .iter()
        .map(|v| v.hierarchy + 1)
        .max()
        .unwrap_or(0);
    let mut out = vec![None; violations.len()];
    for h in 0..hierarchies {
        let mut bad = vec![false; n];
        for v in violations.iter().filter(|v| v.hierarchy == h) {
            bad[v.inst.0 as usize] = true;
        }
        let mut why: Vec<Option<KnownBug>> = vec![None; n];
        for i in 0..n {
            if bad[i] {
                why[i] = root_pattern(&lf, &s, u, i as u32);
            }
        }
        // Closure: operands, and branch conditions for phis.
        loop {
            let mut changed = false;
            let cond_bug = (0..f.blocks.len()).find_map(|b| {
                let r = lf.block_insts(converge_graph::Block(b as u32));
                let t = r.terminator().0;
                lf.operands(t).iter().find_map(|&op| match op {
                    Value::Inst(d) => why[d.0 as usize],
                    _ => None,
                })
            });
            for i in 0..n {
                if !bad[i] || why[i].is_some() {
                    continue;
                }
                let mut w = lf.operands(i as u32).iter().find_map(|&op| match op {
                    Value::Inst(d) => why[d.0 as usize],
                    _ => None,
                });
                if w.is_none() && f.insts[i].op == Opcode::Phi {
                    w = cond_bug;
                }
                if w.is_some() {
                    why[i] = w;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for (k, v) in violations.iter().enumerate() {
            if v.hierarchy == h {
                out[k] = why[v.inst.0 as usize];
            }
        }
    }
    out
}

/// The known bug whose pattern has instruction `i` at its root, if any.
fn root_pattern(
    lf: &LlvmFunction<'_>,
    s: &Structure,
    u: &converge_uniformity::Uniformity,
    i: u32,
) -> Option<KnownBug> {
    let f = lf.func;
    let b = lf.inst_block(Inst(i));
    if lf
        .callee_name(i)
        .is_some_and(converge_ir::intrinsics::amdgpu::is_transposing_load)
    {
        return Some(KnownBug::GlobalLoadTrNotSource);
    }
    if f.insts[i as usize].op == Opcode::Phi {
        // 1: the phi's block ends in a divergent branch and is an entry of an irreducible cycle.
        if u.divergent_terminators[b.index()]
            && (0..s.num_cycles() as u32)
                .any(|c| !s.is_reducible(c) && s.contains(c, b) && s.entries(c).contains(&b))
        {
            return Some(KnownBug::JoinAtIrreducibleEntry);
        }
        // 2: in an exit block of a cycle, no incoming value defined in the cycle (constants,
        // arguments, values from before the cycle): LLVM's exit-phi rule skips such phis.
        let outside = |c: u32| {
            lf.operands(i).iter().all(|&v| match v {
                Value::Inst(d) => !s.contains(c, lf.inst_block(Inst(d.0))),
                _ => true,
            })
        };
        if (0..s.num_cycles() as u32).any(|c| s.exits(c).contains(&b) && outside(c)) {
            return Some(KnownBug::ExitPhiConstants);
        }
    }
    // 3: an operand is an always-uniform value defined in an assumed-divergent cycle that does
    // not contain this instruction.
    let leaves = lf.operands(i).iter().any(|&op| {
        let Value::Inst(d) = op else { return false };
        let db = lf.inst_block(Inst(d.0));
        u.always_uniform[d.0 as usize]
            && u.assumed_divergent
                .iter()
                .any(|&c| s.contains(c.0, db) && !s.contains(c.0, b))
    });
    if leaves {
        return Some(KnownBug::AlwaysUniformLeavesAssumedCycle);
    }
    // 11: an operand is defined in a reducible cycle that does not contain this instruction,
    // whose header ends in a divergent branch, and which LLVM does not list with a divergent
    // exit.
    let missed_exit = lf.operands(i).iter().any(|&op| {
        let Value::Inst(d) = op else { return false };
        let db = lf.inst_block(Inst(d.0));
        (0..s.num_cycles() as u32).any(|c| {
            s.is_reducible(c)
                && s.contains(c, db)
                && !s.contains(c, b)
                && u.divergent_terminators[s.header(c).index()]
                && !u.divergent_exit_cycles.contains(&converge_graph::Cycle(c))
        })
    });
    if missed_exit {
        return Some(KnownBug::HeaderBranchExit);
    }
    // 5: an operand is (or is computed from, e.g. `trunc` of a ballot) an always-uniform call
    // with a `convergencectrl` bundle: uniform within its token's groups, which LLVM ignores.
    let mut seen = std::collections::HashSet::new();
    let controlled = lf
        .operands(i)
        .iter()
        .any(|&op| from_controlled_always_uniform(lf, u, op, &mut seen));
    controlled.then_some(KnownBug::TokensIgnored)
}

/// Whether `v` is an always-uniform call with a token bundle, or computed from one through
/// instructions other than phis (bounded walk over operands).
fn from_controlled_always_uniform(
    lf: &LlvmFunction<'_>,
    u: &converge_uniformity::Uniformity,
    v: Value,
    seen: &mut std::collections::HashSet<u32>,
) -> bool {
    let Value::Inst(d) = v else { return false };
    if !seen.insert(d.0) || seen.len() > 64 {
        return false;
    }
    if u.always_uniform[d.0 as usize] && has_token_bundle(lf, d.0) {
        return true;
    }
    if lf.func.insts[d.0 as usize].op == Opcode::Phi {
        return false;
    }
    lf.operands(d.0)
        .iter()
        .any(|&op| from_controlled_always_uniform(lf, u, op, seen))
}

fn has_token_bundle(lf: &LlvmFunction<'_>, i: u32) -> bool {
    let f = lf.func;
    let inst = &f.insts[i as usize];
    if !inst.op.is_call_like() {
        return false;
    }
    let ci = &f.calls[inst.aux as usize];
    f.bundles[ci.bundles.range()]
        .iter()
        .any(|b| lf.module.strings.resolve(b.tag) == "convergencectrl")
}
