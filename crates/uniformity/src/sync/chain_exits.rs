//! The labels a walk sends to the exits of the reducible cycles around its branch, without
//! visiting again the exits an inner cycle's header reached. In LLVM 22's label flow (the
//! reduction of sync dependence to SSA construction, "An abstract interpretation for SPMD
//! divergence on reducible control flow graphs", extended to cycles as described in LLVM's
//! "Convergence And Uniformity") a reducible header stands in for its cycle and sends its label
//! to every exit of the cycle. A walk pops the headers of the nest around its branch innermost
//! first, and an exit of an inner cycle `d` that lies outside the next cycle `c` is an exit of
//! `c` too: in deep nests (issue 13's `dag-dense` and `dag-sparse`) each far exit was visited once
//! per level. After `d`'s header sent label `l`, each exit of `d` holds `l` or is a recorded
//! divergent exit holding its own label (LLVM's `computeJoin`: a label that differs makes the
//! block a join, which keeps its own label). Sending `c`'s label to such an exit then changes
//! nothing, unless the exit still holds `l` and `c`'s label differs (the *active* exits, listed
//! as they are visited), or it became a join in between without being recorded as an exit (the
//! *exceptions*, listed by the walk). So `c`'s header visits its exits that are not `d`'s (listed
//! once per function and pair of cycles) and the listed ones outside `c`, in the order of `c`'s
//! exit list (their positions found by binary search on the key of that order, the first edge
//! into the exit from `c` in the cycle block layout): the same pushes with an effect, in the same
//! order, so the same joins, exits and order of exits are recorded as by the full loop.

use super::ModifiedPo;
use crate::structure::{NONE, Structure};

/// Exit lists shorter than this are sent in full (the bookkeeping would cost more than it
/// saves); the levels between such lists and longer ones are sent in full too.
pub(super) const MIN_EXITS: usize = 32;

/// The last header of a cycle around the branch that sent its label to its exits in the walk
/// at hand: its cycle, its index and the label.
#[derive(Clone, Copy, Debug)]
pub(super) struct Level {
    pub cycle: u32,
    pub index: u32,
    pub label: u32,
}

/// Per function: the exits of a cycle that are not those of an inner one, and the keys of the
/// exit order; per walk: the active exits and the exceptions (see the module doc).
#[derive(Default)]
pub(super) struct ChainExits {
    /// Per pair of cycles `(d, c)` whose headers followed each other in a walk: the range of
    /// `pool` holding the positions, in `c`'s exit list, of `c`'s exits that are not `d`'s.
    /// (Walks from different branches pair a cycle with different cycles around it.)
    pairs: std::collections::HashMap<(u32, u32), (u32, u32)>,
    pool: Vec<u32>,
    /// Scratch marks by modified post-order index (stamped).
    mark: Vec<u32>,
    mark_stamp: u32,
    /// Per index (CSR), built on the first need in a function: the keys of the edges into the
    /// block, `layout position of the source << 32 | successor slot`, the order of exit lists
    /// (`Structure::exits`: edges by source in the cycle block layout, then successor order,
    /// each exit at its first edge).
    pred_start: Vec<u32>,
    pred_key: Vec<u64>,
    /// Exits the last level visited that may still hold its label (a superset; indices).
    pub active: Vec<u32>,
    /// Blocks that became joins since the last level without being recorded exits (a
    /// superset; indices): filled by the walk while a level is set.
    pub excepts: Vec<u32>,
    cand: Vec<u32>,
    /// The positions in the exit list of the level at hand to visit, increasing.
    pub visit: Vec<u32>,
}

impl ChainExits {
    /// Forgets the function before (its pairs and keys).
    pub fn reset(&mut self) {
        self.pairs.clear();
        self.pool.clear();
        self.pred_start.clear();
        self.pred_key.clear();
        self.active.clear();
        self.excepts.clear();
    }

