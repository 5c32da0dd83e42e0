//! Convergence-control tokens in precise mode ("Convergent Operation Semantics").
//!
//! Two rules. (1) A convergent operation controlled by a token computes over the threads of its
//! token's dynamic instance. For an `anchor` that set is implementation-defined (*anchor*), and
//! for a token defined inside a cycle that does not contain the operation it is the threads that
//! left in the same iteration; either way threads converged at later uses of the result (by
//! maximal convergence) may have computed it in different groups, so such an operation is not
//! always uniform ([`grouping_with`]). (2) Inside the convergence region of a loop heart
//! (the program points dominated by the heart from which a use of its token is reachable), the
//! dynamic instances of any operation are converged only between threads whose latest heart
//! instances are converged (*Controlled maximal convergence*, rule 2a), that is, threads in the
//! same iteration of the heart's cycle. A value recomputed on every path from the heart to its use
//! is then the same iteration's value for all of them, and its use after a divergent exit is not
//! temporally divergent ([`iteration_bound`]). The uniformity holds only inside the region:
//! outside it the threads of several iterations are converged again, so every value computed
//! from such a use is divergent where it leaves the region, and a branch on one is divergent
//! (its joins may lie outside the region) ([`confine`]).

use crate::ssa::{Inst, SsaFunction, TokenKind, Val};
use crate::structure::{NONE, Structure};
use converge_graph::{Block, Graph};
use std::cell::RefCell;

/// Block marks cleared in O(1) by a new stamp, kept per thread and reused by every search of
/// [`in_region`] and [`iteration_bound`]. (They are asked per use of a value after a divergent
/// exit: with two fresh vectors of every block per question, a nest of 12,800 loops under
/// convergence tokens spent 27 s at 64,000 blocks clearing them, issue 13's `tokens` family.)
#[derive(Default)]
struct Marks {
    stamp: u32,
    seen: Vec<u32>,
    uses: Vec<u32>,
    stack: Vec<Block>,
}

