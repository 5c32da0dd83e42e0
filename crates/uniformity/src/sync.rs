//! Sync dependence: which blocks are joins of disjoint paths from a divergent branch, and which cycle
//! exits are divergent.
//!
//! This follows LLVM's `GenericSyncDependenceAnalysis` as of LLVM 22 (after the fix for issue 137277,
//! PR 139667): the reduction to SSA construction of Rosemann, Moll and Hack ("An abstract
//! interpretation for SPMD divergence on reducible control flow graphs", POPL 2021), extended to
//! cycles. Each successor of the branch defines a label; labels flow along the *modified post-order*
//! (a cycle's header stands in for the cycle and flows to its exits); a block reached by two labels is
//! a join and relabels itself. Propagation stops when one fresh block is left outside the branch's
//! irreducible ancestor (that block is the point where every path has met again); 19's `floorLabel`
//! early stop, which misses joins, is not used.
//!
//! Cost per branch is proportional to the region the labels reach: labels, stamps and the fresh set
//! are indexed by modified post-order position (successors pre-translated), scratch arrays are
//! reused across branches and functions and reset by their touched lists, and the fresh set is a
//! two-level bit set whose highest member is found in amortised O(1) word steps. When the caller
//! knows that no divergent exit can matter and that every block at the end of the order is
//! *settled* (a join there changes nothing), propagation stops once labels can only reach those
//! blocks (`ModifiedPo::reach_hi`), or is skipped. A flow that can only meet unlabelled blocks
//! (no other fresh label reaches its range of indices, none of that range processed yet, no label
//! there read by the exit check) spreads one label and makes no join: it is dropped, so chains of
//! pieces whose dead ends keep a label fresh do not walk every piece after the branch (issue 13).
//! The exit check over the irreducible cycles
//! around the branch visits only edges that leave a cycle of the branch's chain (a range-minimum
//! query in `Structure`), with O(1) per edge, instead of cycles × exits.

mod chain_exits;
mod cut_memo;
mod exit_configs;
mod exit_seeded;
mod plain22;

pub(crate) use exit_seeded::MAX_SEEDED_EXITS;

use crate::jumps::{ESCAPES, HEADER_INTO, HEADER_REGION, Jumps};
use crate::structure::{NONE, Structure};
use converge_graph::{Block, Graph};

/// Empties `v` and fills it with `n` copies of `x` (keeping its capacity).
fn reset<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    v.clear();
    v.resize(n, x);
}

/// LLVM's `ModifiedPostOrder`: a post-order in which a cycle's exits come before its header, the
/// header comes first among its cycle's blocks, and the cycle's blocks form a contiguous interval.
///
/// Join propagation runs in post-order index space: `succ` holds each block's successors as
/// indices (CSR by index), and `header_cycle` the reducible cycle a block heads (whose exits
/// replace its successors), so the hot loop never maps blocks to indices.
#[derive(Clone, Debug, Default)]
pub(crate) struct ModifiedPo {
    pub order: Vec<Block>,
    /// Position of each block in `order`, or `NONE` (unreachable).
    pub index: Vec<u32>,
    /// Per index: the innermost cycle of a reducible header, else `NONE`.
    pub header_cycle: Vec<u32>,
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    /// Per index (CSR): the exits of the reducible cycle the block heads, as indices, in
    /// `Structure::exits` order (empty for other blocks): where such a header sends labels.
    hx_start: Vec<u32>,
    hx: Vec<u32>,
    /// Per index `i`: the largest index a label can reach from blocks at indices `<= i`. Labels
    /// flow to smaller indices (exits come before their cycle's header, a back edge goes to the
    /// header, which comes first in its cycle) except inside an irreducible cycle, whose blocks
    /// form one interval: so this is the prefix maximum over blocks of the end of the outermost
    /// irreducible cycle around them.
    pub reach_hi: Vec<u32>,
    /// Per cycle: its outermost irreducible ancestor-or-self, or `NONE`.
    pub outer_irr: Vec<u32>,
    /// Per index: `IN_IRR` when the block lies in an irreducible cycle (its innermost cycle has
    /// an outermost irreducible ancestor-or-self), `HEADS` when it heads a reducible cycle
    /// (`header_cycle` is not `NONE`): LLVM 19's propagation tests both in one load of a table
    /// of a byte per block.
    kind: Vec<u8>,
    /// Per index `i`: a lower bound of the indices labels can reach from `i` (`NONE` when
    /// nothing is reachable); inside an outermost irreducible cycle, of the whole cycle (its own
    /// blocks included). See `JoinFinder::compute`.
    lo_reach: Vec<u32>,
    /// Scratch of `compute_into`. Per block: its successors were pushed (in the frame that laid it out).
    expanded: Vec<bool>,
    stack: Vec<Block>,
    frames: Vec<(u32, usize)>,
}

impl ModifiedPo {
    #[cfg(test)]
    pub fn compute<G: Graph>(g: &G, s: &Structure) -> ModifiedPo {
        let mut po = ModifiedPo::default();
        po.compute_into(g, s);
        po
    }

    /// Iterative: one shared stack, one frame per cycle being laid out (LLVM recurses per nesting
    /// level; the visiting order is the same: the last pushed block is explored first). Reuses the
    /// buffers of a previous function.
    ///
    /// A block is finalized exactly when it gets its index, so `index` doubles as the finalized
    /// mark; the tables derived from the order (successor indices, reach bounds) are filled in
    /// one pass over it, one outermost irreducible cycle at a time.
    pub fn compute_into<G: Graph>(&mut self, g: &G, s: &Structure) {
        let n = g.num_blocks();
        self.order.clear();
        self.index.clear();
        self.index.resize(n, NONE);
        self.header_cycle.clear();
        self.succ_start.clear();
        self.succ.clear();
        if n == 0 {
            self.succ_start.push(0);
            return;
        }
        let mut expanded = std::mem::take(&mut self.expanded);
        expanded.clear();
        expanded.resize(n, false);
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(g.entry());
        // (cycle or NONE, base of its stack segment)
        let mut frames = std::mem::take(&mut self.frames);
        frames.clear();
        frames.push((NONE, 0));
        let inside = |cur: u32, b: Block| cur == NONE || s.contains(cur, b);
        // The order's tables as split borrows, and the current frame's cycle and stack base in
        // locals, re-read only when a frame ends.
        let (order, index, header_cycle) = (
            &mut self.order,
            &mut self.index[..n],
            &mut self.header_cycle,
        );
        let (mut cur, mut base) = (NONE, 0);
        loop {
            let Some(&nb) = stack.get(base..).and_then(|t| t.last()) else {
                frames.pop();
                match frames.last() {
                    Some(&(c, b)) => (cur, base) = (c, b),
                    None => break,
                }
                continue;
            };
            if index[nb.index()] != NONE {
                stack.pop();
                continue;
            }
            let nested = s.inner(nb);
            if nested != NONE && nested != cur && (cur == NONE || s.contains_cycle(cur, nested)) {
                // The child of `cur` holding `nested` (binary lifting: a walk up the parents
                // cost the nesting depth per step in deep nests, issue 13).
                let d = s.ancestor_at_depth(nested, if cur == NONE { 1 } else { s.depth(cur) + 1 });
                let mut pushed = false;
                // d's exits inside `cur` (d is a child of `cur`, or top-level): its local exits.
                for &x in s.local_exits(d) {
                    if index[x.index()] == NONE {
                        stack.push(x);
                        pushed = true;
                    }
                }
                if !pushed {
                    stack.pop();
                    // cyclePO(d): the header is appended first, then the body.
                    let h = s.header(d);
                    index[h.index()] = order.len() as u32;
                    order.push(h);
                    header_cycle.push(if s.is_reducible(d) { s.inner(h) } else { NONE });
                    base = stack.len();
                    cur = d;
                    for &x in g.succs(h) {
                        if x != h && s.contains(d, x) && index[x.index()] == NONE {
                            stack.push(x);
                        }
                    }
                    frames.push((d, base));
                }
                continue;
            }
            // A block whose successors were pushed is finished when it is on top again:
            // everything above it in the stack was finalized in between, so a second scan of
            // its successors would push nothing.
            let mut pushed = false;
            if !std::mem::replace(&mut expanded[nb.index()], true) {
                for &x in g.succs(nb) {
                    if index[x.index()] == NONE && inside(cur, x) {
                        stack.push(x);
                        pushed = true;
                    }
                }
            }
            if !pushed {
                stack.pop();
                index[nb.index()] = order.len() as u32;
                order.push(nb);
                header_cycle.push(NONE);
            }
        }
        self.expanded = expanded;
        self.stack = stack;
        self.frames = frames;
        let len = self.order.len();
        let (order, index) = (&self.order[..], &self.index[..n]);
        // The outermost irreducible ancestor-or-self of each cycle (parents come first).
        let nc = s.num_cycles();
        let mut outer_irr = std::mem::take(&mut self.outer_irr);
        outer_irr.clear();
        for c in 0..nc as u32 {
            let p = s.parent_raw(c);
            let o = if p != NONE && outer_irr[p as usize] != NONE {
                outer_irr[p as usize]
            } else if !s.is_reducible(c) {
                c
            } else {
                NONE
            };
            outer_irr.push(o);
        }
        // One pass per block outside irreducible cycles, one per outermost irreducible cycle
        // (an interval, header first, whose blocks all have it as their outermost irreducible
        // cycle): `reach_hi` is the prefix maximum of the interval ends, and, as label flow goes
        // to smaller indices outside irreducible cycles, `lo_reach` of a block is the smallest
        // index its successors reach (an interval's flow leaves it downwards).
        // The per-index tables get their length at once and are written by index (a push per
        // table and block cost a capacity check and a length update each).
        reset(&mut self.reach_hi, len, 0);
        reset(&mut self.kind, len, 0);
        reset(&mut self.lo_reach, len, NONE);
        let mut hx_start = std::mem::take(&mut self.hx_start);
        let mut hx = std::mem::take(&mut self.hx);
        reset(&mut hx_start, len + 1, 0);
        hx.clear();
        // Every reducible header's exits are read below: list them all at once when the nest is
        // too deep for `Structure::exits`'s single pass, unless there are few (the listing
        // passes over every edge: in LLVM 19's cycles of `dag-dense`, where unreachable
        // predecessors make most cycles irreducible, four headers cost 11 M instructions more
        // that way than one query each).
        if self.header_cycle[..len]
            .iter()
            .filter(|&&c| c != NONE)
            .count()
            >= MANY_HEADERS
        {
            s.reducible_exits();
        }
        // The successors as indices are written here too (one pass over the order).
        let header_cycle = &self.header_cycle[..len];
        let (succ_start, succ) = (&mut self.succ_start, &mut self.succ);
        reset(succ_start, len + 1, 0);
        let (lo_reach_all, reach_hi, kind) = (
            &mut self.lo_reach[..len],
            &mut self.reach_hi[..len],
            &mut self.kind[..len],
        );
        let mut hi = 0;
        let mut k = 0;
        while k < len {
            let c = s.inner(order[k]);
            let o = if c == NONE {
                NONE
            } else {
                outer_irr[c as usize]
            };
            let b = if o == NONE {
                k + 1
            } else {
                k + s.blocks(o).len()
            };
            debug_assert!(o == NONE || index[s.header(o).index()] as usize == k);
            let mut lo = NONE;
            let (lo_reach, rest) = lo_reach_all.split_at_mut(k);
            // Indexed: `j` also selects the successor list, and the zipped iterator form
            // costs 4.5 M more instructions on div-38mb.ll.
            #[allow(clippy::needless_range_loop)]
            for j in k..b {
                let hc = header_cycle[j];
                let mut visit = |x: u32| {
                    if let Some(&r) = lo_reach.get(x as usize) {
                        lo = lo.min(x).min(r);
                    }
                };
                hx_start[j] = hx.len() as u32;
                succ_start[j] = succ.len() as u32;
                // Successors of a reachable block are reachable.
                let xs = g.succs(order[j]);
                if hc != NONE {
                    kind[j] = HEADS;
                    succ.extend(xs.iter().map(|x| index[x.index()]));
                    for &x in s.exits(hc) {
                        let xi = index[x.index()];
                        hx.push(xi);
                        visit(xi);
                    }
                } else {
                    for &x in xs {
                        let xi = index[x.index()];
                        succ.push(xi);
                        visit(xi);
                    }
                }
            }
            hi = hi.max(b as u32 - 1);
            if o == NONE {
                rest[0] = lo;
                reach_hi[k] = hi;
            } else {
                rest[..b - k].fill(lo.min(k as u32));
                reach_hi[k..b].fill(hi);
                for x in &mut kind[k..b] {
                    *x |= IN_IRR;
                }
            }
            k = b;
        }
        hx_start[len] = hx.len() as u32;
        succ_start[len] = succ.len() as u32;
        self.hx_start = hx_start;
        self.hx = hx;
        self.outer_irr = outer_irr;
    }

    /// A bound of the indices LLVM 19's label flow reaches from the blocks at indices `<= k`, for
    /// a branch in block `t`: that flow also enters the bodies of reducible cycles that do not
    /// contain `t` (upwards in the order), so the bound is `reach_hi` at the end of the outermost
    /// cycle around block `k` that does not contain `t` (any such cycle around a block below `k`
    /// either ends below `k` or contains block `k` too; cycles containing `t` send labels to
    /// their exits, below their header; irreducible ones are in `reach_hi` already).
    pub fn reach_hi_19(&self, s: &Structure, t: Block, k: u32) -> u32 {
        let c = s.inner(self.order[k as usize]);
        if c == NONE {
            return self.reach_hi[k as usize];
        }
        match self.end_19(s, t, c) {
            NONE => self.reach_hi[k as usize],
            end => self.reach_hi[end.max(k) as usize],
        }
    }

