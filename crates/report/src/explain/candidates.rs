//! Every reason that can explain one divergent value, each with its premise: a source rule, data
//! dependence on a divergent operand, a join of a divergent branch (sync dependence), temporal
//! divergence at a divergent cycle exit, or a cycle assumed divergent; with the witnesses that back
//! them (a branch reaching a cycle exit, diverged paths entering a cycle). Work is bounded: at most
//! [`MAX_ALTERNATIVES`] premises per kind, and a budget of searches per assumed-divergent cycle.

use super::analysed::Analysed;
use super::reasons::{Node, Reason, SourceRule};
use super::sources::{argument_rule, source_rule};
use crate::paths::{Bfs, disjoint_paths, shortest_path};
use converge_graph::{Block, Cycle, Graph};
use converge_ir::{Opcode, Value};
use converge_uniformity::{Mode, SsaFunction};
use std::collections::HashMap;

/// A divergent branch in a cycle reaching one of its exits: the premise of temporal divergence.
#[derive(Clone)]
pub(super) struct ExitWitness {
    pub(super) branch: Block,
    pub(super) exit: Block,
    pub(super) path: Vec<Block>,
}

#[derive(Clone)]
pub(super) struct EntryWitness {
    pub(super) branch: Block,
    entries: Vec<Block>,
    paths: Vec<Vec<Block>>,
}

/// Per join block: the divergent branches it is a join of.
pub(super) type JoinMemo = HashMap<Block, Vec<Block>>;

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