impl Marks {
    /// Starts a search over `n` blocks: nothing seen, no use block.
    fn start(&mut self, n: usize) {
        if self.seen.len() < n {
            self.seen.resize(n, 0);
            self.uses.resize(n, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.uses.fill(0);
            self.stamp = 1;
        }
        self.stack.clear();
    }

    /// Marks `b` seen; true when it was already.
    fn see(&mut self, b: Block) -> bool {
        std::mem::replace(&mut self.seen[b.index()], self.stamp) == self.stamp
    }
}

thread_local! {
    static MARKS: RefCell<Marks> = RefCell::default();
}

/// Runs `search` with this thread's marks, started for `n` blocks; a fresh set if they are in use.
fn with_marks<R>(n: usize, search: impl FnOnce(&mut Marks) -> R) -> R {
    MARKS.with(|m| match m.try_borrow_mut() {
        Ok(mut m) => {
            m.start(n);
            search(&mut m)
        }
        Err(_) => {
            let mut m = Marks::default();
            m.start(n);
            search(&mut m)
        }
    })
}

/// How precise mode treats an operation the target calls always uniform.
pub(crate) enum Grouping {
    /// Its group is the converged threads at its later uses: always uniform.
    Uniform,
    /// Its group may be a part of those threads, but the same part for equal operands: divergent
    /// when its operands are.
    ByOperands,
    /// Its group is an implementation-defined part of the threads (an anchor's), so its result
    /// may differ between parts even for uniform operands: divergent.
    Divergent,
    /// Controlled by the anchor or loop heart `t`: the threads converged at it are all the
    /// threads that reach it after being converged at one dynamic instance of `t` (*Controlled
    /// Maximal Convergence*), so its result is the same for each group of `t`; and inside `t`'s
    /// convergence region threads are converged only within a group of their latest `t`. Uniform
    /// there, at uses that every path from `t` reaches through it ([`confine`] marks the rest).
    Anchored(Inst),
}

/// Precise mode's rule for the always-uniform instruction `i` (a convergent operation), the
/// heart chains' lengths remembered across the instructions of one function (`memo`). Its group
/// may differ from its converged instances at later uses when its token is
/// implementation-grouped, is neither an `entry` nor a loop heart, or is defined inside a cycle
/// that does not contain `i`. (The memo: in a nest of loops under convergence tokens every heart's chain runs up
/// through the hearts of the loops around it, so following each from scratch costs up to
/// [`CHAIN_LIMIT`] steps per convergent operation (2.3 s at 64,000 blocks of the `tokens`
/// family with its blocks shuffled, issue 13, session 22; the chains' tokens then lie far apart
/// in memory.)
pub(crate) fn grouping_with<F: SsaFunction>(
    f: &F,
    s: &Structure,
    i: Inst,
    memo: &mut ChainMemo,
) -> Grouping {
    let grouped = |memo: &mut ChainMemo| {
        #[cfg(test)]
        if crate::analysis::knobs::NO_CHAIN_MEMO.with(|c| c.get()) {
            return implementation_grouped(f, i);
        }
        memo.implementation_grouped(f, i)
    };
    // Whether its group may differ from its converged instances at later uses.
    let may_differ = match f.control_token(i) {
        None => false,
        Some(t) => {
            grouped(memo)
                || f.token_kind(t) != Some(TokenKind::Entry)
                    && f.token_kind(t) != Some(TokenKind::Loop)
                || {
                    let c = s.inner(f.inst_block(t));
                    c != NONE && !s.contains(c, f.inst_block(i))
                }
        }
    };
    if !may_differ {
        return Grouping::Uniform;
    }
    if let Some(t) = f.control_token(i)
        && matches!(f.token_kind(t), Some(TokenKind::Anchor | TokenKind::Loop))
    {
        return Grouping::Anchored(t);
    }
    if grouped(memo) {
        Grouping::Divergent
    } else {
        Grouping::ByOperands
    }
}

/// How many tokens [`implementation_grouped`] follows up a chain of hearts before giving up
/// (conservatively: implementation-grouped).
const CHAIN_LIMIT: u32 = 256;

/// Per token instruction (sized on first use): the number of loop hearts on its chain before an
/// `entry`, [`CHAIN_LIMIT`] when there are that many or more or the chain ends elsewhere,
/// `NONE` not known yet.
#[derive(Default)]
pub(crate) struct ChainMemo {
    hearts: Vec<u32>,
    path: Vec<Inst>,
}

impl ChainMemo {
    /// [`implementation_grouped`], each token's chain followed once per function.
    pub(crate) fn implementation_grouped<F: SsaFunction>(&mut self, f: &F, i: Inst) -> bool {
        let Some(t) = f.control_token(i) else {
            return false;
        };
        #[cfg(test)]
        crate::analysis::knobs::CHAIN_MEMO.with(|c| c.set(c.get() + 1));
        // `implementation_grouped` looks at the tokens t_0 = t, t_1, ... t_255 and answers
        // false iff one of them is an `entry` reached through loop hearts only.
        self.hearts_before_entry(f, t) >= CHAIN_LIMIT
    }

