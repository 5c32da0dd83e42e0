//! Jumps over single-label regions of the join propagation (issue 13).
//!
//! The join propagation of one divergent branch (`sync::JoinFinder`, the SSA-construction view of
//! Rosemann, Moll and Hack, "An abstract interpretation for SPMD divergence on reducible control
//! flow graphs", as LLVM's `GenericSyncDependenceAnalysis` runs it) carries labels down the
//! modified post-order. Where one label enters a region through one block `i` and every path from
//! `i` leaves the region through one block `p` (its post-dominator in the label-flow graph), that
//! label is the only one ever seen inside: the region makes no join and only passes the label on
//! to `p`. Chains of such regions, each walked again by every branch above it, made the
//! propagation quadratic (two-block irreducible cycles chained, each entered from the one
//! before: `converge_gen::cfg::irreducible_ladder`).
//!
//! Per function, once its propagations have done more work than a pass over its blocks, this
//! module finds for each index `i` of the modified post-order a block `p` where the label of `i`
//! may jump: `p` is `i`'s immediate post-dominator in the label-flow graph (a reducible header's
//! successors there are its cycle's exits, as in LLVM 22's propagation; LLVM 19's walks through
//! cycle bodies, so its graph is the CFG), every successor of a block in the index interval
//! `(p, i]` lies in `[p, i]` (so the blocks the label reaches from `i` before `p` are in the
//! interval), and no block at or below `p` sends labels above `p`. The propagation checks, per
//! branch, what the table cannot know: that no other label is inside the interval (every other
//! fresh block at or below `p`, nothing below `i` processed yet: then no block of the interval
//! has a label, whatever its predecessors, and none gets one later), that the branch is not
//! inside (it passes no label on), and that nothing there is read by the exit check or settled
//! (see `JoinFinder::propagate` and `propagate_llvm19`). The answers, and the order of every
//! list, are those of the walk it replaces (`join_work_tests::jumps_change_nothing`).
//!
//! LLVM 19's flow enters a reducible cycle that does not hold the branch at its header, which
//! the modified post-order puts first in the cycle's interval, below the cycle's body: a jump from
//! the header over `(p, i]` would leave the body out, and one from a body block is refused once
//! the header below it was processed. So a reducible header `i` whose cycle ends at index `e`
//! also gets a jump over `(p, e]` (`HEADER_REGION`), `p` the first post-dominator of the header
//! outside the cycle, when every successor of a block in `(p, e]` lies in `[p, e]`: only the
//! header enters the body, so, the header not processed yet and the branch outside, the body holds
//! no label (`join_work_tests::header_jumps_change_nothing`).

use crate::structure::{NONE, Structure};
use crate::sync::ModifiedPo;
use converge_graph::{Block, DominatorTree, Graph};

/// Flag of a jump target: some reducible header in the interval sends labels straight to the
/// target (LLVM 22's flow), where a join is recorded as a divergent exit when the branch lies in
/// that header's cycle; the propagation then checks that the interval is outside the branch's
/// cycles.
pub(crate) const HEADER_INTO: u32 = 1 << 31;

/// Flag of a jump target (LLVM 19's flow): some block at or below the target has an edge above
/// it, so a label may come back into the region later (LLVM 19's flow enters the bodies of
/// cycles upwards, from their headers, and an irreducible cycle has upward edges of its own; a
/// loop whose blocks have unreachable predecessors is one irreducible cycle for LLVM 19). The
/// propagation that takes such a jump watches for a label moving above the target, and then
/// walks the branch again without jumps (`JoinFinder::propagate_llvm19`).
pub(crate) const ESCAPES: u32 = 1 << 30;

/// Flag of a jump target (LLVM 19's flow): the jump starts at the header of a reducible cycle
/// and its region also holds the cycle's body, the indices above the header up to the cycle's
/// end. The propagation asks the same of it as of any jump (the body needs no question of its
/// own: `JoinFinder::propagate_llvm19`); the flag tells the tests' counters apart.
pub(crate) const HEADER_REGION: u32 = 1 << 29;

/// The jump table of one function and its scratch (reused across functions).
#[derive(Default)]
pub(crate) struct Jumps {
    /// Per modified post-order index: the jump target, possibly with [`HEADER_INTO`], or `NONE`.
    /// Empty until built for the current function.
    pub target: Vec<u32>,
    /// The label flow the table was built for (LLVM 19's or LLVM 22's).
    pub llvm19: bool,
    rev: Reversed,
    dom: DominatorTree,
    lo_succ: Vec<u32>,
    hi_succ: Vec<u32>,
    first_header: Vec<u32>,
    /// Per index `p` (LLVM 19): the largest index a block at or below `p` has an edge to.
    escape: Vec<u32>,
    stacks: [Vec<u32>; 2],
    /// LLVM 19, per index of the post-dominator tree (scratch): a post-dominator of the block
    /// such that every block strictly between them lies in one cycle's interval, the first one
    /// outside it (`n` for none), or `NONE` (not walked yet).
    skip: Vec<u32>,
    path: Vec<u32>,
    /// LLVM 19 (scratch): the reducible headers' candidate jumps, (cycle end, header, target),
    /// sorted by end.
    header_jumps: Vec<(u32, u32, u32)>,
}

