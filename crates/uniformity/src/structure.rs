//! The CFG structure the analysis queries: reachability and dominance (`converge_graph`'s
//! `DominatorTree`) and the cycle hierarchy (`converge_graph`'s LLVM-exact `CycleInfo`), plus each
//! cycle's exit blocks in LLVM's `getExitBlocks` order.
//!
//! Exit lists are never materialised for every cycle: in a deep nest their total size is
//! blocks × depth. Instead every edge leaving a cycle block is stored once, in the cycles' block
//! layout order (each cycle's blocks are one contiguous slice of it), with `m` = the depth of the
//! smallest cycle containing both ends. The edge exits exactly the cycles around its source deeper
//! than `m`, so a cycle's exit edges are the edges of its slice with `m` below its depth: a
//! sparse-table range-minimum over `m` (built on first use) reports them in time proportional to
//! their number. Full exit lists are built on first use and cached; the modified post-order only
//! needs the exits into the parent cycle ("local" exits), which partition the edges and are kept
//! for all, and the full exits of every reducible cycle (its header sends labels to them all),
//! which in deep irreducible nests are listed together by the (reducible cycle left, edge) pairs
//! (`Structure::reducible_exits`).
//!
//! Dominators reuse the cycle analysis's DFS (Semi-NCA accepts any DFS tree), and the tables of a
//! dropped `Structure` go back to a per-thread spare, so analysing function after function does
//! not allocate in the steady state.

use converge_graph::{Block, Cycle, CycleInfo, DominatorTree, Graph, UnreachablePreds};
use std::cell::RefCell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

pub(crate) const NONE: u32 = u32::MAX;
const MULTI: u32 = u32::MAX - 1;
/// Parent steps tried per edge before the binary-lifting query (deep nests).
const WALK_LIMIT: u32 = 8;
/// Climbs whose dominator path and nesting depth both exceed this take the ancestors' header
/// intervals (`crate::cover`) instead of either walk.
const LONG_CLIMB: u32 = 32;

/// Dominator tree and cycle forest of one function.
#[derive(Clone, Debug)]
pub struct Structure {
    /// The dominator tree.
    pub dom: DominatorTree,
    /// The cycle forest (LLVM's `CycleInfo`); cycle ids are its indices.
    pub cycles: CycleInfo,
    t: Tables,
}

/// Everything `Structure` derives from the dominator tree and the cycles, plus construction
/// scratch; recycled through [`SPARE`].
#[derive(Clone, Debug, Default)]
struct Tables {
    /// Per cycle: parent (`NONE` at top level) and depth, copied from `CycleInfo` for speed.
    parent: Vec<u32>,
    depth: Vec<u32>,
    /// Position of each block in the cycle block layout (`NONE` outside every cycle).
    pos: Vec<u32>,
    /// Per cycle, its slice `[start, end)` of the layout.
    range: Vec<(u32, u32)>,
    /// Edges out of cycle blocks, grouped by the source's layout position (CSR over positions),
    /// in successor order: target and depth of the smallest cycle containing both ends.
    edge_start: Vec<u32>,
    edge_dst: Vec<Block>,
    edge_m: Vec<u32>,
    /// Sparse table, level-major with stride `edge_m.len()`: entry `k * ne + i` = index of a
    /// minimal `edge_m` in `i..i + 2^k`. Built on the first exit query that finds the scan
    /// budget spent.
    rmq: OnceLock<Vec<u64>>,
    /// Edges `edges_leaving` may still scan directly before it builds `rmq`: as many passes over
    /// the edges as the table has levels (a pass costs about what building one level does, so
    /// scanning first never costs much more than building at once, and most functions ask
    /// about a few ranges only). Only a cost heuristic: both ways give the same edges, so the
    /// relaxed atomics need no ordering.
    scan_budget: Budget,
    /// Per cycle, its exits inside its parent (all exits for a top-level cycle), in
    /// `getExitBlocks` order: CSR into `local_exits`.
    local_start: Vec<u32>,
    local_exits: Vec<Block>,
    exits_cache: Vec<OnceLock<Box<[Block]>>>,
    /// The exits of every cycle at once (CSR by cycle), when one scan of each cycle's edges is
    /// cheap (see `all_exits`); `None` when the nest is too deep, then `exits_cache` is used.
    exits_all: OnceLock<Option<AllExits>>,
    /// The exits of every reducible cycle at once (CSR by cycle, irreducible cycles' runs
    /// empty), built by `reducible_exits` when `exits_all` gave up and a caller asks for them
    /// all (the modified post-order, whose reducible headers send their labels to every exit).
    exits_red: OnceLock<AllExits>,
    /// Which cycles a divergent branch can make exit-divergent (see `exit_targets`): per cycle,
    /// bit 0 = some cycle on its ancestor-or-self chain has an exit whose innermost cycle has
    /// depth exactly `depth - 1`; bit 1 = one has an exit of depth `depth - 1` or more.
    target_flags: Vec<u8>,
    /// The cycle each block heads (`NONE`; `MULTI` if several do).
    headed: Vec<u32>,
    /// The climbs of deep nests (`Structure::climb_while_header_not_dominating`): the cover and,
    /// per cycle, the version holding its own and its ancestors' headers. Built on the first long
    /// climb.
    climb: OnceLock<(crate::cover::Cover, Vec<u32>)>,
    /// Per cycle id `i` (preorder): the largest depth among cycles `0..i`, and among `i..`
    /// (`max_depth_outside`). Built on first need.
    depth_bounds: OnceLock<(Vec<u32>, Vec<u32>)>,
    /// Cycles are numbered in preorder (parents before children), so a cycle's descendants are the
    /// ids `c+1..subtree_end[c]`.
    subtree_end: Vec<u32>,
    /// The top-level ancestor of each cycle.
    top: Vec<u32>,
    /// Binary lifting over the cycle tree, level-major with stride = number of cycles: entry
    /// `k * nc + c` is c's 2^k-th ancestor (or `NONE`), for O(log depth) level-ancestor and
    /// smallest-common-cycle queries in deep nests.
    up: Vec<u32>,
    up_levels: u32,
    // Construction scratch.
    /// The exit edges in edge order, with their owner (see `fill_tables`).
    owner_edges: Vec<(u32, Block)>,
    count: Vec<u32>,
    list: Vec<Block>,
    seen: Vec<u32>,
    open: Vec<(u32, u32)>,
}

