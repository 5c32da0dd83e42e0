//! The CFG structure the analysis queries: reachability and dominance (`converge_graph`'s
//! `DominatorTree`) and the cycle hierarchy (`converge_graph`'s LLVM-exact `CycleInfo`), plus each
//! cycle's exit blocks in LLVM's `getExitBlocks` order.
//!
//! Exit lists are never materialised for every cycle: in a deep nest their total size is
//! blocks × depth. Instead every edge leaving a cycle block is stored once, in the cycles' block
//! layout order (each cycle's blocks are one contiguous slice of it), with `m` = the depth of the
//! smallest cycle containing both ends. The edge exits exactly the cycles around its source deeper
//! than `m`, so a cycle's exit edges are the edges of its slice with `m` below its depth: a
//! sparse-table range-minimum over `m` reports them in time proportional to their number.
//! Full exit lists are built on first use and cached; the modified post-order only needs the
//! exits into the parent cycle ("local" exits), which partition the edges and are kept for all.

use converge_graph::{Block, Cycle, CycleInfo, DominatorTree, Graph};
use std::sync::OnceLock;

pub(crate) const NONE: u32 = u32::MAX;
const MULTI: u32 = u32::MAX - 1;

/// Dominator tree and cycle forest of one function.
#[derive(Clone, Debug)]
pub struct Structure {
    pub dom: DominatorTree,
    pub cycles: CycleInfo,
    /// Position of each block in the cycle block layout (`NONE` outside every cycle).
    pos: Vec<u32>,
    /// Per cycle, its slice `[start, end)` of the layout.
    range: Vec<(u32, u32)>,
    /// Edges out of cycle blocks, grouped by the source's layout position (CSR over positions),
    /// in successor order: target and depth of the smallest cycle containing both ends.
    edge_start: Vec<u32>,
    edge_dst: Vec<Block>,
    edge_m: Vec<u32>,
    /// Sparse table: `rmq[k][i]` = index of a minimal `edge_m` in `i..i + 2^k`.
    rmq: Vec<Vec<u32>>,
    /// Per cycle, its exits inside its parent (all exits for a top-level cycle), in
    /// `getExitBlocks` order: CSR into `local_exits`.
    local_start: Vec<u32>,
    local_exits: Vec<Block>,
    exits_cache: Vec<OnceLock<Box<[Block]>>>,
    /// Which cycles a divergent branch can make exit-divergent (see `exit_targets`): per cycle,
    /// bit 0 = some cycle on its ancestor-or-self chain has an exit whose innermost cycle has
    /// depth exactly `depth - 1`; bit 1 = one has an exit of depth `depth - 1` or more.
    target_flags: Vec<u8>,
    /// The cycle each block heads (`NONE`; `MULTI` if several do).
    headed: Vec<u32>,
    /// Cycles are numbered in preorder (parents before children), so a cycle's descendants are the
    /// ids `c+1..subtree_end[c]`.
    subtree_end: Vec<u32>,
    /// The top-level ancestor of each cycle.
    top: Vec<u32>,
    /// Binary lifting over the cycle tree: `up[k][c]` is c's 2^k-th ancestor (or `NONE`), for
    /// O(log depth) level-ancestor and smallest-common-cycle queries in deep nests.
    up: Vec<Vec<u32>>,
}

impl Structure {
    /// Computes dominators and cycles of `g` (cycles as LLVM 22 builds them).
    pub fn new<G: Graph>(g: &G) -> Structure {
        let dom = DominatorTree::new(g);
        let cycles = CycleInfo::new(g);
        Structure::from_parts(g, dom, cycles)
    }

    /// As LLVM 19 builds cycles: an unreachable predecessor makes its block an extra entry.
    pub fn new_llvm19<G: Graph>(g: &G) -> Structure {
        let dom = DominatorTree::new(g);
        let cycles = CycleInfo::with_mode(g, converge_graph::UnreachablePreds::AreEntries);
        Structure::from_parts(g, dom, cycles)
    }

