//! Irreducible regions under every cycle hierarchy.
//!
//! "Convergence And Uniformity" defines maximal convergence relative to a cycle hierarchy, and an
//! irreducible CFG has several (one per choice of header at each irreducible level: *Cycle
//! Hierarchy*); a value is uniform only if it is uniform under all of them (m-convergence). Outside
//! irreducible cycles the hierarchy is unique: a reducible cycle's header is its only entry, and
//! its children are the strongly connected parts of the cycle without its header. So only the
//! *outermost irreducible cycles* (which are the same set of blocks in every hierarchy) need care,
//! and precise mode treats each of them as one unit: a divergent branch inside one that keeps two
//! of its successors inside may make any of its blocks a join under some hierarchy (including the
//! branch block itself: LLVM misses that one, docs/llvm-differences.md entry 1), so the whole
//! region is assumed divergent; a join inside one that the branch does not properly dominate
//! likewise (the seeds' diverged-entry criterion, applied to the region rather than to LLVM's
//! cycle).

use crate::ssa::SsaFunction;
use crate::structure::{NONE, Structure};
use converge_graph::{Block, Graph};

/// Per cycle: its outermost irreducible ancestor-or-self, or `NONE` (parents are numbered before
/// their children, so one pass in cycle order).
pub(crate) fn outer_table(s: &Structure) -> Vec<u32> {
    let n = s.num_cycles();
    let mut t = vec![NONE; n];
    for c in 0..n as u32 {
        let p = s.parent_raw(c);
        t[c as usize] = if p != NONE && t[p as usize] != NONE {
            t[p as usize]
        } else if !s.is_reducible(c) {
            c
        } else {
            NONE
        };
    }
    t
}

/// The irreducible region a divergent branch in block `b` makes divergent by itself: the
/// outermost irreducible cycle around `b` when two different successors of `b` stay inside it.
pub(crate) fn branch_region<F: SsaFunction>(
    f: &F,
    s: &Structure,
    outer: &[u32],
    b: Block,
) -> Option<u32> {
    let c = s.inner(b);
    if c == NONE {
        return None;
    }
    let r = outer[c as usize];
    if r == NONE {
        return None;
    }
    let succs = f.cfg().succs(b);
    let mut first: Option<Block> = None;
    for &x in succs {
        if !s.contains(r, x) {
            continue;
        }
        match first {
            None => first = Some(x),
            Some(y) if y != x => return Some(r),
            Some(_) => {}
        }
    }
    None
}

/// The cycle a join `j` of a divergent branch in `b` makes divergent in precise mode, given
/// LLVM's answer `llvm` (`jc` is j's innermost cycle, or `None` when no irreducible cycle is
/// around it, in which case LLVM's rule is exact: the hierarchy is unique there).
pub(crate) fn divergent_cycle(
    s: &Structure,
    outer: &[u32],
    jc: Option<u32>,
    b: Block,
    j: Block,
    llvm: Option<u32>,
) -> Option<u32> {
    let Some(c0) = jc else { return llvm };
    let r = outer[c0 as usize];
    if r == NONE {
        return llvm;
    }
    if s.contains(r, b) && s.properly_dominates(b, j) {
        return llvm;
    }
    // The region, or LLVM's cycle when that one is bigger (it contains the region then).
    Some(match llvm {
        Some(c) if s.contains_cycle(c, r) => c,
        _ => r,
    })
}

/// The form of rule P1 a run of the propagation uses.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum P1 {
    /// Whole regions assumed divergent (the rules above): sound under every hierarchy by itself.
    #[default]
    Regions,
    /// The structure's one hierarchy: no cycle is assumed divergent; a join's phis are judged
    /// as at any join (P5). Sound for that hierarchy only; `hierarchies` takes the union over
    /// all of them.
    PerHierarchy,
}