/// `edges_leaving` scans at least this many times the edges directly before it builds its
/// range-minimum table (and up to its number of levels, see `Tables::scan_budget`).
const SCAN_PASSES: usize = 4;

/// A scan budget (see `Tables::scan_budget`); `Clone` copies the count.
#[derive(Debug, Default)]
struct Budget(AtomicUsize);

impl Clone for Budget {
    fn clone(&self) -> Budget {
        Budget(AtomicUsize::new(self.0.load(Ordering::Relaxed)))
    }
}

/// The exits of all cycles of a function, CSR by cycle.
#[derive(Clone, Debug, Default)]
struct AllExits {
    start: Vec<u32>,
    list: Vec<Block>,
}

thread_local! {
    /// The buffers of the last `Structure` dropped on this thread.
    static SPARE: RefCell<Option<(DominatorTree, CycleInfo, Tables)>> = const { RefCell::new(None) };
}

fn take_spare() -> (DominatorTree, CycleInfo, Tables) {
    SPARE
        .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.take()))
        .ok()
        .flatten()
        .unwrap_or_default()
}

impl Drop for Structure {
    fn drop(&mut self) {
        let parts = (
            std::mem::take(&mut self.dom),
            std::mem::take(&mut self.cycles),
            std::mem::take(&mut self.t),
        );
        let _ = SPARE.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut()
                && s.is_none()
            {
                *s = Some(parts);
            }
        });
    }
}

impl Structure {
    /// Computes dominators and cycles of `g` (cycles as LLVM 22 builds them).
    pub fn new<G: Graph>(g: &G) -> Structure {
        Structure::build(g, UnreachablePreds::Ignore)
    }

    /// As LLVM 19 builds cycles: an unreachable predecessor makes its block an extra entry.
    pub fn new_llvm19<G: Graph>(g: &G) -> Structure {
        Structure::build(g, UnreachablePreds::AreEntries)
    }

    fn build<G: Graph>(g: &G, mode: UnreachablePreds) -> Structure {
        let (mut dom, mut cycles, t) = take_spare();
        cycles.compute(g, mode);
        // Same tree as `DominatorTree::compute`; only the order of its children differs.
        dom.compute_from_dfs(g, cycles.dfs());
        Structure::assemble(g, dom, cycles, t)
    }

    /// Assembles the structure from a dominator tree and cycles already computed for `g`.
    pub fn from_parts<G: Graph>(g: &G, dom: DominatorTree, cycles: CycleInfo) -> Structure {
        let (_, _, t) = take_spare();
        Structure::assemble(g, dom, cycles, t)
    }

    fn assemble<G: Graph>(g: &G, dom: DominatorTree, cycles: CycleInfo, t: Tables) -> Structure {
        let mut s = Structure { dom, cycles, t };
        s.fill_tables(g);
        s
    }

