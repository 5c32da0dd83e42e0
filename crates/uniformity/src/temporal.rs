//! Uses that leave a cycle, indexed for llvm mode's temporal-divergence sweep.
//!
//! When a cycle gets a divergent exit, LLVM marks every use outside it of a value defined in a
//! block of the cycle that dominates an exit ("Convergence And Uniformity", §Temporal Divergence
//! at Cycle Exit; LLVM's deliberate over-approximation). Walking those blocks costs the size of
//! the cycle, so a deep nest whose cycles all get a divergent exit costs blocks × depth although
//! almost no value is used outside its own cycle. Here each block of a cycle gets, once per
//! function, its *escape depth*: the depth of the shallowest cycle around it that still contains
//! every user of its values. A block has a use outside cycle `o` around it exactly when that depth
//! is below `o`'s depth. Cycles are contiguous slices of the cycle block layout (`Structure::pos`),
//! so a sparse-table range minimum over the escape depths reports the blocks of `o` with a use
//! outside it in time proportional to their number; whether such a block dominates an exit of `o`
//! is one binary search among the exits' dominator-tree preorder intervals. The sweep then visits
//! exactly the blocks that add to the temporal-divergence list, in the same (layout) order.

use crate::ssa::{SsaFunction, Val};
use crate::structure::{NONE, Structure};
use converge_graph::Block;

/// Cycles of at most this many blocks are swept by looking at their blocks directly (llvm mode:
/// walking the exits' dominator chains); larger ones through the escape index, whose one-time
/// cost per function is not worth it for small cycles.
const SMALL_CYCLE: usize = 32;

/// `EscapeIndex::escaping` scans up to this many times the layout directly before it builds its
/// range-minimum table (which costs about log2(layout) passes).
const SCAN_PASSES: usize = 4;

/// [`SMALL_CYCLE`], or the unit tests' setting.
pub(crate) fn small_cycle() -> usize {
    #[cfg(test)]
    if let Some(b) = crate::analysis::knobs::SMALL_CYCLE.with(|c| c.get()) {
        return b;
    }
    SMALL_CYCLE
}

/// Escape depths of the blocks in cycles, by layout position, with a range-minimum table.
#[derive(Default)]
pub(crate) struct EscapeIndex {
    /// Per layout position: the depth of the shallowest cycle around the block containing every
    /// user of its values (0: some user lies outside its top-level cycle).
    esc: Vec<u32>,
    /// The block at each layout position.
    block: Vec<Block>,
    /// Sparse table, level-major with stride `esc.len()`: entry `k * n + i` = a position of
    /// minimal `esc` in `i..i + 2^k`. Built only once the direct scans of `escaping` have
    /// covered a few times the layout (`scan_budget`): most functions sweep a few large cycles
    /// once each, and scanning them costs less than building the table.
    rmq: Vec<u64>,
    rmq_ready: bool,
    /// Positions `escaping` may still scan directly before it builds the table.
    scan_budget: usize,
    /// Scratch: the exits' preorder starts.
    tins: Vec<u32>,
    /// Scratch: positions found.
    found: Vec<u32>,
}

impl EscapeIndex {
    /// Computes the escape depths of `f`'s blocks in cycles: one pass over their users.
    pub(crate) fn build<F: SsaFunction>(&mut self, f: &F, s: &Structure) {
        self.esc.clear();
        self.block.clear();
        for c in 0..s.num_cycles() as u32 {
            if s.parent_raw(c) != NONE {
                continue;
            }
            for &b in s.blocks(c) {
                debug_assert_eq!(s.pos(b) as usize, self.block.len());
                let cb = s.inner(b);
                let d = s.depth(cb);
                // The escape depth of one use in block `ub`. A use in the block itself is
                // inside every cycle around it (depth `d`, never below `m`): the common case,
                // decided without the cycle lookups.
                let depth_of = |ub: Block| {
                    if ub == b {
                        return d;
                    }
                    let cu = s.inner(ub);
                    if cu == NONE || s.top(cu) != c {
                        0
                    } else if s.contains_cycle(cb, cu) {
                        d
                    } else {
                        s.depth(s.common_cycle(cb, cu))
                    }
                };
                let mut m = d;
                if let Some(users) = f.block_users(b) {
                    for &u in users {
                        m = m.min(depth_of(f.inst_block(u)));
                        if m == 0 {
                            break;
                        }
                    }
                } else {
                    'insts: for i in f.block_insts(b) {
                        for &u in f.users(Val::Inst(i)) {
                            m = m.min(depth_of(f.inst_block(u)));
                            if m == 0 {
                                break 'insts;
                            }
                        }
                    }
                }
                self.block.push(b);
                self.esc.push(m);
            }
        }
        self.rmq_ready = false;
        self.scan_budget = SCAN_PASSES * self.esc.len();
    }

    /// The block at layout position `p`.
    #[inline]
    pub(crate) fn block(&self, p: u32) -> Block {
        self.block[p as usize]
    }

    /// Appends to `out` (unordered) the layout positions in `lo..hi` whose escape depth is below
    /// `d`: the blocks of the depth-`d` cycle occupying that slice with a use outside it.
    /// The order of `out` depends on whether the table is built yet: callers sort it.
    pub(crate) fn escaping(&mut self, lo: u32, hi: u32, d: u32, out: &mut Vec<u32>) {
        if !self.rmq_ready {
            let len = (hi - lo) as usize;
            if len <= self.scan_budget {
                self.scan_budget -= len;
                let esc = &self.esc[lo as usize..hi as usize];
                out.extend((lo..hi).zip(esc).filter(|&(_, &e)| e < d).map(|(p, _)| p));
                return;
            }
            self.rmq_ready = true;
            crate::rmq::build(&self.esc, &mut self.rmq);
        }
        crate::rmq::below(&self.esc, &self.rmq, lo, hi, d, out);
    }

    /// Appends to `out`, in layout order, the blocks of cycle `o` that dominate an exit of `o` and
    /// define a value used outside `o` (the blocks whose users LLVM's sweep marks).
    pub(crate) fn dominating_escaping(&mut self, s: &Structure, o: u32, out: &mut Vec<Block>) {
        let (lo, hi) = s.range(o);
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        self.escaping(lo, hi, s.depth(o), &mut found);
        if !found.is_empty() {
            found.sort_unstable();
            // A block of `o` dominating an exit lies on the exit's dominator chain inside `o`
            // (one contiguous run of it: cycles are strongly connected).
            self.tins.clear();
            self.tins.extend(
                s.exits(o)
                    .iter()
                    .filter(|&&x| s.is_reachable(x))
                    .map(|&x| s.dom.interval(x).0),
            );
            self.tins.sort_unstable();
            for &p in &found {
                let b = self.block[p as usize];
                let (start, end) = s.dom.interval(b);
                let k = self.tins.partition_point(|&t| t < start);
                if k < self.tins.len() && self.tins[k] < end {
                    out.push(b);
                }
            }
        }
        self.found = found;
    }
}