    pub fn from_parts<G: Graph>(g: &G, dom: DominatorTree, cycles: CycleInfo) -> Structure {
        let nc = cycles.len();
        let n = g.num_blocks();
        let mut subtree_end: Vec<u32> = (1..=nc as u32).collect();
        for c in (0..nc).rev() {
            if let Some(p) = cycles.parent(Cycle(c as u32)) {
                debug_assert!(p.0 < c as u32, "parents are numbered before children");
                subtree_end[p.index()] = subtree_end[p.index()].max(subtree_end[c]);
            }
        }
        let mut top = vec![0u32; nc];
        for c in 0..nc {
            top[c] = cycles
                .parent(Cycle(c as u32))
                .map_or(c as u32, |p| top[p.index()]);
        }
        let max_depth = (0..nc as u32)
            .map(|c| cycles.depth(Cycle(c)))
            .max()
            .unwrap_or(0);
        let mut up: Vec<Vec<u32>> = Vec::new();
        if nc > 0 {
            up.push(
                (0..nc as u32)
                    .map(|c| cycles.parent(Cycle(c)).map_or(NONE, |p| p.0))
                    .collect(),
            );
            while (1u32 << up.len()) < max_depth {
                let prev = up.last().unwrap();
                let next: Vec<u32> = prev
                    .iter()
                    .map(|&a| if a == NONE { NONE } else { prev[a as usize] })
                    .collect();
                up.push(next);
            }
        }
        let mut s = Structure {
            dom,
            cycles,
            pos: vec![NONE; n],
            range: Vec::with_capacity(nc),
            edge_start: Vec::new(),
            edge_dst: Vec::new(),
            edge_m: Vec::new(),
            rmq: Vec::new(),
            local_start: Vec::new(),
            local_exits: Vec::new(),
            exits_cache: (0..nc).map(|_| OnceLock::new()).collect(),
            target_flags: vec![0; nc],
            headed: vec![NONE; n],
            subtree_end,
            top,
            up,
        };
        // The layout: top-level cycles' slices, in cycle order, cover it.
        let mut layout: Vec<Block> = Vec::new();
        for c in 0..nc as u32 {
            if s.parent_raw(c) == NONE {
                layout.extend_from_slice(s.cycles.blocks(Cycle(c)));
            }
        }
        for (p, &b) in layout.iter().enumerate() {
            s.pos[b.index()] = p as u32;
        }
        for c in 0..nc as u32 {
            let bl = s.cycles.blocks(Cycle(c));
            let start = s.pos[bl[0].index()];
            s.range.push((start, start + bl.len() as u32));
        }
        s.edge_start.reserve(layout.len() + 1);
        for &b in &layout {
            s.edge_start.push(s.edge_dst.len() as u32);
            let cb = s.inner(b);
            for &x in g.succs(b) {
                let common = s.common_cycle(cb, s.inner(x));
                s.edge_dst.push(x);
                s.edge_m
                    .push(if common == NONE { 0 } else { s.depth(common) });
            }
        }
        s.edge_start.push(s.edge_dst.len() as u32);
        let ne = s.edge_m.len();
        if ne > 0 {
            s.rmq.push((0..ne as u32).collect());
            let mut k = 1;
            while (1usize << k) <= ne {
                let prev = &s.rmq[k - 1];
                let half = 1usize << (k - 1);
                let next: Vec<u32> = (0..=ne - (1 << k))
                    .map(|i| {
                        let (a, b) = (prev[i], prev[i + half]);
                        if s.edge_m[b as usize] < s.edge_m[a as usize] {
                            b
                        } else {
                            a
                        }
                    })
                    .collect();
                s.rmq.push(next);
                k += 1;
            }
        }
        // Local exits: each exit edge belongs to the outermost cycle it leaves (the child of the
        // smallest common cycle on the source's chain); a stable counting sort keeps edge order.
        let mut owner = vec![NONE; ne];
        let mut count = vec![0u32; nc + 1];
        for (p, &b) in layout.iter().enumerate() {
            let cb = s.inner(b);
            for e in s.edge_start[p]..s.edge_start[p + 1] {
                let m = s.edge_m[e as usize];
                if s.depth(cb) > m {
                    let d = s.ancestor_at_depth(cb, m + 1);
                    owner[e as usize] = d;
                    count[d as usize + 1] += 1;
                }
            }
        }
        for c in 0..nc {
            count[c + 1] += count[c];
        }
        let mut fill = count.clone();
        let mut list = vec![Block(0); count[nc] as usize];
        for (&d, &x) in owner.iter().zip(&s.edge_dst) {
            if d != NONE {
                list[fill[d as usize] as usize] = x;
                fill[d as usize] += 1;
            }
        }
        // Deduplicate within each cycle, keeping first occurrences.
        let mut seen = vec![NONE; n];
        s.local_start.reserve(nc + 1);
        for c in 0..nc {
            s.local_start.push(s.local_exits.len() as u32);
            for &x in &list[count[c] as usize..count[c + 1] as usize] {
                if seen[x.index()] != c as u32 {
                    seen[x.index()] = c as u32;
                    s.local_exits.push(x);
                }
            }
        }
        s.local_start.push(s.local_exits.len() as u32);
        s.compute_target_flags(max_depth as usize);
        for c in 0..nc as u32 {
            let h = s.header(c).index();
            s.headed[h] = if s.headed[h] == NONE { c } else { MULTI };
        }
        s
    }

