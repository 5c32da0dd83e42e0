//! The shortest chain of reasons from each divergent value back to a divergence source: every
//! candidate reason (see `candidates`) is an edge from its premise to its conclusion, and a BFS
//! from the sources picks, per value, the first reason reached. The two paths of a join step
//! (disjoint or not) are found only when a chain shows that step, and remembered.

use super::analysed::Analysed;
use super::candidates::{
    EntryWitness, ExitEdges, ExitWitness, JoinMemo, candidates, entry_witnesses, exit_witnesses,
    overlapping_paths,
};
use super::precise::{DivergedWitness, diverged_witnesses};
use super::reasons::{Explanation, Node, Reason, Step};
use super::uniform::uniform_facts;
use crate::paths::Bfs;
use converge_graph::Block;
use converge_uniformity::Mode;
use std::collections::HashMap;
use std::sync::Mutex;

/// The explanations of one function, computed once.
pub struct Explainer<'a, 'm> {
    /// The analysed function the chains explain.
    pub a: &'a Analysed<'m>,
    /// Per node (arguments, then instructions): distance to a source and the chosen reason
    /// (for a join, without its paths: they are found when shown, see `paths`).
    best: Vec<Option<(u32, Reason)>>,
    /// The paths of the join steps shown so far.
    paths: Mutex<PathMemo>,
}

/// The paths of a join step by (branch, join, whether they are disjoint).
type PathMemo = HashMap<(Block, Block, bool), [Vec<Block>; 2]>;

fn node_index(na: usize, n: Node) -> usize {
    match n {
        Node::Arg(a) => a as usize,
        Node::Inst(i) => na + i as usize,
    }
}

impl<'a, 'm> Explainer<'a, 'm> {
    /// Runs the BFS from every divergence source of `a` once; each explanation is then a walk
    /// back along the chosen reasons.
    pub fn new(a: &'a Analysed<'m>) -> Explainer<'a, 'm> {
        let f = a.lf.func;
        let na = f.params.len();
        let ni = f.insts.len();
        let mut best: Vec<Option<(u32, Reason)>> = vec![None; na + ni];
        if !a.u.analysed {
            return Explainer {
                a,
                best,
                paths: Mutex::default(),
            };
        }
        let branches: Vec<Block> = (0..a.num_blocks() as u32)
            .map(Block)
            .filter(|&b| a.is_divergent_branch(b))
            .collect();
        let exit_w: HashMap<u32, Vec<ExitWitness>> = if a.u.divergent_exit_cycles.is_empty() {
            HashMap::new()
        } else {
            let edges = ExitEdges::new(a);
            let mut bfs = Bfs::default();
            a.u.divergent_exit_cycles
                .iter()
                .map(|&c| (c.0, exit_witnesses(a, &branches, c.0, &edges, &mut bfs)))
                .collect()
        };
        let assumed_w: HashMap<u32, Vec<EntryWitness>> =
            a.u.assumed_divergent
                .iter()
                .map(|&c| (c.0, entry_witnesses(a, &branches, c.0)))
                .collect();
        // Precise mode: cycles with a divergent exit that are not assumed divergent may have
        // it because they are entered on diverged paths (rule P1 by one hierarchy's joins).
        let diverged_w: HashMap<u32, Vec<DivergedWitness>> = if a.mode == Mode::Precise {
            a.u.divergent_exit_cycles
                .iter()
                .filter(|c| !a.u.assumed_divergent.contains(c))
                .map(|&c| (c.0, diverged_witnesses(a, &branches, c.0)))
                .collect()
        } else {
            HashMap::new()
        };
        let mut join_memo: JoinMemo = HashMap::new();

        // Candidate reasons of every divergent node; edges premise → (node, reason).
        let mut dependents: Vec<Vec<(u32, Reason)>> = vec![Vec::new(); na + ni];
        let mut queue = std::collections::VecDeque::new();
        let mut nodes: Vec<Node> = (0..na as u32).map(Node::Arg).collect();
        nodes.extend((0..ni as u32).map(Node::Inst));
        for n in nodes {
            if !a.is_divergent(n) {
                continue;
            }
            let idx = node_index(na, n);
            let cands = candidates(
                a,
                n,
                &exit_w,
                &assumed_w,
                &diverged_w,
                &branches,
                &mut join_memo,
            );
            for r in cands {
                let premise = r
                    .premise_value()
                    .or_else(|| r.premise_branch().map(|b| Node::Inst(a.terminator(b))));
                match premise {
                    None => {
                        if best[idx].is_none() {
                            best[idx] = Some((0, r));
                            queue.push_back(idx);
                        }
                    }
                    Some(p) => dependents[node_index(na, p)].push((idx as u32, r)),
                }
            }
        }
        while let Some(x) = queue.pop_front() {
            let d = best[x].as_ref().map_or(0, |b| b.0);
            for (y, r) in std::mem::take(&mut dependents[x]) {
                if best[y as usize].is_none() {
                    best[y as usize] = Some((d + 1, r));
                    queue.push_back(y as usize);
                }
            }
        }
        Explainer {
            a,
            best,
            paths: Mutex::default(),
        }
    }

    /// The explanation of one value.
    pub fn explain(&self, n: Node) -> Explanation {
        let a = self.a;
        if !a.is_divergent(n) {
            return Explanation::Uniform(uniform_facts(a, n));
        }
        let na = a.lf.func.params.len();
        let mut chain = Vec::new();
        let mut at = n;
        loop {
            let Some((_, r)) = &self.best[node_index(na, at)] else {
                return Explanation::Unexplained;
            };
            let mut reason = r.clone();
            if let Reason::Sync {
                branch,
                join,
                paths,
                disjoint,
            } = &mut reason
            {
                let mut memo = self.paths.lock().unwrap_or_else(|e| e.into_inner());
                *paths = memo
                    .entry((*branch, *join, *disjoint))
                    .or_insert_with(|| {
                        if *disjoint {
                            // `is_join` said yes, so the max-flow finds the paths.
                            a.join_paths(*branch, *join)
                                .unwrap_or_else(|| [Vec::new(), Vec::new()])
                        } else {
                            overlapping_paths(a, *branch, *join)
                        }
                    })
                    .clone();
            }
            chain.push(Step { node: at, reason });
            at = match r {
                // Roots: a divergence source, and an anchor's implementation-defined grouping.
                Reason::Source { .. }
                | Reason::PastTokenRegion { .. }
                | Reason::OtherHierarchy { .. } => {
                    return Explanation::Divergent(chain);
                }
                Reason::Data { operand } => *operand,
                _ => match r
                    .premise_value()
                    .or_else(|| r.premise_branch().map(|b| Node::Inst(a.terminator(b))))
                {
                    Some(p) => p,
                    None => return Explanation::Unexplained,
                },
            };
            if chain.len() > best_len_bound(&self.best) {
                return Explanation::Unexplained;
            }
        }
    }
}

fn best_len_bound(best: &[Option<(u32, Reason)>]) -> usize {
    best.len() + 1
}
