//! Generic control-flow graph algorithms.
//!
//! Everything here works on the small [`Graph`] trait (blocks, successors, predecessors) so any IR can
//! use it; `converge-ir` is one implementation. All algorithms are iterative: a million-block CFG must
//! not overflow the stack.
//!
//! - [`Rpo`]: LLVM's reverse post-order (DFS taking the first successor first);
//! - [`CycleDfs`]: the DFS of LLVM's cycle analysis (last successor first) with preorder intervals;
//! - [`DominatorTree`] (Semi-NCA, O(1) `dominates`) and [`PostDominatorTree`] (virtual exit, roots
//!   chosen as LLVM chooses them, infinite loops included);
//! - [`CycleInfo`]: LLVM's `CycleInfo` (headers, entries, nesting and print orders as LLVM 22; LLVM
//!   19's treatment of unreachable predecessors on request).
//! - [`Inst`] and [`InstRange`]: the dense instruction ids of the IR traits built on a graph
//!   (a block's instructions are a contiguous run), shared by the analyses and the verifier.
//!
//! # Example
//!
//! A loop `1 → 2 → 1` entered from block 0 and left from 2 to 3, built from successor lists (no IR
//! involved: [`Cfg`] is the crate's own [`Graph`] implementation):
//!
//! ```
//! use converge_graph::{Block, Cfg, CycleInfo, DominatorTree, PostDominatorTree};
//!
//! let b = Block;
//! let cfg = Cfg::from_succs(b(0), 4, [vec![b(1)], vec![b(2)], vec![b(1), b(3)], vec![]]);
//! let cycles = CycleInfo::new(&cfg);
//! assert_eq!(cycles.len(), 1);
//! let c = cycles.cycles().next().unwrap();
//! assert_eq!(cycles.header(c), b(1));
//! assert_eq!(cycles.blocks(c), &[b(1), b(2)]);
//! assert!(cycles.is_reducible(c));
//!
//! let dom = DominatorTree::new(&cfg);
//! assert!(dom.dominates(b(1), b(3)));
//! let pdom = PostDominatorTree::new(&cfg);
//! assert_eq!(pdom.ipdom(b(1)), Some(b(2)));
//! ```
#![warn(missing_docs)]

mod cfg;
mod cycles;
mod dfs;
mod dom;
mod inst;
mod postdom;
mod rpo;
pub use cfg::Cfg;
pub use cycles::{Cycle, CycleInfo, UnreachablePreds, write_cycle_line};
pub use dfs::CycleDfs;
pub use dom::DominatorTree;
pub use inst::{Inst, InstRange};
pub use postdom::PostDominatorTree;
pub use rpo::{Rpo, reverse_post_order};

/// A basic block, as a dense index into its function's block list.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Block(pub u32);

impl Block {
    /// The index into per-block tables (`Vec`s indexed by block).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The view of a control-flow graph the analyses need.
///
/// Order matters: LLVM's cycle discovery explores the *last* successor first and reads predecessors in
/// use-list order, so implementations must give successors in terminator operand order (duplicates
/// kept) and predecessors in the order the reference compiler would (for LLVM text: terminators in
/// reverse textual order, and within one terminator its successor slots in reverse operand order).
pub trait Graph {
    /// Number of blocks; valid blocks are `Block(0)..Block(num_blocks)`, unreachable ones included.
    fn num_blocks(&self) -> usize;
    /// The entry block, where every execution starts (the root of the dominator tree and of the DFS).
    fn entry(&self) -> Block;
    /// Successors of `b` in terminator operand order, a target repeated once per edge to it.
    fn succs(&self, b: Block) -> &[Block];
    /// Predecessors of `b`, one per edge, in the order the reference compiler walks them (LLVM's
    /// use-list order for LLVM text, see the trait documentation).
    fn preds(&self, b: Block) -> &[Block];
}