    /// The part of [`ModifiedPo::reach_hi_19`] that depends on the block only through its
    /// innermost cycle `c`: the last index of the outermost cycle around it that does not contain
    /// the branch's block `t`, or `NONE`.
    pub fn end_19(&self, s: &Structure, t: Block, c: u32) -> u32 {
        let tc = s.inner(t);
        let d = if tc == NONE {
            1
        } else {
            match s.common_cycle(c, tc) {
                NONE => 1,
                common => s.depth(common) + 1,
            }
        };
        if s.depth(c) < d {
            return NONE;
        }
        let o = s.ancestor_at_depth(c, d);
        self.index[s.header(o).index()] + s.blocks(o).len() as u32 - 1
    }

    /// The exits, as indices, of the reducible cycle headed by the block at index `i` (empty
    /// when it heads none).
    #[inline(always)]
    pub(crate) fn header_exits(&self, i: u32) -> &[u32] {
        &self.hx[self.hx_start[i as usize] as usize..self.hx_start[i as usize + 1] as usize]
    }

    /// The successors of the block at index `i`, as indices.
    #[inline(always)]
    pub(crate) fn succs(&self, i: u32) -> &[u32] {
        &self.succ[self.succ_start[i as usize] as usize..self.succ_start[i as usize + 1] as usize]
    }

    /// The highest index the labels of a divergent branch in `b` can reach (LLVM 22's
    /// propagation, `JoinFinder::compute`, returns at once past it).
    pub(crate) fn branch_reach_hi(&self, b: Block) -> u32 {
        let m = self.succs(self.index[b.index()]).iter().copied().max();
        self.reach_hi[m.unwrap_or(0) as usize]
    }

    /// The lowest index the labels of a divergent branch in `b` can reach in LLVM 22's
    /// propagation (`NONE`: none): its successors' and what they reach (`lo_reach`; a
    /// successor may lie above `b` when `b` heads a reducible cycle, so `b`'s own entry, which
    /// follows the exits, is not asked).
    pub(crate) fn branch_reach_lo(&self, b: Block) -> u32 {
        self.succs(self.index[b.index()])
            .iter()
            .fold(NONE, |lo, &x| lo.min(x).min(self.lo_reach[x as usize]))
    }
}

/// Reducible headers in a modified post-order from which their exits are listed all at once
/// (`Structure::reducible_exits`) rather than one cycle at a time.
const MANY_HEADERS: usize = 8;

/// A set of post-order indices with fast "largest member". It keeps no count: emptiness is
/// the summary word at `hi` and those below it being zero, found by the same downward scan as
/// the largest member (amortised by the raises of `hi` in `set`), which saves a counter update
/// on every insertion and removal of the propagations' hot loops.
#[derive(Clone, Debug, Default)]
struct FreshSet {
    words: Vec<u64>,
    summary: Vec<u64>,
    /// No summary word above this one is non-zero.
    hi: usize,
}

impl FreshSet {
    #[cfg(test)]
    fn new(n: usize) -> FreshSet {
        let nw = n.div_ceil(64);
        FreshSet {
            words: vec![0; nw],
            summary: vec![0; nw.div_ceil(64)],
            hi: 0,
        }
    }
    /// Room for indices below `n` (the set is empty between uses).
    fn grow(&mut self, n: usize) {
        let nw = n.div_ceil(64);
        if self.words.len() < nw {
            self.words.resize(nw, 0);
            self.summary.resize(nw.div_ceil(64), 0);
        }
    }
    #[inline]
    fn set(&mut self, i: u32) {
        let (w, bit) = (i as usize / 64, 1u64 << (i % 64));
        let word = self.words[w];
        // Stored whether or not the bit was there (no branch on it): a non-empty word is already
        // in the summary (and below `hi`).
        self.words[w] = word | bit;
        if word == 0 {
            self.summary[w / 64] |= 1 << (w % 64);
            self.hi = self.hi.max(w / 64);
        }
    }
    #[inline]
    fn reset(&mut self, i: u32) {
        let (w, bit) = (i as usize / 64, 1u64 << (i % 64));
        if self.words[w] & bit != 0 {
            self.words[w] &= !bit;
            if self.words[w] == 0 {
                self.summary[w / 64] &= !(1 << (w % 64));
            }
        }
    }
    /// The summary word holding the largest member and its position (moving `hi` down to it),
    /// or `None` when the set is empty.
    #[inline]
    fn top(&mut self) -> Option<(u64, usize)> {
        loop {
            let s = *self.summary.get(self.hi)?;
            if s != 0 {
                return Some((s, self.hi));
            }
            if self.hi == 0 {
                return None;
            }
            self.hi -= 1;
        }
    }
    #[inline]
    fn is_empty(&mut self) -> bool {
        self.top().is_none()
    }
    #[inline]
    fn last(&mut self) -> Option<u32> {
        let (s, h) = self.top()?;
        let w = h * 64 + 63 - s.leading_zeros() as usize;
        let word = self.words[w];
        Some((w * 64 + 63 - word.leading_zeros() as usize) as u32)
    }
    /// The largest member when none is above `i` (just popped): read from `i`'s own word when
    /// that word still has members, the common case in the propagations, without the summary.
    #[inline(always)]
    fn last_below(&mut self, i: u32) -> Option<u32> {
        let w = i as usize / 64;
        let word = self.words[w];
        if word != 0 {
            return Some((w * 64 + 63 - word.leading_zeros() as usize) as u32);
        }
        self.last()
    }
    /// Removes the largest member; returns it, what is left of its summary word, and the
    /// word's position.
    #[inline(always)]
    fn take_last(&mut self) -> Option<(u32, u64, usize)> {
        let (s, h) = self.top()?;
        let sw = 63 - s.leading_zeros();
        let w = h * 64 + sw as usize;
        let word = self.words[w];
        let bit = 63 - word.leading_zeros();
        let rest = word & !(1u64 << bit);
        self.words[w] = rest;
        let mut left = s;
        if rest == 0 {
            left = s & !(1u64 << sw);
            self.summary[h] = left;
        }
        Some((w as u32 * 64 + bit, left, h))
    }
    /// Removes and returns the largest member (the walks pop through `pop_and_empty` and
    /// `TopWord`).
    #[cfg(test)]
    fn pop(&mut self) -> Option<u32> {
        self.take_last().map(|(i, _, _)| i)
    }
    /// Removes the largest member; returns it and whether the set is empty now (known at once
    /// while the member's summary word keeps other members, the common case).
    #[inline(always)]
    fn pop_and_empty(&mut self) -> Option<(u32, bool)> {
        let (i, left, h) = self.take_last()?;
        Some((i, left == 0 && (h == 0 || self.is_empty())))
    }
    #[inline]
    fn clear(&mut self) {
        while let Some(i) = self.last() {
            self.reset(i);
        }
    }
    /// Whether some member lies in `lo..hi` (a scan of the words there; off the hot path).
    fn any_in(&self, lo: u32, hi: u32) -> bool {
        if lo >= hi {
            return false;
        }
        let (first, last) = (lo as usize / 64, (hi - 1) as usize / 64);
        (first..=last.min(self.words.len().saturating_sub(1))).any(|w| {
            let mut word = self.words[w];
            if w == first {
                word &= !0u64 << (lo % 64);
            }
            if w == last && !hi.is_multiple_of(64) {
                word &= (1u64 << (hi % 64)) - 1;
            }
            word != 0
        })
    }
    /// Appends the members to `out`, in increasing order.
    fn members(&self, out: &mut Vec<u32>) {
        for (w, &word) in self.words.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let b = word.trailing_zeros();
                out.push(w as u32 * 64 + b);
                word &= word - 1;
            }
        }
    }
}

/// Where a propagation marks an index fresh: the fresh set itself, or [`TopWord`] over it.
trait MarkFresh {
    fn mark(&mut self, i: u32);
}

impl MarkFresh for FreshSet {
    #[inline(always)]
    fn mark(&mut self, i: u32) {
        self.set(i);
    }
}

/// A [`FreshSet`] whose top word is held in a register (LLVM 19's walk): popping the largest
/// member and marking an index of the same word then touch no memory and no summary. A walk
/// pops one block per step and marks its successors, mostly near it in the order, so most of
/// the set's traffic stays in that word; a word is loaded from the set when the register runs
/// empty, and given back when an index above it is marked (so the register word is always the
/// top one). While a word is held, the set has it empty (its summary bit clear).
struct TopWord<'a> {
    set: &'a mut FreshSet,
    /// The held word's position (`usize::MAX`: none).
    w: usize,
    bits: u64,
}

impl<'a> TopWord<'a> {
    fn new(set: &'a mut FreshSet) -> TopWord<'a> {
        TopWord {
            set,
            w: usize::MAX,
            bits: 0,
        }
    }
    /// Removes and returns the largest member.
    #[inline(always)]
    fn pop(&mut self) -> Option<u32> {
        if self.bits == 0 && !self.load() {
            return None;
        }
        let b = 63 - self.bits.leading_zeros();
        self.bits &= !(1u64 << b);
        Some((self.w * 64) as u32 + b)
    }
    /// Takes the set's top word into the register; false when the set is empty.
    #[inline(always)]
    fn load(&mut self) -> bool {
        let Some((s, h)) = self.set.top() else {
            return false;
        };
        let sw = 63 - s.leading_zeros();
        let w = h * 64 + sw as usize;
        self.bits = self.set.words[w];
        self.set.words[w] = 0;
        self.set.summary[h] = s & !(1u64 << sw);
        self.w = w;
        true
    }
    /// The largest member (a walk asks right after a pop, with no member above the index it
    /// popped: the held word when it has members, else the set's top).
    #[inline(always)]
    fn last(&mut self) -> Option<u32> {
        if self.bits != 0 {
            return Some((self.w * 64) as u32 + 63 - self.bits.leading_zeros());
        }
        self.set.last()
    }
    /// Gives the held word back to the set.
    #[inline]
    fn flush(&mut self) {
        if self.bits != 0 {
            let w = self.w;
            self.set.words[w] = self.bits;
            self.set.summary[w / 64] |= 1 << (w % 64);
            self.set.hi = self.set.hi.max(w / 64);
            self.bits = 0;
        }
        self.w = usize::MAX;
    }
}

impl MarkFresh for TopWord<'_> {
    #[inline(always)]
    fn mark(&mut self, i: u32) {
        let w = i as usize / 64;
        if w == self.w {
            self.bits |= 1u64 << (i % 64);
        } else {
            self.set.set(i);
            // (`usize::MAX` when no word is held: never below.)
            if w > self.w {
                self.flush();
            }
        }
    }
}

/// Join blocks and divergent cycle exits of one divergent branch (insertion order, no duplicates).
#[derive(Clone, Debug, Default)]
pub(crate) struct Descriptor {
    pub joins: Vec<Block>,
    pub cycle_exits: Vec<Block>,
}

/// `ModifiedPo::kind`: the block lies in an irreducible cycle.
const IN_IRR: u8 = 1;
/// `ModifiedPo::kind`: the block heads a reducible cycle.
const HEADS: u8 = 2;

/// Scratch state for computing join points, reused across branches and functions. Labels and
/// stamps are indexed by modified post-order index, and a label is the index of its block.
#[derive(Default)]
pub(crate) struct JoinFinder {
    labels: Vec<u32>,
    touched: Vec<u32>,
    fresh: FreshSet,
    /// Stamps that deduplicate `joins` and `cycle_exits` per branch.
    in_joins: Vec<u32>,
    in_exits: Vec<u32>,
    stamp: u32,
    /// The cycles around the branch, outermost first (scratch).
    chain: Vec<u32>,
    /// Per level of `chain` (scratch of `irreducible_exits`): header label of an irreducible
    /// cycle, next irreducible level, end of the run of equal header labels, target found.
    hl: Vec<u32>,
    nxt: Vec<u32>,
    run_end: Vec<u32>,
    found: Vec<bool>,
    edges: Vec<u32>,
    /// Scratch of `irreducible_exits`: edges keyed by (level from the innermost, edge id).
    keyed: Vec<u64>,
    /// The sorted indices whose labels the exit check of the branch at hand reads, when there
    /// are at most `READ_SET_MAX` (scratch of `compute`).
    read_idx: Vec<u32>,
    /// The cycles the branch's immediate exits make exit-divergent (scratch of `compute`).
    imm_targets: Vec<u32>,
    /// The answer for the last branch (buffers reused).
    pub desc: Descriptor,
    /// Joins at indices in `ignore.0..ignore.1` are not recorded (the caller has no use for
    /// them: the interval of a top-level cycle already assumed divergent around the branch).
    pub ignore: (u32, u32),
    /// Precise mode: a branch at the header of a reducible cycle passes the label that comes back
    /// to it to the cycle's exits, as any other header does (LLVM skips the branch block, and so
    /// misses the exits that threads going round once more reach an iteration later:
    /// docs/llvm-differences.md entry 11).
    pub header_exits: bool,
    /// Per outermost irreducible cycle, filled on first need per function: the range of
    /// `exit_idx` holding the sorted indices of its exits, whose labels (with those of its own
    /// blocks) are all the exit check of a branch inside it reads (`NONE`: not yet).
    exit_range: Vec<(u32, u32)>,
    exit_idx: Vec<u32>,
    /// Blocks processed by the propagations so far (a work measure; only grows).
    pub work: u64,
    /// Edges looked at by the exit check so far (a work measure for the tests; one addition
    /// per cycle level, so it costs nothing measurable when unused).
    pub exit_edges: u64,
    /// The function's jumps over single-label regions, built once its propagations have done
    /// more than `JUMP_WORK` steps beyond a pass over its blocks (`crate::jumps`).
    jumps: Jumps,
    /// `work` when the function started.
    work_base: u64,
    /// The assumed-divergent top-level cycle around the branch at hand whose exits'
    /// configurations are remembered (`exit_configs`), set by the caller.
    pub configs_of: Option<u32>,
    /// The walk may stop inside `configs_of` once the configuration it will pause at below it
    /// is known and was walked on from before (`propagate`'s `final_exits`), set by the caller:
    /// only where the steps saved decide nothing (the caller's budgets measured in steps
    /// reorder its printed lists).
    pub final_ok: bool,
    /// Every cycle around the branch at hand that may get a divergent exit from it has one,
    /// as the caller knows (its answer is kept along the chain): `compute` then does not list
    /// the chain, a walk up a nest as deep as a seventh of the blocks for every branch (issue
    /// 13, `dag-local`). Set by the caller; false asks `compute` to find out.
    pub chain_known: bool,
    configs: exit_configs::ExitConfigs,
    /// Scratch: the indices of `configs_of`'s exits.
    config_exits: Vec<u32>,
    /// The indices of `configs_of`'s exits when the walk at hand may stop once they all carry
    /// their own labels (`propagate`'s `final_exits`), else empty.
    final_exits: Vec<u32>,
    /// Walks remembered from their cuts (`cut_memo`).
    memo: cut_memo::CutMemo,
    /// The exits of nested cycles around the branch sent once (`chain_exits`).
    nest_exits: chain_exits::ChainExits,
}