    /// Fills `visit` for the header at index `i` of reducible cycle `c`, whose label is `l`,
    /// after level `prev` of the same walk; false when the whole exit list must be visited (and
    /// `active` rebuilt). `in_exits` is the walk's (`stamp` its exit stamp).
    #[allow(clippy::too_many_arguments)]
    pub fn plan(
        &mut self,
        s: &Structure,
        po: &ModifiedPo,
        c: u32,
        i: u32,
        l: u32,
        prev: Level,
        in_exits: &[u32],
        stamp: u32,
    ) -> bool {
        let d = prev.cycle;
        if !s.contains_cycle(c, d) {
            return false;
        }
        let ex = po.header_exits(i);
        let (mut a, mut b) = self.pairs.get(&(d, c)).copied().unwrap_or((NONE, 0));
        if a == NONE {
            // `c`'s exits that are not `d`'s: those outside `c` are (`c` holds `d`).
            let n = po.order.len();
            if self.mark.len() < n {
                self.mark.resize(n, 0);
            }
            self.mark_stamp = self.mark_stamp.wrapping_add(1);
            if self.mark_stamp == 0 {
                self.mark.fill(0);
                self.mark_stamp = 1;
            }
            let st = self.mark_stamp;
            for &x in po.header_exits(prev.index) {
                self.mark[x as usize] = st;
            }
            a = self.pool.len() as u32;
            for (k, &x) in ex.iter().enumerate() {
                if self.mark[x as usize] != st {
                    self.pool.push(k as u32);
                }
            }
            b = self.pool.len() as u32;
            self.pairs.insert((d, c), (a, b));
        }
        let (lo, hi) = (i, i + s.blocks(c).len() as u32);
        let outside = |x: u32| x < lo || x >= hi;
        self.cand.clear();
        if l != prev.label {
            // Active exits outside `c` hold `d`'s label: `c`'s makes them joins. Those inside
            // `c` are never exits of `c` or of a cycle around it.
            self.cand
                .extend(self.active.iter().copied().filter(|&x| outside(x)));
            self.active.clear();
        }
        self.cand.extend(
            self.excepts
                .iter()
                .copied()
                .filter(|&x| outside(x) && in_exits[x as usize] != stamp),
        );
        if !self.cand.is_empty() {
            if self.pred_start.is_empty() {
                self.build_keys(s, po);
            }
            let (r0, r1) = s.range(c);
            let (ps, pk) = (&self.pred_start, &self.pred_key);
            // The key of `y` in `c`'s exit order (`u64::MAX`: no edge from `c` into `y`): the
            // smallest of its edges' keys from a source in `c`'s slice of the layout (each
            // block's keys are sorted).
            let key = |y: u32| {
                let ks = &pk[ps[y as usize] as usize..ps[y as usize + 1] as usize];
                match ks.get(ks.partition_point(|&k| k < (r0 as u64) << 32)) {
                    Some(&k) if k < (r1 as u64) << 32 => k,
                    _ => u64::MAX,
                }
            };
            let mut w = 0;
            for r in 0..self.cand.len() {
                let x = self.cand[r];
                let kx = key(x);
                if kx == u64::MAX {
                    // Not an exit of `c`.
                    continue;
                }
                let k = ex.partition_point(|&y| key(y) < kx);
                if ex.get(k) != Some(&x) {
                    // (The exit lists are in key order: never, but the full loop is right
                    // whatever the order.)
                    debug_assert!(false, "exit list not in key order");
                    return false;
                }
                self.cand[w] = k as u32;
                w += 1;
            }
            self.cand.truncate(w);
            self.cand.sort_unstable();
            self.cand.dedup();
        }
        // Merge the two increasing lists of positions.
        self.visit.clear();
        let (mut p, mut q) = (a as usize, 0);
        let nl = &self.pool[..b as usize];
        while p < nl.len() || q < self.cand.len() {
            let x = nl.get(p).copied().unwrap_or(u32::MAX);
            let y = self.cand.get(q).copied().unwrap_or(u32::MAX);
            if x <= y {
                p += 1;
                q += (x == y) as usize;
                self.visit.push(x);
            } else {
                q += 1;
                self.visit.push(y);
            }
        }
        true
    }

    /// The keys of the edges into each block (see `pred_key`).
    fn build_keys(&mut self, s: &Structure, po: &ModifiedPo) {
        let n = po.order.len();
        let (start, keys) = (&mut self.pred_start, &mut self.pred_key);
        start.clear();
        start.resize(n + 2, 0);
        for u in 0..n as u32 {
            if s.pos(po.order[u as usize]) != NONE {
                for &x in po.succs(u) {
                    start[x as usize + 2] += 1;
                }
            }
        }
        for k in 2..n + 2 {
            start[k] += start[k - 1];
        }
        keys.clear();
        keys.resize(start[n + 1] as usize, 0);
        for u in 0..n as u32 {
            let p = s.pos(po.order[u as usize]);
            if p != NONE {
                for (slot, &x) in po.succs(u).iter().enumerate() {
                    let at = &mut start[x as usize + 1];
                    keys[*at as usize] = (p as u64) << 32 | slot as u64;
                    *at += 1;
                }
            }
        }
        start.truncate(n + 1);
        for y in 0..n {
            keys[start[y] as usize..start[y + 1] as usize].sort_unstable();
        }
    }
}
