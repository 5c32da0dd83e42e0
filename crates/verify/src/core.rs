//! The static rules of convergence control ("Convergent Operation Semantics", §Convergence Control
//! Intrinsics and §Static Rules), checked the way LLVM's IR verifier does:
//!
//! 1. a per-instruction phase over the blocks in layout order (bundle shape, token source, placement
//!    of `entry`/`loop`, controlled vs. uncontrolled convergence);
//! 2. a function-level phase, only for functions with controlled convergence: blocks in reverse
//!    post-order carry a stack of live tokens (the first predecessor seeds a block's stack with the
//!    dominating prefix, later predecessors intersect), each use checks dominance and nesting, and a
//!    use in a cycle that does not contain its definition must be the cycle's one heart, in the header
//!    of the outermost such cycle, which must be reducible.
//!
//! Unlike LLVM, every violation of a function is collected, and the cycle rules carry a witness: a
//! closed path (list of blocks) through the offending use(s).

use crate::Rule;
use converge_graph::{Block, Cycle, Graph, Inst, InstRange};

/// Which convergence-control intrinsic an instruction calls.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Intrinsic {
    /// Not a convergence-control intrinsic (any other instruction or call).
    None,
    /// `llvm.experimental.convergence.entry`: the token of the function's entry dynamic instance,
    /// allowed only in the entry block of a convergent function.
    Entry,
    /// `llvm.experimental.convergence.anchor`: a token whose set of converged threads is
    /// implementation-defined.
    Anchor,
    /// `llvm.experimental.convergence.loop`: a cycle heart, taking the token of the enclosing
    /// dynamic instance through its bundle.
    Loop,
}

/// The `convergencectrl` bundle of a call, as far as the rules need it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// Not a call, or a call without the bundle.
    None,
    /// More than one `convergencectrl` bundle.
    Multiple,
    /// One bundle whose inputs are not exactly one token-typed value.
    NotOneToken,
    /// One bundle with one token: `Some(def)` when the token is an instruction of this function,
    /// `None` for any other value (`token none`, an argument, …).
    Token(Option<Inst>),
}

/// What the rules need to know about a function. Instructions are dense [`Inst`] ids; the
/// instructions of a block are a contiguous id range ([`InstRange`]) in layout order, blocks are numbered in layout order (the entry
/// block is the graph's entry, block 0 in LLVM), and ids grow along the layout (block `b + 1`'s range
/// starts after block `b`'s).
pub trait TokenFunction {
    /// The control-flow graph the block ids refer to.
    type G: Graph;
    /// The function's CFG (entry = the function's entry block).
    fn graph(&self) -> &Self::G;
    /// Instructions of `b`, in order.
    fn block_insts(&self, b: Block) -> InstRange;
    /// The block containing instruction `i`.
    fn inst_block(&self, i: Inst) -> Block;
    /// Which convergence-control intrinsic `i` calls, if any.
    fn intrinsic(&self, i: Inst) -> Intrinsic;
    /// Whether `i` is a convergent operation (call-site or callee `convergent`, intrinsics included).
    fn is_convergent(&self, i: Inst) -> bool;
    /// The `convergencectrl` bundle of `i`.
    fn control(&self, i: Inst) -> Control;
    /// Whether the function itself is `convergent`.
    fn function_is_convergent(&self) -> bool;
}

