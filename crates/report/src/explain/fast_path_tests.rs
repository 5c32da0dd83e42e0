//! The shortcuts of issue 13's session 21 against the searches they replace, on deep nests,
//! irreducible regions and random programs: exit witnesses ([`exit_witnesses`] with its
//! [`ExitEdges`] filter and early stop), a branch's joins ([`Analysed::join_blocks_limited`]
//! with its stop suffixes and `reached_in_cut`), and the summary's divergent exits of a branch
//! (`Ctx::branch_exits`, one search for every cycle). Each reference is the code before the
//! change, kept here.

use super::analysed::Analysed;
use super::candidates::{ExitEdges, exit_witnesses};
use crate::loc::LineIndex;
use crate::paths::{Bfs, shortest_path};
use crate::render::{Ctx, MAX_EXITS};
use converge_gen::program::{
    Flavor, Options, function, irreducible_module, module_header, tid_function_with_cfg,
};
use converge_gen::rng::Rng;
use converge_graph::{Block, Graph};
use converge_uniformity::llvm::Target;
use converge_uniformity::{LlvmVersion, Mode, SsaFunction};

/// The inputs: nests, the `irreducible` family, random programs with many back edges.
fn modules() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for n in [40, 300] {
        let mut t = module_header(Flavor::Amdgpu);
        let nest = converge_gen::cfg::nested_loops(n / 2).succs;
        t.push_str(&tid_function_with_cfg(Flavor::Amdgpu, "big", &nest));
        out.push((format!("nest {n}"), t));
    }
    for seed in [1, 3, 5, 8] {
        out.push((
            format!("irreducible {seed}"),
            irreducible_module(&mut Rng::new(seed), 400),
        ));
    }
    // Session 22's families of `explore`: loops left at many levels, token-anchored nests,
    // random nests with jumps into later loops, nested diamonds, loops of many latches.
    for (shape, n) in [
        ("exitnest", 200),
        ("tokens", 200),
        ("randnest", 300),
        ("diamonds", 120),
        ("latchy", 150),
    ] {
        let t = converge_gen::program::shapes::by_name(shape, &mut Rng::new(1), Flavor::Amdgpu, n)
            .unwrap_or_else(|| panic!("no shape {shape}"));
        out.push((format!("{shape} {n}"), t));
    }
    for seed in 1..=6 {
        let mut opts = Options::new(Flavor::Amdgpu);
        opts.extra_edges_percent = 40;
        opts.min_blocks = 60;
        opts.max_blocks = 200;
        let mut t = module_header(opts.flavor);
        t.push_str(&function(&mut Rng::new(seed), "f", &opts));
        out.push((format!("random {seed}"), t));
    }
    out
}

