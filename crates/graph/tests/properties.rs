//! Every analysis checked against a slow, obviously-correct formulation on thousands of random
//! graphs: structured CFGs from `converge_gen::cfg` and arbitrary random digraphs (with
//! unreachable blocks, dead ends and infinite loops).

// Indices are block numbers here, used across several tables at once.
#![allow(clippy::needless_range_loop)]

mod common;
use common::from_random;
use converge_gen::cfg::{CfgParams, Shape, random_cfg};
use converge_gen::rng::Rng;
use converge_graph::{
    Block, Cfg, CycleDfs, CycleInfo, DominatorTree, Graph, PostDominatorTree, Rpo, UnreachablePreds,
};

fn graphs(seed: u64, count: usize) -> Vec<Cfg> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        if i % 2 == 0 {
            let shape = Shape::ALL[i / 2 % Shape::ALL.len()];
            let params = CfgParams::new(shape, 3 + rng.below(30));
            out.push(from_random(&random_cfg(&mut rng, &params)));
        } else {
            // Arbitrary digraph; edges into the entry are allowed here.
            let n = 1 + rng.below(16);
            let succs: Vec<Vec<Block>> = (0..n)
                .map(|_| {
                    let k = rng.below(4);
                    (0..k).map(|_| Block(rng.below(n) as u32)).collect()
                })
                .collect();
            out.push(Cfg::from_succs(Block(0), n, succs));
        }
    }
    out
}

fn reachable_from(g: &Cfg, from: Block, within: &dyn Fn(Block) -> bool, rev: bool) -> Vec<bool> {
    let mut seen = vec![false; g.num_blocks()];
    if !within(from) {
        return seen;
    }
    let mut stack = vec![from];
    seen[from.index()] = true;
    while let Some(b) = stack.pop() {
        let next = if rev { g.preds(b) } else { g.succs(b) };
        for &s in next {
            if within(s) && !seen[s.index()] {
                seen[s.index()] = true;
                stack.push(s);
            }
        }
    }
    seen
}

/// Recursive DFS on small graphs, as the textbook states it.
fn naive_dfs(
    g: &Cfg,
    b: Block,
    rev_succs: bool,
    seen: &mut [bool],
    pre: &mut Vec<Block>,
    post: &mut Vec<Block>,
) {
    seen[b.index()] = true;
    pre.push(b);
    let mut s: Vec<Block> = g.succs(b).to_vec();
    if rev_succs {
        s.reverse();
    }
    for x in s {
        if !seen[x.index()] {
            naive_dfs(g, x, rev_succs, seen, pre, post);
        }
    }
    post.push(b);
}

/// Iterative set-intersection dominators: dom[b] as a bit vector (u64 suffices: n <= 40 here).
fn naive_dom(
    n: usize,
    start: &[usize],
    preds: &dyn Fn(usize) -> Vec<usize>,
    live: &[bool],
) -> Vec<u64> {
    let all: u64 = if n == 64 { !0 } else { (1u64 << n) - 1 };
    let mut dom = vec![all; n];
    for &s in start {
        dom[s] = 1 << s;
    }
    loop {
        let mut changed = false;
        for b in 0..n {
            if !live[b] || start.contains(&b) {
                continue;
            }
            let mut d = all;
            for p in preds(b) {
                if live[p] {
                    d &= dom[p];
                }
            }
            d |= 1 << b;
            if d != dom[b] {
                dom[b] = d;
                changed = true;
            }
        }
        if !changed {
            return dom;
        }
    }
}

#[test]
fn orders_match_recursive_dfs() {
    for g in graphs(1, 3000) {
        let n = g.num_blocks();
        let (mut pre, mut post) = (Vec::new(), Vec::new());
        naive_dfs(
            &g,
            g.entry(),
            false,
            &mut vec![false; n],
            &mut pre,
            &mut post,
        );
        post.reverse();
        let rpo = Rpo::new(&g);
        assert_eq!(rpo.order(), &post[..]);
        for (i, b) in post.iter().enumerate() {
            assert_eq!(rpo.position(*b), Some(i as u32));
        }
        let (mut pre2, mut post2) = (Vec::new(), Vec::new());
        naive_dfs(
            &g,
            g.entry(),
            true,
            &mut vec![false; n],
            &mut pre2,
            &mut post2,
        );
        let dfs = CycleDfs::new(&g);
        assert_eq!(dfs.preorder(), &pre2[..]);
        // Parents: the entry has none; every other block's is a DFS ancestor with an edge to it,
        // numbered after every other ancestor.
        assert_eq!(dfs.parents().len(), pre2.len());
        for (i, &p) in dfs.parents().iter().enumerate() {
            assert_eq!(p, dfs.parent_at(i));
            let x = pre2[i];
            if i == 0 {
                assert_eq!(p, 0);
                continue;
            }
            let pb = pre2[p as usize - 1];
            assert!(dfs.is_ancestor(pb, x) && pb != x && g.succs(pb).contains(&x));
            assert!(
                pre2[..i]
                    .iter()
                    .filter(|&&a| dfs.is_ancestor(a, x))
                    .all(|&a| dfs.start(a) <= p)
            );
        }
        for a in 0..n as u32 {
            for x in 0..n as u32 {
                let (a, x) = (Block(a), Block(x));
                // Ancestor in the DFS tree == x reachable from a through tree edges; check via
                // preorder intervals computed from the recursive postorder.
                let naive = dfs.is_reachable(a) && dfs.is_reachable(x) && {
                    let pa = pre2.iter().position(|&b| b == a).unwrap();
                    let px = pre2.iter().position(|&b| b == x).unwrap();
                    let qa = post2.iter().position(|&b| b == a).unwrap();
                    let qx = post2.iter().position(|&b| b == x).unwrap();
                    pa <= px && qx <= qa
                };
                assert_eq!(dfs.is_ancestor(a, x), naive);
            }
        }
    }
}

