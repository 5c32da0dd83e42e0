//! Work counts of the join propagation (issue 13): on every CFG family of the generators the
//! number of blocks the propagation processes and of exit edges the exit check looks at grows
//! linearly with the function, so a quadratic regression fails here whatever the machine's
//! speed; and the shortcuts that keep it linear change no answer (every list in the same order).

use crate::analysis::{Uniformity, knobs};
use crate::llvm::{LlvmFunction, Target};
use crate::precise::{Mode, analyze_with};
use crate::ssa::SsaFunction;
use crate::{LlvmVersion, Structure};
use converge_gen::cfg::{
    CfgParams, Ladder, Shape, chain_cfg, irreducible_ladder, irreducible_loop, ladder,
    many_exits_loop, nested_loops, random_cfg,
};
use converge_gen::program::{
    Flavor, Options, dag_back_edges_cfg, function_with_cfg, grid_back_edges_cfg, module_header,
    random_cfg as program_cfg, shapes, tid_function_with_cfg,
};
use converge_gen::rng::Rng;
use converge_ir::FuncId;

const MODES: [Mode; 3] = [
    Mode::Llvm(LlvmVersion::V22),
    Mode::Llvm(LlvmVersion::V19),
    Mode::Precise,
];

fn tid_module(succs: &[Vec<u32>]) -> String {
    let mut t = module_header(Flavor::Amdgpu);
    t.push_str(&tid_function_with_cfg(Flavor::Amdgpu, "f", succs));
    t
}

/// The answers for every function of `text`, and the work counted meanwhile.
fn run(text: &str, mode: Mode) -> (Vec<Uniformity>, u64) {
    let m = converge_ir::parse("t.ll", text.to_string()).expect("generated module parses");
    let target = Target::from_triple(m.triple.as_deref(), None);
    knobs::WORK.with(|c| c.set(0));
    knobs::EXIT_EDGES.with(|c| c.set(0));
    knobs::DOWN_VISITED.with(|c| c.set(0));
    knobs::CHAIN_STEPS.with(|c| c.set(0));
    let out = (0..m.functions.len())
        .filter(|&k| !m.functions[k].is_declaration)
        .map(|k| {
            let lf = LlvmFunction::new(&m, FuncId(k as u32));
            let s = Structure::new(lf.cfg());
            analyze_with(&lf, &target, &s, mode)
        })
        .collect();
    let work = knobs::WORK.with(|c| c.get())
        + knobs::EXIT_EDGES.with(|c| c.get())
        + knobs::DOWN_VISITED.with(|c| c.get())
        + knobs::CHAIN_STEPS.with(|c| c.get());
    (out, work)
}

/// `piece` (block 0 its entry, blocks without successors its ends) inside a reducible loop:
/// 0 entry, 1 header, the piece from 2, then the latch (back to 1, or out to the exit).
fn looped(piece: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let n = piece.len() as u32;
    let (latch, exit) = (2 + n, 3 + n);
    let mut s = vec![vec![1], vec![2]];
    for p in piece {
        s.push(if p.is_empty() {
            vec![latch]
        } else {
            p.iter().map(|&t| t + 2).collect()
        });
    }
    s.push(vec![1, exit]);
    s.push(Vec::new());
    s
}

/// The inputs of the growth test at `n` blocks: (family, module text).
fn family(name: &str, n: usize) -> String {
    let mut rng = Rng::new(4);
    match name {
        "irrloop" => tid_module(&irreducible_loop(n).succs),
        "irrladder" => tid_module(&irreducible_ladder(n).succs),
        "irrladder-up" => tid_module(&ladder(n, Ladder::Up).succs),
        "irrladder-loop" => tid_module(&ladder(n, Ladder::Looped).succs),
        "irrladder-unreach" => tid_module(&ladder(n, Ladder::LoopedUnreachable).succs),
        "chain-irreducible" => tid_module(&chain_cfg(&mut rng, n, Shape::Irreducible).succs),
        "chain-nestedirreducible" => {
            tid_module(&chain_cfg(&mut rng, n, Shape::NestedIrreducible).succs)
        }
        "chain-noreturn" => tid_module(&chain_cfg(&mut rng, n, Shape::NoReturn).succs),
        "dag" => tid_module(&dag_back_edges_cfg(&mut rng, n)),
        "dag-local" => tid_module(&converge_gen::program::dag_back_edges_cfg_with(
            &mut rng,
            n,
            converge_gen::program::DagParams::LOCAL,
        )),
        "grid" => tid_module(&grid_back_edges_cfg(&mut rng, n)),
        "nest" => tid_module(&nested_loops((n - 2) / 2).succs),
        "kernel" => {
            // `gen_uniformity kernel`: the big-module generator cut after its first kernel.
            let spec = |bytes| converge_gen::module::ModuleSpec {
                seed: 4,
                target: converge_gen::module::GpuTarget::Amdgpu,
                bytes,
                regions: n * 5 / 16,
            };
            let header = converge_gen::module::generate(&spec(1)).len();
            let helper = converge_gen::module::generate(&spec(header)).len();
            converge_gen::module::generate(&spec(helper))
        }
        "exits" => tid_module(&many_exits_loop((n - 3) / 2).succs),
        _ if let Some(t) = shapes::by_name(name, &mut rng, Flavor::Amdgpu, n) => t,
        "selfloops" => {
            let mut s: Vec<Vec<u32>> = (0..n as u32 - 1).map(|i| vec![i, i + 1]).collect();
            s[0] = vec![1];
            s.push(Vec::new());
            tid_module(&s)
        }
        "switch" => {
            let k = n as u32 - 2;
            let mut s = vec![(1..=k).collect::<Vec<u32>>()];
            s.extend((1..=k).map(|_| vec![k + 1]));
            s.push(Vec::new());
            tid_module(&s)
        }
        c if c.starts_with("chain-") => {
            let shape = Shape::ALL
                .into_iter()
                .find(|s| format!("chain-{s:?}").eq_ignore_ascii_case(c))
                .expect("a shape");
            tid_module(&chain_cfg(&mut rng, n, shape).succs)
        }
        _ => irreducible_text(&mut rng, n),
    }
}

/// Four times the blocks may cost at most about four times the work, and at most 40 steps per
/// block (the quadratic behaviour this guards against took about a thousand per block at 2,000
/// blocks and grew 11-16x per quadrupling on these families), in llvm mode (LLVM 22) and
/// precise mode. (`--llvm-version 19` keeps LLVM 19's own propagation, which has none of the
/// skips: 13x on chains of irreducible pieces.)
#[test]
fn join_work_grows_linearly() {
    for name in [
        "irrloop",
        "chain-irreducible",
        "chain-nestedirreducible",
        "dag",
        "irreducible",
    ] {
        let (small, large) = (family(name, 1000), family(name, 4000));
        for mode in [MODES[0], MODES[2]] {
            let (_, w1) = run(&small, mode);
            let (_, w4) = run(&large, mode);
            eprintln!("{name} {mode:?}: {w1} -> {w4}");
            // (The postponed branches of deep irreducible nests may spend a budget of 8 steps
            // per block and 32,768 per function before recording their exits early: hence the
            // additive term.)
            assert!(
                w4 <= 5 * w1 + 20 * 4_000,
                "{name}, {mode:?}: join work {w1} at 1,000 blocks, {w4} at 4,000"
            );
            assert!(
                w4 <= 40 * 4_000,
                "{name}, {mode:?}: join work {w4} at 4,000 blocks"
            );
        }
    }
}

/// Every family `gen_uniformity` makes (the one-shape families, chains of every shape, the DAG,
/// the irreducible function and the big-module generator's kernels), in every setting (LLVM 22, LLVM 19, precise): four times the
/// blocks cost at most about four times the join work. Before issue 13's last round LLVM 19's
/// propagation took 13x on chains of irreducible pieces and about 16x on `exits`, and precise
/// mode's reachability walk per branch (counted here too) about 9x on chains of irreducible
/// pieces.
#[test]
fn every_family_every_setting_is_linear() {
    let mut names = vec![
        "irrladder",
        "irrladder-up",
        "irrladder-loop",
        "irrladder-unreach",
        "kernel",
        "nest",
        "exits",
        "selfloops",
        "switch",
        "irrloop",
        "dag",
        "irreducible",
    ];
    let chains: Vec<String> = Shape::ALL
        .iter()
        .map(|s| format!("chain-{s:?}").to_lowercase())
        .collect();
    names.extend(chains.iter().map(String::as_str));
    assert_linear(&names);
}

/// Four times the blocks (1,000 to 4,000) cost at most about four times the join work, and at
/// most 40 steps a block, for each family in `names` and each setting.
fn assert_linear(names: &[&str]) {
    let mut failed = Vec::new();
    for &name in names {
        let (small, large) = (family(name, 1000), family(name, 4000));
        for mode in MODES {
            let (_, w1) = run(&small, mode);
            let (_, w4) = run(&large, mode);
            eprintln!("{name} {mode:?}: {w1} -> {w4}");
            if w4 > 5 * w1 + 20 * 4_000 || w4 > 40 * 4_000 {
                failed.push(format!("{name} {mode:?}: {w1} -> {w4}"));
            }
        }
    }
    assert!(failed.is_empty(), "super-linear join work: {failed:#?}");
}