/// Dominance and the cycle hierarchy, as the function-level phase reads them. Cycles are
/// converge-graph's [`Cycle`] ids.
pub trait Structure {
    /// Reachable blocks in LLVM's reverse post-order (first successor explored first).
    fn rpo(&self) -> &[Block];
    /// Block dominance (reflexive). An unreachable block is dominated by everything and dominates
    /// nothing else (LLVM's `DominatorTree::dominates` on nodes).
    fn dominates(&self, a: Block, b: Block) -> bool;
    /// The innermost cycle containing `b`.
    fn cycle_of(&self, b: Block) -> Option<Cycle>;
    /// The innermost cycle strictly containing `c`; `None` at top level.
    fn parent(&self, c: Cycle) -> Option<Cycle>;
    /// Whether cycle `c` (with its descendants) contains `b`.
    fn contains(&self, c: Cycle, b: Block) -> bool;
    /// The entries, header first.
    fn entries(&self, c: Cycle) -> &[Block];
    /// All blocks of the cycle (entries included) in the hierarchy's order.
    fn blocks(&self, c: Cycle) -> &[Block];
    /// Nesting depth of `c`: 1 for a top-level cycle (as `print<cycles>` prints `depth=1`).
    fn depth(&self, c: Cycle) -> u32;
}

/// A cycle as it was when a diagnostic was made (for printing `depth=1: entries(h) b`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleSummary {
    /// Depth of the cycle in the hierarchy (1 = top level).
    pub depth: u32,
    /// The entries, header first (LLVM's order).
    pub entries: Vec<Block>,
    /// The blocks other than the entries, in the hierarchy's order.
    pub others: Vec<Block>,
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The rule broken.
    pub rule: Rule,
    /// The instruction that breaks the rule (the use, the intrinsic call, …).
    pub inst: Inst,
    /// The other instruction involved: the token definition (D3, D12, D13), the first heart (D16),
    /// the earlier convergent operation of the block (D6, D9), the operation that made the function
    /// controlled or uncontrolled (D11).
    pub related: Option<Inst>,
    /// The cycle involved (D14-D16).
    pub cycle: Option<CycleSummary>,
    /// The block LLVM prints as an operand (D15: the heart's block).
    pub block: Option<Block>,
    /// For cycle rules: a closed path (first block repeated at the end is implied) through the use(s).
    pub witness: Vec<Block>,
}