    fn fill_tables<G: Graph>(&mut self, g: &G) {
        let cycles = &self.cycles;
        let t = &mut self.t;
        let nc = cycles.len();
        let n = g.num_blocks();
        t.parent.clear();
        t.depth.clear();
        t.top.clear();
        t.range.clear();
        let mut max_depth = 0;
        for c in 0..nc as u32 {
            let p = cycles.parent(Cycle(c)).map_or(NONE, |p| p.0);
            let d = cycles.depth(Cycle(c));
            max_depth = max_depth.max(d);
            t.parent.push(p);
            t.depth.push(d);
            t.top.push(cycles.outermost(Cycle(c)).0);
        }
        t.subtree_end.clear();
        t.subtree_end.extend(1..=nc as u32);
        for c in (0..nc).rev() {
            let p = t.parent[c];
            if p != NONE {
                debug_assert!(p < c as u32, "parents are numbered before children");
                t.subtree_end[p as usize] = t.subtree_end[p as usize].max(t.subtree_end[c]);
            }
        }
        t.up.clear();
        t.up_levels = 0;
        if nc > 0 {
            t.up.extend_from_slice(&t.parent);
            t.up_levels = 1;
            while (1u32 << t.up_levels) < max_depth {
                let base = (t.up_levels as usize - 1) * nc;
                for i in 0..nc {
                    let a = t.up[base + i];
                    let next = if a == NONE {
                        NONE
                    } else {
                        t.up[base + a as usize]
                    };
                    t.up.push(next);
                }
                t.up_levels += 1;
            }
        }
        // The layout: top-level cycles' slices, in cycle order, cover it, and every cycle's
        // blocks are one slice of it.
        let layout = cycles.layout();
        t.range
            .extend((0..nc as u32).map(|c| cycles.layout_range(Cycle(c))));
        // Edges, and with them each exit edge's owner: the outermost cycle it leaves (the child
        // of the smallest common cycle on the source's chain), for the local exits. Only exit
        // edges are listed with their owner (most edges stay in their source's cycle).
        // The tables written here are moved out of `t` for the pass and the ones read are local
        // slices: pushing through `t` kept the compiler reloading every table's pointer and
        // length from memory for each edge.
        let mut pos = std::mem::take(&mut t.pos);
        let mut edge_start = std::mem::take(&mut t.edge_start);
        let mut edge_dst = std::mem::take(&mut t.edge_dst);
        let mut edge_m = std::mem::take(&mut t.edge_m);
        let mut owner_edges = std::mem::take(&mut t.owner_edges);
        let mut count = std::mem::take(&mut t.count);
        pos.clear();
        pos.resize(n, NONE);
        // One start per layout position, written by position, and the end after the loop.
        edge_start.clear();
        edge_start.resize(layout.len() + 1, 0);
        edge_dst.clear();
        edge_m.clear();
        owner_edges.clear();
        count.clear();
        count.resize(nc + 1, 0);
        {
            let inner_of = &cycles.innermost_all()[..n];
            let (range, sub_end, depth) = (&t.range[..nc], &t.subtree_end[..nc], &t.depth[..nc]);
            let (pos, count, starts) = (&mut pos[..n], &mut count[..nc + 1], &mut edge_start[..]);
            let mut c = 0u32;
            for (p, &b) in layout.iter().enumerate() {
                // The top-level cycle holding position p (top-level cycles' slices are in order).
                while range[c as usize].1 as usize <= p {
                    c = sub_end[c as usize];
                }
                let top_end = sub_end[c as usize];
                pos[b.index()] = p as u32;
                starts[p] = edge_dst.len() as u32;
                // A layout block is in a cycle: `cb` is a cycle id.
                let cb = inner_of[b.index()];
                let (dcb, cb_end) = (depth[cb as usize], sub_end[cb as usize]);
                for &x in g.succs(b) {
                    let ix = inner_of[x.index()];
                    // `ix` is NONE (above every id) or a cycle id: outside c's subtree means the
                    // edge leaves the whole top-level cycle.
                    let (m, owner) = if !(c <= ix && ix < top_end) {
                        (0, c)
                    } else if cb <= ix && ix < cb_end {
                        (dcb, NONE)
                    } else {
                        t.exit_depth_and_owner(cb, ix)
                    };
                    edge_dst.push(x);
                    edge_m.push(m);
                    if owner != NONE {
                        owner_edges.push((owner, x));
                        count[owner as usize + 1] += 1;
                    }
                }
            }
        }
        edge_start[layout.len()] = edge_dst.len() as u32;
        t.pos = pos;
        t.edge_start = edge_start;
        t.edge_dst = edge_dst;
        t.edge_m = edge_m;
        t.owner_edges = owner_edges;
        t.count = count;
        t.rmq = OnceLock::new();
        let ne = t.edge_m.len();
        let levels = (usize::BITS - ne.leading_zeros()) as usize;
        t.scan_budget = Budget(AtomicUsize::new(SCAN_PASSES.max(levels) * ne));
        // Local exits: a stable counting sort by owner keeps edge order.
        for c in 0..nc {
            t.count[c + 1] += t.count[c];
        }
        t.list.clear();
        t.list.resize(t.count[nc] as usize, Block(0));
        for &(d, x) in &t.owner_edges {
            let slot = &mut t.count[d as usize];
            t.list[*slot as usize] = x;
            *slot += 1;
        }
        // `count[c]` is now the end of c's run (the start of c + 1's); deduplicate within each
        // cycle, keeping first occurrences.
        t.seen.clear();
        t.seen.resize(n, NONE);
        t.local_start.clear();
        t.local_exits.clear();
        let mut start = 0;
        for c in 0..nc {
            t.local_start.push(t.local_exits.len() as u32);
            let end = t.count[c] as usize;
            for &x in &t.list[start..end] {
                if t.seen[x.index()] != c as u32 {
                    t.seen[x.index()] = c as u32;
                    t.local_exits.push(x);
                }
            }
            start = end;
        }
        t.local_start.push(t.local_exits.len() as u32);
        t.exits_cache.clear();
        t.exits_cache.resize_with(nc, OnceLock::new);
        t.exits_all = OnceLock::new();
        t.exits_red = OnceLock::new();
        t.climb = OnceLock::new();
        t.depth_bounds = OnceLock::new();
        t.compute_target_flags(cycles, max_depth as usize);
        t.headed.clear();
        t.headed.resize(n, NONE);
        for c in 0..nc as u32 {
            let h = cycles.header(Cycle(c)).index();
            t.headed[h] = if t.headed[h] == NONE { c } else { MULTI };
        }
    }

    /// Starting from `c`, climbs while the parent's header does not properly dominate `j` and
    /// returns the last cycle reached (the diverged-entry rule). Deep nests make the climb long;
    /// when `j` has fewer dominators than `c` has ancestors, the deepest ancestor whose header
    /// properly dominates `j` is found among j's dominators instead.
    pub(crate) fn climb_while_header_not_dominating(&self, c: u32, j: Block) -> u32 {
        let dc = self.depth(c);
        // When both the dominator path and the climb are long (deep nests of irreducible cycles
        // under long dominator chains), one query of the ancestors' header intervals instead.
        #[cfg(test)]
        let long = if tests::CLIMB_COVER.with(|x| x.get()) {
            0
        } else {
            LONG_CLIMB
        };
        #[cfg(not(test))]
        let long = LONG_CLIMB;
        if dc > long && self.dom.level(j) > long && self.dom.is_reachable(j) {
            let (cover, versions) = self.climb_cover();
            let p = self.parent_raw(c);
            let root = if p == NONE {
                crate::cover::EMPTY
            } else {
                versions[p as usize]
            };
            let deepest = cover.query(root, self.dom.interval(j).0);
            return self.ancestor_at_depth(c, deepest + 1);
        }
        if self.dom.level(j) < dc {
            let mut best = NONE;
            let mut d = self.dom.idom(j);
            let mut ok = true;
            while let Some(b) = d {
                let p = self.t.headed[b.index()];
                if p == MULTI {
                    ok = false;
                    break;
                }
                if p != NONE
                    && p != c
                    && self.contains_cycle(p, c)
                    && (best == NONE || self.depth(p) > self.depth(best))
                {
                    best = p;
                }
                d = self.dom.idom(b);
            }
            if ok {
                return self.ancestor_at_depth(
                    c,
                    if best == NONE {
                        1
                    } else {
                        self.depth(best) + 1
                    },
                );
            }
        }
        let mut c = c;
        while let Some(p) = self.parent(c) {
            if self.properly_dominates(self.header(p), j) {
                break;
            }
            c = p;
        }
        c
    }

