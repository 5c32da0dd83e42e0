//! The structural rules of LLVM's verifier that every answer of converge depends on, checked when a
//! module is read, so that invalid IR is an error (exit 2) rather than an answer:
//!
//! - **operand types**: a local value (argument or instruction result) used where the instruction
//!   expects another type (`%y = add i64 %x, 1` with `%x` an `i32`; LLVM's reader: "'%x' defined
//!   with type 'i32' but expected 'i64'"). Checked for the operands whose expected type the
//!   instruction fixes: binary and unary operators, comparisons, `select`, `phi`, `ret`, the
//!   condition of `br`/`switch`, call arguments against the call's function type, and the pointer
//!   of `load`/`store`/`getelementptr`; constants of `ret`, `select` and switch cases against the
//!   type the instruction fixes ("Function return type does not match operand type of return
//!   inst!", "Switch constants must all be same type as switch value!").
//! - **written types**: every other local operand written with another type than its
//!   definition's (`icmp slt i64 %a, %b`, `store i64 %v, ptr %p`, a `getelementptr` index, a
//!   cast's source, call and metadata arguments; LLVM's reader: "'%a' defined with type 'i32' but
//!   expected 'i64'"). The IR does not keep written types, so the reader compares them where it
//!   resolves the operand (forward references when they are resolved) and hands the mismatches
//!   here as `WrongType`s; each is reported at its instruction, after the checks above of the
//!   same instruction, so a module's first error is the same whichever check finds it.
//! - **definitions dominate uses** ("Instruction does not dominate all uses!", "Only PHI nodes may
//!   reference their own value!"): a use in the same block comes after the definition, a use in
//!   another block is dominated by the definition's block, and a phi's incoming value dominates the
//!   end of its incoming block. Uses in unreachable blocks are exempt, as in LLVM. The result of
//!   an `invoke` is defined on its normal edge; uses of `callbr` results are not checked.
//! - **phi incomings match predecessors** ("PHINode should have one entry for each predecessor of
//!   its parent basic block!"), as multisets (an edge taken twice needs two entries), and phis come
//!   first in their block ("PHI nodes not grouped at top of basic block!");
//! - **the entry block has no predecessors** ("Entry block to function must not have
//!   predecessors!").
//!
//! That each block ends in exactly one terminator the reader enforces while parsing.
//!
//! Cost: one pass over the instructions (`scan`: the type checks as booleans, the messages built
//! only for a failure; whether a use needs the dominator tree; whether a phi comes after a
//! non-phi), or, for a function the reader noted these facts for as it read it (`ReadFacts`),
//! the type checks of the lines its fast paths did not vouch for, unless they passed at the
//! body's end; the predecessor edges counted per block from the terminators; each phi's incoming
//! blocks compared with them by counting (a short list: each block appears as often as it
//! branches here; long lists and mismatches by sorting), unless the reader found these rules
//! kept at the body's end (`read_preds`); and, only for functions with a use
//! that is not trivially dominated (a use later in its definition's block, a use of a value
//! defined in the entry block, which dominates every reachable block, and a phi incoming value
//! defined in its incoming block need no tree), the function's CFG in buffers reused across
//! functions and a dominator tree (Semi-NCA, `converge_graph`). See `docs/benchmarks.md`.

use crate::diag::Diagnostic;
use crate::ir::Span;
use crate::ir::{FuncId, Function, InstId, Module, Opcode, Type, TypeId, Value};
use crate::parser::WrongType;
use converge_graph::Block;
use converge_graph::{DominatorTree, Graph};

pub(crate) mod read_preds;

/// A function's CFG in reusable buffers (see the module comment): successors in operand order,
/// predecessors with multiplicity.
#[derive(Default)]
struct FlatCfg {
    succ_start: Vec<u32>,
    succ: Vec<Block>,
    pred_start: Vec<u32>,
    pred: Vec<Block>,
    fill: Vec<u32>,
}

impl FlatCfg {
    fn build(&mut self, f: &Function) {
        let n = f.blocks.len();
        self.succ_start.clear();
        self.succ.clear();
        self.succ_start.push(0);
        for b in 0..n {
            self.succ.extend_from_slice(f.succs(Block(b as u32)));
            self.succ_start.push(self.succ.len() as u32);
        }
        self.pred_start.clear();
        self.pred_start.resize(n + 1, 0);
        for s in &self.succ {
            self.pred_start[s.index() + 1] += 1;
        }
        for i in 0..n {
            self.pred_start[i + 1] += self.pred_start[i];
        }
        self.fill.clear();
        self.fill.extend_from_slice(&self.pred_start[..n]);
        self.pred.clear();
        self.pred.resize(self.succ.len(), Block(0));
        for b in 0..n {
            let (lo, hi) = (self.succ_start[b] as usize, self.succ_start[b + 1] as usize);
            for s in &self.succ[lo..hi] {
                let slot = &mut self.fill[s.index()];
                self.pred[*slot as usize] = Block(b as u32);
                *slot += 1;
            }
        }
    }
}

impl Graph for FlatCfg {
    fn num_blocks(&self) -> usize {
        self.succ_start.len() - 1
    }
    fn entry(&self) -> Block {
        Block(0)
    }
    fn succs(&self, b: Block) -> &[Block] {
        &self.succ[self.succ_start[b.index()] as usize..self.succ_start[b.index() + 1] as usize]
    }
    fn preds(&self, b: Block) -> &[Block] {
        &self.pred[self.pred_start[b.index()] as usize..self.pred_start[b.index() + 1] as usize]
    }
}

/// The first violation in module order (function by function, instruction by instruction).
/// `wrong_types` are the operands the reader found written with another type than their
/// definition's (empty for a module not read from text); each is reported at its instruction,
/// after the checks of this module that look at the same instruction.
///
/// With `two_threads` (the module was large enough to be read on two threads) the functions are
/// split in two runs of about equal instruction counts, checked at the same time; the first run's
/// first violation, else the second's, is the sequential one, since each run reports in order.
/// On the two-thread read of a 38 MB module these checks were a fifth of the reader's time, all of
/// it after both threads had finished (issue 13).
///
/// `facts` are what the reader learnt about some functions while reading them ([`ReadFacts`]):
/// such a function's instructions are not scanned again (see [`scan_listed`]); the others, and
/// every function with an operand in `wrong_types`, are scanned as before.
pub(crate) fn check_module(
    m: &Module,
    wrong_types: &[WrongType],
    facts: &[ReadFacts],
    two_threads: bool,
) -> Result<(), Box<Diagnostic>> {
    let mut wrong = wrong_types.to_vec();
    // Stable: within an instruction, the order the reader found them in.
    wrong.sort_by_key(|w| (w.func, w.inst));
    let n = m.functions.len();
    // The reader's facts by function (`NO_FACTS`: none).
    let mut by_func = vec![NO_FACTS; if facts.is_empty() { 0 } else { n }];
    for (k, r) in facts.iter().enumerate() {
        if let Some(slot) = by_func.get_mut(r.func as usize) {
            *slot = k as u32;
        }
    }
    let run = |funcs: std::ops::Range<usize>| check_functions(m, &wrong, facts, &by_func, funcs);
    let mid = if two_threads { split_point(m) } else { n };
    if mid == 0 || mid == n {
        return run(0..n);
    }
    let (first, second) = std::thread::scope(|s| {
        let second = std::thread::Builder::new()
            .stack_size(CHECK_STACK)
            .spawn_scoped(s, || run(mid..n));
        let first = run(0..mid);
        (first, second.map(|h| h.join()))
    });
    first?;
    match second {
        Ok(Ok(r)) => r,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        // No second thread to be had: check the rest here.
        Err(_) => run(mid..n),
    }
}

/// `check_module`'s index of a function without [`ReadFacts`].
const NO_FACTS: u32 = u32::MAX;