impl Violation {
    fn new(rule: Rule, inst: Inst) -> Violation {
        Violation {
            rule,
            inst,
            related: None,
            cycle: None,
            block: None,
            witness: Vec::new(),
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    NoConvergence,
    Controlled,
    Uncontrolled,
}

/// The result of the per-instruction phase.
pub struct Visited {
    /// `(use, def)` for each instruction with a valid token operand, in instruction order.
    pub uses: Vec<(Inst, Inst)>,
    /// Whether the function-level phase runs (LLVM: the function's kind is "controlled").
    pub controlled: bool,
}

/// Where LLVM versions differ in the rules themselves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// D10: a token may only be used by a convergent call. LLVM 19 checks it; LLVM 22 dropped the
    /// check (a bundle on a non-convergent call is accepted and has no effect, as the text says), but
    /// still counts such a call as controlled.
    pub use_needs_convergent: bool,
}

impl Default for Options {
    /// LLVM 22, the reference.
    fn default() -> Options {
        Options {
            use_needs_convergent: false,
        }
    }
}

/// Per-instruction phase (LLVM's verifier visits each instruction); pushes violations in LLVM's
/// order.
pub fn visit<F: TokenFunction>(f: &F, opts: Options, out: &mut Vec<Violation>) -> Visited {
    let g = f.graph();
    let mut kind = Kind::NoConvergence;
    // The operation that fixed `kind` (reported with D11).
    let mut kind_inst = Inst(u32::MAX);
    let mut uses = Vec::new();
    let entry = g.entry();
    for b in 0..g.num_blocks() as u32 {
        let b = Block(b);
        let mut seen_convergent = false;
        // The first convergent operation of the block (reported with D6, D9).
        let mut first_convergent = Inst(u32::MAX);
        for i in f.block_insts(b) {
            let def = match f.control(i) {
                Control::None => None,
                Control::Multiple => {
                    out.push(Violation::new(Rule::BundleOnce, i));
                    None
                }
                Control::NotOneToken => {
                    out.push(Violation::new(Rule::BundleOneToken, i));
                    None
                }
                Control::Token(d) => match d {
                    Some(d) if f.intrinsic(d) != Intrinsic::None => {
                        uses.push((i, d));
                        Some(d)
                    }
                    _ => {
                        let mut v = Violation::new(Rule::TokenSource, i);
                        v.related = d;
                        out.push(v);
                        None
                    }
                },
            };
            let intr = f.intrinsic(i);
            let convergent = f.is_convergent(i);
            // Kind-specific checks; a failure ends the visit of `i` (LLVM's `Check` returns).
            let fail = match intr {
                Intrinsic::Entry => {
                    if !f.function_is_convergent() {
                        Some(Rule::EntryInConvergentFunction)
                    } else if b != entry {
                        Some(Rule::EntryInEntryBlock)
                    } else if seen_convergent {
                        Some(Rule::EntryFirst)
                    } else if def.is_some() {
                        Some(Rule::NoOperandOnEntryOrAnchor)
                    } else {
                        None
                    }
                }
                Intrinsic::Anchor => def.is_some().then_some(Rule::NoOperandOnEntryOrAnchor),
                Intrinsic::Loop => {
                    if def.is_none() {
                        Some(Rule::LoopNeedsOperand)
                    } else if seen_convergent {
                        Some(Rule::LoopFirst)
                    } else {
                        None
                    }
                }
                Intrinsic::None => None,
            };
            if let Some(rule) = fail {
                let mut v = Violation::new(rule, i);
                if matches!(rule, Rule::EntryFirst | Rule::LoopFirst) {
                    v.related = Some(first_convergent);
                }
                out.push(v);
                continue;
            }
            if convergent && !seen_convergent {
                seen_convergent = true;
                first_convergent = i;
            }
            if def.is_some() || intr != Intrinsic::None {
                if !convergent && opts.use_needs_convergent {
                    out.push(Violation::new(Rule::UseByConvergentOnly, i));
                    continue;
                }
                if kind == Kind::Uncontrolled {
                    let mut v = Violation::new(Rule::NoMixing, i);
                    v.related = Some(kind_inst);
                    out.push(v);
                    continue;
                }
                if kind == Kind::NoConvergence {
                    kind_inst = i;
                }
                kind = Kind::Controlled;
            } else if convergent {
                if kind == Kind::Controlled {
                    let mut v = Violation::new(Rule::NoMixing, i);
                    v.related = Some(kind_inst);
                    out.push(v);
                    continue;
                }
                if kind == Kind::NoConvergence {
                    kind_inst = i;
                }
                kind = Kind::Uncontrolled;
            }
        }
    }
    Visited {
        uses,
        controlled: kind == Kind::Controlled,
    }
}

/// Function-level phase (LLVM's verifier, once per function with controlled convergence). `uses` lists `(use, def)` in instruction order.
///
/// LLVM keeps a stack of live tokens per block: the first predecessor in reverse post-order seeds
/// a block's stack with the prefix of its own that dominates the block, later predecessors
/// intersect (`llvm::partition`), a use pops the tokens above its definition, an intrinsic pushes
/// its token. Copying a stack per block is quadratic in a deep nest of token loops (thousands of
/// tokens live at once), so the stacks are kept as one tree instead (`TokenTree`): a token is
/// pushed once, in its block, on the stack at hand, so every stack is the path from a node of the
/// tree (its top) to the root. Then popping down to a token is moving to its node, the
/// dominating prefix is the deepest ancestor whose block dominates the successor (the blocks
/// along a path dominate each other downwards, so the test is monotone), and the intersection of
/// two stacks is their nearest common ancestor: a prefix of both, which `partition` keeps in
/// place. Each is a few jumps up the tree; the answers, and so the diagnostics, are LLVM's.
pub fn check_function<F: TokenFunction, S: Structure>(
    f: &F,
    s: &S,
    uses: &[(Inst, Inst)],
    out: &mut Vec<Violation>,
) {
    let g = f.graph();
    let n = g.num_blocks();
    // Per block: the top of its live stack once a predecessor has been visited, `UNSEEN` before,
    // `DONE` once the block itself is visited (an edge back to it changes nothing LLVM reads).
    const UNSEEN: u32 = u32::MAX;
    const DONE: u32 = u32::MAX - 1;
    let mut live_in: Vec<u32> = vec![UNSEEN; n];
    // cycle -> its heart
    let mut hearts: std::collections::HashMap<Cycle, Inst> = std::collections::HashMap::new();
    let mut tree = TokenTree::new();
    for &b in s.rpo() {
        let mut top = match live_in[b.index()] {
            UNSEEN | DONE => TokenTree::EMPTY,
            t => t,
        };
        live_in[b.index()] = DONE;
        let range = f.block_insts(b);
        // Uses are in instruction order; find this block's slice by binary search.
        let lo = uses.partition_point(|&(u, _)| u < range.start());
        let hi = uses.partition_point(|&(u, _)| u < range.end());
        let mut next_use = lo;
        for i in range {
            if next_use < hi && uses[next_use].0 == i {
                let def = uses[next_use].1;
                next_use += 1;
                check_use(
                    f,
                    s,
                    def,
                    i,
                    &mut LiveStack::Tree(&tree, &mut top),
                    &mut hearts,
                    out,
                );
            }
            if f.intrinsic(i) != Intrinsic::None {
                top = tree.push(top, i);
            }
        }
        for &succ in g.succs(b) {
            let slot = &mut live_in[succ.index()];
            match *slot {
                DONE => {}
                UNSEEN => {
                    // The first predecessor: the dominating prefix of its stack is live.
                    *slot = tree.deepest(top, |t| s.dominates(f.inst_block(t), succ));
                }
                l => *slot = tree.common(l, top),
            }
        }
    }
}

/// Every live-token stack of [`check_function`] at once: node 0 is the empty stack, every other
/// node a token pushed on the stack its parent tops. Each node keeps a jump pointer (the
/// skew-binary scheme of Myers' "An applicative random-access stack", 1983), so walking up to a
/// depth, to the deepest node of a monotone test or to the common ancestor of two nodes takes
/// a logarithmic number of steps, and adding a node is constant time.
struct TokenTree {
    parent: Vec<u32>,
    jump: Vec<u32>,
    depth: Vec<u32>,
    token: Vec<Inst>,
    /// A token's node (a token is pushed at most once: its block is visited once).
    node: std::collections::HashMap<Inst, u32>,
}

impl TokenTree {
    const EMPTY: u32 = 0;