/// Propagation steps in one function after which its jump table pays: a fixed amount plus
/// several passes over its blocks. The table costs about a thousand instructions a block; on the
/// benchmark modules' random CFGs, where regions rarely have one exit, a table built after one
/// pass cost 5% of the analyses and saved nothing, and after 8 passes it was built for the
/// 32,000-block `dag` function (12 steps a block, linear) at 6% of its whole run.
const JUMP_WORK: u64 = 4096;
/// The most header and exit indices `compute` collects for the exit check's read set; past it,
/// the interval of the outermost irreducible cycle stands for them (a deep nest would otherwise
/// cost every branch its depth times its exits).
const READ_SET_MAX: usize = 64;
const JUMP_WORK_PER_BLOCK: u64 = 24;
/// Propagation steps per block after which a function's walks are remembered at their cuts
/// (`cut_memo`): keys and snapshots cost every walk something, which pays only where walks
/// cross the same big cycles again and again.
const MEMO_WORK_PER_BLOCK: u64 = 24;
/// Propagation steps per block after which LLVM 19's walks take their plain steps in a loop of
/// their own (`plain_steps19`): entering and leaving it costs about a hundred instructions,
/// which the benchmark modules' small functions, whose walks leave it after a dozen steps or
/// so, did not win back (issue 13, session 26).
const PLAIN_WORK_PER_BLOCK: u64 = 4;

impl JoinFinder {
    /// Makes room for a function of `n` blocks. Labels are `NONE` between branches (reset through
    /// `touched`) and stamps only grow, so buffers of an earlier function need no clearing.
    pub fn reset(&mut self, n: usize) {
        if self.labels.len() < n {
            self.labels.resize(n, NONE);
            self.in_joins.resize(n, NONE);
            self.in_exits.resize(n, NONE);
        }
        self.fresh.grow(n);
        self.exit_range.clear();
        self.exit_idx.clear();
        self.clear_labels();
        self.jumps.clear();
        self.work_base = self.work;
        self.configs.clear();
        self.memo.reset(n);
        self.nest_exits.reset();
    }

    /// The cut memo of the function at hand (tests).
    #[cfg(test)]
    pub(crate) fn memo(&self) -> &cut_memo::CutMemo {
        &self.memo
    }

    /// Have this function's propagations walked more than `per_block` passes over its `n`
    /// blocks, plus `JUMP_WORK` steps? Work-saving tests that cost every branch something wait
    /// for this, so that small functions do not pay for them.
    pub fn busy(&self, n: usize, per_block: u64) -> bool {
        self.work - self.work_base > per_block * n as u64 + JUMP_WORK
    }

    /// LLVM's `computeJoin`: push label `l` into index `x`; true when this creates a new join.
    #[inline(always)]
    fn push(&mut self, x: u32, l: u32) -> bool {
        push_label(&mut self.labels, &mut self.fresh, &mut self.touched, x, l)
    }

    #[inline(always)]
    fn add_join(&mut self, po: &ModifiedPo, x: u32) {
        add_join_to(
            &mut self.in_joins,
            &mut self.desc,
            &po.order,
            self.stamp,
            self.ignore,
            x,
        );
    }
    #[inline(always)]
    fn add_exit(&mut self, po: &ModifiedPo, x: u32) {
        add_exit_to(&mut self.in_exits, &mut self.desc, &po.order, self.stamp, x);
    }