/// The grid with back edges (`grid_back_edges_cfg`): a reducible loop around irreducible
/// cycles nested hundreds deep, some of whose exits leave the loop. Five skips keep it linear
/// (at most 80 join steps per block at 4,000 blocks, seeds 1 and 4):
/// - `NEEDS_EXIT`: a branch there is skipped once the cycles such exits could make
///   exit-divergent have a divergent exit (before, the candidate list never settled);
/// - `all_exits_known`'s cache asked first (before, a walk up the nest for every branch);
/// - branches that can only give cycles of the nest a divergent exit postponed past a work
///   budget and taken deepest first (before, those that came shallowest first each walked the
///   whole region);
/// - precise mode: a block joined from one branch of the nest is settled for all of them
///   (before, the header of the loop around it, whose phis stay uniform, never settled);
/// - a block of the assumed-divergent nest settled for all branches once its phis are done, not
///   only once the loop around it is assumed (before, each divergent branch of the loop outside
///   the nest walked the whole nest; their number grows with the grid, so the work grew about
///   2.9x per doubling from 8,000 blocks on seed 2).
///
/// Without one of the first four (those named below per setting) the work grows more than 12x
/// from 1,000 to 4,000 blocks and is more than 4x the work with all; without the last it is
/// 1.8-2.3x at 4,000 blocks (seed 1; the test asks 1.5x). The answers are the same with and without each (on the large
/// grids, where postponing applies and its budget depends on the work done, the cycles with a
/// divergent exit as a set).
#[test]
fn grid_is_linear_only_with_its_skips() {
    let skips: [(&'static std::thread::LocalKey<std::cell::Cell<bool>>, &str); 5] = [
        (&knobs::NO_NEEDS_EXIT, "needs-exit"),
        (&knobs::NO_KNOWN_FIRST, "known-first"),
        (&knobs::NO_NESTED_DEFER, "nested-defer"),
        (&knobs::NO_NESTED_JOINED, "nested-joined"),
        (&knobs::NO_NESTED_ALL, "nested-all"),
    ];
    // Per mode and skip: whether turning it off made some grid super-linear, or added half to
    // the work at 4,000 blocks.
    let mut needed = std::collections::BTreeSet::new();
    let mut halved = std::collections::BTreeSet::new();
    for seed in [1, 4] {
        let grid = |n| tid_module(&grid_back_edges_cfg(&mut Rng::new(seed), n));
        let (small, large) = (grid(1000), grid(4000));
        for mode in MODES {
            let (a1, w1) = run(&small, mode);
            let (a4, w4) = run(&large, mode);
            // Per block: the 1,000-block grid of seed 1 happens to be cheap, so its growth to
            // 4,000 says little; without a skip the work is 400 to 6,700 per block.
            assert!(w4 <= 80 * 4_000, "grid {seed} {mode:?}: {w1} -> {w4}");
            for (off, name) in skips {
                off.with(|c| c.set(true));
                let (p1, q1) = run(&small, mode);
                let (p4, q4) = run(&large, mode);
                off.with(|c| c.set(false));
                eprintln!("grid {seed} {mode:?}: {w1} -> {w4} (without {name}: {q1} -> {q4})");
                if q4 > 12 * q1 && q4 > 4 * w4 {
                    needed.insert(format!("{mode:?} {name}"));
                }
                if 2 * q4 > 3 * w4 {
                    halved.insert(format!("{mode:?} {name}"));
                }
                // Whether and when branches are postponed depends on the work done before (a
                // budget): without a skip the cycles with a divergent exit may come in another
                // order.
                for (sharp, plain) in [(&a1, &p1), (&a4, &p4)] {
                    assert!(
                        same_sets(sharp, plain),
                        "grid {seed} {mode:?}: {name} changed an answer"
                    );
                }
            }
        }
    }
    for mode in MODES {
        let names: &[&str] = if mode == Mode::Precise {
            &["needs-exit", "known-first", "nested-defer", "nested-joined"]
        } else {
            &["known-first"]
        };
        for name in names {
            assert!(
                needed.contains(&format!("{mode:?} {name}")),
                "{mode:?}: {name} made no grid linear ({needed:?})"
            );
        }
        assert!(
            halved.contains(&format!("{mode:?} nested-all")),
            "{mode:?}: nested-all saved less than a third ({halved:?})"
        );
    }
    let mut rng = Rng::new(21);
    for k in 0..12 {
        let text = tid_module(&grid_back_edges_cfg(&mut rng, 100 + 60 * k));
        for mode in MODES {
            let (sharp, _) = run(&text, mode);
            for (off, name) in skips {
                off.with(|c| c.set(true));
                let (plain, _) = run(&text, mode);
                off.with(|c| c.set(false));
                assert!(
                    same(&sharp, &plain),
                    "{mode:?}: {name}: grid {k} changed\n{text}"
                );
            }
        }
    }
}

/// The `grid` of seed 2 has no nest under a reducible loop at 4,000 blocks (its branches are
/// postponed as inside an assumed top-level cycle, cheaply) and has one at 8,000. There, with
/// the postponed branches' general budget (`deferred_budget`, whose base allows several whole-nest
/// walks at 8,000 blocks), the work grew 2.8x (LLVM settings) to 4x (precise) over that doubling,
/// 2.95-2.99x in the whole process; with one walk's budget (`nested_deferred_budget`) it grows
/// 1.6-1.7x. The test asks at most 2.2x with it and more than 2.5x without (so it would catch the
/// old budget), and the same sets either way.
#[test]
fn grid_seed_2_doubling_from_4000_is_linear() {
    let grid = |n| tid_module(&grid_back_edges_cfg(&mut Rng::new(2), n));
    let (small, large) = (grid(4000), grid(8000));
    // Measured without precise mode's late branches and exits first (`late.rs`), which make
    // both sizes cheaper (30,599 -> 56,053 steps become 6,836 -> 39,344) but not in proportion:
    // this test is about the nested budget.
    knobs::NO_LATE.with(|c| c.set(true));
    knobs::NO_EXITS_FIRST.with(|c| c.set(true));
    for mode in MODES {
        let (_, w4) = run(&small, mode);
        let (a8, w8) = run(&large, mode);
        knobs::NO_NESTED_BUDGET.with(|c| c.set(true));
        let (p8, q8) = run(&large, mode);
        knobs::NO_NESTED_BUDGET.with(|c| c.set(false));
        eprintln!("grid 2 {mode:?}: {w4} -> {w8} (general budget: {q8})");
        assert!(10 * w8 <= 22 * w4, "grid 2 {mode:?}: {w4} -> {w8}");
        assert!(
            2 * q8 > 5 * w4,
            "grid 2 {mode:?}: general budget {w4} -> {q8}"
        );
        assert!(
            same_sets(&a8, &p8),
            "grid 2 {mode:?}: the budget changed an answer"
        );
    }
    knobs::NO_LATE.with(|c| c.set(false));
    knobs::NO_EXITS_FIRST.with(|c| c.set(false));
}

/// An assumed-divergent irreducible region of `n` blocks (entered at two blocks by a branch on
/// the thread id, every branch in it on the thread id), left only through a uniform switch to
/// two exits `x1` and `x2`, then `tail`: the code after the region, given the names `x1` and
/// `x2` and ending in `end`. With `back`, each block's second successor is a random earlier
/// block (cycles nested deep, as in `gen_uniformity irreducible`); without, one of the next
/// three (the cycles all through the switch's edge back to the first block, a few levels deep).
fn region_then(n: usize, seed: u64, back: bool, tail: &str) -> String {
    use std::fmt::Write;
    let mut rng = Rng::new(seed);
    let mut t = String::from(
        "target triple = \"amdgcn-amd-amdhsa\"\n\
         declare i32 @llvm.amdgcn.workitem.id.x()\n\
         define amdgpu_kernel void @f(i32 %u, ptr addrspace(1) %p) {\n\
         entry:\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n\
         \x20 %ce = icmp eq i32 %tid, 0\n  %cu = icmp eq i32 %u, 0\n\
         \x20 br i1 %cu, label %side, label %pre\n\
         pre:\n  br i1 %ce, label %b0, label %b1\n",
    );
    for k in 0..n - 1 {
        let other = if back {
            rng.below(k + 1)
        } else {
            (k + 2 + rng.below(2)).min(n - 1)
        };
        let _ = write!(
            t,
            "b{k}:\n  %c{k} = icmp eq i32 %tid, {k}\n  br i1 %c{k}, label %b{}, label %b{other}\n",
            k + 1
        );
    }
    let last = n - 1;
    let _ = write!(
        t,
        "b{last}:\n  switch i32 %u, label %b0 [\n    i32 1, label %x1\n    i32 2, label %x2\n  ]\n\
         {tail}\
         end:\n  store i32 %i1, ptr addrspace(1) %p\n  ret void\n}}\n"
    );
    t
}

/// `region_then` (one cycle) with a reducible loop after the region (`l`), entered from `k`.
/// The exits meet at `j` (no phi: settled), and `k` is reached from `j` and from `side`, a
/// block before the region: its phi (values 1 and 2) never becomes divergent, since every
/// label that reaches `k` comes through `j`, nor does the loop's. A walk that takes any block
/// reached from two exits as a join candidate keeps `k` and `l` for ever: the region's
/// candidates never all settle, and every branch of the region propagates over the whole
/// region (`gen_uniformity irreducible 64000 2`).
fn region_join_then_loop(n: usize, seed: u64) -> String {
    region_then(
        n,
        seed,
        false,
        "x1:\n  br label %j\nx2:\n  br label %j\nj:\n  br label %k\n\
         side:\n  br label %k\n\
         k:\n  %v = phi i32 [ 1, %j ], [ 2, %side ]\n  br label %l\n\
         l:\n  %i = phi i32 [ %v, %k ], [ %i1, %l ]\n  %i1 = add i32 %i, 1\n\
         \x20 %cl = icmp ult i32 %i1, %u\n  br i1 %cl, label %l, label %end\n",
    )
}

/// `region_then` (cycles nested deep) with an irreducible cycle after the region (`m1` and
/// `m2`, both entered from `k`). As in `region_join_then_loop`, the exits meet at `j` and `k`
/// is reached from `j` and from `side`, a block before the region: its phi never becomes
/// divergent, since every label that reaches `k` comes through `j`, and the labels entering
/// the cycle are all `k`'s. A token walk that gives up at the cycle keeps `k` a candidate for
/// ever (`gen_uniformity irreducible 64000 5`).
fn region_join_then_irreducible(n: usize, seed: u64) -> String {
    region_then(
        n,
        seed,
        true,
        "x1:\n  br label %j\nx2:\n  br label %j\nj:\n  br label %k\n\
         side:\n  br label %k\n\
         k:\n  %v = phi i32 [ 1, %j ], [ 2, %side ]\n  %ck = icmp ult i32 %v, %u\n\
         \x20 br i1 %ck, label %m1, label %m2\n\
         m1:\n  %i = phi i32 [ %v, %k ], [ %i2, %m2 ]\n  %i1 = add i32 %i, 1\n\
         \x20 %cl = icmp ult i32 %i1, %u\n  br i1 %cl, label %m2, label %end\n\
         m2:\n  %i2 = phi i32 [ 0, %k ], [ %i1, %m1 ]\n  br label %m1\n",
    )
}

/// Behind an assumed-divergent region with cycles nested deep, an irreducible cycle after the
/// region (`region_join_then_irreducible`) no longer keeps a block that is never a join among
/// the region's join candidates (the token walk stands the cycle as its header), and once the
/// candidates are settled, branches that may still give cycles of the region a divergent exit
/// are postponed (deepest first). Without either (`NO_IRREDUCIBLE_TOKENS`,
/// `NO_CANDIDATE_DEFER`) each such branch walks the whole region: 2,000 -> 8,000 blocks went
/// 4,106,557 -> 65,458,647 steps in LLVM 22's setting, against 142,548 -> 281,280 with both.
/// Same sets; postponing reorders the printed cycles with a divergent exit in the LLVM
/// settings (a list LLVM prints in hash order beyond 16 entries), not in precise mode.
#[test]
fn join_after_region_before_irreducible_cycle_is_linear() {
    let (small, large) = (
        region_join_then_irreducible(1500, 3),
        region_join_then_irreducible(6000, 3),
    );
    let mid = region_join_then_irreducible(3000, 3);
    for mode in MODES {
        let (a1, w1) = run(&small, mode);
        let (_, w4) = run(&large, mode);
        eprintln!("{mode:?}: {w1} -> {w4}");
        assert!(w4 <= 6 * w1, "{mode:?}: {w1} -> {w4}");
        for knob in [&knobs::NO_CANDIDATE_DEFER, &knobs::NO_IRREDUCIBLE_TOKENS] {
            let (p1, _) = run_without(knob, &small, mode);
            assert!(same_sets(&a1, &p1), "{mode:?}: answers changed");
            if matches!(mode, Mode::Precise) {
                assert!(same(&a1, &p1), "{mode:?}: order changed");
            }
        }
    }
    // Quadratic without either shortcut (LLVM 22's setting; the others alike, see above). (The
    // exit-seeded candidates, session 22, settle here too, and since session 23 postpone as the
    // token walk's do: the token walk's effect is measured without them.)
    let mode = MODES[0];
    let (_, w2) = run(&mid, mode);
    for knob in [&knobs::NO_CANDIDATE_DEFER, &knobs::NO_IRREDUCIBLE_TOKENS] {
        knob.with(|c| c.set(true));
        knobs::NO_SEEDED_CANDIDATES.with(|c| c.set(true));
        let (_, q1) = run(&small, mode);
        let (_, q2) = run(&mid, mode);
        knobs::NO_SEEDED_CANDIDATES.with(|c| c.set(false));
        knob.with(|c| c.set(false));
        eprintln!("without one shortcut: {q1} -> {q2} (with: {w2})");
        assert!(q2 > 3 * q1 && q2 > 10 * w2, "{q1} -> {q2}, with both {w2}");
    }
}

/// `region_then` with the exits meeting at `j`, whose phi (values 1 and 2) stays uniform (both
/// exits always carry the switch block's label), then a reducible loop: `j` is a join candidate
/// of the region that never settles, whatever the walk (session 16's postponing behind
/// reducible loops made this quadratic).
fn region_then_loop(n: usize, seed: u64) -> String {
    region_then(
        n,
        seed,
        true,
        "x1:\n  br label %j\nx2:\n  br label %j\n\
         side:\n  br label %j\n\
         j:\n  %v = phi i32 [ 1, %x1 ], [ 2, %x2 ], [ 1, %side ]\n  br label %l\n\
         l:\n  %i = phi i32 [ %v, %j ], [ %i1, %l ]\n  %i1 = add i32 %i, 1\n\
         \x20 %cl = icmp ult i32 %i1, %u\n  br i1 %cl, label %l, label %end\n",
    )
}

/// The join candidates after an assumed-divergent top-level cycle followed by reducible loops
/// come from the token walk over the code after it with each loop condensed to its header
/// (`token_join_candidates`): a block reached from two exits only through one join is no
/// candidate. Without that (the two-state walk, `NO_CYCLE_TOKENS`) the work grows 16x from
/// 1,000 to 4,000 blocks of `region_join_then_loop` in the LLVM settings (1,015,167 ->
/// 16,060,911 steps in LLVM 22's); with it 4x (4,010 -> 16,010). Same answers, every list in the
/// same order. `region_then_loop`, whose candidate never settles, stays linear. Precise mode
/// grows 16x on `region_join_then_loop` with either walk (1,003,104 -> 16,012,848): not through
/// the candidates (open, issue 13), so only its answers are compared.
#[test]
fn join_after_region_before_loop_is_linear() {
    for (name, make, quadratic_without) in [
        (
            "join then loop",
            region_join_then_loop as fn(usize, u64) -> String,
            true,
        ),
        ("region then loop", region_then_loop, false),
    ] {
        let (small, large) = (make(1000, 3), make(4000, 3));
        for mode in MODES {
            let (a1, w1) = run(&small, mode);
            let (a4, w4) = run(&large, mode);
            // (The exit-seeded candidates, session 22, make the two-state walk linear here too:
            // the token walk's effect is measured without them.)
            knobs::NO_CYCLE_TOKENS.with(|c| c.set(true));
            knobs::NO_SEEDED_CANDIDATES.with(|c| c.set(true));
            let (p1, q1) = run(&small, mode);
            let (p4, q4) = run(&large, mode);
            knobs::NO_CYCLE_TOKENS.with(|c| c.set(false));
            knobs::NO_SEEDED_CANDIDATES.with(|c| c.set(false));
            eprintln!("{name} {mode:?}: {w1} -> {w4} (two-state walk: {q1} -> {q4})");
            if matches!(mode, Mode::Precise) && quadratic_without {
                assert!(same(&a4, &p4), "{name} {mode:?}: answers changed");
                continue;
            }
            assert!(w4 <= 6 * w1, "{name} {mode:?}: {w1} -> {w4}");
            if quadratic_without {
                assert!(
                    q4 > 10 * q1 && q4 > 4 * w4,
                    "{name} {mode:?}: two-state walk {q1} -> {q4}"
                );
            }
            assert!(
                same(&a1, &p1) && same(&a4, &p4),
                "{name} {mode:?}: answers changed"
            );
        }
    }
}

/// The token walk through reducible top-level cycles after an assumed-divergent cycle
/// (`token_join_candidates`) changes no answer and no order, in every mode, against the token
/// walk over acyclic code only and against the two-state walk; through irreducible ones too,
/// but for the order postponing then allows (`NO_CANDIDATE_DEFER`): on the `irreducible` family
/// (several seeds, whose big cycles are followed by loops), the other families, random
/// functions of every shape with mixed uniform and divergent branches, and random CFGs of every
/// shape with every branch on the thread id (chains of cycles, pieces in loops).
#[test]
fn cycle_tokens_change_nothing() {
    let mut inputs: Vec<String> = Vec::new();
    for seed in 1..=6 {
        inputs.push(bench_irreducible(1500, seed));
    }
    for name in ["nest", "exits", "irrloop", "dag", "irreducible", "kernel"] {
        inputs.push(family(name, 600));
    }
    inputs.push(region_join_then_loop(300, 5));
    inputs.push(region_then_loop(300, 5));
    inputs.push(region_join_then_irreducible(300, 5));
    inputs.push(region_join_then_irreducible(1200, 6));
    inputs.extend(mixed_random_inputs(17, 30, 40));
    let (mut w_sharp, mut w_acyclic) = (0, 0);
    let set = |knob: &'static std::thread::LocalKey<std::cell::Cell<bool>>, on: bool| {
        knob.with(|c| c.set(on))
    };
    for text in &inputs {
        for mode in MODES {
            // Postponing on settled candidates (`NO_CANDIDATE_DEFER`) is the only thing the
            // walks' candidates can reorder: off for the orders, on for the sets.
            let (sharp_deferred, _) = run(text, mode);
            set(&knobs::NO_CANDIDATE_DEFER, true);
            let (sharp, w) = run(text, mode);
            set(&knobs::NO_CYCLE_TOKENS, true);
            let (acyclic, wa) = run(text, mode);
            set(&knobs::NO_CYCLE_TOKENS, false);
            set(&knobs::TWO_STATE_CANDIDATES, true);
            let (two_state, _) = run(text, mode);
            set(&knobs::TWO_STATE_CANDIDATES, false);
            set(&knobs::NO_IRREDUCIBLE_TOKENS, true);
            let (reducible_only, _) = run(text, mode);
            set(&knobs::NO_CANDIDATE_DEFER, false);
            let (reducible_only_deferred, _) = run(text, mode);
            set(&knobs::NO_IRREDUCIBLE_TOKENS, false);
            assert!(
                same(&sharp, &acyclic),
                "{mode:?}: cycle tokens changed\n{text}"
            );
            assert!(same(&sharp, &two_state), "{mode:?}: tokens changed\n{text}");
            assert!(
                same(&sharp, &reducible_only),
                "{mode:?}: irreducible tokens changed\n{text}"
            );
            assert!(
                same_sets(&sharp, &sharp_deferred) && same_sets(&sharp, &reducible_only_deferred),
                "{mode:?}: postponing changed a set\n{text}"
            );
            w_sharp += w;
            w_acyclic += wa;
        }
    }
    eprintln!("join work: {w_sharp} with cycle tokens, {w_acyclic} without");
    assert!(w_sharp < w_acyclic, "the cycle tokens save work");
}

/// The seven families the knob tests below share, at 600 blocks, after `irreducible` at `n`
/// blocks for each of `seeds`.
fn irreducible_and_families(seeds: std::ops::RangeInclusive<u64>, n: usize) -> Vec<String> {
    let mut inputs: Vec<String> = seeds.map(|seed| bench_irreducible(n, seed)).collect();
    for name in [
        "nest",
        "exits",
        "irrloop",
        "irrladder",
        "dag",
        "kernel",
        "grid",
    ] {
        inputs.push(family(name, 600));
    }
    inputs
}

/// `run` with `knob` set (its shortcut off), the knob cleared again after.
fn run_without(
    knob: &'static std::thread::LocalKey<std::cell::Cell<bool>>,
    text: &str,
    mode: Mode,
) -> (Vec<Uniformity>, u64) {
    knob.with(|c| c.set(true));
    let r = run(text, mode);
    knob.with(|c| c.set(false));
    r
}

/// Joins inside an assumed-divergent top-level cycle are skipped at once (their phis were
/// marked with the cycle), not only once an earlier branch tainted them: no answer and no order
/// changes, in every mode, on the `irreducible` family (several seeds), the other families and
/// the region shapes above.
#[test]
fn assumed_join_skip_changes_nothing() {
    let mut inputs = irreducible_and_families(1..=6, 1200);
    inputs.push(region_join_then_irreducible(400, 5));
    inputs.push(region_then_loop(300, 5));
    for text in &inputs {
        for mode in MODES {
            let (skip, _) = run(text, mode);
            let (plain, _) = run_without(&knobs::NO_ASSUMED_JOIN_SKIP, text, mode);
            assert!(
                same(&skip, &plain),
                "{mode:?}: the skip changed an answer\n{text}"
            );
        }
    }
}

