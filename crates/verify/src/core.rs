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
pub fn check_function<F: TokenFunction, S: Structure>(
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
                check_use(f, s, def, i, &mut live, &mut hearts, out);
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
    live: &mut Vec<Inst>,
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
    if !live.contains(&def) {
        let mut v = Violation::new(Rule::WellNested, user);
        v.related = Some(def);
        out.push(v);
        return;
    }
    while live.last() != Some(&def) {
        live.pop();
    }
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
}