/// The label-flow graph reversed, with a virtual node (index `n`, the entry) whose successors
/// are the blocks without flow successors: its dominator tree is the post-dominator tree of the
/// flow graph (blocks that reach no such block, in cycles without exit, stay out of it).
#[derive(Default)]
struct Reversed {
    n: usize,
    succ_start: Vec<u32>,
    succ: Vec<Block>,
    pred_start: Vec<u32>,
    pred: Vec<Block>,
}

impl Graph for Reversed {
    fn num_blocks(&self) -> usize {
        self.n + 1
    }
    fn entry(&self) -> Block {
        Block(self.n as u32)
    }
    fn succs(&self, b: Block) -> &[Block] {
        &self.succ[self.succ_start[b.index()] as usize..self.succ_start[b.index() + 1] as usize]
    }
    fn preds(&self, b: Block) -> &[Block] {
        &self.pred[self.pred_start[b.index()] as usize..self.pred_start[b.index() + 1] as usize]
    }
}

/// The successors of index `j` in the label flow of the given LLVM version.
#[inline]
fn flow(po: &ModifiedPo, llvm19: bool, j: u32) -> &[u32] {
    if !llvm19 && po.header_cycle[j as usize] != NONE {
        po.header_exits(j)
    } else {
        po.succs(j)
    }
}

impl Jumps {
    /// Forgets the table (a new function).
    pub fn clear(&mut self) {
        self.target.clear();
    }

    /// Builds the table for `po`'s function (cycles `s`), for LLVM 19's label flow or LLVM 22's.
    pub fn build(&mut self, s: &Structure, po: &ModifiedPo, llvm19: bool) {
        let n = po.order.len();
        self.llvm19 = llvm19;
        self.target.clear();
        self.target.resize(n, NONE);
        if n < 3 {
            return;
        }
        self.reverse(po, llvm19);
        self.dom.compute(&self.rev);
        #[cfg(test)]
        let header_jumps = llvm19 && !crate::analysis::knobs::NO_HEADER_JUMPS.with(|c| c.get());
        #[cfg(not(test))]
        let header_jumps = llvm19;
        self.header_jumps.clear();
        if header_jumps {
            self.header_candidates(s, po);
        }
        // Per index: the smallest and largest flow successor (`NONE` / 0 when there is none),
        // and the smallest reducible header that sends labels to it (LLVM 22).
        let (lo_s, hi_s, first_h) = (&mut self.lo_succ, &mut self.hi_succ, &mut self.first_header);
        for v in [&mut *lo_s, &mut *first_h] {
            v.clear();
            v.resize(n, NONE);
        }
        hi_s.clear();
        hi_s.resize(n, 0);
        let escape = &mut self.escape;
        escape.clear();
        let mut esc = 0;
        for j in 0..n as u32 {
            if llvm19 {
                esc = po.succs(j).iter().copied().fold(esc.max(j), u32::max);
                escape.push(esc);
            }
            let header = !llvm19 && po.header_cycle[j as usize] != NONE;
            for &x in flow(po, llvm19, j) {
                lo_s[j as usize] = lo_s[j as usize].min(x);
                hi_s[j as usize] = hi_s[j as usize].max(x);
                if header {
                    first_h[x as usize] = first_h[x as usize].min(j);
                }
            }
        }
        // One sweep up the order answers every interval query with monotonic stacks: for a
        // right end `r`, the minimum (maximum) over `(p, r]` is the value at the first stacked
        // index above `p`.
        let [min_s, max_s] = &mut self.stacks;
        min_s.clear();
        max_s.clear();
        fn first_above(st: &[u32], p: u32) -> Option<u32> {
            st.get(st.partition_point(|&j| j <= p)).copied()
        }
        #[cfg(test)]
        let refuse_watched = crate::analysis::knobs::NO_WATCHED_JUMPS.with(|c| c.get());
        #[cfg(not(test))]
        let refuse_watched = false;
        let mut next_header = 0;
        for i in 0..n as u32 {
            for (st, key, less) in [(&mut *min_s, &*lo_s, true), (&mut *max_s, &*hi_s, false)] {
                let k = key[i as usize];
                while let Some(&top) = st.last() {
                    let t = key[top as usize];
                    if if less { t >= k } else { t <= k } {
                        st.pop();
                    } else {
                        break;
                    }
                }
                st.push(i);
            }
            // The reducible headers whose cycle ends at `i` (LLVM 19): the stacks now answer
            // whether every successor of a block in their region `(p, i]` lies in `[p, i]`.
            while let Some(&(e, h, p)) = self.header_jumps.get(next_header)
                && e == i
            {
                next_header += 1;
                let escapes = self.escape[p as usize] > p;
                if escapes && refuse_watched {
                    continue;
                }
                let inside = first_above(min_s, p).is_none_or(|j| lo_s[j as usize] >= p)
                    && first_above(max_s, p).is_none_or(|j| hi_s[j as usize] <= e);
                if inside {
                    self.target[h as usize] = p | HEADER_REGION | if escapes { ESCAPES } else { 0 };
                }
            }
            let p = match self.dom.idom(Block(i)) {
                Some(d) if (d.0 as usize) < n && d.0 < i => d.0,
                _ => continue,
            };
            // No label at or below `p` may come back above it, or (LLVM 19) the propagation
            // must watch for one.
            let escapes = if llvm19 {
                self.escape[p as usize] > p
            } else {
                po.reach_hi[p as usize] > p
            };
            if escapes && (!llvm19 || refuse_watched) {
                continue;
            }
            let inside = first_above(min_s, p).is_none_or(|j| lo_s[j as usize] >= p)
                && first_above(max_s, p).is_none_or(|j| hi_s[j as usize] <= i);
            // (A reducible header passes here only when its cycle is the header alone, its
            // successors in the body lying above it otherwise; its own jump, with the same
            // region, was set just above.)
            if inside && self.target[i as usize] == NONE {
                let into = first_h[p as usize] <= i;
                self.target[i as usize] =
                    p | if into { HEADER_INTO } else { 0 } | if escapes { ESCAPES } else { 0 };
            }
        }
    }

