//! Explanations computed after the fact from a [`Uniformity`] result, so they never disagree with
//! `converge uniformity`.
//!
//! Every divergent value gets candidate *reasons*, each with at most one *premise* (another value
//! or a branch that must itself be divergent): a divergence source of the target (no premise), data
//! dependence on a divergent operand, sync dependence (a phi at a join of a divergent branch: two
//! disjoint paths from the branch, the seeds' definition), temporal divergence (an operand defined
//! in a cycle with a divergent exit, used outside it; the premise is a divergent branch inside the
//! cycle that reaches the exit), or a cycle assumed divergent (irreducible cycle entered on diverged
//! paths). A BFS from the sources over premise → conclusion edges then picks, for every divergent
//! value, the shortest chain back to a source. Only values the analysis calls divergent get
//! reasons, so a uniform value can never receive a divergence chain.

use crate::paths::{disjoint_paths, join_set, shortest_path};
use converge_graph::{Block, Graph};
use converge_ir::{FuncId, InstId, Module, Opcode, Value};
use converge_uniformity::llvm::{LlvmFunction, Target};
use converge_uniformity::{
    DivergenceModel, Mode, SsaFunction, Structure, Uniformity, analyze_with,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// One function with its structure and uniformity result (LLVM 22 behaviour, or precise mode).
pub struct Analysed<'m> {
    pub lf: LlvmFunction<'m>,
    pub s: Structure,
    pub u: Uniformity,
    pub target: Target,
    pub mode: Mode,
    /// Per (branch, blocks that may only end a path): which blocks are joins ([`join_set`]),
    /// computed on first use.
    join_sets: Mutex<JoinSets>,
    /// Max-flow searches run by [`Analysed::join_paths`] (the work a test bounds).
    flows: AtomicUsize,
}

/// Join sets by (branch, stop headers).
type JoinSets = HashMap<(Block, Vec<Block>), Arc<Vec<bool>>>;
/// Disjoint paths by (branch, join).
type PathMemo = HashMap<(Block, Block), [Vec<Block>; 2]>;

/// The join-search work done so far on one [`Analysed`] function.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct JoinWork {
    /// Join sets computed (one dominator tree each).
    pub join_sets: usize,
    /// Max-flow path searches (one per pair of disjoint paths shown or listed).
    pub max_flows: usize,
}

