//! A function with its cycle structure and uniformity result, and the join queries the
//! explanations and pictures ask of its CFG: is a block a join of a divergent branch (one
//! dominator tree per branch and set of stop headers, [`crate::paths::join_set`]), and the two
//! disjoint paths that show it (a max-flow, only for the joins shown). Counters of that work let
//! a test bound it.

use super::reasons::{JoinWitness, Node};
use crate::paths::{Bfs, PathScratch, disjoint_paths_with, join_set};
use converge_graph::{Block, Graph};
use converge_ir::{FuncId, InstId, Module, Value};
use converge_uniformity::llvm::{LlvmFunction, Rules, Setup, Target};
use converge_uniformity::{
    DivergenceModel, Inst, Mode, SourceReason, SsaFunction, Structure, Uniformity,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// One function with its structure and uniformity result (LLVM 22 behaviour, or precise mode).
pub struct Analysed<'m> {
    /// The function in its module, seen through the LLVM-text adapter.
    pub lf: LlvmFunction<'m>,
    /// Its CFG structure: reachability, dominance and the cycle hierarchy ("Convergence And
    /// Uniformity", *Cycles*) the analysis used.
    pub s: Structure,
    /// The analysis' result: which arguments, instructions and terminators are divergent.
    pub u: Uniformity,
    /// The target model whose divergence sources and always-uniform operations were applied.
    pub target: Target,
    /// LLVM's rules (of one release) or precise mode's.
    pub mode: Mode,
    /// The target with the rule set the analysis asked in this mode: `target` itself in llvm
    /// mode, its precise variant in precise mode (the hooks' `*_precise` methods are these
    /// rules), so [`Analysed::source_reason`] asks the hooks the analysis asked.
    mode_target: Target,
    /// Per (branch, blocks that may only end a path): which blocks are joins ([`join_set`]),
    /// computed on first use.
    join_sets: Mutex<JoinSets>,
    /// Max-flow searches run by [`Analysed::join_paths`] (the work a test bounds).
    flows: AtomicUsize,
    /// The buffers of those searches, and the blocks reachable from the last branch searched.
    paths: Mutex<PathScratch>,
    /// Per cycle: whether the analysis found a divergent exit (`u.divergent_exit_cycles` as a
    /// table, one lookup per question).
    exit_divergent: Vec<bool>,
    /// The buffers of breadth-first searches, kept between them ([`Analysed::with_bfs`]).
    bfs: Mutex<Bfs>,
    /// The tables of `Analysed::surely_no_join` (`None`: a block heads two cycles).
    join_tables: OnceLock<Option<JoinTables>>,
    /// [`Analysed::divergent_branches`], found on first use.
    branches: OnceLock<Vec<Block>>,
    /// Join queries `Analysed::surely_no_join` answered (the work a test counts).
    quick_no: AtomicUsize,
}

/// What `Analysed::surely_no_join` reads besides the structure.
struct JoinTables {
    /// Per block, the cycle it heads.
    headed: Vec<Option<u32>>,
    /// Per cycle, the innermost reducible cycle holding it (itself when reducible).
    reducible_up: Vec<Option<u32>>,
    /// Per cycle, whether it and every cycle around it are reducible.
    reducible_chain: Vec<bool>,
}

impl JoinTables {
    /// `None` when a block heads two cycles: then the stops of a query may differ from the
    /// headers of the reducible cycles holding both blocks ([`Analysed::join_stops`] keeps a
    /// header by the innermost cycle it heads).
    fn new(s: &Structure, n: usize) -> Option<JoinTables> {
        let nc = s.num_cycles();
        let mut headed = vec![None; n];
        for c in 0..nc as u32 {
            let h = s.header(c).index();
            if headed[h].is_some() {
                return None;
            }
            headed[h] = Some(c);
        }
        // Parents are numbered before their children.
        let mut reducible_up: Vec<Option<u32>> = Vec::with_capacity(nc);
        for c in 0..nc as u32 {
            let up = if s.is_reducible(c) {
                Some(c)
            } else {
                s.parent(c).and_then(|p| reducible_up[p as usize])
            };
            reducible_up.push(up);
        }
        let mut reducible_chain: Vec<bool> = Vec::with_capacity(nc);
        for c in 0..nc as u32 {
            let up = s.parent(c).is_none_or(|p| reducible_chain[p as usize]);
            reducible_chain.push(up && s.is_reducible(c));
        }
        Some(JoinTables {
            headed,
            reducible_up,
            reducible_chain,
        })
    }
}

