//! Is one execution of AFTER possible in BEFORE? The comparison of two [`Observed`] runs of the
//! same configuration (threads, arguments, memory).
//!
//! Observations are matched per thread by callee and occurrence: the *k*-th execution of `@f` by
//! thread *t* in AFTER is compared with the *k*-th execution of `@f` by *t* in BEFORE. Call sites
//! are not used to match, because the transforms under test duplicate them (unrolling), merge them
//! (hoisting) and move them. Whatever AFTER's call site, the *k*-th `@f` of a thread is the same
//! operation of the source program, so what it communicates with must be what the original
//! could give it.
//!
//! For each dynamic instance of AFTER (a released group of threads):
//! - the matched BEFORE instances must be of one call site: converged dynamic instances are
//!   instances of the same static operation;
//! - where BEFORE's convergence is fixed (maximal convergence under the run's cycle hierarchy,
//!   `entry`), the sets must be equal;
//! - where it comes from an anchor, the anchor's grouping is implementation-defined: AFTER's groups
//!   say which anchor instances BEFORE must put together (a union-find over (thread, anchor
//!   instance)); then every BEFORE operation with that anchor group and the same loop-heart
//!   counters must communicate with exactly AFTER's set, and no group may hold two instances of
//!   one thread;
//! - an anchor of AFTER standing for an uncontrolled operation of a function that is not
//!   `convergent` is not freer: that grouping is implementation-defined in BEFORE too
//!   ("Opportunistic convergent operations"); the sets are still compared as fixed;
//! - AFTER may not be freer than BEFORE: two of AFTER's anchor instances in one thread that stand
//!   for one anchor instance of BEFORE could be grouped differently by an implementation, and an
//!   anchor of AFTER standing for fixed convergence of BEFORE could be grouped otherwise;
//! - results of operations whose set is the same are compared where the simulator computes them
//!   from operands and set (not for opaque convergent calls).

use crate::observe::{Obs, Observed, Root};
use std::collections::HashMap;

/// Why an execution of AFTER is not one of BEFORE's.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// Which criterion the operation breaks.
    pub kind: MismatchKind,
    /// The thread whose operation is reported.
    pub thread: u32,
    /// The callee of the operation, without `@`.
    pub callee: String,
    /// Occurrence of the callee in the thread (0-based).
    pub k: u32,
    /// The threads the operation communicates with in AFTER (sorted, the thread included).
    pub after_set: Vec<u32>,
    /// What BEFORE gives the same operation (in the run compared; for anchors: after the
    /// groupings AFTER forces).
    pub before_set: Option<Vec<u32>>,
    /// A sentence explaining the mismatch for the report.
    pub detail: String,
}

/// The kinds of difference between an execution of AFTER and BEFORE's executions, in the
/// order [`refine`](crate::refine) checks them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MismatchKind {
    /// AFTER executes a convergent operation the thread never executes in BEFORE.
    Extra,
    /// The communicating sets differ.
    Set,
    /// AFTER's implementation-defined grouping is freer than BEFORE's.
    Freer,
    /// Same set, different result.
    Result,
}

impl MismatchKind {
    /// The stable name used in reports and JSON (`"communicating-set"`, …).
    pub fn name(self) -> &'static str {
        match self {
            MismatchKind::Extra => "extra-operation",
            MismatchKind::Set => "communicating-set",
            MismatchKind::Freer => "freer-grouping",
            MismatchKind::Result => "result",
        }
    }
}

/// A dynamic instance of BEFORE under a grouping of its anchors: call site, loop-heart counters,
/// anchor group.
type InstanceKey = (u32, Vec<(u32, u32)>, usize);

struct Uf {
    parent: Vec<usize>,
}
impl Uf {
    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }
    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a.max(b)] = a.min(b);
        }
    }
}

fn mismatch(
    kind: MismatchKind,
    t: usize,
    a: &Obs,
    before: Option<Vec<u32>>,
    d: String,
) -> Mismatch {
    Mismatch {
        kind,
        thread: t as u32,
        callee: a.callee.clone(),
        k: a.k,
        after_set: a.set.clone(),
        before_set: before,
        detail: d,
    }
}