    /// The versions of [`crate::cover::Cover`] for the climb: cycle `c`'s holds, for every
    /// ancestor-or-self `p` of `c`, its depth over the positions its header properly dominates
    /// (the header's dominator-tree interval without the header itself). Cycles are numbered
    /// parents first, so each version extends its parent's.
    fn climb_cover(&self) -> &(crate::cover::Cover, Vec<u32>) {
        self.t.climb.get_or_init(|| {
            let mut cover = crate::cover::Cover::default();
            cover.reset(self.dom.preorder().len() as u32);
            let nc = self.num_cycles();
            let mut versions = Vec::with_capacity(nc);
            for c in 0..nc as u32 {
                let p = self.parent_raw(c);
                let base = if p == NONE {
                    crate::cover::EMPTY
                } else {
                    versions[p as usize]
                };
                let (lo, hi) = self.dom.interval(self.header(c));
                versions.push(cover.insert(base, lo + 1, hi, self.depth(c)));
            }
            (cover, versions)
        })
    }

    /// Can a divergent exit found for a branch whose innermost cycle is `t` make `c` (an
    /// ancestor-or-self of `t`) exit-divergent? `propagateCycleExitDivergence` picks the cycle of
    /// t's chain at depth `min(exit depth + 1, depth(t))` for an exit of any cycle on the chain:
    /// a strict ancestor is picked only through an exit of depth `depth(c) - 1`, `t` itself
    /// through any exit of depth `depth(t) - 1` or more.
    #[inline]
    pub(crate) fn may_be_exit_target(&self, c: u32, t: u32) -> bool {
        let f = self.t.target_flags[c as usize];
        if c == t { f & 2 != 0 } else { f & 1 != 0 }
    }

    /// The sparse table over `edge_m`, built on first use.
    fn rmq(&self) -> &[u64] {
        self.t.rmq.get_or_init(|| {
            let mut v = Vec::new();
            crate::rmq::build(&self.t.edge_m, &mut v);
            v
        })
    }

    /// Appends to `out` (unordered) the edges with source at layout positions `lo..hi` whose ends
    /// have no common cycle of depth `d` or more, i.e. the edges that leave the depth-`d` cycle
    /// around their source.
    pub(crate) fn edges_leaving(&self, lo: u32, hi: u32, d: u32, out: &mut Vec<u32>) {
        let (a, b) = (
            self.t.edge_start[lo as usize],
            self.t.edge_start[hi as usize],
        );
        if a == b {
            return;
        }
        if self.t.rmq.get().is_none() {
            let len = (b - a) as usize;
            let budget = self.t.scan_budget.0.load(Ordering::Relaxed);
            if len <= budget {
                self.t.scan_budget.0.store(budget - len, Ordering::Relaxed);
                let m = &self.t.edge_m[a as usize..b as usize];
                out.extend((a..b).zip(m).filter(|&(_, &m)| m < d).map(|(e, _)| e));
                return;
            }
        }
        crate::rmq::below(&self.t.edge_m, self.rmq(), a, b, d, out);
    }
    /// Layout position of the source of edge `e` (edges are stored by source position).
    #[inline]
    pub(crate) fn edge_src_pos(&self, e: u32) -> u32 {
        self.t.edge_start.partition_point(|&s| s <= e) as u32 - 1
    }
    #[inline]
    pub(crate) fn edge_dst(&self, e: u32) -> Block {
        self.t.edge_dst[e as usize]
    }
    #[inline]
    pub(crate) fn edge_m(&self, e: u32) -> u32 {
        self.t.edge_m[e as usize]
    }
    /// The slice `[start, end)` of the cycle block layout holding `c`'s blocks.
    #[inline]
    pub(crate) fn range(&self, c: u32) -> (u32, u32) {
        self.t.range[c as usize]
    }
    /// Position of `b` in the cycle block layout (the order of `blocks(c)` for every cycle `c`
    /// containing `b`), or `NONE`.
    #[inline]
    pub(crate) fn pos(&self, b: Block) -> u32 {
        self.t.pos[b.index()]
    }
    /// Exits of `c` that lie inside its parent (all exits of a top-level cycle), in
    /// `getExitBlocks` order.
    #[inline]
    pub(crate) fn local_exits(&self, c: u32) -> &[Block] {
        let t = &self.t;
        &t.local_exits[t.local_start[c as usize] as usize..t.local_start[c as usize + 1] as usize]
    }

    /// The largest depth of a cycle that is neither `c` nor nested in it (0 when there is
    /// none): cycles are numbered in preorder, so those are the ids before `c` and from
    /// `subtree_end(c)` on, and two prefix and suffix maxima answer at once.
    pub(crate) fn max_depth_outside(&self, c: u32) -> u32 {
        let (pre, suf) = self.t.depth_bounds.get_or_init(|| {
            let d = &self.t.depth;
            let mut pre = Vec::with_capacity(d.len() + 1);
            let mut m = 0;
            pre.push(0);
            for &x in d {
                m = m.max(x);
                pre.push(m);
            }
            let mut suf = vec![0; d.len() + 1];
            for i in (0..d.len()).rev() {
                suf[i] = suf[i + 1].max(d[i]);
            }
            (pre, suf)
        });
        pre[c as usize].max(suf[self.t.subtree_end[c as usize] as usize])
    }