    /// What [`Self::compute`] and [`Self::compute_lean`] do first: forget the last branch's
    /// answer and labels, and give the branch's index and a fresh stamp, or `None` when it has
    /// nothing to propagate. `settled_below`: every block at a smaller index is settled, a join
    /// there changes nothing, and the caller knows that no divergent exit can add anything (else
    /// it passes 0); when labels cannot reach beyond that (`hi` of the largest successor index),
    /// the branch has no effect.
    #[inline(always)]
    fn begin<G: Graph>(
        &mut self,
        g: &G,
        po: &ModifiedPo,
        t: Block,
        settled_below: u32,
        hi: impl FnOnce(u32) -> u32,
    ) -> Option<u32> {
        self.desc.joins.clear();
        self.desc.cycle_exits.clear();
        self.clear_labels();
        if g.succs(t).len() <= 1 {
            return None;
        }
        let t_idx = po.index[t.index()];
        if settled_below > 0 {
            let m = po.succs(t_idx).iter().copied().max().unwrap_or(0);
            if hi(m) < settled_below {
                return None;
            }
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == NONE {
            self.in_joins.fill(NONE);
            self.in_exits.fill(NONE);
            self.stamp = 0;
        }
        Some(t_idx)
    }

    /// The joins and divergent cycle exits of the divergent terminator of reachable block `t`,
    /// left in `self.desc`.
    ///
    /// In LLVM 22's flow, once the function's walks work hard, a walk may be replayed from an
    /// earlier branch's (`cut_memo`): the answer then leaves out what that branch's answer
    /// already held and what is the same for every branch (in llvm mode, joins outside `t`'s
    /// top-level cycle, and all when that cycle is `ignore`d), and exits to cycles already known
    /// to have a divergent exit; `labelled` may answer false for blocks the walk labelled. So a
    /// caller analyses every answer in full, with `exit_known` only growing (as the analysis
    /// does); tests that ask the same branch twice or guess `exit_known` switch it off
    /// (`NO_CUT_MEMO`).
    #[allow(clippy::too_many_arguments)]
    pub fn compute<G: Graph>(
        &mut self,
        g: &G,
        s: &Structure,
        po: &ModifiedPo,
        t: Block,
        llvm19: bool,
        exit_known: &[bool],
        settled_below: u32,
        settled_all: u32,
    ) {
        if !llvm19 && self.lean_case(s, po, t) {
            self.compute_lean(g, s, po, t, settled_below);
            return;
        }
        // (LLVM 19's propagation also walks through reducible cycles that do not contain the
        // branch, upwards in the order: `reach_hi_19` bounds how far its labels reach.)
        let Some(t_idx) = self.begin(g, po, t, settled_below, |m| {
            if llvm19 {
                po.reach_hi_19(s, t, m)
            } else {
                po.reach_hi[m as usize]
            }
        }) else {
            return;
        };
        let t_cycle = s.inner(t);
        // The largest irreducible ancestor of t's cycle with no reducible cycle in between; its
        // blocks are the index interval `irr_lo..irr_hi` (a cycle is contiguous, header first).
        let (irr_lo, irr_hi) = if t_cycle == NONE || s.is_reducible(t_cycle) {
            (0, 0)
        } else {
            let mut c = t_cycle;
            loop {
                let p = s.parent_raw(c);
                if p == NONE || s.is_reducible(p) {
                    break;
                }
                c = p;
            }
            let lo = po.index[s.header(c).index()];
            (lo, lo + s.blocks(c).len() as u32)
        };
        self.imm_targets.clear();
        for &x in g.succs(t) {
            let xi = po.index[x.index()];
            if t_cycle != NONE && !s.contains(t_cycle, x) {
                // An immediate exit: labels may never collide there, so record it now. Its
                // target (the cycle it makes exit-divergent) is chosen by depths, as in
                // `analysis::State::propagate_cycle_exit_divergence`.
                self.add_exit(po, xi);
                let d = s.cycle_of(x).map_or(0, |c| s.depth(c));
                self.imm_targets.push(if s.depth(t_cycle) > d {
                    s.ancestor_at_depth(t_cycle, d + 1)
                } else {
                    t_cycle
                });
            }
            if self.push(xi, xi) {
                self.add_join(po, xi);
            }
        }
        self.chain.clear();
        let mut all_known = true;
        // Without an irreducible cycle around t there is no exit check (and the walk up the chain
        // would make a deep reducible nest cost blocks × depth).
        // When the branch's immediate exits (recorded first) give every cycle that may still
        // lack a divergent exit one, later exits change nothing: the exit check is not needed,
        // and joins among the settled blocks (`settled_all`) cannot matter either. A ladder of
        // cycles whose exits drain into settled blocks otherwise made the first branch of every
        // cycle walk every deeper level (issue 13).
        #[cfg(test)]
        let no_cover = crate::analysis::knobs::NO_EXIT_COVER.with(|c| c.get());
        #[cfg(not(test))]
        let no_cover = false;
        let mut covered = !no_cover && !self.imm_targets.is_empty();
        if self.chain_known {
            // (`all_known`, and `covered` is not read.)
        } else if t_cycle != NONE && po.outer_irr[t_cycle as usize] != NONE {
            let mut c = t_cycle;
            while c != NONE {
                let known = exit_known[c as usize] || !s.may_be_exit_target(c, t_cycle);
                all_known &= known;
                covered &= known || self.imm_targets.contains(&c);
                self.chain.push(c);
                c = s.parent_raw(c);
            }
        } else {
            covered = false;
        }
        let settled_below = if settled_below == 0 && !all_known && covered {
            all_known = true;
            settled_all
        } else {
            settled_below
        };
        // The exit check reads labels only in the outermost irreducible cycle around t and at
        // its exits, and runs only when some cycle around t may still get a divergent exit:
        // elsewhere labels only matter through joins.
        let o = if all_known || t_cycle == NONE {
            NONE
        } else {
            po.outer_irr[t_cycle as usize]
        };
        let (o_lo, o_end, (x, y)) = if o == NONE {
            (0, 0, (0, 0))
        } else {
            if self.exit_range.len() <= o as usize {
                self.exit_range.resize(s.num_cycles(), (NONE, NONE));
            }
            if self.exit_range[o as usize].0 == NONE {
                let start = self.exit_idx.len();
                self.exit_idx
                    .extend(s.exits(o).iter().map(|x| po.index[x.index()]));
                self.exit_idx[start..].sort_unstable();
                self.exit_range[o as usize] = (start as u32, self.exit_idx.len() as u32);
            }
            let a = po.index[s.header(o).index()];
            (a, a + s.blocks(o).len() as u32, self.exit_range[o as usize])
        };
        let exit_idx = std::mem::take(&mut self.exit_idx);
        let ex = &exit_idx[x as usize..y as usize];
        // What the exit check reads: the header labels of the irreducible cycles around t and
        // the labels at the exits of every cycle around t, from t's innermost cycle out to `o`
        // (`irreducible_exits`). Outside the interval of `o` these are exits of `o`; inside it,
        // when they are few, `reads` answers from their sorted indices, collected on the first
        // question about the interval (most branches never ask), else the whole interval counts
        // as read. A ladder of cycles inside one irreducible cycle that has no divergent exit
        // yet (LLVM 19's view of a loop whose ladder levels have unreachable predecessors) made
        // every branch walk every deeper level: the shortcuts refused every region inside `o`.
        #[cfg(test)]
        let few_ok = !crate::analysis::knobs::NO_FEW_READS.with(|c| c.get());
        #[cfg(not(test))]
        let few_ok = true;
        // (Only a branch with an exit check needs them: the others leave the buffers in place.)
        let (chain, inside) = if o == NONE {
            (Vec::new(), Vec::new())
        } else {
            (
                std::mem::take(&mut self.chain),
                std::mem::take(&mut self.read_idx),
            )
        };
        let read_set = ReadSet {
            o,
            o_lo,
            o_end,
            ex,
            chain: &chain,
            s,
            po,
            few_ok,
            inside: std::cell::RefCell::new(inside),
            state: std::cell::Cell::new(0),
        };
        let reads = |lo: u32, hi: u32| read_set.reads(lo, hi);
        #[cfg(test)]
        let no_skip = crate::analysis::knobs::NO_DISJOINT_SKIP.with(|c| c.get())
            || llvm19 && crate::analysis::knobs::PLAIN_19.with(|c| c.get());
        #[cfg(not(test))]
        let no_skip = false;
        // The jump table pays once the function's propagations walk much more than its blocks.
        let n = po.order.len() as u64;
        #[cfg(test)]
        let (eager, no_jumps) = (
            crate::analysis::knobs::EAGER_JUMPS.with(|c| c.get()),
            no_skip || crate::analysis::knobs::NO_JUMPS.with(|c| c.get()),
        );
        #[cfg(not(test))]
        let (eager, no_jumps) = (false, false);
        // A function is analysed in one setting; tests ask one function in both.
        if self.jumps.llvm19 != llvm19 {
            self.jumps.clear();
        }
        if self.jumps.target.is_empty()
            && !no_jumps
            && (eager || self.work - self.work_base > JUMP_WORK_PER_BLOCK * n + JUMP_WORK)
        {
            self.jumps.build(s, po, llvm19);
        }
        if llvm19 {
            let (nj, nx) = (self.desc.joins.len(), self.desc.cycle_exits.len());
            // Without a jump table the walk takes no jump and needs no watch: a copy of the
            // loop without either (the watch's test costs every step).
            let complete = if self.jumps.target.is_empty() {
                self.propagate_llvm19::<false>(s, po, t, t_idx, settled_below, no_skip, &reads)
            } else {
                self.propagate_llvm19::<true>(s, po, t, t_idx, settled_below, no_skip, &reads)
            };
            if !complete {
                // A label came back above a watched jump: forget the walk and walk again,
                // without jumps, from the branch's successors.
                #[cfg(test)]
                crate::analysis::knobs::REWALKED.with(|c| c.set(c.get() + 1));
                for b in self.desc.joins.drain(nj..) {
                    self.in_joins[po.index[b.index()] as usize] = NONE;
                }
                for b in self.desc.cycle_exits.drain(nx..) {
                    self.in_exits[po.index[b.index()] as usize] = NONE;
                }
                self.clear_labels();
                self.fresh.clear();
                for &x in g.succs(t) {
                    let xi = po.index[x.index()];
                    self.push(xi, xi);
                }
                self.propagate_llvm19::<false>(s, po, t, t_idx, settled_below, no_skip, &reads);
            }
        } else {
            let exit_range = (o_lo, o_end);
            let irr = (irr_lo, irr_hi);
            // Below the remembered cycle the walk pauses once: a configuration of its exits
            // walked on from before has nothing left to add (`exit_configs`). Only without an
            // exit check (`all_known`): that reads labels the rest of the walk may change.
            let (a, mut pause) = match self.configs_of {
                Some(a) if all_known && s.exits(a).len() <= exit_configs::MAX_CONFIG_EXITS => {
                    (a, po.index[s.header(a).index()])
                }
                _ => (NONE, 0),
            };
            // Remembered cuts (`cut_memo`) once the function's propagations work hard.
            #[cfg(test)]
            let (memo_ok, memo_eager) = (
                !crate::analysis::knobs::NO_CUT_MEMO.with(|c| c.get()),
                crate::analysis::knobs::EAGER_CUT_MEMO.with(|c| c.get()),
            );
            #[cfg(not(test))]
            let (memo_ok, memo_eager) = (true, false);
            let mut memo = memo_ok
                && t_cycle != NONE
                && s.depth(t_cycle) <= cut_memo::MAX_LEVELS
                && (memo_eager || self.work - self.work_base > MEMO_WORK_PER_BLOCK * n + JUMP_WORK)
                && (memo_eager || self.memo.worth_it(s, t_cycle));
            // Once every exit of `a` carries its own label, the configuration the walk will
            // pause at is settled (a join keeps its own label); when it was walked on from
            // before, the walk may stop there (`propagate`).
            #[cfg(test)]
            let final_ok = !crate::analysis::knobs::NO_FINAL_CONFIG.with(|c| c.get());
            #[cfg(not(test))]
            let final_ok = true;
            let mut final_exits = std::mem::take(&mut self.final_exits);
            final_exits.clear();
            if final_ok && self.final_ok && pause != 0 && !memo && self.configs.all_own_seen(a) {
                final_exits.extend(s.exits(a).iter().map(|x| po.index[x.index()]));
            }
            let final_exits_ref = &final_exits;
            // (The walk with the memo is a second copy of the loop: its tests would cost every
            // step of every other walk.)
            // The loop of plain steps (`plain22`) once the function's walks work hard
            // (`PLAIN_WORK_PER_BLOCK`, as for LLVM 19's walk), in copies of their own (its test
            // on every step cost the other walks 5% of `propagate` on `div-38mb.ll`); not for
            // the remembered walks, whose every pop the memo watches.
            #[cfg(test)]
            let (plain_off, plain_eager) = (
                crate::analysis::knobs::NO_PLAIN_22.with(|c| c.get()),
                crate::analysis::knobs::EAGER_PLAIN_22.with(|c| c.get()),
            );
            #[cfg(not(test))]
            let (plain_off, plain_eager) = (false, false);
            let plain = !plain_off && (plain_eager || self.busy(n as usize, PLAIN_WORK_PER_BLOCK));
            macro_rules! walk {
                ($memo:literal, $final:literal, $plain:literal) => {
                    self.propagate::<false, $memo, $final, $plain>(
                        s,
                        po,
                        t,
                        t_idx,
                        settled_below,
                        no_skip,
                        exit_range,
                        irr,
                        &reads,
                        pause,
                        exit_known,
                        final_exits_ref,
                    )
                };
            }
            // (The walk that may stop at a final configuration is a third copy: its test costs
            // every join of every other walk 2% of the instructions on `dag-local`.)
            while if memo {
                walk!(true, false, false)
            } else if final_exits.is_empty() {
                if plain {
                    walk!(false, false, true)
                } else {
                    walk!(false, false, false)
                }
            } else if plain {
                walk!(false, true, true)
            } else {
                walk!(false, true, false)
            } {
                memo = false;
                pause = 0;
                if !self.config_first_time(s, po, a) {
                    #[cfg(test)]
                    crate::analysis::knobs::CONFIG_STOPS.with(|c| c.set(c.get() + 1));
                    break;
                }
            }
            self.final_exits = final_exits;
        }
        let inside = read_set.inside.into_inner();
        self.exit_idx = exit_idx;
        if o != NONE {
            self.read_idx = inside;
            self.chain = chain;
        }
        // Irreducible cycles around t: an exit whose label differs from the header's is divergent.
        // An exit only matters through the cycle around t it makes exit-divergent, which depends on
        // nothing but the depth of the exit's own cycle (`propagateCycleExitDivergence`): that cycle
        // is the *target* of the exit, and one divergent exit per target is enough. Nothing to do
        // when every cycle around t already has a divergent exit.
        if !all_known {
            self.chain.push(NONE);
            self.chain.reverse();
            self.irreducible_exits(s, po, exit_known);
        }
        // The labels stay until the next branch: `labelled` answers from them.
        self.fresh.clear();
    }

    /// Does the branch of reachable block `t` take [`Self::compute_lean`] (asked in LLVM 22's
    /// flow only)? When no irreducible cycle is around it (so no exit check: the exits
    /// found are the immediate ones and those the walk records, and no label is read but by
    /// joins), it heads no reducible cycle whose exits it must feed (precise mode), the walk is
    /// not remembered below an assumed-divergent cycle (`exit_configs`), and the function has no
    /// jump table and is not due one. (Not LLVM 19's walk: inlined into `compute`, a second call
    /// site cost it more than the lean setup saved.)
    #[inline]
    fn lean_case(&self, s: &Structure, po: &ModifiedPo, t: Block) -> bool {
        #[cfg(test)]
        let (lean_ok, eager) = (
            !crate::analysis::knobs::NO_LEAN_WALK.with(|c| c.get()),
            crate::analysis::knobs::EAGER_JUMPS.with(|c| c.get()),
        );
        #[cfg(not(test))]
        let (lean_ok, eager) = (true, false);
        let n = po.order.len() as u64;
        let t_cycle = s.inner(t);
        lean_ok
            && (t_cycle == NONE || po.outer_irr[t_cycle as usize] == NONE)
            && !(self.header_exits && po.header_cycle[po.index[t.index()] as usize] != NONE)
            && self.configs_of.is_none()
            && self.jumps.target.is_empty()
            && !eager
            && self.work - self.work_base <= JUMP_WORK_PER_BLOCK * n + JUMP_WORK
    }

    /// [`Self::compute`] for a branch of [`Self::lean_case`]: the same answer without the exit check's setup (the chain of cycles, the read set, the remembered
    /// configurations), which the general path builds and then leaves unused for such a
    /// branch; the walk is `propagate`'s `LEAN` copy. On `div-38mb.ll` 86% of the branches
    /// whose joins are computed have no irreducible cycle around them, and 42% of all walk two
    /// or three blocks: for those the setup cost more than the walk.
    #[allow(clippy::too_many_arguments)]
    fn compute_lean<G: Graph>(
        &mut self,
        g: &G,
        s: &Structure,
        po: &ModifiedPo,
        t: Block,
        settled_below: u32,
    ) {
        let Some(t_idx) = self.begin(g, po, t, settled_below, |m| po.reach_hi[m as usize]) else {
            return;
        };
        #[cfg(test)]
        crate::analysis::knobs::LEAN_WALKS.with(|c| c.set(c.get() + 1));
        let t_cycle = s.inner(t);
        for &x in g.succs(t) {
            let xi = po.index[x.index()];
            // An immediate exit (see `compute`): recorded now.
            if t_cycle != NONE && !s.contains(t_cycle, x) {
                self.add_exit(po, xi);
            }
            if self.push(xi, xi) {
                self.add_join(po, xi);
            }
        }
        #[cfg(test)]
        let no_skip = crate::analysis::knobs::NO_DISJOINT_SKIP.with(|c| c.get());
        #[cfg(not(test))]
        let no_skip = false;
        self.propagate::<true, false, false, false>(
            s,
            po,
            t,
            t_idx,
            settled_below,
            no_skip,
            (0, 0),
            (0, 0),
            &|_, _| false,
            0,
            &[],
            &[],
        );
        self.fresh.clear();
    }

    /// Records the configuration of cycle `a`'s exits under the labels of the walk paused below
    /// it (`exit_configs`); false when it was recorded before.
    #[cold]
    #[inline(never)]
    fn config_first_time(&mut self, s: &Structure, po: &ModifiedPo, a: u32) -> bool {
        let mut exits = std::mem::take(&mut self.config_exits);
        exits.clear();
        exits.extend(s.exits(a).iter().map(|x| po.index[x.index()]));
        let first = self.configs.first_time(a, &self.labels, &exits);
        self.config_exits = exits;
        first
    }

    /// Whether the block at index `i` received a label from the last branch's propagation: it
    /// is then reachable from the branch block (labels flow along edges, or from a reducible
    /// header to its cycle's exits). Blocks in jumped regions and those the propagation never
    /// got to are not labelled, so `false` decides nothing.
    #[inline]
    pub fn labelled(&self, i: u32) -> bool {
        self.labels.get(i as usize).is_some_and(|&l| l != NONE)
    }

    /// Forgets the labels of the last branch.
    fn clear_labels(&mut self) {
        for &b in &self.touched {
            self.labels[b as usize] = NONE;
        }
        self.touched.clear();
    }

    /// The exit check over the irreducible cycles around the branch, `chain[k]` being the one at
    /// depth k. An edge b→x out of the cycle slice leaves `chain[k]` exactly for k in
    /// `(m, a]`, where m is the depth of the smallest cycle holding both ends and a the depth of
    /// the deepest chain cycle holding b; it is a divergent exit when some irreducible `chain[k]`
    /// there has a header label other than x's. Per level, run-length tables over the header
    /// labels answer that in O(1), and the range-minimum over edges reports only leaving edges,
    /// so the cost is the number of exit edges, not cycles × exits.
    fn irreducible_exits(&mut self, s: &Structure, po: &ModifiedPo, exit_known: &[bool]) {
        #[cfg(test)]
        crate::analysis::knobs::EXIT_CHECKS.with(|c| c.set(c.get() + 1));
        let t_depth = self.chain.len() - 1;
        let top = t_depth + 1;
        self.hl.clear();
        self.hl.resize(top + 1, NONE);
        self.nxt.clear();
        self.nxt.resize(top + 1, top as u32);
        self.run_end.clear();
        self.run_end.resize(top + 1, 0);
        self.found.clear();
        self.found.resize(top + 1, false);
        let mut unknown = 0usize;
        // The deepest level whose cycle has no divergent exit yet: every edge whose target
        // level is deeper is skipped below.
        let mut g_max = 0;
        // The shallowest such level (`top`: none).
        let mut g_min = top;
        for k in (1..=t_depth).rev() {
            let c = self.chain[k];
            if !exit_known[c as usize] && s.may_be_exit_target(c, self.chain[t_depth]) {
                unknown += 1;
                g_min = k;
            }
            if g_max == 0 && !exit_known[c as usize] {
                g_max = k;
            }
            if s.is_reducible(c) {
                self.nxt[k] = self.nxt[k + 1];
                continue;
            }
            self.nxt[k] = k as u32;
            self.hl[k] = self.labels[po.index[s.header(c).index()] as usize];
            let n = self.nxt[k + 1] as usize;
            self.run_end[k] = if n > t_depth {
                t_depth as u32
            } else if self.hl[n] == self.hl[k] {
                self.run_end[n]
            } else {
                n as u32 - 1
            };
        }
        let kmin = self.nxt[1] as usize;
        if kmin > t_depth {
            return;
        }
        let mut edges = std::mem::take(&mut self.edges);
        // When only shallow cycles of the chain still lack a divergent exit (the last unknown
        // target of a deep nest, level `g_max`), an edge matters only if its ends share no cycle
        // of depth `g_max` or more: an edge whose smallest common cycle is deeper goes to a block
        // at least that deep, so its target level is deeper than `g_max` and already known. The
        // levels from `g_max` in then need one range query over `chain[g_max]` instead of two
        // per level (a deep nest made every branch pay for every level), and its edges are
        // visited in the order of the level scan below (innermost level first, then edge id),
        // so the exits are found in the same order.
        #[cfg(test)]
        let g_max = if crate::analysis::knobs::NO_MERGED_EXIT_SCAN.with(|c| c.get()) {
            t_depth
        } else {
            g_max
        };
        let merged = if g_max < t_depth {
            g_max.max(kmin)
        } else {
            top
        };
        if merged < top {
            let (lo, hi) = s.range(self.chain[merged]);
            edges.clear();
            s.edges_leaving(lo, hi, g_max as u32, &mut edges);
            #[cfg(test)]
            crate::analysis::knobs::EXIT_QUERIES.with(|c| c.set(c.get() + 1));
            #[cfg(test)]
            crate::analysis::knobs::MERGED_RUNS.with(|c| c.set(c.get() + 1));
            self.exit_edges += edges.len() as u64;
            let mut keyed = std::mem::take(&mut self.keyed);
            keyed.clear();
            for &e in &edges {
                // The level of the edge's source: the deepest chain cycle holding it (the
                // chain's ranges are nested).
                let p = s.edge_src_pos(e);
                let (mut a, mut b) = (merged, t_depth + 1);
                while b - a > 1 {
                    let k = (a + b) / 2;
                    let (l, h) = s.range(self.chain[k]);
                    if l <= p && p < h {
                        a = k;
                    } else {
                        b = k;
                    }
                }
                keyed.push(((t_depth - a) as u64) << 32 | e as u64);
            }
            keyed.sort_unstable();
            for &ke in &keyed {
                let (k, e) = (t_depth - (ke >> 32) as usize, ke as u32);
                if self.check_exit_edge(s, po, exit_known, k, e) {
                    #[cfg(test)]
                    crate::analysis::knobs::MERGED_FOUND.with(|c| c.set(c.get() + 1));
                    unknown -= 1;
                    if unknown == 0 {
                        self.keyed = keyed;
                        self.edges = edges;
                        return;
                    }
                }
            }
            self.keyed = keyed;
        }
        // The levels above the shallowest one that may still get a divergent exit, `g_min`, up
        // to a level `k_lo`, can be left out. An edge leaving the chain at a level `k < g_min`
        // has its ends' smallest common cycle `chain[m]`, `m < k`, and its target `x` in
        // `chain[m]` outside `chain[m + 1]`. If `x`'s innermost cycle is `chain[m]`, the edge's
        // target level (one more than that cycle's depth) is at most `k`, below `g_min`: known.
        // Otherwise it is a cycle outside `chain[m + 1]`, and the edge matters only if that
        // cycle is `g_min - 1` deep or more. The cycles outside `chain[M + 1]` are those
        // outside `chain[m + 1]` for every `m <= M`, so with `M` the smallest level for which
        // such a deep cycle lies outside `chain[M + 1]` (a binary search: the property only
        // grows with `M`), no edge of a level up to `M` matters: `k_lo = M + 1` (`g_min` when
        // there is none). In a deep nest whose innermost cycles never get a divergent exit,
        // every branch in them otherwise asked about every level (issue 13, `dag-local`: 12%
        // of LLVM 22's setting at 64,000 blocks).
        #[cfg(test)]
        let shallow_ok = !crate::analysis::knobs::NO_SHALLOW_LEVEL_SKIP.with(|c| c.get());
        #[cfg(not(test))]
        let shallow_ok = true;
        let mut k_lo = kmin;
        if shallow_ok && g_min >= 2 && g_min <= t_depth && g_min > kmin {
            let deep = |m: usize| s.max_depth_outside(self.chain[m + 1]) as usize + 1 >= g_min;
            let m = if !deep(g_min - 2) {
                g_min - 1
            } else {
                // The smallest `m` in `0..=g_min - 2` with `deep(m)`.
                let (mut lo, mut hi) = (0, g_min - 2);
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    if deep(mid) {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                lo
            };
            if m + 1 > kmin {
                #[cfg(test)]
                crate::analysis::knobs::SHALLOW_LEVEL_SKIPS.with(|c| c.set(c.get() + 1));
                k_lo = m + 1;
            }
        }
        // Levels from the innermost out: the blocks of chain[k] not in chain[k+1] have a = k.
        'levels: for k in (k_lo..=t_depth.min(merged - 1)).rev() {
            let (lo, hi) = s.range(self.chain[k]);
            edges.clear();
            #[cfg(test)]
            crate::analysis::knobs::EXIT_QUERIES
                .with(|c| c.set(c.get() + if k == t_depth { 1 } else { 2 }));
            if k == t_depth {
                s.edges_leaving(lo, hi, k as u32, &mut edges);
            } else {
                let (ilo, ihi) = s.range(self.chain[k + 1]);
                s.edges_leaving(lo, ilo, k as u32, &mut edges);
                s.edges_leaving(ihi, hi, k as u32, &mut edges);
            }
            edges.sort_unstable();
            self.exit_edges += edges.len() as u64;
            for &e in &edges {
                if self.check_exit_edge(s, po, exit_known, k, e) {
                    unknown -= 1;
                    if unknown == 0 {
                        break 'levels;
                    }
                }
            }
        }
        self.edges = edges;
    }

    /// The exit check of edge `e`, leaving the chain at level `k` (see `irreducible_exits`):
    /// true when it is the first divergent exit found for its target level (then recorded).
    #[inline]
    fn check_exit_edge(
        &mut self,
        s: &Structure,
        po: &ModifiedPo,
        exit_known: &[bool],
        k: usize,
        e: u32,
    ) -> bool {
        let t_depth = self.chain.len() - 1;
        let x = s.edge_dst(e);
        let g = (s.cycles.cycle_depth(x) as usize + 1).min(t_depth);
        if self.found[g] || exit_known[self.chain[g] as usize] {
            return false;
        }
        debug_assert!(s.may_be_exit_target(self.chain[g], self.chain[t_depth]));
        let lo = s.edge_m(e) as usize + 1;
        let k0 = self.nxt[lo] as usize;
        let xi = po.index[x.index()];
        if k0 <= k && (self.hl[k0] != self.labels[xi as usize] || (self.run_end[k0] as usize) < k) {
            self.found[g] = true;
            self.add_exit(po, xi);
            return true;
        }
        false
    }

    /// LLVM 22's propagation (see the module doc): `exit_range` is the interval of the
    /// outermost irreducible cycle whose labels the exit check reads, `irr` that of the largest
    /// irreducible ancestor of the branch's cycle with no reducible cycle in between.
    ///
    /// With `LEAN` (from `compute_lean`: the branch has no exit check and no header exits to
    /// pass labels to, the function no jump table, the walk no pause), the tests for those are
    /// constants and drop out of the loop. (Out of line: with two copies inlined into
    /// `compute`, the compiler stopped inlining the fresh set's pop into them.) `MEMO`: the walk
    /// is remembered at its cuts (`cut_memo`); `FINAL`: it may stop at a final configuration of
    /// the remembered cycle's exits (`final_exits`, below).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn propagate<const LEAN: bool, const MEMO: bool, const FINAL: bool, const PLAIN: bool>(
        &mut self,
        s: &Structure,
        po: &ModifiedPo,
        t: Block,
        t_idx: u32,
        settled_below: u32,
        no_skip: bool,
        (o_lo, o_end): (u32, u32),
        (irr_lo, irr_hi): (u32, u32),
        reads: &dyn Fn(u32, u32) -> bool,
        pause_below: u32,
        exit_known: &[bool],
        final_exits: &[u32],
    ) -> bool {
        let t_cycle = s.inner(t);
        let header_exits = !LEAN && self.header_exits;
        let memo_on = !LEAN && MEMO;
        let plain_ok = PLAIN && !LEAN && !memo_on;
        let pause_below = if LEAN { 0 } else { pause_below };
        let reads = |lo: u32, hi: u32| !LEAN && reads(lo, hi);
        // As in `propagate_llvm19`: split borrows, the fresh set and the touched list in locals,
        // per-index slices of one length.
        let JoinFinder {
            labels,
            touched,
            fresh,
            in_joins,
            in_exits,
            stamp,
            desc,
            ignore,
            work,
            jumps,
            memo,
            nest_exits: chain,
            ..
        } = self;
        let jumps = if LEAN { &[][..] } else { &jumps.target[..] };
        let n = po.order.len();
        let (labels, in_joins, in_exits) =
            (&mut labels[..n], &mut in_joins[..n], &mut in_exits[..n]);
        let (stamp, ignore) = (*stamp, *ignore);
        let (order, header_cycle, reach_hi, lo_reach) = (
            &po.order[..n],
            &po.header_cycle[..n],
            &po.reach_hi[..n],
            &po.lo_reach[..n],
        );
        let (succ_start, succ) = (&po.succ_start[..n + 1], &po.succ[..]);
        let (fresh_out, touched_out) = (fresh, touched);
        let mut fresh = std::mem::take(fresh_out);
        let mut touched = std::mem::take(touched_out);
        let (fresh, touched) = (&mut fresh, &mut touched);
        // (Macros, not closures: the cut memo reads `in_joins` and `in_exits` between calls.)
        macro_rules! add_join {
            ($x:expr) => {
                add_join_to(in_joins, desc, order, stamp, ignore, $x)
            };
        }
        macro_rules! add_exit {
            ($x:expr) => {
                add_exit_to(in_exits, desc, order, stamp, $x)
            };
        }
        let mut steps = 0u64;
        // The last header around the branch that sent its label to a long exit list, while the
        // walk keeps the lists of `chain_exits` (active exits, exceptions).
        #[cfg(test)]
        let chain_ok = !crate::analysis::knobs::NO_CHAIN_EXITS.with(|c| c.get());
        #[cfg(not(test))]
        let chain_ok = true;
        let mut level: Option<chain_exits::Level> = None;
        chain.active.clear();
        chain.excepts.clear();
        // The cut memo (`cut_memo`): the cycles around the branch, the intervals whose pops it
        // must see, and the log of joins and exits once a cut is recorded.
        let mut mlog = if MEMO {
            std::mem::take(&mut memo.log)
        } else {
            Vec::new()
        };
        mlog.clear();
        let (mut watch, mut back, mut logging) = ((0, u32::MAX), (0, 0), false);
        let mut log_joins = false;
        let mut top = (0, 0);
        let mut log_depth = 0;
        // The cycle an exit found by this branch would give a divergent exit
        // (`propagateCycleExitDivergence`: by depths only), when it has one already: the exit
        // then changes nothing, for this branch or, when it would be the same cycle for every
        // branch of the cut cycles recorded (`log_depth`), for a replay.
        let exit_is_moot = |xi: u32, depth_limit: u32| {
            let d = s.cycle_of(order[xi as usize]).map_or(0, |c| s.depth(c));
            if d + 1 > depth_limit || s.depth(t_cycle) <= d {
                return false;
            }
            exit_known[s.ancestor_at_depth(t_cycle, d + 1) as usize]
        };
        if memo_on {
            memo.begin(
                s,
                po,
                t_cycle,
                [
                    settled_below,
                    pause_below,
                    ignore.0,
                    ignore.1,
                    irr_lo,
                    irr_hi,
                    o_lo,
                    o_end,
                    jumps.is_empty() as u32,
                    no_skip as u32,
                ],
            );
            (watch, back) = (memo.watch, memo.back);
            top = memo.top();
        }
        let mut replayed = false;
        #[cfg(test)]
        let settled_drop = !crate::analysis::knobs::NO_SETTLED_DROP.with(|c| c.get());
        #[cfg(not(test))]
        let settled_drop = true;
        // The smallest index whose flow was pushed (the branch's, at the start).
        let mut low_done = t_idx;
        let mut paused = false;
        // Every exit of the remembered cycle carries its own label, and that configuration was
        // walked on from before (`final_exits`): see below.
        let mut final_hit = false;
        // Until the walk gets below the remembered cycle, the blocks below it that get labels
        // are its exits (`exit_configs`), so a join at an index below the cycle is at an exit.
        // Once every exit is a join recorded for this branch (a successor of the branch carries
        // its own label without being one), the configuration the walk pauses at below the
        // cycle is settled: a join keeps its own label. The rest of the walk inside the cycle
        // records only joins there, which `ignore` drops, joins at the exits, recorded already,
        // and exits, to cycles that all have a divergent exit (the configurations are used only
        // then, `compute`); after the pause `config_first_time` would stop it. So it stops now.
        macro_rules! final_check {
            ($x:expr) => {
                if FINAL
                    && !LEAN
                    && $x < pause_below
                    && !final_exits.is_empty()
                    && final_exits
                        .iter()
                        .all(|&e| labels[e as usize] == e && in_joins[e as usize] == stamp)
                {
                    final_hit = true;
                }
            };
        }
        let plain_args = plain22::Plain22Args {
            stamp,
            ignore,
            t_idx,
            settled_below,
            pause_below,
            irr: (irr_lo, irr_hi),
            o: (o_lo, o_end),
            no_skip,
            settled_drop,
        };
        while let Some((mut i, mut empty)) = fresh.pop_and_empty() {
            // Where only the plain step applies, the steps run in their own loop (`plain22`)
            // until a block needs more; that block is processed here.
            // (Not while a long exit list's level is open: its joins are listed as exceptions,
            // `chain_exits`, which the plain steps do not do.)
            if plain_ok
                && !(FINAL && final_hit)
                && level.is_none()
                && plain22::plain22_ok(i, empty, low_done, fresh, po, jumps, &plain_args)
            {
                let mut w = plain22::Walk22 {
                    low_done,
                    steps,
                    final_hit,
                };
                let next = plain22::plain_steps22::<FINAL>(
                    i,
                    empty,
                    &mut w,
                    fresh,
                    labels,
                    touched,
                    in_joins,
                    desc,
                    po,
                    jumps,
                    final_exits,
                    plain_args,
                );
                (low_done, steps, final_hit) = (w.low_done, w.steps, w.final_hit);
                match next {
                    Some((j, e)) => (i, empty) = (j, e),
                    None => break,
                }
            }
            if FINAL && final_hit {
                #[cfg(test)]
                crate::analysis::knobs::FINAL_CONFIG_STOPS.with(|c| c.set(c.get() + 1));
                break;
            }
            // Fresh members are indices of the order: one check here lets the compiler drop
            // those of every per-index slice below (all of length `n`).
            assert!((i as usize) < n);
            if !LEAN && i < pause_below {
                // Left the remembered cycle (see `compute`): every block below it that holds a
                // label is fresh, and going on from `i` is the same as not having stopped
                // (`low_done` is above every such block either way).
                paused = pause_at(fresh, i);
                break;
            }
            steps += 1;
            if memo_on && (!(watch.0 <= i && i < watch.1) || (back.0 <= i && i < back.1)) {
                let added = |x: u32| {
                    (in_joins[x as usize] == stamp) as u32
                        | ((in_exits[x as usize] == stamp) as u32) << 1
                };
                if let Some(r) = memo.on_pop(s, po, labels, &added, i, steps, mlog.len()) {
                    if memo.logging {
                        std::mem::swap(&mut memo.log, &mut mlog);
                        memo.link(s, po, labels, &r);
                        std::mem::swap(&mut memo.log, &mut mlog);
                    }
                    fresh.clear();
                    let (p, future) = memo.replay(
                        &r,
                        labels,
                        touched,
                        |e| {
                            if e & cut_memo::EXIT_EVENT != 0 {
                                let x = e & !cut_memo::EXIT_EVENT;
                                if !exit_is_moot(x, u32::MAX) {
                                    add_exit_to(in_exits, desc, order, stamp, x);
                                }
                            } else {
                                add_join_to(in_joins, desc, order, stamp, ignore, e);
                            }
                        },
                        |x| fresh.set(x),
                    );
                    #[cfg(test)]
                    crate::analysis::knobs::CUT_REPLAYS.with(|c| c.set(c.get() + 1));
                    // (The pop at the cut is among the remembered walk's steps.)
                    steps = steps - 1 + future;
                    paused = p;
                    replayed = true;
                    break;
                }
                (watch, back, logging, log_depth) =
                    (memo.watch, memo.back, memo.logging, memo.log_depth());
                // A join outside the branch's top-level cycle has effects that do not depend on
                // the branch (`exit_configs`: the cycle it may make divergent is the outermost
                // one around it, none of which holds the branch; its phis are marked either
                // way), and so does none inside it when it is assumed divergent (`ignore`): the
                // joins a remembered walk recorded there were analysed with its branch, so they
                // are not logged, and a replay does not record them again.
                // Precise mode analyses every join per branch (its phis by the branch's diverged
                // paths): all are logged.
                log_joins = logging && (header_exits || ignore.1 <= ignore.0);
            }
            if reach_hi[i as usize] < settled_below {
                // Every later join would be settled.
                break;
            }
            if i == t_idx {
                let c = header_cycle[i as usize];
                if header_exits && c != NONE {
                    // The branch heads reducible cycle `c` (precise mode): the label that came
                    // back to it is that of threads starting the next iteration.
                    let l = labels[i as usize];
                    for &xi in po.header_exits(i) {
                        if push_label(labels, fresh, touched, xi, l) {
                            add_exit!(xi);
                        }
                    }
                }
                continue;
            }
            if empty && !(irr_lo..irr_hi).contains(&i) {
                // Every path has met again at i.
                break;
            }
            // Label flow goes to smaller indices but inside an outermost irreducible cycle
            // (an interval), so the largest fresh index only grows back inside the interval
            // of the last one processed: when no flow was pushed from below `i` yet, no
            // labelled block below `i` has been processed, and every labelled block that
            // `i`'s flow can reach (`lo_reach[i]..=reach_hi[i]`) is fresh. When the other
            // fresh blocks' labels cannot reach that range either, `i`'s flow only meets
            // unlabelled blocks and spreads one label: no join, and nothing for the others
            // to meet. Besides joins, labels are only read by the exit check (`reads`).
            if !no_skip && low_done > i {
                let m = fresh.last_below(i);
                if !(o_lo..o_end).contains(&i)
                    && m.is_some_and(|m| reach_hi[m as usize] < lo_reach[i as usize])
                    && !reads(lo_reach[i as usize], reach_hi[i as usize])
                {
                    continue;
                }
                // A flow that can meet other labels only among settled blocks: every other
                // fresh block's labels stay below `settled_below` (and so do those of any join
                // there), `i`'s flow goes no higher than `i`, and no block below `i` was
                // processed, so elsewhere `i`'s flow spreads one label and makes no join.
                // (`settled_below` is 0 unless no divergent exit can matter, so no label is read
                // by the exit check.) A ladder of cycles whose exits drain into settled blocks
                // otherwise made every branch walk every deeper level (issue 13).
                if settled_drop
                    && settled_below > 0
                    && reach_hi[i as usize] <= i
                    && m.is_none_or(|m| reach_hi[m as usize] < settled_below)
                {
                    continue;
                }
            }
            // A single-label region `(p, i]` (`crate::jumps`): its blocks only pass `i`'s label
            // on to `p` when no other label is or can come inside (nothing below `i` processed
            // yet, every other fresh block at or below `p`, and blocks at or below `p` send no
            // label above it), the branch is not inside (it would not pass labels on; as `p`
            // post-dominates `i` some path from `i` to `p` avoids the branch anyway, so this
            // is a guard), no label there is read by the exit check, the walk would not stop
            // inside (`p` not settled), and no header of a cycle around the branch sends labels
            // to `p` (a join there would be recorded as a divergent exit).
            if let Some(&jp) = jumps.get(i as usize)
                && !LEAN
                && jp != NONE
            {
                let p = jp & !HEADER_INTO;
                if low_done > i
                    && p >= settled_below
                    && fresh.last_below(i).is_some_and(|m| m <= p)
                    && !(p < t_idx && t_idx <= i)
                    && (jp & HEADER_INTO == 0 || no_header_inside(s, po, t_cycle, i, p))
                    && !reads(p + 1, i - 1)
                {
                    low_done = i;
                    if memo_on {
                        memo.jumped_to(p);
                    }
                    if push_label(labels, fresh, touched, p, labels[i as usize]) {
                        if level.is_some() && in_exits[p as usize] != stamp {
                            chain.excepts.push(p);
                        }
                        if add_join!(p)
                            && log_joins
                            && (header_exits || p.wrapping_sub(top.0) < top.1 - top.0)
                        {
                            mlog.push(p);
                        }
                        final_check!(p);
                    }
                    #[cfg(test)]
                    crate::analysis::knobs::JUMPED.with(|c| c.set(c.get() + 1));
                    continue;
                }
            }
            low_done = low_done.min(i);
            let l = labels[i as usize];
            let c = header_cycle[i as usize];
            if c != NONE {
                // The header stands in for its whole (reducible) cycle: labels go to the exits.
                let branch_inside = t_cycle != NONE && c <= t_cycle && t_cycle < s.subtree_end(c);
                // One loop per case: in deep nests a header has thousands of exits, and the
                // test per exit cost as much as the label push.
                if branch_inside {
                    let ex = po.header_exits(i);
                    macro_rules! send {
                        ($xi:expr) => {
                            if push_label(labels, fresh, touched, $xi, l)
                                && add_exit!($xi)
                                && logging
                                && !exit_is_moot($xi, log_depth)
                            {
                                mlog.push($xi | cut_memo::EXIT_EVENT);
                            }
                        };
                    }
                    // A long list after a long list of a cycle inside: only the exits whose
                    // label may change (`chain_exits`), and those that may hold this label
                    // after are listed as active.
                    let long = chain_ok && ex.len() >= chain_exits::MIN_EXITS;
                    if long
                        && let Some(prev) = level
                        && chain.plan(s, po, c, i, l, prev, in_exits, stamp)
                    {
                        #[cfg(test)]
                        crate::analysis::knobs::CHAIN_PLANS.with(|c| c.set(c.get() + 1));
                        let visit = std::mem::take(&mut chain.visit);
                        for &k in &visit {
                            let xi = ex[k as usize];
                            send!(xi);
                            if labels[xi as usize] != xi || in_exits[xi as usize] != stamp {
                                chain.active.push(xi);
                            }
                        }
                        chain.visit = visit;
                    } else if long {
                        chain.active.clear();
                        for &xi in ex {
                            send!(xi);
                            if labels[xi as usize] != xi || in_exits[xi as usize] != stamp {
                                chain.active.push(xi);
                            }
                        }
                    } else {
                        for &xi in ex {
                            send!(xi);
                        }
                    }
                    level = long.then_some(chain_exits::Level {
                        cycle: c,
                        index: i,
                        label: l,
                    });
                    chain.excepts.clear();
                } else {
                    for &xi in po.header_exits(i) {
                        if push_label(labels, fresh, touched, xi, l) {
                            if level.is_some() && in_exits[xi as usize] != stamp {
                                chain.excepts.push(xi);
                            }
                            if add_join!(xi)
                                && log_joins
                                && (header_exits || xi.wrapping_sub(top.0) < top.1 - top.0)
                            {
                                mlog.push(xi);
                            }
                        }
                        final_check!(xi);
                    }
                }
            } else {
                let (a, b) = (succ_start[i as usize], succ_start[i as usize + 1]);
                for &xi in &succ[a as usize..b as usize] {
                    if push_label(labels, fresh, touched, xi, l) {
                        if level.is_some() && in_exits[xi as usize] != stamp {
                            chain.excepts.push(xi);
                        }
                        if add_join!(xi)
                            && log_joins
                            && (header_exits || xi.wrapping_sub(top.0) < top.1 - top.0)
                        {
                            mlog.push(xi);
                        }
                        final_check!(xi);
                    }
                }
            }
        }
        *work += steps;
        if MEMO {
            memo.log = mlog;
        }
        if memo_on && !replayed && memo.logging {
            let mut pause_fresh = Vec::new();
            if paused {
                fresh.members(&mut pause_fresh);
            }
            let fresh = &*fresh;
            memo.finish(
                s,
                po,
                labels,
                |lo, hi| fresh.any_in(lo, hi),
                paused,
                &pause_fresh,
                steps,
            );
        }
        *fresh_out = std::mem::take(fresh);
        *touched_out = std::mem::take(touched);
        paused
    }

