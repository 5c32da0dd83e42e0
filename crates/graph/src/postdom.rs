//! Post-dominator tree: the dominator tree ([`crate::DominatorTree`], Semi-NCA) of the reversed
//! CFG extended with a **virtual exit** whose predecessors are the roots, as LLVM's
//! `PostDominatorTree` does:
//! - trivial roots: blocks without successors (`ret`, `unreachable`), in block order;
//! - for regions that reach no such block (infinite loops, no-return regions), LLVM's `FindRoots`
//!   idea: from the first block (in block order) not yet reverse-reached, follow successors by an
//!   iterative DFS and take the furthest block reached as an extra root, then reverse-reach from it.
//!
//! The non-trivial root chosen inside an infinite loop can differ from LLVM's (which also sorts and
//! prunes redundant roots); post-dominance between blocks that reach a trivial root does not depend
//! on that choice. Every block, reachable from the entry or not, is in the tree.

use crate::{Block, Cfg, DominatorTree, Graph};

#[derive(Clone, Debug, Default)]
pub struct PostDominatorTree {
    n: usize,
    roots: Vec<Block>,
    tree: DominatorTree,
}

impl PostDominatorTree {
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

fn find_roots<G: Graph + ?Sized>(g: &G) -> Vec<Block> {
    let n = g.num_blocks();
    let mut roots: Vec<Block> = (0..n as u32)
        .map(Block)
        .filter(|&b| g.succs(b).is_empty())
        .collect();
    let mut seen = vec![false; n];
    let mut stack = Vec::new();
    let reverse_reach = |from: Block, seen: &mut Vec<bool>, stack: &mut Vec<Block>| {
        if seen[from.index()] {
            return;
        }
        seen[from.index()] = true;
        stack.push(from);
        while let Some(b) = stack.pop() {
            for &p in g.preds(b) {
                if !seen[p.index()] {
                    seen[p.index()] = true;
                    stack.push(p);
                }
            }
        }
    };
    for &r in &roots {
        reverse_reach(r, &mut seen, &mut stack);
    }
    // Forward DFS marks, kept apart from `seen` so one region's search does not hide another.
    let mut fwd = vec![false; n];
    let mut dfs: Vec<(Block, u32)> = Vec::new();
    for i in 0..n {
        let b = Block(i as u32);
        if seen[i] {
            continue;
        }
        // The last block the forward DFS (first successor first) reaches is the furthest.
        let mut furthest = b;
        fwd[i] = true;
        dfs.push((b, 0));
        while let Some(top) = dfs.last_mut() {
            let (x, next) = *top;
            let succs = g.succs(x);
            let mut k = next as usize;
            let mut found = None;
            while k < succs.len() {
                let s = succs[k];
                k += 1;
                if !seen[s.index()] && !fwd[s.index()] {
                    found = Some(s);
                    break;
                }
            }
            top.1 = k as u32;
            match found {
                Some(s) => {
                    fwd[s.index()] = true;
                    furthest = s;
                    dfs.push((s, 0));
                }
                None => {
                    dfs.pop();
                }
            }
        }
        roots.push(furthest);
        reverse_reach(furthest, &mut seen, &mut stack);
    }
    roots
}
