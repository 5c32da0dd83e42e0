//! The depth-first search LLVM's cycle analysis is built on (`GenericCycleInfoCompute::dfs` in
//! LLVM's `GenericCycleImpl.h`): iterative, from the entry, exploring the **last successor first**
//! (the legacy single-LIFO-stack order). It records each reached block's preorder number (`start`,
//! counted from 1) and the largest preorder number in its DFS subtree (`end`), so ancestry in the DFS
//! tree is an interval test. Unreachable blocks keep `(0, 0)` and are nobody's descendant.

use crate::{Block, Graph};

/// Preorder numbers and subtree intervals of the cycle-analysis DFS. Reusable: [`CycleDfs::compute`]
/// keeps its allocations.
#[derive(Clone, Debug, Default)]
pub struct CycleDfs {
    /// Per block `(start, end)`, together for locality: every ancestor test reads both.
    info: Vec<(u32, u32)>,
    preorder: Vec<Block>,
    stack: Vec<(Block, u32)>,
}

impl CycleDfs {
    pub fn new<G: Graph + ?Sized>(g: &G) -> CycleDfs {
        let mut d = CycleDfs::default();
        d.compute(g);
        d
    }

    /// Recomputes for `g`, reusing the buffers.
    pub fn compute<G: Graph + ?Sized>(&mut self, g: &G) {
        let n = g.num_blocks();
        self.info.clear();
        self.info.resize(n, (0, 0));
        self.preorder.clear();
        self.stack.clear();
        if n == 0 {
            return;
        }
        let mut counter = 0u32;
        let entry = g.entry();
        counter += 1;
        self.info[entry.index()].0 = counter;
        self.preorder.push(entry);
        // Each frame holds how many successors are still unexplored; they are taken from the back.
        self.stack.push((entry, g.succs(entry).len() as u32));
        while let Some(top) = self.stack.last_mut() {
            let (b, left) = *top;
            let succs = g.succs(b);
            let mut next = None;
            let mut i = left;
            while i > 0 {
                i -= 1;
                let s = succs[i as usize];
                if self.info[s.index()].0 == 0 {
                    next = Some(s);
                    break;
                }
            }
            top.1 = i;
            match next {
                Some(s) => {
                    counter += 1;
                    self.info[s.index()].0 = counter;
                    self.preorder.push(s);
                    self.stack.push((s, g.succs(s).len() as u32));
                }
                None => {
                    self.info[b.index()].1 = counter;
                    self.stack.pop();
                }
            }
        }
    }

    /// Reached blocks in preorder.
    pub fn preorder(&self) -> &[Block] {
        &self.preorder
    }
    /// Preorder number, from 1; 0 for an unreachable block.
    #[inline]
    pub fn start(&self, b: Block) -> u32 {
        self.info[b.index()].0
    }
    /// Largest preorder number in `b`'s DFS subtree; 0 for an unreachable block.
    #[inline]
    pub fn end(&self, b: Block) -> u32 {
        self.info[b.index()].1
    }
    #[inline]
    pub fn is_reachable(&self, b: Block) -> bool {
        self.info[b.index()].0 != 0
    }
    /// Whether `a` is an ancestor of `x` in the DFS tree (reflexive). Never true when `x` is
    /// unreachable.
    #[inline]
    pub fn is_ancestor(&self, a: Block, x: Block) -> bool {
        let (a, x) = (self.info[a.index()], self.info[x.index()]);
        a.0 <= x.0 && x.1 <= a.1 && x.0 != 0
    }
}
