//! Dominator tree by the Semi-NCA algorithm (Georgiadis, "Linear-time algorithms for dominators and
//! related problems", 2005; the variant LLVM's dominator-tree construction uses): an iterative
//! DFS numbering, semidominators by path-compressed link-eval in reverse preorder, then each
//! immediate dominator as the nearest common ancestor of the DFS parent and the semidominator.
//! Queries are O(1) through nested preorder intervals of the dominator tree.
//!
//! Like Cranelift's dominator tree, [`DominatorTree::compute`] reuses every buffer, so
//! recomputing for a changed function does not allocate in the steady state.
//!
//! Unreachable blocks have no immediate dominator and are outside the tree. Following LLVM's
//! `DominatorTree::dominates`, an unreachable block is dominated by every block and dominates
//! only itself.

use crate::{Block, Graph};

const NONE: u32 = u32::MAX;

/// The dominator tree of a [`Graph`] rooted at its entry: block `a` dominates `b` when every path
/// from the entry to `b` goes through `a`. Built by Semi-NCA; `dominates` is O(1) through
/// preorder intervals of the tree. Reusable across functions through its `compute` methods.
#[derive(Clone, Debug, Default)]
pub struct DominatorTree {
    root: Block,
    /// Per block: its place in the dominator tree (`size` 0 when unreachable).
    tree: Vec<TreeInfo>,
    /// The reachable blocks in dominator-tree preorder (indexed by `tin`).
    preorder: Vec<Block>,
    // Scratch. `num` and `vertex` serve `compute`'s own DFS only: `compute_from_dfs` reads the
    // numbering of the DFS it is given.
    /// Per block: DFS preorder number from 1; 0 when unreachable.
    num: Vec<u32>,
    /// Per DFS number minus one: the block.
    vertex: Vec<Block>,
    /// Indexed by DFS number (slot 0 unused).
    nodes: Vec<Node>,
    path: Vec<u32>,
}

/// A block's place in the dominator tree, kept together: `dominates` reads `tin` and `size`.
#[derive(Copy, Clone, Debug)]
struct TreeInfo {
    /// Immediate dominator, `NONE` for the root and unreachable blocks.
    idom: u32,
    /// Position in a preorder of the dominator tree, and the size of the subtree (0 for an
    /// unreachable block, at least 1 for a reachable one).
    tin: u32,
    size: u32,
    /// Depth in the tree.
    level: u32,
}

const NO_TREE: TreeInfo = TreeInfo {
    idom: NONE,
    tin: 0,
    size: 0,
    level: 0,
};

/// Semi-NCA state of one DFS number, kept together for locality.
#[derive(Copy, Clone, Debug, Default)]
struct Node {
    /// Link-eval forest ancestor (path-compressed).
    anc: u32,
    semi: u32,
    label: u32,
    /// The DFS parent until `semi_nca`'s second loop makes it the immediate dominator.
    idom: u32,
}

impl Node {
    /// The initial state of DFS number `k` with DFS-tree parent `parent`.
    #[inline]
    fn new(k: u32, parent: u32) -> Node {
        Node {
            anc: parent,
            semi: k,
            label: k,
            idom: parent,
        }
    }
}

impl DominatorTree {
    /// Computes the dominator tree of `g`.
    pub fn new<G: Graph + ?Sized>(g: &G) -> DominatorTree {
        let mut t = DominatorTree::default();
        t.compute(g);
        t
    }

    /// Clears the buffers for `g` (keeping their allocations); false when `g` has no blocks.
    fn reset<G: Graph + ?Sized>(&mut self, g: &G) -> bool {
        let n = g.num_blocks();
        self.root = g.entry();
        self.tree.clear();
        self.tree.resize(n, NO_TREE);
        self.preorder.clear();
        self.nodes.clear();
        self.nodes.push(Node::default());
        n != 0
    }

    /// Recomputes the tree for `g`, reusing all buffers.
    pub fn compute<G: Graph + ?Sized>(&mut self, g: &G) {
        if !self.reset(g) {
            return;
        }
        self.num.clear();
        self.num.resize(g.num_blocks(), 0);
        self.vertex.clear();
        self.dfs(g);
        let vertex = std::mem::take(&mut self.vertex);
        let num = std::mem::take(&mut self.num);
        self.semi_nca(g, &vertex, |b| num[b.index()]);
        self.build_tree(&vertex);
        self.vertex = vertex;
        self.num = num;
    }

