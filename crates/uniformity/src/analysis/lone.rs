//! Blocks a branch cannot join because at most one source can send them labels (a per-branch
//! settledness rule, asked by `settle::settled_for_branch`). The join propagation walks the
//! modified post-order downwards from the branch, so a block above the branch's index never
//! sends a label; a reducible header sends its label to its cycle's exits, never to its
//! successors (LLVM 22; LLVM 19 too for cycles around the branch); every other processed block
//! sends its one label to its successors. A block none of whose predecessors lies in a cycle
//! without it is no cycle's exit, so its labels come from its predecessors alone, and with at
//! most one of them able to send one it never sees two labels: it is not a join of the branch
//! (Convergence And Uniformity, "Divergence Analysis": a join is where two disjoint paths from
//! the branch meet). The header of a loop around the branch with one latch is such a block: its
//! preheader lies above the branch or heads a loop around it. In a loop nest with multi-level
//! exits (issue 13's `exitnest` family) those headers, whose phis stay uniform, kept every
//! branch walking all the levels out (30 s at 64,000 blocks).

use super::*;

/// Past this many predecessors the test is not tried (it reads each of them, per branch).
const LONE_MAX_PREDS: usize = 8;

impl<F: SsaFunction> State<'_, F> {
    /// Can at most one block send labels to `j` in the join propagation of the branch in `b`?
    pub(super) fn lone_source(&self, b: Block, j: Block) -> bool {
        if !shortcut_on!(NO_LONE_SOURCE) {
            return false;
        }
        let (f, s, po) = (self.f, self.s, &self.w.po);
        let preds = f.cfg().preds(j);
        if preds.len() > LONE_MAX_PREDS {
            return false;
        }
        let bi = po.index[b.index()];
        let mut source = None;
        for &p in preds {
            // A predecessor in a cycle without `j`: `j` may receive that cycle's header's label.
            if s.cycle_of(p).is_some_and(|c| !s.contains(c, j)) {
                return false;
            }
            if p != b {
                let pi = po.index[p.index()];
                if pi == NONE || pi > bi {
                    continue;
                }
                let c = po.header_cycle[pi as usize];
                if c != NONE && s.contains(c, b) {
                    continue;
                }
            }
            if source.is_some_and(|q| q != p) {
                return false;
            }
            source = Some(p);
        }
        true
    }
}

impl<F: SsaFunction> State<'_, F> {
    /// `lone_source` for every branch at once, in LLVM 22's propagation (llvm and precise
    /// modes): there every reducible header sends its label to its cycle's exits only, so a
    /// predecessor heading one sends `j` a label only as the branch itself, which it can be
    /// only with two successors. At most one other predecessor (or such a header), and none in
    /// a cycle without `j`: no branch ever joins at `j` (`settle::settled_for_all`). This keeps
    /// the settled end of the order growing past the headers of a loop nest, whose phis stay
    /// uniform; asked per branch instead, they were read again by every branch.
    ///
    /// In LLVM 19's propagation a reducible header sends its label to its successors when the
    /// branch is outside its cycle. Such a predecessor `p` still counts for nothing when `j` lies
    /// in `p`'s cycle `P` and `P` in no irreducible cycle: for a branch inside `P`, `p` sends to
    /// the exits only; for one outside, labels enter `P` at `p` alone, which is processed once
    /// (all its predecessors outside `P` come before it, and a label coming back along a latch is
    /// the one it sent), so every block of `P`'s body sees one label and is no join.
    pub(super) fn lone_source_all(&self, j: Block) -> bool {
        let (on, on_19) = (
            shortcut_on!(NO_LONE_SOURCE),
            shortcut_on!(NO_LONE_SOURCE_19),
        );
        if !on || self.llvm19 && !on_19 {
            return false;
        }
        let (f, s, po) = (self.f, self.s, &self.w.po);
        let preds = f.cfg().preds(j);
        if preds.len() > LONE_MAX_PREDS {
            return false;
        }
        let mut source = None;
        for &p in preds {
            if s.cycle_of(p).is_some_and(|c| !s.contains(c, j)) {
                return false;
            }
            let pi = po.index[p.index()];
            if pi == NONE {
                continue;
            }
            let c = po.header_cycle[pi as usize];
            if c != NONE
                && f.cfg().succs(p).len() <= 1
                && (!self.llvm19 || s.contains(c, j) && po.outer_irr[c as usize] == NONE)
            {
                #[cfg(test)]
                if self.llvm19 {
                    knobs::LONE_19.with(|k| k.set(k.get() + 1));
                }
                continue;
            }
            if source.is_some_and(|q| q != p) {
                return false;
            }
            source = Some(p);
        }
        true
    }
}
