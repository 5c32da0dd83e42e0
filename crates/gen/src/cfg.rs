//! Random control-flow graphs for the cycle, dominance and uniformity tests, and their LLVM text.
//!
//! [`random_cfg`] builds a structured skeleton (sequences, if/else, loops with breaks and continues,
//! self-loops, switches with repeated targets, two-entry irreducible regions, early returns,
//! no-return regions ending in `unreachable` or an infinite loop), nested a few levels deep, then,
//! depending on the [`Shape`], adds random cross edges (which make irreducible cycles), blocks no
//! path from the entry reaches, and a random textual block order. Block 0 is the entry and never
//! has predecessors. [`to_ll`] writes a verifiable LLVM function for a CFG; the uniformity helper
//! builds data flow on top of the same [`RandomCfg`].
//!
//! [`parse_print_cycles`] reads `opt -passes='print<cycles>'` output back, for differential tests.

use crate::rng::Rng;
use std::fmt::Write;

/// A CFG: per block, its successors in terminator operand order (duplicates allowed). Block 0 is
/// the entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RandomCfg {
    /// Per block: its successors (block indices) in terminator operand order; 0 is the entry.
    pub succs: Vec<Vec<u32>>,
    /// Per block: a block without successors ends in `unreachable` (true) or `ret void` (false).
    pub ends_unreachable: Vec<bool>,
}

/// What a generated CFG stresses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Structured control flow only: every cycle is a natural loop.
    Reducible,
    /// Structured skeleton plus random cross edges.
    Irreducible,
    /// Two-entry regions nested inside loops and each other.
    NestedIrreducible,
    /// Many self-loops and tiny loops.
    SelfLoops,
    /// Switches with repeated targets.
    Switch,
    /// Any of the above plus blocks unreachable from the entry (which may branch into the
    /// reachable part).
    Unreachable,
    /// Regions that never return (`unreachable`, infinite loops) and early returns.
    NoReturn,
    /// Loops with several exits (breaks, early returns).
    MultiExit,
    /// A random mix.
    Mixed,
}

impl Shape {
    /// Every shape, for tests that sweep them all.
    pub const ALL: [Shape; 9] = [
        Shape::Reducible,
        Shape::Irreducible,
        Shape::NestedIrreducible,
        Shape::SelfLoops,
        Shape::Switch,
        Shape::Unreachable,
        Shape::NoReturn,
        Shape::MultiExit,
        Shape::Mixed,
    ];
    /// Whether CFGs of this shape may contain blocks unreachable from the entry.
    pub fn may_have_unreachable(self) -> bool {
        matches!(self, Shape::Unreachable | Shape::Mixed)
    }
}

/// Parameters of [`random_cfg`].
#[derive(Copy, Clone, Debug)]
pub struct CfgParams {
    /// What the CFG stresses.
    pub shape: Shape,
    /// Approximate number of reachable blocks (the skeleton stops growing past it).
    pub blocks: usize,
    /// Maximum loop / region nesting depth.
    pub max_depth: u32,
    /// Allow blocks unreachable from the entry (only used by shapes that add them).
    pub allow_unreachable: bool,
    /// Shuffle the textual block order (the entry stays first).
    pub shuffle: bool,
}

impl CfgParams {
    /// Defaults for `shape` with about `blocks` reachable blocks: nesting up to 4, unreachable
    /// blocks allowed, block order shuffled.
    pub fn new(shape: Shape, blocks: usize) -> CfgParams {
        CfgParams {
            shape,
            blocks,
            max_depth: 4,
            allow_unreachable: true,
            shuffle: true,
        }
    }
}

#[derive(Copy, Clone)]
enum Piece {
    Seq,
    If,
    Loop,
    SelfLoop,
    Switch,
    Irreducible,
    Break,
    Continue,
    EarlyRet,
    NoReturn,
}

struct Builder<'a> {
    rng: &'a mut Rng,
    p: CfgParams,
    shape: Shape,
    succs: Vec<Vec<u32>>,
    unreach: Vec<bool>,
}