impl<'m> Analysed<'m> {
    /// LLVM 22 behaviour.
    pub fn new(module: &'m Module, fid: FuncId, target: &Target) -> Analysed<'m> {
        Analysed::new_with(module, fid, target, Mode::default())
    }
    /// In the given mode.
    pub fn new_with(module: &'m Module, fid: FuncId, target: &Target, mode: Mode) -> Analysed<'m> {
        let lf = LlvmFunction::new(module, fid);
        let s = Structure::new(SsaFunction::cfg(&lf));
        let u = analyze_with(&lf, target, &s, mode);
        Analysed {
            lf,
            s,
            u,
            target: target.clone(),
            mode,
            join_sets: Mutex::new(HashMap::new()),
            flows: AtomicUsize::new(0),
        }
    }
    pub fn module(&self) -> &'m Module {
        self.lf.module
    }
    pub fn fid(&self) -> FuncId {
        self.lf.fid
    }
    pub fn num_blocks(&self) -> usize {
        self.lf.func.blocks.len()
    }
    pub fn terminator(&self, b: Block) -> u32 {
        self.lf.func.blocks[b.index()].insts.end - 1
    }
    pub fn is_terminator(&self, i: u32) -> bool {
        self.lf.func.insts[i as usize].op.is_terminator()
    }
    pub fn block_of(&self, n: Node) -> Option<Block> {
        match n {
            Node::Arg(_) => None,
            Node::Inst(i) => Some(self.lf.func.insts[i as usize].block),
        }
    }
    /// Divergence as the analysis reports it (terminators through their block).
    pub fn is_divergent(&self, n: Node) -> bool {
        match n {
            Node::Arg(a) => self.u.divergent_args[a as usize],
            Node::Inst(i) => {
                if self.is_terminator(i) {
                    self.u.divergent_terminators[self.lf.func.insts[i as usize].block.index()]
                } else {
                    self.u.divergent_insts[i as usize]
                }
            }
        }
    }
    /// The block's terminator is divergent and has two or more distinct reachable successors.
    pub fn is_divergent_branch(&self, b: Block) -> bool {
        if !self.u.divergent_terminators[b.index()] || !self.s.is_reachable(b) {
            return false;
        }
        let succs = self.lf.cfg().succs(b);
        succs.iter().any(|&x| x != succs[0])
    }
    /// Every operand LLVM counts as a use: operands, bundle operands, the callee.
    pub fn uses(&self, i: u32) -> Vec<Value> {
        let f = self.lf.func;
        let inst = &f.insts[i as usize];
        let mut out: Vec<Value> = f.operands[inst.operands.range()].to_vec();
        if let Some(call) = f.call(InstId(i)) {
            for b in &f.bundles[call.bundles.range()] {
                out.extend_from_slice(&f.operands[b.operands.range()]);
            }
            out.push(call.callee);
        }
        out
    }
    pub fn name(&self, n: Node) -> String {
        self.module().value_name(self.fid(), n.value())
    }
    pub fn block_name(&self, b: Block) -> String {
        self.module().block_operand(self.fid(), b)
    }
    /// Headers of the reducible cycles around `b`: a path through one is a later iteration, which
    /// LLVM treats as temporal divergence, not as a join. Inside irreducible cycles labels flow
    /// through every block, so those headers stay usable.
    fn headers_around(&self, b: Block) -> Vec<Block> {
        let mut out = Vec::new();
        let mut c = self.s.cycle_of(b);
        while let Some(x) = c {
            if self.s.is_reducible(x) {
                out.push(self.s.header(x));
            }
            c = self.s.parent(x);
        }
        out
    }
    /// Two disjoint paths from divergent branch `b` to `j` making `j` a join of `b`, not counting
    /// paths that pass through the header of a reducible cycle containing both `b` and `j` (that
    /// is the next iteration: temporal divergence, not a join). The header itself can be a join,
    /// reached through two different latches in the same iteration; a join outside the cycle may
    /// be reached through it (the analysis lets the header stand for its cycle).
    pub fn join_paths(&self, b: Block, j: Block) -> Option<[Vec<Block>; 2]> {
        let hs = self.join_stops(b, j)?;
        if !self.in_join_set(b, hs.clone(), j) {
            return None;
        }
        self.flows.fetch_add(1, Ordering::Relaxed);
        disjoint_paths(self.lf.cfg(), b, j, &|x| x != j && hs.contains(&x))
    }

    /// The join-search work done so far.
    pub fn join_work(&self) -> JoinWork {
        JoinWork {
            join_sets: self.join_sets.lock().map_or(0, |m| m.len()),
            max_flows: self.flows.load(Ordering::Relaxed),
        }
    }

    /// Whether [`Analysed::join_paths`] finds paths, without finding them: a lookup in the join
    /// set of `b` (one dominator tree per branch and set of stop headers, see [`join_set`]).
    pub fn is_join(&self, b: Block, j: Block) -> bool {
        self.join_stops(b, j)
            .is_some_and(|hs| self.in_join_set(b, hs, j))
    }

    /// Whether `j` is reached from `b` along two disjoint paths through any blocks
    /// ([`disjoint_paths`] without forbidden blocks).
    pub fn is_free_join(&self, b: Block, j: Block) -> bool {
        self.in_join_set(b, Vec::new(), j)
    }

    fn in_join_set(&self, b: Block, hs: Vec<Block>, j: Block) -> bool {
        let mut sets = self.join_sets.lock().unwrap_or_else(|e| e.into_inner());
        let set = sets
            .entry((b, hs))
            .or_insert_with_key(|(b, hs)| Arc::new(join_set(self.lf.cfg(), *b, hs)));
        set[j.index()]
    }

    /// The headers that paths from `b` to `j` may not pass through (see [`Analysed::join_paths`]);
    /// `None` when `j` is unreachable.
    fn join_stops(&self, b: Block, j: Block) -> Option<Vec<Block>> {
        if !self.s.is_reachable(j) {
            return None;
        }
        let mut hs = self.headers_around(b);
        hs.retain(|&h| {
            let c = self.s.cycle_of(h);
            // The cycle headed by h: the innermost cycle of h whose header is h.
            let mut c = c;
            while let Some(x) = c {
                if self.s.header(x) == h {
                    return self.s.contains(x, j);
                }
                c = self.s.parent(x);
            }
            false
        });
        // The header itself may be the join (two latches in the same iteration): `h == j` stays
        // in the list, it only ends paths.
        Some(hs)
    }
    /// Every join of branch `b`, in block order, with the witness paths.
    pub fn joins_of(&self, b: Block) -> Vec<JoinWitness> {
        self.joins_of_limited(b, usize::MAX, usize::MAX).0
    }

    /// The first `max_found` joins of `b` in block order, trying at most `max_tries` candidates
    /// (each try is a lookup in `b`'s join set, the paths a max-flow, O(E)); the flag says
    /// whether the list may be incomplete.
    pub fn joins_of_limited(
        &self,
        b: Block,
        max_found: usize,
        max_tries: usize,
    ) -> (Vec<JoinWitness>, bool) {
        let (js, cut) = self.join_blocks_limited(b, max_found, max_tries);
        let out = js
            .into_iter()
            .filter_map(|j| self.join_paths(b, j).map(|p| (j, p)))
            .collect();
        (out, cut)
    }

    /// Like [`Analysed::joins_of_limited`], the joins only (no paths).
    pub fn join_blocks_limited(
        &self,
        b: Block,
        max_found: usize,
        max_tries: usize,
    ) -> (Vec<Block>, bool) {
        let g = self.lf.cfg();
        let n = g.num_blocks();
        // Blocks reachable from at least two distinct successors (a join must be).
        let mut count = vec![0u8; n];
        let mut seen = vec![u32::MAX; n];
        let mut firsts: Vec<Block> = g.succs(b).to_vec();
        firsts.sort();
        firsts.dedup();
        for (k, &s) in firsts.iter().enumerate() {
            let mut stack = vec![s];
            while let Some(x) = stack.pop() {
                if x == b || seen[x.index()] == k as u32 {
                    continue;
                }
                seen[x.index()] = k as u32;
                count[x.index()] = count[x.index()].saturating_add(1);
                stack.extend_from_slice(g.succs(x));
            }
        }
        let mut out = Vec::new();
        let mut tries = 0;
        for j in (0..n as u32).map(Block) {
            if !(count[j.index()] >= 2 || (j == b && g.preds(b).len() >= 2)) {
                continue;
            }
            if out.len() >= max_found || tries >= max_tries {
                return (out, true);
            }
            tries += 1;
            if self.is_join(b, j) {
                out.push(j);
            }
        }
        (out, false)
    }
}

/// A join and the two paths to it from the branch (disjoint unless said otherwise).
pub type JoinWitness = (Block, [Vec<Block>; 2]);

/// A value of the function: an argument or an instruction (terminators included).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    Arg(u32),
    Inst(u32),
}