#[test]
fn dominators_match_dataflow() {
    for g in graphs(2, 3000) {
        let n = g.num_blocks();
        let live = reachable_from(&g, g.entry(), &|_| true, false);
        let preds = |b: usize| g.preds(Block(b as u32)).iter().map(|p| p.index()).collect();
        let dom = naive_dom(n, &[g.entry().index()], &preds, &live);
        let dt = DominatorTree::new(&g);
        // The same tree from the cycle analysis's DFS (another spanning tree).
        let cycles = CycleInfo::new(&g);
        let mut shared = DominatorTree::default();
        shared.compute_from_dfs(&g, cycles.dfs());
        for b in 0..n as u32 {
            assert_eq!(shared.idom(Block(b)), dt.idom(Block(b)));
            assert_eq!(shared.level(Block(b)), dt.level(Block(b)));
            for a in 0..n as u32 {
                assert_eq!(
                    shared.dominates(Block(a), Block(b)),
                    dt.dominates(Block(a), Block(b))
                );
            }
        }
        for b in 0..n {
            let bb = Block(b as u32);
            assert_eq!(dt.is_reachable(bb), live[b]);
            if !live[b] {
                assert_eq!(dt.idom(bb), None);
                continue;
            }
            for a in 0..n {
                let expect = !live[a] && a == b || live[a] && dom[b] & (1 << a) != 0;
                assert_eq!(
                    dt.dominates(Block(a as u32), bb),
                    expect,
                    "{a} dom {b}: {g:?}"
                );
            }
            // The idom is the strict dominator with the most dominators itself.
            let strict = dom[b] & !(1 << b);
            let idom = (0..n)
                .filter(|&a| strict & (1 << a) != 0)
                .max_by_key(|&a| dom[a].count_ones());
            assert_eq!(dt.idom(bb).map(|d| d.index()), idom);
            if let Some(d) = idom {
                assert!(dt.children(Block(d as u32)).any(|c| c == bb));
                assert_eq!(dt.level(bb), dt.level(Block(d as u32)) + 1);
            }
        }
    }
}

#[test]
fn post_dominators_match_dataflow() {
    for g in graphs(3, 3000) {
        let n = g.num_blocks();
        let pdt = PostDominatorTree::new(&g);
        // Roots: first every block without successors, in order; then one block per region that
        // reaches none of them. Together they reach every block backwards.
        let exits: Vec<usize> = (0..n)
            .filter(|&b| g.succs(Block(b as u32)).is_empty())
            .collect();
        let roots: Vec<usize> = pdt.roots().iter().map(|r| r.index()).collect();
        assert_eq!(&roots[..exits.len()], &exits[..]);
        let mut live = vec![false; n];
        for &e in &roots {
            let r = reachable_from(&g, Block(e as u32), &|_| true, true);
            for b in 0..n {
                live[b] |= r[b];
            }
        }
        assert!(live.iter().all(|&l| l));
        let exits = roots;
        let succs = |b: usize| g.succs(Block(b as u32)).iter().map(|s| s.index()).collect();
        let pdom = naive_dom(n, &exits, &succs, &live);
        for b in 0..n {
            if !live[b] {
                continue;
            }
            for a in 0..n {
                if !live[a] {
                    continue;
                }
                let expect = pdom[b] & (1 << a) != 0;
                assert_eq!(
                    pdt.post_dominates(Block(a as u32), Block(b as u32)),
                    expect,
                    "{a} pdom {b}: {g:?}"
                );
            }
        }
        // Every block is in the tree, under the virtual exit at worst.
        for b in 0..n as u32 {
            assert!(pdt.post_dominates(Block(b), Block(b)));
        }
    }
}

