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
    let mut frames: Vec<(Block, usize)> = Vec::new();
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
        frames.push((entry, 0));
        while let Some(&(b, _)) = frames.last() {
            if !full && left == 0 {
                break;
            }
            let succs = g.succs(b);
            let plain = if full {
                succs
                    .iter()
                    .copied()
                    .find(|x| !visited[x.index()] && (!reach[x.index()] || left == 0))
            } else {
                None
            };
            let next = match plain {
                Some(x) => Some(x),
                None => {
                    options.clear();
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
                    frames.push((x, 0));
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