/// What the reader learnt about a function's instructions as it pushed them, so that
/// [`check_module`] need not scan them again: the same [`Facts`] [`scan`] finds, except that
/// the type checks are left to the instructions in `unchecked`. The reader's whole-line fast
/// paths (`br`, `icmp`, `store`, `load`, `getelementptr`, `phi`, binary operators, casts) write
/// every operand [`types_ok`] looks at with the type it asks for (a compare's two operands with
/// one type, a `store`'s pointer as a `ptr`, ...), and note any local operand whose definition has
/// another type as a [`WrongType`]: such a line passes [`types_ok`] unless the function has a
/// wrong type (then it is scanned as before) or an operand that names a block (then the reader
/// gives no facts). Every other line (`select`, whose condition and values may be written with
/// any type, calls, everything the token path reads) is in `unchecked`.
///
/// `far` may hold instructions whose uses [`scan`] would find dominated without a tree, and
/// `has_phi` and `phi_misplaced` may be `true` where [`scan`] would find `false` (the reader
/// cannot place a forward reference, nor a phi's incoming block not read yet): the checks they
/// enable then find nothing more, at the cost of the work they do.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReadFacts {
    /// The function.
    pub(crate) func: u32,
    /// The instructions with a use that may need the dominator tree (see [`Facts::needs_dt`]),
    /// in order: the dominance check looks at these only (the others' uses are dominated).
    pub(crate) far: Vec<u32>,
    /// The function may have a phi.
    pub(crate) has_phi: bool,
    /// Some phi may come after a non-phi of its block.
    pub(crate) phi_misplaced: bool,
    /// The instructions the reader did not vouch for, in order; empty when they all passed
    /// [`types_ok`] at the body's end ([`listed_types_ok`]).
    pub(crate) unchecked: Vec<u32>,
    /// The reader found the rules of [`preds_and_phis_ok`] kept, at the body's end (with
    /// `has_phi` and `phi_misplaced` as above): the checks skip them.
    pub(crate) preds_ok: bool,
}

/// Stack of the second checking thread: the checks are iterative, this is a margin.
const CHECK_STACK: usize = 16 << 20;

/// The first function of the second run: where the defined functions' instructions before it
/// reach half of all (`functions.len()` when there is nothing to split).
fn split_point(m: &Module) -> usize {
    let total: usize = m.functions.iter().map(|f| f.insts.len()).sum();
    let mut seen = 0;
    for (k, f) in m.functions.iter().enumerate() {
        if 2 * seen >= total {
            return k;
        }
        seen += f.insts.len();
    }
    m.functions.len()
}

/// [`check_module`] on the functions `funcs` (`wrong` sorted by function), in order.
fn check_functions(
    m: &Module,
    wrong: &[WrongType],
    facts: &[ReadFacts],
    by_func: &[u32],
    funcs: std::ops::Range<usize>,
) -> Result<(), Box<Diagnostic>> {
    let mut scratch = Scratch::default();
    let mut rest = &wrong[wrong.partition_point(|w| (w.func as usize) < funcs.start)..];
    for k in funcs {
        let n = rest.partition_point(|w| w.func <= k as u32);
        let (here, later) = rest.split_at(n);
        rest = later;
        let f = &m.functions[k];
        if !f.is_declaration {
            let read = by_func
                .get(k)
                .and_then(|&i| facts.get(i as usize))
                .filter(|_| here.is_empty());
            check_function(m, FuncId(k as u32), f, here, read, &mut scratch)?;
        }
    }
    Ok(())
}

/// Buffers reused across functions (the dominator tree keeps its arrays between computations).
#[derive(Default)]
pub(crate) struct Scratch {
    /// Per block, its predecessor edges (with multiplicity), then the blocks its first two come
    /// from (in the order of the terminators), `u32::MAX` past its edges: a phi with one or two
    /// incoming entries is compared with them directly. One record a block: the count and the
    /// blocks are written together.
    preds: Vec<[u32; 3]>,
    /// Successors per block, as ranges of the function's block references: filled by
    /// [`Scratch::fill_succ`] for the first phi that is not compared directly (`succ_filled`).
    succ: Vec<crate::ir::Range32>,
    succ_filled: bool,
    /// Per block, how often it appears in the incoming list being checked, valid where
    /// `count_stamp` holds the current `stamp`.
    count: Vec<u32>,
    count_stamp: Vec<u32>,
    stamp: u32,
    /// The sorted successor lists of the wide blocks a phi asked about ([`Scratch::edges`]), one
    /// after the other; `wide_at[q]` is where block `q`'s starts, or [`NOT_SORTED`].
    wide: Vec<u32>,
    wide_at: Vec<u32>,
    sorted_preds: Vec<u32>,
    incoming: Vec<u32>,
    cfg: FlatCfg,
    /// [`read_preds::quick_ok`]'s buffers.
    quick: read_preds::Scratch,
    /// `cfg` holds the current function's CFG.
    cfg_built: bool,
    dt: DominatorTree,
}

/// Tests only: phis of one or two entries compared by counting, as longer ones, instead of with
/// `Scratch::first_preds` (the reference the direct comparison is tested against).
#[cfg(test)]
pub(crate) static NO_FIRST_PREDS: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

#[inline(always)]
fn no_first_preds() -> bool {
    #[cfg(test)]
    {
        NO_FIRST_PREDS.load(std::sync::atomic::Ordering::Relaxed)
    }
    #[cfg(not(test))]
    {
        false
    }
}

/// Tests only: the reader's [`ReadFacts::preds_ok`] ignored, the predecessor and phi rules
/// checked after the read (the reference the reader's check is tested against).
#[cfg(test)]
pub(crate) static NO_READ_PREDS: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

#[inline(always)]
fn no_read_preds() -> bool {
    #[cfg(test)]
    {
        NO_READ_PREDS.load(std::sync::atomic::Ordering::Relaxed)
    }
    #[cfg(not(test))]
    {
        false
    }
}

/// `Scratch::wide_at` of a block whose successors are not sorted (yet).
const NOT_SORTED: u32 = u32::MAX;

/// Phis with at most this many incoming entries are compared with their block's predecessors
/// by counting in the list itself ([`Scratch::incoming_are_preds`]); longer ones with counters per block
/// ([`Scratch::long_incoming_are_preds`]).
const SMALL_PHI: usize = 8;

/// The successors of block `b` (its terminator's block references, as [`Function::succs`]), as a
/// range of [`Function::block_refs`].
#[inline]
fn succ_range(f: &Function, b: usize) -> crate::ir::Range32 {
    let end = match f.blocks.get(b + 1) {
        Some(n) => n.first,
        None => f.insts.len() as u32,
    };
    if end == f.blocks[b].first || !f.insts[end as usize - 1].op.is_terminator() {
        return crate::ir::Range32::default();
    }
    f.inst_block_range(InstId(end - 1))
}

/// Blocks with more successors than this (switches) have their successor list sorted once per
/// function when a phi asks how often they branch to its block ([`Scratch::edges`]).
const WIDE: usize = 16;

impl Scratch {
    /// Fills `succ` (and clears the wide blocks' sorted lists) for `f`, once per function.
    #[cold]
    #[inline(never)]
    fn fill_succ(&mut self, f: &Function) {
        if self.succ_filled {
            return;
        }
        self.succ_filled = true;
        let n = f.blocks.len();
        self.succ.clear();
        self.succ.extend((0..n).map(|b| succ_range(f, b)));
        self.wide.clear();
        self.wide_at.clear();
        self.wide_at.resize(n, NOT_SORTED);
    }

    /// How many of `q`'s successor edges go to `b` (`succ` must be the function's). A wide block
    /// is counted by binary search in its sorted list: a switch with thousands of targets, each
    /// with a phi, made counting by scan quadratic (64,000 targets: 1.9 s of reading).
    #[inline(always)]
    fn edges(&mut self, f: &Function, q: usize, b: Block) -> usize {
        let r = self.succ[q];
        let refs = &f.block_refs[r.start as usize..r.end as usize];
        if refs.len() <= WIDE {
            // A plain loop: one or two successors, usually (an iterator's count is unrolled and
            // vectorised for lengths that never occur).
            let mut c = 0;
            let mut j = 0;
            while j < refs.len() {
                c += (refs[j] == b) as usize;
                j += 1;
            }
            return c;
        }
        self.wide_edges(refs, q, b)
    }

