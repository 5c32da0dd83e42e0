//! Phis at joins in precise mode ("Convergence And Uniformity", *Divergent Join*; the refinement
//! LLVM main has as `phi_no_divergence`).
//!
//! A phi at a join of a divergent branch selects by the path a thread took from the branch, so it
//! is divergent unless it selects the same value on every such path. Only the incoming edges from
//! the branch block and the blocks reachable from it can be on those paths: when the incoming values there are all
//! one value (ignoring undef and the phi itself), the branch does not make the phi divergent
//! (threads that reach the join without passing the branch diverged from the others at an earlier
//! branch, which is judged on its own). LLVM 19 and 22 ask the same of *all* incoming values.
//!
//! Which incoming blocks the branch reaches is answered without a walk of everything after the
//! branch (issue 13: on a chain of irreducible pieces that walk, once per branch, was quadratic).
//! The modified post-order (`sync.rs`) lays out every strongly connected component (a top-level
//! cycle, or one block) as an interval, and every edge between two components goes to a lower
//! interval. So a block in the branch's component is reached, a block above that component's
//! interval is not, a block in the join's component is (the join is reached: it received a
//! label), and for the rest a walk from the branch that expands only blocks at or above the
//! queried component's start decides; the walk resumes, per branch, where the previous query
//! left it.

use crate::ssa::{Inst, SsaFunction};
use crate::structure::{NONE, Structure};
use crate::sync::ModifiedPo;
use converge_graph::{Block, Graph};
use std::cell::RefCell;
use std::collections::BinaryHeap;

/// The blocks reached from the branch block (itself included), explored on demand per branch.
#[derive(Default)]
pub(crate) struct Reach {
    stamp: Vec<u32>,
    epoch: u32,
    branch: Option<Block>,
    /// Blocks at or above this modified post-order index are expanded (`NONE`: none yet).
    floor: u32,
    stack: Vec<Block>,
    /// Reached blocks below `floor`, not yet expanded, by index (largest first).
    pending: BinaryHeap<(u32, Block)>,
    /// Per block, `component_lo` (`NONE`: unreachable), filled on the first query.
    comp: Vec<u32>,
    /// The start of the branch's component, and of the join's (see `component_lo`).
    lb: u32,
    lj: u32,
    /// Blocks expanded (a work measure for the tests; only grows).
    pub(crate) work: u64,
}

/// The start of the interval of `x`'s strongly connected component in the modified post-order:
/// the header of its top-level cycle, or `x` itself.
pub(crate) fn component_lo(s: &Structure, po: &ModifiedPo, x: Block) -> u32 {
    match s.cycle_of(x) {
        Some(c) => po.index[s.header(s.top(c)).index()],
        None => po.index[x.index()],
    }
}

impl Reach {
    /// Prepares the queries of branch `b` about the incoming blocks of a phi at `j`.
    fn start(&mut self, s: &Structure, po: &ModifiedPo, n: usize, b: Block, j: Block) {
        if self.comp.len() != n {
            self.comp.clear();
            self.comp.resize(n, NONE);
            for &x in &po.order {
                self.comp[x.index()] = component_lo(s, po, x);
            }
        }
        self.lj = self.comp[j.index()];
        if self.branch == Some(b) {
            return;
        }
        self.lb = self.comp[b.index()];
        if self.stamp.len() != n {
            self.stamp.clear();
            self.stamp.resize(n, 0);
            self.epoch = 0;
        }
        self.epoch += 1;
        self.branch = Some(b);
        self.floor = NONE;
        self.stack.clear();
        self.pending.clear();
        self.pending.push((NONE, b));
    }

