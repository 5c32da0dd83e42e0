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

mod cfg;
mod cycles;
mod dfs;
mod dom;
mod postdom;
mod rpo;
pub use cfg::Cfg;
pub use cycles::{Cycle, CycleInfo, UnreachablePreds, write_cycle_line};
pub use dfs::CycleDfs;
pub use dom::DominatorTree;
pub use postdom::PostDominatorTree;
pub use rpo::{Rpo, reverse_post_order};

/// A basic block, as a dense index into its function's block list.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Block(pub u32);

impl Block {
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
    fn num_blocks(&self) -> usize;
    fn entry(&self) -> Block;
    fn succs(&self, b: Block) -> &[Block];
    fn preds(&self, b: Block) -> &[Block];
}