    /// [`Scratch::edges`] of a wide block: its successors sorted once, then counted by binary
    /// search.
    #[inline(never)]
    fn wide_edges(&mut self, refs: &[Block], q: usize, b: Block) -> usize {
        let start = match self.wide_at[q] {
            NOT_SORTED => {
                let start = self.wide.len();
                self.wide.extend(refs.iter().map(|s| s.0));
                self.wide[start..].sort_unstable();
                self.wide_at[q] = start as u32;
                start
            }
            at => at as usize,
        };
        let sorted = &self.wide[start..start + refs.len()];
        sorted.partition_point(|&x| x <= b.0) - sorted.partition_point(|&x| x < b.0)
    }

    /// Whether the multiset `incoming` (a phi's incoming blocks, as many as `b` has predecessor
    /// edges) is the multiset of `b`'s predecessor edges: each block appears in it as often as it
    /// branches to `b`. Then the counts of the blocks in `incoming` add up to its length, which is
    /// the number of edges into `b`, so no other block branches to `b` either. Quadratic in the
    /// length: only for short lists (most phis have two entries).
    #[inline]
    fn incoming_are_preds(&mut self, f: &Function, b: Block, incoming: &[Block]) -> bool {
        for &q in incoming {
            if q.index() >= self.succ.len() {
                return false;
            }
            // Plain loops over a list of two, usually (see `edges`).
            let mut here = 0;
            let mut x = 0;
            while x < incoming.len() {
                here += (incoming[x] == q) as usize;
                x += 1;
            }
            if here != self.edges(f, q.index(), b) {
                return false;
            }
        }
        true
    }

