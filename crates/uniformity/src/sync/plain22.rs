//! LLVM 22's walk (`JoinFinder::propagate`), its plain steps in a loop of their own.
//!
//! In the flood of a big irreducible cycle nearly every step is plain: pop the largest fresh
//! index, push its label to its successors, record the joins ("Convergence And Uniformity",
//! "Sync Dependence": the labels of Rosemann, Moll and Hack, "An abstract interpretation for
//! SPMD divergence on reducible control flow graphs"). None of the walk's shortcuts can apply
//! to such a step (it lies above the lowest block processed, or its flow shares the outermost
//! irreducible cycle of the next fresh block), and it is not a block where the walk stops,
//! pauses, or sends labels to a cycle's exits (nor one after a header with a long exit list,
//! whose later joins `chain_exits` lists). The full loop tests all of that on every step
//! and keeps most of its state on the stack; this loop holds the few values a plain step needs
//! in registers and leaves at the first block that needs more, which the full loop then
//! processes. What is left is exactly the plain step, so the answer and the step count are the
//! full loop's (issue 13: `dag-local` seed 1 at 64,000 blocks, where LLVM 22's walks took 89 M
//! steps, all but a few thousand of them plain). LLVM 19's walk has its own such loop
//! (`plain_steps19`), for its floor.

use super::{Descriptor, FreshSet, ModifiedPo, NONE, add_join_to, push_label};

/// What the plain steps of one walk read besides the function's order.
#[derive(Clone, Copy)]
pub(super) struct Plain22Args {
    pub stamp: u32,
    pub ignore: (u32, u32),
    pub t_idx: u32,
    pub settled_below: u32,
    /// The walk pauses below this index (`JoinFinder::compute`'s remembered cycle).
    pub pause_below: u32,
    /// The largest irreducible ancestor of the branch's cycle with no reducible cycle in
    /// between, as an index interval: outside it the walk stops when one block is left.
    pub irr: (u32, u32),
    /// The interval whose labels the exit check reads (the disjoint-flow skip refuses it).
    pub o: (u32, u32),
    /// The disjoint-flow skip and the settled drop are off (tests), or on.
    pub no_skip: bool,
    pub settled_drop: bool,
}

/// The state of the walk that its plain steps change.
pub(super) struct Walk22 {
    pub low_done: u32,
    pub steps: u64,
    /// Every exit in `final_exits` became a join of the branch (`propagate`'s `final_check`).
    pub final_hit: bool,
}

/// Does the block at popped index `i` need nothing but the plain step (see the module doc)?
/// `empty`: the fresh set is empty after the pop. Mirrors the full loop's tests in its order:
/// pause, settled stop, the branch, the one-block stop, the disjoint-flow skip and the settled
/// drop, the jump (the last three need `i` below every block processed), a header's exits.
#[inline(always)]
pub(super) fn plain22_ok(
    i: u32,
    empty: bool,
    low_done: u32,
    fresh: &mut FreshSet,
    po: &ModifiedPo,
    jumps: &[u32],
    a: &Plain22Args,
) -> bool {
    let iu = i as usize;
    if i < a.pause_below
        || i == a.t_idx
        || (a.settled_below != 0 && po.reach_hi[iu] < a.settled_below)
        || (empty && !(a.irr.0..a.irr.1).contains(&i))
        || po.header_cycle[iu] != NONE
    {
        return false;
    }
    if i >= low_done || a.no_skip && jumps.is_empty() {
        return true;
    }
    // Below every block processed: the skip, the drop and the jump must all refuse.
    if jumps.get(iu).is_some_and(|&j| j != NONE) {
        return false;
    }
    if a.no_skip {
        return true;
    }
    // The drop needs `reach_hi[i] <= i`, which blocks of an irreducible cycle rarely have (the
    // end of their outermost irreducible cycle lies above all but its last block).
    let drop_refused = !a.settled_drop || a.settled_below == 0 || po.reach_hi[iu] > i;
    if !drop_refused {
        return false;
    }
    // The skip needs the next fresh block's labels to stay below `i`'s reach.
    (a.o.0..a.o.1).contains(&i)
        || fresh
            .last_below(i)
            .is_none_or(|m| po.reach_hi[m as usize] >= po.lo_reach[iu])
}

/// LLVM 22's walk from popped index `i` (with `empty` as `FreshSet::pop_and_empty` gave it)
/// for as long as each block popped needs only the plain step; returns the first block that
/// needs more (popped, not processed) and its `empty`, or `None` when nothing is fresh. With
/// `FINAL`, it also returns once `final_exits` are all joins of the branch (the full loop then
/// stops at its next pop, as it would have).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(super) fn plain_steps22<const FINAL: bool>(
    mut i: u32,
    mut empty: bool,
    w: &mut Walk22,
    fresh: &mut FreshSet,
    labels: &mut [u32],
    touched: &mut Vec<u32>,
    in_joins: &mut [u32],
    desc: &mut Descriptor,
    po: &ModifiedPo,
    jumps: &[u32],
    final_exits: &[u32],
    a: Plain22Args,
) -> Option<(u32, bool)> {
    let n = labels.len();
    let order = &po.order[..n];
    let (succ_start, succ) = (&po.succ_start[..n + 1], &po.succ[..]);
    let in_joins = &mut in_joins[..n];
    let (mut low_done, mut steps) = (w.low_done, w.steps);
    let start = steps;
    let next = loop {
        assert!((i as usize) < n);
        if !plain22_ok(i, empty, low_done, fresh, po, jumps, &a) {
            break Some((i, empty));
        }
        steps += 1;
        low_done = low_done.min(i);
        let l = labels[i as usize];
        let (b, e) = (succ_start[i as usize], succ_start[i as usize + 1]);
        let mut hit = false;
        for &xi in &succ[b as usize..e as usize] {
            if push_label(labels, fresh, touched, xi, l) {
                add_join_to(in_joins, desc, order, a.stamp, a.ignore, xi);
                // (`propagate`'s `final_check`: a join below the remembered cycle.)
                hit |= FINAL && xi < a.pause_below;
            }
        }
        let popped = fresh.pop_and_empty();
        if FINAL
            && hit
            && !final_exits.is_empty()
            && final_exits
                .iter()
                .all(|&x| labels[x as usize] == x && in_joins[x as usize] == a.stamp)
        {
            w.final_hit = true;
            break popped;
        }
        match popped {
            Some((j, e)) => (i, empty) = (j, e),
            None => break None,
        }
    };
    #[cfg(test)]
    crate::analysis::knobs::PLAIN_STEPS_22.with(|c| c.set(c.get() + steps - start));
    #[cfg(not(test))]
    let _ = start;
    (w.low_done, w.steps) = (low_done, steps);
    next
}
