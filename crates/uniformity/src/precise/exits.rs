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
use super::uniform_exits::UniformExits;
use crate::ssa::{Inst, SsaFunction, Val};
use crate::structure::{NONE, Structure};
use crate::temporal::EscapeIndex;
use converge_graph::{Block, Graph};
use std::collections::BTreeSet;

/// Per-function memory of the sweeps, so that each block's users are scanned about once.
#[derive(Default)]
pub(crate) struct Sweep {
    /// Per block: the smallest cycle containing it that was swept (`NONE` if none). Its users
    /// outside that cycle are already marked.
    swept_by: Vec<u32>,
    /// Per block: whether the last sweep over it left a value invariant in its cycle (whose
    /// users outside were not marked, and may need it for an enclosing cycle).
    invariant: Vec<bool>,
    pub(crate) inv: Invariance,
    /// Per instruction: always uniform (the target's rule, as precise mode keeps it).
    pub(crate) always_uniform: Vec<bool>,
    /// Uses leaving cycles (`crate::temporal`), built on the first sweep of a large cycle.
    escape: EscapeIndex,
    escape_ready: bool,
    /// Layout positions of the blocks whose `invariant` is set.
    dirty: BTreeSet<u32>,
    /// Scratch: the positions one sweep visits.
    found: Vec<u32>,
    /// Rule P10: uses left unmarked because they are reached only through uniformly-taken exits.
    pub(crate) p10: UniformExits,
    /// `exit_phi_same`'s memo for exit blocks of many predecessors: per block, `NONE` or the
    /// index in `wide_phis` of its first phi's entry (sized on first use); per phi, its range in
    /// `wide_keys`: (innermost cycle of the incoming block, incoming position), sorted.
    wide_at: Vec<u32>,
    wide_phis: Vec<(u32, u32)>,
    wide_keys: Vec<(u32, u32)>,
    /// Scratch: the positions of the incomings one question reads.
    wide_pos: Vec<u32>,
}

/// Exit blocks with more predecessors than this have their phis' incomings sorted by cycle once
/// (`exit_phi_same`) instead of read in full per cycle asking.
const WIDE_EXIT_PREDS: usize = 16;

/// Whether the `k`-th phi `i` of exit block `x` (of many predecessors) has one value on the
/// edges from cycle `o`, as `phi_same_incoming_from(i, |p| s.contains(o, p))` says. Cycles are
/// numbered in preorder (those inside `o` are `o..subtree_end(o)`), so the incomings from `o`
/// are one run of the incomings sorted by their block's innermost cycle: a row of loops sharing
/// one returning block (`earlyret`) reads one incoming per loop instead of all of them.
fn exit_phi_same<F: SsaFunction>(
    f: &F,
    s: &Structure,
    w: &mut Sweep,
    x: Block,
    k: usize,
    i: Inst,
    o: u32,
) -> Option<bool> {
    #[cfg(test)]
    if crate::analysis::knobs::NO_WIDE_EXIT_PHIS.with(|c| c.get()) {
        return None;
    }
    if f.cfg().preds(x).len() <= WIDE_EXIT_PREDS {
        return None;
    }
    f.phi_incoming_blocks(i)?;
    if w.wide_at.is_empty() {
        w.wide_at.resize(f.cfg().num_blocks(), NONE);
    }
    if w.wide_at[x.index()] == NONE {
        let first = w.wide_phis.len() as u32;
        for p in f.block_insts(x) {
            if !f.is_phi(p) {
                break;
            }
            let blocks = f.phi_incoming_blocks(p).unwrap_or(&[]);
            let lo = w.wide_keys.len();
            w.wide_keys.extend(
                blocks
                    .iter()
                    .enumerate()
                    .map(|(at, &b)| (s.inner(b), at as u32)),
            );
            w.wide_keys[lo..].sort_unstable();
            w.wide_phis.push((lo as u32, w.wide_keys.len() as u32));
        }
        w.wide_at[x.index()] = first;
    }
    #[cfg(test)]
    crate::analysis::knobs::WIDE_EXIT_PHIS.with(|c| c.set(c.get() + 1));
    let (lo, hi) = w.wide_phis[w.wide_at[x.index()] as usize + k];
    let keys = &w.wide_keys[lo as usize..hi as usize];
    // `NONE` (no cycle) sorts last and is inside no cycle.
    let a = keys.partition_point(|&(c, _)| c < o);
    let b = a + keys[a..].partition_point(|&(c, _)| c != NONE && s.contains_cycle(o, c));
    w.wide_pos.clear();
    w.wide_pos.extend(keys[a..b].iter().map(|&(_, at)| at));
    Some(f.phi_same_incoming_at(i, &w.wide_pos))
}

