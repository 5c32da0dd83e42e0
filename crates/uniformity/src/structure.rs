//! The CFG structure the analysis queries: reachability and dominance (`converge_graph`'s
//! `DominatorTree`) and the cycle hierarchy (`converge_graph`'s LLVM-exact `CycleInfo`), plus each
//! cycle's exit blocks in LLVM's `getExitBlocks` order, computed once for all cycles.

use converge_graph::{Block, Cycle, CycleInfo, DominatorTree, Graph};

pub(crate) const NONE: u32 = u32::MAX;

/// Dominator tree and cycle forest of one function.
#[derive(Clone, Debug)]
pub struct Structure {
    pub dom: DominatorTree,
    pub cycles: CycleInfo,
    exit_start: Vec<u32>,
    exit_pool: Vec<Block>,
    /// Each cycle's exits again, grouped by the depth of the exit's innermost cycle (all exits of
    /// one group make the same cycle around a branch "exit-divergent"): per cycle a range of
    /// `groups`, each group `(depth, start, end)` into `grouped_exits`.
    group_start: Vec<u32>,
    groups: Vec<(u32, u32, u32)>,
    grouped_exits: Vec<Block>,
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
        // Exit lists: an edge b→x exits every cycle on the chain from b's innermost cycle up to (not
        // including) the first one containing x. Visiting each cycle's blocks in its own order gives
        // `getExitBlocks` order; a stamp per block deduplicates within one cycle.
        let nc = cycles.len();
        let mut exit_start = Vec::with_capacity(nc + 1);
        let mut exit_pool = Vec::new();
        let mut seen = vec![NONE; g.num_blocks()];
        exit_start.push(0);
        for c in cycles.cycles() {
            for &b in cycles.blocks(c) {
                // Only edges leaving a block's own innermost chain can exit c.
                for &x in g.succs(b) {
                    if seen[x.index()] != c.0 && !cycles.contains(c, x) {
                        seen[x.index()] = c.0;
                        exit_pool.push(x);
                    }
                }
            }
            exit_start.push(exit_pool.len() as u32);
        }
        let mut group_start = Vec::with_capacity(nc + 1);
        let mut groups = Vec::new();
        let mut grouped_exits = Vec::with_capacity(exit_pool.len());
        group_start.push(0);
        let mut scratch: Vec<(u32, Block)> = Vec::new();
        for c in 0..nc {
            scratch.clear();
            for &x in &exit_pool[exit_start[c] as usize..exit_start[c + 1] as usize] {
                scratch.push((cycles.cycle_depth(x), x));
            }
            scratch.sort_by_key(|&(d, _)| d);
            let mut k = 0;
            while k < scratch.len() {
                let d = scratch[k].0;
                let start = grouped_exits.len() as u32;
                while k < scratch.len() && scratch[k].0 == d {
                    grouped_exits.push(scratch[k].1);
                    k += 1;
                }
                groups.push((d, start, grouped_exits.len() as u32));
            }
            group_start.push(groups.len() as u32);
        }
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
        Structure {
            dom,
            cycles,
            exit_start,
            exit_pool,
            group_start,
            groups,
            grouped_exits,
            subtree_end,
            top,
            up,
        }
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
    #[inline]
    pub fn exits(&self, c: u32) -> &[Block] {
        &self.exit_pool
            [self.exit_start[c as usize] as usize..self.exit_start[c as usize + 1] as usize]
    }
    /// `(depth of the exits' innermost cycle, exits)` groups of cycle `c`.
    pub(crate) fn exit_groups(&self, c: u32) -> impl Iterator<Item = (u32, &[Block])> + '_ {
        let r = self.group_start[c as usize] as usize..self.group_start[c as usize + 1] as usize;
        self.groups[r]
            .iter()
            .map(|&(d, a, b)| (d, &self.grouped_exits[a as usize..b as usize]))
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