pub(super) fn candidates(
    a: &Analysed<'_>,
    n: Node,
    exit_w: &HashMap<u32, Vec<ExitWitness>>,
    assumed_w: &HashMap<u32, Vec<EntryWitness>>,
    diverged_w: &HashMap<u32, Vec<super::precise::DivergedWitness>>,
    branches: &[Block],
    join_memo: &mut JoinMemo,
) -> Vec<Reason> {
    let (f, s, u) = (a.lf.func, &a.s, &a.u);
    let mut out = Vec::new();
    let i = match n {
        Node::Arg(arg) => {
            if a.source_arg_reason(arg).is_some() {
                out.push(Reason::Source {
                    rule: SourceRule::Argument,
                    detail: argument_rule(a),
                });
            }
            return out;
        }
        Node::Inst(i) => i,
    };
    if let Some(reason) = a.source_reason(i) {
        let (rule, detail) = source_rule(a, i, reason);
        out.push(Reason::Source { rule, detail });
    }
    let ub = f.insts[i as usize].block;
    if a.mode == Mode::Precise {
        // Before data dependence: it says why the target's always-uniform rule does not apply.
        out.extend(super::precise::token_group(a, i));
    }
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
                if u.divergent_exit_cycles.contains(&Cycle(x))
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
    if inst.op == Opcode::Phi
        && !a
            .lf
            .phi_has_constant_or_undef_value(converge_uniformity::Inst(i))
    {
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
            // The paths are found when a chain shows this step too (`overlapping_paths`).
            for b in overlapping_branches(a, branches, ub) {
                out.push(Reason::Sync {
                    branch: b,
                    join: ub,
                    paths: [Vec::new(), Vec::new()],
                    disjoint: false,
                });
            }
        }
    }
    if !inst.op.is_terminator() {
        for c in u.assumed_divergent.iter().map(|c| c.0) {
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
    if a.mode == Mode::Precise {
        // Last, so that LLVM's reasons keep their place where they apply.
        out.extend(super::precise::candidates(
            a, i, exit_w, assumed_w, diverged_w,
        ));
    }
    out
}

/// Divergent branches reaching `j` from two distinct successors (not necessarily on disjoint
/// paths): the fallback for joins of the analysis's label propagation. Only whether the two paths
/// exist is decided here, for every phi that needs it; [`overlapping_paths`] finds them for the
/// steps a chain shows. Storing the paths of every candidate took memory quadratic in the size of
/// a function, and one search per successor of every branch took quadratic time.
fn overlapping_branches(a: &Analysed<'_>, branches: &[Block], j: Block) -> Vec<Block> {
    let g = a.lf.cfg();
    let dist = distances_to(g, j);
    let mut out = Vec::new();
    for &b in branches {
        let mut firsts: Vec<Block> = g.succs(b).to_vec();
        firsts.retain(|x| dist[x.index()] != u32::MAX);
        firsts.sort();
        firsts.dedup();
        if firsts.len() < 2 {
            continue;
        }
        let hits = firsts
            .iter()
            .filter(|&&x| reaches_avoiding(g, &dist, b, x, j))
            .take(2)
            .count();
        if hits == 2 {
            out.push(b);
            if out.len() >= MAX_ALTERNATIVES {
                break;
            }
        }
    }
    out
}

/// The two paths of [`overlapping_branches`]' branch `b` to `j`: from its first two successors (in
/// block order) that reach `j` without passing through `b`, the shortest such path of each,
/// with `b` in front. Empty paths if there are not two (the caller only asks for its branches).
pub(super) fn overlapping_paths(a: &Analysed<'_>, b: Block, j: Block) -> [Vec<Block>; 2] {
    let g = a.lf.cfg();
    let mut firsts: Vec<Block> = g.succs(b).to_vec();
    firsts.sort();
    firsts.dedup();
    let mut hits = firsts
        .iter()
        .filter_map(|&x| shortest_path(g, &[x], &|y| y == j, &|y| y != b || y == j))
        .map(|mut p| {
            p.insert(0, b);
            p
        });
    match (hits.next(), hits.next()) {
        (Some(p), Some(q)) => [p, q],
        _ => [Vec::new(), Vec::new()],
    }
}

/// Per block, the length of the shortest path from it to `j` (`u32::MAX`: none), by one backward
/// breadth-first search.
fn distances_to<G: Graph>(g: &G, j: Block) -> Vec<u32> {
    let mut dist = vec![u32::MAX; g.num_blocks()];
    dist[j.index()] = 0;
    let mut queue = std::collections::VecDeque::from([j]);
    while let Some(x) = queue.pop_front() {
        let d = dist[x.index()] + 1;
        for &p in g.preds(x) {
            if dist[p.index()] == u32::MAX {
                dist[p.index()] = d;
                queue.push_back(p);
            }
        }
    }
    dist
}

/// Whether a path from `x` to `j` avoids `b` (except as `j` itself), the question
/// [`overlapping_paths`]' search answers, mostly without searching: a shortest path from `x` to
/// `j` passes only through blocks nearer to `j` than `x`, so when `x` is no farther than `b` it
/// cannot contain `b`. Only a successor farther than its branch (its way to `j` may lead back
/// through the branch, e.g. a loop's header seen from its latch) is searched.
fn reaches_avoiding<G: Graph>(g: &G, dist: &[u32], b: Block, x: Block, j: Block) -> bool {
    if x == j {
        return true;
    }
    if x == b || dist[x.index()] == u32::MAX {
        return false;
    }
    if dist[x.index()] <= dist[b.index()] {
        return true;
    }
    shortest_path(g, &[x], &|y| y == j, &|y| y != b || y == j).is_some()
}

/// Per cycle, the exit edges that can leave its ancestors, for [`exit_witnesses`]' strict search:
/// an exit edge `u -> w` of cycle `x` leaves exactly the ancestors of `x` (`x` included) deeper
/// than the smallest cycle holding both `x` and `w` (its depth `L`, 0 if none). Kept: the least
/// `L` and its source `u`, and the least `L` of an edge from another source, so the least `L`
/// over the edges whose source is not a given branch is one lookup.
pub(super) struct ExitEdges {
    /// Per cycle: (least L, its source, least L from another source); `u32::MAX`: none.
    best: Vec<(u32, Block, u32)>,
}

impl ExitEdges {
    /// One walk per edge over the cycles it leaves (the same work as listing every cycle's
    /// exits).
    pub(super) fn new(a: &Analysed<'_>) -> ExitEdges {
        let (s, g) = (&a.s, a.lf.cfg());
        let mut best = vec![(u32::MAX, Block(u32::MAX), u32::MAX); s.num_cycles()];
        for u in (0..g.num_blocks() as u32).map(Block) {
            let Some(cu) = s.cycle_of(u) else { continue };
            for &w in g.succs(u) {
                // The cycles left: from u's innermost cycle out to the first one holding w.
                let mut top = Some(cu);
                while let Some(x) = top {
                    if s.contains(x, w) {
                        break;
                    }
                    top = s.parent(x);
                }
                let l = top.map_or(0, |x| s.depth(x));
                let mut x = Some(cu);
                while x != top {
                    let c = x.expect("the walk stops at `top`");
                    let e = &mut best[c as usize];
                    if e.1 == u {
                        e.0 = e.0.min(l);
                    } else if l < e.0 {
                        // The old least came from another source: it is the least from a
                        // source other than u now (every other edge had an L at least as large).
                        *e = (l, u, e.0);
                    } else {
                        e.2 = e.2.min(l);
                    }
                    x = s.parent(c);
                }
            }
        }
        ExitEdges { best }
    }

    /// The least L over exit edges of `inner` whose source is not `b`.
    fn least_without(&self, inner: u32, b: Block) -> u32 {
        let e = self.best[inner as usize];
        if e.1 == b { e.2 } else { e.0 }
    }
}

/// Divergent branches inside cycle `c` whose paths reach an exit of `c` (threads leave at
/// different iterations). Branches whose diverged paths leave their own innermost cycle outside
/// `c` come first (that is how the analysis finds the exit); others are kept as a fallback.
///
/// At most [`MAX_ALTERNATIVES`] are kept, so the searches stop there: the fallback is searched
/// only for as many branches as the first kind leaves room for. A branch's first-kind search
/// runs only if a successor lies outside `c` or an exit edge of its innermost cycle, from a block
/// other than the branch, leaves `c` ([`ExitEdges`]): otherwise every path it may take stays in
/// its innermost cycle and ends at the branch, and the search (the whole innermost cycle, on a
/// deep nest) would find nothing. The searches share `bfs`'s buffers.
pub(super) fn exit_witnesses(
    a: &Analysed<'_>,
    branches: &[Block],
    c: u32,
    edges: &ExitEdges,
    bfs: &mut Bfs,
) -> Vec<ExitWitness> {
    let (s, g) = (&a.s, a.lf.cfg());
    let mut strict = Vec::new();
    let mut rest = Vec::new();
    let outside = |x: Block| !s.contains(c, x);
    for &b in branches {
        if strict.len() >= MAX_ALTERNATIVES {
            break;
        }
        if !s.contains(c, b) {
            continue;
        }
        let inner = s.cycle_of(b).unwrap_or(c);
        let starts = g.succs(b);
        let may = starts.iter().any(|&x| x != b && outside(x))
            || s.depth(c) > edges.least_without(inner, b);
        let p = if may {
            bfs.shortest_path(g, starts, &outside, &|x| {
                x != b && (s.contains(inner, x) || !s.contains(c, x))
            })
        } else {
            None
        };
        match p {
            Some(mut p) => {
                p.insert(0, b);
                strict.push(ExitWitness {
                    branch: b,
                    exit: *p.last().unwrap(),
                    path: p,
                });
            }
            None => rest.push(b),
        }
    }
    for b in rest {
        if strict.len() >= MAX_ALTERNATIVES {
            break;
        }
        if let Some(mut p) = bfs.shortest_path(g, g.succs(b), &outside, &|x| x != b) {
            p.insert(0, b);
            strict.push(ExitWitness {
                branch: b,
                exit: *p.last().unwrap(),
                path: p,
            });
        }
    }
    strict
}

/// Divergent branches whose diverged paths enter cycle `c` at different entries (from outside),
/// or meet at a join inside `c` that the branch does not dominate (from inside).
///
/// Branches outside `c` from which `c` cannot be reached are skipped without a search; at most
/// [`MAX_ENTRY_SEARCHES`] others are searched (each a BFS, O(E)). Past that budget the witnesses
/// found so far are kept, and when there are none the branches that reach `c` are named without
/// paths ("reach it"): a weaker statement, still true.
pub(super) fn entry_witnesses(a: &Analysed<'_>, branches: &[Block], c: u32) -> Vec<EntryWitness> {
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
                .find_map(|&j| disjoint_paths(g, b, j, &[]).map(|p| (j, p)));
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
    if a.mode == Mode::Precise {
        // The branches found may depend on the cycle's own divergence (a branch inside it on a
        // value precise mode calls divergent because of the cycle); the ones that only reach it
        // keep a chain to a source possible.
        fallback.truncate(MAX_ALTERNATIVES);
        out.extend(fallback);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut of `reaches_avoiding` answers exactly what the search it replaces finds, on
    /// every (branch, successor, join) of small random graphs (self-loops, multi-edges and
    /// unreachable blocks included).
    #[test]
    fn reaches_avoiding_agrees_with_the_search() {
        let (mut shortcut, mut total) = (0, 0);
        for g in crate::paths::tests::graphs() {
            let n = g.num_blocks() as u32;
            for j in (0..n).map(Block) {
                let dist = distances_to(&g, j);
                for b in (0..n).map(Block) {
                    for &x in g.succs(b) {
                        let searched =
                            shortest_path(&g, &[x], &|y| y == j, &|y| y != b || y == j).is_some();
                        assert_eq!(
                            reaches_avoiding(&g, &dist, b, x, j),
                            searched,
                            "branch {b:?}, successor {x:?}, join {j:?}"
                        );
                        total += 1;
                        let d = dist[x.index()];
                        shortcut +=
                            usize::from(x == j || x == b || d == u32::MAX || d <= dist[b.index()]);
                    }
                }
            }
        }
        // Most answers come without a search, and some need one (both paths are exercised).
        assert!(
            shortcut * 2 > total && shortcut < total,
            "{shortcut} of {total}"
        );
    }
}