    /// Whether `p` is reachable from the branch block (or is it), for the branch and join of
    /// the last `start`.
    fn reaches<G: Graph>(&mut self, g: &G, po: &ModifiedPo, p: Block) -> bool {
        if self.stamp[p.index()] == self.epoch || Some(p) == self.branch {
            return true;
        }
        let (lb, lp) = (self.lb, self.comp[p.index()]);
        if lp == lb {
            return true;
        }
        // Blocks the entry does not reach (`NONE`) are not reached from the (reachable) branch.
        if lp > lb || po.index[p.index()] >= lb {
            // Components are intervals and edges between them go to lower ones.
            return false;
        }
        if lp == self.lj {
            return true;
        }
        // A path from b to p stays at or above the start of p's component.
        if lp < self.floor {
            self.floor = lp;
            while let Some(&(i, x)) = self.pending.peek() {
                if i < lp {
                    break;
                }
                self.pending.pop();
                self.stack.push(x);
            }
            while let Some(x) = self.stack.pop() {
                if std::mem::replace(&mut self.stamp[x.index()], self.epoch) == self.epoch {
                    continue;
                }
                self.work += 1;
                for &y in g.succs(x) {
                    if self.stamp[y.index()] == self.epoch {
                        continue;
                    }
                    let iy = po.index[y.index()];
                    if iy >= lp {
                        self.stack.push(y);
                    } else {
                        self.pending.push((iy, y));
                    }
                }
            }
        }
        self.stamp[p.index()] == self.epoch
    }
}

/// Marks the phis of `j` that the divergent branch in `b` makes divergent. Returns whether every
/// phi of `j` is now settled for any branch (marked, or one value on all incoming edges). `j` is
/// reached from `b` (it is one of its joins). `labelled` is a quick sufficient test of
/// reachability from `b` (the blocks its join propagation labelled): asked first, it spares the
/// walk below blocks a chain of regions away (issue 13: a join whose incoming block lies at the
/// far end of every deeper level of a ladder of cycles).
#[allow(clippy::too_many_arguments)]
pub(crate) fn taint<F: SsaFunction>(
    f: &F,
    s: &Structure,
    po: &ModifiedPo,
    b: Block,
    j: Block,
    reach: &mut Reach,
    labelled: &dyn Fn(Block) -> bool,
    mark: &mut dyn FnMut(Inst),
) -> bool {
    let mut all = true;
    let g = f.cfg();
    let reach = RefCell::new(reach);
    let mut started = false;
    for i in f.block_insts(j) {
        if !f.is_phi(i) {
            break;
        }
        if f.phi_has_constant_or_undef_value(i) {
            continue;
        }
        if !std::mem::replace(&mut started, true) {
            reach.borrow_mut().start(s, po, g.num_blocks(), b, j);
        }
        if f.phi_same_incoming_from(i, &|p| labelled(p) || reach.borrow_mut().reaches(g, po, p)) {
            all = false;
            continue;
        }
        mark(i);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use converge_gen::cfg::{CfgParams, Shape, random_cfg};
    use converge_gen::rng::Rng;

    /// The on-demand test answers exactly what a full walk from the branch answers, for every
    /// pair of blocks of random CFGs of every shape (the join taken as any block the branch
    /// reaches).
    #[test]
    fn on_demand_reachability_is_exact() {
        let mut rng = Rng::new(13);
        for k in 0..300 {
            let shape = Shape::ALL[k % Shape::ALL.len()];
            let rc = random_cfg(&mut rng, &CfgParams::new(shape, 4 + k % 50));
            let n = rc.succs.len();
            let g = rc.to_cfg();
            let s = Structure::new(&g);
            let po = ModifiedPo::compute(&g, &s);
            let mut r = Reach::default();
            for b in (0..n as u32).map(Block).filter(|&b| s.is_reachable(b)) {
                let mut full = vec![false; n];
                let mut st = vec![b];
                while let Some(x) = st.pop() {
                    if !std::mem::replace(&mut full[x.index()], true) {
                        st.extend_from_slice(g.succs(x));
                    }
                }
                for j in (0..n as u32).map(Block).filter(|j| full[j.index()]) {
                    r.start(&s, &po, n, b, j);
                    // Queries in an arbitrary order, so the walk resumes from many floors.
                    for p in (0..n as u32).rev().map(Block) {
                        assert_eq!(
                            r.reaches(&g, &po, p),
                            full[p.index()],
                            "case {k}: {b:?} -> {p:?} (join {j:?}), cfg {:?}",
                            rc.succs
                        );
                    }
                }
            }
        }
    }
}