/// Marks what a divergent exit of cycle `o` makes divergent. With `p10` (rule P10 may exempt
/// uses of `o`: [`UniformExits::prepare`]), the uses it exempts are kept unmarked.
pub(crate) fn sweep<F: SsaFunction>(
    f: &F,
    s: &Structure,
    o: u32,
    p10: bool,
    pm: &mut super::Scratch,
    mark: &mut dyn FnMut(Inst),
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
        for (k, i) in f.block_insts(x).enumerate() {
            if !f.is_phi(i) {
                break;
            }
            let same = exit_phi_same(f, s, w, x, k, i, o)
                .unwrap_or_else(|| f.phi_same_incoming_from(i, &|p| s.contains(o, p)));
            if !same {
                mark(i);
            }
        }
    }
    let heart = tokens::heart_of(f, s, &pm.outer_irr, o);
    let blocks = s.blocks(o);
    if blocks.len() <= crate::temporal::small_cycle() {
        for &b in blocks {
            visit(f, s, o, heart, p10, w, b, mark);
        }
        return;
    }
    // A large cycle: only the blocks with a use outside `o`, and those left invariant by an
    // earlier sweep, in the same (layout) order. Every other block has no user outside `o`, so
    // the loop above would mark nothing for it; it would only record `o` as its last sweep, and
    // that record matters only to later sweeps of cycles the block has a use outside of, which
    // lie inside `o`: for those the record was "not inside" before and stays so. Blocks left
    // invariant are visited by every sweep around them, so their records stay exact.
    if !std::mem::replace(&mut w.escape_ready, true) {
        w.escape.build(f, s);
    }
    let (lo, hi) = s.range(o);
    let mut found = std::mem::take(&mut w.found);
    found.clear();
    w.escape.escaping(lo, hi, s.depth(o), &mut found);
    found.extend(w.dirty.range(lo..hi));
    found.sort_unstable();
    found.dedup();
    for &p in &found {
        let b = w.escape.block(p);
        visit(f, s, o, heart, p10, w, b, mark);
    }
    w.found = found;
}

/// The sweep of cycle `o` at block `b`. With `p10` (rule P10 may apply to `o`), the users it
/// exempts are kept for [`UniformExits::recheck`] instead of being marked.
#[allow(clippy::too_many_arguments)]
fn visit<F: SsaFunction>(
    f: &F,
    s: &Structure,
    o: u32,
    heart: Option<Inst>,
    p10: bool,
    w: &mut Sweep,
    b: Block,
    mark: &mut dyn FnMut(Inst),
) {
    #[cfg(test)]
    crate::analysis::knobs::SWEPT.with(|c| c.set(c.get() + 1));
    // A swept cycle inside `o` around `b` already marked every user outside it, and so
    // every user outside `o`, unless it left a value invariant in it.
    let prev = w.swept_by[b.index()];
    let rescan = prev != NONE && s.contains_cycle(o, prev);
    if rescan && !w.invariant[b.index()] {
        return;
    }
    w.swept_by[b.index()] = o;
    let mut any_invariant = false;
    for v in f.block_insts(b) {
        // On a second look only the values invariant in the inner cycle are left (a value
        // with no level known had no user outside it).
        if rescan && !w.inv.known_invariant_in(s, prev, v) && !w.p10.is_candidate(v) {
            continue;
        }
        // Decided on the first user outside `o` (most values have none).
        let mut invariant = None;
        for &u in f.users(Val::Inst(v)) {
            if s.contains(o, f.inst_block(u)) {
                continue;
            }
            if *invariant.get_or_insert_with(|| w.inv.invariant_in(f, s, o, v)) {
                any_invariant = true;
                break;
            }
            if p10 && w.p10.exempt_now(f, s, o, v, u) {
                // Checked again when the propagation has drained; enclosing sweeps look again.
                w.p10.add(f, o, v, u);
                any_invariant = true;
                continue;
            }
            temporal_use(f, s, o, heart, v, u, mark);
        }
    }
    // A value invariant in `o` is invariant in the cycles inside it, so only blocks with
    // one need a second look from an enclosing cycle.
    set_invariant(s, w, b, any_invariant);
}