    /// Starting from `c`, climbs while the parent's header does not properly dominate `j` and
    /// returns the last cycle reached (the diverged-entry rule). Deep nests make the climb long;
    /// when `j` has fewer dominators than `c` has ancestors, the deepest ancestor whose header
    /// properly dominates `j` is found among j's dominators instead.
    pub(crate) fn climb_while_header_not_dominating(&self, c: u32, j: Block) -> u32 {
        let dc = self.depth(c);
        if self.dom.level(j) < dc {
            let mut best = NONE;
            let mut d = self.dom.idom(j);
            let mut ok = true;
            while let Some(b) = d {
                let p = self.headed[b.index()];
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

    /// Every exit of a cycle on c's chain is a local exit of one of them, so a preorder walk of the
    /// cycle tree that counts the local exits' depths along the current chain answers "is depth
    /// d among the chain's exit depths" in O(1), in O(cycles + edges) overall.
    fn compute_target_flags(&mut self, max_depth: usize) {
        let nc = self.num_cycles();
        let mut count = vec![0u32; max_depth + 1];
        // Per open cycle: its id and the largest exit depth on its chain (`NONE`: no exits).
        let mut open: Vec<(u32, u32)> = Vec::new();
        for c in 0..nc as u32 {
            while let Some(&(o, _)) = open.last() {
                if c < self.subtree_end(o) {
                    break;
                }
                open.pop();
                for &x in self.local_exits(o) {
                    count[self.cycles.cycle_depth(x) as usize] -= 1;
                }
            }
            let mut max = open.last().map_or(NONE, |&(_, m)| m);
            for &x in self.local_exits(c) {
                let d = self.cycles.cycle_depth(x);
                count[d as usize] += 1;
                max = if max == NONE { d } else { max.max(d) };
            }
            let dc = self.depth(c);
            let exact = count[dc as usize - 1] > 0;
            let deep = max != NONE && (exact || max >= dc);
            self.target_flags[c as usize] = exact as u8 | (deep as u8) << 1;
            open.push((c, max));
        }
    }

    /// Can a divergent exit found for a branch whose innermost cycle is `t` make `c` (an
    /// ancestor-or-self of `t`) exit-divergent? `propagateCycleExitDivergence` picks the cycle of
    /// t's chain at depth `min(exit depth + 1, depth(t))` for an exit of any cycle on the chain:
    /// a strict ancestor is picked only through an exit of depth `depth(c) - 1`, `t` itself
    /// through any exit of depth `depth(t) - 1` or more.
    #[inline]
    pub(crate) fn may_be_exit_target(&self, c: u32, t: u32) -> bool {
        let f = self.target_flags[c as usize];
        if c == t { f & 2 != 0 } else { f & 1 != 0 }
    }

    /// Index of a minimal `edge_m` in `lo..=hi`.
    #[inline]
    fn argmin(&self, lo: usize, hi: usize) -> u32 {
        let k = (usize::BITS - 1 - (hi - lo + 1).leading_zeros()) as usize;
        let (a, b) = (self.rmq[k][lo], self.rmq[k][hi + 1 - (1 << k)]);
        if self.edge_m[b as usize] < self.edge_m[a as usize] {
            b
        } else {
            a
        }
    }

    /// Appends to `out` (unordered) the edges with source at layout positions `lo..hi` whose ends
    /// have no common cycle of depth `d` or more, i.e. the edges that leave the depth-`d` cycle
    /// around their source.
    pub(crate) fn edges_leaving(&self, lo: u32, hi: u32, d: u32, out: &mut Vec<u32>) {
        let (a, b) = (self.edge_start[lo as usize], self.edge_start[hi as usize]);
        if a == b {
            return;
        }
        let mut stack = vec![(a, b)];
        while let Some((a, b)) = stack.pop() {
            let i = self.argmin(a as usize, b as usize - 1);
            if self.edge_m[i as usize] >= d {
                continue;
            }
            out.push(i);
            if a < i {
                stack.push((a, i));
            }
            if i + 1 < b {
                stack.push((i + 1, b));
            }
        }
    }
    #[inline]
    pub(crate) fn edge_dst(&self, e: u32) -> Block {
        self.edge_dst[e as usize]
    }
    #[inline]
    pub(crate) fn edge_m(&self, e: u32) -> u32 {
        self.edge_m[e as usize]
    }
    /// The slice `[start, end)` of the cycle block layout holding `c`'s blocks.
    #[inline]
    pub(crate) fn range(&self, c: u32) -> (u32, u32) {
        self.range[c as usize]
    }
    /// Position of `b` in the cycle block layout (the order of `blocks(c)` for every cycle `c`
    /// containing `b`), or `NONE`.
    #[inline]
    pub(crate) fn pos(&self, b: Block) -> u32 {
        self.pos[b.index()]
    }
    /// Exits of `c` that lie inside its parent (all exits of a top-level cycle), in
    /// `getExitBlocks` order.
    #[inline]
    pub(crate) fn local_exits(&self, c: u32) -> &[Block] {
        &self.local_exits
            [self.local_start[c as usize] as usize..self.local_start[c as usize + 1] as usize]
    }

    /// One past the last descendant of `c` in the cycle numbering.
    #[inline]
    pub(crate) fn subtree_end(&self, c: u32) -> u32 {
        self.subtree_end[c as usize]
    }
    #[inline]
    pub(crate) fn top(&self, c: u32) -> u32 {
        self.top[c as usize]
    }

    /// The ancestor-or-self of `c` at depth `d` (`d <= depth(c)`, `d >= 1`).
    pub(crate) fn ancestor_at_depth(&self, mut c: u32, d: u32) -> u32 {
        let mut diff = self.depth(c) - d;
        let mut k = 0;
        while diff > 0 {
            if diff & 1 == 1 {
                c = self.up[k][c as usize];
            }
            diff >>= 1;
            k += 1;
        }
        c
    }

    /// The smallest cycle containing both cycles, or `NONE`.
    pub(crate) fn common_cycle(&self, a: u32, b: u32) -> u32 {
        if a == NONE || b == NONE {
            return NONE;
        }
        let (da, db) = (self.depth(a), self.depth(b));
        let (mut a, mut b) = if da > db {
            (self.ancestor_at_depth(a, db), b)
        } else {
            (a, self.ancestor_at_depth(b, da))
        };
        if a == b {
            return a;
        }
        for k in (0..self.up.len()).rev() {
            let (x, y) = (self.up[k][a as usize], self.up[k][b as usize]);
            if x != y {
                a = x;
                b = y;
            }
        }
        self.up[0][a as usize]
    }

    pub fn num_cycles(&self) -> usize {
        self.cycles.len()
    }
    #[inline]
    pub fn is_reachable(&self, b: Block) -> bool {
        self.dom.is_reachable(b)
    }
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
        self.cycles.cycle_of(b).map_or(NONE, |c| c.0)
    }
    #[inline]
    pub fn cycle_of(&self, b: Block) -> Option<u32> {
        self.cycles.cycle_of(b).map(|c| c.0)
    }
    #[inline]
    pub(crate) fn parent_raw(&self, c: u32) -> u32 {
        self.cycles.parent(Cycle(c)).map_or(NONE, |p| p.0)
    }
    #[inline]
    pub fn parent(&self, c: u32) -> Option<u32> {
        self.cycles.parent(Cycle(c)).map(|p| p.0)
    }
    #[inline]
    pub fn depth(&self, c: u32) -> u32 {
        self.cycles.depth(Cycle(c))
    }
    #[inline]
    pub fn contains_cycle(&self, outer: u32, inner: u32) -> bool {
        self.cycles.contains_cycle(Cycle(outer), Cycle(inner))
    }
    #[inline]
    pub fn contains(&self, c: u32, b: Block) -> bool {
        self.cycles.contains(Cycle(c), b)
    }
    pub fn entries(&self, c: u32) -> &[Block] {
        self.cycles.entries(Cycle(c))
    }
    pub fn blocks(&self, c: u32) -> &[Block] {
        self.cycles.blocks(Cycle(c))
    }
    /// Exit blocks of `c` (successors of its blocks outside it), unique, in LLVM's
    /// `getExitBlocks` order; computed on first use in time proportional to the exit edges.
    pub fn exits(&self, c: u32) -> &[Block] {
        self.exits_cache[c as usize].get_or_init(|| {
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

    #[inline]
    pub fn header(&self, c: u32) -> Block {
        self.cycles.header(Cycle(c))
    }
    #[inline]
    pub fn is_reducible(&self, c: u32) -> bool {
        self.cycles.is_reducible(Cycle(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use converge_gen::cfg::{CfgParams, Shape, random_cfg};
    use converge_gen::program::{Flavor, Options, random_cfg as program_cfg};
    use converge_gen::rng::Rng;
    use converge_graph::Cfg;

    /// The range-minimum exit lists, local exits, target flags and the dominator-based climb
    /// against their definitions, on random CFGs of every shape (deep irreducible nests included).
    #[test]
    fn exit_queries_match_their_definitions() {
        let mut rng = Rng::new(11);
        let mut dominator_path = 0;
        for k in 0..320 {
            // The last cases: the benchmark's deep irreducible nests.
            let succs: Vec<Vec<u32>> = if k < 300 {
                let shape = Shape::ALL[k % Shape::ALL.len()];
                random_cfg(&mut rng, &CfgParams::new(shape, 4 + k % 60)).succs
            } else {
                let mut opts = Options::new(Flavor::Amdgpu);
                opts.extra_edges_percent = 60;
                program_cfg(&mut rng, 100 + 20 * (k - 300), &opts)
            };
            let n = succs.len();
            let g = Cfg::from_succs(
                Block(0),
                n,
                succs.iter().map(|s| s.iter().map(|&b| Block(b))),
            );
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
                }
            }
        }
        assert!(dominator_path > 100, "the dominator walk is exercised");
    }
}
