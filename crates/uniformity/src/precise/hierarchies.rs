//! Rule P1 decided by the cycle hierarchies themselves, when there are few.
//!
//! "Convergence And Uniformity" (*Maximal Convergence*, *m-converged Static Instances*): each
//! cycle hierarchy of a CFG gives its own maximal convergence, the hierarchies being those of the
//! depth-first traversals that pick the headers, and a value is uniform only when it is uniform
//! under all of them. Rule P1 (`irreducible`) gets that by assuming a whole outermost irreducible
//! region divergent as soon as a divergent branch keeps two successors in it, which is sound under
//! every hierarchy but often far from exact (a loop with a thread-dependent trip count nested in
//! the region). Here, when P1 would change the answer and the function has few hierarchies,
//! each one is analysed on its own with LLVM's rules for joins (P1 off; every other precise rule
//! on). That analysis is sound for the one hierarchy it is given (LLVM's rules are the seed's
//! criteria for a given hierarchy, with the bugs the other precise rules fix), so the union of
//! their divergent sets is sound for all of them, and it is the answer. The cycle lists are those
//! of LLVM's hierarchy; the values only another hierarchy makes divergent are recorded with it
//! ([`crate::OtherHierarchy`]) for the explanations. Past the caps P1 applies to every region, as
//! before.

use super::irreducible::{P1, outer_table};
use crate::analysis::{OtherHierarchy, Uniformity, analyze_precise_p1};
use crate::ssa::{DivergenceModel, SsaFunction};
use crate::structure::Structure;
use converge_graph::{Block, Cfg, CycleInfo, Graph};

/// At most this many depth-first traversals are tried; beyond it P1 applies whole.
pub(crate) const MAX_ORDERS: u64 = 64;
/// Functions with more blocks in irreducible regions keep P1 whole (the big irreducible nests
/// have far too many hierarchies anyway).
pub(crate) const MAX_REGION_BLOCKS: usize = 32;
/// Functions with more blocks keep P1 whole (each traversal walks the function).
pub(crate) const MAX_BLOCKS: usize = 2048;
/// At most this many distinct hierarchies are analysed; beyond it P1 applies whole.
pub(crate) const MAX_HIERARCHIES: usize = 8;

/// What precise mode's P1 by hierarchies decided for one function (for the tests and the
/// precision figures).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum P1Outcome {
    /// No cycle is assumed divergent: LLVM's hierarchy's joins are the answer.
    NotNeeded,
    /// Too many traversals, hierarchies or region blocks: P1 applies to every region.
    OverCap,
    /// LLVM's hierarchy's run (P1 off) has the region form's divergent sets: it is the answer
    /// (sound, those sets being the region form's) and the other hierarchies are not analysed
    /// (their union contains that run, so it could not be smaller). Its explanations name LLVM's
    /// hierarchy's joins rather than an assumed region.
    RegionsExact {
        /// Distinct hierarchies, LLVM's included.
        hierarchies: usize,
    },
    /// Every hierarchy analysed: the answer is the union of their divergent sets.
    ByHierarchies {
        /// Distinct hierarchies analysed, LLVM's included.
        hierarchies: usize,
        /// Values (instructions, terminators included) divergent under another hierarchy and
        /// uniform under LLVM's.
        from_others: usize,
    },
}

/// Precise mode's analysis of one function (see the module documentation).
pub(crate) fn analyze<F: SsaFunction, M: DivergenceModel<F>>(
    f: &F,
    model: &M,
    s: &Structure,
) -> Uniformity {
    analyze_outcome(f, model, s).0
}

