//! Programs for the soundness oracle: random GPU functions that terminate, carry values across
//! loop iterations, and reach the situations a uniformity analysis must get right.
//!
//! The CFG is built from pieces whose termination is known: sequences, if-then(-else), natural
//! loops whose header counts iterations and leaves once the count reaches a bound (2 plus `and X, 3` of a
//! value `X` chosen at random, often the thread id, so trip counts differ between threads), breaks
//! out of one or several loops (divergent exits at several depths), `continue` edges, and
//! irreducible regions of two or three entries (each entry counts, and every cycle of the region
//! passes an entry, so it terminates too), whose header depends on the DFS order: several cycle
//! hierarchies. Unreachable blocks may jump into the code. The data flow is random (phis, carried
//! values, selects, compares, shared and per-thread loads, stores), with divergence sources (thread
//! id, flat loads, calls to external and to defined functions) and always-uniform intrinsics
//! (`readfirstlane`, `readlane`, `ballot` on AMDGPU). It is shaped so that a divergence the
//! analysis must track also shows in the data: phis join different values, `continue` edges
//! count their own step, values in loops often come from the loop's count, no operation has the
//! same operand twice, and thread-id branches split the group. With tokens, the placement is the
//! inference procedure of "Convergent Operation Semantics" (as [`crate::tokens`] places valid tokens): `entry` (or an `anchor`) at the
//! top, a `loop` heart at the start of every natural loop header taking the enclosing token, every
//! convergent operation using the innermost token; inside irreducible regions, where no outer token
//! may be used, each convergent operation gets its own local `anchor`.

use crate::program::Flavor;
use crate::rng::Rng;
use converge_graph::{Block, Cfg, DominatorTree, Graph};
use std::fmt::Write as _;

/// What the generated programs contain.
#[derive(Clone, Debug)]
pub struct Options {
    /// The target the programs are written for.
    pub flavor: Flavor,
    /// Blocks of the main function, at most (unreachable ones included).
    pub max_blocks: usize,
    /// Instructions per block besides the fixed ones, at most.
    pub max_insts: usize,
    /// Convergence control tokens: an entry token, loop hearts, anchors, bundles on the
    /// convergent calls.
    pub tokens: bool,
    /// Calls to an external function and to a defined helper.
    pub calls: bool,
    /// Always-uniform intrinsics (AMDGPU only).
    pub always_uniform: bool,
    /// Blocks unreachable from the entry that jump into the code.
    pub unreachable: bool,
    /// Irreducible regions (two or three entries): several cycle hierarchies.
    pub irreducible: bool,
    /// Breaks out of a natural loop go to a block of their own, which meets the loop's exit
    /// block (left from the header's count or the latch) only after it, breaks are more
    /// frequent, and half the loops count to a constant bound: code reached only through a loop's uniform exits, where
    /// precise mode's rule P10 decides (off by default: the programs of a seed are the same as
    /// before the option).
    pub split_exits: bool,
}

impl Options {
    /// Every kind of program content on, tokens off, up to 20 blocks of up to 4 instructions.
    pub fn new(flavor: Flavor) -> Options {
        Options {
            flavor,
            max_blocks: 20,
            max_insts: 4,
            tokens: false,
            calls: true,
            always_uniform: true,
            unreachable: true,
            irreducible: true,
            split_exits: false,
        }
    }
}

/// One generated module: the main function is `@f`, the first function defined.
#[derive(Clone, Debug)]
pub struct OracleProgram {
    /// The module as LLVM text.
    pub text: String,
    /// Blocks of `@f`.
    pub blocks: usize,
    /// Whether `@f` uses convergence control tokens.
    pub tokens: bool,
}

#[derive(Clone, Debug, PartialEq)]
enum Term {
    Ret,
    Jump,
    /// A random condition.
    Cond,
    /// A random switch over the successors.
    Switch,
    /// The block counts: `succs[stop]` is taken once the count reaches the bound.
    Counter {
        stop: usize,
    },
}

#[derive(Clone, Debug)]
enum Scope {
    /// Convergent operations use this token.
    Tok(String),
    /// Inside an irreducible region: local anchors only.
    Local,
    /// No tokens in this function.
    None,
}

#[derive(Clone, Debug)]
struct Node {
    succs: Vec<usize>,
    term: Term,
    counter: bool,
    /// (predecessor, counting block whose incremented count flows along that edge, whether the
    /// edge is a `continue`, which counts more: each `continue` edge adds its own step, so the
    /// header joins different counts when a divergent branch chooses between `continue`s and
    /// the latch).
    carry: Vec<(usize, usize, bool)>,
    scope: Scope,
    /// A heart token defined here: (name, enclosing token).
    heart: Option<(String, String)>,
    /// With `split_exits`: this block is the exit of the natural loop with this header, and
    /// reads its count.
    after_loop: Option<usize>,
}

/// Where a break may go from inside a loop or region.
#[derive(Copy, Clone, Debug)]
enum Target {
    Exit(usize),
    /// A natural loop's header (a `continue`).
    Continue(usize),
}

struct Builder<'r> {
    rng: &'r mut Rng,
    nodes: Vec<Node>,
    max: usize,
    tokens: usize,
    irreducible: bool,
    split_exits: bool,
}

