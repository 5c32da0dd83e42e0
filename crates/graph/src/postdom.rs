//! Post-dominator tree: the dominator tree ([`crate::DominatorTree`], Semi-NCA) of the reversed
//! CFG extended with a **virtual exit** whose predecessors are the roots, as LLVM's
//! `PostDominatorTree` does:
//! - trivial roots: blocks without successors (`ret`, `unreachable`), in block order;
//! - for regions that reach no such block (infinite loops, no-return regions), LLVM's `FindRoots`:
//!   from the first block (in block order) not yet reverse-reached, a forward DFS picks the
//!   "furthest away" block as an extra root; redundant extra roots are then pruned.
//!
//! The roots are chosen exactly as LLVM does (see [`find_roots`]), so even inside infinite loops
//! the tree matches `opt -passes='print<postdomtree>'`. Every block, reachable from the entry or
//! not, is in the tree. Block indices must follow the function's block order.

use crate::{Block, Cfg, DominatorTree, Graph};

/// The post-dominator tree: `a` post-dominates `b` when every path from `b` to a function exit
/// goes through `a`. All exits (and the roots LLVM picks for infinite loops) hang from one
/// virtual exit node, which the public API never returns.
#[derive(Clone, Debug, Default)]
pub struct PostDominatorTree {
    n: usize,
    roots: Vec<Block>,
    tree: DominatorTree,
}

impl PostDominatorTree {
    /// Computes the post-dominator tree of `g` (roots as LLVM's `PostDominatorTree` picks them).
    pub fn new<G: Graph + ?Sized>(g: &G) -> PostDominatorTree {
        let n = g.num_blocks();
        let roots = find_roots(g);
        let virt = Block(n as u32);
        let mut is_root = vec![false; n];
        for r in &roots {
            is_root[r.index()] = true;
        }
        let rev = Cfg::from_succs(
            virt,
            n + 1,
            (0..=n).map(|b| -> Vec<Block> {
                if b == n {
                    roots.clone()
                } else {
                    g.preds(Block(b as u32)).to_vec()
                }
            }),
        );
        let tree = DominatorTree::new(&rev);
        PostDominatorTree { n, roots, tree }
    }

    /// The blocks attached to the virtual exit: trivial roots first, then one per region that
    /// cannot reach them.
    pub fn roots(&self) -> &[Block] {
        &self.roots
    }
    /// The immediate post-dominator; `None` when it is the virtual exit.
    pub fn ipdom(&self, b: Block) -> Option<Block> {
        self.tree.idom(b).filter(|d| d.index() != self.n)
    }
    /// Whether every path from `b` to the (virtual) exit goes through `a` (reflexive).
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        self.tree.dominates(a, b)
    }
    /// Whether `a` post-dominates `b` and `a != b`.
    pub fn properly_post_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.tree.dominates(a, b)
    }
    /// The nearest common post-dominator; `None` when only the virtual exit post-dominates both.
    pub fn nearest_common_post_dominator(&self, a: Block, b: Block) -> Option<Block> {
        self.tree
            .nearest_common_dominator(a, b)
            .filter(|d| d.index() != self.n)
    }
    /// Children of `b` in the post-dominator tree.
    pub fn children(&self, b: Block) -> impl Iterator<Item = Block> + '_ {
        self.tree.children(b)
    }
}

/// LLVM's `SemiNCAInfo::FindRoots` for post-dominators, step by step (block index = position in
/// the function):
/// 1. every block without successors, in block order, is a root; each is reverse-searched;
/// 2. for each block (in order) still not reverse-reached: a forward DFS from it over unreached
///    blocks, successors taken in **descending** block order (LLVM sorts them by function position
///    and pushes them on a LIFO stack); the last block it numbers ("furthest away") becomes a
///    root and is reverse-searched;
/// 3. `RemoveRedundantRoots`: a non-trivial root that can reach another root is dropped, the last
///    root taking its place (swap-remove).
fn find_roots<G: Graph + ?Sized>(g: &G) -> Vec<Block> {
    let n = g.num_blocks();
    let mut roots: Vec<Block> = (0..n as u32)
        .map(Block)
        .filter(|&b| g.succs(b).is_empty())
        .collect();
    let mut seen = vec![false; n];
    let mut stack: Vec<Block> = Vec::new();
    let reverse_reach = |from: Block, seen: &mut Vec<bool>, stack: &mut Vec<Block>| {
        stack.push(from);
        while let Some(b) = stack.pop() {
            if seen[b.index()] {
                continue;
            }
            seen[b.index()] = true;
            stack.extend(g.preds(b).iter().filter(|p| !seen[p.index()]));
        }
    };
    for &r in &roots {
        reverse_reach(r, &mut seen, &mut stack);
    }
    let trivial = roots.len();
    let mut fwd = vec![false; n];
    let mut marked: Vec<Block> = Vec::new();
    let mut sorted: Vec<Block> = Vec::new();
    for i in 0..n {
        if seen[i] {
            continue;
        }
        // Forward DFS with lazy visited checks, exactly as LLVM's `runDFS` numbers blocks.
        let mut furthest = Block(i as u32);
        stack.push(furthest);
        while let Some(b) = stack.pop() {
            if seen[b.index()] || fwd[b.index()] {
                continue;
            }
            fwd[b.index()] = true;
            marked.push(b);
            furthest = b;
            sorted.clear();
            sorted.extend_from_slice(g.succs(b));
            sorted.sort_unstable();
            stack.extend_from_slice(&sorted);
        }
        for b in marked.drain(..) {
            fwd[b.index()] = false;
        }
        roots.push(furthest);
        reverse_reach(furthest, &mut seen, &mut stack);
    }
    if roots.len() > trivial {
        remove_redundant_roots(g, &mut roots, &mut fwd, &mut stack);
    }
    roots
}

/// Drops every non-trivial root from which another root is reachable (LLVM's
/// `RemoveRedundantRoots`, including its swap-remove order).
fn remove_redundant_roots<G: Graph + ?Sized>(
    g: &G,
    roots: &mut Vec<Block>,
    mark: &mut [bool],
    stack: &mut Vec<Block>,
) {
    let mut is_root = vec![false; mark.len()];
    for r in roots.iter() {
        is_root[r.index()] = true;
    }
    let mut visited: Vec<Block> = Vec::new();
    let mut i = 0;
    while i < roots.len() {
        let root = roots[i];
        if g.succs(root).is_empty() {
            i += 1;
            continue;
        }
        let mut redundant = false;
        stack.clear();
        stack.push(root);
        while let Some(b) = stack.pop() {
            if mark[b.index()] {
                continue;
            }
            mark[b.index()] = true;
            visited.push(b);
            if b != root && is_root[b.index()] {
                redundant = true;
                break;
            }
            stack.extend(g.succs(b).iter().filter(|s| !mark[s.index()]));
        }
        for b in visited.drain(..) {
            mark[b.index()] = false;
        }
        if redundant {
            is_root[root.index()] = false;
            roots.swap_remove(i);
        } else {
            i += 1;
        }
    }
}
