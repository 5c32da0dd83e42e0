//! Convergence-control tokens in precise mode ("Convergent Operation Semantics").
//!
//! Two rules. (1) A convergent operation controlled by a token computes over the threads of its
//! token's dynamic instance. For an `anchor` that set is implementation-defined (*anchor*), and
//! for a token defined inside a cycle that does not contain the operation it is the threads that
//! left in the same iteration; either way threads converged at later uses of the result (by
//! maximal convergence) may have computed it in different groups, so such an operation is not
//! always uniform ([`group_may_differ`]). (2) Inside the convergence region of a loop heart
//! (the program points dominated by the heart from which a use of its token is reachable), the
//! dynamic instances of any operation are converged only between threads whose latest heart
//! instances are converged (*Controlled maximal convergence*, rule 2a), that is, threads in the
//! same iteration of the heart's cycle. A value recomputed on every path from the heart to its use
//! is then the same iteration's value for all of them, and its use after a divergent exit is not
//! temporally divergent ([`iteration_bound`]). The uniformity holds only inside the region:
//! outside it the threads of several iterations are converged again, so every value computed
//! from such a use is divergent where it leaves the region, and a branch on one is divergent
//! (its joins may lie outside the region) ([`confine`]).

use crate::ssa::{SsaFunction, TokenKind, Val};
use crate::structure::{NONE, Structure};
use converge_graph::{Block, Graph};

/// Does the always-uniform instruction `i` (a convergent operation) compute over a group of
/// threads that may differ from its converged instances at later uses?
pub(crate) fn group_may_differ<F: SsaFunction>(f: &F, s: &Structure, i: u32) -> bool {
    let Some(t) = f.control_token(i) else {
        return false;
    };
    if f.token_kind(t) != Some(TokenKind::Entry) && f.token_kind(t) != Some(TokenKind::Loop) {
        // An anchor (implementation-defined), or a token we cannot see through.
        return true;
    }
    // A token defined inside a cycle that does not contain the operation.
    let c = s.inner(f.inst_block(t));
    c != NONE && !s.contains(c, f.inst_block(i))
}

/// The loop heart in the header of cycle `o`, when `o` is reducible and not inside an irreducible
/// cycle (so `o` is the heart's cycle under every hierarchy).
pub(crate) fn heart_of<F: SsaFunction>(f: &F, s: &Structure, outer: &[u32], o: u32) -> Option<u32> {
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
    heart: u32,
    v: u32,
    u: u32,
) -> bool {
    let h = s.header(o);
    let ub = f.inst_block(u);
    if !s.dom.dominates(h, ub) || !in_region(f, s, heart, u) {
        return false;
    }
    // Every path from the heart to `u` passes `v`.
    let d = f.inst_block(v);
    if d == h {
        return v >= heart;
    }
    let n = f.cfg().num_blocks();
    let mut seen = vec![false; n];
    seen[h.index()] = true;
    seen[d.index()] = true;
    let mut stack: Vec<Block> = f.cfg().succs(h).to_vec();
    while let Some(x) = stack.pop() {
        if std::mem::replace(&mut seen[x.index()], true) {
            continue;
        }
        if x == ub {
            return false;
        }
        stack.extend_from_slice(f.cfg().succs(x));
    }
    true
}

/// Is instruction `u` in the convergence region of the token defined by `t`: dominated by `t`,
/// with a use of the token reachable from it without passing `t` again? Program points, not
/// blocks: a use earlier in `u`'s block does not count (`u` itself does).
pub(crate) fn in_region<F: SsaFunction>(f: &F, s: &Structure, t: u32, u: u32) -> bool {
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
    let mut use_block = vec![false; n];
    for &x in uses {
        if f.control_token(x) == Some(t) {
            use_block[f.inst_block(x).index()] = true;
        }
    }
    let mut seen = vec![false; n];
    seen[tb.index()] = true;
    let mut stack: Vec<Block> = f.cfg().succs(ub).to_vec();
    while let Some(x) = stack.pop() {
        if std::mem::replace(&mut seen[x.index()], true) || !s.dom.dominates(tb, x) {
            continue;
        }
        if use_block[x.index()] {
            return true;
        }
        stack.extend_from_slice(f.cfg().succs(x));
    }
    false
}

/// `u` was found uniform only inside the region of the loop heart `heart` ([`iteration_bound`]).
/// Follows the values computed from it: a user inside the region that is not a branch and not a
/// convergent operation controlled by another token stays bound to the region; any other user is
/// marked divergent.
pub(crate) fn confine<F: SsaFunction>(
    f: &F,
    heart: u32,
    u: u32,
    s: &Structure,
    mark: &mut dyn FnMut(u32),
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
            if f.is_terminator(w) || other_token || !in_region(f, s, heart, w) {
                mark(w);
            } else if !bound.contains(&w) {
                bound.push(w);
            }
        }
    }
}