    /// [`Scratch::incoming_are_preds`] for a long list: each block's occurrences counted once in
    /// `count`, then compared with its edges to `b` (each distinct block's successors scanned
    /// once). `succ` must be the function's.
    fn long_incoming_are_preds(&mut self, f: &Function, b: Block, incoming: &[Block]) -> bool {
        let n = f.blocks.len();
        if self.count.len() < n {
            self.count.resize(n, 0);
            self.count_stamp.resize(n, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.count_stamp.fill(0);
            self.stamp = 1;
        }
        for &q in incoming {
            let q = q.index();
            if q >= n {
                return false;
            }
            if self.count_stamp[q] != self.stamp {
                self.count_stamp[q] = self.stamp;
                self.count[q] = 0;
            }
            self.count[q] += 1;
        }
        for &q in incoming {
            let q = q.index();
            let here = self.count[q];
            if here == 0 {
                // Compared already.
                continue;
            }
            if self.edges(f, q, b) != here as usize {
                return false;
            }
            self.count[q] = 0;
        }
        true
    }
}

fn err(span: Span, code: &str, msg: String, llvm: &str) -> Box<Diagnostic> {
    Box::new(
        Diagnostic::error(msg, span)
            .with_code(code)
            .with_note(format!("LLVM's verifier rejects this module (\"{llvm}\")")),
    )
}

fn is_bool(m: &Module, t: TypeId) -> bool {
    match &m.types.types[t.0 as usize] {
        Type::Int(1) => true,
        Type::Vector { elem, .. } => matches!(m.types.types[elem.0 as usize], Type::Int(1)),
        _ => false,
    }
}

fn is_pointer(m: &Module, t: TypeId) -> bool {
    match &m.types.types[t.0 as usize] {
        Type::Ptr(_) => true,
        Type::Vector { elem, .. } => matches!(m.types.types[elem.0 as usize], Type::Ptr(_)),
        _ => false,
    }
}

fn check_function(
    m: &Module,
    fid: FuncId,
    f: &Function,
    wrong: &[WrongType],
    read: Option<&ReadFacts>,
    sc: &mut Scratch,
) -> Result<(), Box<Diagnostic>> {
    let Facts {
        needs_dt,
        has_phi,
        phi_misplaced,
        type_error,
    } = match read {
        Some(r) => scan_listed(m, fid, f, r),
        None => scan(m, fid, f),
    };

    // Operands the reader found written with another type than their definition's, where they
    // come before the first failed check (at the same instruction, the check's message).
    if let Some(w) = wrong.first()
        && type_error.as_ref().is_none_or(|(k, _)| w.inst < *k)
    {
        return Err(written_as(
            m,
            fid,
            &f.insts[w.inst as usize],
            f.inst_span(InstId(w.inst)),
            w,
        ));
    }
    if let Some((_, e)) = type_error {
        return Err(e);
    }

    // Phis first in their block, and one incoming per predecessor edge: unless the reader
    // found both rules kept while the function was still in cache (`ReadFacts::preds_ok`).
    sc.cfg_built = false;
    if !read.is_some_and(|r| r.preds_ok && !no_read_preds())
        && let Some(fault) = preds_and_phis(f, has_phi, phi_misplaced, sc)
    {
        return Err(match fault {
            PredsFault::Entry => err(
                f.block_span(Block(0)),
                "E-entry-preds",
                format!(
                    "the entry block %{} of @{} is a branch target",
                    m.block_name(fid, Block(0)),
                    m.str(f.name)
                ),
                "Entry block to function must not have predecessors!",
            ),
            PredsFault::PhiPosition(k) => err(
                f.inst_span(InstId(k)),
                "E-phi-position",
                "a phi after a non-phi instruction of its block".to_string(),
                "PHI nodes not grouped at top of basic block!",
            ),
            PredsFault::PhiPreds(b, k) => phi_mismatch(m, fid, f, sc, b as usize, k as usize),
        });
    }

    if !needs_dt {
        return Ok(());
    }
    if !sc.cfg_built {
        sc.cfg.build(f);
    }
    let cfg = &sc.cfg;
    sc.dt.compute(cfg);
    let dt = &sc.dt;
    let dominated = |k: usize| match undominated_use(f, cfg, dt, k) {
        Some(d) => Err(not_dominated(m, fid, f, d, InstId(k as u32))),
        None => Ok(()),
    };
    match read {
        // The reader's list of the instructions with a use that may need the tree: the others'
        // uses are dominated (see `ReadFacts`).
        Some(r) => {
            for &k in &r.far {
                dominated(k as usize)?;
            }
        }
        None => {
            for k in 0..f.insts.len() {
                dominated(k)?;
            }
        }
    }
    Ok(())
}

/// Whether every use by the instructions `far` of `f` is dominated by its definition (see the
/// module comment), by `f`'s CFG and dominator tree in `sc`'s buffers. The reader asks this at a
/// body's end, once the function's other checks passed there, while its records are in cache;
/// then the checks after the read need no tree for `f` ([`ReadFacts::far`] emptied).
pub(crate) fn far_uses_dominated(f: &Function, far: &[u32], sc: &mut Scratch) -> bool {
    sc.cfg.build(f);
    sc.cfg_built = true;
    sc.dt.compute(&sc.cfg);
    far.iter()
        .all(|&k| undominated_use(f, &sc.cfg, &sc.dt, k as usize).is_none())
}

/// The first violation of the rules [`preds_and_phis`] checks, in the order [`check_function`]
/// reports them.
enum PredsFault {
    /// The entry block is a branch target.
    Entry,
    /// This phi comes after a non-phi of its block.
    PhiPosition(u32),
    /// The incoming blocks of phi `.1` (of block `.0`) are not its block's predecessor edges.
    PhiPreds(u32, u32),
}

/// Whether `f` keeps the rules that depend on its predecessor edges: the entry block is no branch
/// target, phis come first in their block (looked at only if `phi_misplaced`) and each phi has
/// one incoming entry per predecessor edge (looked at only if `has_phi`). `true` if so; the
/// reader asks this at a body's end, with where its terminators' and phis' block references lie
/// (`shape`), and [`check_module`] then skips these rules ([`ReadFacts::preds_ok`]). Most
/// functions are answered by [`read_preds::quick_ok`], the others by the checks' own pass.
pub(crate) fn preds_and_phis_ok(
    f: &Function,
    has_phi: bool,
    phi_misplaced: bool,
    shape: read_preds::Shape,
    sc: &mut Scratch,
) -> bool {
    if !phi_misplaced && read_preds::quick_ok(f, has_phi, shape, &mut sc.quick) {
        return true;
    }
    sc.cfg_built = false;
    preds_and_phis(f, has_phi, phi_misplaced, sc).is_none()
}

/// The checks of [`preds_and_phis_ok`]: the first violation, or `None`.
fn preds_and_phis(
    f: &Function,
    has_phi: bool,
    phi_misplaced: bool,
    sc: &mut Scratch,
) -> Option<PredsFault> {
    // Predecessor edges per block, counted from the terminators (with multiplicity: a switch
    // may reach a block twice): the entry rule and the phis' incoming counts need no more.
    let n = f.blocks.len();
    sc.preds.clear();
    sc.preds.resize(n, [0, u32::MAX, u32::MAX]);
    sc.succ_filled = false;
    let ni = f.insts.len();
    let mut first = f.blocks.first().map_or(0, |d| d.first as usize);
    for b in 0..n {
        // The block's instructions end where the next block's begin (`succ_range`).
        let end = f.blocks.get(b + 1).map_or(ni, |d| d.first as usize);
        let start = std::mem::replace(&mut first, end);
        if end == start || !f.insts[end - 1].op.is_terminator() {
            continue;
        }
        for s in &f.block_refs[f.inst_block_range(InstId(end as u32 - 1)).range()] {
            let e = &mut sc.preds[s.index()];
            let c = e[0];
            if c < 2 {
                e[1 + c as usize] = b as u32;
            }
            e[0] = c + 1;
        }
    }
    if sc.preds.first().is_some_and(|e| e[0] != 0) {
        return Some(PredsFault::Entry);
    }
    if has_phi {
        for b in 0..n {
            let r = f.block_range(Block(b as u32));
            let mut seen_other = false;
            for k in r.start as usize..r.end as usize {
                if f.insts[k].op != Opcode::Phi {
                    if !phi_misplaced {
                        // No phi after this one's block's first non-phi (see `scan`).
                        break;
                    }
                    seen_other = true;
                    continue;
                }
                if seen_other {
                    return Some(PredsFault::PhiPosition(k as u32));
                }
                let incoming = f.inst_blocks(InstId(k as u32));
                let [count, p, q] = sc.preds[b];
                if incoming.len() == count as usize
                    && if incoming.len() <= 2 && !no_first_preds() {
                        // One or two edges into `b`: the multisets compared directly.
                        match incoming {
                            [x] => x.0 == p,
                            [x, y] => (x.0 == p && y.0 == q) || (x.0 == q && y.0 == p),
                            _ => true,
                        }
                    } else {
                        sc.fill_succ(f);
                        if incoming.len() <= SMALL_PHI {
                            sc.incoming_are_preds(f, Block(b as u32), incoming)
                        } else {
                            sc.long_incoming_are_preds(f, Block(b as u32), incoming)
                        }
                    }
                {
                    continue;
                }
                if phi_multisets_differ(f, sc, b, k) {
                    return Some(PredsFault::PhiPreds(b as u32, k as u32));
                }
            }
        }
    }
    None
}

/// The dominance check of instruction `k`'s uses (see the module comment): the definition of
/// the first use that is not dominated, if any.
#[inline(always)]
fn undominated_use(f: &Function, cfg: &FlatCfg, dt: &DominatorTree, k: usize) -> Option<InstId> {
    let i = f.insts.get(k)?;
    let ops = f.operands(InstId(k as u32));
    let is_phi = i.op == Opcode::Phi;
    // Only a phi's incoming blocks are read (most instructions are no phi).
    let in_blocks: &[Block] = if is_phi {
        f.inst_blocks(InstId(k as u32))
    } else {
        &[]
    };
    for (n, &v) in ops.iter().enumerate() {
        let Value::Inst(d) = v else { continue };
        let di = &f.insts[d.0 as usize];
        // Where the use must be dominated: the end of the incoming block for a phi.
        let (at, same_block_ok) = if is_phi {
            match in_blocks.get(n) {
                Some(&b) => (b, true),
                None => continue,
            }
        } else {
            (i.block, false)
        };
        if !dt.is_reachable(at) {
            continue;
        }
        let ok = match di.op {
            Opcode::CallBr => true,
            Opcode::Invoke => {
                // Defined on the normal edge: the normal destination must be reached only
                // through it and dominate the use.
                let normal = f.inst_blocks(d).first().copied();
                match normal {
                    Some(nb) => {
                        let single = cfg.preds(nb).len() == 1
                            && f.succs(di.block).iter().filter(|&&s| s == nb).count() == 1;
                        !single || dt.dominates(nb, at)
                    }
                    None => true,
                }
            }
            _ => {
                if di.block == at {
                    same_block_ok || d.0 < k as u32
                } else {
                    dt.dominates(di.block, at)
                }
            }
        };
        if !ok {
            return Some(d);
        }
    }
    None
}

/// Whether the incoming blocks of phi `k` of block `b`, which the counting check rejected, differ
/// from `b`'s predecessor edges as sorted multisets (left sorted in `sc.incoming` and `sc.preds`
/// for [`phi_mismatch`]'s message in `sc.incoming` and `sc.sorted_preds`). Builds the CFG (`sc.cfg_built`). Out of line: the loop over
/// the phis stays small.
#[cold]
#[inline(never)]
fn phi_multisets_differ(f: &Function, sc: &mut Scratch, b: usize, k: usize) -> bool {
    if !sc.cfg_built {
        sc.cfg.build(f);
        sc.cfg_built = true;
    }
    let incoming = f.inst_blocks(InstId(k as u32));
    sc.sorted_preds.clear();
    sc.sorted_preds
        .extend(sc.cfg.preds(Block(b as u32)).iter().map(|p| p.0));
    sc.sorted_preds.sort_unstable();
    sc.incoming.clear();
    sc.incoming.extend(incoming.iter().map(|b| b.0));
    sc.incoming.sort_unstable();
    sc.incoming != sc.sorted_preds
}

/// The error of phi `k` of block `b`, whose incoming blocks [`phi_multisets_differ`] found
/// differ from the predecessor edges (the sorted lists it left in `sc`).
#[cold]
#[inline(never)]
fn phi_mismatch(
    m: &Module,
    fid: FuncId,
    f: &Function,
    sc: &Scratch,
    b: usize,
    k: usize,
) -> Box<Diagnostic> {
    let names = |v: &[u32]| -> String {
        let s: Vec<String> = v
            .iter()
            .map(|&x| format!("%{}", m.block_name(fid, Block(x))))
            .collect();
        if s.is_empty() {
            "none".to_string()
        } else {
            s.join(" ")
        }
    };
    err(
        f.inst_span(InstId(k as u32)),
        "E-phi-preds",
        format!(
            "the phi's incoming blocks ({}) are not the predecessors of %{} ({})",
            names(&sc.incoming),
            m.block_name(fid, Block(b as u32)),
            names(&sc.sorted_preds)
        ),
        "PHINode should have one entry for each predecessor of its parent basic block!",
    )
}

/// Whether a use by instruction `k` (`i`, operands `ops`) needs the dominator tree: a use the
/// dominance pass would accept without a tree (see the module comment) does not; anything else
/// (a use before its definition, possibly in unreachable code, uses of `invoke` results, other
/// blocks) does. `None` when a phi's incoming block is not known (a placeholder).
#[inline]
fn use_needs_tree(f: &Function, k: usize, i: &crate::ir::Inst, ops: &[Value]) -> Option<bool> {
    use Opcode as O;
    let mut needs = false;
    if i.op == O::Phi {
        // Where a phi's value must be available: the end of its incoming block.
        let in_blocks = f.inst_blocks(InstId(k as u32));
        for (&v, &at) in ops.iter().zip(in_blocks) {
            if let Value::Inst(d) = v {
                if at.0 == u32::MAX {
                    return None;
                }
                let di = &f.insts[d.0 as usize];
                needs |= match di.op {
                    O::CallBr => false,
                    O::Invoke => true,
                    _ => di.block != at && di.block != Block(0),
                };
            }
        }
    } else {
        for &v in ops {
            if let Value::Inst(d) = v {
                let di = &f.insts[d.0 as usize];
                needs |= match di.op {
                    O::CallBr => false,
                    O::Invoke => true,
                    _ if di.block == i.block => d.0 as usize >= k,
                    _ => di.block != Block(0),
                };
            }
        }
    }
    Some(needs)
}

/// What the pass over a function's instructions finds (see [`scan`]).
struct Facts {
    /// Some use is not trivially dominated (see the module comment): the dominator tree is needed.
    needs_dt: bool,
    /// The function has a phi.
    has_phi: bool,
    /// Some phi comes after a non-phi of its block.
    phi_misplaced: bool,
    /// The first instruction that fails a type check, and the message.
    type_error: Option<(u32, Box<Diagnostic>)>,
}

/// The one pass over every instruction of `f`: the type checks as booleans, and whether the
/// dominance check needs a tree. A small function of its own, so its loop keeps its state in
/// registers (the messages are built elsewhere, only for a failure).
#[inline(never)]
fn scan(m: &Module, fid: FuncId, f: &Function) -> Facts {
    use Opcode as O;
    let mut needs_dt = false;
    let mut has_phi = false;
    let mut phi_misplaced = false;
    // The previous instruction's block and whether it was a phi (blocks are contiguous: a phi
    // is misplaced iff the instruction before it is a non-phi of the same block).
    let mut prev = (Block(u32::MAX), true);
    for (k, i) in f.insts.iter().enumerate() {
        let id = InstId(k as u32);
        let ops = f.operands(id);
        if !types_ok(m, f, i, ops)
            && let Err(e) = type_check(m, fid, f, id)
        {
            return Facts {
                needs_dt,
                has_phi,
                phi_misplaced,
                type_error: Some((k as u32, e)),
            };
        }
        let is_phi = i.op == O::Phi;
        has_phi |= is_phi;
        phi_misplaced |= is_phi && prev.0 == i.block && !prev.1;
        prev = (i.block, is_phi);
        if needs_dt {
            continue;
        }
        needs_dt = use_needs_tree(f, k, i, ops).unwrap_or(true);
    }
    Facts {
        needs_dt,
        has_phi,
        phi_misplaced,
        type_error: None,
    }
}

/// [`scan`] of a function the reader vouched for ([`ReadFacts`]): the type checks of the
/// instructions it did not vouch for, in order; the other facts are the reader's.
fn scan_listed(m: &Module, fid: FuncId, f: &Function, r: &ReadFacts) -> Facts {
    let mut type_error = None;
    for &k in &r.unchecked {
        let id = InstId(k);
        let Some(i) = f.insts.get(k as usize) else {
            continue;
        };
        if !types_ok(m, f, i, f.operands(id))
            && let Err(e) = type_check(m, fid, f, id)
        {
            type_error = Some((k, e));
            break;
        }
    }
    Facts {
        needs_dt: !r.far.is_empty(),
        has_phi: r.has_phi,
        phi_misplaced: r.phi_misplaced,
        type_error,
    }
}

/// Whether the instructions `listed` of `f` pass [`types_ok`]. The reader asks this at a body's
/// end for the lines it did not vouch for ([`ReadFacts::unchecked`]), while their records are in
/// cache; if they all pass, the checks have nothing to type-check in `f` (the answer depends only
/// on `f`, the types and the constants, which the read of later functions does not change).
pub(crate) fn listed_types_ok(m: &Module, f: &Function, listed: &[u32]) -> bool {
    listed.iter().all(|&k| {
        f.insts
            .get(k as usize)
            .is_some_and(|i| types_ok(m, f, i, f.operands(InstId(k))))
    })
}

/// The opcodes whose every operand has the instruction's own type (unary and binary
/// arithmetic, `freeze`, `phi`): one list for `types_ok` and the full check.
fn operands_have_result_type(op: Opcode) -> bool {
    use Opcode as O;
    matches!(
        op,
        O::FNeg
            | O::Add
            | O::FAdd
            | O::Sub
            | O::FSub
            | O::Mul
            | O::FMul
            | O::UDiv
            | O::SDiv
            | O::FDiv
            | O::URem
            | O::SRem
            | O::FRem
            | O::Shl
            | O::LShr
            | O::AShr
            | O::And
            | O::Or
            | O::Xor
            | O::Freeze
            | O::Phi
    )
}

/// Whether instruction `i` (operands `ops`) passes the type checks of [`type_check`]: the same
/// conditions as booleans, without building messages, so the pass over every instruction stays
/// small. Must accept only what `type_check` accepts (it is asked again on a rejection).
#[inline]
fn types_ok(m: &Module, f: &Function, i: &crate::ir::Inst, ops: &[Value]) -> bool {
    use Opcode as O;
    let local = |v: Value| match v {
        Value::Arg(a) => f.params.get(a as usize).map(|p| p.ty),
        Value::Inst(d) => f.insts.get(d.0 as usize).map(|x| x.ty),
        _ => None,
    };
    let typed = |v: Value| match v {
        Value::Const(c) => m.consts.get(c.0 as usize).map(|c| c.ty),
        v => local(v),
    };
    let ok = |v: Value, want: TypeId| local(v).is_none_or(|t| t == want);
    match i.op {
        op if operands_have_result_type(op) => ops.iter().all(|&v| ok(v, i.ty)),
        O::Select if ops.len() == 3 => {
            local(ops[0]).is_none_or(|t| is_bool(m, t))
                && ops[1..].iter().all(|&v| typed(v).is_none_or(|t| t == i.ty))
        }
        // Different types, or a value `Module::value_type` does not answer from the function
        // and the constants: the full check decides.
        O::ICmp | O::FCmp if ops.len() == 2 => match (typed(ops[0]), typed(ops[1])) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        },
        O::Ret if ops.len() == 1 => typed(ops[0]).is_none_or(|t| t == f.ret_ty),
        O::Br if ops.len() == 1 => local(ops[0])
            .is_none_or(|t| matches!(m.types.types.get(t.0 as usize), Some(Type::Int(1)))),
        O::Switch if ops.len() > 1 => match (typed(ops[0]), typed(ops[1])) {
            (Some(want), Some(t1)) => {
                want == t1 && ops[1..].iter().all(|&v| typed(v).is_none_or(|t| t == want))
            }
            _ => false,
        },
        O::Load | O::GetElementPtr if !ops.is_empty() => {
            local(ops[0]).is_none_or(|t| is_pointer(m, t))
        }
        O::Store if ops.len() == 2 => local(ops[1]).is_none_or(|t| is_pointer(m, t)),
        O::Call | O::Invoke | O::CallBr => {
            if let Some(call) = f.calls.get(i.aux as usize)
                && let Some(Type::Func { params, .. }) = m.types.types.get(call.fn_ty.0 as usize)
            {
                let params = &m.types.lists[params.range()];
                ops.iter().zip(params).all(|(&v, &want)| ok(v, want))
            } else {
                true
            }
        }
        _ => true,
    }
}