/// How many distinct blocks of `xs` satisfy `ok`, counting up to `need` (at most 2): a block
/// listed twice (a multi-edge) counts once.
fn at_least(xs: &[Block], need: usize, ok: impl Fn(Block) -> bool) -> usize {
    let mut first: Option<Block> = None;
    for &x in xs {
        if first == Some(x) || !ok(x) {
            continue;
        }
        if first.is_some() || need == 1 {
            return need;
        }
        first = Some(x);
    }
    usize::from(first.is_some())
}

/// Join sets by (branch, stop headers), one bit per block: a function of n blocks may have a set
/// for each of its divergent branches, so a set takes n/8 bytes rather than n.
type JoinSets = HashMap<(Block, Vec<Block>), Arc<Vec<u64>>>;

/// The join-search work done so far on one [`Analysed`] function.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct JoinWork {
    /// Join sets computed (one dominator tree each).
    pub join_sets: usize,
    /// Max-flow path searches (one per pair of disjoint paths shown or listed).
    pub max_flows: usize,
    /// Join queries answered no without a join set (`Analysed::surely_no_join`).
    pub ruled_out: usize,
}

impl<'m> Analysed<'m> {
    /// LLVM 22 behaviour.
    pub fn new(module: &'m Module, fid: FuncId, target: &Target) -> Analysed<'m> {
        Analysed::new_with(module, fid, target, Mode::default())
    }
    /// In the given mode.
    pub fn new_with(module: &'m Module, fid: FuncId, target: &Target, mode: Mode) -> Analysed<'m> {
        // The one per-function entry point decides the LLVM release's structure and target hooks.
        let setup = Setup::new(target.clone(), mode);
        let a = setup.analyse(module, fid);
        let mode_target = match mode {
            Mode::Precise => setup.target().clone().with_rules(Rules::Precise),
            Mode::Llvm(_) => setup.target().clone(),
        };
        let mut exit_divergent = vec![false; a.structure.num_cycles()];
        for c in &a.uniformity.divergent_exit_cycles {
            exit_divergent[c.index()] = true;
        }
        Analysed {
            exit_divergent,
            bfs: Mutex::new(Bfs::default()),
            mode_target,
            lf: a.lf,
            s: a.structure,
            u: a.uniformity,
            target: setup.target().clone(),
            mode,
            join_sets: Mutex::new(HashMap::new()),
            flows: AtomicUsize::new(0),
            paths: Mutex::new(PathScratch::default()),
            join_tables: OnceLock::new(),
            branches: OnceLock::new(),
            quick_no: AtomicUsize::new(0),
        }
    }
    /// Whether cycle `c` has a divergent exit (is in `u.divergent_exit_cycles`), in O(1).
    pub fn has_divergent_exit(&self, c: u32) -> bool {
        self.exit_divergent
            .get(c as usize)
            .copied()
            .unwrap_or(false)
    }
    /// The divergent branches ([`Analysed::is_divergent_branch`]) in block order, found once.
    pub fn divergent_branches(&self) -> &[Block] {
        self.branches.get_or_init(|| {
            (0..self.num_blocks() as u32)
                .map(Block)
                .filter(|&b| self.is_divergent_branch(b))
                .collect()
        })
    }
    /// The innermost cycle around `b` whose header is `h`: with the tables of
    /// `Analysed::surely_no_join`, the one cycle `h` heads if it holds `b` (O(1)), else a walk
    /// up `b`'s cycles.
    pub fn cycle_around_headed_by(&self, b: Block, h: Block) -> Option<u32> {
        if let Some(t) = self.join_tables() {
            return t.headed[h.index()].filter(|&c| self.s.contains(c, b));
        }
        let mut c = self.s.cycle_of(b);
        while let Some(x) = c {
            if self.s.header(x) == h {
                return Some(x);
            }
            c = self.s.parent(x);
        }
        None
    }
    /// Runs `f` with this function's breadth-first search buffers (see [`Bfs`]).
    pub fn with_bfs<R>(&self, f: impl FnOnce(&mut Bfs) -> R) -> R {
        let mut bfs = self.bfs.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut bfs)
    }
    /// The module the function belongs to.
    pub fn module(&self) -> &'m Module {
        self.lf.module
    }
    /// The function's index in its module.
    pub fn fid(&self) -> FuncId {
        self.lf.fid
    }
    /// Its number of basic blocks (reachable or not).
    pub fn num_blocks(&self) -> usize {
        self.lf.func.blocks.len()
    }
    /// The instruction index of `b`'s terminator (its last instruction).
    pub fn terminator(&self, b: Block) -> u32 {
        self.lf.func.block_range(b).end - 1
    }
    /// Whether instruction `i` ends its block.
    pub fn is_terminator(&self, i: u32) -> bool {
        self.lf.func.insts[i as usize].op.is_terminator()
    }
    /// The block defining `n`; `None` for an argument.
    pub fn block_of(&self, n: Node) -> Option<Block> {
        match n {
            Node::Arg(_) => None,
            Node::Inst(i) => Some(self.lf.func.insts[i as usize].block),
        }
    }
    /// Why the target names instruction `i` a divergence source (`None`: it does not), as the
    /// target model itself says it ([`DivergenceModel::source_reason`]), asked as the analysis
    /// asked it in this mode (precise mode: the hook's sound variant, with refinements and rules
    /// newer than the release llvm mode reproduces), so a reason never cites a rule the analysis
    /// did not apply.
    pub fn source_reason(&self, i: u32) -> Option<SourceReason> {
        self.mode_target.source_reason(&self.lf, Inst(i))
    }
    /// Why the calling convention makes argument `arg` a divergence source (`None`: it does
    /// not), from [`DivergenceModel::source_arg_reason`].
    pub fn source_arg_reason(&self, arg: u32) -> Option<SourceReason> {
        self.mode_target.source_arg_reason(&self.lf, arg)
    }
    /// Whether the target declares instruction `i` always uniform, asked as the analysis asked it
    /// in this mode (see [`Analysed::source_reason`]).
    pub fn is_always_uniform(&self, i: u32) -> bool {
        if self.mode == Mode::Precise {
            self.target.is_always_uniform_precise(&self.lf, Inst(i))
        } else {
            self.target.is_always_uniform(&self.lf, Inst(i))
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
        let mut out: Vec<Value> = f.operands(InstId(i)).to_vec();
        if let Some(call) = f.call(InstId(i)) {
            for b in &f.bundles[call.bundles.range()] {
                out.extend_from_slice(&f.operands[b.operands.range()]);
            }
            out.push(call.callee);
        }
        out
    }
    /// How `n` is written as an operand in the source (`%x`, or `%5` for an unnamed value).
    pub fn name(&self, n: Node) -> String {
        self.module().value_name(self.fid(), n.value())
    }
    /// How block `b` is written as a branch operand in the source (`%label`).
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
        let mut sc = self.paths.lock().unwrap_or_else(|e| e.into_inner());
        disjoint_paths_with(self.lf.cfg(), b, j, &hs, &mut sc)
    }