    fn new() -> TokenTree {
        TokenTree {
            parent: vec![0],
            jump: vec![0],
            depth: vec![0],
            token: vec![Inst(u32::MAX)],
            node: std::collections::HashMap::new(),
        }
    }

    /// The stack `top` with `t` pushed.
    fn push(&mut self, top: u32, t: Inst) -> u32 {
        let v = self.parent.len() as u32;
        let (p, d) = (top as usize, self.depth[top as usize]);
        let jp = self.jump[p] as usize;
        let jjp = self.jump[jp];
        // Jump twice as far when the parent's jump and its jump's jump span equal lengths.
        let jump = if d - self.depth[jp] == self.depth[jp] - self.depth[jjp as usize] {
            jjp
        } else {
            top
        };
        self.parent.push(top);
        self.jump.push(jump);
        self.depth.push(d + 1);
        self.token.push(t);
        self.node.insert(t, v);
        v
    }

    /// The ancestor of `v` (itself included) at depth `d` (at most `v`'s).
    fn ancestor_at(&self, mut v: u32, d: u32) -> u32 {
        while self.depth[v as usize] > d {
            let j = self.jump[v as usize];
            v = if self.depth[j as usize] >= d {
                j
            } else {
                self.parent[v as usize]
            };
        }
        v
    }

