//! Differential tests of `converge uniformity --format llvm` against `opt -passes=print<uniformity>`:
//! random programs (`converge_gen::program`) in batches of 100 functions per `opt` call.
//!
//! - LLVM 22 (the reference; NVPTX): 3,200 functions of every CFG shape, unreachable blocks included.
//! - LLVM 19 (AMDGPU and NVPTX): 3,200 functions whose blocks are all reachable, compared with
//!   `converge --llvm-version 19` (19's join early stop, issue 137277, reproduced); the functions where
//!   19 and 22 behaviour differ are counted and, for NVPTX, checked against LLVM 22.
//!
//! Zero mismatches are allowed: divergent arguments, every definition and terminator flag, the cycle
//! lists (as sets; maximal assumed cycles) and the temporal-divergence triples.
//!
//! Held-out runs: `CONVERGE_DIFF_SEED=K` (K > 0) draws every batch from other seeds (K shifts
//! them past every default seed), `CONVERGE_DIFF_SCALE=N` runs N times the batches.

mod common;
mod uniformity_support;

use converge_gen::program::{Flavor, Options, module};
use converge_gen::rng::Rng;
use std::path::PathBuf;
use uniformity_support::{converge_uniformity, diff, function_text, opt_uniformity, parse};

const BATCH: usize = 100;

/// `n` batches, times `CONVERGE_DIFF_SCALE` (default 1).
fn batches(n: u64) -> u64 {
    n * env_u64("CONVERGE_DIFF_SCALE", 1).max(1)
}