/// Compares one execution of AFTER with one of BEFORE (same configuration); `Ok` when AFTER's
/// observations are possible in BEFORE for some grouping of BEFORE's anchors.
pub fn compare(after: &Observed, before: &Observed) -> Result<(), Mismatch> {
    let nthreads = after.threads.len();
    // Anchor instances of BEFORE: (thread, class) -> node.
    let mut nodes: HashMap<(u32, u32), usize> = HashMap::new();
    for (t, obs) in before.threads.iter().enumerate() {
        for b in obs {
            if let Root::Anchor(_, c) = b.root {
                let n = nodes.len();
                nodes.entry((t as u32, c)).or_insert(n);
            }
        }
    }
    // Matched pairs, per after group.
    let mut by_group: HashMap<usize, Vec<(usize, &Obs, &Obs)>> = HashMap::new();
    // before anchor node -> the after anchor instance standing for it (per thread).
    let mut stands: HashMap<(u32, u32), (u32, u32)> = HashMap::new();
    for (t, obs) in after.threads.iter().enumerate() {
        for a in obs {
            let Some(b) = before.find(t, &a.callee, a.k) else {
                return Err(mismatch(
                    MismatchKind::Extra,
                    t,
                    a,
                    None,
                    format!(
                        "thread {t} executes @{} a {} time in AFTER, only {} time{} in BEFORE",
                        a.callee,
                        ordinal(a.k + 1),
                        a.k,
                        if a.k == 1 { "" } else { "s" }
                    ),
                ));
            };
            match (a.root, b.root) {
                (Root::Anchor(aa, ac), Root::Anchor(_, bc)) => {
                    if let Some(&prev) = stands.get(&(t as u32, bc))
                        && prev != (aa, ac)
                    {
                        return Err(mismatch(
                            MismatchKind::Freer,
                            t,
                            a,
                            Some(b.set.clone()),
                            format!(
                                "in BEFORE the operations of thread {t} that AFTER controls by two \
                                 different anchor instances share one anchor instance: an \
                                 implementation may group AFTER's instances differently"
                            ),
                        ));
                    }
                    stands.insert((t as u32, bc), (aa, ac));
                }
                (Root::Anchor(..), Root::Fixed) if nthreads > 1 && !b.opportunistic => {
                    return Err(mismatch(
                        MismatchKind::Freer,
                        t,
                        a,
                        Some(b.set.clone()),
                        "AFTER controls the operation by an anchor (implementation-defined \
                         grouping) where BEFORE's convergence is fixed"
                            .to_string(),
                    ));
                }
                _ => {}
            }
            by_group.entry(a.group).or_default().push((t, a, b));
        }
    }
    let mut uf = Uf {
        parent: (0..nodes.len()).collect(),
    };
    let mut groups: Vec<_> = by_group.into_values().collect();
    groups.sort_by_key(|g| (g[0].0, g[0].1.k));
    for members in &groups {
        let (t0, a0, b0) = members[0];
        for &(u, _, b) in members {
            if b.site != b0.site || b.hearts != b0.hearts || !same_root_kind(b.root, b0.root) {
                return Err(mismatch(
                    MismatchKind::Set,
                    t0,
                    a0,
                    Some(b0.set.clone()),
                    format!(
                        "threads {t0} and {u} communicate in AFTER, but in BEFORE they execute this \
                         operation at different dynamic instances (call sites or iterations)"
                    ),
                ));
            }
        }
        match b0.root {
            Root::Fixed => {
                for &(u, a, b) in members {
                    if b.set != a.set {
                        return Err(mismatch(
                            MismatchKind::Set,
                            u,
                            a,
                            Some(b.set.clone()),
                            String::new(),
                        ));
                    }
                }
            }
            Root::Anchor(_, c0) => {
                let n0 = nodes[&(t0 as u32, c0)];
                for &(u, _, b) in members {
                    if let Root::Anchor(_, c) = b.root {
                        let n = nodes[&(u as u32, c)];
                        uf.union(n0, n);
                    }
                }
            }
        }
    }
    // One anchor group holds at most one instance per thread.
    let mut owner: HashMap<(usize, u32), u32> = HashMap::new();
    let mut keys: Vec<_> = nodes.iter().map(|(&k, &v)| (k, v)).collect();
    keys.sort_unstable();
    for ((t, c), n) in keys {
        let r = uf.find(n);
        if let Some(&c2) = owner.get(&(r, t))
            && c2 != c
        {
            let (tt, a, _) = groups
                .iter()
                .flatten()
                .find(|(u, _, b)| *u == t as usize && b.root == Root::Anchor(anchor_of(b), c))
                .copied()
                .unwrap_or(groups[0][0]);
            return Err(mismatch(
                MismatchKind::Set,
                tt,
                a,
                None,
                format!(
                    "AFTER makes thread {t} communicate with the same threads at two different \
                     instances of one anchor of BEFORE, which no grouping of BEFORE's anchor allows"
                ),
            ));
        }
        owner.insert((r, t), c);
    }
    // BEFORE's sets under the forced anchor grouping.
    let mut before_sets: HashMap<InstanceKey, Vec<u32>> = HashMap::new();
    for (t, obs) in before.threads.iter().enumerate() {
        for b in obs {
            if let Root::Anchor(_, c) = b.root {
                // Anchor instances AFTER does not constrain stay alone: BEFORE may keep them apart.
                let r = uf.find(nodes[&(t as u32, c)]);
                before_sets
                    .entry((b.site, b.hearts.clone(), r))
                    .or_default()
                    .push(t as u32);
            }
        }
    }
    for members in &groups {
        let (_, _, b0) = members[0];
        if let Root::Anchor(_, _) = b0.root {
            for &(u, a, b) in members {
                let Root::Anchor(_, c) = b.root else { continue };
                let r = uf.find(nodes[&(u as u32, c)]);
                let mut s = before_sets
                    .get(&(b.site, b.hearts.clone(), r))
                    .cloned()
                    .unwrap_or_default();
                s.sort_unstable();
                s.dedup();
                if s != a.set {
                    return Err(mismatch(
                        MismatchKind::Set,
                        u,
                        a,
                        Some(s),
                        "with BEFORE's anchor instances grouped as AFTER's sets force".to_string(),
                    ));
                }
            }
        }
    }
    // Results, where BEFORE's run had the same set.
    for members in &groups {
        for &(u, a, b) in members {
            if let (Some(x), Some(y)) = (&a.result, &b.result)
                && b.set == a.set
                && !x.same(y)
            {
                return Err(mismatch(
                    MismatchKind::Result,
                    u,
                    a,
                    Some(b.set.clone()),
                    format!(
                        "same communicating set, result {} in AFTER, {} in BEFORE",
                        x.render(),
                        y.render()
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn anchor_of(b: &Obs) -> u32 {
    match b.root {
        Root::Anchor(a, _) => a,
        Root::Fixed => u32::MAX,
    }
}

fn same_root_kind(a: Root, b: Root) -> bool {
    match (a, b) {
        (Root::Fixed, Root::Fixed) => true,
        (Root::Anchor(x, _), Root::Anchor(y, _)) => x == y,
        _ => false,
    }
}

/// English ordinal for reports: `1st`, `2nd`, `3rd`, `11th`, `22nd`.
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, r) if r != 11 => "st",
        (2, r) if r != 12 => "nd",
        (3, r) if r != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}