impl Builder<'_> {
    fn block(&mut self) -> u32 {
        self.succs.push(Vec::new());
        self.unreach.push(false);
        (self.succs.len() - 1) as u32
    }
    fn edge(&mut self, a: u32, b: u32) {
        self.succs[a as usize].push(b);
    }
    fn full(&self) -> bool {
        self.succs.len() >= self.p.blocks
    }

    /// Fills `from` (a block without successors yet) with a few pieces; returns the open block
    /// where control continues.
    fn region(&mut self, from: u32, depth: u32, lp: Option<(u32, u32)>) -> u32 {
        let mut cur = from;
        let pieces = 1 + self.rng.below(3);
        for _ in 0..pieces {
            if self.full() {
                break;
            }
            cur = self.piece(cur, depth, lp);
        }
        cur
    }

    fn pick(&mut self, depth: u32, in_loop: bool) -> Piece {
        use Piece::*;
        let deep = depth >= self.p.max_depth;
        let weights: &[(Piece, u32)] = match self.shape {
            Shape::Reducible => &[
                (Seq, 3),
                (If, 3),
                (Loop, 4),
                (Switch, 1),
                (Break, 2),
                (Continue, 1),
            ],
            Shape::Irreducible | Shape::Unreachable | Shape::Mixed => &[
                (Seq, 2),
                (If, 3),
                (Loop, 4),
                (SelfLoop, 1),
                (Switch, 1),
                (Irreducible, 2),
                (Break, 1),
                (Continue, 1),
                (EarlyRet, 1),
                (NoReturn, 1),
            ],
            Shape::NestedIrreducible => {
                &[(Seq, 1), (If, 1), (Loop, 3), (Irreducible, 4), (Break, 1)]
            }
            Shape::SelfLoops => &[(Seq, 2), (If, 1), (Loop, 2), (SelfLoop, 5), (Continue, 1)],
            Shape::Switch => &[(Seq, 1), (If, 1), (Loop, 2), (Switch, 5), (Break, 1)],
            Shape::NoReturn => &[(Seq, 2), (If, 2), (Loop, 2), (EarlyRet, 2), (NoReturn, 4)],
            Shape::MultiExit => &[
                (Seq, 1),
                (If, 2),
                (Loop, 4),
                (Break, 4),
                (EarlyRet, 2),
                (Continue, 1),
            ],
        };
        let ok = |p: Piece| match p {
            If | Loop | Switch | Irreducible => !deep,
            Break | Continue => in_loop,
            _ => true,
        };
        let total: u32 = weights.iter().filter(|w| ok(w.0)).map(|w| w.1).sum();
        let mut r = self.rng.below(total as usize) as u32;
        for &(piece, w) in weights.iter().filter(|w| ok(w.0)) {
            if r < w {
                return piece;
            }
            r -= w;
        }
        Seq
    }

    fn piece(&mut self, cur: u32, depth: u32, lp: Option<(u32, u32)>) -> u32 {
        match self.pick(depth, lp.is_some()) {
            Piece::Seq => {
                let n = self.block();
                self.edge(cur, n);
                n
            }
            Piece::If => {
                let (t, j) = (self.block(), self.block());
                if self.rng.chance(1, 4) {
                    // if-then: the else arm is the join itself.
                    self.two(cur, t, j);
                } else {
                    let e = self.block();
                    self.two(cur, t, e);
                    let ee = self.region(e, depth + 1, lp);
                    self.edge(ee, j);
                }
                let te = self.region(t, depth + 1, lp);
                self.edge(te, j);
                j
            }
            Piece::Loop => {
                let h = self.block();
                let x = self.block();
                let body = self.block();
                self.edge(cur, h);
                let while_form = self.rng.chance(1, 2);
                if while_form {
                    self.two(h, body, x);
                } else {
                    self.edge(h, body);
                }
                let end = self.region(body, depth + 1, Some((h, x)));
                if while_form && self.rng.chance(1, 2) {
                    self.edge(end, h);
                } else {
                    self.two(end, h, x);
                }
                x
            }
            Piece::SelfLoop => {
                let b = self.block();
                let n = self.block();
                self.edge(cur, b);
                self.two(b, b, n);
                n
            }
            Piece::Switch => {
                let arms = 2 + self.rng.below(3);
                let j = self.block();
                let heads: Vec<u32> = (0..arms).map(|_| self.block()).collect();
                // Default first, then cases; targets repeat, and the join may be a target too.
                let cases = arms + self.rng.below(3);
                let mut list: Vec<u32> = heads.clone();
                while list.len() < cases {
                    let t = *self.rng.pick(&heads);
                    list.push(t);
                }
                if self.rng.chance(1, 3) {
                    list.push(j);
                }
                shuffle(self.rng, &mut list);
                self.succs[cur as usize] = list;
                for h in heads {
                    let e = self.region(h, depth + 1, lp);
                    self.edge(e, j);
                }
                j
            }
            Piece::Irreducible => {
                // Two entries x and y reach each other; either may leave to the join.
                let (x, y, j) = (self.block(), self.block(), self.block());
                self.two(cur, x, y);
                let xe = self.region(x, depth + 1, lp);
                self.two(xe, y, j);
                let ye = self.region(y, depth + 1, lp);
                if self.rng.chance(1, 3) {
                    self.edge(ye, x);
                } else {
                    self.two(ye, x, j);
                }
                j
            }
            Piece::Break => {
                let (_, exit) = lp.expect("in a loop");
                let n = self.block();
                self.two(cur, n, exit);
                n
            }
            Piece::Continue => {
                let (header, _) = lp.expect("in a loop");
                let n = self.block();
                self.two(cur, n, header);
                n
            }
            Piece::EarlyRet => {
                let r = self.block();
                let n = self.block();
                self.two(cur, r, n);
                n
            }
            Piece::NoReturn => {
                let u = self.block();
                let n = self.block();
                self.two(cur, u, n);
                match self.rng.below(3) {
                    0 => self.unreach[u as usize] = true,
                    1 => self.edge(u, u),
                    _ => {
                        let v = self.block();
                        self.edge(u, v);
                        self.two(v, u, v);
                    }
                }
                n
            }
        }
    }

    /// Two successors in random order.
    fn two(&mut self, from: u32, a: u32, b: u32) {
        if self.rng.chance(1, 2) {
            self.edge(from, a);
            self.edge(from, b);
        } else {
            self.edge(from, b);
            self.edge(from, a);
        }
    }
}