    /// LLVM 19: for each reducible header (index `i`, its cycle the interval `[i, e]`) whose
    /// first post-dominator outside the cycle, `p`, lies below it, the candidate `(e, i, p)`, in
    /// `self.header_jumps` sorted by `e`. Headers go from the largest index down, so an inner
    /// cycle's walk up the post-dominator tree comes before its outer cycles' (whose intervals
    /// hold it), and they skip what it walked (`skip`, with path compression).
    fn header_candidates(&mut self, s: &Structure, po: &ModifiedPo) {
        let n = po.order.len() as u32;
        let (skip, path, dom) = (&mut self.skip, &mut self.path, &self.dom);
        skip.clear();
        skip.resize(n as usize + 1, NONE);
        let up = |v: u32| dom.idom(Block(v)).map_or(n, |d| d.0);
        for i in (0..n).rev() {
            let c = po.header_cycle[i as usize];
            if c == NONE {
                continue;
            }
            let e = i + s.blocks(c).len() as u32 - 1;
            path.clear();
            path.push(i);
            let mut v = up(i);
            while v < n && (i..=e).contains(&v) {
                path.push(v);
                v = match skip[v as usize] {
                    NONE => up(v),
                    w => w,
                };
            }
            for &w in path.iter() {
                skip[w as usize] = v;
            }
            if v < i {
                self.header_jumps.push((e, i, v));
            }
        }
        self.header_jumps.sort_unstable();
    }

    /// The reversed flow graph with its virtual node, in `self.rev`.
    fn reverse(&mut self, po: &ModifiedPo, llvm19: bool) {
        let n = po.order.len();
        let r = &mut self.rev;
        r.n = n;
        // Successors in the reversed graph: flow predecessors (a counting sort of the flow
        // edges by target), then the virtual node's: the blocks without flow successors.
        r.succ_start.clear();
        r.succ_start.resize(n + 2, 0);
        r.pred_start.clear();
        r.pred_start.push(0);
        r.pred.clear();
        let mut roots = 0u32;
        for j in 0..n as u32 {
            let f = flow(po, llvm19, j);
            for &x in f {
                r.succ_start[x as usize + 1] += 1;
            }
            r.pred.extend(f.iter().map(|&x| Block(x)));
            if f.is_empty() {
                r.pred.push(Block(n as u32));
                roots += 1;
            }
            r.pred_start.push(r.pred.len() as u32);
        }
        // The virtual node has no predecessors.
        r.pred_start.push(r.pred.len() as u32);
        r.succ_start[n + 1] = roots;
        for k in 1..n + 2 {
            r.succ_start[k] += r.succ_start[k - 1];
        }
        r.succ.clear();
        r.succ.resize(r.succ_start[n + 1] as usize, Block(0));
        // Fill from each list's end (the starts are moved back to their place as we go).
        for j in (0..n as u32).rev() {
            let f = flow(po, llvm19, j);
            if f.is_empty() {
                r.succ_start[n + 1] -= 1;
                r.succ[r.succ_start[n + 1] as usize] = Block(j);
            }
            for &x in f.iter().rev() {
                r.succ_start[x as usize + 1] -= 1;
                r.succ[r.succ_start[x as usize + 1] as usize] = Block(j);
            }
        }
        // `succ_start[k + 1]` now holds the start of k's list: shift back by one.
        r.succ_start.remove(0);
        let total = r.succ.len() as u32;
        r.succ_start.push(total);
    }
}
