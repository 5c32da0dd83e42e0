//! Rule P10 of precise mode: a use reached only through uniformly-taken exits is not temporally
//! divergent.
//!
//! "Convergence And Uniformity" (*Divergent Cycle Exits*) makes a use outside a cycle of a value
//! defined inside it divergent because threads may leave the cycle in different iterations. That
//! needs a divergent exit on the way from the definition to the use. A cycle C qualifies when it
//! is reducible and not inside an irreducible cycle (the same cycle, with the same header H, under
//! every hierarchy). An exit edge E→X of C is *uniformly taken* when E's branch is uniform, E lies
//! in no cycle inside C, and no divergent branch D in C has two different successors of which one
//! reaches E and the other reaches H, within one iteration (paths inside C, avoiding H; the second
//! also avoiding E). Then all threads that take E→X in one visit of C take it in the same
//! iteration: two threads converged at H's instance of some iteration that part, one to take the
//! exit in this iteration and the other to start the next, first part at a branch D where they are
//! still converged (the same path so far); D is divergent, one successor leads to E and the other
//! to H; the second thread cannot pass E on its way (at E, in the same iteration and no inner
//! cycle, the two are converged and the uniform branch sends both the same way). Threads that
//! leave through different uniformly-taken exits leave in the same iteration by the same
//! argument. A use U of a value V of C is then not temporally divergent (with respect to C) when
//! no path from V to U leaves C through another exit edge: such paths neither pass H again nor
//! any header of a cycle around C (V dominates U, or the end of U's incoming block for a phi, and
//! each of those headers is reached from the entry without V), so the region after the other
//! exits, stopped at those headers, contains every block such a path can reach. V's instances
//! read at U are then those of one iteration of C, converged; whether they agree is data
//! dependence, judged as for every use, and cycles inside C with their own divergent exits are
//! judged by their own sweeps.
//!
//! The decision depends on which branches are divergent, which grows during the propagation, so
//! the exempted uses are kept and checked again whenever the propagation has drained: a use whose
//! exemption no longer holds is marked then. The work is bounded per function; past the bound the
//! rule is not applied (every use stays temporally divergent, as without it).

use crate::ssa::{Inst, SsaFunction};
use crate::structure::{NONE, Structure};
use converge_graph::{Block, Graph};

/// One exempted use: `user` outside `cycle` of `value` inside it.
pub(crate) type Use = (u32, Inst, Inst);

/// Per-function state of rule P10.
#[derive(Default)]
pub(crate) struct UniformExits {
    /// Per cycle: 1 + index into `data`, or 0.
    slot: Vec<u32>,
    data: Vec<CycleData>,
    /// Uses exempted so far (checked again by [`UniformExits::recheck`]).
    pub(crate) pending: Vec<Use>,
    /// Whether uses were added to `pending` since the last check.
    fresh: bool,
    /// Per instruction: some use of it was a candidate (sweeps of enclosing cycles look again).
    candidate: Vec<bool>,
    /// Scratch: block stamps and a stack.
    seen_a: Vec<u32>,
    seen_b: Vec<u32>,
    stamp: u32,
    stack: Vec<Block>,
    /// Block visits left for this function.
    budget: u64,
    /// Whether the budget ran out (the rule is then not applied to cycles computed later).
    exhausted: bool,
}

/// What rule P10 knows about one cycle, for one set of divergent terminators.
struct CycleData {
    /// The number of divergent terminators in the cycle when this was computed.
    divergent: u32,
    /// Whether the rule applies (else every use outside is temporally divergent).
    applies: bool,
    /// Exit edges (from, to) that are not uniformly taken, sorted.
    async_edges: Vec<(u32, u32)>,
    /// Blocks outside the cycle that a path leaving it through such an edge reaches, sorted.
    bad: Vec<u32>,
    /// Whether some exit edge is uniformly taken (else the rule decides nothing here).
    any_sync: bool,
}

/// Whether rule P10 can apply to cycle `c` at all: reducible, and no irreducible cycle around it.
pub(crate) fn eligible(s: &Structure, outer_irr: &[u32], c: u32) -> bool {
    s.is_reducible(c) && outer_irr[c as usize] == NONE
}

impl UniformExits {
    fn setup<F: SsaFunction>(&mut self, f: &F) {
        let n = f.cfg().num_blocks();
        if self.seen_a.len() != n {
            self.seen_a = vec![0; n];
            self.seen_b = vec![0; n];
            self.stamp = 0;
            // About four block visits per block: the rule stays a small share of the analysis
            // (scripts/bench-precise.sh; with 16 per block plus 4,096 precise mode cost 10% more
            // on the benchmark module).
            self.budget = 4 * n as u64 + 128;
        }
        if self.candidate.len() != f.num_insts() as usize {
            self.candidate = vec![false; f.num_insts() as usize];
        }
    }