/// Marks what the use `u` outside cycle `o` of `v` (defined inside) makes divergent when threads
/// may leave `o` in different iterations: `u`, or with a loop heart `heart` of `o` whose region
/// keeps `u` converged per iteration (P7), the users of `u` outside that region.
pub(crate) fn temporal_use<F: SsaFunction>(
    f: &F,
    s: &Structure,
    o: u32,
    heart: Option<Inst>,
    v: Inst,
    u: Inst,
    mark: &mut dyn FnMut(Inst),
) {
    match heart {
        Some(t) if tokens::iteration_bound(f, s, o, t, v, u) => tokens::confine(f, t, u, s, mark),
        _ => mark(u),
    }
}

fn set_invariant(s: &Structure, w: &mut Sweep, b: Block, invariant: bool) {
    if std::mem::replace(&mut w.invariant[b.index()], invariant) != invariant {
        if invariant {
            w.dirty.insert(s.pos(b));
        } else {
            w.dirty.remove(&s.pos(b));
        }
    }
}

/// Cycle invariance ("Convergence And Uniformity", *Temporal Divergence*, is about values that
/// differ between iterations): a value computed from values defined outside a cycle alone
/// (directly, or through such computations earlier in its block) is the same in every iteration
/// of that cycle for a thread, so threads that leave the cycle in different iterations read the
/// same value at a use outside it. Whether that value is the same for the threads converged at
/// the use is data dependence on the operands, judged as for any other use.
///
/// Per instruction, computed once per block: the depth of the deepest cycle around it that also
/// contains the definition of one of its operands. The instruction is invariant in exactly the
/// cycles around it deeper than that (so invariance in a cycle implies it in the cycles inside).
#[derive(Default)]
pub(crate) struct Invariance {
    level: Vec<u32>,
}

const UNKNOWN: u32 = u32::MAX;
const NEVER: u32 = u32::MAX - 1;

impl Invariance {
    /// Is `v` (defined inside cycle `c`) invariant in `c`?
    pub(crate) fn invariant_in<F: SsaFunction>(
        &mut self,
        f: &F,
        s: &Structure,
        c: u32,
        v: Inst,
    ) -> bool {
        if !f.is_operand_function(v) {
            return false;
        }
        if self.level.len() != f.num_insts() as usize {
            self.level.clear();
            self.level.resize(f.num_insts() as usize, UNKNOWN);
        }
        let l = self.level_of(f, s, v, 0);
        l != NEVER && s.depth(c) > l
    }

    /// Was `v` found invariant in cycle `c` (its level computed, and below `c`'s depth)?
    pub(crate) fn known_invariant_in(&self, s: &Structure, c: u32, v: Inst) -> bool {
        self.level
            .get(v.index())
            .is_some_and(|&l| l != UNKNOWN && l != NEVER && s.depth(c) > l)
    }