    /// LLVM 19's propagation: stops once the largest fresh index falls below a floor that is only
    /// lowered when a join is found or the label changes (misses joins: issue 137277), and walks
    /// through reducible cycles that do not contain the branch.
    ///
    /// Its answer is the joins and exits found before it stops; two shortcuts leave that answer
    /// unchanged and keep chains of pieces with dead ends linear (a dead end low in the order
    /// keeps the floor low, so LLVM 19 walks every piece in between, for every branch):
    /// - once every label left can only reach settled blocks (`settled_below`, as in LLVM 22's
    ///   propagation, bounded by [`ModifiedPo::reach_hi_19`]), later joins change nothing: stop;
    /// - a flow that can only meet unlabelled blocks (as in LLVM 22's propagation, for blocks
    ///   whose every cycle contains the branch, so that the flow only goes down the order) makes
    ///   no join, and nothing else meets it. LLVM 19 would process its blocks next, all with one
    ///   label, so only the first moves the floor: that step's floor update is made, the flow
    ///   is dropped. If LLVM 19 stopped inside the flow, it stops at the next block here too
    ///   (every other fresh block lies below the flow).
    ///
    /// With `JUMPS`, it also takes the function's jumps over single-label regions; false when
    /// it gave up because a label came back above a watched jump target (`jumps::ESCAPES`).
    #[allow(clippy::too_many_arguments)]
    fn propagate_llvm19<const JUMPS: bool>(
        &mut self,
        s: &Structure,
        po: &ModifiedPo,
        t: Block,
        t_idx: u32,
        settled_below: u32,
        no_skip: bool,
        reads: &dyn Fn(u32, u32) -> bool,
    ) -> bool {
        let mut floor = po.order.len() as u32 - 1;
        let mut floor_label = NONE;
        for &x in po.succs(t_idx) {
            floor = floor.min(x);
        }
        let t_cycle = s.inner(t);
        // The smallest index whose flow was pushed (the branch's, at the start).
        // `reach_hi_19` for consecutive blocks of one innermost cycle: one computation.
        let mut hi19 = Reach19 { c: NONE, end: NONE };
        let mut low_done = t_idx;
        // The loop of plain steps once the function's walks work hard (`PLAIN_WORK_PER_BLOCK`).
        #[cfg(test)]
        let (plain_off, plain_eager) = (
            crate::analysis::knobs::NO_PLAIN_19.with(|c| c.get()),
            crate::analysis::knobs::EAGER_PLAIN_19.with(|c| c.get()),
        );
        #[cfg(not(test))]
        let (plain_off, plain_eager) = (false, false);
        let plain_ok =
            !plain_off && (plain_eager || self.busy(po.order.len(), PLAIN_WORK_PER_BLOCK));
        // The loop runs once per block the flow visits, so its state is split into disjoint
        // local borrows, the fresh set and the touched list are moved into locals for the loop
        // (their fields stay in registers: a push that reallocates cannot reach them), and the
        // fresh set's largest member is taken out at once (on a break the caller clears the set
        // anyway).
        let JoinFinder {
            labels,
            touched,
            fresh,
            in_joins,
            in_exits,
            stamp,
            desc,
            ignore,
            work,
            jumps,
            ..
        } = self;
        let jumps = if JUMPS { &jumps.target[..] } else { &[] };
        // Every per-index slice gets the same length `n` (the successor offsets `n + 1`), so one
        // bounds check of an index covers every slice it indexes.
        let n = po.order.len();
        let (labels, in_joins, in_exits) =
            (&mut labels[..n], &mut in_joins[..n], &mut in_exits[..n]);
        let (stamp, ignore) = (*stamp, *ignore);
        let (order, header_cycle, reach_hi) =
            (&po.order[..n], &po.header_cycle[..n], &po.reach_hi[..n]);
        let (kind, succ_start, succ) = (&po.kind[..n], &po.succ_start[..n + 1], &po.succ[..]);
        let (fresh_out, touched_out) = (fresh, touched);
        let mut fresh = std::mem::take(fresh_out);
        let mut touched = std::mem::take(touched_out);
        let touched = &mut touched;
        let fresh = &mut TopWord::new(&mut fresh);
        let mut steps = 0u64;
        #[cfg(test)]
        let settled_drop = !crate::analysis::knobs::NO_SETTLED_DROP.with(|c| c.get());
        #[cfg(not(test))]
        let settled_drop = true;
        // The lowest target of a jump taken that a label may come back above (`ESCAPES`).
        let mut watch = NONE;
        let mut complete = true;
        while let Some(mut i) = fresh.pop() {
            // As in `propagate`: one bounds check for every per-index slice.
            assert!((i as usize) < n);
            // Where no shortcut can apply (above the lowest block processed, or inside an
            // irreducible cycle), the plain steps run in their own loop (`plain_steps19`) until
            // a block needs more; that block is processed here.
            let args = Plain19Args {
                stamp,
                ignore,
                t_idx,
                settled_below,
                watch,
                t_cycle,
            };
            if plain_ok && plain19_ok::<JUMPS>(i, floor, low_done, s, po, jumps, &args) {
                let mut w = Walk19 {
                    floor,
                    floor_label,
                    low_done,
                    steps,
                };
                let next = plain_steps19::<JUMPS>(
                    i, &mut w, fresh, labels, touched, in_joins, desc, s, po, jumps, args,
                );
                (floor, floor_label, low_done, steps) =
                    (w.floor, w.floor_label, w.low_done, w.steps);
                match next {
                    Some(j) => i = j,
                    None => break,
                }
                assert!((i as usize) < n);
            }
            // After a jump every fresh block is at or below its target, and the walk goes
            // down: a fresh block above a watched target got its label from below, and its
            // flow may come back into the jumped region, which then does not hold one label.
            // Give up; the caller walks again without jumps.
            if JUMPS && i > watch {
                complete = false;
                break;
            }
            if i < floor {
                break;
            }
            // `reach_hi_19` is at least `reach_hi` (it looks up the same table at `i` or past
            // it): ask the cheap bound first, it decides nearly every step.
            if reach_hi[i as usize] < settled_below && hi19.get(po, s, t, i) < settled_below {
                // Every later join would be settled.
                break;
            }
            steps += 1;
            if i == t_idx {
                continue;
            }
            let l = labels[i as usize];
            let c = header_cycle[i as usize];
            let to_exits = c != NONE && s.contains(c, t);
            if !no_skip && low_done > i && kind[i as usize] & IN_IRR == 0 && {
                // Every cycle around the block contains the branch and is reducible: its flow
                // stays below `i` (a header around the branch sends labels to its exits), within
                // `lo_reach[i]..i`, where no block is labelled (none below `i` was processed, and
                // the other fresh blocks' flows stay below `lo_reach[i]`).
                let ci = s.inner(order[i as usize]);
                let lo = po.lo_reach[i as usize];
                (ci == NONE || t_cycle != NONE && s.contains_cycle(ci, t_cycle))
                    && fresh.last().is_none_or(|m| {
                        // `reach_hi_19` is at least `reach_hi`: the cheap bound first.
                        reach_hi[m as usize] < lo && po.reach_hi_19(s, t, m) < lo
                    })
                    && !reads(lo, i)
            } {
                if l != floor_label {
                    let targets = if to_exits {
                        po.header_exits(i).iter().copied().min().unwrap_or(NONE)
                    } else {
                        po.succs(i).iter().copied().min().unwrap_or(NONE)
                    };
                    floor = floor.min(targets);
                    floor_label = l;
                }
                continue;
            }
            // A flow that can meet other labels only among settled blocks (as in `propagate`;
            // LLVM 19's flow also enters reducible cycles upwards, `reach_hi_19`). Every join
            // after it is settled, so where LLVM 19 would have stopped does not matter.
            if !no_skip
                && settled_drop
                && settled_below > 0
                && low_done > i
                && reach_hi[i as usize] <= i
                && hi19.get(po, s, t, i) <= i
                && fresh.last().is_none_or(|m| {
                    reach_hi[m as usize] < settled_below && hi19.get(po, s, t, m) < settled_below
                })
            {
                continue;
            }
            // A single-label region (as in `propagate`), for LLVM 19's flow: its graph is the
            // CFG, so no header of a cycle around the branch may lie inside (it would send
            // labels to its exits). The floor is at or below `p` already, so walking the region
            // would not move it; the floor label becomes `l`, as the region's first block would
            // make it unless that block joins at `p` (then it is not jumped).
            // A header's region (`HEADER_REGION`) also holds its cycle's body `C`: the cycle is
            // reducible, so its body gets labels only from the header, which was not processed
            // yet (`low_done > i`), or from the branch, which is not in `C` (else `C`, whose
            // header `i` lies above `p`, is a cycle around the branch: `no_header_inside`);
            // the walk from the header processes the body next, every other fresh block being
            // at or below `p`, so the region is walked in one stretch as any other. The exit
            // check reads no label in the body either (so only `(p, i)` is asked about): it
            // reads the irreducible headers and the exits of cycles `D` around the branch, and
            // such a block in the body makes `D` meet `C` (only `C` enters its body), so they
            // nest; `D` inside `C` holds the branch, and `D` around `C` has no exit in `C` and
            // its header, entered from outside `D`, is not in the body.
            if let Some(&jp) = jumps.get(i as usize)
                && jp != NONE
            {
                let p = jp & !(HEADER_INTO | ESCAPES | HEADER_REGION);
                let old = labels[p as usize];
                if floor <= p
                    && low_done > i
                    && p >= settled_below
                    && fresh.last().is_some_and(|m| m <= p)
                    && !(p < t_idx && t_idx <= i)
                    && no_header_inside(s, po, t_cycle, i, p)
                    && !reads(p + 1, i - 1)
                    && (old == NONE || old == l || !po.succs(i).contains(&p))
                {
                    low_done = i;
                    if jp & ESCAPES != 0 {
                        watch = watch.min(p);
                    }
                    if push_label(labels, fresh, touched, p, l) {
                        add_join_to(in_joins, desc, order, stamp, ignore, p);
                    }
                    floor_label = l;
                    #[cfg(test)]
                    crate::analysis::knobs::JUMPED.with(|c| c.set(c.get() + 1));
                    #[cfg(test)]
                    if jp & HEADER_REGION != 0 {
                        crate::analysis::knobs::HEADER_JUMPED.with(|c| c.set(c.get() + 1));
                    }
                    continue;
                }
            }
            low_done = low_done.min(i);
            let mut joined = false;
            let mut low = floor;
            if to_exits {
                for &xi in po.header_exits(i) {
                    if push_label(labels, fresh, touched, xi, l) {
                        add_exit_to(in_exits, desc, order, stamp, xi);
                        joined = true;
                    }
                    low = low.min(xi);
                }
            } else {
                let (a, b) = (succ_start[i as usize], succ_start[i as usize + 1]);
                for &xi in &succ[a as usize..b as usize] {
                    if push_label(labels, fresh, touched, xi, l) {
                        add_join_to(in_joins, desc, order, stamp, ignore, xi);
                        joined = true;
                    }
                    low = low.min(xi);
                }
            }
            if joined {
                floor = low;
            } else if l != floor_label {
                floor = low;
                floor_label = l;
            }
        }
        *work += steps;
        fresh.flush();
        *fresh_out = std::mem::take(fresh.set);
        *touched_out = std::mem::take(touched);
        complete
    }
}