    /// The join-search work done so far.
    pub fn join_work(&self) -> JoinWork {
        JoinWork {
            join_sets: self.join_sets.lock().map_or(0, |m| m.len()),
            max_flows: self.flows.load(Ordering::Relaxed),
            ruled_out: self.quick_no.load(Ordering::Relaxed),
        }
    }

    /// Whether [`Analysed::join_paths`] finds paths, without finding them: a lookup in the join
    /// set of `b` (one dominator tree per branch and set of stop headers, see [`join_set`]),
    /// unless a test in O(log depth + degrees) already shows it is none (`Analysed::surely_no_join`).
    pub fn is_join(&self, b: Block, j: Block) -> bool {
        if self.s.is_reachable(j) && self.surely_no_join(b, j) {
            self.quick_no.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        self.is_join_by_set(b, j)
    }

    /// [`Analysed::is_join`] by the join set alone, without the quick test (the reference its
    /// tests compare with).
    pub(crate) fn is_join_by_set(&self, b: Block, j: Block) -> bool {
        self.join_stops(b, j)
            .is_some_and(|hs| self.in_join_set(b, hs, j))
    }

    /// The cycle `h` heads, per block, if no block heads two cycles (then the stops of a join
    /// query are the headers of the reducible cycles holding both blocks); built on first use.
    fn join_tables(&self) -> Option<&JoinTables> {
        self.join_tables
            .get_or_init(|| JoinTables::new(&self.s, self.num_blocks()))
            .as_ref()
    }

    /// A necessary condition of `j` being a join of `b` fails (so [`Analysed::is_join_by_set`]
    /// would answer no; `j` reachable). In [`join_set`]'s graph (a root before `b`'s distinct
    /// successors, no edges out of `b` and the stops), `j` is a join when its immediate
    /// dominator is the root: so two successors of `b` that are not cut must reach it, through
    /// two distinct predecessors that are not cut; a successor `j` needs one of each besides
    /// itself. The stops are the headers of the reducible cycles holding both `b` and `j`; the
    /// innermost of them, C, is entered only through its header, a stop that only ends paths:
    /// unless `j` is that header, every path to `j` lies in C, so blocks outside C do not count.
    /// Cost: a common-cycle query and the degrees of `b` and `j`, against a dominator tree of the
    /// function for the join set.
    pub(crate) fn surely_no_join(&self, b: Block, j: Block) -> bool {
        let Some(t) = self.join_tables() else {
            return false;
        };
        let (s, g) = (&self.s, self.lf.cfg());
        let common = s.smallest_common_cycle(s.cycle_of(b), s.cycle_of(j));
        let inner = common.and_then(|c| t.reducible_up[c as usize]);
        let everywhere = inner.is_none_or(|c| s.header(c) == j);
        let counts = |x: Block| {
            let stop = common.is_some_and(|c| {
                t.headed[x.index()].is_some_and(|h| s.is_reducible(h) && s.contains_cycle(h, c))
            });
            x != b
                && x != j
                && !stop
                && s.is_reachable(x)
                && (everywhere || inner.is_some_and(|c| s.contains(c, x)))
        };
        // Reaching a block `x` that dominates `b` closes a walk through both, which holds the
        // header of the smallest cycle around it (a cycle's child cycles are the cycles without
        // its header), an ancestor of their smallest common cycle; that header dominates `x`
        // when the cycle is reducible, so it lies on the part from `b` to `x`: a stop, unless it
        // is `b` or `x` or the cycle does not hold `j`. So no path reaches `x` when no cycle
        // holds both, or when every cycle around both is reducible, holds `j`, and is headed by
        // neither.
        let headed_around =
            |x: Block, e: u32| t.headed[x.index()].is_some_and(|h| s.contains_cycle(h, e));
        let unreachable = |x: Block| {
            s.properly_dominates(x, b)
                && s.smallest_common_cycle(s.cycle_of(x), s.cycle_of(b))
                    .is_none_or(|e| {
                        t.reducible_chain[e as usize]
                            && s.contains(e, j)
                            && !headed_around(x, e)
                            && !headed_around(b, e)
                    })
        };
        if unreachable(j) {
            return true;
        }
        let j_first = g.succs(b).contains(&j);
        let need = if j_first { 1 } else { 2 };
        at_least(g.succs(b), need, counts) < need
            || at_least(g.preds(j), need, |p| counts(p) && !unreachable(p)) < need
    }

    /// Whether `j` is reached from `b` along two disjoint paths through any blocks
    /// ([`crate::paths::disjoint_paths`] without stop blocks).
    pub fn is_free_join(&self, b: Block, j: Block) -> bool {
        self.in_join_set(b, Vec::new(), j)
    }

    fn in_join_set(&self, b: Block, hs: Vec<Block>, j: Block) -> bool {
        let set = self.join_set_of(b, hs);
        set[j.index() / 64] >> (j.index() % 64) & 1 == 1
    }

    /// The join set of `b` with stops `hs`, one bit per block, from the shared table.
    fn join_set_of(&self, b: Block, hs: Vec<Block>) -> Arc<Vec<u64>> {
        let mut sets = self.join_sets.lock().unwrap_or_else(|e| e.into_inner());
        sets.entry((b, hs))
            .or_insert_with_key(|(b, hs)| {
                let set = join_set(self.lf.cfg(), *b, hs);
                let mut bits = vec![0u64; set.len().div_ceil(64)];
                for (i, _) in set.iter().enumerate().filter(|&(_, &x)| x) {
                    bits[i / 64] |= 1 << (i % 64);
                }
                Arc::new(bits)
            })
            .clone()
    }

    /// The innermost cycle of `h` whose header is `h` (`None`: `h` heads no cycle around it).
    fn cycle_headed_by(&self, h: Block) -> Option<u32> {
        let mut c = self.s.cycle_of(h);
        while let Some(x) = c {
            if self.s.header(x) == h {
                return Some(x);
            }
            c = self.s.parent(x);
        }
        None
    }

    /// The headers that paths from `b` to `j` may not pass through (see [`Analysed::join_paths`]);
    /// `None` when `j` is unreachable.
    fn join_stops(&self, b: Block, j: Block) -> Option<Vec<Block>> {
        if !self.s.is_reachable(j) {
            return None;
        }
        let mut hs = self.headers_around(b);
        // The cycle headed by h: the innermost cycle of h whose header is h.
        hs.retain(|&h| {
            self.cycle_headed_by(h)
                .is_some_and(|x| self.s.contains(x, j))
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
        let stops = StopChain::new(self, b);
        // The join sets of this branch by the start of their suffix of `stops` (a deep nest asks
        // hundreds of candidates with the same stops: one lookup of the shared table each, not
        // one hash of the whole list of stops per candidate).
        // With them, the blocks reachable in the join set's graph (see `reached_in_cut`): a
        // candidate outside is no join, and a branch none of whose candidates is inside (the
        // latches of a deep nest, whose candidates lie behind a stop header) builds no
        // dominator tree at all.
        let mut local: Vec<StopSuffix> = Vec::new();
        for j in (0..n as u32).map(Block) {
            if !(count[j.index()] >= 2 || (j == b && g.preds(b).len() >= 2)) {
                continue;
            }
            if out.len() >= max_found || tries >= max_tries {
                return (out, true);
            }
            tries += 1;
            if !self.s.is_reachable(j) {
                continue;
            }
            let hit = match stops.suffix(self, j) {
                Some(p) => {
                    let k = match local.iter().position(|(q, ..)| *q == p) {
                        Some(k) => k,
                        None => {
                            local.push((p, reached_in_cut(g, b, &stops.heads[p..]), None));
                            local.len() - 1
                        }
                    };
                    let (_, (reached, cut), set) = &mut local[k];
                    // A successor of the branch is a join only if also reached through a
                    // predecessor that is no stop (`join_set`'s test for a successor).
                    let possible = reached[j.index()]
                        && (!g.succs(b).contains(&j)
                            || g.preds(j)
                                .iter()
                                .any(|&p| p != j && !cut[p.index()] && reached[p.index()]));
                    possible
                        && set
                            .get_or_insert_with(|| self.join_set_of(b, stops.heads[p..].to_vec()))
                            .get(j.index() / 64)
                            .is_some_and(|w| w >> (j.index() % 64) & 1 == 1)
                }
                None => self.is_join(b, j),
            };
            if hit {
                out.push(j);
            }
        }
        (out, false)
    }
}

/// One suffix of a branch's stop headers (by its start) in [`Analysed::join_blocks_limited`]:
/// the blocks its join-set graph reaches and those it cuts ([`reached_in_cut`]), and the join
/// set once a candidate needed it.
type StopSuffix = (usize, (Vec<bool>, Vec<bool>), Option<Arc<Vec<u64>>>);

/// The blocks [`join_set`]'s graph for branch `b` and `stops` reaches from its root: those
/// reachable from a successor of `b` through blocks other than `b` and the stops (which may end
/// a path). Every join lies among them (a dominator tree has no other blocks), so a block outside
/// is no join without building the tree. Also returns the blocks whose successors the graph
/// drops (`b` and the stops).
fn reached_in_cut<G: Graph>(g: &G, b: Block, stops: &[Block]) -> (Vec<bool>, Vec<bool>) {
    let mut seen = vec![false; g.num_blocks()];
    let mut cut = vec![false; g.num_blocks()];
    cut[b.index()] = true;
    for &h in stops {
        cut[h.index()] = true;
    }
    let mut stack: Vec<Block> = Vec::new();
    let mut firsts: Vec<Block> = g.succs(b).to_vec();
    firsts.sort();
    firsts.dedup();
    if firsts.len() < 2 {
        // `join_set` finds no join with fewer than two distinct successors.
        return (seen, cut);
    }
    for s in firsts {
        seen[s.index()] = true;
        stack.push(s);
    }
    while let Some(x) = stack.pop() {
        if cut[x.index()] {
            continue;
        }
        for &w in g.succs(x) {
            if !seen[w.index()] {
                seen[w.index()] = true;
                stack.push(w);
            }
        }
    }
    (seen, cut)
}

/// The headers [`Analysed::join_stops`] may keep for one branch, innermost first, with the cycle
/// each stands for; when those cycles are nested (each in the next: always, when a block heads
/// one cycle), the headers kept for a join `j` are a suffix of the list, from the first cycle
/// holding `j`, found by a binary search instead of a test per header.
struct StopChain {
    heads: Vec<Block>,
    cycles: Vec<u32>,
    nested: bool,
}

impl StopChain {
    fn new(a: &Analysed<'_>, b: Block) -> StopChain {
        let heads = a.headers_around(b);
        let cycles: Vec<u32> = heads
            .iter()
            .map(|&h| a.cycle_headed_by(h).unwrap_or(u32::MAX))
            .collect();
        let nested = cycles.iter().all(|&c| c != u32::MAX)
            && cycles.windows(2).all(|w| a.s.contains_cycle(w[1], w[0]));
        StopChain {
            heads,
            cycles,
            nested,
        }
    }

    /// Where the headers kept for `j` start (`None`: the cycles are not nested, ask
    /// [`Analysed::join_stops`]).
    fn suffix(&self, a: &Analysed<'_>, j: Block) -> Option<usize> {
        if !self.nested {
            return None;
        }
        Some(self.cycles.partition_point(|&c| !a.s.contains(c, j)))
    }
}