    /// The depth at and above which `v` is not invariant: `v` is invariant exactly in the
    /// cycles around it deeper than this (`u32::MAX - 1`: in none).
    pub(crate) fn level<F: SsaFunction>(&mut self, f: &F, s: &Structure, v: Inst) -> u32 {
        if !f.is_operand_function(v) {
            return NEVER;
        }
        if self.level.len() != f.num_insts() as usize {
            self.level.clear();
            self.level.resize(f.num_insts() as usize, UNKNOWN);
        }
        self.level_of(f, s, v, 0)
    }

    /// The level of `v` (an operand function); chains through earlier instructions of its
    /// block are followed to a bounded depth (beyond it: never invariant, which is safe).
    fn level_of<F: SsaFunction>(&mut self, f: &F, s: &Structure, v: Inst, depth: u32) -> u32 {
        let known = self.level[v.index()];
        if known != UNKNOWN {
            return known;
        }
        let b = f.inst_block(v);
        let cb = s.inner(b);
        // The most an operand can give: invariant in no cycle around `v`.
        let top = if cb == NONE { 0 } else { s.depth(cb) };
        let mut l = 0;
        let mut chain = [Inst(0); 4];
        let mut n = 0;
        f.for_each_inst_operand(v, &mut |d| {
            if l >= top {
                return;
            }
            let db = f.inst_block(d);
            if db == b && d < v && f.is_operand_function(d) && n < chain.len() {
                chain[n] = d;
                n += 1;
            } else if db == b || s.inner(db) == cb {
                l = top;
            } else {
                let cc = s.common_cycle(cb, s.inner(db));
                l = l.max(if cc == NONE { 0 } else { s.depth(cc) });
            }
        });
        if l >= top {
            // Not invariant in any cycle around it (`top` is not below any cycle's depth).
            self.level[v.index()] = NEVER;
            return NEVER;
        }
        for &d in &chain[..n] {
            if l >= top {
                break;
            }
            let k = if depth >= 16 {
                NEVER
            } else {
                self.level_of(f, s, d, depth + 1)
            };
            l = l.max(k);
        }
        self.level[v.index()] = l;
        l
    }
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
    mark: &mut dyn FnMut(Inst),
) {
    for &b in s.blocks(c) {
        let t = f.block_insts(b).terminator();
        if f.cfg().succs(b).len() < 2 {
            continue;
        }
        let mut inside = false;
        f.for_each_inst_operand(t, &mut |d| inside |= s.contains(c, f.inst_block(d)));
        if inside {
            mark(t);
        }
    }
    // Every other value defined in `c` is divergent already (the caller marks them), and so
    // are its users outside by data dependence: only the exit phis and the users of
    // always-uniform values remain. The blocks count as swept for the cycles around `c`.
    let w = &mut pm.sweep;
    let n = f.cfg().num_blocks();
    if w.swept_by.len() != n {
        w.swept_by.clear();
        w.swept_by.resize(n, NONE);
        w.invariant.clear();
        w.invariant.resize(n, false);
    }
    for &x in s.exits(c) {
        for i in f.block_insts(x) {
            if !f.is_phi(i) {
                break;
            }
            if !f.phi_same_incoming_from(i, &|p| s.contains(c, p)) {
                mark(i);
            }
        }
    }
    let heart = tokens::heart_of(f, s, &pm.outer_irr, c);
    for &b in s.blocks(c) {
        let prev = w.swept_by[b.index()];
        if prev != NONE && s.contains_cycle(c, prev) && !w.invariant[b.index()] {
            continue;
        }
        w.swept_by[b.index()] = c;
        set_invariant(s, w, b, false);
        for v in f.block_insts(b) {
            if !w.always_uniform.get(v.index()).copied().unwrap_or(false) {
                continue;
            }
            for &u in f.users(Val::Inst(v)) {
                if s.contains(c, f.inst_block(u)) {
                    continue;
                }
                match heart {
                    Some(t) if tokens::iteration_bound(f, s, c, t, v, u) => {
                        tokens::confine(f, t, u, s, mark)
                    }
                    _ => mark(u),
                }
            }
        }
    }
}