fn shuffle<T>(rng: &mut Rng, xs: &mut [T]) {
    for i in (1..xs.len()).rev() {
        let j = rng.below(i + 1);
        xs.swap(i, j);
    }
}

/// A random CFG of the given shape. Deterministic in the generator state.
pub fn random_cfg(rng: &mut Rng, p: &CfgParams) -> RandomCfg {
    let shape = if p.shape == Shape::Mixed || p.shape == Shape::Unreachable {
        *rng.pick(&Shape::ALL[..5])
    } else {
        p.shape
    };
    let mut b = Builder {
        rng,
        p: *p,
        shape,
        succs: Vec::new(),
        unreach: Vec::new(),
    };
    let entry = b.block();
    let mut cur = entry;
    while !b.full() {
        cur = b.piece(cur, 0, None);
    }
    // `cur` is open: it returns.
    let _ = cur;
    let reachable = b.succs.len();
    // Cross edges: jumps into the middle of loops and regions make irreducible cycles.
    let cross = match p.shape {
        Shape::Irreducible => 1 + b.rng.below(4),
        Shape::Mixed | Shape::Unreachable => b.rng.below(3),
        Shape::NestedIrreducible => b.rng.below(2),
        _ => 0,
    };
    for _ in 0..cross {
        if reachable < 3 {
            break;
        }
        let s = b.rng.below(reachable) as u32;
        let t = 1 + b.rng.below(reachable - 1) as u32;
        // Returns and `unreachable` ends stay as they are.
        if (1..4).contains(&b.succs[s as usize].len()) {
            b.edge(s, t);
        }
    }
    if p.allow_unreachable && p.shape.may_have_unreachable() && reachable > 1 {
        let extra = 1 + b.rng.below(4);
        let first = b.succs.len();
        for _ in 0..extra {
            b.block();
        }
        let total = b.succs.len();
        for u in first..total {
            let k = b.rng.below(3);
            for _ in 0..k {
                let t = 1 + b.rng.below(total - 1) as u32;
                b.edge(u as u32, t);
            }
        }
    }
    let mut cfg = RandomCfg {
        succs: b.succs,
        ends_unreachable: b.unreach,
    };
    if p.shuffle && b.rng.chance(1, 2) {
        let n = cfg.succs.len();
        let mut perm: Vec<u32> = (0..n as u32).collect();
        shuffle(b.rng, &mut perm[1..]);
        cfg = cfg.permuted(&perm);
    }
    cfg
}

