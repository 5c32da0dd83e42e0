//! Differential tests: LLVM's `print<cycles>` against [`CycleInfo`] on random CFGs from
//! `converge_gen::cfg`, ~100 functions per module and `opt` call. On a mismatch the test prints the
//! seed and the function's `.ll` text.
//!
//! LLVM 22 is the reference: header, entry set, block set and nesting must match, and so must the
//! exact print order. Against LLVM 19 the CFGs have every block reachable (19 counts unreachable
//! predecessors as entries; that mode is checked separately with `UnreachablePreds::AreEntries`).

use converge_gen::cfg::{CfgParams, RandomCfg, Shape, parse_print_cycles, random_cfg, to_ll};
use converge_gen::reference::{opt19, opt22, run_opt};
use converge_gen::rng::Rng;
use converge_graph::{Block, Cfg, CycleInfo, UnreachablePreds};
use std::path::Path;

fn to_cfg(r: &RandomCfg) -> Cfg {
    Cfg::from_succs(
        Block(0),
        r.num_blocks(),
        r.succs.iter().map(|s| s.iter().map(|&b| Block(b))),
    )
}

fn ours(r: &RandomCfg, name: &str, mode: UnreachablePreds) -> String {
    let ci = CycleInfo::with_mode(&to_cfg(r), mode);
    let mut out = format!("CycleInfo for function: {name}\n");
    ci.print_llvm(&mut out, |b, o| {
        o.push('b');
        o.push_str(&b.0.to_string());
    });
    out
}

#[derive(Debug, Default)]
struct Outcome {
    functions: usize,
    exact: usize,
    cycles: usize,
    irreducible: usize,
    nested: usize,
    max_depth: u32,
    /// Functions whose cycles differ between the LLVM 19 and LLVM 22 treatment of unreachable
    /// predecessors: evidence the suite exercises that difference.
    mode_sensitive: usize,
}

/// Runs `count` random functions (shapes round-robin) through opt and us; panics on the first set
/// mismatch, and on an order mismatch when `exact_order`.
fn differential(
    opt: &Path,
    seed: u64,
    count: usize,
    shapes: &[Shape],
    unreachable: bool,
    mode: UnreachablePreds,
    exact_order: bool,
) -> Outcome {
    let mut rng = Rng::new(seed);
    let mut o = Outcome {
        functions: count,
        ..Outcome::default()
    };
    let batch = 100;
    let mut done = 0;
    while done < count {
        let k = batch.min(count - done);
        let mut cfgs = Vec::with_capacity(k);
        let mut module = String::new();
        for i in 0..k {
            let shape = shapes[(done + i) % shapes.len()];
            // Mostly small functions, one in ten larger (deeper nests).
            let size = if rng.chance(1, 50) {
                300 + rng.below(700)
            } else if rng.chance(1, 10) {
                60 + rng.below(200)
            } else {
                4 + rng.below(40)
            };
            let mut p = CfgParams::new(shape, size);
            p.allow_unreachable = unreachable;
            let cfg = random_cfg(&mut rng, &p);
            module.push_str(&to_ll(&cfg, &format!("f{i}")));
            cfgs.push(cfg);
        }
        let out = run_opt(opt, &["-passes=print<cycles>", "-disable-output"], &module);
        assert!(out.success, "opt failed (seed {seed}):\n{}", out.stderr);
        let theirs = parse_print_cycles(&out.stderr).expect("opt output parses");
        assert_eq!(
            theirs.len(),
            k,
            "one CycleInfo per function:\n{}",
            out.stderr
        );
        for (i, cfg) in cfgs.iter().enumerate() {
            let name = format!("f{i}");
            let text = ours(cfg, &name, mode);
            let mine = &parse_print_cycles(&text).unwrap()[0];
            let t = &theirs[i];
            assert_eq!(t.function, name);
            if mine.canonical() != t.canonical() || (exact_order && mine != t) {
                let opt_text: String = out
                    .stderr
                    .split("CycleInfo for function: ")
                    .find(|s| s.starts_with(&format!("{name}\n")))
                    .unwrap_or("")
                    .to_string();
                panic!(
                    "cycle mismatch, seed {seed}, batch starting at {done}, function {name}\n--- reproducer ---\n{}--- opt ---\nCycleInfo for function: {opt_text}--- converge ---\n{text}",
                    to_ll(cfg, &name)
                );
            }
            if mine == t {
                o.exact += 1;
            }
            let g = to_cfg(cfg);
            let ci = CycleInfo::with_mode(&g, mode);
            o.cycles += ci.len();
            for c in ci.cycles() {
                o.irreducible += usize::from(!ci.is_reducible(c));
                o.nested += usize::from(ci.depth(c) > 1);
                o.max_depth = o.max_depth.max(ci.depth(c));
            }
            let other = match mode {
                UnreachablePreds::Ignore => UnreachablePreds::AreEntries,
                UnreachablePreds::AreEntries => UnreachablePreds::Ignore,
            };
            if ours(cfg, &name, other) != text {
                o.mode_sensitive += 1;
            }
        }
        done += k;
    }
    o
}

/// The suite must actually exercise what it claims to.
fn check_coverage(o: &Outcome, unreachable: bool) {
    eprintln!("{o:?}");
    assert!(o.cycles > o.functions, "{o:?}");
    assert!(o.irreducible > o.functions / 10, "{o:?}");
    assert!(o.nested > o.functions / 5, "{o:?}");
    assert!(o.max_depth >= 4, "{o:?}");
    assert_eq!(o.mode_sensitive > 0, unreachable, "{o:?}");
}

#[test]
fn random_cfgs_match_llvm22() {
    let Some(opt) = opt22("random_cfgs_match_llvm22") else {
        return;
    };
    let o = differential(
        &opt,
        0x22,
        10_000,
        &Shape::ALL,
        true,
        UnreachablePreds::Ignore,
        true,
    );
    assert_eq!(o.exact, o.functions);
    check_coverage(&o, true);
}

#[test]
fn random_reachable_cfgs_match_llvm19() {
    let Some(opt) = opt19("random_reachable_cfgs_match_llvm19") else {
        return;
    };
    let o = differential(
        &opt,
        0x19,
        5000,
        &Shape::ALL,
        false,
        UnreachablePreds::Ignore,
        false,
    );
    check_coverage(&o, false);
}

#[test]
fn unreachable_predecessors_as_entries_match_llvm19() {
    let Some(opt) = opt19("unreachable_predecessors_as_entries_match_llvm19") else {
        return;
    };
    let o = differential(
        &opt,
        0x1919,
        2000,
        &[Shape::Unreachable, Shape::Mixed],
        true,
        UnreachablePreds::AreEntries,
        false,
    );
    check_coverage(&o, true);
}
