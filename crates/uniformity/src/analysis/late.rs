//! Precise mode's late branches. Precise mode's answer does not depend on the order in which
//! divergent branches are analysed (docs/precise-mode.md, "How it is computed": the cycle lists
//! are sorted and the temporal-divergence list rebuilt after the fixpoint), but its work does:
//! a branch whose join propagation would cross a large assumed-divergent top-level cycle walks
//! all of it, only to learn which blocks after it become joins, and blocks there that local
//! branches make divergent later stop no walk before. On the `irreducible` family (issue 13,
//! seed 8 at 64,000 blocks) about 40 branches before the big cycle each walked its 64,000
//! blocks, every one stopped short of the settled end of the order by a block whose phis a
//! branch next to it made divergent soon after. Such a branch is postponed once, until the
//! worklist is empty; late branches are then analysed one at a time, first postponed first
//! (LIFO order regressed seed 1: 189.3 -> 223.2 M at 8,000 blocks), the worklist drained after
//! each, so each walks only up to what the branches before it left unsettled.
//!
//! For the same reason precise mode records the immediate divergent exits of the branches
//! postponed inside assumed-divergent cycles (`analyze_as`) before analysing any of them, not
//! only past a budget of work: each is recorded by its branch's own analysis anyway, and with
//! them known most of those branches find every cycle around them with a divergent exit and
//! skip their walk (seed 3 at 8,000 blocks: 7 of those branches walked the big cycle, 3 do).

use super::*;

/// Assumed-divergent top-level cycles of at least this many blocks make a branch late (smaller
/// ones cost less to walk than the postponing saves).
const LATE_MIN_BLOCKS: usize = NESTED_MIN_BLOCKS;

impl<F: SsaFunction> State<'_, F> {
    /// Precise mode: postpones the divergent branch in `b` (true) when its join propagation,
    /// which stops below `settled_below`, may cross a large assumed-divergent top-level cycle,
    /// and it was never postponed before.
    pub(super) fn postpone_late(&mut self, b: Block, settled_below: u32) -> bool {
        if !self.precise || self.w.late_closed || !shortcut_on!(NO_LATE) {
            return false;
        }
        let (f, s) = (self.f, self.s);
        let n = f.cfg().num_blocks();
        if n < LATE_MIN_BLOCKS {
            return false;
        }
        // The large top-level cycles assumed since the last call (the list only grows).
        while let Some(&c) = self.out.assumed_divergent.get(self.w.late_read) {
            self.w.late_read += 1;
            if s.parent_raw(c.0) == NONE && s.blocks(c.0).len() >= LATE_MIN_BLOCKS {
                self.w.late_cycles.push(c.0);
            }
        }
        if self.w.late_cycles.is_empty() {
            return false;
        }
        if self.w.late_seen.len() != n {
            self.w.late_seen.clear();
            self.w.late_seen.resize(n, false);
        }
        if self.w.late_seen[b.index()] {
            return false;
        }
        // The propagation visits indices from `settled_below` up to the highest its labels
        // reach (`JoinFinder::compute`), a cycle's blocks forming one interval of the order.
        let po = &self.w.po;
        let hi = po.branch_reach_hi(b);
        if hi < settled_below {
            return false;
        }
        let crosses = self.w.late_cycles.iter().any(|&a| {
            let lo = po.index[s.header(a).index()];
            lo <= hi && lo + s.blocks(a).len() as u32 > settled_below
        });
        if !crosses {
            return false;
        }
        #[cfg(test)]
        knobs::LATE.with(|c| c.set(c.get() + 1));
        self.w.late_seen[b.index()] = true;
        self.w.late.push(b);
        true
    }

    /// Precise mode: records the immediate divergent exits of the postponed branches `bs`
    /// before any of them is analysed (see the module doc).
    pub(super) fn exits_first(&mut self, bs: &[Block]) {
        if self.precise && shortcut_on!(NO_EXITS_FIRST) {
            self.record_immediate_exits(bs);
        }
    }
}
