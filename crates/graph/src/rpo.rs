//! Reverse post-order as LLVM's `ReversePostOrderTraversal` computes it: an iterative DFS from the
//! entry that explores successors in order (**first successor first**), numbering a block when its
//! last successor is done; the reverse of that post-order. Only reachable blocks appear.
//!
//! Note this differs from the cycle analysis's DFS ([`crate::CycleDfs`]), which explores the last
//! successor first.

use crate::{Block, Graph};

/// Reverse post-order of the blocks reachable from the entry, with each block's position.
/// Reusable: [`Rpo::compute`] keeps its allocations.
#[derive(Clone, Debug, Default)]
pub struct Rpo {
    order: Vec<Block>,
    /// Position in `order`, or `u32::MAX` when unreachable.
    pos: Vec<u32>,
    stack: Vec<(Block, u32)>,
}

impl Rpo {
    /// Computes the reverse post-order of `g`.
    pub fn new<G: Graph + ?Sized>(g: &G) -> Rpo {
        let mut r = Rpo::default();
        r.compute(g);
        r
    }

    /// Recomputes for `g`, reusing the buffers of the previous graph.
    pub fn compute<G: Graph + ?Sized>(&mut self, g: &G) {
        let n = g.num_blocks();
        self.order.clear();
        self.pos.clear();
        // `pos` doubles as the visited mark during the walk (0 = seen), then holds positions.
        self.pos.resize(n, u32::MAX);
        self.stack.clear();
        if n == 0 {
            return;
        }
        let entry = g.entry();
        self.pos[entry.index()] = 0;
        self.stack.push((entry, 0));
        while let Some(top) = self.stack.last_mut() {
            let (b, next) = *top;
            let succs = g.succs(b);
            let mut i = next as usize;
            let mut found = None;
            while i < succs.len() {
                let s = succs[i];
                i += 1;
                if self.pos[s.index()] == u32::MAX {
                    found = Some(s);
                    break;
                }
            }
            top.1 = i as u32;
            match found {
                Some(s) => {
                    self.pos[s.index()] = 0;
                    self.stack.push((s, 0));
                }
                None => {
                    self.order.push(b);
                    self.stack.pop();
                }
            }
        }
        self.order.reverse();
        for (i, b) in self.order.iter().enumerate() {
            self.pos[b.index()] = i as u32;
        }
    }

    /// Reachable blocks in reverse post-order (the entry first).
    pub fn order(&self) -> &[Block] {
        &self.order
    }
    /// Position of `b` in [`Rpo::order`], `None` when `b` is unreachable.
    #[inline]
    pub fn position(&self, b: Block) -> Option<u32> {
        let p = self.pos[b.index()];
        (p != u32::MAX).then_some(p)
    }
    /// Whether `b` is reachable from the entry (has a position in the order).
    #[inline]
    pub fn is_reachable(&self, b: Block) -> bool {
        self.pos[b.index()] != u32::MAX
    }
}

/// Convenience: the reverse post-order of `g`.
pub fn reverse_post_order<G: Graph + ?Sized>(g: &G) -> Vec<Block> {
    Rpo::new(g).order
}