impl Builder<'_> {
    fn node(&mut self, scope: &Scope) -> usize {
        self.nodes.push(Node {
            succs: Vec::new(),
            term: Term::Ret,
            counter: false,
            carry: Vec::new(),
            scope: scope.clone(),
            heart: None,
            after_loop: None,
        });
        self.nodes.len() - 1
    }

    fn room(&self, k: usize) -> bool {
        self.nodes.len() + k <= self.max
    }

    /// Ends block `b` with a jump to `to`, or, sometimes, a branch that may also break out.
    fn close(&mut self, b: usize, to: usize, targets: &[Target]) {
        let odds = if self.split_exits { 2 } else { 3 };
        if !targets.is_empty() && self.rng.chance(1, odds) {
            let mut t = *self.rng.pick(targets);
            if self.split_exits && matches!(t, Target::Continue(_)) && self.rng.chance(2, 3) {
                // Mostly breaks: a `continue` makes the loop's count, and so its exit, divergent.
                t = targets
                    .iter()
                    .rev()
                    .copied()
                    .find(|t| matches!(t, Target::Exit(_)))
                    .unwrap_or(t);
            }
            let (dest, carry) = match t {
                Target::Exit(x) => (x, None),
                Target::Continue(h) => (h, Some(h)),
            };
            if let Some(h) = carry {
                self.nodes[h].carry.push((b, h, true));
            }
            self.nodes[b].succs = if self.rng.chance(1, 2) {
                vec![to, dest]
            } else {
                vec![dest, to]
            };
            self.nodes[b].term = Term::Cond;
        } else {
            self.nodes[b].succs = vec![to];
            self.nodes[b].term = Term::Jump;
        }
    }

    /// A structured region starting in `cur`; returns the block where it ends (no terminator yet).
    fn region(&mut self, cur: usize, depth: u32, targets: &mut Vec<Target>) -> usize {
        let mut cur = cur;
        let parts = 1 + self.rng.below(3);
        for _ in 0..parts {
            if depth == 0 || !self.room(3) {
                break;
            }
            let scope = self.nodes[cur].scope.clone();
            match self.rng.below(10) {
                0 | 1 => {}
                2..=4 => {
                    // if-then(-else)
                    let then_b = self.node(&scope);
                    let join = self.node(&scope);
                    let then_end = self.region(then_b, depth - 1, targets);
                    self.close(then_end, join, targets);
                    if self.rng.chance(1, 2) && self.room(1) {
                        let else_b = self.node(&scope);
                        let else_end = self.region(else_b, depth - 1, targets);
                        self.close(else_end, join, targets);
                        self.nodes[cur].succs = vec![then_b, else_b];
                    } else if self.rng.chance(1, 2) {
                        self.nodes[cur].succs = vec![then_b, join];
                    } else {
                        self.nodes[cur].succs = vec![join, then_b];
                    }
                    self.nodes[cur].term = Term::Cond;
                    cur = join;
                }
                5 | 6 => cur = self.natural_loop(cur, depth, targets, &scope),
                _ if self.irreducible && self.room(6) => {
                    cur = self.irreducible_region(cur, depth, targets, &scope)
                }
                _ => cur = self.natural_loop(cur, depth, targets, &scope),
            }
        }
        cur
    }

    fn natural_loop(
        &mut self,
        cur: usize,
        depth: u32,
        targets: &mut Vec<Target>,
        scope: &Scope,
    ) -> usize {
        let inner = match scope {
            Scope::Tok(t) => {
                self.tokens += 1;
                let h = format!("%tok{}", self.tokens);
                (Scope::Tok(h.clone()), Some((h, t.clone())))
            }
            s => (s.clone(), None),
        };
        let header = self.node(&inner.0);
        self.nodes[header].heart = inner.1;
        self.nodes[header].counter = true;
        let body = self.node(&inner.0);
        let exit = self.node(scope);
        // With `split_exits`, breaks leave to `brk`, which meets `exit` in a block after both.
        let split = self.split_exits && self.room(2);
        let brk = if split { self.node(scope) } else { exit };
        let join = if split { self.node(scope) } else { exit };
        self.nodes[cur].succs = vec![header];
        self.nodes[cur].term = Term::Jump;
        let stop = self.rng.below(2);
        self.nodes[header].succs = if stop == 0 {
            vec![exit, body]
        } else {
            vec![body, exit]
        };
        self.nodes[header].term = Term::Counter { stop };
        let mark = targets.len();
        targets.push(Target::Exit(brk));
        targets.push(Target::Continue(header));
        let end = self.region(body, depth - 1, targets);
        targets.truncate(mark);
        // The latch: back to the header, sometimes leaving too.
        self.nodes[header].carry.push((end, header, false));
        if self.rng.chance(1, 3) {
            self.nodes[end].succs = if self.rng.chance(1, 2) {
                vec![header, exit]
            } else {
                vec![exit, header]
            };
            self.nodes[end].term = Term::Cond;
        } else {
            self.nodes[end].succs = vec![header];
            self.nodes[end].term = Term::Jump;
        }
        if split {
            self.nodes[exit].after_loop = Some(header);
            for b in [exit, brk] {
                self.nodes[b].succs = vec![join];
                self.nodes[b].term = Term::Jump;
            }
            return join;
        }
        exit
    }

    fn irreducible_region(
        &mut self,
        cur: usize,
        depth: u32,
        targets: &mut Vec<Target>,
        scope: &Scope,
    ) -> usize {
        let local = match scope {
            Scope::None => Scope::None,
            _ => Scope::Local,
        };
        let n = if self.room(8) && self.rng.chance(1, 3) {
            3
        } else {
            2
        };
        let entries: Vec<usize> = (0..n).map(|_| self.node(&local)).collect();
        let exit = self.node(scope);
        let mut order = entries.clone();
        for i in (1..order.len()).rev() {
            let j = self.rng.below(i + 1);
            order.swap(i, j);
        }
        // Sometimes the region is also entered from the block before through a single edge, and
        // the other entries only from inside: still irreducible once two entries have outside
        // predecessors, so always at least two.
        self.nodes[cur].succs = order;
        self.nodes[cur].term = if n == 2 { Term::Cond } else { Term::Switch };
        let mark = targets.len();
        targets.push(Target::Exit(exit));
        let bodies: Vec<usize> = (0..n).map(|_| self.node(&local)).collect();
        for k in 0..n {
            let (e, body) = (entries[k], bodies[k]);
            self.nodes[e].counter = true;
            let stop = self.rng.below(2);
            self.nodes[e].succs = if stop == 0 {
                vec![exit, body]
            } else {
                vec![body, exit]
            };
            self.nodes[e].term = Term::Counter { stop };
            let end = self.region(body, depth - 1, targets);
            let next = entries[(k + 1) % n];
            self.nodes[next].carry.push((end, e, false));
            if self.rng.chance(1, 3) {
                let other = entries[self.rng.below(n)];
                if other != next {
                    self.nodes[other].carry.push((end, e, false));
                    self.nodes[end].succs = vec![next, other];
                    self.nodes[end].term = Term::Cond;
                    continue;
                }
            }
            self.close(end, next, targets);
        }
        targets.truncate(mark);
        exit
    }
}