    /// One past the last descendant of `c` in the cycle numbering.
    #[inline]
    pub(crate) fn subtree_end(&self, c: u32) -> u32 {
        self.t.subtree_end[c as usize]
    }
    #[inline]
    pub(crate) fn top(&self, c: u32) -> u32 {
        self.t.top[c as usize]
    }

    /// The ancestor-or-self of `c` at depth `d` (`d <= depth(c)`, `d >= 1`).
    #[inline]
    pub(crate) fn ancestor_at_depth(&self, c: u32, d: u32) -> u32 {
        self.t.ancestor_at_depth(c, d)
    }

    /// The smallest cycle containing both cycles, or `NONE`.
    #[inline]
    pub(crate) fn common_cycle(&self, a: u32, b: u32) -> u32 {
        self.t.common_cycle(a, b)
    }

    /// The smallest cycle containing both cycles (`None` when no cycle does, or either is
    /// `None`), in O(log depth) by the binary-lifting table.
    #[inline]
    pub fn smallest_common_cycle(&self, a: Option<u32>, b: Option<u32>) -> Option<u32> {
        let c = self.t.common_cycle(a.unwrap_or(NONE), b.unwrap_or(NONE));
        (c != NONE).then_some(c)
    }

    /// Number of cycles (ids `0..num_cycles`).
    pub fn num_cycles(&self) -> usize {
        self.cycles.len()
    }
    /// Whether `b` is reachable from the entry.
    #[inline]
    pub fn is_reachable(&self, b: Block) -> bool {
        self.dom.is_reachable(b)
    }
    /// Whether `a` dominates `b` and `a != b`.
    #[inline]
    pub fn properly_dominates(&self, a: Block, b: Block) -> bool {
        self.dom.properly_dominates(a, b)
    }
    #[inline]
    pub(crate) fn idom_raw(&self, b: Block) -> u32 {
        self.dom.idom(b).map_or(NONE, |d| d.0)
    }
    /// The innermost cycle of `b`, or `NONE`.
    #[inline]
    pub(crate) fn inner(&self, b: Block) -> u32 {
        self.cycles.innermost_raw(b)
    }
    /// The innermost cycle containing `b`, if any.
    #[inline]
    pub fn cycle_of(&self, b: Block) -> Option<u32> {
        self.cycles.cycle_of(b).map(|c| c.0)
    }
    #[inline]
    pub(crate) fn parent_raw(&self, c: u32) -> u32 {
        self.t.parent[c as usize]
    }
    /// The cycle `c` is directly nested in, if any.
    #[inline]
    pub fn parent(&self, c: u32) -> Option<u32> {
        let p = self.t.parent[c as usize];
        (p != NONE).then_some(p)
    }
    /// Nesting depth of `c` (top-level cycles have depth 1).
    #[inline]
    pub fn depth(&self, c: u32) -> u32 {
        self.t.depth[c as usize]
    }
    /// Whether `inner` is `outer` or nested in it.
    #[inline]
    pub fn contains_cycle(&self, outer: u32, inner: u32) -> bool {
        outer <= inner && inner < self.t.subtree_end[outer as usize]
    }
    /// Whether block `b` is in cycle `c` (or a cycle nested in it).
    #[inline]
    pub fn contains(&self, c: u32, b: Block) -> bool {
        let i = self.inner(b);
        i != NONE && self.contains_cycle(c, i)
    }
    /// Entry blocks of `c` (the header first).
    pub fn entries(&self, c: u32) -> &[Block] {
        self.cycles.entries(Cycle(c))
    }
    /// Blocks of `c`, nested cycles' blocks included.
    pub fn blocks(&self, c: u32) -> &[Block] {
        self.cycles.blocks(Cycle(c))
    }
    /// Exit blocks of `c` (successors of its blocks outside it), unique, in LLVM's
    /// `getExitBlocks` order; computed on first use in time proportional to the exit edges.
    pub fn exits(&self, c: u32) -> &[Block] {
        if let Some(all) = self.all_exits() {
            let (a, b) = (all.start[c as usize], all.start[c as usize + 1]);
            return &all.list[a as usize..b as usize];
        }
        if let Some(red) = self.t.exits_red.get()
            && self.is_reducible(c)
        {
            let (a, b) = (red.start[c as usize], red.start[c as usize + 1]);
            return &red.list[a as usize..b as usize];
        }
        self.t.exits_cache[c as usize].get_or_init(|| {
            let (lo, hi) = self.range(c);
            let mut edges = Vec::new();
            self.edges_leaving(lo, hi, self.depth(c), &mut edges);
            edges.sort_unstable();
            let mut keyed: Vec<(Block, u32)> = edges
                .iter()
                .enumerate()
                .map(|(k, &e)| (self.edge_dst(e), k as u32))
                .collect();
            keyed.sort_unstable();
            keyed.dedup_by_key(|x| x.0);
            keyed.sort_unstable_by_key(|x| x.1);
            keyed.iter().map(|x| x.0).collect()
        })
    }