/// [`analyze`], with what it decided.
pub(crate) fn analyze_outcome<F: SsaFunction, M: DivergenceModel<F>>(
    f: &F,
    model: &M,
    s: &Structure,
) -> (Uniformity, P1Outcome) {
    let whole = analyze_precise_p1(f, model, s, P1::Regions);
    if whole.assumed_divergent.is_empty() {
        // No cycle assumed divergent: this run is the per-hierarchy run of LLVM's hierarchy
        // (the two forms differ only there), which every union contains; and it is sound (P1 is).
        return (whole, P1Outcome::NotNeeded);
    }
    let outer = outer_table(s);
    let Some(hs) = enumerate(f.cfg(), s, &outer) else {
        return (whole, P1Outcome::OverCap);
    };
    // LLVM's own hierarchy (the structure we have) names the cycles of the answer.
    let mut out = analyze_precise_p1(f, model, s, P1::PerHierarchy);
    if out.divergent_insts == whole.divergent_insts
        && out.divergent_terminators == whole.divergent_terminators
        && out.divergent_args == whole.divergent_args
    {
        return (
            out,
            P1Outcome::RegionsExact {
                hierarchies: hs.count,
            },
        );
    }
    let mut from_others = 0;
    for ci in hs.others {
        let cycles = irreducible_cycles(&ci);
        let sh = Structure::from_parts(f.cfg(), s.dom.clone(), ci);
        let u = analyze_precise_p1(f, model, &sh, P1::PerHierarchy);
        let mut values = Vec::new();
        for (i, (acc, &d)) in out
            .divergent_insts
            .iter_mut()
            .zip(&u.divergent_insts)
            .enumerate()
        {
            if d && !*acc {
                *acc = true;
                values.push(crate::Inst(i as u32));
            }
        }
        for (b, (acc, &d)) in out
            .divergent_terminators
            .iter_mut()
            .zip(&u.divergent_terminators)
            .enumerate()
        {
            if d && !*acc {
                *acc = true;
                values.push(f.block_insts(Block(b as u32)).terminator());
            }
        }
        if !values.is_empty() {
            values.sort_unstable();
            from_others += values.len();
            out.other_hierarchies
                .push(OtherHierarchy { cycles, values });
        }
    }
    let outcome = P1Outcome::ByHierarchies {
        hierarchies: hs.count,
        from_others,
    };
    (out, outcome)
}

/// The cycles of `ci` inside irreducible regions (an irreducible cycle and its descendants), as
/// (header, sorted blocks), in cycle order.
fn irreducible_cycles(ci: &CycleInfo) -> Vec<(Block, Vec<Block>)> {
    let mut inside = vec![false; ci.len()];
    let mut out = Vec::new();
    for c in ci.cycles() {
        let i = ci.parent(c).is_some_and(|p| inside[p.index()]) || !ci.is_reducible(c);
        inside[c.index()] = i;
        if i {
            let mut b = ci.blocks(c).to_vec();
            b.sort_unstable();
            out.push((ci.header(c), b));
        }
    }
    out
}

/// The distinct hierarchies of a function other than LLVM's (`s`'s), and how many there are in
/// all.
pub(crate) struct Hierarchies {
    /// Cycles of each hierarchy other than LLVM's, computed on the CFG with reordered successors.
    pub(crate) others: Vec<CycleInfo>,
    /// Distinct hierarchies, LLVM's included.
    pub(crate) count: usize,
}

/// A hierarchy as a set: each cycle's header and sorted blocks, sorted.
fn key(ci: &CycleInfo) -> Vec<(Block, Vec<Block>)> {
    let mut k: Vec<(Block, Vec<Block>)> = ci
        .cycles()
        .map(|c| {
            let mut b = ci.blocks(c).to_vec();
            b.sort_unstable();
            (ci.header(c), b)
        })
        .collect();
    k.sort_unstable();
    k
}