/// Names of the values of one block, for dominance-respecting uses.
struct Names {
    counter: u32,
}

impl Names {
    fn fresh(&mut self, p: &str) -> String {
        self.counter += 1;
        format!("%{p}{}", self.counter)
    }
}

/// The module header: triple and declarations.
pub fn module_header(flavor: Flavor) -> String {
    let mut s = String::new();
    match flavor {
        Flavor::Nvptx => s.push_str(
            "target triple = \"nvptx64-nvidia-cuda\"\n\n\
             declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n",
        ),
        Flavor::Amdgpu => s.push_str(
            "target triple = \"amdgcn-amd-amdhsa\"\n\n\
             declare i32 @llvm.amdgcn.workitem.id.x()\n\
             declare i32 @llvm.amdgcn.readfirstlane.i32(i32)\n\
             declare i32 @llvm.amdgcn.readlane.i32(i32, i32)\n\
             declare i64 @llvm.amdgcn.ballot.i64(i1)\n",
        ),
    }
    s.push_str(
        "declare i32 @ext(i32)\n\
         declare i32 @conv(i32) convergent\n\
         declare token @llvm.experimental.convergence.entry()\n\
         declare token @llvm.experimental.convergence.anchor()\n\
         declare token @llvm.experimental.convergence.loop()\n\n",
    );
    s
}

/// A module whose first defined function `@f` is a random program (see the module doc).
pub fn program(rng: &mut Rng, opts: &Options) -> OracleProgram {
    let tokens = opts.tokens;
    let top = if tokens {
        Scope::Tok("%tok0".into())
    } else {
        Scope::None
    };
    let mut b = Builder {
        rng,
        nodes: Vec::new(),
        // Room for the unreachable blocks.
        max: opts.max_blocks.max(5) - if opts.unreachable { 2 } else { 0 },
        tokens: 0,
        irreducible: opts.irreducible,
        split_exits: opts.split_exits,
    };
    let entry = b.node(&top);
    let mut targets = Vec::new();
    let end = b.region(entry, 3, &mut targets);
    b.nodes[end].term = Term::Ret;
    b.nodes[end].succs.clear();
    // Unreachable blocks jumping into the code (never into the entry block). Not with tokens:
    // LLVM 19 counts unreachable predecessors as cycle entries and then rejects the hearts.
    if opts.unreachable && !tokens && b.nodes.len() > 2 && b.rng.chance(1, 4) {
        let n0 = b.nodes.len();
        for _ in 0..1 + b.rng.below(2) {
            let u = b.node(&Scope::None);
            let t1 = 1 + b.rng.below(n0 - 1);
            let t2 = 1 + b.rng.below(b.nodes.len() - 1);
            if b.rng.chance(1, 2) || t1 == t2 {
                b.nodes[u].succs = vec![t1];
                b.nodes[u].term = Term::Jump;
            } else {
                b.nodes[u].succs = vec![t1, t2];
                b.nodes[u].term = Term::Cond;
            }
        }
    }
    let tok_kind = if b.rng.chance(3, 4) {
        "entry"
    } else {
        "anchor"
    };
    let nodes = b.nodes;
    let text = fill(rng, opts, &nodes, tok_kind);
    OracleProgram {
        text,
        blocks: nodes.len(),
        tokens,
    }
}

