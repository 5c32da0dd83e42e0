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
        Structure {
            dom,
            cycles,
            exit_start,
            exit_pool,
        }
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
        &self.exit_pool[self.exit_start[c as usize] as usize..self.exit_start[c as usize + 1] as usize]
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