/// A branch's join propagation stops at the blocks it cannot change (`settle::unjoinable`: in
/// no cycle, at most one source of labels within the branch's reach, a reducible cycle without
/// the branch standing for its blocks in LLVM 22's propagation; in precise mode also blocks
/// whose phis keep one value from the predecessors a search finds within reach,
/// `settle::untouched_searched`), once the function's propagations work hard: no answer and no
/// order changes, in the three settings, on the `irreducible` family (seeds 1-8, and 4 and 5 at
/// 32,000 blocks), the other families and random functions of every shape; and it saves work
/// in each setting.
#[test]
fn unjoinable_stop_changes_nothing() {
    let mut inputs = irreducible_and_families(1..=8, 1500);
    // The stop waits until a function's propagations work hard (`JoinFinder::busy`).
    // (`gen_uniformity irreducible 32000 4`, where it stops about 30 walks of the big cycle;
    // seed 5, where precise mode's search stops about 25.)
    inputs.push(bench_irreducible(32000, 4));
    inputs.push(bench_irreducible(32000, 5));
    inputs.push(region_join_then_irreducible(400, 5));
    inputs.extend(mixed_random_inputs(29, 20, 20));
    for mode in MODES {
        let (mut w_on, mut w_off) = (0, 0);
        for text in &inputs {
            let (on, w) = run(text, mode);
            let (off, wo) = run_without(&knobs::NO_UNJOINABLE, text, mode);
            assert!(
                same(&on, &off),
                "{mode:?}: the stop changed an answer\n{text}"
            );
            w_on += w;
            w_off += wo;
        }
        eprintln!("{mode:?}: join work {w_on} with the stop, {w_off} without");
        assert!(w_on < w_off, "{mode:?}: the stop saves work");
    }
}

/// `same`, with the cycles that have a divergent exit compared as a set.
fn same_sets(a: &[Uniformity], b: &[Uniformity]) -> bool {
    same_as(a, b, false)
}

fn same(a: &[Uniformity], b: &[Uniformity]) -> bool {
    same_as(a, b, true)
}

/// Every list equal, the cycles with a divergent exit in the same order when `exit_order`.
fn same_as(a: &[Uniformity], b: &[Uniformity], exit_order: bool) -> bool {
    let sorted = |u: &Uniformity| {
        let mut v = u.divergent_exit_cycles.clone();
        if !exit_order {
            v.sort_unstable();
        }
        v
    };
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            a.divergent_args == b.divergent_args
                && a.divergent_insts == b.divergent_insts
                && a.divergent_terminators == b.divergent_terminators
                && a.assumed_divergent == b.assumed_divergent
                && sorted(a) == sorted(b)
                && a.temporal_divergence == b.temporal_divergence
        })
}

/// Skipping the branches of an assumed-divergent irreducible cycle inside reducible loops, and
/// the budget of the candidate lists, change no answer and no order, in every mode (postponing
/// them and precise mode's joined blocks change no answer): on
/// irreducible pieces of every shape wrapped in a loop (every branch on the thread id), and on
/// chains of them.
#[test]
fn nested_skip_and_candidate_budget_change_nothing() {
    let mut inputs = vec![tid_module(&irreducible_loop(300).succs)];
    let mut rng = Rng::new(13);
    for k in 0..60 {
        let shape = [Shape::Irreducible, Shape::NestedIrreducible, Shape::Mixed][k % 3];
        let mut p = CfgParams::new(shape, 8 + k % 40);
        p.allow_unreachable = false;
        let piece = random_cfg(&mut rng, &p);
        inputs.push(tid_module(&looped(&piece.succs)));
    }
    for k in 0..6 {
        let shape = [Shape::Irreducible, Shape::NestedIrreducible][k % 2];
        let chain = chain_cfg(&mut rng, 400, shape);
        inputs.push(tid_module(&looped(&chain.succs)));
        inputs.push(tid_module(&chain.succs));
    }
    let mut saved = 0;
    for text in &inputs {
        for mode in MODES {
            let (sharp, w) = run(text, mode);
            knobs::NO_NESTED_SKIP.with(|c| c.set(true));
            let (plain, w_plain) = run(text, mode);
            knobs::NO_NESTED_SKIP.with(|c| c.set(false));
            knobs::NO_CANDIDATE_BUDGET.with(|c| c.set(true));
            let (unbounded, _) = run(text, mode);
            knobs::NO_CANDIDATE_BUDGET.with(|c| c.set(false));
            assert!(
                same(&sharp, &plain),
                "{mode:?}: nested skip changed\n{text}"
            );
            assert!(same(&sharp, &unbounded), "{mode:?}: budget changed\n{text}");
            for off in [&knobs::NO_NESTED_JOINED, &knobs::NO_NESTED_DEFER] {
                off.with(|c| c.set(true));
                let (other, _) = run(text, mode);
                off.with(|c| c.set(false));
                assert!(
                    same_sets(&sharp, &other),
                    "{mode:?}: nested skip changed\n{text}"
                );
            }
            saved += w_plain.saturating_sub(w);
        }
    }
    assert!(saved > 10_000, "the nested skip saves work ({saved} steps)");
}

/// LLVM 19's propagation with its shortcuts (a stop once only settled blocks remain, dropped
/// disjoint flows with the floor update of their first block, single-line branches) gives
/// exactly the answer of LLVM 19's own algorithm, every list in the same order: on every family
/// above, irreducible pieces in loops, random functions of every shape with mixed uniform and
/// divergent branches, and random CFGs of every shape with every branch on the thread id.
#[test]
fn llvm19_shortcuts_change_nothing() {
    let mut inputs: Vec<String> = Vec::new();
    for name in [
        "nest",
        "exits",
        "selfloops",
        "irrloop",
        "dag",
        "irreducible",
    ] {
        inputs.push(family(name, 600));
    }
    let mut rng = Rng::new(19);
    for k in 0..40 {
        let shape = Shape::ALL[k % Shape::ALL.len()];
        inputs.push(tid_module(&chain_cfg(&mut rng, 200 + 20 * k, shape).succs));
        let mut p = CfgParams::new(shape, 8 + k % 40);
        p.allow_unreachable = false;
        let piece = random_cfg(&mut rng, &p);
        inputs.push(tid_module(&looped(&piece.succs)));
        inputs.push(tid_module(&piece.succs));
    }
    let mut opts = Options::new(Flavor::Amdgpu);
    opts.min_blocks = 30;
    opts.max_blocks = 200;
    opts.extra_edges_percent = 70;
    let mut t = module_header(Flavor::Amdgpu);
    for k in 0..60 {
        let succs = program_cfg(&mut rng, 30 + 3 * k, &opts);
        t.push_str(&function_with_cfg(
            &mut rng,
            &format!("f{k}"),
            &opts,
            &succs,
        ));
    }
    inputs.push(t);
    let (mut w_sharp, mut w_plain) = (0, 0);
    for text in &inputs {
        let (sharp, w) = run(text, MODES[1]);
        knobs::PLAIN_19.with(|c| c.set(true));
        let (plain, wp) = run(text, MODES[1]);
        knobs::PLAIN_19.with(|c| c.set(false));
        assert!(same(&sharp, &plain), "LLVM 19 shortcuts changed\n{text}");
        w_sharp += w;
        w_plain += wp;
    }
    assert!(
        w_sharp * 2 < w_plain,
        "the shortcuts save work ({w_sharp} against {w_plain} steps)"
    );
}

/// The jumps over single-label regions (`crate::jumps`), the drop of flows that meet other
/// labels only among settled blocks, and the settled blocks used when the branch's immediate
/// exits cover every cycle that may still lack a divergent exit, change no answer and no order,
/// in every setting, with the table built before the first propagation of every function (so that
/// small functions exercise it too): on every family, random CFGs of every shape (alone, in a
/// loop, chained) with every branch on the thread id, and random functions with mixed uniform and
/// divergent branches. In LLVM 19's setting the answer is also that of LLVM 19's own algorithm.
/// The jumps are taken, and on the ladder of irreducible cycles they make the work linear.
/// The lean path of the join computation (`JoinFinder::compute_lean`: no exit check's setup,
/// the `LEAN` copy of LLVM 22's walk), taken by branches with no irreducible cycle around
/// them, changes no answer: every family and many random CFGs and modules, in the three
/// settings (LLVM 19's never takes it), against the general path (`NO_LEAN_WALK`).
#[test]
fn lean_walk_changes_nothing() {
    let mut inputs: Vec<String> = Vec::new();
    for name in [
        "irrladder",
        "irrladder-loop",
        "nest",
        "exits",
        "selfloops",
        "switch",
        "irrloop",
        "dag",
        "grid",
        "irreducible",
        "kernel",
        "chain-mixed",
        "chain-reducible",
    ] {
        inputs.push(family(name, 400));
    }
    let mut rng = Rng::new(31);
    inputs.extend(random_inputs(
        &mut rng,
        80,
        |k| 40 + 10 * k,
        |k| 6 + k % 40,
        |k| k % 4 == 0,
        &[10, 30, 60],
        40,
        |k| 10 + 3 * k,
    ));
    let mut lean = 0;
    for text in &inputs {
        for mode in MODES {
            knobs::LEAN_WALKS.with(|c| c.set(0));
            let (fast, _) = run(text, mode);
            lean += knobs::LEAN_WALKS.with(|c| c.get());
            knobs::NO_LEAN_WALK.with(|c| c.set(true));
            let (general, _) = run(text, mode);
            knobs::NO_LEAN_WALK.with(|c| c.set(false));
            assert!(
                same(&fast, &general),
                "{mode:?}: the lean walk changed\n{text}"
            );
        }
    }
    eprintln!("lean walks: {lean}");
    assert!(lean > 10_000, "lean walks: {lean}");
}

/// LLVM 19's loop of plain steps (`sync::plain_steps19`, with the fresh set's top word in a
/// register, `sync::TopWord`) changes no answer and no step count: on `randnest` (whose walks
/// flood irreducible cycles), the irreducible families, every other family and random CFGs and
/// modules, with the jump table built lazily and from the first branch and the loop taken once
/// the walks work hard and from the first branch (`EAGER_PLAIN_19`), against the full loop
/// alone (`NO_PLAIN_19`). The work counted includes the steps, which decide when the jump
/// table is built, so equal work means the same walks.
#[test]
fn plain_steps_19_change_nothing() {
    let mut inputs: Vec<String> = Vec::new();
    for name in [
        "randnest",
        "irreducible",
        "irrladder",
        "irrladder-unreach",
        "irrloop",
        "nest",
        "exits",
        "dag",
        "grid",
        "kernel",
        "chain-mixed",
        "chain-irreducible",
        "chain-nestedirreducible",
    ] {
        inputs.push(family(name, 500));
    }
    for seed in 1..=6 {
        let mut rng = Rng::new(seed);
        inputs.push(shapes::by_name("randnest", &mut rng, Flavor::Amdgpu, 2000).expect("a shape"));
    }
    inputs.extend(irreducible_and_families(1..=4, 1500).into_iter().take(4));
    let mut rng = Rng::new(37);
    inputs.extend(random_inputs(
        &mut rng,
        60,
        |k| 40 + 10 * k,
        |k| 6 + k % 40,
        |k| k % 4 == 0,
        &[10, 30, 60],
        30,
        |k| 10 + 3 * k,
    ));
    let mode = MODES[1];
    let mut plain_steps = 0;
    for text in &inputs {
        for (eager, eager_plain) in [(false, false), (true, true), (false, true)] {
            knobs::EAGER_JUMPS.with(|c| c.set(eager));
            knobs::EAGER_PLAIN_19.with(|c| c.set(eager_plain));
            knobs::PLAIN_STEPS_19.with(|c| c.set(0));
            let (fast, w_fast) = run(text, mode);
            plain_steps += knobs::PLAIN_STEPS_19.with(|c| c.get());
            let (full, w_full) = run_without(&knobs::NO_PLAIN_19, text, mode);
            knobs::EAGER_JUMPS.with(|c| c.set(false));
            knobs::EAGER_PLAIN_19.with(|c| c.set(false));
            assert!(
                same(&fast, &full),
                "eager jumps {eager}, eager plain steps {eager_plain}: the plain steps changed an answer\n{text}"
            );
            assert_eq!(
                w_fast, w_full,
                "eager jumps {eager}, eager plain steps {eager_plain}: the plain steps changed the work\n{text}"
            );
        }
    }
    eprintln!("plain steps: {plain_steps}");
    assert!(plain_steps > 1_000_000, "plain steps: {plain_steps}");
}

/// LLVM 22's loop of plain steps (`sync::plain22`) changes no answer and no step count, in
/// llvm mode and precise mode (both walk LLVM 22's flow): on `dag-local` (whose walks flood a
/// deep nest of irreducible cycles and stop at final configurations), `randnest`, the
/// irreducible families, every other family and random functions, with the jump table built
/// lazily and from the first branch, the exit-seeded walks at their point and eager, and the
/// loop taken once the walks work hard and from the first branch (`EAGER_PLAIN_22`), against
/// the full loop alone (`NO_PLAIN_22`). The work counted includes the steps, which decide when
/// the jump table, the cut memo and the loop itself start, so equal work means the same walks.
#[test]
fn plain_steps_22_change_nothing() {
    let mut inputs: Vec<String> = Vec::new();
    for name in [
        "randnest",
        "irreducible",
        "irrladder",
        "irrladder-unreach",
        "irrloop",
        "nest",
        "exits",
        "dag",
        "grid",
        "kernel",
        "chain-mixed",
        "chain-irreducible",
        "chain-nestedirreducible",
        "chain-noreturn",
    ] {
        inputs.push(family(name, 500));
    }
    for seed in 1..=3 {
        for n in [1500, 6000] {
            inputs.push(tid_module(&converge_gen::program::dag_back_edges_cfg_with(
                &mut Rng::new(seed),
                n,
                converge_gen::program::DagParams::LOCAL,
            )));
        }
        // Deep reducible nests with long exit lists: walks that send a header's label only to
        // the exits its inner cycle did not reach (`sync::chain_exits`) list the joins made
        // meanwhile, in the plain steps too.
        for params in [
            converge_gen::program::DagParams::DENSE,
            converge_gen::program::DagParams::SPARSE,
        ] {
            inputs.push(tid_module(&converge_gen::program::dag_back_edges_cfg_with(
                &mut Rng::new(seed),
                3000,
                params,
            )));
        }
        inputs.push(tid_module(&shapes::randnest_cfg(
            &mut Rng::new(seed),
            2000 + 500 * seed as usize,
        )));
    }
    inputs.extend(irreducible_and_families(1..=2, 1200).into_iter().take(4));
    inputs.extend(mixed_random_inputs(67, 40, 8));
    let mut plain_steps = 0;
    knobs::FINAL_CONFIG_STOPS.with(|c| c.set(0));
    for text in &inputs {
        for mode in [MODES[0], MODES[2]] {
            for (eager, eager_plain, seeded) in [
                (false, false, false),
                (true, true, false),
                (false, true, true),
            ] {
                knobs::EAGER_JUMPS.with(|c| c.set(eager));
                knobs::EAGER_PLAIN_22.with(|c| c.set(eager_plain));
                knobs::EAGER_SEEDED.with(|c| c.set(seeded));
                knobs::PLAIN_STEPS_22.with(|c| c.set(0));
                let (fast, w_fast) = run(text, mode);
                plain_steps += knobs::PLAIN_STEPS_22.with(|c| c.get());
                let (full, w_full) = run_without(&knobs::NO_PLAIN_22, text, mode);
                knobs::EAGER_JUMPS.with(|c| c.set(false));
                knobs::EAGER_PLAIN_22.with(|c| c.set(false));
                knobs::EAGER_SEEDED.with(|c| c.set(false));
                let what = format!(
                    "{mode:?}, eager jumps {eager}, eager plain steps {eager_plain}, eager seeded walks {seeded}"
                );
                assert!(
                    same(&fast, &full),
                    "{what}: the plain steps changed an answer\n{text}"
                );
                assert_eq!(
                    w_fast, w_full,
                    "{what}: the plain steps changed the work\n{text}"
                );
            }
        }
    }
    let stops = knobs::FINAL_CONFIG_STOPS.with(|c| c.get());
    eprintln!("plain steps: {plain_steps}; walks stopped at a final configuration: {stops}");
    assert!(plain_steps > 1_000_000, "plain steps: {plain_steps}");
    assert!(
        stops > 20,
        "walks stopped at a final configuration: {stops}"
    );
}