    /// The exits of every cycle, computed together on the first exit query (every modified
    /// post-order asks for the exits of all reducible cycles; one cycle at a time costs a range
    /// query, three sorts and an allocation each). In shallow nests each cycle's edges are
    /// scanned (keeping those whose ends' smallest common cycle is shallower than it). Else: an
    /// edge leaves the cycles of its source's
    /// chain deeper than the smallest cycle holding both ends, so each exit edge is listed for
    /// those cycles (a walk up the parents), grouped by cycle by a stable counting sort, and
    /// deduplicated keeping first occurrences: edges are stored by source layout position in
    /// successor order, so that is LLVM's `getExitBlocks` order, as `exits` gives per cycle.
    /// The cost is the number of (edge, cycle left) pairs; when an edge leaves many cycles of a
    /// deep nest that number can be quadratic, and then `None`: one cycle at a time.
    fn all_exits(&self) -> Option<&AllExits> {
        self.t
            .exits_all
            .get_or_init(|| {
                let t = &self.t;
                let nc = t.range.len();
                let ne = t.edge_m.len();
                #[cfg(test)]
                let forced = tests::EXITS_PATH.with(|c| c.get());
                #[cfg(not(test))]
                let forced = 0;
                if forced == 3 {
                    return None;
                }
                let mut seen = vec![NONE; t.pos.len()];
                // Shallow nests: scanning each cycle's edges is cheapest.
                let scanned: u64 = t
                    .range
                    .iter()
                    .map(|&(lo, hi)| (t.edge_start[hi as usize] - t.edge_start[lo as usize]) as u64)
                    .sum();
                if forced == 1 || forced == 0 && scanned <= 3 * ne as u64 + 64 {
                    let mut start = Vec::with_capacity(nc + 1);
                    let mut list = Vec::new();
                    for c in 0..nc as u32 {
                        start.push(list.len() as u32);
                        let (lo, hi) = t.range[c as usize];
                        let (a, b) = (t.edge_start[lo as usize], t.edge_start[hi as usize]);
                        let d = t.depth[c as usize];
                        let (a, b) = (a as usize, b as usize);
                        // Zipped slices: one bounds check per cycle, not two per edge.
                        for (&x, &m) in t.edge_dst[a..b].iter().zip(&t.edge_m[a..b]) {
                            if m < d && seen[x.index()] != c {
                                seen[x.index()] = c;
                                list.push(x);
                            }
                        }
                    }
                    start.push(list.len() as u32);
                    return Some(AllExits { start, list });
                }
                // One pass over the edges with the innermost cycle of their source lists the
                // (cycle left, edge) pairs; it gives up once they outnumber the cap, which it
                // passes exactly when their total does (the list only grows).
                let cap = if forced == 0 { 4 * ne + 64 } else { usize::MAX };
                let mut count = vec![0u32; nc + 1];
                let mut left: Vec<(u32, u32)> = Vec::with_capacity(ne);
                let mut p = 0;
                for c in 0..nc as u32 {
                    if t.parent[c as usize] != NONE {
                        continue;
                    }
                    for &b in self.cycles.blocks(Cycle(c)) {
                        let cs = self.inner(b);
                        let (a, z) = (t.edge_start[p], t.edge_start[p + 1]);
                        for e in a..z {
                            let m = t.edge_m[e as usize];
                            let mut c = cs;
                            while c != NONE && t.depth[c as usize] > m {
                                left.push((c, e));
                                count[c as usize + 1] += 1;
                                c = t.parent[c as usize];
                            }
                        }
                        p += 1;
                        if left.len() > cap {
                            return None;
                        }
                    }
                }
                for c in 0..nc {
                    count[c + 1] += count[c];
                }
                let mut list = vec![Block(0); left.len()];
                let mut slot = count.clone();
                for &(c, e) in &left {
                    list[slot[c as usize] as usize] = t.edge_dst[e as usize];
                    slot[c as usize] += 1;
                }
                // Deduplicate each cycle's run in place.
                let mut start = Vec::with_capacity(nc + 1);
                let mut w = 0;
                for c in 0..nc {
                    start.push(w as u32);
                    for r in count[c] as usize..count[c + 1] as usize {
                        let x = list[r];
                        if seen[x.index()] != c as u32 {
                            seen[x.index()] = c as u32;
                            list[w] = x;
                            w += 1;
                        }
                    }
                }
                start.push(w as u32);
                list.truncate(w);
                Some(AllExits { start, list })
            })
            .as_ref()
    }