impl Node {
    pub fn value(self) -> Value {
        match self {
            Node::Arg(a) => Value::Arg(a),
            Node::Inst(i) => Value::Inst(InstId(i)),
        }
    }
}

/// Which target rule makes a value a divergence source.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SourceRule {
    /// A thread/lane id intrinsic (`llvm.amdgcn.workitem.id.x`, `llvm.nvvm.read.ptx.sreg.tid.x`, …).
    ThreadId,
    /// Another intrinsic the target lists as divergent.
    Intrinsic,
    /// `llvm.read_register` of a per-lane register.
    ReadRegister,
    /// A load from an address space with per-thread contents.
    Load,
    /// An atomic (`atomicrmw`, `cmpxchg`, atomic store, fence).
    Atomic,
    /// A call to an unknown function.
    Call,
    /// An `invoke`.
    Invoke,
    /// Inline asm with an output in a per-lane register class.
    InlineAsm,
    /// A function argument the calling convention passes per thread.
    Argument,
}

impl SourceRule {
    pub fn id(self) -> &'static str {
        match self {
            SourceRule::ThreadId => "thread-id-intrinsic",
            SourceRule::Intrinsic => "divergent-intrinsic",
            SourceRule::ReadRegister => "read-register",
            SourceRule::Load => "divergent-load",
            SourceRule::Atomic => "atomic",
            SourceRule::Call => "call",
            SourceRule::Invoke => "invoke",
            SourceRule::InlineAsm => "inline-asm",
            SourceRule::Argument => "argument",
        }
    }
}

/// Why one value is divergent, given its premise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// A divergence source of the target.
    Source { rule: SourceRule, detail: String },
    /// Uses the divergent `operand`.
    Data { operand: Node },
    /// A phi at `join`, a join of the divergent branch in `branch`: `paths` are two paths from
    /// distinct successors, disjoint when `disjoint` (the seeds' join). Without two disjoint paths
    /// the analysis can still find a join: its label propagation inside irreducible regions
    /// over-approximates, and LLVM agrees; then `paths` are the shortest ones from two successors.
    Sync {
        branch: Block,
        join: Block,
        paths: [Vec<Block>; 2],
        disjoint: bool,
    },
    /// Uses `operand`, defined in `cycle`, outside the cycle; the cycle has a divergent exit at
    /// `exit` because of the divergent branch in `branch` (`path`: branch → exit).
    Temporal {
        operand: u32,
        cycle: u32,
        branch: Block,
        exit: Block,
        path: Vec<Block>,
    },
    /// Defined in `cycle`, an irreducible cycle assumed divergent: diverged paths from the branch in
    /// `branch` enter it at `entries` (or meet at a join inside it not dominated by the branch).
    AssumedCycle {
        cycle: u32,
        branch: Block,
        entries: Vec<Block>,
        paths: Vec<Vec<Block>>,
    },
}