/// The exit check leaves out the levels of the chain above the shallowest one lacking a
/// divergent exit when no cycle outside the level above it is deep enough
/// (`NO_SHALLOW_LEVEL_SKIP`, `JoinFinder::irreducible_exits`): no answer and no order changes,
/// in the three settings, on `dag-local` (deep nests whose innermost cycles lack their exits
/// longest), random loop nests, the irreducible families and random functions; and the exit
/// check looks at fewer edges in all.
#[test]
fn shallow_level_skip_changes_nothing() {
    let mut inputs = Vec::new();
    for seed in 1..=3 {
        for n in [1500, 6000] {
            inputs.push(tid_module(&converge_gen::program::dag_back_edges_cfg_with(
                &mut Rng::new(seed),
                n,
                converge_gen::program::DagParams::LOCAL,
            )));
        }
        inputs.push(tid_module(&shapes::randnest_cfg(
            &mut Rng::new(seed),
            1500 + 500 * seed as usize,
        )));
    }
    inputs.extend(irreducible_and_families(1..=2, 1200));
    inputs.extend(mixed_random_inputs(71, 30, 8));
    let (mut e_on, mut e_off) = (0, 0);
    knobs::SHALLOW_LEVEL_SKIPS.with(|c| c.set(0));
    for text in &inputs {
        for mode in MODES {
            knobs::EXIT_EDGES.with(|c| c.set(0));
            let (on, _) = run(text, mode);
            e_on += knobs::EXIT_EDGES.with(|c| c.get());
            knobs::NO_SHALLOW_LEVEL_SKIP.with(|c| c.set(true));
            knobs::EXIT_EDGES.with(|c| c.set(0));
            let (off, _) = run(text, mode);
            e_off += knobs::EXIT_EDGES.with(|c| c.get());
            knobs::NO_SHALLOW_LEVEL_SKIP.with(|c| c.set(false));
            assert!(
                same(&on, &off),
                "{mode:?}: the shallow level skip changed an answer\n{text}"
            );
        }
    }
    let skips = knobs::SHALLOW_LEVEL_SKIPS.with(|c| c.get());
    eprintln!("{skips} exit checks left out shallow levels; exit edges {e_off} -> {e_on}");
    assert!(
        skips > 100,
        "exit checks that left out shallow levels: {skips}"
    );
    assert!(e_on < e_off, "exit edges {e_off} -> {e_on}");
}

#[test]
fn jumps_change_nothing() {
    let mut inputs: Vec<String> = Vec::new();
    for name in [
        "irrladder",
        "irrladder-up",
        "irrladder-loop",
        "irrladder-unreach",
        "nest",
        "exits",
        "selfloops",
        "switch",
        "irrloop",
        "dag",
        "irreducible",
        "kernel",
        "chain-mixed",
    ] {
        inputs.push(family(name, 400));
    }
    let mut rng = Rng::new(23);
    inputs.extend(random_inputs(
        &mut rng,
        60,
        |k| 60 + 10 * k,
        |k| 6 + k % 40,
        |k| k % 4 == 0,
        &[20, 60],
        40,
        |k| 10 + 3 * k,
    ));
    let (mut jumped, mut rewalked) = (0, 0);
    for text in &inputs {
        for mode in MODES {
            knobs::EAGER_JUMPS.with(|c| c.set(true));
            knobs::JUMPED.with(|c| c.set(0));
            knobs::REWALKED.with(|c| c.set(0));
            let (eager, _) = run(text, mode);
            jumped += knobs::JUMPED.with(|c| c.get());
            rewalked += knobs::REWALKED.with(|c| c.get());
            knobs::EAGER_JUMPS.with(|c| c.set(false));
            knobs::NO_JUMPS.with(|c| c.set(true));
            let (none, _) = run(text, mode);
            knobs::NO_SETTLED_DROP.with(|c| c.set(true));
            knobs::NO_EXIT_COVER.with(|c| c.set(true));
            knobs::NO_FEW_READS.with(|c| c.set(true));
            let (bare, _) = run(text, mode);
            knobs::NO_JUMPS.with(|c| c.set(false));
            knobs::NO_SETTLED_DROP.with(|c| c.set(false));
            knobs::NO_EXIT_COVER.with(|c| c.set(false));
            knobs::NO_FEW_READS.with(|c| c.set(false));
            assert!(same(&eager, &none), "{mode:?}: jumps changed\n{text}");
            assert!(
                same(&eager, &bare),
                "{mode:?}: settled drops, covered exits or the exit check's read set changed\n{text}"
            );
            if mode == MODES[1] {
                knobs::PLAIN_19.with(|c| c.set(true));
                let (plain, _) = run(text, mode);
                knobs::PLAIN_19.with(|c| c.set(false));
                assert!(
                    same(&eager, &plain),
                    "jumps changed LLVM 19's answer\n{text}"
                );
                knobs::EAGER_JUMPS.with(|c| c.set(true));
                knobs::NO_WATCHED_JUMPS.with(|c| c.set(true));
                let (unwatched, _) = run(text, mode);
                knobs::NO_WATCHED_JUMPS.with(|c| c.set(false));
                knobs::EAGER_JUMPS.with(|c| c.set(false));
                assert!(
                    same(&eager, &unwatched),
                    "watched jumps changed LLVM 19's answer\n{text}"
                );
            }
        }
    }
    eprintln!("jumps taken: {jumped}, propagations walked again: {rewalked}");
    assert!(jumped > 1_000, "jumps taken: {jumped}");
    assert!(rewalked > 0, "no propagation walked again");
    // Without the jumps the ladder's propagation is quadratic.
    for mode in MODES {
        assert_linear_only_with("irrladder", mode, &knobs::NO_JUMPS);
    }
    // LLVM 19 sees the ladder in a loop with unreachable predecessors as one irreducible cycle:
    // only the watched jumps keep it linear.
    assert_linear_only_with("irrladder-unreach", MODES[1], &knobs::NO_WATCHED_JUMPS);
}

/// From 1,000 to 4,000 blocks of family `name`, the join work in `mode` grows at most 5x, and
/// more than 8x with the shortcut that `off` turns off.
fn assert_linear_only_with(
    name: &str,
    mode: Mode,
    off: &'static std::thread::LocalKey<std::cell::Cell<bool>>,
) {
    let (small, large) = (family(name, 1000), family(name, 4000));
    let (_, w1) = run(&small, mode);
    let (_, w4) = run(&large, mode);
    off.with(|c| c.set(true));
    let (_, p1) = run(&small, mode);
    let (_, p4) = run(&large, mode);
    off.with(|c| c.set(false));
    eprintln!("{name} {mode:?}: {w1} -> {w4} (without the shortcut {p1} -> {p4})");
    assert!(w4 <= 5 * w1, "{name} {mode:?}: {w1} -> {w4}");
    assert!(
        p4 > 8 * p1,
        "{name} {mode:?} without the shortcut: {p1} -> {p4}"
    );
}

/// `random_inputs` as the knob tests use it (chains of 200 + 20k blocks, pieces of 8 to 47,
/// every block reachable, extra-edge rates 20, 45 and 70 over functions of 30 + 3k blocks),
/// seeded by `seed`.
fn mixed_random_inputs(seed: u64, count: usize, funcs: usize) -> Vec<String> {
    random_inputs(
        &mut Rng::new(seed),
        count,
        |k| 200 + 20 * k,
        |k| 8 + k % 40,
        |_| false,
        &[20, 45, 70],
        funcs,
        |k| 30 + 3 * k,
    )
}

/// Random inputs of every CFG shape, seeded by `rng`: for k in `0..count` a chain of random
/// pieces of `chain(k)` blocks, and a random CFG of `piece(k)` blocks (with unreachable blocks
/// when `unreachable(k)`) in a loop and alone, every branch on the thread id; then, per rate of
/// extra edges in `extras`, one module of `funcs` random functions of `size(k)` blocks (at most
/// 4 instructions a block) with mixed uniform and divergent branches.
#[allow(clippy::too_many_arguments)]
fn random_inputs(
    rng: &mut Rng,
    count: usize,
    chain: impl Fn(usize) -> usize,
    piece: impl Fn(usize) -> usize,
    unreachable: impl Fn(usize) -> bool,
    extras: &[u32],
    funcs: usize,
    size: impl Fn(usize) -> usize,
) -> Vec<String> {
    let mut inputs = Vec::new();
    for k in 0..count {
        let shape = Shape::ALL[k % Shape::ALL.len()];
        inputs.push(tid_module(&chain_cfg(rng, chain(k), shape).succs));
        let mut p = CfgParams::new(shape, piece(k));
        p.allow_unreachable = unreachable(k);
        let piece = random_cfg(rng, &p);
        inputs.push(tid_module(&looped(&piece.succs)));
        inputs.push(tid_module(&piece.succs));
    }
    for &extra in extras {
        let mut opts = Options::new(Flavor::Amdgpu);
        opts.min_blocks = size(0);
        opts.max_blocks = size(funcs - 1).max(size(0));
        opts.max_insts = 4;
        opts.extra_edges_percent = extra;
        let mut t = module_header(Flavor::Amdgpu);
        for k in 0..funcs {
            let succs = program_cfg(rng, size(k), &opts);
            t.push_str(&function_with_cfg(rng, &format!("f{k}"), &opts, &succs));
        }
        inputs.push(t);
    }
    inputs
}

/// `gen_uniformity irreducible N SEED` (the irreducible benchmark of `scripts/bench-precise.sh`).
fn bench_irreducible(n: usize, seed: u64) -> String {
    irreducible_text(&mut Rng::new(seed), n)
}

/// `gen_uniformity irreducible`'s function: random extra edges, mixed uniform and divergent
/// branches.
fn irreducible_text(rng: &mut Rng, n: usize) -> String {
    converge_gen::program::irreducible_module(rng, n)
}

/// Precise mode's stop at blocks settled for the branch alone (`settled_for_branch`: phis that
/// the branch's diverged paths bring one value) changes no answer and no order: on every family
/// above, irreducible pieces in loops, random functions of every shape with mixed uniform and
/// divergent branches (several extra-edge rates), and random CFGs of every shape with every
/// branch on the thread id.
#[test]
fn branch_settled_stop_changes_nothing() {
    let mut inputs: Vec<String> = Vec::new();
    for name in ["nest", "exits", "irrloop", "dag", "irreducible", "kernel"] {
        inputs.push(family(name, 600));
    }
    inputs.push(bench_irreducible(2000, 1));
    inputs.extend(mixed_random_inputs(10, 40, 60));
    let (mut w_sharp, mut w_plain) = (0, 0);
    for text in &inputs {
        let (sharp, w) = run(text, Mode::Precise);
        knobs::NO_BRANCH_SETTLED.with(|c| c.set(true));
        let (plain, wp) = run(text, Mode::Precise);
        knobs::NO_BRANCH_SETTLED.with(|c| c.set(false));
        assert!(same(&sharp, &plain), "branch-settled stop changed\n{text}");
        w_sharp += w;
        w_plain += wp;
    }
    eprintln!("join work: {w_sharp} with the stop, {w_plain} without");
    assert!(w_sharp < w_plain, "the stop saves work");
}

/// Issue 10's speed target rests on the join propagation: on the 8,000-block irreducible
/// benchmark function precise mode keeps more phis uniform than llvm mode, so fewer blocks count
/// as settled for every branch, and without the stop at blocks settled for the branch alone its
/// propagation (with the reachability walks of `precise::joins`) took 2.35x the steps of llvm
/// mode (316,962 against 135,028); with it 1.73x (232,986). Since the reachability test asks the
/// propagation's labels first (issue 13), and with the searches of `downstream_settled` counted,
/// 1.72x without the stop (235,356 against 137,058) and 1.36x with it (186,143). Counted steps,
/// so not flaky: at most 1.5x. (Against llvm mode without its own later stop at blocks a branch
/// cannot join, `NO_UNJOINABLE`, which takes it to 104,025 steps; issue 13, session 18.)
#[test]
fn precise_join_work_near_llvm() {
    let text = bench_irreducible(8000, 1);
    // (And without precise mode's late branches and exits first, `late.rs`, which take it to
    // 127,897 steps, 172,388 without the stop.)
    knobs::NO_LATE.with(|c| c.set(true));
    knobs::NO_EXITS_FIRST.with(|c| c.set(true));
    knobs::NO_UNJOINABLE.with(|c| c.set(true));
    let (_, llvm) = run(&text, MODES[0]);
    knobs::NO_UNJOINABLE.with(|c| c.set(false));
    let (_, precise) = run(&text, Mode::Precise);
    knobs::NO_BRANCH_SETTLED.with(|c| c.set(true));
    let (_, before) = run(&text, Mode::Precise);
    knobs::NO_BRANCH_SETTLED.with(|c| c.set(false));
    eprintln!("irreducible 8000: llvm {llvm}, precise {precise} (without the stop {before})");
    assert!(
        2 * precise <= 3 * llvm,
        "precise join work {precise} against llvm {llvm}"
    );
    knobs::NO_LATE.with(|c| c.set(false));
    knobs::NO_EXITS_FIRST.with(|c| c.set(false));
    // The bound tells the two apart: without the stop it fails.
    assert!(
        2 * before > 3 * llvm,
        "without the stop: {before} against {llvm}"
    );
}

/// Precise mode's late branches (`analysis/late.rs`: a branch whose propagation would cross a
/// large assumed-divergent top-level cycle waits until the worklist is empty) and the immediate
/// exits of the postponed branches recorded before any is analysed: each switched off alone
/// changes no answer and no order (precise mode sorts its lists), on the `irreducible` family
/// (seeds 1-8 at 1,500 blocks, seed 3 at 8,000, where both fire), the other families and random
/// functions of every shape; both fire there and save work; llvm mode never makes a branch
/// late.
#[test]
fn late_branches_change_nothing() {
    let mut inputs = irreducible_and_families(1..=8, 1500);
    inputs.push(bench_irreducible(8000, 3));
    inputs.push(region_join_then_irreducible(400, 5));
    inputs.extend(mixed_random_inputs(31, 20, 20));
    knobs::LATE.with(|c| c.set(0));
    for text in &inputs {
        for mode in [MODES[0], MODES[1]] {
            run(text, mode);
        }
    }
    assert_eq!(
        knobs::LATE.with(|c| c.get()),
        0,
        "llvm mode made a branch late"
    );
    let (mut w_on, mut w_late, mut w_first) = (0, 0, 0);
    for text in &inputs {
        let (on, w) = run(text, Mode::Precise);
        let (no_late, wl) = run_without(&knobs::NO_LATE, text, Mode::Precise);
        let (no_first, wf) = run_without(&knobs::NO_EXITS_FIRST, text, Mode::Precise);
        assert!(
            same(&on, &no_late),
            "late branches changed an answer\n{text}"
        );
        assert!(
            same(&on, &no_first),
            "the exits recorded first changed an answer\n{text}"
        );
        w_on += w;
        w_late += wl;
        w_first += wf;
    }
    let late = knobs::LATE.with(|c| c.get());
    eprintln!(
        "join work: {w_on}, without late branches {w_late}, without the exits first {w_first}; \
         {late} branches made late"
    );
    assert!(late > 0, "no branch was made late");
    assert!(w_on < w_late, "late branches save work");
    assert!(w_on < w_first, "the exits recorded first save work");
}