    /// Like [`DominatorTree::compute`], but takes the DFS spanning tree from `dfs` (which must
    /// have been computed on `g`) instead of walking the graph again: Semi-NCA works with any DFS
    /// tree. The tree is the same; only the order of [`DominatorTree::children`] follows `dfs`'s
    /// numbering. Used when cycles and dominators are both needed.
    pub fn compute_from_dfs<G: Graph + ?Sized>(&mut self, g: &G, dfs: &crate::CycleDfs) {
        if !self.reset(g) {
            return;
        }
        let vertex = dfs.preorder();
        self.nodes.extend(
            (1..=vertex.len() as u32)
                .zip(dfs.parents())
                .map(|(k, &parent)| Node::new(k, parent)),
        );
        self.semi_nca(g, vertex, |b| dfs.start(b));
        self.build_tree(vertex);
    }

    /// Iterative preorder numbering from the root (first successor first).
    fn dfs<G: Graph + ?Sized>(&mut self, g: &G) {
        let root = self.root;
        self.visit(root, 0);
        // Frames hold the successors still to explore; they borrow `g`, so the stack is local.
        let mut stack: Vec<(u32, &[Block])> = Vec::with_capacity(64);
        stack.push((1, g.succs(root)));
        while let Some((pn, rest)) = stack.last_mut() {
            let mut found = None;
            while let Some((&s, r)) = rest.split_first() {
                *rest = r;
                if self.num[s.index()] == 0 {
                    found = Some(s);
                    break;
                }
            }
            match found {
                Some(s) => {
                    let k = self.visit(s, *pn);
                    stack.push((k, g.succs(s)));
                }
                None => {
                    stack.pop();
                }
            }
        }
    }

    #[inline]
    fn visit(&mut self, b: Block, parent: u32) -> u32 {
        self.vertex.push(b);
        let k = self.vertex.len() as u32;
        self.num[b.index()] = k;
        self.nodes.push(Node::new(k, parent));
        k
    }

    /// Semidominators, then immediate dominators, for the DFS numbering `num` (from 1, 0 when
    /// unreachable) whose blocks in preorder are `vertex`.
    fn semi_nca<G: Graph + ?Sized>(&mut self, g: &G, vertex: &[Block], num: impl Fn(Block) -> u32) {
        let count = vertex.len() as u32;
        // The node table as a local slice and the path buffer moved out: the loops index them
        // without reloading `self`'s vector pointers after every write.
        let nodes = &mut self.nodes[..=count as usize];
        let mut path = std::mem::take(&mut self.path);
        for w in (2..=count).rev() {
            let wb = vertex[w as usize - 1];
            // `idom` still holds the DFS parent here (set by `Node::new`).
            let mut semi = nodes[w as usize].idom;
            for &p in g.preds(wb) {
                let pn = num(p);
                if pn == 0 {
                    continue;
                }
                // A predecessor numbered before `w` is not linked yet: it is its own evaluation,
                // with its own number as semidominator (the common case: forward and tree edges).
                if pn <= w {
                    semi = semi.min(pn);
                    continue;
                }
                let u = eval(nodes, &mut path, pn, w + 1);
                semi = semi.min(nodes[u as usize].semi);
            }
            nodes[w as usize].semi = semi;
        }
        self.path = path;
        // `label` is free from here on: it starts the subtree sizes of `build_tree`.
        nodes[1].label = 1;
        for w in 2..=count {
            let semi = nodes[w as usize].semi;
            let mut d = nodes[w as usize].idom;
            while d > semi {
                d = nodes[d as usize].idom;
            }
            nodes[w as usize].idom = d;
            nodes[w as usize].label = 1;
        }
    }

    fn build_tree(&mut self, vertex: &[Block]) {
        let count = vertex.len() as u32;
        // Subtree sizes by DFS number (a child's number exceeds its idom's), in `label` (set to
        // 1 by `semi_nca`).
        let nodes = &mut self.nodes[..=count as usize];
        for w in (2..nodes.len()).rev() {
            let Node { idom, label, .. } = nodes[w];
            nodes[idom as usize].label += label;
        }
        // Nested intervals: each vertex's children take consecutive slots after it, in DFS-number
        // order. `semi` becomes the next free slot.
        self.preorder.resize(count as usize, Block(0));
        let (tree, preorder) = (&mut self.tree[..], &mut self.preorder[..]);
        let root = self.root;
        tree[root.index()] = TreeInfo {
            idom: NONE,
            tin: 0,
            size: count,
            level: 0,
        };
        preorder[0] = root;
        // `anc` is free too: it becomes the depth in the tree.
        nodes[1].semi = 1;
        nodes[1].anc = 0;
        for w in 2..=count {
            let node = nodes[w as usize];
            let b = vertex[w as usize - 1];
            let d = vertex[node.idom as usize - 1];
            let up = nodes[node.idom as usize];
            let slot = up.semi;
            let level = up.anc + 1;
            nodes[node.idom as usize].semi = slot + node.label;
            nodes[w as usize].semi = slot + 1;
            nodes[w as usize].anc = level;
            tree[b.index()] = TreeInfo {
                idom: d.0,
                tin: slot,
                size: node.label,
                level,
            };
            preorder[slot as usize] = b;
        }
    }