impl Reason {
    pub fn kind(&self) -> &'static str {
        match self {
            Reason::Source { .. } => "source",
            Reason::Data { .. } => "data",
            Reason::Sync { .. } => "sync",
            Reason::Temporal { .. } => "temporal",
            Reason::AssumedCycle { .. } => "assumed-divergent-cycle",
        }
    }
}

/// One link of a chain: `node` is divergent because of `reason`.
#[derive(Clone, Debug)]
pub struct Step {
    pub node: Node,
    pub reason: Reason,
}

/// Why a value is uniform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UniformFact {
    /// The target has no branch divergence (or the function runs on a single lane).
    NotAnalysed,
    /// The argument is passed uniformly (kernel argument, `inreg`, …).
    UniformArgument,
    /// The target declares the instruction always uniform.
    AlwaysUniform,
    /// No operand is divergent (the operands are listed).
    NoDivergentOperand { operands: Vec<Node> },
    /// A phi at `join`, a join of the divergent branch in `branch`, whose incoming values are all
    /// the same value (ignoring undef and the phi itself).
    ConstantPhi { join: Block, branch: Block },
    /// A phi at the header of `cycle`; the divergent branch in `branch` inside the cycle does not
    /// reach it along two disjoint paths within one iteration (going around again is temporal
    /// divergence, not a join).
    HeaderNotJoin { cycle: u32, branch: Block },
    /// A phi whose block is not a join of any divergent branch.
    NotAJoin,
    /// A phi in `exit`, an exit of `cycle` (which has a divergent exit, from the branch in
    /// `branch`), whose incoming values differ but none is defined inside the cycle: LLVM marks
    /// exit phis only for values from the cycle (docs/llvm-differences.md entry 2).
    ExitPhiNoCycleValue {
        exit: Block,
        cycle: u32,
        branch: Block,
    },
    /// A phi at `join`, reached on disjoint paths from the divergent branch in `branch`, with
    /// different incoming values, that the analysis in this mode leaves uniform anyway (LLVM's
    /// join detection does not report it).
    JoinNotReported { join: Block, branch: Block },
    /// Uniform inside `cycle`, which has a divergent exit; its `users` outside see it temporally
    /// divergent.
    TemporalOutside { cycle: u32, users: Vec<u32> },
}

/// The answer for one value.
#[derive(Clone, Debug)]
pub enum Explanation {
    /// The chain from the value back to a source (the first step is the value itself).
    Divergent(Vec<Step>),
    Uniform(Vec<UniformFact>),
    /// Divergent, but no chain to a source was reconstructed (a bug in this module).
    Unexplained,
}

/// The explanations of one function, computed once.
pub struct Explainer<'a, 'm> {
    pub a: &'a Analysed<'m>,
    /// Per node (arguments, then instructions): distance to a source and the chosen reason
    /// (for a disjoint join, without its paths: they are found when shown, see `paths`).
    best: Vec<Option<(u32, Reason)>>,
    /// The disjoint paths of the (branch, join) pairs shown so far.
    paths: Mutex<PathMemo>,
}

fn node_index(na: usize, n: Node) -> usize {
    match n {
        Node::Arg(a) => a as usize,
        Node::Inst(i) => na + i as usize,
    }
}

/// A divergent branch in a cycle reaching one of its exits: the premise of temporal divergence.
#[derive(Clone)]
struct ExitWitness {
    branch: Block,
    exit: Block,
    path: Vec<Block>,
}

#[derive(Clone)]
struct EntryWitness {
    branch: Block,
    entries: Vec<Block>,
    paths: Vec<Vec<Block>>,
}

/// Per join block: the divergent branches it is a join of.
type JoinMemo = HashMap<Block, Vec<Block>>;

/// Searches for entry witnesses per cycle assumed divergent (see `entry_witnesses`).
const MAX_ENTRY_SEARCHES: usize = 512;

/// Blocks from which one of `targets` can be reached (the targets included).
fn reaching<G: Graph>(g: &G, targets: &[Block]) -> Vec<bool> {
    let mut seen = vec![false; g.num_blocks()];
    let mut stack: Vec<Block> = targets.to_vec();
    for &t in targets {
        seen[t.index()] = true;
    }
    while let Some(x) = stack.pop() {
        for &p in g.preds(x) {
            if !seen[p.index()] {
                seen[p.index()] = true;
                stack.push(p);
            }
        }
    }
    seen
}

/// At most this many alternative premises per reason kind (enough for the shortest chain in
/// practice, and bounded work on big functions).
const MAX_ALTERNATIVES: usize = 8;