/// The shapes of session 20 (`converge_gen::program::shapes`), in every setting: four times the
/// blocks cost at most about four times the join work, as `every_family_every_setting_is_linear`
/// asks of the older families. (Without `lone::lone_source` the loop nests with multi-level
/// exits took about 16x, and without the jumps from a reducible header, `jumps::HEADER_REGION`,
/// LLVM 19's setting on `earlyret` about 16x. What still grows faster at 64,000 blocks, LLVM 19
/// on `exitnest` and precise mode on `tokens`, is work these counters do not see:
/// docs/benchmarks-issue13.md.)
#[test]
fn session_20_shapes_are_linear() {
    // `randnest` (session 21) is not linear yet: every branch inside an irreducible cycle that
    // never gets a divergent exit walks it for the exit check, and where a big cycle has many
    // exits the exit-seeded candidates (session 22) bound the joins after it too loosely to
    // settle (issue 13; measured in docs/benchmarks-issue13.md, sessions 21 and 22). Its answers
    // are checked against LLVM (`uniformity_matches_llvm_on_session_20_shapes`) and by the knob
    // tests here.
    let names: Vec<&str> = converge_gen::program::shapes::NAMES
        .iter()
        .copied()
        .filter(|&n| n != "randnest")
        .collect();
    assert_linear(&names);
}

/// A block that at most one block can send labels to is no join (`lone::lone_source`, per
/// branch, and `lone_source_all`, for every branch in LLVM 22's propagation): no answer and no
/// order changes in the three settings, on the loop nests with multi-level exits (where the
/// loops' headers are such blocks), the other families and random functions of every shape;
/// the rule saves work on `exitnest` in each setting, and without it `exitnest` is quadratic in
/// llvm and precise modes.
#[test]
fn lone_source_changes_nothing() {
    let mut inputs = irreducible_and_families(1..=3, 1200);
    for name in [
        "exitnest",
        "tokens",
        "diamonds",
        "datachain",
        "latchy",
        "widephi",
        "manyfuncs",
    ] {
        inputs.push(family(name, 1500));
    }
    inputs.extend(mixed_random_inputs(31, 20, 20));
    for mode in MODES {
        for text in &inputs {
            let (on, _) = run(text, mode);
            let (off, _) = run_without(&knobs::NO_LONE_SOURCE, text, mode);
            assert!(
                same(&on, &off),
                "{mode:?}: the lone-source rule changed an answer\n{text}"
            );
        }
        let exitnest = family("exitnest", 2000);
        let (_, w_on) = run(&exitnest, mode);
        let (_, w_off) = run_without(&knobs::NO_LONE_SOURCE, &exitnest, mode);
        eprintln!("exitnest {mode:?}: join work {w_on} with the rule, {w_off} without");
        assert!(w_on < w_off, "{mode:?}: the rule saves work on exitnest");
    }
    for mode in [MODES[0], MODES[2]] {
        assert_linear_only_with("exitnest", mode, &knobs::NO_LONE_SOURCE);
    }
}

/// A use outside a reducible loop whose heart's token is used only inside it is not in the
/// heart's region (`precise::tokens::uses_inside`, asked before the search of `in_region`): no
/// answer and no order changes, in the three settings, on the loop nests under convergence
/// tokens (`tokens`, where every exit's uses ask it), and on random valid token functions.
#[test]
fn uses_inside_changes_nothing() {
    let mut inputs = vec![
        family("tokens", 300),
        family("tokens", 1500),
        converge_gen::tokens::big_module(7, 200_000),
    ];
    // The tokens family with an NVPTX flavour (no readfirstlane: a second convergent call).
    inputs.push(shapes::tokens_module(Flavor::Nvptx, 700));
    for text in &inputs {
        for mode in MODES {
            let (on, _) = run(text, mode);
            let (off, _) = run_without(&knobs::NO_USES_INSIDE, text, mode);
            assert!(
                same(&on, &off),
                "{mode:?}: uses_inside changed an answer\n{text}"
            );
        }
    }
}

/// LLVM 19's setting: `lone::lone_source_all` leaves out a predecessor heading a reducible cycle
/// that holds the block (knob `NO_LONE_SOURCE_19`), and `settled_for_branch` scans only up to
/// the bound of the branch's label flow (`NO_REACH_19_BOUND`). No answer and no order changes
/// with either off, on the session-20 shapes, the other families and random functions of every
/// shape; the rule fires on the loop nests. (Without them every branch of `exitnest` scanned the
/// headers of the nest: 0.68 s at 16,000 blocks, 0.05 s with both, issue 13, session 20.)
#[test]
fn lone_source_19_changes_nothing() {
    let mode = MODES[1];
    let mut inputs = irreducible_and_families(1..=3, 1200);
    for &name in converge_gen::program::shapes::NAMES {
        inputs.push(family(name, 1500));
    }
    inputs.extend(mixed_random_inputs(32, 20, 20));
    knobs::LONE_19.with(|c| c.set(0));
    for text in &inputs {
        let (on, _) = run(text, mode);
        for knob in [&knobs::NO_LONE_SOURCE_19, &knobs::NO_REACH_19_BOUND] {
            let (off, _) = run_without(knob, text, mode);
            assert!(same(&on, &off), "LLVM 19: an answer changed\n{text}");
        }
    }
    assert!(
        knobs::LONE_19.with(|c| c.get()) > 0,
        "the rule never fired in LLVM 19's setting"
    );
}

/// Precise mode reads the phis of a block with many predecessors once per component of the
/// branches asking (`Scratch::phi_memo`), not once per branch: no answer and no order changes
/// on the families with wide joins (`latchy`: a loop header with a latch per block; `widephi`,
/// `datachain`) and the others, and the phi incomings read on `latchy` grow linearly with the
/// memo (quadratically without: 6.6 s at 64,000 blocks before, issue 13).
#[test]
fn phi_memo_changes_nothing() {
    let mode = Mode::Precise;
    let mut inputs = irreducible_and_families(1..=2, 1200);
    for &name in converge_gen::program::shapes::NAMES {
        inputs.push(family(name, 1500));
    }
    // `latchy` whose header phi takes another value from its first latch: the header is a
    // join of the first latch's branch, though not of the others' (whose incomings alone are
    // one value), and only the scan's phi test says so (the memo's value matters).
    let latchy = family("latchy", 1500);
    assert_eq!(latchy.matches("[ %i1, %b0 ]").count(), 1);
    inputs.push(latchy.replace("[ %i1, %b0 ]", "[ %n, %b0 ]"));
    for order in [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ] {
        inputs.push(wide_join_in_loop(12, order));
    }
    inputs.extend(mixed_random_inputs(33, 12, 12));
    for text in &inputs {
        let (on, _) = run(text, mode);
        let (off, _) = run_without(&knobs::NO_PHI_MEMO, text, mode);
        assert!(same(&on, &off), "the phi memo changed an answer\n{text}");
    }
    let reads = |n: usize, memo: bool| {
        let text = family("latchy", n);
        knobs::PHI_READS.with(|c| c.set(0));
        if memo {
            run(&text, mode);
        } else {
            run_without(&knobs::NO_PHI_MEMO, &text, mode);
        }
        knobs::PHI_READS.with(|c| c.get())
    };
    let (on1, on4) = (reads(1000, true), reads(4000, true));
    let (off1, off4) = (reads(1000, false), reads(4000, false));
    eprintln!("latchy phi reads: {on1} -> {on4} with the memo, {off1} -> {off4} without");
    assert!(on4 <= 5 * on1 && on4 <= 20 * 4000, "{on1} -> {on4}");
    assert!(off4 > 10 * off1, "without the memo: {off1} -> {off4}");
}

/// `settled_for_branch` starting at the lowest index the branch's labels reach changes no answer
/// (nor the order of the cycles with a divergent exit) in LLVM 22's setting and precise mode,
/// and keeps `chain-noreturn`'s scans linear in precise mode: the loops without exits of its
/// pieces sit at the bottom of the modified post-order with phis that keep one value, never
/// settled for all, and every later branch looked at each of them.
#[test]
fn reach_lo_start_changes_nothing() {
    let mut inputs = irreducible_and_families(1..=2, 1200);
    for &name in converge_gen::program::shapes::NAMES {
        inputs.push(family(name, 1500));
    }
    for name in [
        "chain-noreturn",
        "chain-irreducible",
        "chain-nestedirreducible",
        "selfloops",
    ] {
        inputs.push(family(name, 3000));
    }
    inputs.extend(mixed_random_inputs(35, 12, 12));
    for mode in [Mode::Llvm(LlvmVersion::V22), Mode::Precise] {
        for text in &inputs {
            let (on, _) = run(text, mode);
            let (off, _) = run_without(&knobs::NO_REACH_LO_START, text, mode);
            assert!(
                same(&on, &off),
                "the start changed an answer ({mode:?})\n{text}"
            );
        }
    }
    let scans = |n: usize, on: bool| {
        let text = family("chain-noreturn", n);
        knobs::SETTLE_SCANS.with(|c| c.set(0));
        if on {
            run(&text, Mode::Precise);
        } else {
            run_without(&knobs::NO_REACH_LO_START, &text, Mode::Precise);
        }
        knobs::SETTLE_SCANS.with(|c| c.get())
    };
    let (on1, on4) = (scans(4000, true), scans(16000, true));
    let (off1, off4) = (scans(4000, false), scans(16000, false));
    eprintln!("chain-noreturn scans: {on1} -> {on4} with the start, {off1} -> {off4} without");
    assert!(on4 <= 6 * on1 && on4 <= 4 * 16000, "{on1} -> {on4}");
    assert!(off4 > 10 * off1, "without the start: {off1} -> {off4}");
}

/// A loop with a divergent exit (`%ce`) and two more divergent branches in its component: one
/// (`%cx`) rejoins at once, the other (`%cd`) splits into two chains of `k` blocks that each
/// jump to `j` (or to the latch), whose phi takes 1 from one chain and 2 from the other. `j` has
/// `2k` predecessors, so `Scratch::phi_memo` answers a later branch's question about it from an
/// earlier one's, and must say "not one value". `order` permutes the three compares (it decides
/// which branch asks first).
fn wide_join_in_loop(k: usize, order: [usize; 3]) -> String {
    use std::fmt::Write as _;
    let cmps = [
        "  %ce = icmp eq i32 %tid, %i\n",
        "  %cx = icmp slt i32 %tid, %i\n",
        "  %cd = icmp sgt i32 %tid, %n\n",
    ];
    let mut t = module_header(Flavor::Amdgpu);
    t.push_str(
        "define amdgpu_kernel void @w(ptr addrspace(1) %p, i32 %n) {\nentry:\n  \
         %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  br label %h\nh:\n  \
         %i = phi i32 [ 0, %entry ], [ %i1, %lt ]\n  %i1 = add i32 %i, 1\n",
    );
    for c in order {
        t.push_str(cmps[c]);
    }
    t.push_str(
        "  br i1 %ce, label %x0, label %s\ns:\n  br i1 %cx, label %pp, label %qq\npp:\n  \
         br label %r\nqq:\n  br label %r\nr:\n  br i1 %cd, label %a0, label %b0\n",
    );
    let mut incoming = Vec::new();
    for (side, value) in [("a", 1), ("b", 2)] {
        for x in 0..k {
            if x + 1 < k {
                let _ = writeln!(
                    t,
                    "{side}{x}:\n  switch i32 %n, label %{side}{} [\n    i32 {x}, label %j\n    \
                     i32 {}, label %lt\n  ]",
                    x + 1,
                    x + 100
                );
            } else {
                let _ = writeln!(t, "{side}{x}:\n  br label %j");
            }
            incoming.push(format!("[ {value}, %{side}{x} ]"));
        }
    }
    let _ = writeln!(
        t,
        "j:\n  %v = phi i32 {}\n  store i32 %v, ptr addrspace(1) %p, align 4\n  br label %lt\n\
         lt:\n  %c = icmp slt i32 %i1, %n\n  br i1 %c, label %h, label %ret\nx0:\n  \
         br label %ret\nret:\n  ret void\n}}",
        incoming.join(", ")
    );
    t
}

/// The join candidates of an assumed-divergent top-level cycle taken from its exit-seeded walks
/// (`crate::sync::exit_seeded`) change no answer and no order, in LLVM 22's setting and precise
/// mode (LLVM 19's does not use them): on random loop nests with jumps into later loops
/// (`randnest`, whose big irreducible cycles have irreducible cycles after them that the token
/// walk must assume pass several labels on), the other families and random functions of every
/// shape. On `randnest` they save most of the join work.
#[test]
fn seeded_candidates_change_nothing() {
    let mut inputs = irreducible_and_families(1..=2, 1200);
    for seed in 1..=6 {
        inputs.push(shapes::randnest_module(
            &mut Rng::new(seed),
            Flavor::Amdgpu,
            1500 + 500 * seed as usize,
        ));
    }
    for &name in converge_gen::program::shapes::NAMES {
        inputs.push(family(name, 1500));
    }
    inputs.extend(mixed_random_inputs(37, 12, 12));
    // At every cycle's first need, so that they decide as often as they can.
    knobs::EAGER_SEEDED.with(|c| c.set(true));
    for mode in [MODES[0], MODES[2]] {
        knobs::SEEDED_USED.with(|c| c.set(0));
        let (mut w_on, mut w_off) = (0, 0);
        for text in &inputs {
            let (on, w1) = run(text, mode);
            let (off, w2) = run_without(&knobs::NO_SEEDED_CANDIDATES, text, mode);
            assert!(
                same(&on, &off),
                "{mode:?}: the exit-seeded candidates changed an answer\n{text}"
            );
            w_on += w1;
            w_off += w2;
        }
        let used = knobs::SEEDED_USED.with(|c| c.get());
        eprintln!(
            "{mode:?}: {used} cycles used exit-seeded candidates; join work {w_off} -> {w_on}"
        );
        assert!(
            used > 100,
            "{mode:?}: the exit-seeded candidates were used ({used})"
        );
    }
    knobs::EAGER_SEEDED.with(|c| c.set(false));
    // With the budgets as they are (the walks wait until a cycle's branches walked a few passes
    // over it): a saving on `randnest` at 16,000 blocks (19.8 M -> 13.0 M steps when written),
    // and at most a bounded overhead where the walks do not pay (at 4,000 blocks: up to 7%).
    let text = shapes::randnest_module(&mut Rng::new(2), Flavor::Amdgpu, 16_000);
    let (_, w_on) = run(&text, MODES[0]);
    let (_, w_off) = run_without(&knobs::NO_SEEDED_CANDIDATES, &text, MODES[0]);
    eprintln!("randnest 16000: join work {w_off} without, {w_on} with");
    assert!(4 * w_on < 3 * w_off, "randnest: {w_off} -> {w_on}");
    for seed in 1..=3 {
        let text = shapes::randnest_module(&mut Rng::new(seed), Flavor::Amdgpu, 4000);
        for mode in [MODES[0], MODES[2]] {
            let (_, w_on) = run(&text, mode);
            let (_, w_off) = run_without(&knobs::NO_SEEDED_CANDIDATES, &text, mode);
            assert!(
                w_on < 2 * w_off + 100_000,
                "{mode:?} seed {seed}: {w_off} -> {w_on}"
            );
        }
    }
}