    /// Prepares the exits of every reducible cycle for callers that read them all (the modified
    /// post-order). When `all_exits` gives up (a deep nest: the (edge, cycle left) pairs
    /// outnumber the edges), each cycle's exits cost a range query per exit edge and sorts, and
    /// in deep irreducible nests whose reducible cycles hold most of the function (issue 13's
    /// `dag-dense`: 445 reducible cycles of 36,000 blocks on average, 8,000 exits each, at
    /// 64,000 blocks) that was two thirds of the analysis. Here an edge is listed only for the
    /// reducible cycles it leaves, reached from its source's innermost cycle by a pointer to the
    /// nearest reducible ancestor (not through the irreducible levels between them), counted
    /// first and then placed (a stable counting sort: each cycle's run stays in edge order, which
    /// is `getExitBlocks` order), and deduplicated keeping first occurrences: the cost is the
    /// reducible cycles' exit edges, with no sort and no query.
    pub(crate) fn reducible_exits(&self) {
        if self.all_exits().is_some() {
            return;
        }
        self.t.exits_red.get_or_init(|| {
            let t = &self.t;
            let nc = t.range.len();
            // The nearest reducible strict ancestor of each cycle (parents are numbered first).
            // Per cycle (and a sentinel `nc` of depth 0, where every climb stops): its depth and
            // its nearest reducible strict ancestor (parents are numbered first). One array, so
            // each step of the climb below reads one entry.
            let mut up = vec![(0u32, nc as u32); nc + 1];
            for c in 0..nc {
                let p = t.parent[c];
                let rp = if p == NONE {
                    nc as u32
                } else if self.is_reducible(p) {
                    p
                } else {
                    up[p as usize].1
                };
                up[c] = (t.depth[c], rp);
            }
            // Two passes over the (reducible cycle left, edge) pairs: count, then place.
            let mut start = vec![0u32; nc + 2];
            let mut list = Vec::new();
            for pass in 0..2 {
                if pass == 1 {
                    for c in 0..nc {
                        start[c + 1] += start[c];
                    }
                    list = vec![Block(0); start[nc] as usize];
                }
                let mut p = 0;
                for c in 0..nc as u32 {
                    if t.parent[c as usize] != NONE {
                        continue;
                    }
                    for &b in self.cycles.blocks(Cycle(c)) {
                        let ib = self.inner(b);
                        let first = if self.is_reducible(ib) {
                            ib
                        } else {
                            up[ib as usize].1
                        };
                        let (a, z) = (t.edge_start[p] as usize, t.edge_start[p + 1] as usize);
                        p += 1;
                        for (&m, &dst) in t.edge_m[a..z].iter().zip(&t.edge_dst[a..z]) {
                            let mut x = first as usize;
                            loop {
                                let (d, rp) = up[x];
                                if d <= m {
                                    break;
                                }
                                if pass == 0 {
                                    start[x + 1] += 1;
                                } else {
                                    // `start[x]` is the next free slot of x's run until the
                                    // shift below.
                                    list[start[x] as usize] = dst;
                                    start[x] += 1;
                                }
                                x = rp as usize;
                            }
                        }
                    }
                }
            }
            // Each run ended where the next begins: shift back, then deduplicate in place.
            for c in (0..nc).rev() {
                start[c + 1] = start[c];
            }
            start[0] = 0;
            let mut seen = vec![NONE; t.pos.len()];
            let mut w = 0;
            let mut r = 0;
            for c in 0..nc {
                let end = start[c + 1] as usize;
                start[c] = w as u32;
                while r < end {
                    let x = list[r];
                    r += 1;
                    if seen[x.index()] != c as u32 {
                        seen[x.index()] = c as u32;
                        list[w] = x;
                        w += 1;
                    }
                }
            }
            start[nc] = w as u32;
            start.truncate(nc + 1);
            list.truncate(w);
            AllExits { start, list }
        });
    }

    /// Whether `reducible_exits` listed every reducible cycle's exits at once.
    #[cfg(test)]
    pub(crate) fn reducible_exits_listed(&self) -> bool {
        self.t.exits_red.get().is_some()
    }

    /// The header of `c` (its first entry).
    #[inline]
    pub fn header(&self, c: u32) -> Block {
        self.cycles.header(Cycle(c))
    }
    /// Whether `c` has a single entry.
    #[inline]
    pub fn is_reducible(&self, c: u32) -> bool {
        self.cycles.is_reducible(Cycle(c))
    }
}

impl Tables {
    /// For an edge from a block of `cb` into `ix`, both in one top-level cycle but `ix` outside
    /// `cb`: the depth of their smallest common cycle and the child of it on cb's chain. A short
    /// walk up the parents, with binary lifting when the edge leaves many levels.
    fn exit_depth_and_owner(&self, cb: u32, ix: u32) -> (u32, u32) {
        let mut prev = cb;
        let mut c = self.parent[cb as usize];
        for _ in 0..WALK_LIMIT {
            if c == NONE {
                return (0, prev);
            }
            if c <= ix && ix < self.subtree_end[c as usize] {
                return (self.depth[c as usize], prev);
            }
            prev = c;
            c = self.parent[c as usize];
        }
        let common = self.common_cycle(cb, ix);
        let m = if common == NONE {
            0
        } else {
            self.depth[common as usize]
        };
        (m, self.ancestor_at_depth(cb, m + 1))
    }

    fn ancestor_at_depth(&self, mut c: u32, d: u32) -> u32 {
        let nc = self.parent.len();
        let mut diff = self.depth[c as usize] - d;
        let mut k = 0;
        while diff > 0 {
            if diff & 1 == 1 {
                c = self.up[k * nc + c as usize];
            }
            diff >>= 1;
            k += 1;
        }
        c
    }

    fn common_cycle(&self, a: u32, b: u32) -> u32 {
        if a == NONE || b == NONE {
            return NONE;
        }
        let nc = self.parent.len();
        let (da, db) = (self.depth[a as usize], self.depth[b as usize]);
        let (mut a, mut b) = if da > db {
            (self.ancestor_at_depth(a, db), b)
        } else {
            (a, self.ancestor_at_depth(b, da))
        };
        if a == b {
            return a;
        }
        for k in (0..self.up_levels as usize).rev() {
            let (x, y) = (self.up[k * nc + a as usize], self.up[k * nc + b as usize]);
            if x != y {
                a = x;
                b = y;
            }
        }
        self.parent[a as usize]
    }

