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
    fn cycle_of(&self, b: Block) -> Option<Cycle> {
        self.cycles.cycle_of(b)
    }
    fn parent(&self, c: Cycle) -> Option<Cycle> {
        self.cycles.parent(c)
    }
    fn contains(&self, c: Cycle, b: Block) -> bool {
        self.cycles.contains(c, b)
    }
    fn entries(&self, c: Cycle) -> &[Block] {
        self.cycles.entries(c)
    }
    fn blocks(&self, c: Cycle) -> &[Block] {
        self.cycles.blocks(c)
    }
    fn depth(&self, c: Cycle) -> u32 {
        self.cycles.depth(c)
    }
}