/// Writes the function: random data flow over the skeleton.
fn fill(rng: &mut Rng, opts: &Options, nodes: &[Node], tok_kind: &str) -> String {
    let n = nodes.len();
    let cfg = Cfg::from_succs(
        Block(0),
        n,
        nodes
            .iter()
            .map(|x| x.succs.iter().map(|&s| Block(s as u32))),
    );
    let dom = DominatorTree::new(&cfg);
    let amd = opts.flavor == Flavor::Amdgpu;
    let kernel = rng.chance(2, 3);
    let cc = match (kernel, amd) {
        (false, _) => "",
        (true, true) => "amdgpu_kernel ",
        (true, false) => "ptx_kernel ",
    };
    let tid_call = if amd {
        "call i32 @llvm.amdgcn.workitem.id.x()"
    } else {
        "call i32 @llvm.nvvm.read.ptx.sreg.tid.x()"
    };
    let mut names = Names { counter: 0 };
    let mut defs: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut bodies: Vec<String> = vec![String::new(); n];
    let mut phi_slots: Vec<(usize, String, bool)> = Vec::new();
    // Phis of single-predecessor blocks: their one incoming value, and the value each such
    // phi copies (followed to the end of a chain of copies).
    let mut fixed: std::collections::HashMap<usize, String> = std::collections::HashMap::new();
    // (Also every further call of the thread-id intrinsic: the same value as `%tid`.)
    let alias: std::cell::RefCell<std::collections::HashMap<String, String>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
    let reach = |b: usize| dom.is_reachable(Block(b as u32));
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&b| (!reach(b), dom.level(Block(b as u32)), b));
    let avail_at = |defs: &Vec<Vec<String>>, b: usize| -> Vec<String> {
        let mut v: Vec<String> = vec!["%a0".into(), "%a1".into()];
        let mut d = dom.idom(Block(b as u32));
        while let Some(x) = d {
            v.extend(defs[x.index()].iter().cloned());
            d = dom.idom(x);
        }
        if !reach(b) && b != 0 {
            v.extend(defs[0].iter().cloned());
        }
        v
    };
    for &b in &order {
        let avail = avail_at(&defs, b);
        let node = &nodes[b];
        let mut body = String::new();
        let mut mine: Vec<String> = Vec::new();
        let has_preds = !cfg.preds(Block(b as u32)).is_empty();
        if b != 0 && has_preds {
            if node.counter {
                let k = format!("%k{b}");
                let _ = writeln!(body, "  {k} = phi i32 @PHI{}@", phi_slots.len());
                phi_slots.push((b, k.clone(), true));
            }
            let preds = cfg.preds(Block(b as u32));
            for _ in 0..rng.below(3) {
                let v = names.fresh("v");
                let _ = writeln!(body, "  {v} = phi i32 @PHI{}@", phi_slots.len());
                // A phi of a block with one (reachable) predecessor copies one value (an exit
                // phi, as LCSSA makes them): chosen now, and remembered as an alias, so no
                // operation or compare below uses the value twice under two names (`icmp slt
                // %u, %copy.of.u` is false in every thread whatever the inputs).
                if let [p] = preds
                    && reach(p.index())
                {
                    let p = p.index();
                    let x = if !defs[p].is_empty() && rng.chance(1, 2) {
                        defs[p][rng.below(defs[p].len())].clone()
                    } else {
                        let mut cands = avail_at(&defs, p);
                        cands.extend(defs[p].iter().cloned());
                        cands[rng.below(cands.len())].clone()
                    };
                    let canon = alias.borrow().get(&x).cloned().unwrap_or(x.clone());
                    alias.borrow_mut().insert(v.clone(), canon);
                    fixed.insert(phi_slots.len(), x);
                }
                phi_slots.push((b, v.clone(), false));
                mine.push(v);
            }
        }
        // Tokens: the entry token, or this header's heart, before any other instruction.
        if b == 0 && opts.tokens {
            let _ = writeln!(
                body,
                "  %tok0 = call token @llvm.experimental.convergence.{tok_kind}()"
            );
        }
        if let Some((h, outer)) = &node.heart {
            let _ = writeln!(
                body,
                "  {h} = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token {outer}) ]"
            );
        }
        if let Some(h) = node.after_loop
            && has_preds
        {
            // A use of the loop's count after its exits (`split_exits`).
            let v = names.fresh("v");
            let _ = writeln!(body, "  {v} = mul i32 %k{h}.n, 3");
            mine.push(v);
        }
        if b == 0 {
            let _ = writeln!(body, "  %tid = {tid_call}");
            let _ = writeln!(body, "  %u = load i32, ptr addrspace(1) %p, align 4");
            // The per-thread load gives a full-range value; its low bits are what compares
            // with counts, arguments and small constants can go both ways on (`icmp ult i32
            // %small, %full.range` is true in nearly every thread).
            let _ = writeln!(body, "  %d.raw = load i32, ptr %q, align 4");
            let _ = writeln!(body, "  %d = and i32 %d.raw, 7");
            mine.extend(["%tid".to_string(), "%u".into(), "%d".into()]);
        }
        // A counting block: the incremented count and its bound.
        let counted = if node.counter && has_preds {
            let k = format!("%k{b}");
            let _ = writeln!(body, "  {k}.n = add i32 {k}, 1");
            for j in 0..node.carry.iter().filter(|c| c.2).count() {
                let _ = writeln!(body, "  {k}.c{j} = add i32 {k}, {}", 2 + j);
            }
            let x = if opts.split_exits && rng.chance(1, 2) {
                // A uniform trip count: the loop's own exit is uniform, its breaks need not be.
                format!("{}", rng.below(4))
            } else if rng.chance(1, 2) {
                "%tid".to_string()
            } else {
                let all: Vec<&String> = avail.iter().chain(mine.iter()).collect();
                all[rng.below(all.len())].clone()
            };
            // The bound is 2 to 5: the body runs at least once, nests stay cheap.
            let _ = writeln!(body, "  {k}.m = and i32 {x}, 3");
            let _ = writeln!(body, "  {k}.b = add i32 {k}.m, 2");
            mine.push(format!("{k}.n"));
            // The branch reads `stop` or its negation, so either successor order occurs.
            // A bound computed from `undef` is no bound (a branch on undef may go either way):
            // the count also stops at 5 whatever the bound.
            let _ = writeln!(body, "  {k}.cap = icmp sge i32 {k}.n, 5");
            if matches!(node.term, Term::Counter { stop: 0 }) {
                let _ = writeln!(body, "  {k}.s = icmp sge i32 {k}.n, {k}.b");
                let _ = writeln!(body, "  {k}.stop = select i1 {k}.cap, i1 true, i1 {k}.s");
                Some(format!("{k}.stop"))
            } else {
                let _ = writeln!(body, "  {k}.s = icmp slt i32 {k}.n, {k}.b");
                let _ = writeln!(body, "  {k}.go = select i1 {k}.cap, i1 false, i1 {k}.s");
                Some(format!("{k}.go"))
            }
        } else {
            None
        };
        // Random operations.
        let pick = |rng: &mut Rng, mine: &Vec<String>| -> String {
            // Half of the time a recent value (this block's, or the nearest dominators'): longer
            // chains, and values that change from one iteration to the next.
            if rng.chance(1, 2) {
                let near: Vec<&String> = mine.iter().chain(avail.iter().skip(2).take(6)).collect();
                if !near.is_empty() {
                    return near[rng.below(near.len())].clone();
                }
            }
            let total = avail.len() + mine.len();
            let r = rng.below(total + 1);
            if r == total {
                // Not 0: `mul x, 0` and `and x, 0` are uniform whatever `x` is.
                format!("{}", 1 + rng.below(6))
            } else if r < avail.len() {
                avail[r].clone()
            } else {
                mine[r - avail.len()].clone()
            }
        };
        // A second operand different from the first: `x op x`, `icmp ult x, x` and `select c, x,
        // x` compute the same value in every thread whatever `x` is, hiding the divergence the
        // analysis must track.
        let same = |x: &str, y: &str| {
            x == y || {
                let a = alias.borrow();
                a.get(x).map_or(x, |s| s.as_str()) == a.get(y).map_or(y, |s| s.as_str())
            }
        };
        let other = |rng: &mut Rng, mine: &Vec<String>, x: &str| -> String {
            for _ in 0..4 {
                let y = pick(rng, mine);
                if !same(&y, x) {
                    return y;
                }
            }
            format!("{}", 1 + rng.below(5))
        };
        let bundle = |body: &mut String, names: &mut Names| -> String {
            match &node.scope {
                Scope::None => String::new(),
                Scope::Tok(t) => format!(" [ \"convergencectrl\"(token {t}) ]"),
                Scope::Local => {
                    let a = names.fresh("anc");
                    let _ = writeln!(
                        body,
                        "  {a} = call token @llvm.experimental.convergence.anchor()"
                    );
                    format!(" [ \"convergencectrl\"(token {a}) ]")
                }
            }
        };
        // The count of the innermost loop or region around this block: values computed from it
        // change from one iteration to the next, so threads that leave at different iterations
        // (temporal divergence) or meet at a join from different iterations really differ.
        // (`avail` lists the nearest dominator's values first.)
        let count = mine
            .iter()
            .rev()
            .chain(avail.iter().skip(2))
            .find(|x| x.starts_with("%k") && x.ends_with(".n"))
            .cloned();
        for _ in 0..rng.below(opts.max_insts + 1) {
            let v = names.fresh("v");
            match rng.below(14) {
                0 => {
                    let _ = writeln!(body, "  {v} = {tid_call}");
                    alias.borrow_mut().insert(v.clone(), "%tid".to_string());
                }
                1 => {
                    // Half of the time only its low bits (see `%d`).
                    if rng.chance(1, 2) {
                        let r = names.fresh("r");
                        let _ = writeln!(body, "  {r} = load i32, ptr %q, align 4");
                        let _ = writeln!(body, "  {v} = and i32 {r}, 7");
                    } else {
                        let _ = writeln!(body, "  {v} = load i32, ptr %q, align 4");
                    }
                }
                2 => {
                    // The buffer has four elements with different contents: indexed by the
                    // count, a load in a loop reads a different value in each iteration (a
                    // uniform address, so a value that differs only between threads that left
                    // the loop in different iterations); indexed by another value, the address
                    // may differ per thread.
                    let idx = match &count {
                        Some(k) if rng.chance(1, 2) => Some(k.clone()),
                        _ if rng.chance(1, 4) => Some(pick(rng, &mine)),
                        _ => None,
                    };
                    match idx {
                        Some(x) => {
                            let (g, a) = (names.fresh("g"), names.fresh("a"));
                            let _ = writeln!(body, "  {g} = and i32 {x}, 3");
                            let _ = writeln!(
                                body,
                                "  {a} = getelementptr inbounds i32, ptr addrspace(1) %p, i32 {g}"
                            );
                            let _ =
                                writeln!(body, "  {v} = load i32, ptr addrspace(1) {a}, align 4");
                        }
                        None => {
                            let _ =
                                writeln!(body, "  {v} = load i32, ptr addrspace(1) %p, align 4");
                        }
                    }
                }
                3 | 4 if amd && opts.always_uniform => {
                    let x = pick(rng, &mine);
                    let bd = bundle(&mut body, &mut names);
                    match rng.below(3) {
                        0 => {
                            let _ = writeln!(
                                body,
                                "  {v} = call i32 @llvm.amdgcn.readfirstlane.i32(i32 {x}){bd}"
                            );
                        }
                        1 => {
                            // The lane read is active: the first active one.
                            let l = names.fresh("l");
                            let _ = writeln!(
                                body,
                                "  {l} = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid){bd}"
                            );
                            let _ = writeln!(
                                body,
                                "  {v} = call i32 @llvm.amdgcn.readlane.i32(i32 {x}, i32 {l}){bd}"
                            );
                        }
                        _ => {
                            let y = other(rng, &mine, &x);
                            let c = names.fresh("c");
                            let w = names.fresh("w");
                            let _ = writeln!(body, "  {c} = icmp ult i32 {x}, {y}");
                            let _ = writeln!(
                                body,
                                "  {w} = call i64 @llvm.amdgcn.ballot.i64(i1 {c}){bd}"
                            );
                            let _ = writeln!(body, "  {v} = trunc i64 {w} to i32");
                        }
                    }
                }
                5 => {
                    let x = pick(rng, &mine);
                    let y = other(rng, &mine, &x);
                    let z = other(rng, &mine, &x);
                    let c = names.fresh("c");
                    let _ = writeln!(body, "  {c} = icmp ult i32 {x}, {y}");
                    let _ = writeln!(body, "  {v} = select i1 {c}, i32 {z}, i32 {x}");
                }
                6 => {
                    let x = pick(rng, &mine);
                    let _ = writeln!(body, "  store i32 {x}, ptr addrspace(1) %p, align 4");
                    continue;
                }
                7 if opts.calls => {
                    let x = pick(rng, &mine);
                    if rng.chance(1, 2) {
                        let y = pick(rng, &mine);
                        let _ = writeln!(body, "  {v} = call i32 @helper(i32 {x}, i32 {y})");
                    } else {
                        if rng.chance(1, 2) {
                            let r = names.fresh("r");
                            let _ = writeln!(body, "  {r} = call i32 @ext(i32 {x})");
                            let _ = writeln!(body, "  {v} = and i32 {r}, 7");
                        } else {
                            let _ = writeln!(body, "  {v} = call i32 @ext(i32 {x})");
                        }
                    }
                }
                8 if opts.calls => {
                    let x = pick(rng, &mine);
                    let bd = bundle(&mut body, &mut names);
                    let _ = writeln!(body, "  {v} = call i32 @conv(i32 {x}){bd}");
                }
                _ => {
                    let op = *rng.pick(&["add", "xor", "mul", "and", "sub", "or"]);
                    let x = match &count {
                        Some(k) if rng.chance(1, 2) => k.clone(),
                        _ => pick(rng, &mine),
                    };
                    let y = other(rng, &mine, &x);
                    let _ = writeln!(body, "  {v} = {op} i32 {x}, {y}");
                }
            }
            mine.push(v);
        }
        // The terminator.
        let all: Vec<String> = avail.iter().chain(mine.iter()).cloned().collect();
        // Conditions that the data realises both ways: a compare no thread's data makes true
        // (`icmp eq` of two full-range values) or false tests nothing. Equality compares the
        // low bits (which per-thread values, counts and small inputs vary in), and inside a loop
        // or region it often adds the count first, so the same thread goes both ways in
        // different iterations.
        let cond = |rng: &mut Rng, body: &mut String, names: &mut Names| -> String {
            let c = names.fresh("c");
            if rng.chance(1, 3) {
                let t = names.fresh("t");
                let mask = 1 + rng.below(3);
                let _ = writeln!(body, "  {t} = and i32 %tid, {mask}");
                // A constant the masked id takes for some threads and not for others, so the
                // branch really splits the group (a random value rarely matched any thread).
                let x = match rng.below(4) {
                    0 => {
                        // Another value's low bits; not the id's own (`(tid & 1) == (tid & 1)`
                        // holds in every thread).
                        let y = all[rng.below(all.len())].clone();
                        if same(&y, "%tid") {
                            "0".to_string()
                        } else {
                            let ty = names.fresh("t");
                            let _ = writeln!(body, "  {ty} = and i32 {y}, {mask}");
                            ty
                        }
                    }
                    1 => "0".to_string(),
                    _ => format!("{}", (1 + rng.below(3)) & mask),
                };
                let _ = writeln!(body, "  {c} = icmp eq i32 {t}, {x}");
            } else {
                let mut x = all[rng.below(all.len())].clone();
                let y = match all[rng.below(all.len())].clone() {
                    y if !same(&y, &x) && !rng.chance(1, 3) => y,
                    _ => format!("{}", rng.below(5)),
                };
                let p = *rng.pick(&["slt", "ult", "eq", "ne", "sgt"]);
                if let Some(k) = &count
                    && !same(k, &x)
                    && rng.chance(1, 2)
                {
                    let s = names.fresh("t");
                    let _ = writeln!(body, "  {s} = add i32 {x}, {k}");
                    x = s;
                }
                if p == "eq" || p == "ne" {
                    let tx = names.fresh("t");
                    let _ = writeln!(body, "  {tx} = and i32 {x}, 3");
                    let ty = if y.starts_with('%') {
                        let ty = names.fresh("t");
                        let _ = writeln!(body, "  {ty} = and i32 {y}, 3");
                        ty
                    } else {
                        y
                    };
                    let _ = writeln!(body, "  {c} = icmp {p} i32 {tx}, {ty}");
                } else {
                    let _ = writeln!(body, "  {c} = icmp {p} i32 {x}, {y}");
                }
            }
            c
        };
        let l = |t: usize| format!("label %b{t}");
        match &node.term {
            Term::Ret => body.push_str(if rng.chance(1, 12) {
                "  unreachable\n"
            } else {
                "  ret void\n"
            }),
            Term::Jump => {
                let _ = writeln!(body, "  br {}", l(node.succs[0]));
            }
            Term::Cond => {
                let c = cond(rng, &mut body, &mut names);
                let _ = writeln!(
                    body,
                    "  br i1 {c}, {}, {}",
                    l(node.succs[0]),
                    l(node.succs[1])
                );
            }
            Term::Switch => {
                let x = if rng.chance(1, 2) {
                    "%tid".to_string()
                } else {
                    all[rng.below(all.len())].clone()
                };
                let s = names.fresh("s");
                let _ = writeln!(body, "  {s} = and i32 {x}, 3");
                let _ = write!(body, "  switch i32 {s}, {} [", l(node.succs[0]));
                for (k, &t) in node.succs[1..].iter().enumerate() {
                    let _ = write!(body, "\n    i32 {k}, {}", l(t));
                }
                body.push_str("\n  ]\n");
            }
            Term::Counter { .. } => {
                let c = match &counted {
                    Some(c) => c.clone(),
                    None => cond(rng, &mut body, &mut names),
                };
                let _ = writeln!(
                    body,
                    "  br i1 {c}, {}, {}",
                    l(node.succs[0]),
                    l(node.succs[1])
                );
            }
        }
        bodies[b] = body;
        defs[b] = mine;
    }
    // Phis: counters take the count along their carrying edges and 0 elsewhere; the others a
    // value available at the end of each predecessor.
    let mut filled = Vec::with_capacity(phi_slots.len());
    for (slot, (b, _, is_counter)) in phi_slots.iter().enumerate() {
        if let Some(x) = fixed.get(&slot) {
            let p = cfg.preds(Block(*b as u32))[0].index();
            filled.push(format!("[ {x}, %b{p} ]"));
            continue;
        }
        let mut parts: Vec<String> = Vec::new();
        let mut chosen: Vec<(usize, String)> = Vec::new();
        for p in cfg.preds(Block(*b as u32)) {
            let p = p.index();
            let val = if let Some((_, x)) = chosen.iter().find(|(q, _)| *q == p) {
                x.clone()
            } else {
                let x = if *is_counter {
                    match nodes[*b].carry.iter().find(|c| c.0 == p) {
                        Some(&(_, src, true)) if reach(p) => {
                            let j = nodes[*b]
                                .carry
                                .iter()
                                .filter(|c| c.2)
                                .position(|c| c.0 == p)
                                .unwrap_or(0);
                            format!("%k{src}.c{j}")
                        }
                        Some(&(_, src, false)) if reach(p) => format!("%k{src}.n"),
                        _ => "0".to_string(),
                    }
                } else {
                    // A value not already coming from another predecessor (a few tries): a
                    // phi joining equal values is uniform whatever the branch did.
                    let mut x = String::new();
                    for _ in 0..4 {
                        x = if !defs[p].is_empty() && rng.chance(1, 2) {
                            // A value computed on the incoming path itself: at a join of a
                            // divergent branch the phi then sees different values from
                            // different paths.
                            defs[p][rng.below(defs[p].len())].clone()
                        } else {
                            let mut cands = avail_at(&defs, p);
                            cands.extend(defs[p].iter().cloned());
                            let r = rng.below(cands.len() + 2);
                            // `undef` only along edges that never run: LLVM calls `phi [undef,
                            // %x]` uniform by refining undef to %x, a choice the simulator does
                            // not make (it evaluates undef on its own; oracle seed 4223).
                            if r == cands.len() && !reach(p) {
                                "undef".to_string()
                            } else if r >= cands.len() {
                                // Constants differ per predecessor, so a join sees which path
                                // came.
                                format!("{}", p % 7)
                            } else {
                                cands[r].clone()
                            }
                        };
                        if !chosen.iter().any(|(_, y)| *y == x) {
                            break;
                        }
                    }
                    x
                };
                chosen.push((p, x.clone()));
                x
            };
            parts.push(format!("[ {val}, %b{p} ]"));
        }
        filled.push(parts.join(", "));
    }
    let mut out = String::new();
    let attrs = if opts.tokens { " convergent" } else { "" };
    let _ = writeln!(
        out,
        "define {cc}void @f(i32 %a0, i32 %a1, ptr addrspace(1) %p, ptr %q){attrs} {{"
    );
    for (b, body) in bodies.iter().enumerate() {
        let _ = writeln!(out, "b{b}:");
        let mut text = body.clone();
        for (k, slot) in phi_slots.iter().enumerate() {
            if slot.0 == b {
                text = text.replace(&format!("@PHI{k}@"), &filled[k]);
            }
        }
        out.push_str(&text);
    }
    out.push_str("}\n");
    module_header(opts.flavor) + &out + HELPER
}

