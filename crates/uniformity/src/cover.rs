//! The deepest of nested intervals covering a point, for every version of a set that grows along
//! the paths of a tree: a persistent segment tree by path copying (Driscoll, Sarnak, Sleator and
//! Tarjan, "Making Data Structures Persistent").
//!
//! One analysis uses it: the diverged-entry rule of LLVM's classification of a join ("Convergence
//! And Uniformity", the cycle of a join entered on diverged paths) climbs from a cycle while its
//! parent's header does not properly dominate the join, which costs the nesting depth per join;
//! in deep nests of irreducible cycles with long dominator paths (a forward DAG with dense random
//! back edges: 18,000 nested cycles at 64,000 blocks) that made the classification quadratic
//! (issue 13). A header properly dominates a block exactly when the block's position in the
//! dominator tree's preorder lies in the header's interval minus its own position, so each
//! cycle's version holds the intervals of its ancestors' headers, valued by their depths, and the
//! climb is one query: the deepest ancestor whose interval covers the join.
//!
//! A version is a root; inserting an interval copies the O(log n) nodes on the paths to the
//! canonical nodes of the interval and raises their tags, so every version shares what it did not
//! change. A point query takes the maximum tag on the path from the root to the point's leaf.
//! Node 0 is the empty tree (its children are itself), so an untouched subtree costs nothing.

/// One node: its children and the largest value inserted over its whole range.
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    left: u32,
    right: u32,
    tag: u32,
}

/// Versions of a set of valued intervals over the positions `0..n`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cover {
    n: u32,
    nodes: Vec<Node>,
}

/// The empty version.
pub(crate) const EMPTY: u32 = 0;

impl Cover {
    /// An empty structure over positions `0..n`, reusing `self`'s allocation.
    pub(crate) fn reset(&mut self, n: u32) {
        self.n = n.max(1);
        self.nodes.clear();
        self.nodes.push(Node::default());
    }

    /// The version `root` with value `v` over positions `lo..hi` added (a new root; `root` is
    /// unchanged). Empty intervals return `root`.
    pub(crate) fn insert(&mut self, root: u32, lo: u32, hi: u32, v: u32) -> u32 {
        if lo >= hi {
            return root;
        }
        self.insert_at(root, 0, self.n, lo, hi.min(self.n), v)
    }

    /// Recursion over the O(log n) levels of the tree (not over the graph).
    fn insert_at(&mut self, node: u32, a: u32, b: u32, lo: u32, hi: u32, v: u32) -> u32 {
        if hi <= a || b <= lo {
            return node;
        }
        let mut copy = self.nodes[node as usize];
        if lo <= a && b <= hi {
            copy.tag = copy.tag.max(v);
        } else {
            let m = a + (b - a) / 2;
            copy.left = self.insert_at(copy.left, a, m, lo, hi, v);
            copy.right = self.insert_at(copy.right, m, b, lo, hi, v);
        }
        self.nodes.push(copy);
        self.nodes.len() as u32 - 1
    }

    /// The largest value of version `root` over an interval covering position `p` (0 when none).
    pub(crate) fn query(&self, root: u32, p: u32) -> u32 {
        let (mut node, mut a, mut b) = (root, 0, self.n);
        let mut best = 0;
        while node != EMPTY {
            let x = self.nodes[node as usize];
            best = best.max(x.tag);
            if b - a <= 1 {
                break;
            }
            let m = a + (b - a) / 2;
            if p < m {
                (node, b) = (x.left, m);
            } else {
                (node, a) = (x.right, m);
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use converge_gen::rng::Rng;

    /// Every version answers as the plain list of its intervals, on random trees of versions.
    #[test]
    fn versions_answer_as_their_interval_lists() {
        let mut rng = Rng::new(13);
        let mut cover = Cover::default();
        for case in 0..200 {
            let n = 1 + rng.below(300) as u32;
            cover.reset(n);
            // Version k extends a random earlier version (a tree of versions).
            let mut roots = vec![EMPTY];
            let mut lists: Vec<Vec<(u32, u32, u32)>> = vec![Vec::new()];
            for _ in 0..40 {
                let parent = rng.below(roots.len());
                let lo = rng.below(n as usize + 1) as u32;
                let hi = lo + rng.below((n - lo) as usize + 1) as u32;
                let v = 1 + rng.below(50) as u32;
                roots.push(cover.insert(roots[parent], lo, hi, v));
                let mut list = lists[parent].clone();
                list.push((lo, hi, v));
                lists.push(list);
            }
            for (root, list) in roots.iter().zip(&lists) {
                for p in 0..n {
                    let expect = list
                        .iter()
                        .filter(|&&(lo, hi, _)| lo <= p && p < hi)
                        .map(|x| x.2)
                        .max()
                        .unwrap_or(0);
                    assert_eq!(cover.query(*root, p), expect, "case {case}, point {p}");
                }
            }
        }
    }
}
