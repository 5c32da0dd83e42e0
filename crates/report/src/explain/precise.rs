//! Reasons for precise mode's own rules (docs/precise-mode.md) where LLVM's reasons do not apply:
//! P2, a value used after leaving a cycle assumed divergent (no divergent branch inside the cycle
//! need exist: its dynamic instances are not converged, so threads leave at different times), and
//! P7, a value computed from a loop value that is uniform only inside a loop heart's convergence
//! region, used past that region. Each reason is emitted only after its facts are checked here
//! against the IR and the analysis result (the cycle has a divergent exit and is assumed
//! divergent; the heart is a `convergence.loop` in the cycle's header, the use inside the region
//! is one the analysis left out of its temporal-divergence list, and the value lies outside the
//! token's convergence region), so an explanation never states a reason that does not hold.

use super::analysed::Analysed;
use super::candidates::{EntryWitness, ExitWitness};
use super::reasons::{Node, Reason};
use converge_graph::{Block, Cycle};
use converge_ir::Value;
use converge_uniformity::precise::shares_instance;
use converge_uniformity::{Inst, SsaFunction, TokenKind};
use std::collections::HashMap;

/// Values followed back from an operand when looking for the loop value it is computed from.
const MAX_BACKWARD: usize = 256;

/// The precise-mode reasons of instruction `i` (divergent in precise mode).
pub(super) fn candidates(
    a: &Analysed<'_>,
    i: u32,
    exit_w: &HashMap<u32, Vec<ExitWitness>>,
    assumed_w: &HashMap<u32, Vec<EntryWitness>>,
    diverged_w: &HashMap<u32, Vec<DivergedWitness>>,
) -> Vec<Reason> {
    let (f, s, u) = (a.lf.func, &a.s, &a.u);
    let ub = f.insts[i as usize].block;
    let mut out = Vec::new();
    let terminator = f.insts[i as usize].op.is_terminator();
    // P1: divergent under another cycle hierarchy (and uniform under LLVM's).
    if let Some(h) = u.other_hierarchies.iter().find(|h| {
        h.values
            .binary_search(&converge_uniformity::Inst(i))
            .is_ok()
    }) {
        out.push(Reason::OtherHierarchy {
            headers: h.cycles.iter().map(|c| c.0).collect(),
            blocks: h.cycles.iter().map(|c| c.1.clone()).collect(),
        });
    }
    // P4: an exit phi whose incoming values from a cycle with a divergent exit differ.
    if f.insts[i as usize].op == converge_ir::Opcode::Phi {
        let inc: Vec<(Value, Block)> = f.phi_incoming(converge_ir::InstId(i)).collect();
        let mut c = inc.first().and_then(|&(_, p)| s.cycle_of(p));
        while let Some(x) = c {
            // Compared as printed: equal constants are one value.
            let mut vals: Vec<String> = inc
                .iter()
                .filter(|&&(_, p)| s.contains(x, p))
                .map(|&(v, _)| a.module().value_name(a.fid(), v))
                .collect();
            vals.sort();
            vals.dedup();
            if !s.contains(x, ub) && u.divergent_exit_cycles.contains(&Cycle(x)) && vals.len() >= 2
            {
                for w in exit_w.get(&x).into_iter().flatten() {
                    out.push(Reason::ExitPhi {
                        cycle: x,
                        exit: ub,
                        branch: w.branch,
                        path: w.path.clone(),
                    });
                }
            }
            c = s.parent(x);
        }
    }
    for v in a.uses(i) {
        let Value::Inst(d) = v else { continue };
        let d = d.0;
        // P2: a branch in an assumed-divergent cycle on a value computed inside it.
        if terminator {
            for c in u.assumed_divergent.iter().map(|c| c.0) {
                if s.contains(c, ub) && s.contains(c, f.insts[d as usize].block) {
                    for w in assumed_w.get(&c).into_iter().flatten() {
                        out.push(Reason::BranchInAssumedCycle {
                            operand: d,
                            cycle: c,
                            branch: w.branch,
                        });
                    }
                }
            }
        }
        // P2: the operand's cycles that do not contain the user, assumed divergent and with a
        // divergent exit.
        let mut c = s.cycle_of(f.insts[d as usize].block);
        while let Some(x) = c {
            if s.contains(x, ub) {
                break;
            }
            if u.divergent_exit_cycles.contains(&Cycle(x))
                && u.assumed_divergent.contains(&Cycle(x))
            {
                for w in assumed_w.get(&x).into_iter().flatten() {
                    out.push(Reason::LeavesAssumedCycle {
                        operand: d,
                        cycle: x,
                        branch: w.branch,
                    });
                }
            }
            c = s.parent(x);
        }
        // P1, one hierarchy's joins: the operand's cycles that do not contain the user, entered
        // on diverged paths (a join of a divergent branch inside an irreducible cycle).
        let mut c = s.cycle_of(f.insts[d as usize].block);
        while let Some(x) = c {
            if s.contains(x, ub) {
                break;
            }
            if u.divergent_exit_cycles.contains(&Cycle(x)) {
                for w in diverged_w.get(&x).into_iter().flatten() {
                    out.push(Reason::DivergedEntry {
                        operand: d,
                        cycle: x,
                        region: w.region,
                        branch: w.branch,
                        join: w.join,
                        paths: w.paths.clone(),
                    });
                }
            }
            c = s.parent(x);
        }
        // P7: a uniform operand computed from a loop value bound to a heart's region.
        if !a.u.divergent_insts[d as usize]
            && let Some((value, heart, cycle)) = region_bound(a, d)
            && !shares_instance(&a.lf, &a.s, Inst(heart), Inst(i))
        {
            for w in exit_w.get(&cycle).into_iter().flatten() {
                out.push(Reason::PastHeartRegion {
                    operand: d,
                    value,
                    heart,
                    cycle,
                    branch: w.branch,
                    exit: w.exit,
                    path: w.path.clone(),
                });
            }
        }
        // P6: a uniform operand computed from an always-uniform operation grouped by a token
        // whose convergence region this value has left.
        if !a.u.divergent_insts[d as usize]
            && let Some((value, token)) = token_bound(a, d)
            && !shares_instance(&a.lf, &a.s, Inst(token), Inst(i))
        {
            out.push(Reason::PastTokenRegion {
                operand: d,
                value,
                token,
            });
        }
    }
    out
}