/// Every distinct cycle hierarchy of `g`: LLVM's `CycleInfo` run on the CFG with its successors
/// reordered as each depth-first traversal that matters explores them; `None` past
/// [`MAX_ORDERS`] traversals, [`MAX_HIERARCHIES`] hierarchies or [`MAX_REGION_BLOCKS`] blocks in
/// irreducible regions.
///
/// Which traversals matter: the hierarchy is fixed outside the outermost irreducible regions (a
/// reducible cycle's header is its only entry, in every DFS), and inside them each cycle's header
/// is the entry the DFS reaches first. So only the relative preorder of the regions' blocks
/// counts. The traversals are enumerated as LLVM's DFS runs (lazily, one successor at a time):
/// a block's unvisited successors that cannot reach a region's block are explored first (they
/// never lead into one), and when two or more unvisited successors can, each of them is tried
/// next in turn (a choice point); once every region block is visited nothing is chosen any more.
/// The choice points form a tree whose leaves are the traversals, walked like an odometer by
/// replaying the traversal with a script of choices (no state is copied).
pub(crate) fn enumerate<G: Graph>(g: &G, s: &Structure, outer: &[u32]) -> Option<Hierarchies> {
    let n = g.num_blocks();
    // Blocks that reach a region's block (the regions' own blocks included).
    let mut in_region = vec![false; n];
    let mut region_blocks = 0usize;
    let mut reach = vec![false; n];
    let mut stack = Vec::new();
    for (c, &o) in outer.iter().enumerate() {
        if o == c as u32 {
            for &b in s.blocks(c as u32) {
                if !reach[b.index()] {
                    reach[b.index()] = true;
                    in_region[b.index()] = true;
                    region_blocks += 1;
                    stack.push(b);
                }
            }
        }
    }
    if region_blocks > MAX_REGION_BLOCKS || n > MAX_BLOCKS {
        return None;
    }
    while let Some(b) = stack.pop() {
        for &p in g.preds(b) {
            if !reach[p.index()] {
                reach[p.index()] = true;
                stack.push(p);
            }
        }
    }
    // First only count the traversals (cheap replays): most functions past the cap are found
    // there, before any hierarchy is built.
    walk(g, &in_region, &reach, region_blocks, false, &mut |_, _| {
        true
    })?;
    let mut keys = vec![key(&s.cycles)];
    let mut others = Vec::new();
    let mut seen: std::collections::HashSet<Vec<Block>> = Default::default();
    walk(
        g,
        &in_region,
        &reach,
        region_blocks,
        true,
        &mut |preorder, explored| {
            // The hierarchy depends only on the regions' blocks' preorder (each cycle's header is
            // its entry visited first): a preorder seen before gives a hierarchy seen before.
            if seen.insert(preorder.to_vec()) {
                let ci = hierarchy_of(g, explored);
                let k = key(&ci);
                if !keys.contains(&k) {
                    keys.push(k);
                    if keys.len() > MAX_HIERARCHIES {
                        return false;
                    }
                    others.push(ci);
                }
            }
            true
        },
    )?;
    Some(Hierarchies {
        others,
        count: keys.len(),
    })
}

/// What [`walk`] calls at the end of each traversal: the regions' blocks' preorder and the
/// successors each block explored; false stops the walk.
type Leaf<'a> = dyn FnMut(&[Block], &[Vec<Block>]) -> bool + 'a;