/// A large CFG of about `blocks` blocks, built iteratively as a chain of small random CFGs of the
/// given shape (each piece's returns continue into the next piece), so its DFS is about as deep as
/// the function is long. No blocks are unreachable.
pub fn chain_cfg(rng: &mut Rng, blocks: usize, shape: Shape) -> RandomCfg {
    let mut cfg = RandomCfg {
        succs: vec![Vec::new()],
        ends_unreachable: vec![false],
    };
    // Open blocks of the previous piece that must continue into the next one.
    let mut open: Vec<u32> = vec![0];
    while cfg.succs.len() < blocks {
        let mut p = CfgParams::new(shape, 10 + rng.below(60));
        p.allow_unreachable = false;
        p.shuffle = false;
        let piece = random_cfg(rng, &p);
        let base = cfg.succs.len() as u32;
        for &o in &open {
            cfg.succs[o as usize].push(base);
        }
        open.clear();
        for (i, (s, &u)) in piece.succs.iter().zip(&piece.ends_unreachable).enumerate() {
            if s.is_empty() && !u {
                open.push(base + i as u32);
            }
            cfg.succs.push(s.iter().map(|&t| t + base).collect());
            cfg.ends_unreachable.push(u);
        }
    }
    cfg
}

/// `depth` loops nested in each other: header `h_i` enters `h_{i+1}`; the innermost header's
/// latch and every level's tail `t_i` branch back to `h_i` or out to `t_{i-1}`. The cycle
/// hierarchy is a path of length `depth`.
pub fn nested_loops(depth: usize) -> RandomCfg {
    // Blocks: 0 entry, 1..=depth headers, depth+1..=2*depth tails, 2*depth+1 exit.
    let n = 2 * depth + 2;
    let mut succs = vec![Vec::new(); n];
    let h = |i: usize| (1 + i) as u32;
    let t = |i: usize| (1 + depth + i) as u32;
    let exit = (n - 1) as u32;
    succs[0].push(h(0));
    for i in 0..depth {
        succs[h(i) as usize].push(if i + 1 < depth { h(i + 1) } else { t(i) });
        let out = if i == 0 { exit } else { t(i - 1) };
        succs[t(i) as usize] = vec![h(i), out];
    }
    RandomCfg {
        succs,
        ends_unreachable: vec![false; n],
    }
}

/// One loop of `m` body blocks, each of which also leaves it: entry 0, header 1, body
/// `2..2 + m` (each block goes on to the next, the last one back to the header, and out to its
/// own exit block), exits `2 + m..2 + 2m`, all going to one join `2 + 2m`, which returns.
pub fn many_exits_loop(m: usize) -> RandomCfg {
    let join = 2 + 2 * m;
    let mut succs = vec![Vec::new(); join + 1];
    succs[0] = vec![1];
    succs[1] = vec![2];
    for i in 0..m {
        let next = if i + 1 < m { 3 + i } else { 1 };
        succs[2 + i] = vec![next as u32, (2 + m + i) as u32];
        succs[2 + m + i] = vec![join as u32];
    }
    RandomCfg {
        ends_unreachable: vec![false; join + 1],
        succs,
    }
}

/// A reducible loop around one irreducible cycle entered at every block (about `n` blocks, at
/// least 5): 0 entry, 1 the loop's header (a switch into every ring block), the ring `2..n-2`
/// (each block goes on to the next or to the latch), `n-2` the latch (back to 1, or out), `n-1`
/// the exit. With every branch on the thread id, LLVM's join propagation walks the whole ring
/// for each of its blocks.
pub fn irreducible_loop(n: usize) -> RandomCfg {
    let k = n.max(5) - 4;
    let (latch, exit) = (2 + k as u32, 3 + k as u32);
    let mut succs = vec![Vec::new(); k + 4];
    succs[0] = vec![1];
    succs[1] = (2..latch).collect();
    for i in 0..k {
        succs[2 + i] = vec![2 + ((i + 1) % k) as u32, latch];
    }
    succs[latch as usize] = vec![1, exit];
    RandomCfg {
        ends_unreachable: vec![false; succs.len()],
        succs,
    }
}