/// The seed of batch `batch` of a test whose default seeds start at `base`, moved to a held-out
/// range by `CONVERGE_DIFF_SEED`.
fn seed_of(base: u64, batch: u64) -> u64 {
    base + batch + (env_u64("CONVERGE_DIFF_SEED", 0) << 32)
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("converge-uniformity-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Compares one batch; returns the number of functions compared. Panics with a reproducer.
fn check_batch(
    opt: &std::path::Path,
    text: &str,
    file: &std::path::Path,
    extra: &[&str],
    seed: u64,
    what: &str,
) -> usize {
    std::fs::write(file, text).unwrap();
    let theirs = parse(&opt_uniformity(opt, file));
    let ours = parse(&converge_uniformity(file, extra));
    assert_eq!(
        theirs.keys().collect::<Vec<_>>(),
        ours.keys().collect::<Vec<_>>(),
        "{what}: seed {seed}: function lists differ"
    );
    for (name, t) in &theirs {
        if let Some(d) = diff(&ours[name], t, true) {
            let repro = function_text(text, name);
            let header: String = text.split("define ").next().unwrap_or("").to_string();
            panic!(
                "{what}: seed {seed}, function {name}: {d}\n--- reproducer ---\n{header}{repro}"
            );
        }
    }
    theirs.len()
}

#[test]
fn uniformity_matches_llvm22_nvptx_with_unreachable_blocks() {
    let Some(opt) = converge_gen::reference::opt22("uniformity_diff llvm22") else {
        return;
    };
    let file = scratch("llvm22.ll");
    let mut total = 0;
    for batch in 0..batches(32) {
        let seed = seed_of(0x2200_0000, batch);
        let mut rng = Rng::new(seed);
        let mut opts = Options::new(Flavor::Nvptx);
        opts.unreachable = true;
        opts.max_blocks = 8 + (batch as usize % 4) * 8;
        let text = module(&mut rng, BATCH, &opts);
        total += check_batch(&opt, &text, &file, &[], seed, "LLVM 22 NVPTX");
    }
    eprintln!("uniformity vs LLVM 22: {total} functions, 0 mismatches");
    assert!(total >= 3000);
}

fn vs_llvm19(flavor: Flavor, seed0: u64, batches: u64) -> usize {
    let Some(opt) = converge_gen::reference::opt19("uniformity_diff llvm19") else {
        return 0;
    };
    let opt22 = converge_gen::reference::opt22("uniformity_diff llvm19 (22 cross-check)");
    let mut differ_19_22 = 0;
    let file = scratch(&format!("llvm19-{flavor:?}.ll"));
    let mut total = 0;
    for batch in 0..self::batches(batches) {
        let seed = seed_of(seed0, batch);
        let mut rng = Rng::new(seed);
        let mut opts = Options::new(flavor);
        opts.unreachable = false;
        opts.max_blocks = 8 + (batch as usize % 4) * 8;
        // Always-uniform values only on reducible CFGs (see `Options::always_uniform`).
        opts.always_uniform = batch % 2 == 1;
        opts.reducible_only = opts.always_uniform;
        let text = module(&mut rng, BATCH, &opts);
        total += check_batch(
            &opt,
            &text,
            &file,
            &["--llvm-version", "19"],
            seed,
            &format!("LLVM 19 {flavor:?}"),
        );
        // Where 19's behaviour (join early stop) and 22's differ, 22 is the reference: for NVPTX,
        // check our default (22) answer against opt 22 on the same functions.
        let ours19 = parse(&converge_uniformity(&file, &["--llvm-version", "19"]));
        let ours22 = parse(&converge_uniformity(&file, &[]));
        let differ: Vec<&String> = ours19
            .keys()
            .filter(|k| {
                diff(&ours22[*k], &ours19[*k], true).is_some_and(|d| !d.contains("temporal"))
            })
            .collect();
        differ_19_22 += differ.len();
        if flavor == Flavor::Nvptx
            && !differ.is_empty()
            && let Some(o22) = &opt22
        {
            check_batch(
                o22,
                &text,
                &file,
                &[],
                seed,
                "LLVM 22 NVPTX (where 19 differs)",
            );
        }
    }
    eprintln!(
        "{flavor:?}: {total} functions equal to LLVM 19; {differ_19_22} of them where 19 and 22 behaviour differ"
    );
    total
}

#[test]
fn uniformity_matches_llvm19_amdgpu_and_nvptx() {
    let a = vs_llvm19(Flavor::Amdgpu, 0x1900_0000, 16);
    let n = vs_llvm19(Flavor::Nvptx, 0x1910_0000, 16);
    if a + n > 0 {
        eprintln!("uniformity vs LLVM 19: {a} AMDGPU + {n} NVPTX functions, 0 mismatches");
        assert!(a + n >= 3000);
    }
}

/// Larger functions with many cross edges: deep nests of irreducible cycles, where the shortcuts of
/// the implementation (assumed-divergent regions, exit groups) matter.
#[test]
fn uniformity_matches_llvm22_on_large_irreducible_functions() {
    let Some(opt) = converge_gen::reference::opt22("uniformity_diff large irreducible") else {
        return;
    };
    let file = scratch("llvm22-large.ll");
    let mut total = 0;
    for batch in 0..batches(3) {
        let seed = seed_of(0x2230_0000, batch);
        let mut rng = Rng::new(seed);
        let mut opts = Options::new(Flavor::Nvptx);
        opts.unreachable = batch % 3 == 2;
        opts.min_blocks = 60;
        opts.max_blocks = 160;
        opts.extra_edges_percent = 30 + 15 * (batch % 3) as u32;
        let text = module(&mut rng, 40, &opts);
        total += check_batch(&opt, &text, &file, &[], seed, "LLVM 22 NVPTX large");
    }
    eprintln!("uniformity vs LLVM 22, large irreducible: {total} functions, 0 mismatches");
}

/// Large AMDGPU functions (50-300 blocks, every shape, deep irreducible nests) against LLVM 19: the
/// AMDGPU model and the 19 mode on the benchmark module's kind of function. Always-uniform
/// intrinsics are off: with them LLVM's answer for their users outside an assumed-divergent cycle
/// depends on its processing order (docs/llvm-differences.md, section 3).
#[test]
fn uniformity_matches_llvm19_on_large_amdgpu_functions() {
    let Some(opt) = converge_gen::reference::opt19("uniformity_diff large amdgpu") else {
        return;
    };
    let file = scratch("llvm19-large-amdgpu.ll");
    let mut total = 0;
    for batch in 0..batches(3) {
        let seed = seed_of(0x1930_0000, batch);
        let mut rng = Rng::new(seed);
        let mut opts = Options::new(Flavor::Amdgpu);
        opts.min_blocks = 50;
        opts.max_blocks = 300;
        opts.always_uniform = false;
        opts.extra_edges_percent = 45 + 15 * (batch % 3) as u32;
        let text = module(&mut rng, 60, &opts);
        total += check_batch(
            &opt,
            &text,
            &file,
            &["--llvm-version", "19"],
            seed,
            "LLVM 19 AMDGPU large",
        );
    }
    eprintln!("uniformity vs LLVM 19, large AMDGPU: {total} functions, 0 mismatches");
    assert_eq!(total, 60 * batches(3) as usize);
}

/// Issue 13's shapes, every branch on the thread id: DAGs plus random back edges (one large
/// irreducible region with many entries) and functions chained from pieces of each CFG shape
/// (early returns, infinite loops, irreducible pieces), against LLVM 22 (NVPTX) and LLVM 19
/// (AMDGPU). These exercise the shortcuts of the join computation: the sharper join candidates
/// after an assumed-divergent cycle and the skipped flows that no other label can meet.
#[test]
fn uniformity_matches_llvm_on_thread_id_dags_and_chains() {
    use converge_gen::cfg::{Shape, chain_cfg};
    use converge_gen::program::{
        dag_back_edges_cfg, grid_back_edges_cfg, module_header, tid_function_with_cfg,
    };
    let opt22 = converge_gen::reference::opt22("uniformity_diff tid dags llvm22");
    let opt19 = converge_gen::reference::opt19("uniformity_diff tid dags llvm19");
    if opt22.is_none() && opt19.is_none() {
        return;
    }
    let build = |flavor: Flavor| {
        let mut text = module_header(flavor);
        for k in 0..batches(8) {
            let mut rng = Rng::new(seed_of(0x1300, k));
            let succs = dag_back_edges_cfg(&mut rng, 80 + 40 * (k % 8) as usize);
            text.push_str(&tid_function_with_cfg(flavor, &format!("dag{k}"), &succs));
        }
        // Grids with back edges to random earlier blocks: a reducible loop around a deep nest
        // of irreducible cycles (the skips of `join_candidates_settled`'s `NEEDS_EXIT`).
        for k in 0..batches(4) {
            let mut rng = Rng::new(seed_of(0x1320, k));
            let succs = grid_back_edges_cfg(&mut rng, 120 + 70 * (k % 5) as usize);
            text.push_str(&tid_function_with_cfg(flavor, &format!("grid{k}"), &succs));
        }
        for (k, shape) in Shape::ALL.into_iter().enumerate() {
            if shape.may_have_unreachable() {
                continue;
            }
            let mut rng = Rng::new(seed_of(0x1310, k as u64));
            let cfg = chain_cfg(&mut rng, 300, shape);
            text.push_str(&tid_function_with_cfg(
                flavor,
                &format!("chain{k}"),
                &cfg.succs,
            ));
        }
        // The one-shape families of the scaling benchmarks, small.
        use converge_gen::cfg::{
            Ladder, irreducible_ladder, irreducible_loop, ladder, many_exits_loop, nested_loops,
        };
        for (name, cfg) in [
            ("irrladder", irreducible_ladder(202)),
            ("irrladder-up", ladder(202, Ladder::Up)),
            ("irrladder-loop", ladder(204, Ladder::Looped)),
            ("irrladder-unreach", ladder(204, Ladder::LoopedUnreachable)),
            ("irrloop", irreducible_loop(120)),
            ("nest", nested_loops(40)),
            ("exits", many_exits_loop(60)),
        ] {
            text.push_str(&tid_function_with_cfg(flavor, name, &cfg.succs));
        }
        text
    };
    let mut total = 0;
    if let Some(opt) = opt22 {
        let file = scratch("llvm22-tid-dags.ll");
        let text = build(Flavor::Nvptx);
        total += check_batch(&opt, &text, &file, &[], 0x1300, "LLVM 22 tid DAGs");
    }
    if let Some(opt) = opt19 {
        let file = scratch("llvm19-tid-dags.ll");
        let text = build(Flavor::Amdgpu);
        total += check_batch(
            &opt,
            &text,
            &file,
            &["--llvm-version", "19"],
            0x1300,
            "LLVM 19 tid DAGs",
        );
    }
    eprintln!("uniformity vs LLVM, thread-id DAGs and chains: {total} functions, 0 mismatches");
}

/// The shapes of session 20 that the earlier families never made (`converge_gen::program::shapes`:
/// nested diamonds, loop nests with multi-level exits, a chain of phis through switches, loop
/// nests under convergence tokens, many small functions, one join of hundreds of phi incomings,
/// one loop of hundreds of latches), and those of session 22 (loops in a row handing temporal
/// divergence down or returning early into one block, an interpreter, switch nests, a shift
/// register of phis, families with their blocks laid out in a random order), at 200-1,500
/// blocks, against LLVM 22 (NVPTX) and LLVM 19 (AMDGPU).
#[test]
fn uniformity_matches_llvm_on_session_20_shapes() {
    use converge_gen::program::shapes;
    let opt22 = converge_gen::reference::opt22("uniformity_diff session 20 shapes llvm22");
    let opt19 = converge_gen::reference::opt19("uniformity_diff session 20 shapes llvm19");
    let modules = |flavor: Flavor| -> Vec<(&'static str, String)> {
        let mut v = vec![
            ("diamonds", shapes::diamonds_module(flavor, 300)),
            ("exitnest", shapes::exitnest_module(flavor, 400)),
            ("datachain", shapes::datachain_module(flavor, 400)),
            ("tokens", shapes::tokens_module(flavor, 400)),
            (
                "manyfuncs",
                shapes::manyfuncs_module(&mut Rng::new(seed_of(0x2000, 0)), flavor, 500),
            ),
            ("widephi", shapes::widephi_module(flavor, 300)),
            ("latchy", shapes::latchy_module(flavor, 300)),
            (
                "randnest",
                shapes::randnest_module(&mut Rng::new(seed_of(0x2100, 1)), flavor, 600),
            ),
            (
                "randnest",
                shapes::randnest_module(&mut Rng::new(seed_of(0x2100, 2)), flavor, 1500),
            ),
        ];
        // Session 22: loops in a row (temporal divergence handed down, early returns into one
        // block), an interpreter's dispatch loop, switch nests, a shift register of phis, and
        // families with their blocks shuffled.
        for (k, name) in [
            "tempchain",
            "earlyret",
            "interp",
            "switchnest",
            "shiftreg",
            "shuffled-exitnest",
            "shuffled-latchy",
            "shuffled-tempchain",
            "shuffled-earlyret",
            "shuffled-interp",
            "shuffled-switchnest",
            "shuffled-tokens",
        ]
        .into_iter()
        .enumerate()
        {
            let mut rng = Rng::new(seed_of(0x2200, k as u64));
            let text = shapes::by_name(name, &mut rng, flavor, 400).expect("a family");
            v.push((name, text));
        }
        v
    };
    let mut total = 0;
    for (opt, flavor, extra, what) in [
        (&opt22, Flavor::Nvptx, &[][..], "LLVM 22"),
        (
            &opt19,
            Flavor::Amdgpu,
            &["--llvm-version", "19"][..],
            "LLVM 19",
        ),
    ] {
        let Some(opt) = opt else { continue };
        for (name, text) in modules(flavor) {
            let file = scratch(&format!("shapes-{name}-{}.ll", extra.len()));
            total += check_batch(opt, &text, &file, extra, 0x2000, &format!("{what} {name}"));
        }
    }
    eprintln!("uniformity vs LLVM, session 20 shapes: {total} functions, 0 mismatches");
}