/// The state of LLVM 19's walk that its plain steps change (`plain_steps19`).
struct Walk19 {
    floor: u32,
    floor_label: u32,
    low_done: u32,
    steps: u64,
}

/// What the plain steps of one walk read besides the function's order (`plain_steps19`).
#[derive(Clone, Copy)]
struct Plain19Args {
    stamp: u32,
    ignore: (u32, u32),
    t_idx: u32,
    settled_below: u32,
    watch: u32,
    /// The branch's innermost cycle.
    t_cycle: u32,
}

/// LLVM 19's walk (`JoinFinder::propagate_llvm19`) from popped index `i` for as long as each
/// block popped needs nothing but the plain step of LLVM 19's propagation (read the label, push
/// it to the successors, move the floor); returns the first block that needs more (popped, not
/// processed), or `None` when nothing is fresh.
///
/// A block needs more when the walk gives up or stops there (above the watch, below the floor,
/// past the settled bound), when it is the branch, when it heads a reducible cycle around the
/// branch (its label goes to the cycle's exits), and when a shortcut may apply: the disjoint-flow skip, the
/// settled drop and the jumps all need the block below the lowest one processed (`low_done`),
/// and the skip a block outside irreducible cycles, the drop some settled blocks, a jump one
/// from the block. What is left is exactly the plain step, so the answer and the step count
/// are those of the full loop. Out of line, in a loop of its own, so that its few values stay
/// in registers (in the full loop's body they were reloaded from the stack on every step).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn plain_steps19<const JUMPS: bool>(
    mut i: u32,
    w: &mut Walk19,
    fresh: &mut TopWord<'_>,
    labels: &mut [u32],
    touched: &mut Vec<u32>,
    in_joins: &mut [u32],
    desc: &mut Descriptor,
    s: &Structure,
    po: &ModifiedPo,
    jumps: &[u32],
    a: Plain19Args,
) -> Option<u32> {
    let n = labels.len();
    let order = &po.order[..n];
    let (succ_start, succ) = (&po.succ_start[..n + 1], &po.succ[..]);
    let in_joins = &mut in_joins[..n];
    let (mut floor, mut floor_label, mut low_done, mut steps) =
        (w.floor, w.floor_label, w.low_done, w.steps);
    // The held word in a local (kept in registers; through `fresh` it was stored back on
    // every change, the bounds checks' panics being able to observe it).
    let outer = fresh;
    let fresh = &mut TopWord {
        w: outer.w,
        bits: outer.bits,
        set: &mut *outer.set,
    };
    let next = loop {
        assert!((i as usize) < n);
        let plain = plain19_ok::<JUMPS>(i, floor, low_done, s, po, jumps, &a);
        if !plain {
            break Some(i);
        }
        steps += 1;
        let l = labels[i as usize];
        low_done = low_done.min(i);
        let mut joined = false;
        let mut low = floor;
        let (b, e) = (succ_start[i as usize], succ_start[i as usize + 1]);
        for &xi in &succ[b as usize..e as usize] {
            if push_label(labels, fresh, touched, xi, l) {
                add_join_to(in_joins, desc, order, a.stamp, a.ignore, xi);
                joined = true;
            }
            low = low.min(xi);
        }
        if joined {
            floor = low;
        } else if l != floor_label {
            floor = low;
            floor_label = l;
        }
        match fresh.pop() {
            Some(j) => i = j,
            None => break None,
        }
    };
    #[cfg(test)]
    crate::analysis::knobs::PLAIN_STEPS_19.with(|c| c.set(c.get() + steps - w.steps));
    (w.floor, w.floor_label, w.low_done, w.steps) = (floor, floor_label, low_done, steps);
    (outer.w, outer.bits) = (fresh.w, fresh.bits);
    next
}