impl<'a, 'm> Explainer<'a, 'm> {
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
        let exit_w: HashMap<u32, Vec<ExitWitness>> =
            a.u.divergent_exit_cycles
                .iter()
                .map(|&c| (c, exit_witnesses(a, &branches, c)))
                .collect();
        let assumed_w: HashMap<u32, Vec<EntryWitness>> =
            a.u.assumed_divergent
                .iter()
                .map(|&c| (c, entry_witnesses(a, &branches, c)))
                .collect();
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
            let cands = candidates(a, n, &exit_w, &assumed_w, &branches, &mut join_memo);
            for r in cands {
                let premise = match &r {
                    Reason::Source { .. } => None,
                    Reason::Data { operand } => Some(*operand),
                    Reason::Sync { branch, .. }
                    | Reason::Temporal { branch, .. }
                    | Reason::AssumedCycle { branch, .. } => {
                        Some(Node::Inst(a.terminator(*branch)))
                    }
                };
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
                disjoint: true,
            } = &mut reason
            {
                let mut memo = self.paths.lock().unwrap_or_else(|e| e.into_inner());
                *paths = memo
                    .entry((*branch, *join))
                    .or_insert_with(|| {
                        // `is_join` said yes, so the max-flow finds the paths.
                        a.join_paths(*branch, *join)
                            .unwrap_or_else(|| [Vec::new(), Vec::new()])
                    })
                    .clone();
            }
            chain.push(Step { node: at, reason });
            at = match r {
                Reason::Source { .. } => return Explanation::Divergent(chain),
                Reason::Data { operand } => *operand,
                Reason::Sync { branch, .. }
                | Reason::Temporal { branch, .. }
                | Reason::AssumedCycle { branch, .. } => Node::Inst(a.terminator(*branch)),
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

fn candidates(
    a: &Analysed<'_>,
    n: Node,
    exit_w: &HashMap<u32, Vec<ExitWitness>>,
    assumed_w: &HashMap<u32, Vec<EntryWitness>>,
    branches: &[Block],
    join_memo: &mut JoinMemo,
) -> Vec<Reason> {
    let (f, s, u) = (a.lf.func, &a.s, &a.u);
    let mut out = Vec::new();
    let i = match n {
        Node::Arg(arg) => {
            if a.target.is_source_arg(&a.lf, arg) {
                out.push(Reason::Source {
                    rule: SourceRule::Argument,
                    detail: argument_rule(a),
                });
            }
            return out;
        }
        Node::Inst(i) => i,
    };
    if a.target.is_source_inst(&a.lf, i) {
        let (rule, detail) = classify_source(a, i);
        out.push(Reason::Source { rule, detail });
    }
    let ub = f.insts[i as usize].block;
    let uses = a.uses(i);
    for &v in &uses {
        let op = match v {
            Value::Arg(x) => Node::Arg(x),
            Value::Inst(d) => Node::Inst(d.0),
            _ => continue,
        };
        if a.is_divergent(op) && !out.contains(&Reason::Data { operand: op }) {
            out.push(Reason::Data { operand: op });
        }
        // Temporal divergence: the operand's cycles that do not contain the user.
        if let Value::Inst(d) = v {
            let mut c = s.cycle_of(f.insts[d.0 as usize].block);
            while let Some(x) = c {
                if s.contains(x, ub) {
                    break;
                }
                if u.divergent_exit_cycles.contains(&x)
                    && let Some(ws) = exit_w.get(&x)
                {
                    for w in ws {
                        out.push(Reason::Temporal {
                            operand: d.0,
                            cycle: x,
                            branch: w.branch,
                            exit: w.exit,
                            path: w.path.clone(),
                        });
                    }
                }
                c = s.parent(x);
            }
        }
    }
    let inst = &f.insts[i as usize];
    if inst.op == Opcode::Phi && !a.lf.phi_has_constant_or_undef_value(i) {
        let joins = join_memo.entry(ub).or_insert_with(|| {
            branches
                .iter()
                .copied()
                .filter(|&b| a.is_join(b, ub))
                .take(MAX_ALTERNATIVES)
                .collect()
        });
        // The paths are found when a chain shows this step (`Explainer::explain`).
        for &b in joins.iter() {
            out.push(Reason::Sync {
                branch: b,
                join: ub,
                paths: [Vec::new(), Vec::new()],
                disjoint: true,
            });
        }
        if joins.is_empty() {
            for (b, p) in overlapping_joins(a, branches, ub) {
                out.push(Reason::Sync {
                    branch: b,
                    join: ub,
                    paths: p,
                    disjoint: false,
                });
            }
        }
    }
    if !inst.op.is_terminator() {
        for &c in &u.assumed_divergent {
            if !s.contains(c, ub) {
                continue;
            }
            for w in assumed_w.get(&c).into_iter().flatten() {
                out.push(Reason::AssumedCycle {
                    cycle: c,
                    branch: w.branch,
                    entries: w.entries.clone(),
                    paths: w.paths.clone(),
                });
            }
        }
    }
    out
}

/// Divergent branches reaching `j` from two distinct successors, with the shortest such paths
/// (not necessarily disjoint): the fallback witness for joins of the analysis's label propagation.
fn overlapping_joins(a: &Analysed<'_>, branches: &[Block], j: Block) -> Vec<JoinWitness> {
    let g = a.lf.cfg();
    let mut out = Vec::new();
    for &b in branches {
        let mut firsts: Vec<Block> = g.succs(b).to_vec();
        firsts.sort();
        firsts.dedup();
        let hits: Vec<Vec<Block>> = firsts
            .iter()
            .filter_map(|&x| shortest_path(g, &[x], &|y| y == j, &|y| y != b || y == j))
            .take(2)
            .collect();
        if let [p, q] = hits.as_slice() {
            let mut p = p.clone();
            let mut q = q.clone();
            p.insert(0, b);
            q.insert(0, b);
            out.push((b, [p, q]));
            if out.len() >= MAX_ALTERNATIVES {
                break;
            }
        }
    }
    out
}

/// Divergent branches inside cycle `c` whose paths reach an exit of `c` (threads leave at
/// different iterations). Branches whose diverged paths leave their own innermost cycle outside
/// `c` come first (that is how the analysis finds the exit); others are kept as a fallback.
fn exit_witnesses(a: &Analysed<'_>, branches: &[Block], c: u32) -> Vec<ExitWitness> {
    let (s, g) = (&a.s, a.lf.cfg());
    let mut strict = Vec::new();
    let mut loose = Vec::new();
    for &b in branches {
        if !s.contains(c, b) {
            continue;
        }
        let inner = s.cycle_of(b).unwrap_or(c);
        let starts = g.succs(b);
        let outside = |x: Block| !s.contains(c, x);
        let p = shortest_path(g, starts, &outside, &|x| {
            x != b && (s.contains(inner, x) || !s.contains(c, x))
        });
        let (list, p) = match p {
            Some(p) => (&mut strict, Some(p)),
            None => (&mut loose, shortest_path(g, starts, &outside, &|x| x != b)),
        };
        if let Some(mut p) = p {
            p.insert(0, b);
            list.push(ExitWitness {
                branch: b,
                exit: *p.last().unwrap(),
                path: p,
            });
        }
    }
    strict.extend(loose);
    strict.truncate(MAX_ALTERNATIVES);
    strict
}

/// Divergent branches whose diverged paths enter cycle `c` at different entries (from outside),
/// or meet at a join inside `c` that the branch does not dominate (from inside).
///
/// Branches outside `c` from which `c` cannot be reached are skipped without a search; at most
/// [`MAX_ENTRY_SEARCHES`] others are searched (each a BFS, O(E)). Past that budget the witnesses
/// found so far are kept, and when there are none the branches that reach `c` are named without
/// paths ("reach it"): a weaker statement, still true.
fn entry_witnesses(a: &Analysed<'_>, branches: &[Block], c: u32) -> Vec<EntryWitness> {
    let (s, g) = (&a.s, a.lf.cfg());
    let mut out = Vec::new();
    let mut fallback = Vec::new();
    let reaches = reaching(g, s.blocks(c));
    let mut searches = 0usize;
    for &b in branches {
        if out.len() >= MAX_ALTERNATIVES {
            break;
        }
        let mut firsts: Vec<Block> = g.succs(b).to_vec();
        firsts.dedup();
        if !s.contains(c, b) {
            if !firsts.iter().any(|x| reaches[x.index()]) {
                continue;
            }
            searches += 1;
            if searches > MAX_ENTRY_SEARCHES {
                if out.is_empty() && fallback.len() < MAX_ALTERNATIVES {
                    // A successor reaches `c`; if only through `b`, the part of that path after
                    // its last visit of `b` is a path from a successor that avoids `b`.
                    fallback.push(EntryWitness {
                        branch: b,
                        entries: Vec::new(),
                        paths: Vec::new(),
                    });
                }
                continue;
            }
            let inside = |x: Block| s.contains(c, x);
            let hits: Vec<Vec<Block>> = firsts
                .iter()
                .filter_map(|&x| shortest_path(g, &[x], &inside, &|y| y != b))
                .collect();
            let mut found = false;
            'pairs: for (k, p) in hits.iter().enumerate() {
                for q in &hits[k + 1..] {
                    if p.last() != q.last() {
                        let mut p = p.clone();
                        let mut q = q.clone();
                        p.insert(0, b);
                        q.insert(0, b);
                        out.push(EntryWitness {
                            branch: b,
                            entries: vec![*p.last().unwrap(), *q.last().unwrap()],
                            paths: vec![p, q],
                        });
                        found = true;
                        break 'pairs;
                    }
                }
            }
            if !found && !hits.is_empty() {
                fallback.push(EntryWitness {
                    branch: b,
                    entries: Vec::new(),
                    paths: Vec::new(),
                });
            }
        } else {
            let join = s
                .blocks(c)
                .iter()
                .take(256)
                .filter(|&&j| !s.dom.dominates(b, j))
                .filter(|&&j| a.is_free_join(b, j))
                .find_map(|&j| disjoint_paths(g, b, j, &|_| false).map(|p| (j, p)));
            match join {
                Some((_, [p, q])) => out.push(EntryWitness {
                    branch: b,
                    entries: Vec::new(),
                    paths: vec![p, q],
                }),
                None => fallback.push(EntryWitness {
                    branch: b,
                    entries: Vec::new(),
                    paths: Vec::new(),
                }),
            }
        }
    }
    if out.is_empty() {
        fallback.truncate(MAX_ALTERNATIVES);
        return fallback;
    }
    out
}

fn argument_rule(a: &Analysed<'_>) -> String {
    match &a.target {
        Target::Nvptx(_) => "argument of a non-kernel function (NVPTX)".to_string(),
        Target::Amdgpu(_) => format!(
            "argument without `inreg` of a `{}` function (AMDGPU: only kernel arguments and inreg shader arguments are uniform)",
            a.lf.call_conv()
        ),
        Target::Uniform => "argument".to_string(),
    }
}

fn is_thread_id_intrinsic(name: &str) -> bool {
    const IDS: [&str; 8] = [
        "workitem.id",
        "sreg.tid",
        "sreg.laneid",
        "mbcnt",
        "read.tidig",
        "lane.id",
        "lanemask",
        "sreg.warpid",
    ];
    IDS.iter().any(|p| name.contains(p))
}

/// Which target rule made instruction `i` a source.
fn classify_source(a: &Analysed<'_>, i: u32) -> (SourceRule, String) {
    let f = a.lf.func;
    let m = a.module();
    let inst = &f.insts[i as usize];
    match inst.op {
        Opcode::Load => (
            SourceRule::Load,
            format!(
                "load from address space {} ({})",
                inst.aux,
                addrspace_name(&a.target, inst.aux)
            ),
        ),
        Opcode::AtomicRmw | Opcode::CmpXchg | Opcode::Fence | Opcode::Store => (
            SourceRule::Atomic,
            format!(
                "{} is atomic: each thread sees a different value",
                converge_ir::print::opcode_name(inst.op)
            ),
        ),
        Opcode::Invoke => (
            SourceRule::Invoke,
            "invoke: the result may differ per thread".to_string(),
        ),
        _ => {
            if let Some(c) = a.lf.asm_constraints(i) {
                return (
                    SourceRule::InlineAsm,
                    format!("inline asm with constraints \"{c}\" writes a per-lane register"),
                );
            }
            match a.lf.callee_name(i) {
                Some(n) if n.starts_with("llvm.read_register") => (
                    SourceRule::ReadRegister,
                    format!("{n} reads a per-lane register"),
                ),
                Some(n) if n.starts_with("llvm.") && is_thread_id_intrinsic(n) => (
                    SourceRule::ThreadId,
                    format!("{n} is a thread-id intrinsic"),
                ),
                Some(n) if n.starts_with("llvm.") => (
                    SourceRule::Intrinsic,
                    format!("{n} is a divergent intrinsic on this target"),
                ),
                Some(n) => (
                    SourceRule::Call,
                    format!(
                        "call to @{n}: the result of an unknown function may differ per thread"
                    ),
                ),
                None => {
                    let callee = f
                        .call(InstId(i))
                        .map(|c| m.value_name(a.fid(), c.callee))
                        .unwrap_or_default();
                    (
                        SourceRule::Call,
                        format!("indirect call through {callee}: the result may differ per thread"),
                    )
                }
            }
        }
    }
}

fn addrspace_name(t: &Target, aspace: u32) -> &'static str {
    match (t, aspace) {
        (Target::Amdgpu(_), 0) => "flat",
        (Target::Amdgpu(_), 5) => "private",
        (Target::Amdgpu(_), 13) => "VGPR",
        (Target::Nvptx(_), 0) => "generic",
        (Target::Nvptx(_), 5) => "local",
        _ => "per-thread memory",
    }
}