    /// Every exit of a cycle on c's chain is a local exit of one of them, so a preorder walk of the
    /// cycle tree that counts the local exits' depths along the current chain answers "is depth
    /// d among the chain's exit depths" in O(1), in O(cycles + edges) overall.
    fn compute_target_flags(&mut self, cycles: &CycleInfo, max_depth: usize) {
        let nc = self.parent.len();
        let exit_depth = |x: Block| cycles.cycle_of(x).map_or(0, |c| self.depth[c.index()]);
        let local = |c: u32| {
            &self.local_exits
                [self.local_start[c as usize] as usize..self.local_start[c as usize + 1] as usize]
        };
        let count = &mut self.count;
        count.clear();
        count.resize(max_depth + 1, 0);
        self.target_flags.clear();
        // Per open cycle: its id and the largest exit depth on its chain (`NONE`: no exits).
        let open = &mut self.open;
        open.clear();
        for c in 0..nc as u32 {
            while let Some(&(o, _)) = open.last() {
                if c < self.subtree_end[o as usize] {
                    break;
                }
                open.pop();
                for &x in local(o) {
                    count[exit_depth(x) as usize] -= 1;
                }
            }
            let mut max = open.last().map_or(NONE, |&(_, m)| m);
            for &x in local(c) {
                let d = exit_depth(x);
                count[d as usize] += 1;
                max = if max == NONE { d } else { max.max(d) };
            }
            let dc = self.depth[c as usize];
            let exact = count[dc as usize - 1] > 0;
            let deep = max != NONE && (exact || max >= dc);
            self.target_flags.push(exact as u8 | (deep as u8) << 1);
            open.push((c, max));
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use converge_gen::cfg::{CfgParams, Shape, random_cfg};
    use converge_gen::program::{Flavor, Options, random_cfg as program_cfg};
    use converge_gen::rng::Rng;
    use converge_graph::Cfg;
    use std::cell::Cell;

    thread_local! {
        /// How `Structure::all_exits` computes the exits: 0 its choice, 1 the scan per cycle,
        /// 2 the (edge, cycle left) pairs, 3 one cycle at a time (`exits_cache`).
        pub(super) static EXITS_PATH: Cell<u8> = const { Cell::new(0) };
        /// Every climb by the ancestors' header intervals (`crate::cover`), however short.
        pub(super) static CLIMB_COVER: Cell<bool> = const { Cell::new(false) };
    }

    /// Case `k` of a test over CFGs: a random CFG of every shape (up to `4 + max` blocks) for
    /// the first `random` cases, then the benchmark's deep irreducible nests, growing by
    /// `nest.1` blocks from `nest.0`.
    fn case_cfg(rng: &mut Rng, k: usize, random: usize, max: usize, nest: (usize, usize)) -> Cfg {
        let succs: Vec<Vec<u32>> = if k < random {
            let shape = Shape::ALL[k % Shape::ALL.len()];
            random_cfg(rng, &CfgParams::new(shape, 4 + k % max)).succs
        } else {
            let mut opts = Options::new(Flavor::Amdgpu);
            opts.extra_edges_percent = 60;
            program_cfg(rng, nest.0 + nest.1 * (k - random), &opts)
        };
        Cfg::from_succs(
            Block(0),
            succs.len(),
            succs.iter().map(|s| s.iter().map(|&b| Block(b))),
        )
    }

    /// The exit lists of every way `exits` can compute them against LLVM's definition
    /// (`CycleInfo::exit_blocks`), on random CFGs of every shape and deep nests.
    #[test]
    fn every_exit_path_gives_llvm_order() {
        let mut rng = Rng::new(23);
        for k in 0..240 {
            let g = case_cfg(&mut rng, k, 200, 80, (60, 10));
            // Path 4: the per-cycle queries with every reducible cycle's exits listed at once.
            for path in 0..5 {
                EXITS_PATH.with(|c| c.set(path.min(3)));
                let s = Structure::new(&g);
                if path == 4 {
                    s.reducible_exits();
                    assert!(s.t.exits_red.get().is_some());
                }
                for c in 0..s.num_cycles() as u32 {
                    let naive = s.cycles.exit_blocks(&g, Cycle(c));
                    assert_eq!(s.exits(c), &naive[..], "case {k}, path {path}: cycle {c}");
                }
                EXITS_PATH.with(|c| c.set(0));
            }
        }
    }

    /// The range-minimum exit lists, local exits, target flags and the dominator-based climb
    /// against their definitions, on random CFGs of every shape (deep irreducible nests included).
    #[test]
    fn exit_queries_match_their_definitions() {
        let mut rng = Rng::new(11);
        let mut dominator_path = 0;
        for k in 0..320 {
            let g = case_cfg(&mut rng, k, 300, 60, (100, 20));
            let s = Structure::new(&g);
            let nc = s.num_cycles() as u32;
            for c in 0..nc {
                let naive = s.cycles.exit_blocks(&g, Cycle(c));
                assert_eq!(s.exits(c), &naive[..], "case {k}: exits of cycle {c}");
                let p = s.parent_raw(c);
                let local: Vec<Block> = naive
                    .iter()
                    .copied()
                    .filter(|&x| p == NONE || s.contains(p, x))
                    .collect();
                assert_eq!(s.local_exits(c), &local[..], "case {k}: local exits of {c}");
            }
            // Target flags: from the exit depths of every cycle on the chain.
            for t in 0..nc {
                let mut depths = Vec::new();
                let mut x = t;
                while x != NONE {
                    depths.extend(s.exits(x).iter().map(|&e| s.cycles.cycle_depth(e)));
                    x = s.parent_raw(x);
                }
                let dt = s.depth(t);
                let mut c = t;
                while c != NONE {
                    let expect = depths.iter().any(|&d| (d + 1).min(dt) == s.depth(c));
                    assert_eq!(
                        s.may_be_exit_target(c, t),
                        expect,
                        "case {k}: target {c} of {t}"
                    );
                    c = s.parent_raw(c);
                }
            }
            // The climb: the direct walk up the parents.
            for c in 0..nc {
                for &j in s.blocks(c) {
                    let mut x = c;
                    while let Some(p) = s.parent(x) {
                        if s.properly_dominates(s.header(p), j) {
                            break;
                        }
                        x = p;
                    }
                    if s.dom.level(j) < s.depth(c) {
                        dominator_path += 1;
                    }
                    assert_eq!(s.climb_while_header_not_dominating(c, j), x, "case {k}");
                    CLIMB_COVER.with(|f| f.set(true));
                    let by_cover = s.climb_while_header_not_dominating(c, j);
                    CLIMB_COVER.with(|f| f.set(false));
                    assert_eq!(by_cover, x, "case {k}: the climb by header intervals");
                }
            }
        }
        assert!(dominator_path > 100, "the dominator walk is exercised");
    }
}