/// The type checks of instruction `id` (see the module comment), with the message of the first
/// failure. Called only for an instruction [`types_ok`] rejects.
#[cold]
#[inline(never)]
fn type_check(m: &Module, fid: FuncId, f: &Function, id: InstId) -> Result<(), Box<Diagnostic>> {
    let i = &f.insts[id.0 as usize];
    let ops = f.operands(id);
    let local = |v: Value| f.local_type(v);
    // A constant's type is the one written before it: where the instruction fixes the type
    // (`ret`, `select`, switch cases), another one is LLVM's "does not match" error.
    let typed = |v: Value| match v {
        Value::Const(c) => Some(m.consts[c.0 as usize].ty),
        v => local(v),
    };
    let const_mismatch = |i: &crate::ir::Inst, id: InstId, v: Value, want: TypeId, llvm: &str| {
        err(
            f.inst_span(id),
            "E-type",
            format!(
                "{} has type {} but this `{}` expects {}",
                m.value_name(fid, v),
                m.type_text(typed(v).unwrap_or(want)),
                opcode_word(m, fid, i),
                m.type_text(want)
            ),
            llvm,
        )
    };
    // A local of the wrong type: LLVM's "defined with type" error.
    let mismatch = |i: &crate::ir::Inst, id: InstId, v: Value, want: TypeId| -> Box<Diagnostic> {
        let llvm = format!(
            "'{}' defined with type '{}' but expected '{}'",
            m.value_name(fid, v),
            m.type_text(local(v).unwrap_or(want)),
            m.type_text(want)
        );
        const_mismatch(i, id, v, want, &llvm)
    };
    // `Module::value_type` for the operands of an instruction, locals and constants inline.
    let vty = |v: Value| match v {
        Value::Arg(_) | Value::Inst(_) => local(v).unwrap_or(TypeId(0)),
        Value::Const(c) => m.consts[c.0 as usize].ty,
        v => m.value_type(fid, v),
    };
    let expect = |v: Value, want: TypeId| -> Result<(), Box<Diagnostic>> {
        match local(v) {
            Some(t) if t != want => Err(mismatch(i, id, v, want)),
            _ => Ok(()),
        }
    };
    use Opcode as O;
    // The type checks of this instruction; the first failure ends the loop (the reader's
    // wrong-type notes before it are reported first, below).
    {
        match i.op {
            op if operands_have_result_type(op) => {
                for &v in ops {
                    expect(v, i.ty)?;
                }
            }
            O::Select if ops.len() == 3 => {
                if let Some(t) = local(ops[0])
                    && !is_bool(m, t)
                {
                    return Err(err(
                        f.inst_span(id),
                        "E-type",
                        format!(
                            "the condition {} of `select` has type {}, not i1",
                            m.value_name(fid, ops[0]),
                            m.type_text(t)
                        ),
                        "select condition must be i1 or <n x i1>",
                    ));
                }
                expect(ops[1], i.ty)?;
                expect(ops[2], i.ty)?;
                for &v in &ops[1..] {
                    if typed(v).is_some_and(|t| t != i.ty) {
                        return Err(const_mismatch(
                            i,
                            id,
                            v,
                            i.ty,
                            "Select values must have same type as select instruction!",
                        ));
                    }
                }
            }
            O::ICmp | O::FCmp if ops.len() == 2 => {
                let t0 = vty(ops[0]);
                let t1 = vty(ops[1]);
                if t0 != t1 {
                    let (v, want) = if local(ops[1]).is_some() {
                        (ops[1], t0)
                    } else {
                        (ops[0], t1)
                    };
                    return Err(mismatch(i, id, v, want));
                }
            }
            O::Ret if ops.len() == 1 => {
                expect(ops[0], f.ret_ty)?;
                if typed(ops[0]).is_some_and(|t| t != f.ret_ty) {
                    return Err(const_mismatch(
                        i,
                        id,
                        ops[0],
                        f.ret_ty,
                        "Function return type does not match operand type of return inst!",
                    ));
                }
            }
            O::Br if ops.len() == 1 => {
                if let Some(t) = local(ops[0])
                    && !matches!(m.types.types[t.0 as usize], Type::Int(1))
                {
                    return Err(err(
                        f.inst_span(id),
                        "E-type",
                        format!(
                            "the condition {} of `br` has type {}, not i1",
                            m.value_name(fid, ops[0]),
                            m.type_text(t)
                        ),
                        "Branch condition is not 'i1' type!",
                    ));
                }
            }
            O::Switch if ops.len() > 1 => {
                expect(ops[0], vty(ops[1]))?;
                let want = vty(ops[0]);
                for &v in &ops[1..] {
                    if typed(v).is_some_and(|t| t != want) {
                        return Err(const_mismatch(
                            i,
                            id,
                            v,
                            want,
                            "Switch constants must all be same type as switch value!",
                        ));
                    }
                }
            }
            O::Load | O::GetElementPtr if !ops.is_empty() => {
                pointer(m, fid, f, id, ops[0], &local)?
            }
            O::Store if ops.len() == 2 => pointer(m, fid, f, id, ops[1], &local)?,
            O::Call | O::Invoke | O::CallBr => {
                if let Some(call) = f.calls.get(i.aux as usize)
                    && let Type::Func { params, .. } = &m.types.types[call.fn_ty.0 as usize]
                {
                    let params = &m.types.lists[params.range()];
                    for (&v, &want) in ops.iter().zip(params) {
                        expect(v, want)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

fn pointer(
    m: &Module,
    fid: FuncId,
    f: &Function,
    id: InstId,
    v: Value,
    local: &dyn Fn(Value) -> Option<TypeId>,
) -> Result<(), Box<Diagnostic>> {
    let i = &f.insts[id.0 as usize];
    match local(v) {
        Some(t) if !is_pointer(m, t) => Err(err(
            f.inst_span(id),
            "E-type",
            format!(
                "{} has type {} but this `{}` expects a pointer",
                m.value_name(fid, v),
                m.type_text(t),
                opcode_word(m, fid, i)
            ),
            &format!(
                "'{}' defined with type '{}' but expected 'ptr'",
                m.value_name(fid, v),
                m.type_text(t)
            ),
        )),
        _ => Ok(()),
    }
}

fn not_dominated(
    m: &Module,
    fid: FuncId,
    f: &Function,
    d: InstId,
    user: InstId,
) -> Box<Diagnostic> {
    let def = &f.insts[d.0 as usize];
    let name = m.value_name(fid, Value::Inst(d));
    let (msg, llvm) = if d == user {
        (
            format!("{name} uses its own value, and it is not a phi"),
            "Only PHI nodes may reference their own value!",
        )
    } else {
        (
            format!(
                "{name} is used where its definition in %{} does not dominate the use",
                m.block_name(fid, def.block)
            ),
            "Instruction does not dominate all uses!",
        )
    };
    let mut e = Diagnostic::error(msg, f.inst_span(user))
        .with_code("E-dominance")
        .with_note(format!("LLVM's verifier rejects this module (\"{llvm}\")"));
    if d != user {
        e = e.with_label(f.inst_span(d), "defined here");
    }
    Box::new(e)
}

/// `w.value` written as a `w.written` in `i`, while its definition has another type.
fn written_as(
    m: &Module,
    fid: FuncId,
    i: &crate::ir::Inst,
    span: Span,
    w: &WrongType,
) -> Box<Diagnostic> {
    let name = m.value_name(fid, w.value);
    let actual = m.type_text(m.value_type(fid, w.value));
    let written = m.type_text(w.written);
    err(
        span,
        "E-type",
        format!(
            "{name} has type {actual} but is written as {written} in this `{}`",
            opcode_word(m, fid, i)
        ),
        &format!("'{name}' defined with type '{actual}' but expected '{written}'"),
    )
}

/// The instruction's opcode as written (`add`, `icmp`, …), for messages.
fn opcode_word(m: &Module, fid: FuncId, i: &crate::ir::Inst) -> String {
    let _ = (m, fid);
    format!("{:?}", i.op).to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    fn verdict(src: &str) -> Result<(), String> {
        crate::parse("t.ll", src.to_string())
            .map(|_| ())
            .map_err(|d| d.code.unwrap_or_default())
    }

    /// The two-thread check reports the sequential check's first violation wherever the
    /// violations are: none, only in the first run of functions, only in the second, in both, in
    /// the functions next to the split, and with a wrongly typed operand (reported from the
    /// reader's list) in either run.
    #[test]
    fn two_threads_report_the_sequential_first_violation() {
        let ok = "define i32 @fK(i32 %a) {\nb0:\n  %x = add i32 %a, 1\n  ret i32 %x\n}\n";
        let dom = "define i32 @fK(i32 %a) {\nb0:\n  %y = add i32 %x, 1\n  %x = add i32 %a, 1\n  ret i32 %y\n}\n";
        let ty = "define i32 @fK(i32 %a) {\nb0:\n  %x = add i64 %a, 1\n  ret i32 0\n}\n";
        let n = 40;
        let module = |bad: &[(usize, &str)]| {
            (0..n)
                .map(|k| {
                    let body = bad.iter().find(|b| b.0 == k).map_or(ok, |b| b.1);
                    body.replace("fK", &format!("f{k}"))
                })
                .collect::<String>()
        };
        let cases: Vec<Vec<(usize, &str)>> = vec![
            vec![],
            vec![(3, dom)],
            vec![(30, dom)],
            vec![(19, dom)],
            vec![(20, dom)],
            vec![(21, ty)],
            vec![(5, ty), (35, dom)],
            vec![(35, ty), (36, dom)],
            vec![(0, dom), (39, ty)],
        ];
        let mut failures = 0;
        for bad in cases {
            let text = module(&bad);
            let (m, wrong) = crate::parser::Parser::new("t.ll", &text)
                .parse_module()
                .unwrap();
            let seq =
                super::check_module(&m, &wrong, &[], false).map_err(|d| d.render("t.ll", &text));
            let par =
                super::check_module(&m, &wrong, &[], true).map_err(|d| d.render("t.ll", &text));
            assert_eq!(
                seq,
                par,
                "violations at {:?}",
                bad.iter().map(|b| b.0).collect::<Vec<_>>()
            );
            assert_eq!(seq.is_err(), !bad.is_empty());
            failures += usize::from(seq.is_err());
        }
        assert_eq!(failures, 8);
        // The split is inside the module: both threads have functions to check.
        let text = module(&[]);
        let (m, _) = crate::parser::Parser::new("t.ll", &text)
            .parse_module()
            .unwrap();
        assert_eq!(super::split_point(&m), n / 2);
    }

    /// The entry rule on both paths of the check: a function without phis or dominance questions
    /// (no CFG is built) and one with a phi (the CFG is built). LLVM: "Entry block to function
    /// must not have predecessors!".
    #[test]
    fn entry_block_branch_target_is_rejected_with_and_without_a_cfg() {
        let plain =
            "define void @f(i1 %c) {\nb0:\n  br i1 %c, label %b0, label %x\nx:\n  ret void\n}\n";
        assert_eq!(verdict(plain), Err("E-entry-preds".to_string()));
        let phi = "define i32 @f(i1 %c) {\nb0:\n  br i1 %c, label %b0, label %x\nx:\n  %p = phi i32 [ 0, %b0 ]\n  ret i32 %p\n}\n";
        assert_eq!(verdict(phi), Err("E-entry-preds".to_string()));
    }

    /// The phi rule's two ways of comparing incoming blocks with predecessor edges (counting
    /// for short lists, sorting for long ones): edge multiplicity (a switch reaching a block
    /// twice), a repeated incoming block standing for another predecessor, and lists longer than
    /// `SMALL_PHI`, accepted and rejected. LLVM: "PHINode should have one entry for each
    /// predecessor of its parent basic block!".
    #[test]
    fn phi_incoming_multisets_short_and_long() {
        let sw = |entries: &str| {
            format!(
                "define i32 @f(i32 %a) {{\nentry:\n  br label %s\ns:\n  switch i32 %a, label %j [\n    i32 0, label %j\n    i32 1, label %t\n  ]\nt:\n  br label %j\nj:\n  %p = phi i32 {entries}\n  ret i32 %p\n}}\n"
            )
        };
        assert_eq!(verdict(&sw("[ 0, %s ], [ 0, %s ], [ 1, %t ]")), Ok(()));
        assert_eq!(
            verdict(&sw("[ 0, %s ], [ 1, %t ], [ 1, %t ]")),
            Err("E-phi-preds".to_string())
        );
        assert_eq!(
            verdict(&sw("[ 0, %s ], [ 1, %t ]")),
            Err("E-phi-preds".to_string())
        );
        assert_eq!(
            verdict(&sw("[ 0, %t ], [ 0, %t ], [ 1, %s ]")),
            Err("E-phi-preds".to_string())
        );
        // Ten predecessors (a switch with ten cases to the same block).
        let long = |n: usize, extra: &str| {
            let cases: String = (0..n).map(|k| format!("    i32 {k}, label %j\n")).collect();
            let entries: Vec<String> = (0..=n).map(|_| "[ 0, %s ]".to_string()).collect();
            format!(
                "define i32 @f(i32 %a) {{\nentry:\n  br label %s\ns:\n  switch i32 %a, label %j [\n{cases}  ]\nj:\n  %p = phi i32 {}{extra}\n  ret i32 %p\n}}\n",
                entries.join(", ")
            )
        };
        assert_eq!(verdict(&long(10, "")), Ok(()));
        assert_eq!(
            verdict(&long(10, ", [ 0, %s ]")),
            Err("E-phi-preds".to_string())
        );
        assert_eq!(
            verdict(&long(10, ", [ 0, %entry ]")),
            Err("E-phi-preds".to_string())
        );
    }

    /// A switch wider than `WIDE` whose targets all have a phi: its edge counts come from its
    /// sorted successor list (a binary search per phi), and equal a scan's. One target is reached
    /// twice and must be listed twice; listing it once, or another target twice, is rejected.
    #[test]
    fn phis_after_a_wide_switch_count_its_edges() {
        let n = 3 * super::WIDE;
        let src = |three: &str, five: &str| {
            let mut cases: String = (1..n)
                .map(|k| format!("    i32 {k}, label %t{k}\n"))
                .collect();
            cases.push_str(&format!("    i32 {n}, label %t3\n"));
            let mut text = format!(
                "define i32 @f(i32 %a) {{\nentry:\n  br label %s\ns:\n  switch i32 %a, label %t0 [\n{cases}  ]\n"
            );
            for k in 0..n {
                let entries = match k {
                    3 => three.to_string(),
                    5 => five.to_string(),
                    _ => format!("[ {k}, %s ]"),
                };
                text.push_str(&format!(
                    "t{k}:\n  %p{k} = phi i32 {entries}\n  ret i32 %p{k}\n"
                ));
            }
            text + "}\n"
        };
        assert_eq!(verdict(&src("[ 3, %s ], [ 3, %s ]", "[ 5, %s ]")), Ok(()));
        // The counts themselves (a wrong count only sends the verdict to the slow comparison,
        // so the verdicts alone would not show it): every block pair against a scan.
        let m = crate::parse("t.ll", src("[ 3, %s ], [ 3, %s ]", "[ 5, %s ]")).expect("valid");
        let f = &m.functions[0];
        let nb = f.blocks.len();
        let mut sc = super::Scratch {
            succ: (0..nb).map(|b| super::succ_range(f, b)).collect(),
            wide_at: vec![super::NOT_SORTED; nb],
            ..Default::default()
        };
        for q in 0..nb {
            for b in (0..nb as u32).map(super::Block) {
                let scan = f.block_refs[sc.succ[q].range()]
                    .iter()
                    .filter(|&&x| x == b)
                    .count();
                assert_eq!(sc.edges(f, q, b), scan, "block {q} to {b:?}");
            }
        }
        assert!(
            sc.wide_at[1] != super::NOT_SORTED,
            "the switch's list was sorted"
        );
        assert_eq!(
            verdict(&src("[ 3, %s ]", "[ 5, %s ]")),
            Err("E-phi-preds".to_string())
        );
        assert_eq!(
            verdict(&src("[ 3, %s ], [ 3, %s ]", "[ 5, %s ], [ 5, %s ]")),
            Err("E-phi-preds".to_string())
        );
        assert_eq!(
            verdict(&src("[ 3, %s ], [ 3, %entry ]", "[ 5, %s ]")),
            Err("E-phi-preds".to_string())
        );
    }

    /// A phi after a non-phi of its block and a phi whose incomings are wrong, in either order:
    /// the first in block order is reported, whichever rule it breaks.
    #[test]
    fn phi_position_and_incoming_errors_in_block_order() {
        let src = |first: &str, second: &str| {
            format!(
                "define i32 @f(i1 %c) {{\nentry:\n  br i1 %c, label %a, label %b\na:\n{first}  br label %b\nb:\n{second}  ret i32 0\n}}\n"
            )
        };
        let misplaced = "  %x = add i32 0, 1\n  %p = phi i32 [ 0, %entry ]\n";
        let bad_preds = "  %q = phi i32 [ 0, %entry ]\n";
        assert_eq!(
            verdict(&src(misplaced, bad_preds)),
            Err("E-phi-position".to_string())
        );
        let misplaced_b = "  %x = add i32 0, 1\n  %q = phi i32 [ 0, %entry ], [ 0, %a ]\n";
        let bad_preds_a = "  %p = phi i32 [ 0, %a ]\n";
        assert_eq!(
            verdict(&src(bad_preds_a, misplaced_b)),
            Err("E-phi-preds".to_string())
        );
    }

    /// Uses the check accepts without a dominator tree (a value of the entry block used later, a
    /// phi incoming defined in its incoming block) and one that needs the tree and fails it (a
    /// value of one arm of a diamond used at the join). LLVM: "Instruction does not dominate all
    /// uses!".
    #[test]
    fn trivially_dominated_uses_and_a_real_violation() {
        let ok = "define i32 @f(i32 %a, i1 %c) {\nentry:\n  %x = add i32 %a, 1\n  br label %loop\nloop:\n  %i = phi i32 [ %x, %entry ], [ %n, %loop ]\n  %n = add i32 %i, %x\n  br i1 %c, label %loop, label %done\ndone:\n  ret i32 %n\n}\n";
        assert_eq!(verdict(ok), Ok(()));
        let bad = "define i32 @f(i32 %a, i1 %c) {\nentry:\n  br i1 %c, label %l, label %r\nl:\n  %x = add i32 %a, 1\n  br label %j\nr:\n  br label %j\nj:\n  ret i32 %x\n}\n";
        assert_eq!(verdict(bad), Err("E-dominance".to_string()));
    }

    /// A local written with another type than its definition's, where the instruction does not
    /// fix the operand's type (the reader compares the written type where it resolves the
    /// operand). LLVM's reader: "'%a' defined with type 'i32' but expected 'i64'". Each of these
    /// was accepted before the reader compared written types.
    #[test]
    fn written_types_of_locals_are_compared() {
        let wrap = |body: &str| {
            format!(
                "define i32 @f(i32 %a, i32 %b, i1 %c, ptr %p) {{\nentry:\n{body}\n  ret i32 0\n}}\n"
            )
        };
        for body in [
            "  %x = icmp slt i64 %a, %b",
            "  %x = fcmp olt double %a, %b",
            "  store i64 %a, ptr %p",
            "  %x = getelementptr i32, ptr %p, i64 %a",
            "  %x = select i1 %c, i64 %a, i64 %a",
            "  %x = zext i64 %a to i128",
            "  %x = extractelement <2 x i32> %a, i32 0",
            "  %x = insertvalue { i32 } poison, i64 %a, 0",
            "  %x = atomicrmw add ptr %p, i64 %a seq_cst",
            "  %x = cmpxchg ptr %p, i64 %a, i64 0 seq_cst seq_cst",
            "  call void @g(i64 %a)",
            "  %x = load i32, ptr %a",
        ] {
            let src = wrap(body).replace("ret i32 0\n}\n", "ret i32 0\n}\ndeclare void @g(i64)\n");
            assert_eq!(verdict(&src), Err("E-type".to_string()), "{body}");
        }
        // Written with the right type: read.
        let ok = wrap(
            "  %x = icmp slt i32 %a, %b\n  store i32 %a, ptr %p\n  %y = getelementptr i32, ptr %p, i32 %a",
        );
        assert_eq!(verdict(&ok), Ok(()));
    }

    /// The same for operands that refer forward (resolved when the body ends), for `ret` and
    /// `switch` (the written type of a constant is its type), and for a metadata operand.
    #[test]
    fn forward_references_constants_and_metadata_operands() {
        // `%v` is defined in a block after its use (which it still dominates).
        let fwd = "define void @f(i32 %a, ptr %p) {\nentry:\n  br label %x\ny:\n  store i64 %v, ptr %p\n  ret void\nx:\n  %v = add i32 %a, 1\n  br label %y\n}\n";
        assert_eq!(verdict(fwd), Err("E-type".to_string()));
        assert_eq!(verdict(&fwd.replace("i64 %v", "i32 %v")), Ok(()));
        let ret = "define i32 @f() {\nentry:\n  ret i64 0\n}\n";
        assert_eq!(verdict(ret), Err("E-type".to_string()));
        let sw = "define void @f(i32 %a) {\nentry:\n  switch i32 %a, label %d [\n    i32 0, label %d\n    i64 1, label %d\n  ]\nd:\n  ret void\n}\n";
        assert_eq!(verdict(sw), Err("E-type".to_string()));
        assert_eq!(verdict(&sw.replace("i64 1", "i32 1")), Ok(()));
        let sel =
            "define i32 @f(i1 %c) {\nentry:\n  %x = select i1 %c, i32 1, i64 2\n  ret i32 %x\n}\n";
        assert_eq!(verdict(sel), Err("E-type".to_string()));
        let md = "declare void @g(metadata)\ndefine void @f(i32 %a) {\nentry:\n  call void @g(metadata i64 %a)\n  ret void\n}\n";
        assert_eq!(verdict(md), Err("E-type".to_string()));
        assert_eq!(verdict(&md.replace("i64 %a", "i32 %a")), Ok(()));
    }

    /// The first error of a module is the same whichever reader found it: a written type in a
    /// later function does not come before an earlier function's violation, and the two-thread
    /// reader (which merges the second half's notes) reports what the sequential one does.
    #[test]
    fn written_type_errors_keep_module_order_and_match_the_parallel_reader() {
        let mut src = String::new();
        for k in 0..40 {
            src.push_str(&format!(
                "define i32 @f{k}(i32 %a) {{\nentry:\n  %x = add i32 %a, {k}\n  ret i32 %x\n}}\n"
            ));
        }
        src.push_str(
            "define void @last(i32 %a, ptr %p) {\nentry:\n  store i64 %a, ptr %p\n  ret void\n}\n",
        );
        let read =
            |par: bool| crate::parse_rendered_with("t.ll", src.clone(), Some(par)).map(|_| ());
        let seq = read(false);
        assert!(
            seq.as_ref().is_err_and(|e| e.contains("written as i64")),
            "{seq:?}"
        );
        assert_eq!(read(true), seq);
        // A dominance error in an earlier function comes first.
        let early = src.replacen(
            "  %x = add i32 %a, 0\n  ret i32 %x",
            "  %x = add i32 %y, 0\n  %y = add i32 %a, 1\n  ret i32 %x",
            1,
        );
        assert_eq!(
            crate::parse("t.ll", early)
                .map(|_| ())
                .map_err(|d| d.code.unwrap_or_default()),
            Err("E-dominance".to_string())
        );
    }
}