    /// Whether token `t` is on the stack `top`.
    fn contains(&self, top: u32, t: Inst) -> bool {
        self.node.get(&t).is_some_and(|&v| {
            self.depth[v as usize] <= self.depth[top as usize]
                && self.ancestor_at(top, self.depth[v as usize]) == v
        })
    }

    /// The longest prefix (from the bottom) of the stack `top` whose tokens pass `keep`, for a
    /// test that holds for every token below one that passes.
    fn deepest(&self, mut v: u32, keep: impl Fn(Inst) -> bool) -> u32 {
        let pass = |v: u32| v == Self::EMPTY || keep(self.token[v as usize]);
        while !pass(v) {
            let j = self.jump[v as usize];
            // Everything from `v` up to a failing jump target fails too.
            v = if !pass(j) { j } else { self.parent[v as usize] };
        }
        v
    }

    /// The tokens of stack `a` also on stack `b`: their common prefix.
    fn common(&self, mut a: u32, mut b: u32) -> u32 {
        let (da, db) = (self.depth[a as usize], self.depth[b as usize]);
        if da > db {
            a = self.ancestor_at(a, db);
        } else {
            b = self.ancestor_at(b, da);
        }
        while a != b {
            // Jumps depend on the depth alone, so `a`'s and `b`'s reach the same depth.
            let (ja, jb) = (self.jump[a as usize], self.jump[b as usize]);
            if ja != jb {
                (a, b) = (ja, jb);
            } else {
                (a, b) = (self.parent[a as usize], self.parent[b as usize]);
            }
        }
        a
    }
}

/// The live stack a use reads and pops: [`check_function`]'s tree, or (tests) a plain stack.
enum LiveStack<'a> {
    Tree(&'a TokenTree, &'a mut u32),
    #[cfg(test)]
    Vec(&'a mut Vec<Inst>),
}

impl LiveStack<'_> {
    fn contains(&self, t: Inst) -> bool {
        match self {
            LiveStack::Tree(tree, top) => tree.contains(**top, t),
            #[cfg(test)]
            LiveStack::Vec(v) => v.contains(&t),
        }
    }

    /// Pops the tokens above `t` (on the stack).
    fn pop_to(&mut self, t: Inst) {
        match self {
            LiveStack::Tree(tree, top) => **top = tree.node[&t],
            #[cfg(test)]
            LiveStack::Vec(v) => {
                while v.last() != Some(&t) {
                    v.pop();
                }
            }
        }
    }
}

/// [`check_function`] as LLVM's verifier runs it, a stack copied per block: the reference the
/// tree is tested against.
#[cfg(test)]
pub(crate) fn check_function_stacks<F: TokenFunction, S: Structure>(
    f: &F,
    s: &S,
    uses: &[(Inst, Inst)],
    out: &mut Vec<Violation>,
) {
    let g = f.graph();
    let n = g.num_blocks();
    // Uses sorted by instruction id: instruction ids grow along a block, so a cursor per block works.
    let mut live_in: Vec<Option<Vec<Inst>>> = vec![None; n];
    // cycle -> its heart
    let mut hearts: std::collections::HashMap<Cycle, Inst> = std::collections::HashMap::new();
    let mut live: Vec<Inst> = Vec::new();
    // The tokens of `live`, for the intersections at later predecessors: a deep nest of token
    // loops keeps thousands live, and asking the stack itself made each merge quadratic in the
    // depth (issue 13, session 20's `tokens` family: 8 s at 16,000 blocks).
    let mut live_set: std::collections::HashSet<Inst> = std::collections::HashSet::new();
    for &b in s.rpo() {
        live.clear();
        if let Some(l) = live_in[b.index()].take() {
            live = l;
        }
        let range = f.block_insts(b);
        // Uses are in instruction order; find this block's slice by binary search.
        let lo = uses.partition_point(|&(u, _)| u < range.start());
        let hi = uses.partition_point(|&(u, _)| u < range.end());
        let mut next_use = lo;
        for i in range {
            if next_use < hi && uses[next_use].0 == i {
                let def = uses[next_use].1;
                next_use += 1;
                check_use(
                    f,
                    s,
                    def,
                    i,
                    &mut LiveStack::Vec(&mut live),
                    &mut hearts,
                    out,
                );
            }
            if f.intrinsic(i) != Intrinsic::None {
                live.push(i);
            }
        }
        let mut set_ready = false;
        for &succ in g.succs(b) {
            match &mut live_in[succ.index()] {
                slot @ None => {
                    // The first predecessor: the dominating prefix of its stack is live.
                    let mut l = Vec::with_capacity(live.len());
                    for &t in &live {
                        if !s.dominates(f.inst_block(t), succ) {
                            break;
                        }
                        l.push(t);
                    }
                    *slot = Some(l);
                }
                Some(l) => {
                    if !set_ready {
                        live_set.clear();
                        live_set.extend(live.iter().copied());
                        set_ready = true;
                    }
                    let keep = partition(l, |t| live_set.contains(&t));
                    l.truncate(keep);
                }
            }
        }
    }
}