/// Whether token `t` groups the threads at operation `o` by something other than maximal
/// convergence (rule P6): its chain of loop hearts leads up to an `anchor` (or to a token we
/// cannot see through) rather than to an `entry`, since a heart inherits the grouping of its
/// parent token ("Convergent Operation Semantics", *Controlled Maximal Convergence*), or it is
/// defined in a cycle that does not contain `o`. The same test as the analysis's (precise mode,
/// docs/precise-mode.md, rule P6).
fn implementation_grouped(a: &Analysed<'_>, t: u32, o: u32) -> bool {
    let (f, s) = (a.lf.func, &a.s);
    let mut k = Inst(t);
    // Valid token chains are short and acyclic; anything else counts as implementation-defined.
    let mut from_entry = false;
    for _ in 0..256 {
        match a.lf.token_kind(k) {
            Some(TokenKind::Entry) => {
                from_entry = true;
                break;
            }
            Some(TokenKind::Loop) => match a.lf.control_token(k) {
                Some(p) => k = p,
                None => break,
            },
            _ => break,
        }
    }
    if !from_entry {
        return true;
    }
    let ob = f.insts[o as usize].block;
    let mut c = s.cycle_of(f.insts[t as usize].block);
    while let Some(x) = c {
        if !s.contains(x, ob) {
            return true;
        }
        c = s.parent(x);
    }
    false
}

/// For a uniform instruction `o`: an always-uniform operation `v` it is computed from (through
/// uniform values, `o` itself included) whose control token `t` groups threads by rule P6.
/// Returns `(v, t)`.
pub(super) fn token_bound(a: &Analysed<'_>, o: u32) -> Option<(u32, u32)> {
    let u = &a.u;
    let mut seen = vec![o];
    let mut k = 0;
    while k < seen.len() && k < MAX_BACKWARD {
        let x = seen[k];
        k += 1;
        if let Some(Inst(t)) = a.lf.control_token(Inst(x))
            && a.is_always_uniform(x)
            && implementation_grouped(a, t, x)
        {
            return Some((x, t));
        }
        for v in a.uses(x) {
            let Value::Inst(d) = v else { continue };
            let d = d.0;
            let token =
                a.lf.callee_name(d)
                    .is_some_and(converge_ir::intrinsics::is_convergence_family);
            if u.divergent_insts[d as usize] || token {
                continue;
            }
            if !seen.contains(&d) {
                seen.push(d);
            }
        }
    }
    None
}

/// The loop heart of cycle `c`: a `llvm.experimental.convergence.loop` call in its header.
fn heart(a: &Analysed<'_>, c: u32) -> Option<u32> {
    let f = a.lf.func;
    let h = a.s.header(c);
    let r = f.block_range(h);
    (r.start..r.end).find(|&k| {
        a.lf.callee_name(k).is_some_and(|n| {
            converge_ir::intrinsics::ConvergenceControl::of(n)
                == Some(converge_ir::intrinsics::ConvergenceControl::Loop)
        })
    })
}