/// `k` loops side by side, entered from a switch on the kernel argument: loop `i` is a header
/// `h_i` (a counter; out to `x` on the argument), `b_i` (a switch on the argument back, out to
/// `x` or on to `g_i`) and `g_i` (back, or out to the returning block `y` on the thread id at
/// even `i`, on the argument at odd ones). `x` is no join (its edges are uniform branches, and
/// `y` does not reach it), so only the exit-phi rule decides its phis, each with two incomings
/// per loop: `%a` the counter from odd loops and one constant from even ones (uniform in every
/// setting: no value of a loop with a divergent exit), `%b` every loop's counter (divergent in
/// llvm mode),
/// `%c` constants, two different ones from loops `i % 4 == 0` (divergent in precise mode, whose
/// exit rule compares the values coming from the cycle; uniform in llvm mode, which looks for
/// values defined in it), one undef.
fn loop_fan(k: usize) -> String {
    let mut t = module_header(Flavor::Amdgpu);
    t.push_str(
        "define amdgpu_kernel void @fan(ptr addrspace(1) %p, i32 %n) {\nentry:\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  switch i32 %n, label %h0 [",
    );
    for i in 1..k {
        t.push_str(&format!("\n    i32 {i}, label %h{i}"));
    }
    t.push_str("\n  ]\n");
    for i in 0..k {
        let on = if i % 2 == 0 { "%tid" } else { "%n" };
        t.push_str(&format!(
            "h{i}:\n  %c{i} = phi i32 [ 0, %entry ], [ %d{i}, %b{i} ], [ %d{i}, %g{i} ]\n  %d{i} = add i32 %c{i}, 1\n  %u{i} = icmp slt i32 %d{i}, %n\n  br i1 %u{i}, label %b{i}, label %x\nb{i}:\n  switch i32 %n, label %g{i} [\n    i32 0, label %h{i}\n    i32 1, label %x\n  ]\ng{i}:\n  %e{i} = icmp slt i32 %d{i}, {on}\n  br i1 %e{i}, label %h{i}, label %y\n"
        ));
    }
    for name in ["a", "b", "c"] {
        let mut inc = Vec::new();
        for i in 0..k {
            for (from, second) in [("h", false), ("b", true)] {
                let v = match name {
                    "a" if i % 2 == 1 => format!("%d{i}"),
                    "a" => "5".to_string(),
                    "b" => format!("%d{i}"),
                    _ if i % 4 == 0 => format!("{}", 1 + second as u32),
                    _ if i == 1 && second => "undef".to_string(),
                    _ => "3".to_string(),
                };
                inc.push(format!("[ {v}, %{from}{i} ]"));
            }
        }
        t.push_str(&format!(
            "{}  %{name} = phi i32 {}\n",
            if name == "a" { "x:\n" } else { "" },
            inc.join(", ")
        ));
    }
    t.push_str(
        "  %s = add i32 %a, %b\n  store i32 %s, ptr addrspace(1) %p, align 4\n  store i32 %c, ptr addrspace(1) %p, align 4\n  ret void\ny:\n  ret void\n}\n",
    );
    t
}

/// The exit phis of a block of many predecessors (`exit_phi_reads` in llvm mode,
/// `precise::exits::exit_phi_same` in precise mode: the incomings' cycles listed once, sorted,
/// instead of every incoming read per cycle asking; knob `NO_WIDE_EXIT_PHIS`): no answer and no
/// order changes, in the three settings, on side-by-side loops leaving to one block (where only
/// that rule decides the phis), loops in a row with early returns into one block (`earlyret`,
/// shuffled too, where the scan was quadratic: 1.57 s in LLVM 22's setting at 64,000 blocks,
/// 0.13 s with the memo), the wide joins of `widephi` and `latchy`, the other families and random
/// functions; the memo answers there, and the uniform phi of the loop fan stays uniform.
#[test]
fn wide_exit_phis_change_nothing() {
    let mut inputs = vec![
        loop_fan(40),
        loop_fan(300),
        family("earlyret", 600),
        family("earlyret", 2000),
        family("shuffled-earlyret", 1500),
        family("widephi", 600),
        family("latchy", 600),
        family("manyfuncs", 1500),
    ];
    inputs.extend(irreducible_and_families(1..=2, 1200));
    inputs.extend(mixed_random_inputs(33, 20, 20));
    for mode in MODES {
        knobs::WIDE_EXIT_PHIS.with(|c| c.set(0));
        for text in &inputs {
            let (on, _) = run(text, mode);
            let (off, _) = run_without(&knobs::NO_WIDE_EXIT_PHIS, text, mode);
            assert!(
                same(&on, &off),
                "{mode:?}: the wide exit-phi memo changed an answer\n{text}"
            );
        }
        let fired = knobs::WIDE_EXIT_PHIS.with(|c| c.get());
        eprintln!("{mode:?}: {fired} exit phis answered from the memo");
        assert!(fired > 0, "{mode:?}: the memo never answered");
        // The fan's `%a` is uniform; `%b` divergent in llvm mode only (precise mode's rule P10:
        // the loops are left to `x` by uniform branches only); `%c` divergent in precise mode
        // only.
        let (fan, _) = run(&loop_fan(40), mode);
        let m = converge_ir::parse("t.ll", loop_fan(40)).expect("parses");
        let lf = LlvmFunction::new(&m, FuncId(m.functions.len() as u32 - 1));
        let phis: Vec<_> = lf
            .block_insts(converge_graph::Block(3 * 40 + 1))
            .take(3)
            .collect();
        assert!(phis.iter().all(|&i| lf.is_phi(i)), "x is block 121");
        let div: Vec<bool> = phis
            .iter()
            .map(|&i| fan[0].divergent_insts[i.index()])
            .collect();
        assert_eq!(
            div,
            [false, mode != Mode::Precise, mode == Mode::Precise],
            "{mode:?}: the fan's exit phis"
        );
    }
}

/// Loops nested `d` deep under convergence control, every branch uniform: level `i`'s header
/// holds its heart (on the level above's, the outermost on the entry token) and a
/// `readfirstlane` of the thread id controlled by it, whose value the block after the loop (out
/// of the heart's region) uses. A heart chain longer than `implementation_grouped`'s limit makes
/// the `readfirstlane` anchored, so that use divergent; shorter, uniform.
fn heart_chain(d: usize) -> String {
    let mut t = module_header(Flavor::Amdgpu);
    t.push_str(
        "declare token @llvm.experimental.convergence.entry()\ndeclare token @llvm.experimental.convergence.loop()\n\ndefine amdgpu_kernel void @chain(ptr addrspace(1) %p, i32 %n) convergent {\nentry:\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %t = call token @llvm.experimental.convergence.entry()\n  br label %h0\n",
    );
    for i in 0..d {
        let (pre, up) = if i == 0 {
            ("entry".to_string(), "%t".to_string())
        } else {
            (format!("h{}", i - 1), format!("%t{}", i - 1))
        };
        let next = if i + 1 < d {
            format!("h{}", i + 1)
        } else {
            format!("l{i}")
        };
        t.push_str(&format!(
            "h{i}:\n  %c{i} = phi i32 [ 0, %{pre} ], [ %cn{i}, %l{i} ]\n  %t{i} = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token {up}) ]\n  %u{i} = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid) [ \"convergencectrl\"(token %t{i}) ]\n  %cn{i} = add i32 %c{i}, 1\n  br label %{next}\n"
        ));
    }
    for i in (0..d).rev() {
        let out = if i == 0 {
            "ret".to_string()
        } else {
            format!("l{}", i - 1)
        };
        t.push_str(&format!(
            "l{i}:\n  %lc{i} = icmp slt i32 %cn{i}, %n\n  br i1 %lc{i}, label %h{i}, label %x{i}\nx{i}:\n  %w{i} = add i32 %u{i}, 1\n  store i32 %w{i}, ptr addrspace(1) %p, align 4\n  br label %{out}\n"
        ));
    }
    t.push_str("ret:\n  ret void\n}\n");
    t
}

/// Precise mode remembers the heart chains' lengths per function (`precise::tokens::ChainMemo`,
/// knob `NO_CHAIN_MEMO`) instead of following each convergent operation's chain of hearts from
/// its start, up to 256 tokens: no answer and no order changes on loop nests under convergence
/// tokens deeper than that limit (`tokens` at 1,500 blocks: 299 levels, so the operations below
/// the 256th heart are implementation-grouped by the limit), in both flavours, with the blocks
/// shuffled, and on random valid token functions; the memo answers there. (Following every
/// chain cost 2.3 s at 64,000 blocks of `shuffled-tokens`, 0.62 s with the memo.)
#[test]
fn chain_memo_changes_nothing() {
    let inputs = vec![
        heart_chain(300),
        heart_chain(40),
        family("tokens", 1500),
        family("tokens", 400),
        family("shuffled-tokens", 1500),
        shapes::tokens_module(Flavor::Nvptx, 1500),
        converge_gen::tokens::big_module(7, 200_000),
    ];
    knobs::CHAIN_MEMO.with(|c| c.set(0));
    for text in &inputs {
        let (on, _) = run(text, Mode::Precise);
        let (off, _) = run_without(&knobs::NO_CHAIN_MEMO, text, Mode::Precise);
        assert!(same(&on, &off), "the chain memo changed an answer\n{text}");
    }
    let fired = knobs::CHAIN_MEMO.with(|c| c.get());
    eprintln!("{fired} questions answered by the chain memo");
    assert!(fired > 0, "the chain memo never answered");
}

/// Branches inside an assumed-divergent top-level cycle postponed once its exit-seeded
/// candidates are settled (`NO_SEEDED_DEFER`), their walks stopped below the cycle at a
/// configuration of its exits walked on from before (`NO_EXIT_CONFIGS`,
/// `crate::sync::exit_configs`), and the postponed branches whose own cycle may still get a
/// divergent exit analysed first (`NO_DIRECT_FIRST`) change no answer: on random loop nests
/// with jumps into later loops (`randnest`, seeds 1-8, where thousands of branches of a big
/// cycle walked the code after it), the other families and random functions of every shape, in
/// every mode. Postponing reorders the printed cycles with a divergent exit in the LLVM settings
/// (a list LLVM prints in hash order beyond 16 entries), and so can the other two, through the
/// work-measured budgets; precise mode's lists are sorted, and there nothing changes at all. On
/// `randnest` at 16,000 blocks they save about half the join work.
#[test]
fn postponed_and_remembered_walks_change_no_answer() {
    let mut inputs = irreducible_and_families(1..=2, 1200);
    for seed in 1..=8 {
        inputs.push(shapes::randnest_module(
            &mut Rng::new(seed),
            Flavor::Amdgpu,
            1500 + 400 * seed as usize,
        ));
    }
    for &name in converge_gen::program::shapes::NAMES {
        inputs.push(family(name, 1500));
    }
    inputs.extend(mixed_random_inputs(41, 12, 12));
    // Random loop nests with mixed uniform and divergent branches: cycles none of whose own
    // branches is divergent, given their divergent exit by a branch deeper inside.
    let mut rng = Rng::new(43);
    let opts = Options::new(Flavor::Amdgpu);
    for k in 0..12 {
        let succs = shapes::randnest_cfg(&mut rng, 1500 + 150 * k);
        let mut t = module_header(Flavor::Amdgpu);
        t.push_str(&function_with_cfg(&mut rng, "f", &opts, &succs));
        inputs.push(t);
    }
    // The seeded candidates at every cycle's first need, so that they decide as often as they
    // can (and postpone as often).
    knobs::EAGER_SEEDED.with(|c| c.set(true));
    knobs::CONFIG_STOPS.with(|c| c.set(0));
    for mode in MODES {
        for text in &inputs {
            let (on, _) = run(text, mode);
            for (name, knob) in [
                ("postponing on seeded candidates", &knobs::NO_SEEDED_DEFER),
                ("exit configurations", &knobs::NO_EXIT_CONFIGS),
                ("own cycles first", &knobs::NO_DIRECT_FIRST),
            ] {
                let (off, _) = run_without(knob, text, mode);
                assert!(
                    same_sets(&on, &off),
                    "{mode:?}: {name} changed an answer\n{text}"
                );
                if matches!(mode, Mode::Precise) {
                    assert!(same(&on, &off), "{mode:?}: {name} changed an order\n{text}");
                }
            }
        }
    }
    knobs::EAGER_SEEDED.with(|c| c.set(false));
    let stops = knobs::CONFIG_STOPS.with(|c| c.get());
    eprintln!("walks stopped at a configuration seen before: {stops}");
    assert!(stops > 1000, "the configurations stopped walks ({stops})");
    let (mut sum_on, mut sum_off, mut sum_direct) = (0, 0, 0);
    for seed in 1..=3 {
        let text = shapes::randnest_module(&mut Rng::new(seed), Flavor::Amdgpu, 16_000);
        // Same answers here too: only at this size does a branch postponed to the second pass
        // give a cycle around its own its divergent exit (seed 2, precise mode).
        for mode in [MODES[0], MODES[2]] {
            let (on, _) = run(&text, mode);
            for knob in [&knobs::NO_SEEDED_DEFER, &knobs::NO_DIRECT_FIRST] {
                let (off, _) = run_without(knob, &text, mode);
                assert!(
                    same_sets(&on, &off),
                    "{mode:?}: randnest seed {seed} changed"
                );
            }
        }
        let (_, w_on) = run(&text, MODES[0]);
        knobs::NO_SEEDED_DEFER.with(|c| c.set(true));
        knobs::NO_DIRECT_FIRST.with(|c| c.set(true));
        let (_, w_off) = run_without(&knobs::NO_EXIT_CONFIGS, &text, MODES[0]);
        knobs::NO_SEEDED_DEFER.with(|c| c.set(false));
        knobs::NO_DIRECT_FIRST.with(|c| c.set(false));
        let (_, w_direct) = run_without(&knobs::NO_DIRECT_FIRST, &text, MODES[0]);
        eprintln!("randnest 16000, seed {seed}: deepest first only: {w_direct}");
        sum_direct += w_direct;
        eprintln!("randnest 16000, seed {seed}: join work {w_off} without, {w_on} with");
        sum_on += w_on;
        sum_off += w_off;
    }
    // (When written: 35.1 M -> 15.4 M steps; 16.9 M deepest first only.)
    assert!(3 * sum_on < 2 * sum_off, "randnest: {sum_off} -> {sum_on}");
    assert!(
        20 * sum_on < 19 * sum_direct,
        "own cycles first: {sum_direct} -> {sum_on}"
    );
}