#[test]
fn cycles_match_their_definition() {
    for g in graphs(4, 4000) {
        let n = g.num_blocks();
        let dfs = CycleDfs::new(&g);
        let ci = CycleInfo::new(&g);
        // The layout: every cycle's blocks are its range of it, and the top-level cycles' ranges
        // tile it in cycle order.
        let mut end = 0;
        for c in ci.cycles() {
            let (a, b) = ci.layout_range(c);
            assert_eq!(&ci.layout()[a as usize..b as usize], ci.blocks(c));
            if ci.parent(c).is_none() {
                assert_eq!(a, end);
                end = b;
            }
        }
        assert_eq!(end as usize, ci.layout().len());
        // Headers: targets of DFS back edges.
        let mut headers: Vec<Block> = (0..n as u32)
            .map(Block)
            .filter(|&h| dfs.is_reachable(h) && g.preds(h).iter().any(|&p| dfs.is_ancestor(h, p)))
            .collect();
        let mut ours: Vec<Block> = ci.cycles().map(|c| ci.header(c)).collect();
        headers.sort();
        ours.sort();
        assert_eq!(ours, headers, "{g:?}");
        let mut sets: Vec<Vec<bool>> = Vec::new();
        let (mut seen, mut exits_into) = (Vec::new(), Vec::new());
        for c in ci.cycles() {
            let h = ci.header(c);
            // Blocks: in h's DFS subtree and reaching h without leaving it.
            let inside = |b: Block| dfs.is_ancestor(h, b);
            let set = reachable_from(&g, h, &inside, true);
            let mut got = vec![false; n];
            for &b in ci.blocks(c) {
                assert!(!got[b.index()], "duplicate block");
                got[b.index()] = true;
            }
            assert_eq!(got, set, "blocks of cycle {h:?} in {g:?}");
            assert_eq!(ci.blocks(c)[0], h);
            let top = ci.outermost(c);
            assert!(ci.parent(top).is_none() && ci.contains_cycle(top, c));
            // Entries: blocks with a reachable predecessor outside; the header first.
            let mut entries: Vec<Block> = (0..n as u32)
                .map(Block)
                .filter(|&b| {
                    set[b.index()]
                        && g.preds(b)
                            .iter()
                            .any(|&p| dfs.is_reachable(p) && !set[p.index()])
                })
                .collect();
            if !entries.contains(&h) {
                // Only the entry block's cycle can lack an outside predecessor.
                assert_eq!(h, g.entry());
                entries.push(h);
            }
            let mut e = ci.entries(c).to_vec();
            assert_eq!(e[0], h);
            e.sort();
            entries.sort();
            assert_eq!(e, entries);
            assert_eq!(ci.is_reducible(c), entries.len() == 1);
            for b in 0..n as u32 {
                assert_eq!(ci.contains(c, Block(b)), set[b as usize]);
                // The O(1) test agrees with the list.
                assert_eq!(ci.is_entry(c, Block(b)), entries.contains(&Block(b)));
            }
            // Exits: successors outside, first-discovery order.
            let mut exits: Vec<Block> = Vec::new();
            for &b in ci.blocks(c) {
                for &s in g.succs(b) {
                    if !set[s.index()] && !exits.contains(&s) {
                        exits.push(s);
                    }
                }
            }
            assert_eq!(ci.exit_blocks(&g, c), exits);
            // The linear variant, its scratch reused across cycles (and left all false).
            ci.exit_blocks_into(&g, c, &mut seen, &mut exits_into);
            assert_eq!(exits_into, exits);
            assert!(seen.iter().all(|&x| !x));
            let exiting: Vec<Block> = ci
                .blocks(c)
                .iter()
                .copied()
                .filter(|&b| g.succs(b).iter().any(|s| !set[s.index()]))
                .collect();
            assert_eq!(ci.exiting_blocks(&g, c), exiting);
            sets.push(set);
        }
        let size = |c: usize| sets[c].iter().filter(|&&x| x).count();
        for c in ci.cycles() {
            // Parent: the smallest strictly larger cycle containing the header.
            let h = ci.header(c);
            let parent = ci
                .cycles()
                .filter(|&d| d != c && sets[d.index()][h.index()])
                .min_by_key(|d| size(d.index()));
            assert_eq!(ci.parent(c), parent);
            if let Some(p) = parent {
                assert!(
                    sets[c.index()]
                        .iter()
                        .zip(&sets[p.index()])
                        .all(|(a, b)| !a || *b)
                );
                assert_eq!(ci.depth(c), ci.depth(p) + 1);
                assert!(ci.children(p).contains(&c));
                assert!(p < c, "parents come first in print order");
            } else {
                assert_eq!(ci.depth(c), 1);
            }
        }
        for b in 0..n {
            let innermost = ci
                .cycles()
                .filter(|c| sets[c.index()][b])
                .min_by_key(|c| size(c.index()));
            assert_eq!(ci.cycle_of(Block(b as u32)), innermost);
            // The table form the hot loops read agrees with the per-block query.
            assert_eq!(ci.innermost_all()[b], innermost.map_or(u32::MAX, |c| c.0));
            for x in 0..n {
                let common = ci
                    .cycles()
                    .filter(|c| sets[c.index()][b] && sets[c.index()][x])
                    .min_by_key(|c| size(c.index()));
                assert_eq!(
                    ci.smallest_common_cycle_of_blocks(Block(b as u32), Block(x as u32)),
                    common
                );
            }
        }
    }
}