    /// Before a sweep of cycle `c`: brings its data up to date with the divergent terminators
    /// `div`; true when the rule may exempt a use there (it applies and some exit edge is
    /// uniformly taken). Uses not exempt now never are (divergence only grows), so the sweep
    /// marks them at once.
    pub(crate) fn prepare<F: SsaFunction>(
        &mut self,
        f: &F,
        s: &Structure,
        outer_irr: &[u32],
        div: &[bool],
        c: u32,
    ) -> bool {
        if !eligible(s, outer_irr, c) || self.exhausted {
            return false;
        }
        self.setup(f);
        // The staleness check counts the cycle's divergent terminators: charged to the budget,
        // so that a deep nest whose cycles all get a divergent exit stays linear.
        if !self.spend(s.blocks(c).len() as u64) {
            return false;
        }
        if self.stale(s, div, c) {
            let d = self.compute(f, s, outer_irr, div, c);
            self.store(s, c, d);
        }
        let d = &self.data[self.slot[c as usize] as usize - 1];
        d.applies && d.any_sync
    }

    /// Whether the use `(c, value, user)` is exempt by the data of the last [`prepare`] of `c`.
    ///
    /// [`prepare`]: UniformExits::prepare
    pub(crate) fn exempt_now<F: SsaFunction>(
        &self,
        f: &F,
        s: &Structure,
        c: u32,
        value: Inst,
        user: Inst,
    ) -> bool {
        self.exempt(f, s, (c, value, user))
    }

    /// Records `user` (outside cycle `c`) of `value` as exempt: not marked now, checked again by
    /// [`UniformExits::recheck`] when the propagation has drained.
    pub(crate) fn add<F: SsaFunction>(&mut self, f: &F, c: u32, value: Inst, user: Inst) {
        self.setup(f);
        self.candidate[value.index()] = true;
        self.pending.push((c, value, user));
        self.fresh = true;
    }

    /// Whether some use of `v` was a candidate (a sweep of an enclosing cycle must look at `v`
    /// again: its users outside may not be marked).
    pub(crate) fn is_candidate(&self, v: Inst) -> bool {
        self.candidate.get(v.index()).copied().unwrap_or(false)
    }

    /// Checks every kept use against the divergent terminators `div` (per block); returns the
    /// uses whose exemption no longer holds (removed from the list). Returns nothing at once when
    /// no kept use's cycle changed its divergent terminators and no use was added since the last
    /// check.
    pub(crate) fn recheck<F: SsaFunction>(
        &mut self,
        f: &F,
        s: &Structure,
        outer_irr: &[u32],
        div: &[bool],
    ) -> Vec<Use> {
        if self.pending.is_empty() {
            return Vec::new();
        }
        self.setup(f);
        // Cycles whose divergent terminators changed are computed again.
        let mut cycles: Vec<u32> = self.pending.iter().map(|p| p.0).collect();
        cycles.sort_unstable();
        cycles.dedup();
        let any_stale = cycles.iter().any(|&c| self.stale(s, div, c));
        if !any_stale && !std::mem::replace(&mut self.fresh, false) {
            return Vec::new();
        }
        self.fresh = false;
        for &c in &cycles {
            if self.stale(s, div, c) {
                let d = self.compute(f, s, outer_irr, div, c);
                self.store(s, c, d);
            }
        }
        let pending = std::mem::take(&mut self.pending);
        let mut revoked = Vec::new();
        for p in pending {
            if self.exempt(f, s, p) {
                self.pending.push(p);
            } else {
                revoked.push(p);
            }
        }
        revoked
    }

    /// The uses exempted at the end (valid for the final divergent terminators), sorted.
    pub(crate) fn exempted(&self) -> Vec<Use> {
        let mut v = self.pending.clone();
        v.sort_unstable();
        v.dedup();
        v
    }

    fn stale(&self, s: &Structure, div: &[bool], c: u32) -> bool {
        let k = self.slot.get(c as usize).copied().unwrap_or(0);
        k == 0 || self.data[k as usize - 1].divergent != count(s, div, c)
    }

    fn store(&mut self, s: &Structure, c: u32, d: CycleData) {
        if self.slot.len() != s.num_cycles() {
            self.slot = vec![0; s.num_cycles()];
            self.data.clear();
        }
        let k = self.slot[c as usize];
        if k == 0 {
            self.data.push(d);
            self.slot[c as usize] = self.data.len() as u32;
        } else {
            self.data[k as usize - 1] = d;
        }
    }

