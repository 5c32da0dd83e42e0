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
//! stop, depends only on how the exits' labels compare: which exits carry their own label (a
//! join, or a successor of the branch: such an exit stays as it is when another label comes,
//! where an exit with a label from inside `a` becomes a join and is processed again), and which
//! of the others share a label. No block after `a` carries a label from inside `a` as its own.
//!
//! With few exits every such configuration is walked here, once per cycle: a partition of the
//! exits and one more element, whose class holds the exits with their own label (Bell(k + 1)
//! walks for k exits, less those with one label for all, which make no join). The joins of all
//! those walks, with the exits themselves, are every block after `a` that a branch inside `a`
//! can join. (A single walk with every label distinct does not bound the others: a block
//! already a join ignores a third label that, with two of the labels equal, would make it one
//! and send its label down again.) LLVM 22's label flow only (a reducible header passes labels
//! to its cycle's exits); LLVM 19's propagation stops at a floor that the labels inside `a`
//! move.

use super::{JoinFinder, ModifiedPo, push_label};
use crate::structure::NONE;

/// Exits beyond which the partitions are not walked (Bell(7) = 877 walks for 6 exits).
pub(crate) const MAX_SEEDED_EXITS: usize = 6;

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
        // A partition of the exits and one more element: the exits in its class label
        // themselves (class 0 below), the others share their class's label.
        let mut class = [0u32; MAX_SEEDED_EXITS + 1];
        loop {
            let c = &class[1..=k];
            // One label for all, none of them an exit's own: no join.
            let one_label = c.iter().all(|&x| x == c[0] && x != 0) || k == 1;
            if !one_label {
                left -= self.seeded_walk(po, seeds, c, left, out)?;
            }
            if !next_partition(&mut class[..=k]) {
                return Some(());
            }
        }
    }

    /// One walk of [`JoinFinder::exit_seeded_joins`]: seed `j` carries class `class[j]`, 0 for
    /// its own label.
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
        // Class 0: the exit's own label (it is a join, or a successor of the branch); other
        // classes: labels that are no block's index (only compared, never used as an index).
        for (&x, &c) in seeds.iter().zip(class) {
            push_label(
                labels,
                fresh,
                touched,
                x,
                if c == 0 { x } else { NONE - 1 - c },
            );
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

/// The partition after `class` (a restricted growth string: `class[0] = 0`, each entry at most
/// one more than the largest before it), in lexicographic order; false after the last one.
fn next_partition(class: &mut [u32]) -> bool {
    let mut i = class.len();
    while i > 1 {
        i -= 1;
        let m = class[..i].iter().max().copied().unwrap_or(0);
        if class[i] <= m {
            class[i] += 1;
            class[i + 1..].fill(0);
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::structure::Structure;
    use converge_gen::cfg::{CfgParams, Shape, random_cfg};
    use converge_gen::program::{dag_back_edges_cfg, shapes::randnest_cfg};
    use converge_gen::rng::Rng;
    use converge_graph::{Block, Cfg, Graph};

    /// Every partition of up to seven elements (six seeds and the class of their own labels)
    /// once: Bell(k) restricted growth strings.
    #[test]
    fn partitions_are_each_visited_once() {
        let bell = [1usize, 1, 2, 5, 15, 52, 203, 877];
        for (k, &count) in bell.iter().enumerate().take(MAX_SEEDED_EXITS + 2).skip(1) {
            let mut class = vec![0u32; k];
            let mut seen = std::collections::HashSet::new();
            loop {
                assert_eq!(class[0], 0);
                for i in 1..k {
                    assert!(class[i] <= 1 + class[..i].iter().max().unwrap());
                }
                assert!(seen.insert(class.clone()), "{class:?} twice");
                if !next_partition(&mut class) {
                    break;
                }
            }
            assert_eq!(seen.len(), count, "{k} seeds");
        }
    }

    /// The module's claim, on random CFGs of every shape, the issue-13 DAG family and random
    /// loop nests with jumps into later loops: for every top-level cycle with few exits and every
    /// branch inside it, each join LLVM 22's propagation (and precise mode's, whose branch at a
    /// reducible header also passes labels on) finds after the cycle is one of its exits or a
    /// join of the exit-seeded walks. Many of those cycles have several irreducible cycles after
    /// them, where the walks go back up the order.
    #[test]
    fn seeded_joins_bound_every_branch_inside() {
        let mut rng = Rng::new(29);
        let mut graphs: Vec<Vec<Vec<u32>>> = Vec::new();
        for k in 0..400 {
            let shape = Shape::ALL[k % Shape::ALL.len()];
            let r = random_cfg(&mut rng, &CfgParams::new(shape, 8 + k % 70));
            let g = r.to_cfg();
            graphs.push(
                (0..g.num_blocks() as u32)
                    .map(|b| g.succs(Block(b)).iter().map(|x| x.0).collect())
                    .collect(),
            );
        }
        for k in 0..40 {
            graphs.push(dag_back_edges_cfg(&mut rng, 30 + 10 * k));
        }
        for k in 0..60 {
            graphs.push(randnest_cfg(&mut rng, 60 + 15 * k));
        }
        let (mut cycles, mut branches, mut outside, mut irr_after) = (0u64, 0u64, 0u64, 0u64);
        let mut joins = Vec::new();
        for succs in &graphs {
            let g = Cfg::from_succs(
                Block(0),
                succs.len(),
                succs.iter().map(|v| v.iter().map(|&x| Block(x))),
            );
            let s = Structure::new(&g);
            let po = ModifiedPo::compute(&g, &s);
            let mut jf = JoinFinder::default();
            jf.reset(g.num_blocks());
            let known = vec![true; s.num_cycles()];
            for a in 0..s.num_cycles() as u32 {
                if s.parent_raw(a) != NONE || s.exits(a).len() > MAX_SEEDED_EXITS {
                    continue;
                }
                let lo = po.index[s.header(a).index()];
                let seeds: Vec<u32> = s.exits(a).iter().map(|x| po.index[x.index()]).collect();
                joins.clear();
                jf.exit_seeded_joins(&po, &seeds, u64::MAX, &mut joins)
                    .expect("no budget");
                let bound: std::collections::HashSet<u32> =
                    seeds.iter().chain(&joins).copied().collect();
                cycles += 1;
                if (0..lo).any(|i| {
                    po.order[i as usize] != Block(NONE)
                        && s.inner(po.order[i as usize]) != NONE
                        && !s.is_reducible(s.top(s.inner(po.order[i as usize])))
                }) {
                    irr_after += 1;
                }
                for &t in s.blocks(a) {
                    if g.succs(t).len() < 2 {
                        continue;
                    }
                    for header_exits in [false, true] {
                        jf.header_exits = header_exits;
                        // (Whole answers: no cut memo, which leaves out joins after the cycle
                        // that an earlier branch's answer held.)
                        crate::analysis::knobs::NO_CUT_MEMO.with(|c| c.set(true));
                        jf.compute(&g, &s, &po, t, false, &known, 0, 0);
                        crate::analysis::knobs::NO_CUT_MEMO.with(|c| c.set(false));
                        for &j in &jf.desc.joins {
                            let ji = po.index[j.index()];
                            if ji < lo {
                                outside += 1;
                                assert!(
                                    bound.contains(&ji),
                                    "join {j:?} of branch {t:?} after cycle {a} not bounded"
                                );
                            }
                        }
                        branches += 1;
                    }
                    jf.header_exits = false;
                }
            }
        }
        eprintln!(
            "{cycles} cycles ({irr_after} with an irreducible cycle after them), {branches} \
             branch walks, {outside} joins after their cycle"
        );
        assert!(cycles > 500 && irr_after > 100 && outside > 5_000);
    }
}