/// `std::partition` for bidirectional iterators as libstdc++ implements it (LLVM's `llvm::partition`
/// on a `SmallVector`), so the kept tokens end up in exactly LLVM's order. Returns the kept count.
#[cfg(test)]
fn partition<T: Copy>(v: &mut [T], keep: impl Fn(T) -> bool) -> usize {
    let (mut first, mut last) = (0usize, v.len());
    loop {
        loop {
            if first == last {
                return first;
            }
            if keep(v[first]) {
                first += 1;
            } else {
                break;
            }
        }
        last -= 1;
        loop {
            if first == last {
                return first;
            }
            if !keep(v[last]) {
                last -= 1;
            } else {
                break;
            }
        }
        v.swap(first, last);
        first += 1;
    }
}

fn summary<S: Structure>(s: &S, c: Cycle) -> CycleSummary {
    let entries = s.entries(c).to_vec();
    let others = s
        .blocks(c)
        .iter()
        .copied()
        .filter(|b| !entries.contains(b))
        .collect();
    CycleSummary {
        depth: s.depth(c),
        entries,
        others,
    }
}

#[allow(clippy::too_many_arguments)]
fn check_use<F: TokenFunction, S: Structure>(
    f: &F,
    s: &S,
    def: Inst,
    user: Inst,
    live: &mut LiveStack<'_>,
    hearts: &mut std::collections::HashMap<Cycle, Inst>,
    out: &mut Vec<Violation>,
) {
    let def_bb = f.inst_block(def);
    let bb = f.inst_block(user);
    if !s.dominates(def_bb, bb) {
        let mut v = Violation::new(Rule::Dominance, user);
        v.related = Some(def);
        out.push(v);
        return;
    }
    if !live.contains(def) {
        let mut v = Violation::new(Rule::WellNested, user);
        v.related = Some(def);
        out.push(v);
        return;
    }
    live.pop_to(def);
    let Some(mut c) = s.cycle_of(bb) else { return };
    if def_bb == bb || s.contains(c, def_bb) {
        return;
    }
    if f.intrinsic(user) != Intrinsic::Loop {
        let mut v = Violation::new(Rule::CycleUseByHeartOnly, user);
        v.witness = closed_path(f.graph(), s, c, bb, None);
        v.cycle = Some(summary(s, c));
        out.push(v);
        return;
    }
    while let Some(p) = s.parent(c) {
        if s.contains(p, def_bb) {
            break;
        }
        c = p;
    }
    let entries = s.entries(c);
    if entries.len() != 1 || entries[0] != bb {
        let mut v = Violation::new(Rule::HeartInHeader, user);
        // A closed path through the heart and an entry it does not dominate.
        let other = entries.iter().copied().find(|&e| e != bb);
        v.witness = closed_path(f.graph(), s, c, bb, other);
        v.block = Some(bb);
        v.cycle = Some(summary(s, c));
        out.push(v);
        return;
    }
    if let Some(&earlier) = hearts.get(&c) {
        let mut v = Violation::new(Rule::OneHeartPerCycle, user);
        v.related = Some(earlier);
        v.witness = closed_path(f.graph(), s, c, bb, Some(f.inst_block(earlier)));
        v.cycle = Some(summary(s, c));
        out.push(v);
        return;
    }
    hearts.insert(c, user);
}