/// A random function of about `blocks` blocks made of loops in a row: each loop's body a row
/// of plain blocks, inner loops (up to three deep) and irreducible cycles (some around a loop), with breaks to the
/// loop's exit, to enclosing loops' exits and to a few returning blocks shared by every loop
/// (some with a successor), continues, forward skips inside the body, exits from the header and
/// latches with or without an exit. An irreducible cycle is two blocks entered from one block
/// before them, or three (`u`, `v` and `q`, which every path out of it passes) entered at `u`
/// and `v` straight from the piece before it (a loop's exits or a plain block's successors).
/// Block 0 is the entry; every block is reachable.
fn loop_rows(rng: &mut Rng, blocks: usize) -> Vec<Vec<u32>> {
    struct G<'a> {
        rng: &'a mut Rng,
        succs: Vec<Vec<u32>>,
        budget: usize,
    }
    impl G<'_> {
        fn new_block(&mut self) -> u32 {
            self.succs.push(Vec::new());
            self.succs.len() as u32 - 1
        }
        fn set(&mut self, b: u32, mut s: Vec<u32>) {
            // Distinct successors, the first two in a random order (LLVM's orders follow them).
            let mut seen = Vec::new();
            s.retain(|x| {
                let new = !seen.contains(x);
                seen.push(*x);
                new
            });
            if s.len() > 1 && self.rng.chance(1, 2) {
                s.swap(0, 1);
            }
            self.succs[b as usize] = s;
        }
        /// A row of pieces ending in `next` (inside a loop of depth `depth` headed by `h`, or at
        /// the top level when `h` is `None`), with `breaks` the blocks a piece may leave to;
        /// its first block.
        fn row(&mut self, depth: u32, h: Option<u32>, mut next: u32, breaks: &[u32]) -> u32 {
            let mut entries = vec![next];
            // A second entry of the irreducible cycle that follows, for the piece before it.
            let mut pending: Option<u32> = None;
            let len = if h.is_some() {
                1 + self.rng.below(4)
            } else {
                usize::MAX
            };
            for _ in 0..len {
                if self.budget == 0 {
                    break;
                }
                let mut brk = breaks.to_vec();
                brk.extend(pending.take());
                let kind = self.rng.below(11);
                let first = if kind < 3 && depth < 3 {
                    self.budget = self.budget.saturating_sub(2);
                    self.lp(depth + 1, next, &brk)
                } else if kind == 3 {
                    self.budget = self.budget.saturating_sub(3);
                    let (w, u, v) = (self.new_block(), self.new_block(), self.new_block());
                    self.set(w, vec![u, v]);
                    self.set(u, vec![v, next]);
                    let mut sv = vec![u, next];
                    if self.rng.chance(1, 3) {
                        sv.push(*self.rng.pick(breaks));
                    }
                    self.set(v, sv);
                    w
                } else if kind == 4 && depth < 3 {
                    // An irreducible cycle around a loop: `w` enters at `u`, which goes into
                    // the loop, and at `v`, where the loop leaves; `v` goes back to `u`.
                    self.budget = self.budget.saturating_sub(3);
                    let (w, u, v) = (self.new_block(), self.new_block(), self.new_block());
                    let mut inner = brk.clone();
                    inner.push(next);
                    let l = self.lp(depth + 1, v, &inner);
                    self.set(w, vec![u, v]);
                    self.set(u, vec![l, next]);
                    self.set(v, vec![u, next]);
                    w
                } else if kind == 5 {
                    self.budget = self.budget.saturating_sub(3);
                    let (u, v, q) = (self.new_block(), self.new_block(), self.new_block());
                    self.set(u, vec![v, q]);
                    self.set(v, vec![u, q]);
                    self.set(q, vec![u, next]);
                    pending = Some(v);
                    u
                } else {
                    self.budget = self.budget.saturating_sub(1);
                    let b = self.new_block();
                    let mut s = vec![next];
                    s.extend(brk.last().filter(|_| brk.len() > breaks.len()));
                    for _ in 0..self.rng.below(3) {
                        s.push(match (self.rng.below(4), h) {
                            (0, _) => *self.rng.pick(breaks),
                            (1, Some(h)) => h,
                            _ => *self.rng.pick(&entries),
                        });
                    }
                    self.set(b, s);
                    b
                };
                entries.push(first);
                next = first;
            }
            if let Some(v) = pending {
                // Nothing came before the cycle in this row: its first block enters at `v` too.
                let b = self.new_block();
                self.set(b, vec![next, v]);
                next = b;
            }
            next
        }
        /// A loop leaving to `after` (and the blocks of `breaks`); its header.
        fn lp(&mut self, depth: u32, after: u32, breaks: &[u32]) -> u32 {
            let h = self.new_block();
            let latch = self.new_block();
            let mut inner = breaks.to_vec();
            inner.push(after);
            let first = self.row(depth, Some(h), latch, &inner);
            let mut sh = vec![first];
            if self.rng.chance(1, 5) {
                sh.push(after);
            }
            self.set(h, sh);
            let mut sl = vec![h];
            if self.rng.chance(4, 5) || self.succs[h as usize].len() == 1 {
                sl.push(after);
            }
            if self.rng.chance(1, 3) {
                sl.push(*self.rng.pick(breaks));
            }
            self.set(latch, sl);
            h
        }
    }
    let mut g = G {
        rng,
        succs: Vec::new(),
        budget: blocks,
    };
    let entry = g.new_block();
    let end = g.new_block();
    let mut rets = vec![end];
    for _ in 0..g.rng.below(3) {
        let r = g.new_block();
        let s = if g.rng.chance(1, 2) {
            vec![end]
        } else {
            Vec::new()
        };
        g.set(r, s);
        rets.push(r);
    }
    let first = g.row(0, None, end, &rets);
    g.set(entry, vec![first]);
    g.succs
}

/// A loop `{h, b}` whose latch `b` leaves to `u` and `v`, two entries of an irreducible cycle
/// `{u, v, q}` that every path out of passes `q`, `q` being the first post-dominator of `h`
/// outside the loop; a branch `a` before the loop enters it and the cycle (at `v` or `u`). In
/// every order of every block's successors (192 functions): in some, an exit of the loop lies
/// below `q` in the modified post-order, where a jump from `h` to `q` would leave it unlabelled.
fn exits_into_irreducible() -> Vec<Vec<Vec<u32>>> {
    // 0 entry, 1 a, 2 h, 3 b, 4 u, 5 v, 6 q, 7 end.
    fn orders(s: &[u32]) -> Vec<Vec<u32>> {
        if s.len() <= 1 {
            return vec![s.to_vec()];
        }
        let mut out = Vec::new();
        for k in 0..s.len() {
            let mut rest = s.to_vec();
            let x = rest.remove(k);
            for mut o in orders(&rest) {
                o.insert(0, x);
                out.push(o);
            }
        }
        out
    }
    let mut out = Vec::new();
    for entry in [4, 5] {
        for a in orders(&[2, entry]) {
            for b in orders(&[2, 4, 5]) {
                for u in orders(&[5, 6]) {
                    for v in orders(&[4, 6]) {
                        for q in orders(&[4, 7]) {
                            let (b, u, v, q) = (b.clone(), u.clone(), v.clone(), q.clone());
                            out.push(vec![vec![1], a.clone(), vec![3], b, u, v, q, Vec::new()]);
                        }
                    }
                }
            }
        }
    }
    out
}

/// LLVM 19's jumps from a reducible header over its cycle and what follows
/// (`jumps::HEADER_REGION`) change no join, no divergent exit and no order: per branch (every
/// block of two or more successors taken as a divergent branch, the cycles with a known
/// divergent exit drawn at random, with and without settled blocks), the lists of joins and
/// divergent exits equal those without the header jumps and, without settled blocks, those of
/// LLVM 19's own algorithm; and the analysis' answers (divergent values, divergent exits in
/// order, temporal divergence) equal, on loops in a row with many exits, nested loops,
/// irreducible cycles inside loops and returning blocks shared by the loops (`loop_rows`, every
/// branch on the thread id, and with mixed uniform and divergent branches and values), loop
/// exits into an irreducible cycle in every order (`exits_into_irreducible`), the families at
/// 400 blocks and random functions of every shape. The tables are built before
/// the first propagation. Without the header jumps `earlyret` is quadratic in LLVM 19's setting.
#[test]
fn header_jumps_change_nothing() {
    use crate::sync::{JoinFinder, ModifiedPo};
    use converge_graph::{Block, Graph};
    let mut rng = Rng::new(41);
    let mut cfgs: Vec<Vec<Vec<u32>>> = (0..300).map(|k| loop_rows(&mut rng, 8 + k % 120)).collect();
    cfgs.extend(exits_into_irreducible());
    // Per branch.
    let (mut compared, mut taken) = (0u64, 0u64);
    for succs in &cfgs {
        let g = converge_graph::Cfg::from_succs(
            Block(0),
            succs.len(),
            succs.iter().map(|v| v.iter().map(|&x| Block(x))),
        );
        let s = Structure::new(&g);
        let po = ModifiedPo::compute(&g, &s);
        let mut jf = JoinFinder::default();
        for t in 0..g.num_blocks() as u32 {
            let t = Block(t);
            if !s.is_reachable(t) || g.succs(t).len() < 2 {
                continue;
            }
            for trial in 0..3 {
                let known: Vec<bool> = (0..s.num_cycles())
                    .map(|_| trial > 0 && rng.chance(1, 2))
                    .collect();
                let settled = if trial == 2 {
                    rng.below(po.order.len()) as u32
                } else {
                    0
                };
                let mut got = Vec::new();
                for (header, plain) in [(true, false), (false, false), (false, true)] {
                    knobs::EAGER_JUMPS.with(|c| c.set(true));
                    knobs::NO_HEADER_JUMPS.with(|c| c.set(!header));
                    knobs::PLAIN_19.with(|c| c.set(plain));
                    knobs::HEADER_JUMPED.with(|c| c.set(0));
                    // A new table per setting (it is kept per function).
                    jf.reset(g.num_blocks());
                    jf.compute(&g, &s, &po, t, true, &known, settled, settled);
                    taken += knobs::HEADER_JUMPED.with(|c| c.get());
                    got.push((jf.desc.joins.clone(), jf.desc.cycle_exits.clone()));
                }
                knobs::EAGER_JUMPS.with(|c| c.set(false));
                knobs::NO_HEADER_JUMPS.with(|c| c.set(false));
                knobs::PLAIN_19.with(|c| c.set(false));
                assert_eq!(
                    got[0], got[1],
                    "header jumps changed branch {t:?} (settled below {settled}) of {succs:?}"
                );
                if settled == 0 {
                    assert_eq!(
                        got[0], got[2],
                        "header jumps changed LLVM 19's answer for branch {t:?} of {succs:?}"
                    );
                }
                compared += 1;
            }
        }
    }
    eprintln!("{compared} branches compared, {taken} header jumps taken");
    assert!(
        compared > 10_000 && taken > 1_000,
        "{compared} compared, {taken} taken"
    );
    // The analysis.
    let mut inputs: Vec<String> = cfgs.iter().take(150).map(|s| tid_module(s)).collect();
    let opts = {
        let mut o = Options::new(Flavor::Amdgpu);
        o.max_insts = 4;
        o
    };
    for chunk in cfgs.chunks(20) {
        let mut t = module_header(Flavor::Amdgpu);
        for (k, succs) in chunk.iter().enumerate() {
            t.push_str(&function_with_cfg(&mut rng, &format!("f{k}"), &opts, succs));
        }
        inputs.push(t);
    }
    for name in [
        "earlyret",
        "shuffled-earlyret",
        "tempchain",
        "exitnest",
        "latchy",
        "randnest",
        "switchnest",
        "nest",
        "exits",
        "irrladder-loop",
        "irrladder-unreach",
        "dag",
        "kernel",
    ] {
        inputs.push(family(name, 400));
    }
    inputs.extend(mixed_random_inputs(43, 20, 20));
    let mode = MODES[1];
    let mut taken = 0;
    for text in &inputs {
        knobs::EAGER_JUMPS.with(|c| c.set(true));
        knobs::HEADER_JUMPED.with(|c| c.set(0));
        let (on, _) = run(text, mode);
        taken += knobs::HEADER_JUMPED.with(|c| c.get());
        let (off, _) = run_without(&knobs::NO_HEADER_JUMPS, text, mode);
        knobs::EAGER_JUMPS.with(|c| c.set(false));
        let (lazy, _) = run(text, mode);
        let (plain, _) = run_without(&knobs::PLAIN_19, text, mode);
        assert!(same(&on, &off), "header jumps changed an answer\n{text}");
        assert!(same(&on, &lazy), "header jumps changed an answer\n{text}");
        assert!(
            same(&on, &plain),
            "header jumps changed LLVM 19's answer\n{text}"
        );
    }
    eprintln!("analysis: {taken} header jumps taken");
    assert!(taken > 1_000, "header jumps taken: {taken}");
    assert_linear_only_with("earlyret", mode, &knobs::NO_HEADER_JUMPS);
}

/// The cut memo (`sync::cut_memo`) per branch: on random loop nests, random DAGs with back
/// edges and grids, every branch's joins inside its top-level cycle (all of them in precise
/// mode's flow, in order) and its cycle
/// exits whose target has no divergent exit yet (in order) are those of the plain walk, with
/// the divergent exits known growing as the analysis' do, some branches inside an
/// assumed-divergent top-level cycle (`ignore`, remembered exit configurations) and some with a
/// settled bound, every other function with its jump table from the start. (Joins outside the
/// top-level cycle and exits to cycles that have one are not replayed: their effects are the
/// same for every branch, or nothing.)
#[test]
fn cut_memo_per_branch_is_the_plain_walk() {
    use crate::structure::NONE;
    use crate::sync::{JoinFinder, ModifiedPo};
    use converge_graph::{Block, Graph};
    let mut rng = Rng::new(53);
    let mut cfgs: Vec<Vec<Vec<u32>>> = Vec::new();
    for k in 0..60 {
        cfgs.push(shapes::randnest_cfg(&mut rng, 200 + 40 * k));
    }
    for k in 0..20 {
        cfgs.push(dag_back_edges_cfg(&mut rng, 100 + 30 * k));
        cfgs.push(grid_back_edges_cfg(&mut rng, 100 + 30 * k));
    }
    let (mut compared, mut replays) = (0u64, 0u64);
    knobs::EAGER_CUT_MEMO.with(|c| c.set(true));
    for (k, succs) in cfgs.iter().enumerate() {
        // Every other function with its jump table from the start (`crate::jumps`); every
        // third in precise mode's flow (header exits; every join kept).
        knobs::EAGER_JUMPS.with(|c| c.set(k % 2 == 1));
        let precise = k % 3 == 2;
        let g = converge_graph::Cfg::from_succs(
            Block(0),
            succs.len(),
            succs.iter().map(|v| v.iter().map(|&x| Block(x))),
        );
        let s = Structure::new(&g);
        let po = ModifiedPo::compute(&g, &s);
        let (mut memo, mut plain) = (JoinFinder::default(), JoinFinder::default());
        memo.reset(g.num_blocks());
        plain.reset(g.num_blocks());
        let mut known = vec![false; s.num_cycles()];
        let assumed = rng.chance(1, 2);
        // Branches deepest first, as the postponed ones are analysed.
        let mut branches: Vec<Block> = (0..g.num_blocks() as u32)
            .map(Block)
            .filter(|&t| s.is_reachable(t) && g.succs(t).len() >= 2 && s.inner(t) != NONE)
            .collect();
        branches.sort_by_key(|&t| std::cmp::Reverse(s.depth(s.inner(t))));
        for t in branches {
            let top = s.top(s.inner(t));
            let lo = po.index[s.header(top).index()];
            let interval = (lo, lo + s.blocks(top).len() as u32);
            let settled = if rng.chance(1, 8) {
                rng.below(po.order.len()) as u32
            } else {
                0
            };
            let mut got = Vec::new();
            for (jf, on) in [(&mut memo, true), (&mut plain, false)] {
                knobs::NO_CUT_MEMO.with(|c| c.set(!on));
                jf.ignore = if assumed { interval } else { (0, 0) };
                jf.configs_of = (assumed && !precise).then_some(top);
                jf.header_exits = precise;
                let before = knobs::CUT_REPLAYS.with(|c| c.get());
                jf.compute(&g, &s, &po, t, false, &known, settled, settled);
                replays += knobs::CUT_REPLAYS.with(|c| c.get()) - before;
                let joins: Vec<Block> = jf
                    .desc
                    .joins
                    .iter()
                    .copied()
                    .filter(|b| {
                        let i = po.index[b.index()];
                        precise || interval.0 <= i && i < interval.1
                    })
                    .collect();
                let inner = s.inner(t);
                let exits: Vec<Block> = jf
                    .desc
                    .cycle_exits
                    .iter()
                    .copied()
                    .filter(|&x| {
                        let d = s.cycle_of(x).map_or(0, |c| s.depth(c));
                        let target = if s.depth(inner) > d {
                            s.ancestor_at_depth(inner, d + 1)
                        } else {
                            inner
                        };
                        !known[target as usize]
                    })
                    .collect();
                got.push((joins, exits));
            }
            knobs::NO_CUT_MEMO.with(|c| c.set(false));
            assert_eq!(
                got[0], got[1],
                "the cut memo changed branch {t:?} (settled {settled}, assumed {assumed}) of {succs:?}"
            );
            compared += 1;
            // A snapshot logs what its walk recorded after its cut: no more joins and exits
            // than the function has blocks (twice over, a join and an exit at one block).
            // (Session 25 found walks whose log kept every earlier walk's.)
            assert!(
                memo.memo().longest_log() <= 2 * g.num_blocks(),
                "a log of {} events in a function of {} blocks",
                memo.memo().longest_log(),
                g.num_blocks()
            );
            // Divergent exits become known as the analysis finds them.
            for &x in &got[1].1 {
                let inner = s.inner(t);
                let d = s.cycle_of(x).map_or(0, |c| s.depth(c));
                let target = if s.depth(inner) > d {
                    s.ancestor_at_depth(inner, d + 1)
                } else {
                    inner
                };
                if rng.chance(3, 4) {
                    known[target as usize] = true;
                }
            }
        }
    }
    knobs::EAGER_CUT_MEMO.with(|c| c.set(false));
    knobs::EAGER_JUMPS.with(|c| c.set(false));
    eprintln!("{compared} branches compared, {replays} replays");
    assert!(
        compared > 20_000 && replays > 2_000,
        "{compared} compared, {replays} replays"
    );
}