/// A chain of `m` two-block irreducible cycles, each entered from the one before, that all drain
/// through one chain of exits (about `n` blocks, at least 6): 0 entry; level `k` has a branch
/// `e_k` to the two entries `a_k`, `b_k` of its cycle (`a_k` ⇄ `b_k`), `a_k` leaves to the exit
/// `x_k` and `b_k` goes on to `e_{k+1}` (the last level's `b` leaves to its exit instead); `x_k`
/// goes to `x_{k-1}`, `x_0` to the last block, which returns. Every path from `e_k` meets again
/// only at `x_k`, after every deeper level: with every branch on the thread id, LLVM's join
/// propagation from each `e_k` walks all the levels below it (quadratic in LLVM 19, 2.7 s at 4,000
/// blocks).
pub fn irreducible_ladder(n: usize) -> RandomCfg {
    ladder(n, Ladder::Down)
}

/// Variants of [`irreducible_ladder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ladder {
    /// `x_k` goes to `x_{k-1}` ([`irreducible_ladder`]).
    Down,
    /// `x_k` goes to `x_{k+1}`, the last `x` to the returning block: the paths from `e_k` meet at
    /// `x_{k+1}`, and every `x` after it is a join of `e_k` too.
    Up,
    /// [`Ladder::Down`] inside a reducible loop: `x_0` goes to a latch back to the loop's header
    /// (before `e_0`) or on to the returning block. (LLVM 19's cycle analysis takes every cycle
    /// entry of the nested irreducible cycles as an entry of the loop: for it the loop is one
    /// irreducible cycle.)
    Looped,
    /// [`Ladder::Looped`] with one unreachable block per level, branching to `a_k`. LLVM 19's
    /// cycle analysis counts the edges from unreachable blocks as entries: the loop is one
    /// irreducible cycle, with an entry per level, whose only exit leaves from the latch.
    LoopedUnreachable,
}

/// The ladder of two-block irreducible cycles of [`irreducible_ladder`], in one of its variants.
pub fn ladder(n: usize, variant: Ladder) -> RandomCfg {
    // 0 entry, then (Looped) the loop's header; levels from `l0`; exits; the latch (Looped), the
    // returning block.
    let looped = matches!(variant, Ladder::Looped | Ladder::LoopedUnreachable);
    let l0 = if looped { 2 } else { 1 };
    let m = (n.max(6 + 2 * (l0 - 1)) - 2 * l0) / 4;
    let (e, a, b, x) = (
        |k: usize| (l0 + 3 * k) as u32,
        |k: usize| (l0 + 1 + 3 * k) as u32,
        |k: usize| (l0 + 2 + 3 * k) as u32,
        |k: usize| (l0 + 3 * m + k) as u32,
    );
    let latch = (l0 + 4 * m) as u32;
    let done = if looped { latch + 1 } else { latch };
    let mut succs = vec![Vec::new(); done as usize + 1];
    succs[0] = vec![1];
    if looped {
        succs[1] = vec![e(0)];
        succs[latch as usize] = vec![1, done];
    }
    let drain = if looped { latch } else { done };
    for k in 0..m {
        succs[e(k) as usize] = vec![a(k), b(k)];
        succs[a(k) as usize] = vec![b(k), x(k)];
        succs[b(k) as usize] = if k + 1 < m {
            vec![e(k + 1), a(k)]
        } else {
            vec![a(k), x(k)]
        };
        succs[x(k) as usize] = vec![match variant {
            Ladder::Up if k + 1 < m => x(k + 1),
            Ladder::Up => drain,
            _ if k == 0 => drain,
            _ => x(k - 1),
        }];
        if variant == Ladder::LoopedUnreachable {
            succs.push(vec![a(k)]);
        }
    }
    RandomCfg {
        ends_unreachable: vec![false; succs.len()],
        succs,
    }
}

