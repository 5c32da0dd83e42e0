//! Differential tests: `opt -passes='print<domtree>,print<postdomtree>'` (LLVM 22) against
//! [`DominatorTree`] and [`PostDominatorTree`] on random CFGs, ~100 functions per `opt` call.
//!
//! Dominators: the immediate dominator of every block must match (unreachable blocks have none in
//! both). Post-dominators: LLVM's tree hangs every root under a virtual exit; the roots (in order)
//! and the immediate post-dominator of every block must match, including blocks in regions that
//! never reach an exit, where the extra root comes from LLVM's `FindRoots` heuristic.

mod common;
use common::from_random;
use converge_gen::cfg::{CfgParams, RandomCfg, Shape, random_cfg, to_ll};
use converge_gen::reference::{opt22, run_opt};
use converge_gen::rng::Rng;
use converge_graph::{Block, DominatorTree, Graph, PostDominatorTree};
use std::collections::HashMap;

/// Per function: block name -> parent name (`None` for a root / the virtual exit's children).
type Trees = Vec<HashMap<String, Option<String>>>;

/// Parses the trees printed after each `header` line.
fn parse_trees(text: &str, header: &str) -> Trees {
    let mut out: Trees = Vec::new();
    let mut stack: Vec<Option<String>> = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with(header) {
            out.push(HashMap::new());
            stack.clear();
            inside = true;
            continue;
        }
        if line.ends_with("for function: ") || line.contains(" for function: ") {
            inside = false;
            continue;
        }
        let t = line.trim_start();
        if !inside || !t.starts_with('[') {
            continue;
        }
        let depth: usize = t[1..t.find(']').unwrap()].parse().unwrap();
        let rest = t[t.find(']').unwrap() + 1..].trim_start();
        let name = if rest.starts_with("<<exit node>>") {
            None
        } else {
            Some(
                rest.split_whitespace()
                    .next()
                    .unwrap()
                    .trim_start_matches('%')
                    .to_string(),
            )
        };
        stack.truncate(depth - 1);
        let parent = stack.last().cloned().flatten();
        if let Some(n) = &name {
            out.last_mut().unwrap().insert(n.clone(), parent);
        }
        stack.push(name);
    }
    out
}

/// An unstructured random digraph (no edges into the entry, which LLVM forbids): dead ends,
/// infinite loops, several exits and unreachable blocks in any arrangement.
fn arbitrary(rng: &mut Rng) -> RandomCfg {
    let n = 1 + rng.below(16);
    let succs: Vec<Vec<u32>> = (0..n)
        .map(|_| {
            let k = if n > 1 { rng.below(4) } else { 0 };
            (0..k).map(|_| 1 + rng.below(n - 1) as u32).collect()
        })
        .collect();
    let ends_unreachable = (0..n).map(|_| rng.chance(1, 3)).collect();
    RandomCfg {
        succs,
        ends_unreachable,
    }
}

#[test]
fn dominator_trees_match_llvm22() {
    let Some(opt) = opt22("dominator_trees_match_llvm22") else {
        return;
    };
    let mut rng = Rng::new(0xD0D0);
    let (mut functions, mut checked, mut pdom_checked, mut pdom_other) = (0, 0, 0, 0);
    for batch in 0..40 {
        let mut module = String::new();
        let mut cfgs = Vec::new();
        for i in 0..100 {
            let cfg = if batch % 2 == 0 {
                let shape = Shape::ALL[(batch * 100 + i) % Shape::ALL.len()];
                let params = CfgParams::new(shape, 3 + rng.below(40));
                random_cfg(&mut rng, &params)
            } else {
                arbitrary(&mut rng)
            };
            module.push_str(&to_ll(&cfg, &format!("f{i}")));
            cfgs.push(cfg);
        }
        let out = run_opt(
            &opt,
            &[
                "-passes=print<domtree>,print<postdomtree>",
                "-disable-output",
            ],
            &module,
        );
        assert!(out.success, "{}", out.stderr);
        let doms = parse_trees(&out.stderr, "DominatorTree for function: ");
        let pdoms = parse_trees(&out.stderr, "PostDominatorTree for function: ");
        // The `Roots:` line after each post-dominator tree.
        let roots: Vec<Vec<String>> = out
            .stderr
            .split("PostDominatorTree for function: ")
            .skip(1)
            .map(|sec| {
                let line = sec.lines().find(|l| l.starts_with("Roots:")).unwrap();
                line["Roots:".len()..]
                    .split_whitespace()
                    .map(|r| r.trim_start_matches('%').to_string())
                    .collect()
            })
            .collect();
        assert_eq!((doms.len(), pdoms.len()), (100, 100));
        for (i, r) in cfgs.iter().enumerate() {
            let g = from_random(r);
            let n = g.num_blocks();
            let name = |b: Block| format!("b{}", b.0);
            let fail = |what: &str, b: u32| {
                panic!(
                    "{what} of b{b} differs (batch {batch}, f{i})\n{}\n--- opt ---\n{}",
                    to_ll(r, &format!("f{i}")),
                    out.stderr
                        .split("for function: ")
                        .filter(|s| s.starts_with(&format!("f{i}\n")))
                        .collect::<Vec<_>>()
                        .join("\n")
                )
            };
            let dt = DominatorTree::new(&g);
            for b in 0..n as u32 {
                let theirs = doms[i].get(&format!("b{b}")).cloned();
                let ours = dt
                    .is_reachable(Block(b))
                    .then(|| dt.idom(Block(b)).map(name));
                if theirs != ours {
                    fail("idom", b);
                }
                checked += 1;
            }
            let pdt = PostDominatorTree::new(&g);
            let our_roots: Vec<String> = pdt.roots().iter().map(|&b| name(b)).collect();
            if our_roots != roots[i] {
                fail(
                    &format!("roots {our_roots:?} vs {:?}: the tree", roots[i]),
                    0,
                );
            }
            let exits: Vec<Block> = (0..n as u32)
                .map(Block)
                .filter(|&b| g.succs(b).is_empty())
                .collect();
            // Blocks that reach a block without successors.
            let mut live = vec![false; n];
            let mut stack = exits.clone();
            for e in &exits {
                live[e.index()] = true;
            }
            while let Some(b) = stack.pop() {
                for &p in g.preds(b) {
                    if !live[p.index()] {
                        live[p.index()] = true;
                        stack.push(p);
                    }
                }
            }
            for b in 0..n as u32 {
                let theirs = pdoms[i].get(&format!("b{b}")).cloned().flatten();
                let ours = pdt.ipdom(Block(b)).map(name);
                if theirs != ours {
                    fail("ipdom", b);
                }
                if live[b as usize] {
                    pdom_checked += 1;
                } else {
                    pdom_other += 1;
                }
            }
            functions += 1;
        }
    }
    eprintln!(
        "{functions} functions: {checked} idoms and {pdom_checked} + {pdom_other} ipdoms (blocks reaching an exit + the others) equal"
    );
    assert!(pdom_checked > functions * 5);
    assert!(
        pdom_other > functions / 4,
        "regions without exits are exercised"
    );
}