/// Does the block at index `i` (popped, below `po`'s length) need nothing but the plain step of
/// LLVM 19's walk (see `plain_steps19`)?
#[inline(always)]
fn plain19_ok<const JUMPS: bool>(
    i: u32,
    floor: u32,
    low_done: u32,
    s: &Structure,
    po: &ModifiedPo,
    jumps: &[u32],
    a: &Plain19Args,
) -> bool {
    // (The bound and the header's cycle are read only when they can matter: the walk's steps
    // then touch one byte of `kind` per block besides the labels and successors.)
    // (The test that fails first on the full loop's steps comes first.)
    let k = po.kind[i as usize];
    (i >= low_done
        || k & IN_IRR != 0
            && a.settled_below == 0
            && (!JUMPS || jumps.get(i as usize).is_none_or(|&j| j == NONE)))
        && (!JUMPS || i <= a.watch)
        && i >= floor
        && i != a.t_idx
        && (a.settled_below == 0 || po.reach_hi[i as usize] >= a.settled_below)
        && (k & HEADS == 0 || {
            // A header passes labels to its cycle's exits only when the cycle holds the
            // branch (`to_exits` in the full loop); other headers step plainly.
            let c = po.header_cycle[i as usize];
            a.t_cycle == NONE || !s.contains_cycle(c, a.t_cycle)
        })
}

/// [`ModifiedPo::reach_hi_19`] for one branch, remembering the last innermost cycle asked about
/// (the propagation asks about many blocks of one cycle in a row).
struct Reach19 {
    c: u32,
    end: u32,
}

impl Reach19 {
    #[inline]
    fn get(&mut self, po: &ModifiedPo, s: &Structure, t: Block, k: u32) -> u32 {
        let c = s.inner(po.order[k as usize]);
        if c == NONE {
            return po.reach_hi[k as usize];
        }
        if c != self.c {
            self.c = c;
            self.end = po.end_19(s, t, c);
        }
        match self.end {
            NONE => po.reach_hi[k as usize],
            end => po.reach_hi[end.max(k) as usize],
        }
    }
}

/// Does no cycle around the branch (innermost cycle `t_cycle`) have its header at an index in
/// `(p, i]`? Such a cycle contains `i` (it is an interval from its header, and it contains the
/// branch, which lies outside `(p, i]`), so only the cycles around both matter, and the
/// innermost of those has the largest header.
#[inline]
fn no_header_inside(s: &Structure, po: &ModifiedPo, t_cycle: u32, i: u32, p: u32) -> bool {
    let c = s.common_cycle(t_cycle, s.inner(po.order[i as usize]));
    c == NONE || po.index[s.header(c).index()] <= p
}

/// What the exit check of one branch reads (see `JoinFinder::compute`): labels inside the
/// outermost irreducible cycle `o` around the branch (the headers of the irreducible cycles
/// around it and the exits of every cycle around it, from the innermost out to `o`, collected
/// on the first question about the interval of `o`, if at most `READ_SET_MAX`; else the whole
/// interval), and the labels at the exits of `o` (`ex`, sorted). `o` is `NONE` when there is no
/// exit check.
struct ReadSet<'a> {
    o: u32,
    o_lo: u32,
    o_end: u32,
    ex: &'a [u32],
    /// The cycles around the branch, innermost first.
    chain: &'a [u32],
    s: &'a Structure,
    po: &'a ModifiedPo,
    few_ok: bool,
    inside: std::cell::RefCell<Vec<u32>>,
    /// 0: not collected yet, 1: collected, 2: too many (the whole interval is read).
    state: std::cell::Cell<u8>,
}