impl RandomCfg {
    /// The CFG as `converge_graph`'s CSR graph (entry block 0, successors in order), the form the
    /// analyses take.
    pub fn to_cfg(&self) -> converge_graph::Cfg {
        use converge_graph::Block;
        converge_graph::Cfg::from_succs(
            Block(0),
            self.succs.len(),
            self.succs.iter().map(|s| s.iter().map(|&b| Block(b))),
        )
    }
    /// Number of blocks, unreachable ones included.
    pub fn num_blocks(&self) -> usize {
        self.succs.len()
    }
    /// Number of edges (a repeated successor counts once per edge).
    pub fn num_edges(&self) -> usize {
        self.succs.iter().map(Vec::len).sum()
    }
    /// The same CFG with block `b` renamed to `perm[b]` and the blocks reordered accordingly.
    pub fn permuted(&self, perm: &[u32]) -> RandomCfg {
        let n = self.succs.len();
        let mut succs = vec![Vec::new(); n];
        let mut ends = vec![false; n];
        for b in 0..n {
            let nb = perm[b] as usize;
            succs[nb] = self.succs[b].iter().map(|&s| perm[s as usize]).collect();
            ends[nb] = self.ends_unreachable[b];
        }
        RandomCfg {
            succs,
            ends_unreachable: ends,
        }
    }
    /// Blocks reachable from the entry (iterative).
    pub fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.succs.len()];
        if self.succs.is_empty() {
            return seen;
        }
        let mut stack = vec![0u32];
        seen[0] = true;
        while let Some(b) = stack.pop() {
            for &s in &self.succs[b as usize] {
                if !seen[s as usize] {
                    seen[s as usize] = true;
                    stack.push(s);
                }
            }
        }
        seen
    }
}

/// The label of block `b` in [`to_ll`] output.
pub fn block_label(b: u32) -> String {
    format!("b{b}")
}

/// The signature [`to_ll`] gives every function: a pointer that loads read branch conditions and
/// switch values from, and two `i1` arguments.
pub const PARAMS: &str = "ptr %p, i1 %c0, i1 %c1";

/// Writes the terminator of block `b` (with the load it needs, if any). Branch conditions
/// alternate between the `i1` arguments and volatile loads from `%p`; switches load an `i32`.
pub fn write_terminator(out: &mut String, cfg: &RandomCfg, b: u32) {
    write_terminator_with(out, cfg, b, "b");
}

/// [`write_terminator`] with block labels `%<prefix><index>` (an empty prefix gives numbered
/// blocks `%3`, valid when every other local value is named, as in [`to_ll_numbered`]).
pub fn write_terminator_with(out: &mut String, cfg: &RandomCfg, b: u32, prefix: &str) {
    let s = &cfg.succs[b as usize];
    match s.len() {
        0 if cfg.ends_unreachable[b as usize] => out.push_str("  unreachable\n"),
        0 => out.push_str("  ret void\n"),
        1 => {
            let _ = writeln!(out, "  br label %{prefix}{}", s[0]);
        }
        2 => {
            let cond = if b.is_multiple_of(3) {
                format!("%c{}", b % 2)
            } else {
                let _ = writeln!(out, "  %v{b} = load volatile i1, ptr %p");
                format!("%v{b}")
            };
            let _ = writeln!(
                out,
                "  br i1 {cond}, label %{prefix}{}, label %{prefix}{}",
                s[0], s[1]
            );
        }
        _ => {
            let _ = writeln!(out, "  %w{b} = load volatile i32, ptr %p");
            let _ = write!(out, "  switch i32 %w{b}, label %{prefix}{} [", s[0]);
            for (i, t) in s[1..].iter().enumerate() {
                let _ = write!(out, " i32 {i}, label %{prefix}{t}");
            }
            out.push_str(" ]\n");
        }
    }
}

/// A complete function `define void @name(ptr %p, i1 %c0, i1 %c1)` with blocks `b0`, `b1`, … in
/// index order.
pub fn to_ll(cfg: &RandomCfg, name: &str) -> String {
    write_function(cfg, name, "b")
}

/// Like [`to_ll`] but with unnamed blocks: block `i` is `%i` (its slot number, since every other
/// local value is named), so printers show it as `i`.
pub fn to_ll_numbered(cfg: &RandomCfg, name: &str) -> String {
    write_function(cfg, name, "")
}