/// A closed path inside cycle `c` that starts at `from`, passes through `via` (if given and different)
/// and returns to `from`; found by breadth-first search, so it is short. Cycles are strongly
/// connected, so the path exists. Only runs when a diagnostic is made.
pub fn closed_path<G: Graph, S: Structure>(
    g: &G,
    s: &S,
    c: Cycle,
    from: Block,
    via: Option<Block>,
) -> Vec<Block> {
    let mut path = vec![from];
    match via {
        Some(v) if v != from => {
            path.extend(bfs(g, s, c, from, v));
            path.extend(bfs(g, s, c, v, from));
        }
        _ => path.extend(bfs(g, s, c, from, from)),
    }
    path.pop(); // the final `from` is implied
    path
}

/// Shortest path from `a` to `b` (at least one edge) within cycle `c`, excluding `a`, including `b`.
fn bfs<G: Graph, S: Structure>(g: &G, s: &S, c: Cycle, a: Block, b: Block) -> Vec<Block> {
    let in_cycle = |x: Block| s.contains(c, x);
    let mut prev: std::collections::HashMap<Block, Block> = std::collections::HashMap::new();
    let mut queue = std::collections::VecDeque::new();
    queue.push_back(a);
    let mut found = false;
    'outer: while let Some(x) = queue.pop_front() {
        for &y in g.succs(x) {
            if !in_cycle(y) || prev.contains_key(&y) {
                continue;
            }
            prev.insert(y, x);
            if y == b {
                found = true;
                break 'outer;
            }
            queue.push_back(y);
        }
    }
    if !found {
        return vec![b];
    }
    let mut rev = vec![b];
    let mut x = b;
    loop {
        let p = prev[&x];
        if p == a {
            break;
        }
        rev.push(p);
        x = p;
    }
    rev.reverse();
    rev
}