    /// The root (the graph's entry).
    pub fn root(&self) -> Block {
        self.root
    }
    /// Whether `b` is reachable from the root (only reachable blocks are in the tree).
    #[inline]
    pub fn is_reachable(&self, b: Block) -> bool {
        self.tree[b.index()].size != 0
    }
    /// The immediate dominator; `None` for the root and for unreachable blocks.
    #[inline]
    pub fn idom(&self, b: Block) -> Option<Block> {
        let d = self.tree[b.index()].idom;
        (d != NONE).then_some(Block(d))
    }
    /// Children of `b` in the dominator tree (none for an unreachable block).
    pub fn children(&self, b: Block) -> impl Iterator<Item = Block> + '_ {
        let (start, end) = if self.is_reachable(b) {
            let t = self.tree[b.index()];
            (t.tin + 1, t.tin + t.size)
        } else {
            (0, 0)
        };
        let mut pos = start;
        std::iter::from_fn(move || {
            if pos >= end {
                return None;
            }
            let c = self.preorder[pos as usize];
            pos += self.tree[c.index()].size;
            Some(c)
        })
    }
    /// Reachable blocks in a preorder of the dominator tree (the root first).
    pub fn preorder(&self) -> &[Block] {
        &self.preorder
    }
    /// `b`'s interval `[start, end)` in the dominator tree's preorder: `a` dominates a reachable
    /// `b` exactly when `b`'s start lies in `a`'s interval. Empty for an unreachable block.
    #[inline]
    pub fn interval(&self, b: Block) -> (u32, u32) {
        if !self.is_reachable(b) {
            return (0, 0);
        }
        let t = self.tree[b.index()];
        (t.tin, t.tin + t.size)
    }
    /// Depth in the dominator tree (the root is 0; 0 for unreachable blocks too).
    #[inline]
    pub fn level(&self, b: Block) -> u32 {
        self.tree[b.index()].level
    }
    /// Whether every path from the root to `b` goes through `a` (reflexive). LLVM's convention for
    /// unreachable blocks: `b` unreachable → true; else `a` unreachable → false.
    #[inline]
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        if a == b || !self.is_reachable(b) {
            return true;
        }
        if !self.is_reachable(a) {
            return false;
        }
        let (ta, tb) = (self.tree[a.index()], self.tree[b.index()].tin);
        ta.tin <= tb && tb < ta.tin + ta.size
    }
    /// Whether `a` dominates `b` and `a != b`.
    #[inline]
    pub fn properly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }
    /// The nearest block dominating both; `None` if either is unreachable.
    pub fn nearest_common_dominator(&self, mut a: Block, mut b: Block) -> Option<Block> {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return None;
        }
        while self.level(a) > self.level(b) {
            a = Block(self.tree[a.index()].idom);
        }
        while self.level(b) > self.level(a) {
            b = Block(self.tree[b.index()].idom);
        }
        while a != b {
            a = Block(self.tree[a.index()].idom);
            b = Block(self.tree[b.index()].idom);
        }
        Some(a)
    }
}

/// Link-eval with path compression: the vertex of minimal semidominator on the path from `v` up
/// to (excluding) the first ancestor that is not yet linked (numbers `< linked` are unlinked).
#[inline]
fn eval(nodes: &mut [Node], path: &mut Vec<u32>, v: u32, linked: u32) -> u32 {
    let n = nodes[v as usize];
    if n.anc < linked {
        return n.label;
    }
    eval_compress(nodes, path, v, linked)
}

#[inline(never)]
fn eval_compress(nodes: &mut [Node], path: &mut Vec<u32>, v: u32, linked: u32) -> u32 {
    path.clear();
    let mut x = v;
    loop {
        path.push(x);
        x = nodes[x as usize].anc;
        if nodes[x as usize].anc < linked {
            break;
        }
    }
    // `x` is the topmost linked vertex; compress the path below it, top-down.
    let mut p = x;
    let mut p_label = nodes[p as usize].label;
    while let Some(y) = path.pop() {
        nodes[y as usize].anc = nodes[p as usize].anc;
        let y_label = nodes[y as usize].label;
        if nodes[p_label as usize].semi < nodes[y_label as usize].semi {
            nodes[y as usize].label = p_label;
        } else {
            p_label = y_label;
        }
        p = y;
    }
    nodes[v as usize].label
}
