//! [`Structure`] from converge-graph: LLVM's reverse post-order, dominator tree and CycleInfo.

use crate::core::Structure;
use converge_graph::{Block, Cycle, CycleInfo, DominatorTree, Graph, Rpo, UnreachablePreds};

/// Dominator tree and cycle hierarchy of one function, from converge-graph.
pub struct GraphStructure {
    rpo: Rpo,
    dom: DominatorTree,
    cycles: CycleInfo,
}

impl GraphStructure {
    /// `mode`: how unreachable predecessors count for cycle entries (LLVM 22: ignored; 19: entries).
    pub fn new<G: Graph>(g: &G, mode: UnreachablePreds) -> GraphStructure {
        GraphStructure {
            rpo: Rpo::new(g),
            dom: DominatorTree::new(g),
            cycles: CycleInfo::with_mode(g, mode),
        }
    }
}

impl Structure for GraphStructure {
    fn rpo(&self) -> &[Block] {
        self.rpo.order()
    }
    fn dominates(&self, a: Block, b: Block) -> bool {
        self.dom.dominates(a, b)
    }
    fn cycle_of(&self, b: Block) -> Option<u32> {
        self.cycles.cycle_of(b).map(|c| c.0)
    }
    fn parent(&self, c: u32) -> Option<u32> {
        self.cycles.parent(Cycle(c)).map(|p| p.0)
    }
    fn contains(&self, c: u32, b: Block) -> bool {
        self.cycles.contains(Cycle(c), b)
    }
    fn entries(&self, c: u32) -> &[Block] {
        self.cycles.entries(Cycle(c))
    }
    fn blocks(&self, c: u32) -> &[Block] {
        self.cycles.blocks(Cycle(c))
    }
    fn depth(&self, c: u32) -> u32 {
        self.cycles.depth(Cycle(c))
    }
}
