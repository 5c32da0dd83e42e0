//! Phis at joins in precise mode ("Convergence And Uniformity", *Divergent Join*; the refinement
//! LLVM main has as `phi_no_divergence`).
//!
//! A phi at a join of a divergent branch selects by the path a thread took from the branch, so it
//! is divergent unless it selects the same value on every such path. Only the incoming edges from
//! the branch block and the blocks reachable from it can be on those paths: when the incoming values there are all
//! one value (ignoring undef and the phi itself), the branch does not make the phi divergent
//! (threads that reach the join without passing the branch diverged from the others at an earlier
//! branch, which is judged on its own). LLVM 19 and 22 ask the same of *all* incoming values.

use crate::ssa::{Inst, SsaFunction};
use converge_graph::{Block, Graph};

/// The branch block and the blocks reachable from it, computed on first need per branch.
#[derive(Default)]
pub(crate) struct Reach {
    stamp: Vec<u32>,
    epoch: u32,
    branch: Option<Block>,
    stack: Vec<Block>,
}

impl Reach {
    fn ensure<F: SsaFunction>(&mut self, f: &F, b: Block) {
        if self.branch == Some(b) {
            return;
        }
        let g = f.cfg();
        if self.stamp.len() != g.num_blocks() {
            self.stamp.clear();
            self.stamp.resize(g.num_blocks(), 0);
            self.epoch = 0;
        }
        self.epoch += 1;
        self.branch = Some(b);
        self.stack.clear();
        // The branch block itself: its own edges start the diverged paths.
        self.stack.push(b);
        while let Some(x) = self.stack.pop() {
            if std::mem::replace(&mut self.stamp[x.index()], self.epoch) == self.epoch {
                continue;
            }
            self.stack.extend_from_slice(g.succs(x));
        }
    }
}

/// Marks the phis of `j` that the divergent branch in `b` makes divergent. Returns whether every
/// phi of `j` is now settled for any branch (marked, or one value on all incoming edges).
pub(crate) fn taint<F: SsaFunction>(
    f: &F,
    b: Block,
    j: Block,
    reach: &mut Reach,
    mark: &mut dyn FnMut(Inst),
) -> bool {
    let mut all = true;
    for i in f.block_insts(j) {
        if !f.is_phi(i) {
            break;
        }
        if f.phi_has_constant_or_undef_value(i) {
            continue;
        }
        reach.ensure(f, b);
        let (stamp, epoch) = (&reach.stamp, reach.epoch);
        if f.phi_same_incoming_from(i, &|p| stamp[p.index()] == epoch) {
            all = false;
            continue;
        }
        mark(i);
    }
    all
}