fn write_function(cfg: &RandomCfg, name: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(cfg.num_blocks() * 48 + 64);
    let _ = writeln!(out, "define void @{name}({PARAMS}) {{");
    for b in 0..cfg.num_blocks() as u32 {
        let _ = writeln!(out, "{prefix}{b}:");
        write_terminator_with(&mut out, cfg, b, prefix);
    }
    out.push_str("}\n");
    out
}

/// One cycle line of `print<cycles>` output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintedCycle {
    /// The `depth=N` of the line (1 for a top-level cycle).
    pub depth: u32,
    /// Header first.
    pub entries: Vec<String>,
    /// The other blocks, as printed (entries excluded).
    pub blocks: Vec<String>,
    /// Index of the parent cycle within the same function's list.
    pub parent: Option<usize>,
}

/// One function of `print<cycles>` output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintedCycles {
    /// The function's name, as printed after `CycleInfo for function:`.
    pub function: String,
    /// Its cycles in print order.
    pub cycles: Vec<PrintedCycle>,
}

/// Parses `print<cycles>` output (opt's stderr or `converge cycles --format llvm`). Block names
/// containing spaces cannot be told apart from separators and are split.
pub fn parse_print_cycles(text: &str) -> Result<Vec<PrintedCycles>, String> {
    let mut out: Vec<PrintedCycles> = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        if let Some(f) = line.strip_prefix("CycleInfo for function: ") {
            out.push(PrintedCycles {
                function: f.to_string(),
                cycles: Vec::new(),
            });
            continue;
        }
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("depth=") else {
            continue;
        };
        let err = || format!("line {}: cannot parse {line:?}", ln + 1);
        let f = out.last_mut().ok_or_else(err)?;
        let (d, rest) = rest.split_once(": entries(").ok_or_else(err)?;
        let depth: u32 = d.parse().map_err(|_| err())?;
        let (ents, blocks) = rest.split_once(')').ok_or_else(err)?;
        let mut parent = None;
        if depth > 1 {
            let p = f
                .cycles
                .iter()
                .rposition(|c| c.depth == depth - 1)
                .ok_or_else(err)?;
            parent = Some(p);
        }
        f.cycles.push(PrintedCycle {
            depth,
            entries: ents.split_whitespace().map(str::to_string).collect(),
            blocks: blocks.split_whitespace().map(str::to_string).collect(),
            parent,
        });
    }
    Ok(out)
}

impl PrintedCycles {
    /// A canonical form independent of the print order of cycles, entries and blocks: per cycle,
    /// `header | sorted entries | sorted blocks (entries included) | parent header`, sorted.
    pub fn canonical(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .cycles
            .iter()
            .map(|c| {
                let mut e = c.entries.clone();
                e.sort();
                let mut b: Vec<String> = c.blocks.iter().chain(&c.entries).cloned().collect();
                b.sort();
                let parent = c.parent.map_or("-", |p| self.cycles[p].entries[0].as_str());
                format!(
                    "header {} | entries {} | blocks {} | parent {} | depth {}",
                    c.entries[0],
                    e.join(" "),
                    b.join(" "),
                    parent,
                    c.depth
                )
            })
            .collect();
        v.sort();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_cfgs_are_well_formed() {
        let mut rng = Rng::new(7);
        for shape in Shape::ALL {
            for _ in 0..50 {
                let cfg = random_cfg(&mut rng, &CfgParams::new(shape, 20));
                let n = cfg.num_blocks() as u32;
                assert!(cfg.succs.iter().flatten().all(|&s| s < n && s != 0));
                let reach = cfg.reachable();
                if !shape.may_have_unreachable() {
                    assert!(reach.iter().all(|&r| r), "{shape:?}: {cfg:?}");
                }
                assert!(to_ll(&cfg, "f").starts_with("define void @f("));
            }
        }
    }

    #[test]
    fn parses_printed_nesting() {
        let text = "CycleInfo for function: f\n    depth=1: entries(h) a b\n        depth=2: entries(a) b\n    depth=1: entries(x y)\n";
        let p = parse_print_cycles(text).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].cycles[1].parent, Some(0));
        assert_eq!(p[0].cycles[2].parent, None);
        assert_eq!(p[0].cycles[2].entries, vec!["x", "y"]);
    }
}
