//! Divergent cycle exits in precise mode ("Convergence And Uniformity", *Temporal Divergence*).
//!
//! When a cycle has a divergent exit, threads leave it in different iterations; outside the cycle
//! they are converged again, so a value defined inside the cycle may differ between them at any
//! use outside it, whatever block of the cycle defines it and even when it is uniform inside
//! (an always-uniform value included: its instances in different iterations are not converged).
//! LLVM sweeps only the blocks that dominate an exit and skips the sweep for a cycle already
//! inside an assumed-divergent one (docs/llvm-differences.md entry 3); precise mode sweeps every
//! block, always. An exit phi selects by the block the thread left from: it is divergent unless
//! all its incoming values from inside the cycle are the same value (LLVM only asks whether an
//! incoming value is defined inside the cycle: entry 2, incomings 1 and 2).

use super::tokens;
use crate::ssa::{SsaFunction, Val};
use crate::structure::{NONE, Structure};
use converge_graph::Graph;

/// Per-function memory of the sweeps, so that each block's users are scanned about once.
#[derive(Default)]
pub(crate) struct Sweep {
    /// Per block: the smallest cycle containing it that was swept (`NONE` if none). Its users
    /// outside that cycle are already marked.
    swept_by: Vec<u32>,
    /// Per block: whether the last sweep over it left a value invariant in its cycle (whose
    /// users outside were not marked, and may need it for an enclosing cycle).
    invariant: Vec<bool>,
}

/// Marks what a divergent exit of cycle `o` makes divergent.
pub(crate) fn sweep<F: SsaFunction>(
    f: &F,
    s: &Structure,
    o: u32,
    pm: &mut super::Scratch,
    mark: &mut dyn FnMut(u32),
) {
    let w = &mut pm.sweep;
    let g = f.cfg();
    let n = g.num_blocks();
    if w.swept_by.len() != n {
        w.swept_by.clear();
        w.swept_by.resize(n, NONE);
        w.invariant.clear();
        w.invariant.resize(n, false);
    }
    // Exit phis: judged by their incoming values from inside the cycle.
    for &x in s.exits(o) {
        for i in f.block_insts(x) {
            if !f.is_phi(i) {
                break;
            }
            if !f.phi_same_incoming_from(i, &|p| s.contains(o, p)) {
                mark(i);
            }
        }
    }
    let heart = tokens::heart_of(f, s, &pm.outer_irr, o);
    for &b in s.blocks(o) {
        // A swept cycle inside `o` around `b` already marked every user outside it, and so
        // every user outside `o`, unless it left a value invariant in it.
        let prev = w.swept_by[b.index()];
        if prev != NONE && s.contains_cycle(o, prev) && !w.invariant[b.index()] {
            continue;
        }
        w.swept_by[b.index()] = o;
        let mut any_invariant = false;
        for v in f.block_insts(b) {
            // Decided on the first user outside `o` (most values have none).
            let mut invariant = None;
            for &u in f.users(Val::Inst(v)) {
                if s.contains(o, f.inst_block(u)) {
                    continue;
                }
                if *invariant.get_or_insert_with(|| invariant_in(f, s, o, v, 0)) {
                    any_invariant = true;
                    break;
                }
                match heart {
                    Some(t) if tokens::iteration_bound(f, s, o, t, v, u) => {
                        tokens::confine(f, t, u, s, mark)
                    }
                    _ => mark(u),
                }
            }
        }
        // A value invariant in `o` is invariant in the cycles inside it, so only blocks with
        // one need a second look from an enclosing cycle.
        w.invariant[b.index()] = any_invariant;
    }
}

/// Is `v` (defined in cycle `c`) computed from values defined outside `c` alone (directly, or
/// through such computations earlier in its block), so that every iteration of `c` computes
/// the same value for a thread? Then threads that leave `c` in different iterations read the
/// same value at a use outside it: no temporal divergence (seed 000, *Temporal Divergence*, is
/// about values that differ between iterations). Whether the value is the same for the threads
/// converged at the use is data dependence on the operands, judged as for any other use.
pub(crate) fn invariant_in<F: SsaFunction>(
    f: &F,
    s: &Structure,
    c: u32,
    v: u32,
    depth: u32,
) -> bool {
    if depth > 8 || !f.is_operand_function(v) {
        return false;
    }
    let vb = f.inst_block(v);
    let mut ok = true;
    f.for_each_inst_operand(v, &mut |d| {
        if ok && s.contains(c, f.inst_block(d)) {
            ok = f.inst_block(d) == vb && d < v && invariant_in(f, s, c, d, depth + 1);
        }
    });
    ok
}

/// What a cycle assumed divergent (diverged entry) adds in precise mode: its instances are not
/// converged, so a branch on a value computed inside it (an always-uniform one too: uniform only
/// within each group) may go different ways for threads that meet again later, and threads
/// leave it at different times, as through a divergent exit.
pub(crate) fn assumed<F: SsaFunction>(
    f: &F,
    s: &Structure,
    c: u32,
    pm: &mut super::Scratch,
    mark: &mut dyn FnMut(u32),
) {
    for &b in s.blocks(c) {
        let t = f.block_insts(b).end - 1;
        if f.cfg().succs(b).len() < 2 {
            continue;
        }
        let mut inside = false;
        f.for_each_inst_operand(t, &mut |d| inside |= s.contains(c, f.inst_block(d)));
        if inside {
            mark(t);
        }
    }
    sweep(f, s, c, pm, mark);
}