/// Replays every depth-first traversal that matters (see [`enumerate`]), calling `leaf` with
/// the regions' blocks' preorder and the successors each block explored; `None` past
/// [`MAX_ORDERS`] traversals or when `leaf` returns false. Unless `full`, a replay only follows
/// the blocks that reach a region and stops once every region block is visited: the choice
/// points are the same (a block that cannot reach a region leads only to such blocks, and once
/// every region block is visited nothing is chosen), so the count is, at a fraction of the cost,
/// but `explored` is partial.
///
/// Linear per replay in the blocks and edges: each frame keeps a cursor past its leading
/// visited successors (they stay visited for the rest of the replay, so no later scan needs
/// them), and a choice point's options are told apart by a stamp rather than searched. A choice
/// point with more than [`MAX_ORDERS`] options gives up at once: each of its options is tried
/// in a replay of its own, so the cap would be passed anyway. Before, a block with hundreds of
/// successors (an interpreter's dispatch `switch`) was rescanned from its first successor at
/// every return to it, with a linear search per option: 3.1 s for one 2,000-block function in
/// precise mode (issue 13's `interp` at 2,000 blocks).
fn walk<G: Graph>(
    g: &G,
    in_region: &[bool],
    reach: &[bool],
    region_blocks: usize,
    full: bool,
    leaf: &mut Leaf<'_>,
) -> Option<()> {
    let n = g.num_blocks();
    // The script: per choice point met so far, (choice, number of options).
    let mut script: Vec<(usize, usize)> = Vec::new();
    let mut explored: Vec<Vec<Block>> = vec![Vec::new(); n];
    let mut visited = vec![false; n];
    // Per block: the stamp of the last options list it was entered in.
    let mut listed = vec![0u32; n];
    let mut stamp = 0u32;
    // (block, index of its first successor not known to be visited, index of its first
    // successor not known to be visited or able to reach a region)
    let mut frames: Vec<(Block, usize, usize)> = Vec::new();
    let mut options: Vec<Block> = Vec::new();
    let mut preorder: Vec<Block> = Vec::new();
    for _ in 0..MAX_ORDERS {
        // Replay one traversal, following the script and extending it with first choices.
        for e in explored.iter_mut() {
            e.clear();
        }
        visited.iter_mut().for_each(|v| *v = false);
        let mut left = region_blocks;
        let mut point = 0usize;
        let entry = g.entry();
        visited[entry.index()] = true;
        left -= usize::from(in_region[entry.index()]);
        preorder.clear();
        if in_region[entry.index()] {
            preorder.push(entry);
        }
        frames.clear();
        frames.push((entry, 0, 0));
        while let Some(&(b, mut first, mut plain_at)) = frames.last() {
            if !full && left == 0 {
                break;
            }
            let all = g.succs(b);
            while first < all.len() && visited[all[first].index()] {
                first += 1;
                #[cfg(test)]
                tests::SCANS.with(|c| c.set(c.get() + 1));
            }
            let succs = &all[first..];
            // The first unvisited successor that cannot reach a region (or any, once every
            // region block is visited): explored before any choice.
            let plain = if !full {
                None
            } else if left == 0 {
                succs.first().copied()
            } else {
                plain_at = plain_at.max(first);
                while plain_at < all.len()
                    && (visited[all[plain_at].index()] || reach[all[plain_at].index()])
                {
                    plain_at += 1;
                    #[cfg(test)]
                    tests::SCANS.with(|c| c.set(c.get() + 1));
                }
                all.get(plain_at).copied()
            };
            if let Some(top) = frames.last_mut() {
                (top.1, top.2) = (first, plain_at);
            }
            let next = match plain {
                Some(x) => Some(x),
                None => {
                    options.clear();
                    if stamp == u32::MAX {
                        listed.iter_mut().for_each(|l| *l = 0);
                        stamp = 0;
                    }
                    stamp += 1;
                    #[cfg(test)]
                    tests::SCANS.with(|c| c.set(c.get() + succs.len() as u64));
                    for &x in succs {
                        let i = x.index();
                        if !visited[i] && reach[i] && listed[i] != stamp {
                            listed[i] = stamp;
                            options.push(x);
                        }
                    }
                    match options.len() {
                        0 => None,
                        1 => Some(options[0]),
                        k => {
                            if k as u64 > MAX_ORDERS {
                                return None;
                            }
                            if point == script.len() {
                                script.push((0, k));
                            }
                            let c = script[point].0;
                            point += 1;
                            Some(options[c])
                        }
                    }
                }
            };
            match next {
                Some(x) => {
                    visited[x.index()] = true;
                    left -= usize::from(in_region[x.index()]);
                    if in_region[x.index()] {
                        preorder.push(x);
                    }
                    explored[b.index()].push(x);
                    frames.push((x, 0, 0));
                }
                None => {
                    frames.pop();
                }
            }
        }
        if !leaf(&preorder, &explored) {
            return None;
        }
        // The next script: the last choice point with an option left moves on; later ones go.
        script.truncate(point);
        while let Some(last) = script.last_mut() {
            if last.0 + 1 < last.1 {
                last.0 += 1;
                break;
            }
            script.pop();
        }
        if script.is_empty() {
            return Some(());
        }
    }
    None
}

