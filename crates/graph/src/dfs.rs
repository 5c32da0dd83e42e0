//! The depth-first search LLVM's cycle analysis (`CycleInfo`) is built on: iterative, from the
//! entry, exploring the **last successor first**
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
    /// Per preorder position: whether the block is the target of a DFS back edge (an edge from a
    /// block of its own subtree, itself included), i.e. a cycle header.
    back_edge_target: Vec<bool>,
    /// Per preorder position: the preorder number (from 1) of the DFS-tree parent, 0 for the entry.
    parent: Vec<u32>,
}

impl CycleDfs {
    /// Runs LLVM's cycle-analysis DFS on `g` from its entry.
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
        // The per-position tables are sized for every block up front and written by preorder
        // number (a bounds check instead of a capacity check and a length update per push), then
        // cut to the reached blocks.
        self.preorder.clear();
        self.preorder.resize(n, Block(0));
        self.back_edge_target.clear();
        self.back_edge_target.resize(n, false);
        self.parent.clear();
        self.parent.resize(n, 0);
        if n == 0 {
            return;
        }
        let entry = g.entry();
        let mut counter = 1u32;
        self.info[entry.index()].0 = counter;
        self.preorder[0] = entry;
        // Each frame holds its block's preorder number and the successors still unexplored;
        // they are taken from the back. The slices borrow `g`, so the stack is local (one
        // allocation per call).
        let mut stack: Vec<(u32, Block, &[Block])> = Vec::with_capacity(64);
        stack.push((counter, entry, g.succs(entry)));
        while let Some((num, b, rest)) = stack.last_mut() {
            let mut next = None;
            while let Some((&s, r)) = rest.split_last() {
                *rest = r;
                let (start, end) = self.info[s.index()];
                if start == 0 {
                    next = Some(s);
                    break;
                }
                // Started but not finished: `s` is on the DFS stack, an ancestor of `b`.
                if end == 0 {
                    self.back_edge_target[start as usize - 1] = true;
                }
            }
            match next {
                Some(s) => {
                    let parent = *num;
                    let i = counter as usize;
                    counter += 1;
                    self.info[s.index()].0 = counter;
                    self.preorder[i] = s;
                    self.parent[i] = parent;
                    stack.push((counter, s, g.succs(s)));
                }
                None => {
                    self.info[b.index()].1 = counter;
                    stack.pop();
                }
            }
        }
        let reached = counter as usize;
        self.preorder.truncate(reached);
        self.back_edge_target.truncate(reached);
        self.parent.truncate(reached);
    }

    /// Reached blocks in preorder.
    pub fn preorder(&self) -> &[Block] {
        &self.preorder
    }
    /// Whether the block at preorder position `i` (its preorder number minus one) is the target
    /// of a back edge: exactly the blocks LLVM makes cycle headers.
    #[inline]
    pub fn is_back_edge_target_at(&self, i: usize) -> bool {
        self.back_edge_target[i]
    }
    /// The DFS-tree parent of the block at preorder position `i`, as a preorder number (from 1);
    /// 0 for the entry.
    #[inline]
    pub fn parent_at(&self, i: usize) -> u32 {
        self.parent[i]
    }
    /// [`CycleDfs::parent_at`] of every preorder position, in order.
    #[inline]
    pub fn parents(&self) -> &[u32] {
        &self.parent
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
    /// Whether the DFS from the entry reached `b` (unreachable blocks have no preorder number).
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