/// For a uniform instruction `o`: a value `v` it is computed from (through uniform values), defined
/// in a cycle `c` with a divergent exit whose header holds a heart `t`, at a use outside `c` that
/// the analysis does not list as temporally divergent (rule P7 kept it uniform). Returns
/// `(v, t, c)`.
fn region_bound(a: &Analysed<'_>, o: u32) -> Option<(u32, u32, u32)> {
    let (f, s, u) = (a.lf.func, &a.s, &a.u);
    let mut seen = vec![o];
    let mut k = 0;
    while k < seen.len() && k < MAX_BACKWARD {
        let x = seen[k];
        k += 1;
        let xb = f.insts[x as usize].block;
        for v in a.uses(x) {
            let Value::Inst(d) = v else { continue };
            let d = d.0;
            // Tokens decide which threads are converged; the values are what is computed.
            let token =
                a.lf.callee_name(d)
                    .is_some_and(converge_ir::intrinsics::is_convergence_family);
            if u.divergent_insts[d as usize] || token {
                continue;
            }
            let mut c = s.cycle_of(f.insts[d as usize].block);
            while let Some(cy) = c {
                if s.contains(cy, xb) {
                    break;
                }
                if u.divergent_exit_cycles.contains(&Cycle(cy))
                    && !u.is_temporally_divergent(Inst(d), Inst(x))
                    && let Some(t) = heart(a, cy)
                {
                    return Some((d, t, cy));
                }
                c = s.parent(cy);
            }
            if !seen.contains(&d) {
                seen.push(d);
            }
        }
    }
    None
}

/// P6: instruction `i`, which the target calls always uniform, controlled by an `anchor` or by a
/// token defined in a cycle that does not contain `i`; one reason per divergent operand.
pub(super) fn token_group(a: &Analysed<'_>, i: u32) -> Vec<Reason> {
    let Some(Inst(t)) = a.lf.control_token(Inst(i)) else {
        return Vec::new();
    };
    if !a.is_always_uniform(i) {
        return Vec::new();
    }
    if !implementation_grouped(a, t, i) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for v in a.uses(i) {
        let op = match v {
            Value::Arg(x) => Node::Arg(x),
            Value::Inst(d) if d.0 != t => Node::Inst(d.0),
            _ => continue,
        };
        if a.is_divergent(op)
            && !out.contains(&Reason::GroupedByToken {
                operand: op,
                token: t,
            })
        {
            out.push(Reason::GroupedByToken {
                operand: op,
                token: t,
            });
        }
    }
    out
}

/// A divergent branch whose diverged paths meet at a join inside a cycle, within an irreducible
/// cycle `region` entered on diverged paths: the premise of [`Reason::DivergedEntry`].
#[derive(Clone)]
pub(super) struct DivergedWitness {
    branch: Block,
    join: Block,
    region: u32,
    paths: [Vec<Block>; 2],
}

/// Joins looked at per cycle when looking for diverged-entry witnesses.
const MAX_JOINS: usize = 256;
/// Witnesses kept per cycle.
const MAX_DIVERGED: usize = 8;

/// The irreducible cycle around join `j` (`c` being a cycle that contains `j`, or one of its
/// ancestors) that diverged paths from the branch in `b` enter: one that does not contain `b`, or
/// one that contains it where neither `b` nor the cycle's header dominates `j`, the two ways
/// rule P1 (docs/precise-mode.md) names a diverged entry of an irreducible cycle.
pub(super) fn entered_region(a: &Analysed<'_>, c: u32, b: Block, j: Block) -> Option<u32> {
    let s = &a.s;
    let mut x = Some(c);
    while let Some(r) = x {
        if !s.is_reducible(r)
            && s.contains(r, j)
            && (!s.contains(r, b)
                || (!s.properly_dominates(b, j) && !s.properly_dominates(s.header(r), j)))
        {
            return Some(r);
        }
        x = s.parent(r);
    }
    None
}

/// Precise mode: the divergent branches (of `branches`) with a join inside cycle `c` that lies
/// in an irreducible cycle entered on diverged paths ([`entered_region`]), with two disjoint
/// paths to it. Bounded: [`MAX_JOINS`] blocks of `c`, [`MAX_DIVERGED`] witnesses.
pub(super) fn diverged_witnesses(
    a: &Analysed<'_>,
    branches: &[Block],
    c: u32,
) -> Vec<DivergedWitness> {
    let mut out = Vec::new();
    for &b in branches {
        for &j in a.s.blocks(c).iter().take(MAX_JOINS) {
            if out.len() >= MAX_DIVERGED {
                return out;
            }
            let Some(region) = entered_region(a, c, b, j) else {
                continue;
            };
            if !a.is_join(b, j) {
                continue;
            }
            if let Some(paths) = a.join_paths(b, j) {
                out.push(DivergedWitness {
                    branch: b,
                    join: j,
                    region,
                    paths,
                });
                break;
            }
        }
    }
    out
}