/// LLVM 19 counts unreachable predecessors too: the entries are then the blocks with any
/// predecessor outside the cycle (the header first), checked on the same graphs.
#[test]
fn llvm19_entries_count_unreachable_predecessors() {
    use converge_graph::UnreachablePreds;
    for g in graphs(5, 3000) {
        let n = g.num_blocks();
        let ci = CycleInfo::with_mode(&g, UnreachablePreds::AreEntries);
        for c in ci.cycles() {
            let h = ci.header(c);
            let set: Vec<bool> = (0..n as u32).map(|b| ci.contains(c, Block(b))).collect();
            let mut entries: Vec<Block> = (0..n as u32)
                .map(Block)
                .filter(|&b| {
                    b != h && set[b.index()] && g.preds(b).iter().any(|&p| !set[p.index()])
                })
                .collect();
            entries.push(h);
            let mut e = ci.entries(c).to_vec();
            assert_eq!(e[0], h);
            e.sort();
            entries.sort();
            assert_eq!(e, entries, "{g:?}");
            assert_eq!(ci.is_reducible(c), entries.len() == 1);
            for b in 0..n as u32 {
                assert_eq!(ci.is_entry(c, Block(b)), entries.contains(&Block(b)));
            }
        }
    }
}

/// One `CycleDfs`, `CycleInfo` and `DominatorTree` recomputed graph after graph (their buffers
/// kept from the previous, larger or smaller, graph) give what fresh ones give.
#[test]
fn reused_buffers_give_fresh_results() {
    let mut dfs = CycleDfs::default();
    let mut ci = CycleInfo::default();
    let mut dt = DominatorTree::default();
    let mut own = DominatorTree::default();
    for g in graphs(5, 600) {
        let n = g.num_blocks() as u32;
        dfs.compute(&g);
        let fresh = CycleDfs::new(&g);
        assert_eq!(dfs.preorder(), fresh.preorder());
        assert_eq!(dfs.parents(), fresh.parents());
        for i in 0..fresh.preorder().len() {
            assert_eq!(
                dfs.is_back_edge_target_at(i),
                fresh.is_back_edge_target_at(i)
            );
        }
        ci.compute(&g, UnreachablePreds::Ignore);
        let fresh_ci = CycleInfo::new(&g);
        assert_eq!(ci.layout(), fresh_ci.layout());
        dt.compute_from_dfs(&g, ci.dfs());
        own.compute(&g);
        let fresh_dt = DominatorTree::new(&g);
        for b in (0..n).map(Block) {
            assert_eq!(
                fresh_ci.cycle_of(b),
                ci.cycle_of(b),
                "innermost cycle of {b:?}"
            );
            for t in [&dt, &own] {
                assert_eq!(t.is_reachable(b), fresh_dt.is_reachable(b));
                assert_eq!(t.idom(b), fresh_dt.idom(b));
                assert_eq!(t.level(b), fresh_dt.level(b));
            }
            assert_eq!(own.interval(b), fresh_dt.interval(b));
        }
    }
}

/// `Cfg::rebuild` into one CFG, graph after graph (its buffers kept from the previous, larger or
/// smaller, graph), gives the successor lists it was given and the predecessor lists of the
/// definition: LLVM's use-list order for parsed text, sources in reverse block order and each
/// source's slots in reverse operand order.
#[test]
fn rebuilt_cfg_matches_the_use_list_order() {
    let mut cfg = Cfg::default();
    for g in graphs(6, 600) {
        let n = g.num_blocks();
        cfg.rebuild(g.entry(), |starts, succ| {
            starts.push(0);
            for b in 0..n {
                succ.extend_from_slice(g.succs(Block(b as u32)));
                starts.push(succ.len() as u32);
            }
        });
        assert_eq!(cfg.num_blocks(), n);
        assert_eq!(cfg.entry(), g.entry());
        for b in (0..n as u32).map(Block) {
            assert_eq!(cfg.succs(b), g.succs(b));
            let mut preds = Vec::new();
            for p in (0..n as u32).rev().map(Block) {
                preds.extend(g.succs(p).iter().rev().filter(|&&s| s == b).map(|_| p));
            }
            assert_eq!(cfg.preds(b), &preds[..], "preds of {b:?}");
        }
    }
}