/// LLVM's cycles on `g` with each block's successors explored in the order `explored` lists
/// (the others, visited before the block reached them, anywhere).
fn hierarchy_of<G: Graph>(g: &G, explored: &[Vec<Block>]) -> CycleInfo {
    // LLVM's DFS takes successors from the back: the ones explored, last first, at the end.
    let cfg = Cfg::from_succs(
        g.entry(),
        g.num_blocks(),
        explored.iter().enumerate().map(|(b, ex)| {
            g.succs(Block(b as u32))
                .iter()
                .copied()
                .filter(|x| !ex.contains(x))
                .chain(ex.iter().rev().copied())
                .collect::<Vec<_>>()
        }),
    );
    CycleInfo::new(&cfg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use converge_gen::program::{Flavor, Options, random_cfg};
    use converge_gen::rng::Rng;

    thread_local! {
        /// Successors [`walk`] scanned on this thread.
        pub(super) static SCANS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// The walk as it was before its frames kept cursors (each return to a block rescanned its
    /// successors from the first, options searched linearly, no early stop on a wide choice
    /// point): the reference the new walk must agree with, replay by replay.
    fn walk_reference<G: Graph>(
        g: &G,
        in_region: &[bool],
        reach: &[bool],
        region_blocks: usize,
        full: bool,
        leaf: &mut Leaf<'_>,
    ) -> Option<()> {
        let n = g.num_blocks();
        let mut script: Vec<(usize, usize)> = Vec::new();
        let mut explored: Vec<Vec<Block>> = vec![Vec::new(); n];
        let mut visited = vec![false; n];
        let mut frames: Vec<Block> = Vec::new();
        let mut preorder: Vec<Block> = Vec::new();
        for _ in 0..MAX_ORDERS {
            explored.iter_mut().for_each(Vec::clear);
            visited.iter_mut().for_each(|v| *v = false);
            let mut left = region_blocks;
            let mut point = 0usize;
            let entry = g.entry();
            visited[entry.index()] = true;
            left -= usize::from(in_region[entry.index()]);
            preorder.clear();
            if in_region[entry.index()] {
                preorder.push(entry);
            }
            frames.clear();
            frames.push(entry);
            while let Some(&b) = frames.last() {
                if !full && left == 0 {
                    break;
                }
                let succs = g.succs(b);
                let plain = full
                    .then(|| {
                        succs
                            .iter()
                            .copied()
                            .find(|x| !visited[x.index()] && (!reach[x.index()] || left == 0))
                    })
                    .flatten();
                let next = plain.or_else(|| {
                    let mut options: Vec<Block> = Vec::new();
                    for &x in succs {
                        if !visited[x.index()] && reach[x.index()] && !options.contains(&x) {
                            options.push(x);
                        }
                    }
                    match options.len() {
                        0 => None,
                        1 => Some(options[0]),
                        k => {
                            if point == script.len() {
                                script.push((0, k));
                            }
                            let c = script[point].0;
                            point += 1;
                            Some(options[c])
                        }
                    }
                });
                match next {
                    Some(x) => {
                        visited[x.index()] = true;
                        left -= usize::from(in_region[x.index()]);
                        if in_region[x.index()] {
                            preorder.push(x);
                        }
                        explored[b.index()].push(x);
                        frames.push(x);
                    }
                    None => {
                        frames.pop();
                    }
                }
            }
            if !leaf(&preorder, &explored) {
                return None;
            }
            script.truncate(point);
            while let Some(last) = script.last_mut() {
                if last.0 + 1 < last.1 {
                    last.0 += 1;
                    break;
                }
                script.pop();
            }
            if script.is_empty() {
                return Some(());
            }
        }
        None
    }

    /// The region and reach tables of `enumerate` for `g`.
    fn tables(g: &Cfg) -> (Vec<bool>, Vec<bool>, usize) {
        let s = Structure::new(g);
        let outer = outer_table(&s);
        let n = g.num_blocks();
        let (mut in_region, mut reach, mut count) = (vec![false; n], vec![false; n], 0);
        let mut stack = Vec::new();
        for (c, &o) in outer.iter().enumerate() {
            if o == c as u32 {
                for &b in s.blocks(c as u32) {
                    if !reach[b.index()] {
                        (reach[b.index()], in_region[b.index()]) = (true, true);
                        count += 1;
                        stack.push(b);
                    }
                }
            }
        }
        while let Some(b) = stack.pop() {
            for &p in g.preds(b) {
                if !reach[p.index()] {
                    reach[p.index()] = true;
                    stack.push(p);
                }
            }
        }
        (in_region, reach, count)
    }

    type Replays = Vec<(Vec<Block>, Vec<Vec<Block>>)>;
    type Walk = fn(&Cfg, &[bool], &[bool], usize, bool, &mut Leaf<'_>) -> Option<()>;

    /// Every replay of `w` on `g` in both modes, and whether it finished.
    fn replays(g: &Cfg, w: Walk) -> [(Replays, bool); 2] {
        let (in_region, reach, count) = tables(g);
        [false, true].map(|full| {
            let mut seen = Vec::new();
            let done = w(g, &in_region, &reach, count, full, &mut |p, e| {
                seen.push((p.to_vec(), e.to_vec()));
                true
            });
            (seen, done.is_some())
        })
    }

    /// The CFG of successor lists, entry block 0.
    fn cfg(succs: &[Vec<u32>]) -> Cfg {
        Cfg::from_succs(
            Block(0),
            succs.len(),
            succs.iter().map(|s| s.iter().map(|&x| Block(x))),
        )
    }

    /// A random CFG, some of its blocks given many extra successors (dispatch `switch`es).
    fn random_wide(rng: &mut Rng, n: usize, wide: usize) -> Cfg {
        let mut opts = Options::new(Flavor::Amdgpu);
        opts.extra_edges_percent = 30 + rng.below(50) as u32;
        let mut succs = random_cfg(rng, n, &opts);
        let n = succs.len();
        for _ in 0..wide {
            let b = rng.below(n);
            for _ in 0..rng.below(3 * n) {
                succs[b].push(rng.below(n) as u32);
            }
        }
        cfg(&succs)
    }

    /// The walk with cursors, stamps and the early stop replays exactly the traversals of the
    /// reference walk, with the same explored successors, and finishes exactly when it does
    /// (a choice point wider than the cap stops the new walk at once, the reference after
    /// `MAX_ORDERS` replays: only the finished walks' replays are compared).
    #[test]
    fn walk_replays_as_the_reference_walk() {
        let (mut finished, mut stopped, mut compared) = (0, 0, 0);
        for seed in 1..=400u64 {
            let mut rng = Rng::new(0x3a1c_0000 + seed);
            let n = 4 + rng.below(20);
            let g = random_wide(&mut rng, n, (seed % 3) as usize);
            let new = replays(&g, walk);
            let old = replays(&g, walk_reference);
            for (a, b) in new.iter().zip(&old) {
                assert_eq!(a.1, b.1, "seed {seed}: finished differently");
                if a.1 {
                    assert_eq!(a.0, b.0, "seed {seed}: different replays");
                    finished += 1;
                    compared += a.0.len();
                } else {
                    stopped += 1;
                }
            }
        }
        assert!(
            finished > 300 && stopped > 20 && compared > 1000,
            "{finished} {stopped} {compared}"
        );
    }

    /// Linear per replay: a dispatch block with 1,000 successors, two of which lead into an
    /// irreducible cycle and the rest straight to the exit. The full walk explores the other
    /// 998 one by one before its choice; with every return to the dispatch rescanning its
    /// successors from the first, a replay scanned about 500,000 of them. And an interpreter's
    /// dispatch whose 600 successors all reach the region stops at its first choice point.
    #[test]
    fn walk_scans_each_successor_about_once_per_replay() {
        let d = 1_000u32;
        // 0 entry, 1 dispatch, 2..2+d handlers, then r1, r2, exit.
        let (r1, r2, exit) = (2 + d, 3 + d, 4 + d);
        let mut succs: Vec<Vec<u32>> = vec![vec![1], (2..2 + d).collect()];
        succs.extend((0..d).map(|i| match i {
            0 => vec![r1],
            1 => vec![r2],
            _ => vec![exit],
        }));
        succs.extend([vec![r2, exit], vec![r1], vec![]]);
        let g = cfg(&succs);
        let edges: usize = succs.iter().map(Vec::len).sum();
        let (in_region, reach, count) = tables(&g);
        assert_eq!(count, 2);
        for full in [false, true] {
            SCANS.with(|c| c.set(0));
            let mut replays = 0u64;
            let done = walk(&g, &in_region, &reach, count, full, &mut |_, _| {
                replays += 1;
                true
            });
            assert!(done.is_some());
            assert_eq!(replays, 2);
            let scans = SCANS.with(|c| c.get());
            assert!(
                scans <= replays * 3 * (succs.len() + edges) as u64,
                "full {full}: {scans} successors scanned in {replays} replays"
            );
        }
        // The interpreter: every handler returns to the dispatch, the region hangs off it.
        let d = 600u32;
        let (r1, r2) = (2 + d, 3 + d);
        let mut succs: Vec<Vec<u32>> = vec![vec![1], (2..2 + d).chain([r1, r2]).collect()];
        succs.extend((0..d).map(|_| vec![1]));
        succs.extend([vec![r2], vec![r1, 1]]);
        let g = cfg(&succs);
        let (in_region, reach, count) = tables(&g);
        SCANS.with(|c| c.set(0));
        let mut replays = 0u64;
        let done = walk(&g, &in_region, &reach, count, false, &mut |_, _| {
            replays += 1;
            true
        });
        assert!(done.is_none() && replays == 0);
        assert!(SCANS.with(|c| c.get()) <= 2 * succs.len() as u64 + 1_000);
    }
}