impl ReadSet<'_> {
    /// Does the exit check read the label of some index in `lo..=hi`?
    #[inline]
    fn reads(&self, lo: u32, hi: u32) -> bool {
        if self.o == NONE || lo > hi {
            return false;
        }
        if hi >= self.o_lo && lo < self.o_end && self.reads_inside(lo, hi) {
            return true;
        }
        let k = self.ex.partition_point(|&e| e < lo);
        k < self.ex.len() && self.ex[k] <= hi
    }

    #[inline(never)]
    fn reads_inside(&self, lo: u32, hi: u32) -> bool {
        if self.state.get() == 0 {
            let ok = self.few_ok && self.collect();
            self.state.set(if ok { 1 } else { 2 });
        }
        if self.state.get() == 2 {
            return true;
        }
        let v = self.inside.borrow();
        let k = v.partition_point(|&e| e < lo);
        k < v.len() && v[k] <= hi
    }

    fn collect(&self) -> bool {
        let (s, po) = (self.s, self.po);
        let mut out = self.inside.borrow_mut();
        out.clear();
        for &c in self.chain {
            let exits = s.exits(c);
            if out.len() + exits.len() >= READ_SET_MAX {
                return false;
            }
            if !s.is_reducible(c) {
                out.push(po.index[s.header(c).index()]);
            }
            out.extend(exits.iter().map(|x| po.index[x.index()]));
            if c == self.o {
                break;
            }
        }
        out.sort_unstable();
        true
    }
}

/// Puts `i` back into the fresh set when a walk pauses (`JoinFinder::propagate`): out of the
/// hot loop, whose every step would otherwise pay for it.
#[cold]
#[inline(never)]
fn pause_at(fresh: &mut FreshSet, i: u32) -> bool {
    fresh.set(i);
    true
}

/// Records join `x` (at a modified post-order index) for the branch at hand unless it is in
/// `ignore` or recorded already (LLVM's join set); true when it was added. On split borrows, so
/// that the walks' loops call it too.
#[inline(always)]
fn add_join_to(
    in_joins: &mut [u32],
    desc: &mut Descriptor,
    order: &[Block],
    stamp: u32,
    ignore: (u32, u32),
    x: u32,
) -> bool {
    if x.wrapping_sub(ignore.0) >= ignore.1 - ignore.0 && in_joins[x as usize] != stamp {
        in_joins[x as usize] = stamp;
        desc.joins.push(order[x as usize]);
        return true;
    }
    false
}

/// Records divergent exit `x` for the branch at hand unless recorded already; true when it was
/// added. On split borrows, as `add_join_to`.
#[inline(always)]
fn add_exit_to(
    in_exits: &mut [u32],
    desc: &mut Descriptor,
    order: &[Block],
    stamp: u32,
    x: u32,
) -> bool {
    if in_exits[x as usize] != stamp {
        in_exits[x as usize] = stamp;
        desc.cycle_exits.push(order[x as usize]);
        return true;
    }
    false
}

/// LLVM's `computeJoin` on split borrows (see `JoinFinder::push`).
#[inline(always)]
fn push_label<F: MarkFresh>(
    labels: &mut [u32],
    fresh: &mut F,
    touched: &mut Vec<u32>,
    x: u32,
    l: u32,
) -> bool {
    let old = labels[x as usize];
    if old == l {
        return false;
    }
    if old != x {
        fresh.mark(x);
    }
    if old == NONE {
        labels[x as usize] = l;
        touched.push(x);
        return false;
    }
    labels[x as usize] = x;
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use converge_gen::cfg::{CfgParams, Shape, random_cfg};
    use converge_gen::rng::Rng;

    /// The properties LLVM's `ModifiedPostOrder` promises, on random CFGs of every shape: each
    /// cycle is a contiguous interval starting at its header, its exits come before the header, and
    /// every other edge goes from a larger index to a smaller one (a topological order but for the
    /// edges back to a header, out of a header into its body, and inside irreducible cycles).
    #[test]
    fn modified_post_order_properties() {
        let mut rng = Rng::new(5);
        for k in 0..400 {
            let shape = Shape::ALL[k % Shape::ALL.len()];
            let rc = random_cfg(&mut rng, &CfgParams::new(shape, 4 + k % 40));
            let n = rc.succs.len();
            let g = rc.to_cfg();
            let s = Structure::new(&g);
            let po = ModifiedPo::compute(&g, &s);
            let reachable = (0..n).filter(|&b| s.is_reachable(Block(b as u32))).count();
            assert_eq!(po.order.len(), reachable, "case {k}");
            for c in 0..s.num_cycles() as u32 {
                let idx: Vec<u32> = s.blocks(c).iter().map(|b| po.index[b.index()]).collect();
                let h = po.index[s.header(c).index()];
                let (lo, hi) = (*idx.iter().min().unwrap(), *idx.iter().max().unwrap());
                assert_eq!(lo, h, "case {k}: header first in its cycle");
                assert_eq!((hi - lo + 1) as usize, idx.len(), "case {k}: contiguous");
                for x in s.exits(c) {
                    assert!(po.index[x.index()] < h, "case {k}: exits before the header");
                }
            }
            // Labels flowing from blocks at indices <= k stay at or below `reach_hi[k]`.
            for k in 0..po.order.len() {
                let c = po.header_cycle[k];
                let flow: Vec<u32> = if c != NONE {
                    s.exits(c).iter().map(|x| po.index[x.index()]).collect()
                } else {
                    assert!(po.header_exits(k as u32).is_empty(), "case {k}");
                    po.succs(k as u32).to_vec()
                };
                if c != NONE {
                    assert_eq!(
                        po.header_exits(k as u32),
                        &flow[..],
                        "case {k}: header exits"
                    );
                }
                for x in flow {
                    assert!(x <= po.reach_hi[k], "case {k}: label flow beyond reach_hi");
                }
                assert!(k == 0 || po.reach_hi[k] >= po.reach_hi[k - 1]);
            }
            for u in 0..n as u32 {
                if !s.is_reachable(Block(u)) {
                    continue;
                }
                for &v in g.succs(Block(u)) {
                    let back = s
                        .cycle_of(v)
                        .is_some_and(|c| s.header(c) == v && s.contains(c, Block(u)))
                        || (0..s.num_cycles() as u32)
                            .any(|c| s.header(c) == v && s.contains(c, Block(u)));
                    let inside_irreducible = (0..s.num_cycles() as u32)
                        .any(|c| !s.is_reducible(c) && s.contains(c, Block(u)) && s.contains(c, v));
                    // The header stands for its cycle: its edges into the body are not ordered.
                    let from_header = (0..s.num_cycles() as u32)
                        .any(|c| s.header(c) == Block(u) && s.contains(c, v));
                    if !back && !inside_irreducible && !from_header {
                        assert!(
                            po.index[u as usize] > po.index[v.index()],
                            "case {k}: edge {u}->{} goes forward in the order; cfg {:?} order {:?}",
                            v.0,
                            rc.succs,
                            po.order
                        );
                    }
                }
            }
        }
    }

    /// Issue 13's `dag-dense` and `dag-sparse` shapes nest reducible cycles of thousands of
    /// exits inside thousands of irreducible levels, where `Structure::exits`'s single pass gives
    /// up: with many reducible headers (`MANY_HEADERS`; 8,000 blocks have enough) the modified
    /// post-order must then list every reducible cycle's exits at once
    /// (`Structure::reducible_exits`; one range query and three sorts per cycle was two thirds of
    /// the analysis at 64,000 blocks), and its header exits must still be each reducible header's
    /// exits in `getExitBlocks` order.
    #[test]
    fn deep_nests_list_reducible_exits_at_once() {
        use converge_gen::program::{DagParams, dag_back_edges_cfg_with};
        for (params, seed) in [(DagParams::DENSE, 1), (DagParams::SPARSE, 2)] {
            let mut rng = Rng::new(seed);
            let succs = dag_back_edges_cfg_with(&mut rng, 8_000, params);
            let g = converge_graph::Cfg::from_succs(
                Block(0),
                succs.len(),
                succs.iter().map(|v| v.iter().map(|&t| Block(t))),
            );
            let s = Structure::new(&g);
            let po = ModifiedPo::compute(&g, &s);
            assert!(
                s.reducible_exits_listed(),
                "seed {seed}: the reducible cycles' exits were not listed at once"
            );
            let mut checked = 0;
            for (i, &h) in po.order.iter().enumerate() {
                let c = po.header_cycle[i];
                if c == NONE {
                    continue;
                }
                let want: Vec<u32> = s
                    .cycles
                    .exit_blocks(&g, converge_graph::Cycle(c))
                    .iter()
                    .map(|x| po.index[x.index()])
                    .collect();
                assert_eq!(
                    po.header_exits(i as u32),
                    &want[..],
                    "seed {seed}: header {h:?}"
                );
                checked += want.len();
            }
            assert!(checked > 2_000, "seed {seed}: only {checked} header exits");
        }
    }

    /// The exit check's merged scan (one range query from the deepest chain cycle without a
    /// divergent exit inward) reports the same exits in the same order as the scan per level,
    /// for every branch of random CFGs of every shape (the issue-13 DAG family among them),
    /// under random sets of cycles already known to have a divergent exit, in both LLVM modes.
    #[test]
    fn merged_exit_scan_finds_the_same_exits_in_the_same_order() {
        use converge_gen::program::dag_back_edges_cfg;
        let mut rng = Rng::new(13);
        let mut graphs = Vec::new();
        for k in 0..300 {
            let shape = Shape::ALL[k % Shape::ALL.len()];
            graphs.push(random_cfg(&mut rng, &CfgParams::new(shape, 8 + k % 60)).to_cfg());
        }
        for k in 0..40 {
            let succs = dag_back_edges_cfg(&mut rng, 30 + 15 * k);
            graphs.push(converge_graph::Cfg::from_succs(
                Block(0),
                succs.len(),
                succs.iter().map(|v| v.iter().map(|&x| Block(x))),
            ));
        }
        let (mut compared, mut differing_known) = (0u64, 0u64);
        crate::analysis::knobs::MERGED_FOUND.with(|c| c.set(0));
        // (Each branch asked twice, with guessed divergent exits: no cut memo.)
        crate::analysis::knobs::NO_CUT_MEMO.with(|c| c.set(true));
        for g in &graphs {
            let s = Structure::new(g);
            let po = ModifiedPo::compute(g, &s);
            let mut jf = JoinFinder::default();
            jf.reset(g.num_blocks());
            for t in 0..g.num_blocks() as u32 {
                let t = Block(t);
                if !s.is_reachable(t) || g.succs(t).len() < 2 || s.inner(t) == NONE {
                    continue;
                }
                for trial in 0..4 {
                    // Deep cycles known more often than shallow ones, as when a deep nest's
                    // branches ran first; the first trial knows nothing.
                    let known: Vec<bool> = (0..s.num_cycles() as u32)
                        .map(|c| trial > 0 && rng.below(s.depth(c) as usize + 2) > 0)
                        .collect();
                    differing_known += known.iter().filter(|&&k| k).count() as u64;
                    for llvm19 in [false, true] {
                        let mut got = Vec::new();
                        for plain in [false, true] {
                            crate::analysis::knobs::NO_MERGED_EXIT_SCAN.with(|c| c.set(plain));
                            jf.compute(g, &s, &po, t, llvm19, &known, 0, 0);
                            got.push((jf.desc.joins.clone(), jf.desc.cycle_exits.clone()));
                        }
                        crate::analysis::knobs::NO_MERGED_EXIT_SCAN.with(|c| c.set(false));
                        assert_eq!(got[0], got[1], "branch {t:?}, llvm19 {llvm19}");
                        compared += 1;
                    }
                }
            }
        }
        crate::analysis::knobs::NO_CUT_MEMO.with(|c| c.set(false));
        let found = crate::analysis::knobs::MERGED_FOUND.with(|c| c.get());
        assert!(
            compared > 10_000 && differing_known > 0 && found > 100,
            "{compared} branches compared, {found} exits found by the merged scan"
        );
    }

    #[test]
    fn fresh_set_finds_the_largest_member() {
        let mut f = FreshSet::new(10_000);
        for i in [5u32, 9_999, 64, 4_096, 4_095] {
            f.set(i);
        }
        f.set(64);
        assert!(!f.is_empty());
        let mut got = Vec::new();
        while let Some(i) = f.last() {
            got.push(i);
            f.reset(i);
        }
        assert_eq!(got, vec![9_999, 4_096, 4_095, 64, 5]);
        assert!(f.is_empty() && f.pop().is_none());
        // Refilled after being emptied, popped in decreasing order; an empty set's `hi` stays
        // valid.
        for i in [70u32, 3, 9_000, 4_100] {
            f.set(i);
        }
        let mut got = Vec::new();
        while let Some(i) = f.pop() {
            got.push(i);
        }
        assert_eq!(got, vec![9_000, 4_100, 70, 3]);
        assert!(f.is_empty());
        assert!(FreshSet::default().pop().is_none());
    }

    /// `TopWord` behaves as the set it holds a word of: random marks (mostly near the last
    /// index popped, as a walk's successors are, some far above or below), pops and largest
    /// members against a `BTreeSet`; after `flush` the set holds exactly the members.
    #[test]
    fn top_word_is_a_fresh_set() {
        let mut rng = Rng::new(7);
        let n = 20_000u32;
        for round in 0..200 {
            let mut f = FreshSet::new(n as usize);
            let mut model = std::collections::BTreeSet::new();
            let mut t = TopWord::new(&mut f);
            let mut near = rng.below(n as usize) as u32;
            for _ in 0..2_000 {
                match rng.below(8) {
                    0..=3 => {
                        let x = match rng.below(4) {
                            0 => rng.below(n as usize) as u32,
                            _ => (near + rng.below(130) as u32).saturating_sub(65).min(n - 1),
                        };
                        t.mark(x);
                        model.insert(x);
                    }
                    4..=6 => {
                        let got = t.pop();
                        assert_eq!(got, model.pop_last(), "round {round}");
                        if let Some(i) = got {
                            near = i;
                        }
                    }
                    _ => assert_eq!(t.last(), model.last().copied(), "round {round}"),
                }
            }
            t.flush();
            let mut members = Vec::new();
            f.members(&mut members);
            assert_eq!(
                members,
                model.into_iter().collect::<Vec<_>>(),
                "round {round}"
            );
        }
    }
}