/// The defined function the programs call (after `@f`, which stays the first definition): a loop
/// whose trip count is its second argument's low bits.
const HELPER: &str = "\n\
define internal i32 @helper(i32 %x, i32 %y) {\n\
entry:\n  %n = and i32 %y, 3\n  br label %loop\n\
loop:\n  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]\n\
\x20 %acc = phi i32 [ %x, %entry ], [ %acc.next, %loop ]\n\
\x20 %acc.next = mul i32 %acc, 3\n  %i.next = add i32 %i, 1\n\
\x20 %more = icmp ult i32 %i, %n\n  br i1 %more, label %loop, label %done\n\
done:\n  ret i32 %acc.next\n}\n";

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// `%name = rest` lines of `@f`, by name.
    fn defs(text: &str) -> HashMap<String, String> {
        let f = &text[..text.find("define internal").unwrap_or(text.len())];
        f.lines()
            .filter_map(|l| l.trim().split_once(" = "))
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    /// What a value computes, as far as copies go: a phi of one incoming value is what it
    /// copies, every thread-id call is `%tid`, `and x, m` is written with `x` resolved.
    fn resolve(d: &HashMap<String, String>, x: &str) -> String {
        let mut x = x.to_string();
        for _ in 0..64 {
            let r = d.get(&x).map(String::as_str).unwrap_or("");
            if r.contains("workitem.id.x()") || r.contains("tid.x()") {
                return "%tid".into();
            }
            if let Some((a, m)) = r.strip_prefix("and i32 ").and_then(|r| r.split_once(", ")) {
                return format!("and {} {m}", resolve(d, a));
            }
            match r.strip_prefix("phi i32 [ ") {
                Some(r) if r.matches('[').count() == 0 => {
                    x = r.split(',').next().unwrap().trim().to_string();
                }
                _ => break,
            }
        }
        x
    }

    /// The conditions the data can realise both ways: equality compares only low bits (an `and`
    /// with a small mask, or a constant), never a full-range value; and no compare or select
    /// has the same value twice under two names (a copy through a one-incoming phi).
    #[test]
    fn compares_can_go_both_ways() {
        let mut eqs = 0;
        for seed in 0..300 {
            let mut o = Options::new(if seed % 2 == 0 {
                Flavor::Amdgpu
            } else {
                Flavor::Nvptx
            });
            o.tokens = seed % 4 == 0;
            let p = program(&mut Rng::new(seed), &o);
            let d = defs(&p.text);
            for (name, rhs) in &d {
                let Some(ops) = rhs
                    .strip_prefix("icmp ")
                    .and_then(|r| r.split_once(" i32 "))
                else {
                    continue;
                };
                let (pred, ops) = ops;
                let (x, y) = ops.split_once(", ").expect("two operands");
                assert_ne!(
                    resolve(&d, x),
                    resolve(&d, y),
                    "seed {seed}: {name} = {rhs}\n{}",
                    p.text
                );
                if pred == "eq" || pred == "ne" {
                    eqs += 1;
                    for v in [x, y] {
                        let masked = !v.starts_with('%')
                            || d.get(v).is_some_and(|r| {
                                r.starts_with("and i32 ")
                                    && r.rsplit_once(", ").is_some_and(|(_, m)| {
                                        m.parse::<u32>().is_ok_and(|m| m <= 3)
                                    })
                            });
                        assert!(
                            masked,
                            "seed {seed}: {name} = {rhs} compares {v} whole\n{}",
                            p.text
                        );
                    }
                }
            }
        }
        assert!(eqs > 300, "{eqs}");
    }

    /// The global buffer is read at indices that change: by a loop's count (a uniform address
    /// whose value changes per iteration) and by other values, always masked to its four
    /// elements.
    #[test]
    fn buffer_loads_are_indexed_by_counts() {
        let (mut by_count, mut other) = (0, 0);
        for seed in 0..300 {
            let p = program(&mut Rng::new(seed), &Options::new(Flavor::Amdgpu));
            let d = defs(&p.text);
            for rhs in d.values() {
                let Some(idx) =
                    rhs.strip_prefix("getelementptr inbounds i32, ptr addrspace(1) %p, i32 ")
                else {
                    continue;
                };
                let g = d.get(idx).expect("index defined");
                assert!(g.starts_with("and i32 ") && g.ends_with(", 3"), "{g}");
                if g.contains(".n, 3") && g.starts_with("and i32 %k") {
                    by_count += 1;
                } else {
                    other += 1;
                }
            }
        }
        assert!(by_count > 50 && other > 20, "{by_count} {other}");
    }

    #[test]
    fn deterministic_and_bounded() {
        for seed in 0..200 {
            let mut o = Options::new(if seed % 2 == 0 {
                Flavor::Amdgpu
            } else {
                Flavor::Nvptx
            });
            o.tokens = seed % 3 == 0;
            let a = program(&mut Rng::new(seed), &o);
            let b = program(&mut Rng::new(seed), &o);
            assert_eq!(a.text, b.text);
            assert!(a.blocks <= o.max_blocks, "{}", a.blocks);
        }
    }
}