    /// The number of loop hearts on `t`'s chain before an `entry`, capped at [`CHAIN_LIMIT`]
    /// (which also stands for a chain ending elsewhere).
    fn hearts_before_entry<F: SsaFunction>(&mut self, f: &F, t: Inst) -> u32 {
        if self.hearts.is_empty() {
            self.hearts.resize(f.num_insts() as usize, NONE);
        }
        self.path.clear();
        let mut x = t;
        // `end`: the count of `x`, the first token of the chain not on `path`.
        let end = loop {
            let known = self.hearts[x.index()];
            if known != NONE {
                break known;
            }
            if self.path.len() as u32 >= CHAIN_LIMIT {
                // As many hearts as the limit and no entry yet (or a cycle of tokens): `t` is at
                // the limit. Tokens further up may be nearer an entry: only `t` is recorded.
                self.hearts[t.index()] = CHAIN_LIMIT;
                return CHAIN_LIMIT;
            }
            match f.token_kind(x) {
                Some(TokenKind::Entry) => break 0,
                Some(TokenKind::Loop) => match f.control_token(x) {
                    Some(p) => {
                        self.path.push(x);
                        x = p;
                    }
                    None => break CHAIN_LIMIT,
                },
                _ => break CHAIN_LIMIT,
            }
        };
        self.hearts[x.index()] = end;
        // `path[k]`'s chain passes `n - k` hearts (itself included) before reaching `x`.
        let n = self.path.len() as u32;
        for (k, &p) in self.path.iter().enumerate() {
            self.hearts[p.index()] = end.saturating_add(n - k as u32).min(CHAIN_LIMIT);
        }
        self.hearts[t.index()]
    }
}

/// Is `i` controlled by a token whose grouping is implementation-defined (an anchor, or a token
/// we cannot see through)? Its converged instances may then be any partition of the threads,
/// so a result that depends on the group (a ballot's mask) may differ even for uniform operands.
/// A heart inherits the grouping of its parent token, so the chain of hearts is followed up to
/// an `entry` (not implementation-grouped) or anything else (oracle seed 49889: a heart under an
/// anchor). Each chain followed from its start: the reference [`ChainMemo`] is tested against.
#[cfg(test)]
pub(crate) fn implementation_grouped<F: SsaFunction>(f: &F, i: Inst) -> bool {
    let Some(mut t) = f.control_token(i) else {
        return false;
    };
    // Valid token chains are short and acyclic; give up (conservatively) on anything else.
    for _ in 0..CHAIN_LIMIT {
        match f.token_kind(t) {
            Some(TokenKind::Entry) => return false,
            Some(TokenKind::Loop) => match f.control_token(t) {
                Some(p) => t = p,
                None => return true,
            },
            _ => return true,
        }
    }
    true
}

/// The loop heart in the header of cycle `o`, when `o` is reducible and not inside an irreducible
/// cycle (so `o` is the heart's cycle under every hierarchy).
pub(crate) fn heart_of<F: SsaFunction>(
    f: &F,
    s: &Structure,
    outer: &[u32],
    o: u32,
) -> Option<Inst> {
    if !s.is_reducible(o) || outer[o as usize] != NONE {
        return None;
    }
    f.block_insts(s.header(o))
        .find(|&i| f.token_kind(i) == Some(TokenKind::Loop))
}

/// Is the use of `v` (defined in cycle `o`, whose heart is `heart`) by `u` (outside `o`) converged
/// per iteration of `o`, so that the divergent exit of `o` does not make it temporally divergent?
/// True when `u` lies in the heart token's convergence region and every path from the heart to
/// `u` passes the definition of `v` (so `u` sees the value of the heart's latest iteration).
pub(crate) fn iteration_bound<F: SsaFunction>(
    f: &F,
    s: &Structure,
    o: u32,
    heart: Inst,
    v: Inst,
    u: Inst,
) -> bool {
    let h = s.header(o);
    let ub = f.inst_block(u);
    if !s.dom.dominates(h, ub) || uses_inside(f, s, o, heart, u) || !in_region(f, s, heart, u) {
        return false;
    }
    // Every path from the heart to `u` passes `v`.
    let d = f.inst_block(v);
    if d == h {
        return v >= heart;
    }
    let n = f.cfg().num_blocks();
    with_marks(n, |m| {
        m.see(h);
        m.see(d);
        m.stack.extend_from_slice(f.cfg().succs(h));
        while let Some(x) = m.stack.pop() {
            if m.see(x) {
                continue;
            }
            if x == ub {
                return false;
            }
            m.stack.extend_from_slice(f.cfg().succs(x));
        }
        true
    })
}

/// Is `u`'s block `ub` outside the reducible cycle `o` whose header holds `heart`, while every use
/// of `heart`'s token lies inside `o` or, unless it comes after `u` in `ub`, in a block entered
/// from `o` only? Then `u` is not in the heart's region ([`in_region`]): a path from `ub` to
/// such a use enters `o`, through its header, which holds the heart. (A search of every block the heart dominates per
/// use after a divergent exit was quadratic in a nest of loops under convergence tokens: 25 s at
/// 64,000 blocks, issue 13's `tokens` family.)
fn uses_inside<F: SsaFunction>(f: &F, s: &Structure, o: u32, heart: Inst, u: Inst) -> bool {
    let ub = f.inst_block(u);
    #[cfg(test)]
    if crate::analysis::knobs::NO_USES_INSIDE.with(|c| c.get()) {
        return false;
    }
    let h = s.header(o);
    s.is_reducible(o)
        && f.inst_block(heart) == h
        && !s.contains(o, ub)
        && f.users(Val::Inst(heart)).iter().all(|&x| {
            let xb = f.inst_block(x);
            s.contains(o, xb)
                || (xb != ub || x < u) && f.cfg().preds(xb).iter().all(|&p| s.contains(o, p))
        })
}

/// Is instruction `u` in the convergence region of the token defined by `t`: dominated by `t`,
/// with a use of the token reachable from it without passing `t` again? Program points, not
/// blocks: a use earlier in `u`'s block does not count (`u` itself does).
pub fn in_region<F: SsaFunction>(f: &F, s: &Structure, t: Inst, u: Inst) -> bool {
    let tb = f.inst_block(t);
    let ub = f.inst_block(u);
    if tb == ub && u <= t {
        return false;
    }
    if !s.dom.dominates(tb, ub) {
        return false;
    }
    let uses = f.users(Val::Inst(t));
    // A use after `u` in its own block.
    if uses
        .iter()
        .any(|&x| f.inst_block(x) == ub && x >= u && f.control_token(x) == Some(t))
    {
        return true;
    }
    let n = f.cfg().num_blocks();
    with_marks(n, |m| {
        for &x in uses {
            if f.control_token(x) == Some(t) {
                m.uses[f.inst_block(x).index()] = m.stamp;
            }
        }
        m.see(tb);
        m.stack.extend_from_slice(f.cfg().succs(ub));
        while let Some(x) = m.stack.pop() {
            if m.see(x) || !s.dom.dominates(tb, x) {
                continue;
            }
            if m.uses[x.index()] == m.stamp {
                return true;
            }
            m.stack.extend_from_slice(f.cfg().succs(x));
        }
        false
    })
}

/// Do the threads converged at instruction `u` share one dynamic instance of the token `t`?
///
/// They do inside `t`'s convergence region ([`in_region`]). Past it, they still do when `t` is a
/// loop heart whose cycle contains `u` and its parent token's instance is shared at `u` (tested
/// the same way, up the chain of hearts): by the *Controlled maximal convergence relation*
/// ("Convergent Operation Semantics"), two threads are converged at a non-convergent `u` only if
/// they executed converged instances of every token definition whose region contains `u`, and,
/// for every cycle containing `u`, the same iteration; and by the rule of `loop`, threads
/// converged at the parent's instance in the same iteration of the heart's cycle are converged at
/// the heart. The heart's cycle must be the same under every hierarchy (reducible, not inside an
/// irreducible cycle), and is entered once per instance of the parent (the static cycle rule:
/// a cycle using a token it does not define has that use as the heart in its header).
pub fn shares_instance<F: SsaFunction>(f: &F, s: &Structure, t: Inst, u: Inst) -> bool {
    let ub = f.inst_block(u);
    let mut t = t;
    // Valid token chains are short and acyclic; give up (conservatively) on anything else.
    for _ in 0..CHAIN_LIMIT {
        if in_region(f, s, t, u) {
            return true;
        }
        if f.token_kind(t) != Some(TokenKind::Loop) {
            return false;
        }
        let tb = f.inst_block(t);
        let o = s.inner(tb);
        if o == NONE || s.header(o) != tb || !s.contains(o, ub) || !always_this_cycle(s, o) {
            return false;
        }
        match f.control_token(t) {
            Some(p) => t = p,
            None => return false,
        }
    }
    false
}

/// Is cycle `o` the same cycle under every hierarchy: reducible, and not inside an irreducible
/// cycle?
fn always_this_cycle(s: &Structure, o: u32) -> bool {
    let mut c = o;
    while c != NONE {
        if !s.is_reducible(c) {
            return false;
        }
        c = s.parent_raw(c);
    }
    true
}

/// `u` was found uniform only inside the convergence region of the token `heart` (a loop heart:
/// [`iteration_bound`]; an anchor: [`Grouping::Anchored`]). Follows the values computed from it: a user inside the region that is not a branch and not a
/// convergent operation controlled by another token stays bound to the region; any other user is
/// marked divergent.
pub(crate) fn confine<F: SsaFunction>(
    f: &F,
    heart: Inst,
    u: Inst,
    s: &Structure,
    mark: &mut dyn FnMut(Inst),
) {
    let mut bound = vec![u];
    let mut k = 0;
    while k < bound.len() {
        let x = bound[k];
        k += 1;
        if f.is_terminator(x) {
            continue;
        }
        for &w in f.users(Val::Inst(x)) {
            let other_token = f.control_token(w).is_some_and(|t| t != heart);
            // `w` must see the instance of `x` computed after its own latest `heart`: a path
            // from the heart to `w` that misses `x` reads one computed in an earlier instance,
            // by another group.
            if f.is_terminator(w)
                || other_token
                || !shares_instance(f, s, heart, w)
                || !passes(f, heart, x, w)
            {
                mark(w);
            } else if !bound.contains(&w) {
                bound.push(w);
            }
        }
    }
}

/// Does every path from the token definition `t` to the use `u` (for a phi: to the end of each
/// predecessor of its block, a superset of the incoming blocks carrying `d`) pass the definition
/// `d`, without passing `t` again?
pub(crate) fn passes<F: SsaFunction>(f: &F, t: Inst, d: Inst, u: Inst) -> bool {
    let ub = f.inst_block(u);
    if !f.is_phi(u) {
        return passes_to(f, t, d, ub, Some(u));
    }
    f.cfg()
        .preds(ub)
        .iter()
        .all(|&p| passes_to(f, t, d, p, None))
}

/// [`passes`] to the point before instruction `pos` of block `ub` (`None`: its end).
fn passes_to<F: SsaFunction>(f: &F, t: Inst, d: Inst, ub: Block, pos: Option<Inst>) -> bool {
    let (tb, db) = (f.inst_block(t), f.inst_block(d));
    let before = |x: Inst| pos.is_none_or(|p| x < p);
    // The straight run from `t` to the point within one block.
    if tb == ub && before(t) {
        return db == tb && t < d && before(d);
    }
    // Any path entering `ub` reaches `d` before the point.
    if db == ub && before(d) {
        return true;
    }
    // Any path leaving `tb` passes `d`.
    if db == tb && d > t {
        return true;
    }
    let g = f.cfg();
    let mut seen = vec![false; g.num_blocks()];
    seen[tb.index()] = true;
    let mut stack: Vec<Block> = g.succs(tb).to_vec();
    while let Some(x) = stack.pop() {
        if x == ub {
            return false;
        }
        if x == db || std::mem::replace(&mut seen[x.index()], true) {
            continue;
        }
        stack.extend_from_slice(g.succs(x));
    }
    true
}