/// Every function of every input in LLVM 22's, LLVM 19's and precise mode's analysis.
fn each(mut f: impl FnMut(&str, &Analysed<'_>)) {
    for (name, text) in modules() {
        let m = converge_ir::parse("t.ll", text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let target = Target::from_triple(m.triple.as_deref(), None);
        for fid in (0..m.functions.len() as u32).map(converge_ir::FuncId) {
            if m.func(fid).blocks.is_empty() {
                continue;
            }
            for mode in [
                Mode::Llvm(LlvmVersion::V22),
                Mode::Llvm(LlvmVersion::V19),
                Mode::Precise,
            ] {
                let a = Analysed::new_with(&m, fid, &target, mode);
                f(&format!("{name} {mode:?}"), &a);
            }
        }
    }
}

fn branches(a: &Analysed<'_>) -> Vec<Block> {
    (0..a.num_blocks() as u32)
        .map(Block)
        .filter(|&b| a.is_divergent_branch(b))
        .collect()
}

/// The exit witnesses as they were found before: one search of each kind per branch in the
/// cycle, each with fresh buffers, then the first eight.
fn exit_witnesses_before(a: &Analysed<'_>, branches: &[Block], c: u32) -> Vec<(Block, Vec<Block>)> {
    let (s, g) = (&a.s, a.lf.cfg());
    let mut strict = Vec::new();
    let mut loose = Vec::new();
    for &b in branches {
        if !s.contains(c, b) {
            continue;
        }
        let inner = s.cycle_of(b).unwrap_or(c);
        let starts = g.succs(b);
        let outside = |x: Block| !s.contains(c, x);
        let p = shortest_path(g, starts, &outside, &|x| {
            x != b && (s.contains(inner, x) || !s.contains(c, x))
        });
        let (list, p) = match p {
            Some(p) => (&mut strict, Some(p)),
            None => (&mut loose, shortest_path(g, starts, &outside, &|x| x != b)),
        };
        if let Some(mut p) = p {
            p.insert(0, b);
            list.push((b, p));
        }
    }
    strict.extend(loose);
    strict.truncate(8);
    strict
}

#[test]
fn exit_witnesses_agree_with_the_searches_they_replace() {
    let mut compared = 0;
    each(|name, a| {
        let bs = branches(a);
        let edges = ExitEdges::new(a);
        let mut bfs = Bfs::default();
        for c in a.u.divergent_exit_cycles.iter().map(|c| c.0) {
            let fast: Vec<(Block, Vec<Block>)> = exit_witnesses(a, &bs, c, &edges, &mut bfs)
                .into_iter()
                .map(|w| {
                    assert_eq!(Some(&w.exit), w.path.last());
                    (w.branch, w.path)
                })
                .collect();
            assert_eq!(fast, exit_witnesses_before(a, &bs, c), "{name}, cycle {c}");
            compared += 1;
        }
    });
    assert!(compared > 500, "{compared} cycles compared");
}

/// A branch's joins as they were found before: every candidate asked [`Analysed::is_join`].
fn joins_before(
    a: &Analysed<'_>,
    b: Block,
    max_found: usize,
    max_tries: usize,
) -> (Vec<Block>, bool) {
    let g = a.lf.cfg();
    let n = g.num_blocks();
    let mut count = vec![0u8; n];
    let mut firsts: Vec<Block> = g.succs(b).to_vec();
    firsts.sort();
    firsts.dedup();
    for &s in &firsts {
        let mut seen = vec![false; n];
        let mut stack = vec![s];
        while let Some(x) = stack.pop() {
            if x == b || seen[x.index()] {
                continue;
            }
            seen[x.index()] = true;
            count[x.index()] = count[x.index()].saturating_add(1);
            stack.extend_from_slice(g.succs(x));
        }
    }
    let mut out = Vec::new();
    let mut tries = 0;
    for j in (0..n as u32).map(Block) {
        if !(count[j.index()] >= 2 || (j == b && g.preds(b).len() >= 2)) {
            continue;
        }
        if out.len() >= max_found || tries >= max_tries {
            return (out, true);
        }
        tries += 1;
        if a.is_join_by_set(b, j) {
            out.push(j);
        }
    }
    (out, false)
}

#[test]
fn join_candidates_agree_with_a_join_set_per_candidate() {
    let (mut compared, mut joins) = (0, 0);
    each(|name, a| {
        for b in branches(a) {
            for (found, tries) in [(16, 256), (usize::MAX, usize::MAX), (3, 40)] {
                let fast = a.join_blocks_limited(b, found, tries);
                assert_eq!(
                    fast,
                    joins_before(a, b, found, tries),
                    "{name}, branch {b:?}"
                );
                joins += fast.0.len();
                compared += 1;
            }
        }
    });
    // Both answers occur: branches with joins and without.
    assert!(
        compared > 2000 && joins > 1000,
        "{compared} branches, {joins} joins"
    );
}

/// The summary's exits of a branch as they were found before: one search per cycle.
fn branch_exits_before(a: &Analysed<'_>, b: Block) -> (Vec<(u32, Vec<Block>)>, bool) {
    let (s, g) = (&a.s, a.lf.cfg());
    let mut out = Vec::new();
    let mut c = s.cycle_of(b);
    while let Some(x) = c {
        if a.u.divergent_exit_cycles.iter().any(|d| d.0 == x) && out.len() == MAX_EXITS {
            return (out, true);
        }
        if a.u.divergent_exit_cycles.iter().any(|d| d.0 == x)
            && let Some(mut p) = shortest_path(g, g.succs(b), &|y| !s.contains(x, y), &|y| y != b)
        {
            p.insert(0, b);
            out.push((x, p));
        }
        c = s.parent(x);
    }
    (out, false)
}

#[test]
fn branch_exits_agree_with_one_search_per_cycle() {
    let (mut compared, mut exits, mut cut) = (0, 0, 0);
    each(|name, a| {
        let lines = LineIndex::new(&a.module().source);
        let ctx = Ctx { a, lines: &lines };
        for b in branches(a) {
            let fast = ctx.branch_exits(b);
            assert_eq!(fast, branch_exits_before(a, b), "{name}, branch {b:?}");
            compared += 1;
            exits += fast.0.len();
            cut += usize::from(fast.1);
        }
    });
    assert!(
        compared > 1000 && exits > 1000 && cut > 10,
        "{compared} branches, {exits} exits, {cut} cut"
    );
}

/// [`Analysed::is_join`] with its quick test against the join set alone, for every divergent
/// branch and every block: the quick test answers most queries (on a nest nearly all) and never
/// says no to a join.
#[test]
fn quick_join_test_agrees_with_the_join_sets() {
    let (mut compared, mut joins, mut ruled_out) = (0, 0, 0);
    each(|name, a| {
        let before = a.join_work().ruled_out;
        for &b in a.divergent_branches() {
            for j in (0..a.num_blocks() as u32).map(Block) {
                let slow = a.is_join_by_set(b, j);
                assert_eq!(a.is_join(b, j), slow, "{name}, branch {b:?}, block {j:?}");
                compared += 1;
                joins += usize::from(slow);
            }
        }
        ruled_out += a.join_work().ruled_out - before;
    });
    assert!(
        compared > 1_000_000 && joins > 100_000 && ruled_out * 2 > compared,
        "{compared} queries, {joins} joins, {ruled_out} ruled out"
    );
}