fn uniform_facts(a: &Analysed<'_>, n: Node) -> Vec<UniformFact> {
    let (f, s, u) = (a.lf.func, &a.s, &a.u);
    if !u.analysed {
        return vec![UniformFact::NotAnalysed];
    }
    let i = match n {
        Node::Arg(_) => return vec![UniformFact::UniformArgument],
        Node::Inst(i) => i,
    };
    let mut out = Vec::new();
    if u.always_uniform[i as usize] {
        out.push(UniformFact::AlwaysUniform);
        return out;
    }
    let operands: Vec<Node> = a
        .uses(i)
        .iter()
        .filter_map(|&v| match v {
            Value::Arg(x) => Some(Node::Arg(x)),
            Value::Inst(d) => Some(Node::Inst(d.0)),
            _ => None,
        })
        .collect();
    out.push(UniformFact::NoDivergentOperand { operands });
    let inst = &f.insts[i as usize];
    let j = inst.block;
    if inst.op == Opcode::Phi {
        let branches: Vec<Block> = (0..a.num_blocks() as u32)
            .map(Block)
            .filter(|&b| a.is_divergent_branch(b))
            .collect();
        let constant = a.lf.phi_has_constant_or_undef_value(i);
        let exit_of = |b: Block| -> Option<u32> {
            // The outermost cycle around the branch with a divergent exit that `j` leaves it to.
            let mut c = s.cycle_of(b);
            let mut found = None;
            while let Some(x) = c {
                if !s.contains(x, j) && u.divergent_exit_cycles.contains(&x) {
                    found = Some(x);
                }
                c = s.parent(x);
            }
            found
        };
        if let Some(&b) = branches.iter().find(|&&b| a.is_join(b, j)) {
            if constant {
                out.push(UniformFact::ConstantPhi { join: j, branch: b });
            } else if let Some(c) = exit_of(b) {
                out.push(UniformFact::ExitPhiNoCycleValue {
                    exit: j,
                    cycle: c,
                    branch: b,
                });
            } else {
                out.push(UniformFact::JoinNotReported { join: j, branch: b });
            }
        } else if let Some((c, b)) = branches.iter().find_map(|&b| {
            let mut c = s.cycle_of(b);
            while let Some(x) = c {
                if s.header(x) == j {
                    return Some((x, b));
                }
                c = s.parent(x);
            }
            None
        }) {
            out.push(UniformFact::HeaderNotJoin {
                cycle: c,
                branch: b,
            });
        } else {
            out.push(UniformFact::NotAJoin);
        }
    }
    if !inst.op.is_terminator() {
        let mut c = s.cycle_of(j);
        while let Some(x) = c {
            if u.divergent_exit_cycles.contains(&x) {
                let users: Vec<u32> =
                    a.lf.users(converge_uniformity::Val::Inst(i))
                        .iter()
                        .copied()
                        .filter(|&us| !s.contains(x, f.insts[us as usize].block))
                        // Precise mode's list is complete and leaves out the uses a loop heart's
                        // region keeps converged per iteration.
                        .filter(|&us| {
                            a.mode != Mode::Precise
                                || u.temporal_divergence
                                    .iter()
                                    .any(|t| t.value == i && t.user == us)
                        })
                        .collect();
                if !users.is_empty() {
                    out.push(UniformFact::TemporalOutside { cycle: x, users });
                    break;
                }
            }
            c = s.parent(x);
        }
    }
    out
}