/// The cut memo changes no answer and no order (the cycles with a divergent exit included) in
/// LLVM 22's setting and precise mode, remembering from the first branch of every function (`EAGER_CUT_MEMO`)
/// and at the default point, on random loop nests (the family it is for, several sizes and
/// seeds), the irreducible families and random functions.
#[test]
fn cut_memo_changes_nothing() {
    let mut inputs: Vec<String> = Vec::new();
    for seed in 1..=6 {
        let mut rng = Rng::new(seed);
        for n in [300, 1200, 3000, 8000] {
            inputs.push(tid_module(&shapes::randnest_cfg(&mut rng, n)));
        }
    }
    inputs.extend(irreducible_and_families(1..=3, 1200));
    inputs.extend(mixed_random_inputs(57, 20, 20));
    let mut replays = 0;
    for text in &inputs {
        for mode in [MODES[0], MODES[2]] {
            let (plain, _) = run_without(&knobs::NO_CUT_MEMO, text, mode);
            knobs::CUT_REPLAYS.with(|c| c.set(0));
            let (lazy, _) = run(text, mode);
            knobs::EAGER_CUT_MEMO.with(|c| c.set(true));
            let (eager, _) = run(text, mode);
            knobs::EAGER_CUT_MEMO.with(|c| c.set(false));
            replays += knobs::CUT_REPLAYS.with(|c| c.get());
            assert!(
                same(&plain, &lazy),
                "{mode:?}: the cut memo changed an answer\n{text}"
            );
            assert!(
                same(&plain, &eager),
                "{mode:?}: the cut memo changed an answer\n{text}"
            );
        }
    }
    eprintln!("{replays} replays");
    assert!(replays > 5_000, "replays: {replays}");
}

/// The cut memo's bookkeeping on a deep nest: `dag-local` (back edges at most 50 blocks long)
/// nests irreducible cycles about a seventh of its blocks deep, and the memo looked at every
/// cycle around the branch for each walk and each pop outside the watched cycle: at 64,000
/// blocks (seed 1) LLVM 22's setting took 136 s, against 9.8 s without the memo. Branches
/// more than `MAX_LEVELS` cycles deep are not remembered now; the cycles looked at stay within
/// 200 per block at 4,000 blocks (1,070 per block before), and the answers are the plain
/// walk's.
#[test]
fn cut_memo_bookkeeping_is_bounded_on_deep_nests() {
    knobs::EAGER_CUT_MEMO.with(|c| c.set(true));
    for mode in [MODES[0], MODES[2]] {
        let text = family("dag-local", 4000);
        knobs::CUT_LEVELS.with(|c| c.set(0));
        let with = run(&text, mode).0;
        let levels = knobs::CUT_LEVELS.with(|c| c.get());
        knobs::NO_CUT_MEMO.with(|c| c.set(true));
        let without = run(&text, mode).0;
        knobs::NO_CUT_MEMO.with(|c| c.set(false));
        assert!(
            same(&with, &without),
            "{mode:?}: the memo changed an answer"
        );
        eprintln!("{mode:?}: {levels} cycles looked at");
        assert!(
            levels <= 200 * 4000,
            "{mode:?}: the memo looked at {levels} cycles at 4,000 blocks"
        );
    }
    knobs::EAGER_CUT_MEMO.with(|c| c.set(false));
}

/// A walk inside an assumed-divergent top-level cycle stops once every exit of the cycle is a
/// join of its branch, when that configuration of the exits was walked on from before
/// (`NO_FINAL_CONFIG`, `JoinFinder::propagate`'s `final_exits`): no answer and no order
/// changes in LLVM 22's setting (the only one that remembers configurations), with the
/// exit-seeded walks at their default point and at every cycle's first need (the stop waits
/// for them), on `dag-local` (back edges at most 50 blocks long: irreducible cycles nested a
/// seventh of the blocks deep, inside one big top-level cycle whose branches each flooded it),
/// random loop nests, the irreducible families and random functions. On `dag-local` seed 1 at
/// 64,000 blocks it took LLVM 22's setting from 394.7 M steps to 67.1 M (issue 13, session 27).
/// Nor does `JoinFinder::compute` taking the analysis' word that every cycle around the branch
/// has its divergent exit (`NO_CHAIN_KNOWN`), in the three settings.
#[test]
fn final_configurations_change_nothing() {
    let mut inputs = Vec::new();
    for seed in 1..=4 {
        for n in [1500, 4000, 8000, 16000, 32000] {
            inputs.push(tid_module(&converge_gen::program::dag_back_edges_cfg_with(
                &mut Rng::new(seed),
                n,
                converge_gen::program::DagParams::LOCAL,
            )));
        }
    }
    for seed in 1..=4 {
        inputs.push(tid_module(&shapes::randnest_cfg(
            &mut Rng::new(seed),
            2000 + 500 * seed as usize,
        )));
    }
    inputs.extend(irreducible_and_families(1..=2, 1200));
    inputs.extend(mixed_random_inputs(61, 12, 12));
    let (mut w_on, mut w_off) = (0, 0);
    knobs::FINAL_CONFIG_STOPS.with(|c| c.set(0));
    for eager in [false, true] {
        knobs::EAGER_SEEDED.with(|c| c.set(eager));
        for text in &inputs {
            for mode in MODES {
                let (on, w) = run(text, mode);
                for (name, knob) in [
                    ("the stop", &knobs::NO_FINAL_CONFIG),
                    ("the known chain", &knobs::NO_CHAIN_KNOWN),
                ] {
                    let (off, wo) = run_without(knob, text, mode);
                    assert!(
                        same(&on, &off),
                        "{mode:?}, eager seeded walks {eager}: {name} changed an answer\n{text}"
                    );
                    if std::ptr::eq(knob, &knobs::NO_FINAL_CONFIG) {
                        w_on += w;
                        w_off += wo;
                    }
                }
            }
        }
    }
    knobs::EAGER_SEEDED.with(|c| c.set(false));
    let stops = knobs::FINAL_CONFIG_STOPS.with(|c| c.get());
    eprintln!("{stops} walks stopped; join work {w_on} with the stop, {w_off} without");
    assert!(
        stops > 50,
        "walks stopped at a final configuration: {stops}"
    );
    assert!(w_on < w_off, "the stop saves work: {w_off} -> {w_on}");
}

/// The stop at a final configuration (`NO_FINAL_CONFIG`) per branch: on `dag-local` CFGs,
/// random loop nests, random DAGs with back edges and grids, every branch inside a top-level
/// cycle, deepest first, asked with that cycle assumed divergent (`ignore`, remembered exit
/// configurations) and every divergent exit known (so the walk pauses below the cycle), some
/// with a settled bound, every other function with its jump table from the start: the joins
/// recorded, in order, are the walk's without the stop. (The exits such a walk records go to
/// cycles that have a divergent exit: they change nothing.)
#[test]
fn final_configurations_per_branch_are_the_plain_walk() {
    use crate::structure::NONE;
    use crate::sync::{JoinFinder, ModifiedPo};
    use converge_graph::{Block, Graph};
    let mut rng = Rng::new(67);
    let mut cfgs: Vec<Vec<Vec<u32>>> = Vec::new();
    for k in 0..40 {
        cfgs.push(converge_gen::program::dag_back_edges_cfg_with(
            &mut rng,
            100 + 50 * k,
            converge_gen::program::DagParams::LOCAL,
        ));
        cfgs.push(shapes::randnest_cfg(&mut rng, 200 + 40 * k));
    }
    for k in 0..20 {
        cfgs.push(dag_back_edges_cfg(&mut rng, 100 + 30 * k));
        cfgs.push(grid_back_edges_cfg(&mut rng, 100 + 30 * k));
    }
    let (mut compared, stops_before) = (0u64, knobs::FINAL_CONFIG_STOPS.with(|c| c.get()));
    // The memo is not used for walks that may stop so (the stop would cut its log short).
    knobs::NO_CUT_MEMO.with(|c| c.set(true));
    for (k, succs) in cfgs.iter().enumerate() {
        knobs::EAGER_JUMPS.with(|c| c.set(k % 2 == 1));
        let g = converge_graph::Cfg::from_succs(
            Block(0),
            succs.len(),
            succs.iter().map(|v| v.iter().map(|&x| Block(x))),
        );
        let s = Structure::new(&g);
        let po = ModifiedPo::compute(&g, &s);
        let (mut stop, mut plain) = (JoinFinder::default(), JoinFinder::default());
        stop.reset(g.num_blocks());
        plain.reset(g.num_blocks());
        let known = vec![true; s.num_cycles()];
        let mut branches: Vec<Block> = (0..g.num_blocks() as u32)
            .map(Block)
            .filter(|&t| s.is_reachable(t) && g.succs(t).len() >= 2 && s.inner(t) != NONE)
            .collect();
        branches.sort_by_key(|&t| std::cmp::Reverse(s.depth(s.inner(t))));
        for t in branches {
            let top = s.top(s.inner(t));
            let lo = po.index[s.header(top).index()];
            let interval = (lo, lo + s.blocks(top).len() as u32);
            let settled = if rng.chance(1, 8) {
                rng.below(po.order.len()) as u32
            } else {
                0
            };
            let mut got = Vec::new();
            for (jf, on) in [(&mut stop, true), (&mut plain, false)] {
                knobs::NO_FINAL_CONFIG.with(|c| c.set(!on));
                jf.ignore = interval;
                jf.configs_of = Some(top);
                jf.final_ok = true;
                jf.header_exits = false;
                jf.compute(&g, &s, &po, t, false, &known, settled, settled);
                got.push(jf.desc.joins.clone());
            }
            knobs::NO_FINAL_CONFIG.with(|c| c.set(false));
            assert_eq!(
                got[0], got[1],
                "the stop changed branch {t:?} (settled {settled}) of {succs:?}"
            );
            compared += 1;
        }
    }
    knobs::NO_CUT_MEMO.with(|c| c.set(false));
    knobs::EAGER_JUMPS.with(|c| c.set(false));
    let stops = knobs::FINAL_CONFIG_STOPS.with(|c| c.get()) - stops_before;
    eprintln!("{compared} branches compared, {stops} walks stopped");
    assert!(
        compared > 20_000 && stops > 2_000,
        "{compared} compared, {stops} stopped"
    );
}

/// The exits of nested cycles around a branch sent once per walk (`sync::chain_exits`) record
/// the same joins and divergent exits in the same order as sending every header's label to
/// every exit of its cycle, branch by branch: on `dag-dense` and `dag-sparse` CFGs (reducible
/// cycles with hundreds of exits nested among irreducible ones, where the lists are visited in
/// part) and random loop nests, in LLVM 22's flow and precise mode's (header exits), with and
/// without an assumed-divergent top-level cycle, settled blocks and known divergent exits.
#[test]
fn chain_exits_per_branch_are_the_full_loop() {
    use crate::structure::NONE;
    use crate::sync::{JoinFinder, ModifiedPo};
    use converge_gen::program::{DagParams, dag_back_edges_cfg_with};
    use converge_graph::{Block, Graph};
    let mut rng = Rng::new(61);
    let mut cfgs: Vec<Vec<Vec<u32>>> = Vec::new();
    for k in 0..6 {
        cfgs.push(dag_back_edges_cfg_with(
            &mut rng,
            1000 + 400 * k,
            DagParams::DENSE,
        ));
        cfgs.push(dag_back_edges_cfg_with(
            &mut rng,
            1500 + 600 * k,
            DagParams::SPARSE,
        ));
        cfgs.push(shapes::randnest_cfg(&mut rng, 400 + 200 * k));
    }
    let (mut compared, mut plans) = (0u64, 0u64);
    for (k, succs) in cfgs.iter().enumerate() {
        let precise = k % 2 == 1;
        let g = converge_graph::Cfg::from_succs(
            Block(0),
            succs.len(),
            succs.iter().map(|v| v.iter().map(|&x| Block(x))),
        );
        let s = Structure::new(&g);
        let po = ModifiedPo::compute(&g, &s);
        let (mut once, mut full) = (JoinFinder::default(), JoinFinder::default());
        once.reset(g.num_blocks());
        full.reset(g.num_blocks());
        let mut known = vec![false; s.num_cycles()];
        let assumed = rng.chance(1, 3);
        let mut branches: Vec<Block> = (0..g.num_blocks() as u32)
            .map(Block)
            .filter(|&t| s.is_reachable(t) && g.succs(t).len() >= 2 && s.inner(t) != NONE)
            .collect();
        branches.sort_by_key(|&t| std::cmp::Reverse(s.depth(s.inner(t))));
        branches.truncate(400);
        for t in branches {
            let top = s.top(s.inner(t));
            let lo = po.index[s.header(top).index()];
            let interval = (lo, lo + s.blocks(top).len() as u32);
            let settled = if rng.chance(1, 8) {
                rng.below(po.order.len()) as u32
            } else {
                0
            };
            let mut got = Vec::new();
            for (jf, on) in [(&mut once, true), (&mut full, false)] {
                knobs::NO_CHAIN_EXITS.with(|c| c.set(!on));
                jf.ignore = if assumed { interval } else { (0, 0) };
                jf.header_exits = precise;
                let before = knobs::CHAIN_PLANS.with(|c| c.get());
                jf.compute(&g, &s, &po, t, false, &known, settled, settled);
                plans += knobs::CHAIN_PLANS.with(|c| c.get()) - before;
                got.push((jf.desc.joins.clone(), jf.desc.cycle_exits.clone()));
            }
            knobs::NO_CHAIN_EXITS.with(|c| c.set(false));
            assert_eq!(
                got[0], got[1],
                "chain exits changed branch {t:?} (settled {settled}, assumed {assumed}) of {succs:?}"
            );
            compared += 1;
            // Divergent exits become known as the analysis finds them.
            for &x in &got[1].1 {
                let inner = s.inner(t);
                let d = s.cycle_of(x).map_or(0, |c| s.depth(c));
                let target = if s.depth(inner) > d {
                    s.ancestor_at_depth(inner, d + 1)
                } else {
                    inner
                };
                if rng.chance(1, 2) {
                    known[target as usize] = true;
                }
            }
        }
    }
    eprintln!("{compared} branches compared, {plans} exit lists visited in part");
    assert!(
        compared > 3_000 && plans > 5_000,
        "{compared} compared, {plans} plans"
    );
}

/// `sync::chain_exits` changes no answer and no order (the cycles with a divergent exit
/// included), in the three settings, on `dag-dense` and `dag-sparse` (several seeds), random
/// loop nests and the irreducible families.
#[test]
fn chain_exits_change_nothing() {
    use converge_gen::program::{DagParams, dag_back_edges_cfg_with};
    let mut inputs: Vec<String> = Vec::new();
    for seed in 1..=4 {
        let mut rng = Rng::new(seed);
        for n in [1000, 4000] {
            inputs.push(tid_module(&dag_back_edges_cfg_with(
                &mut rng,
                n,
                DagParams::DENSE,
            )));
            inputs.push(tid_module(&dag_back_edges_cfg_with(
                &mut rng,
                n,
                DagParams::SPARSE,
            )));
            inputs.push(tid_module(&shapes::randnest_cfg(&mut rng, n)));
        }
    }
    inputs.extend(irreducible_and_families(1..=2, 1200));
    knobs::CHAIN_PLANS.with(|c| c.set(0));
    for text in &inputs {
        for mode in MODES {
            let (once, _) = run(text, mode);
            let (full, _) = run_without(&knobs::NO_CHAIN_EXITS, text, mode);
            assert!(
                same(&once, &full),
                "{mode:?}: chain exits changed an answer\n{text}"
            );
        }
    }
    let plans = knobs::CHAIN_PLANS.with(|c| c.get());
    eprintln!("{plans} exit lists visited in part");
    assert!(plans > 1_000, "plans: {plans}");
}