/// Both phases for one function: every violation, in LLVM's order (visit phase, then function-level).
pub fn verify_function<F: TokenFunction, S: Structure>(
    f: &F,
    opts: Options,
    structure: impl FnOnce() -> S,
) -> Vec<Violation> {
    let mut out = Vec::new();
    let visited = visit(f, opts, &mut out);
    if visited.controlled {
        let s = structure();
        check_function(f, &s, &visited.uses, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    //! The core on a tiny non-LLVM IR: each instruction is (kind, convergent, token operand).
    use super::*;
    use crate::structure::GraphStructure;
    use converge_graph::{Cfg, UnreachablePreds};

    struct Mock {
        cfg: Cfg,
        /// Per block, instruction ids.
        blocks: Vec<std::ops::Range<u32>>,
        insts: Vec<(Block, Intrinsic, bool, Control)>,
        convergent_fn: bool,
    }

    impl TokenFunction for Mock {
        type G = Cfg;
        fn graph(&self) -> &Cfg {
            &self.cfg
        }
        fn block_insts(&self, b: Block) -> InstRange {
            InstRange::from(self.blocks[b.index()].clone())
        }
        fn inst_block(&self, i: Inst) -> Block {
            self.insts[i.index()].0
        }
        fn intrinsic(&self, i: Inst) -> Intrinsic {
            self.insts[i.index()].1
        }
        fn is_convergent(&self, i: Inst) -> bool {
            self.insts[i.index()].2
        }
        fn control(&self, i: Inst) -> Control {
            self.insts[i.index()].3
        }
        fn function_is_convergent(&self) -> bool {
            self.convergent_fn
        }
    }

    /// entry: e = entry; br h.  h: l = loop(e); op(X); br h | x.  x: op(e)
    fn mock(x: u32) -> Mock {
        let succs = vec![vec![Block(1)], vec![Block(1), Block(2)], vec![]];
        Mock {
            cfg: Cfg::from_succs(Block(0), 3, succs),
            blocks: vec![0..1, 1..3, 3..4],
            insts: vec![
                (Block(0), Intrinsic::Entry, true, Control::None),
                (
                    Block(1),
                    Intrinsic::Loop,
                    true,
                    Control::Token(Some(Inst(0))),
                ),
                (
                    Block(1),
                    Intrinsic::None,
                    true,
                    Control::Token(Some(Inst(x))),
                ),
                (
                    Block(2),
                    Intrinsic::None,
                    true,
                    Control::Token(Some(Inst(0))),
                ),
            ],
            convergent_fn: true,
        }
    }

    fn rules(m: &Mock) -> Vec<Rule> {
        verify_function(m, Options::default(), || {
            GraphStructure::new(&m.cfg, UnreachablePreds::Ignore)
        })
        .into_iter()
        .map(|v| v.rule)
        .collect()
    }

    #[test]
    fn heart_use_is_valid_and_outer_use_in_cycle_is_not() {
        // The op in the loop uses the heart: valid.
        assert_eq!(rules(&mock(1)), vec![]);
        // It uses the entry token instead: a closed path through the use misses the definition.
        assert_eq!(rules(&mock(0)), vec![Rule::CycleUseByHeartOnly]);
    }

    #[test]
    fn libstdcxx_partition_order() {
        let mut v = vec![1, 2, 3, 4, 5];
        let k = partition(&mut v, |t| t != 2);
        assert_eq!(k, 4);
        assert_eq!(&v[..k], &[1, 5, 3, 4]);
    }

    /// The tree's jump-pointer queries against plain walks to the root, on a random tree with
    /// long chains (deep enough for many jump lengths) and branches.
    #[test]
    fn token_tree_queries_match_walks_to_the_root() {
        let mut tree = TokenTree::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rand = |n: u32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as u32
        };
        let mut last = TokenTree::EMPTY;
        for k in 0..4000 {
            // Mostly on the chain's newest node, sometimes anywhere (a branch, the chain going on).
            if rand(10) < 8 {
                last = tree.push(last, Inst(1000 + k));
            } else {
                tree.push(rand(k + 1), Inst(1000 + k));
            }
        }
        let path = |mut v: u32| {
            let mut p = vec![v];
            while v != TokenTree::EMPTY {
                v = tree.parent[v as usize];
                p.push(v);
            }
            p
        };
        let nodes = tree.parent.len() as u32;
        let mut deepest_seen = 0;
        for _ in 0..3000 {
            let (a, b) = (rand(nodes), rand(nodes));
            let (pa, pb) = (path(a), path(b));
            deepest_seen = deepest_seen.max(pa.len());
            let lca = *pa.iter().find(|v| pb.contains(v)).unwrap();
            assert_eq!(tree.common(a, b), lca);
            assert_eq!(tree.common(b, a), lca);
            let d = rand(tree.depth[a as usize] + 1);
            assert_eq!(
                tree.ancestor_at(a, d),
                pa[(tree.depth[a as usize] - d) as usize]
            );
            let t = tree.token[b as usize];
            assert_eq!(
                b == TokenTree::EMPTY || tree.contains(a, t),
                pa.contains(&b)
            );
            // A test true at every ancestor of a node it holds for: "on the stack `c`".
            let c = rand(nodes);
            let pc = path(c);
            let on_c = |t: Inst| pc.contains(&tree.node[&t]);
            let want = *pa.iter().find(|v| pc.contains(v)).unwrap();
            assert_eq!(tree.deepest(a, on_c), want);
        }
        assert!(deepest_seen > 1000, "depth {deepest_seen}");
    }
}