/// Finds a value by its printed name (`%x`, `x`, `%3`, `3`).
pub fn find_value(m: &Module, fid: FuncId, name: &str) -> Option<Node> {
    let want = normalize(name);
    let f = m.func(fid);
    (0..f.params.len() as u32)
        .map(Node::Arg)
        .chain((0..f.insts.len() as u32).map(Node::Inst))
        .find(|&n| {
            let named = match n {
                Node::Arg(a) => f.params[a as usize].name != converge_ir::LocalName::None,
                Node::Inst(i) => f.insts[i as usize].name != converge_ir::LocalName::None,
            };
            named && m.value_name(fid, n.value()) == want
        })
}

/// Finds a block by its name (`%bb`, `bb`, `%2`, `2`).
pub fn find_block(m: &Module, fid: FuncId, name: &str) -> Option<Block> {
    let want = normalize(name);
    (0..m.func(fid).blocks.len() as u32)
        .map(Block)
        .find(|&b| m.block_operand(fid, b) == want)
}

fn normalize(name: &str) -> String {
    let n = name.trim();
    if n.starts_with('%') {
        n.to_string()
    } else {
        let quoted = !n
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '$' | '.' | '_'))
            || n.starts_with(|c: char| c.is_ascii_digit())
                && !n.chars().all(|c| c.is_ascii_digit());
        if quoted {
            format!("%\"{n}\"")
        } else {
            format!("%{n}")
        }
    }
}