    /// Whether the use `(c, v, u)` is reached from `v` only through uniformly-taken exits of `c`
    /// (the cycle's data is current).
    fn exempt<F: SsaFunction>(&self, f: &F, s: &Structure, (c, v, u): Use) -> bool {
        let d = &self.data[self.slot[c as usize] as usize - 1];
        if !d.applies {
            return false;
        }
        let ub = f.inst_block(u);
        let bad = |b: Block| d.bad.binary_search(&b.0).is_ok();
        if f.is_phi(u) {
            // The value flows along the edges from the incoming blocks that carry it.
            let mut ok = true;
            f.phi_incoming_blocks_of(u, v, &mut |p| {
                ok &= if s.contains(c, p) {
                    d.async_edges.binary_search(&(p.0, ub.0)).is_err()
                } else {
                    !bad(p)
                };
            });
            ok
        } else {
            !bad(ub)
        }
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen_a.fill(0);
            self.seen_b.fill(0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// Spends `n` block visits; false when the budget is out.
    fn spend(&mut self, n: u64) -> bool {
        if self.exhausted || self.budget < n {
            self.exhausted = true;
            return false;
        }
        self.budget -= n;
        true
    }

    fn compute<F: SsaFunction>(
        &mut self,
        f: &F,
        s: &Structure,
        outer_irr: &[u32],
        div: &[bool],
        c: u32,
    ) -> CycleData {
        let mut d = CycleData {
            divergent: count(s, div, c),
            applies: false,
            async_edges: Vec::new(),
            bad: Vec::new(),
            any_sync: false,
        };
        if !eligible(s, outer_irr, c) || !self.spend(s.blocks(c).len() as u64) {
            return d;
        }
        let g = f.cfg();
        let h = s.header(c);
        for &e in s.blocks(c) {
            if g.succs(e).iter().all(|&x| s.contains(c, x)) {
                continue;
            }
            let uniform = !div[e.index()] && s.inner(e) == c;
            let taken_together = uniform && (e == h || !self.desync(f, s, div, c, e));
            if self.exhausted {
                return d;
            }
            if !taken_together {
                for &x in g.succs(e) {
                    if !s.contains(c, x) {
                        d.async_edges.push((e.0, x.0));
                    }
                }
            } else {
                d.any_sync = true;
            }
        }
        d.async_edges.sort_unstable();
        d.async_edges.dedup();
        // The region after the other exits: outside `c`, not entering a header of a cycle
        // around `c`.
        let stamp = self.next_stamp();
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        for &(_, x) in &d.async_edges {
            let x = Block(x);
            if self.seen_a[x.index()] != stamp && !heads_ancestor(s, c, x) {
                self.seen_a[x.index()] = stamp;
                stack.push(x);
            }
        }
        while let Some(b) = stack.pop() {
            d.bad.push(b.0);
            if !self.spend(1 + g.succs(b).len() as u64) {
                self.stack = stack;
                return d;
            }
            for &y in g.succs(b) {
                if self.seen_a[y.index()] != stamp && !s.contains(c, y) && !heads_ancestor(s, c, y)
                {
                    self.seen_a[y.index()] = stamp;
                    stack.push(y);
                }
            }
        }
        self.stack = stack;
        d.bad.sort_unstable();
        d.applies = true;
        d
    }

    /// Whether some divergent branch in `c` (header `h`) has a successor reaching exiting block
    /// `e` and another reaching `h` without passing `e`, each within one iteration.
    fn desync<F: SsaFunction>(
        &mut self,
        f: &F,
        s: &Structure,
        div: &[bool],
        c: u32,
        e: Block,
    ) -> bool {
        let g = f.cfg();
        let h = s.header(c);
        if !self.spend(2 * s.blocks(c).len() as u64) {
            return true;
        }
        let stamp = self.next_stamp();
        let mut stack = std::mem::take(&mut self.stack);
        // A: the blocks of `c` reaching `e` inside `c` without passing `h`.
        stack.clear();
        self.seen_a[e.index()] = stamp;
        stack.push(e);
        while let Some(b) = stack.pop() {
            for &p in g.preds(b) {
                if p != h && s.contains(c, p) && self.seen_a[p.index()] != stamp {
                    self.seen_a[p.index()] = stamp;
                    stack.push(p);
                }
            }
        }
        // B: the blocks of `c` reaching `h` (a latch, then the back edge) without passing `e`.
        for &p in g.preds(h) {
            if p != h && p != e && s.contains(c, p) && self.seen_b[p.index()] != stamp {
                self.seen_b[p.index()] = stamp;
                stack.push(p);
            }
        }
        while let Some(b) = stack.pop() {
            for &p in g.preds(b) {
                if p != h && p != e && s.contains(c, p) && self.seen_b[p.index()] != stamp {
                    self.seen_b[p.index()] = stamp;
                    stack.push(p);
                }
            }
        }
        self.stack = stack;
        let (a, bset) = (&self.seen_a, &self.seen_b);
        s.blocks(c).iter().any(|&d| {
            d != e && div[d.index()] && {
                let succs = g.succs(d);
                succs.iter().any(|&x| {
                    x != h
                        && s.contains(c, x)
                        && a[x.index()] == stamp
                        && succs
                            .iter()
                            .any(|&y| y != x && (y == h || bset[y.index()] == stamp))
                })
            }
        })
    }
}

/// The number of divergent terminators among the blocks of `c`.
fn count(s: &Structure, div: &[bool], c: u32) -> u32 {
    s.blocks(c).iter().filter(|b| div[b.index()]).count() as u32
}

/// Whether `b` is the header of a cycle strictly around `c`.
fn heads_ancestor(s: &Structure, c: u32, b: Block) -> bool {
    let cb = s.inner(b);
    cb != NONE && cb != c && s.header(cb) == b && s.contains_cycle(cb, c)
}
