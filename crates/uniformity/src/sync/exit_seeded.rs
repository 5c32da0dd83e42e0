//! The joins the exits of a top-level cycle can make, for every branch inside it at once
//! (issue 13: random loop nests, `converge_gen::program::shapes::randnest_cfg`, where every
//! branch of a big assumed-divergent irreducible cycle walked the whole cycle to find, after it,
//! joins an earlier branch had already found).
//!
//! A branch inside a top-level cycle `a` that is assumed divergent matters only through the
//! joins its labels make after `a` (joins inside `a` add nothing: Convergence And Uniformity,
//! "Irreducible Cycles": the whole cycle is divergent). Its propagation processes every block of
//! `a` it reaches before any block after `a`: the exits come before the header in the modified
//! post-order, so does every block reachable from them, and none of them reaches back into `a`
//! (a top-level cycle is a strongly connected component). Inside `a` the labels reach every
//! exit (every block of `a` lies on a path from the branch's successors, and a reducible header
//! passes its label to all its cycle's exits), unless the walk stops inside `a`, and then it
//! makes no join after `a`. So when the walk first gets below `a`, the labelled blocks there are
//! the exits, all of them, all fresh, and from then on the walk, LLVM's propagation with its
//! stop, depends only on which exits carry the same label: a partition of the exits. A label
//! that came from inside `a` or an exit that became a join labels itself; either way no block
//! after `a` carries it as its own.
//!
//! With few exits every partition is walked here, once per cycle: the joins of all those walks,
//! with the exits themselves, are every block after `a` that a branch inside `a` can join.
//! (A single walk with all labels distinct does not bound the others: a block already a join
//! ignores a third label that, with two of the labels equal, would make it one and send its
//! label down again.) The walk with one label for all exits makes no join and is left out.
//! LLVM 22's label flow only (a reducible header passes labels to its cycle's exits); LLVM 19's
//! propagation stops at a floor that the labels inside `a` move.

use super::{JoinFinder, ModifiedPo, push_label};
use crate::structure::NONE;

/// Exits beyond which the partitions are not walked (Bell(5) = 52 partitions).
pub(crate) const MAX_SEEDED_EXITS: usize = 5;

impl JoinFinder {
    /// The joins of LLVM 22's label flow from `seeds` (indices of the modified post-order,
    /// all fresh), labelled by every partition of them into more than one class, over all
    /// partitions: appended to `out`, each once. `None` when the walks take more than `budget`
    /// steps in all (the labels are cleared either way). At most [`MAX_SEEDED_EXITS`] seeds.
    pub(crate) fn exit_seeded_joins(
        &mut self,
        po: &ModifiedPo,
        seeds: &[u32],
        budget: u64,
        out: &mut Vec<u32>,
    ) -> Option<()> {
        let k = seeds.len();
        assert!(k <= MAX_SEEDED_EXITS);
        // `in_joins` marks the joins listed (the next branch takes a new stamp).
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == NONE {
            self.in_joins.fill(NONE);
            self.in_exits.fill(NONE);
            self.stamp = 0;
        }
        let mut left = budget;
        // Restricted growth strings: class[i] <= 1 + max(class[..i]), class[0] = 0.
        let mut class = [0u32; MAX_SEEDED_EXITS];
        let mut ok = true;
        loop {
            let classes = class[..k].iter().max().map_or(0, |&m| m + 1);
            if classes > 1 {
                match self.seeded_walk(po, seeds, &class[..k], left, out) {
                    Some(steps) => left -= steps,
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            // The next string: raise the last position that may grow, reset those after it.
            let mut i = k;
            let mut more = false;
            while i > 1 {
                i -= 1;
                let m = class[..i].iter().max().copied().unwrap_or(0);
                if class[i] <= m {
                    class[i] += 1;
                    class[i + 1..k].fill(0);
                    more = true;
                    break;
                }
            }
            if !more {
                break;
            }
        }
        ok.then_some(())
    }

    /// One walk of [`JoinFinder::exit_seeded_joins`]: seed `j` carries class `class[j]`.
    /// Returns the steps taken, or `None` past `budget`.
    fn seeded_walk(
        &mut self,
        po: &ModifiedPo,
        seeds: &[u32],
        class: &[u32],
        budget: u64,
        out: &mut Vec<u32>,
    ) -> Option<u64> {
        self.clear_labels();
        self.fresh.clear();
        let stamp = self.stamp;
        let JoinFinder {
            labels,
            touched,
            fresh,
            in_joins,
            ..
        } = self;
        // Class labels that are no block's index (only compared, never used as an index).
        for (&x, &c) in seeds.iter().zip(class) {
            push_label(labels, fresh, touched, x, NONE - 1 - c);
        }
        let mut steps = 0u64;
        let mut within = true;
        while let Some((i, empty)) = fresh.pop_and_empty() {
            // The last fresh block: every path has met again (the stop of `propagate` outside
            // the branch's irreducible cycle).
            if empty {
                break;
            }
            steps += 1;
            if steps > budget {
                within = false;
                break;
            }
            let l = labels[i as usize];
            let targets = if po.header_cycle[i as usize] != NONE {
                po.header_exits(i)
            } else {
                po.succs(i)
            };
            for &x in targets {
                if push_label(labels, fresh, touched, x, l) && in_joins[x as usize] != stamp {
                    in_joins[x as usize] = stamp;
                    out.push(x);
                }
            }
        }
        self.work += steps;
        self.fresh.clear();
        self.clear_labels();
        within.then_some(steps)
    }
}
