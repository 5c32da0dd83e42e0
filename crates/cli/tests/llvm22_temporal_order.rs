//! llvm mode's temporal-divergence list on cycles that are both assumed divergent and exit-divergent
//! (docs/llvm-differences.md entry 4), against LLVM 22 run live.
//!
//! LLVM skips the exit sweep of a cycle already inside an assumed-divergent one, so whether such a
//! cycle's outside uses are listed depends on the order in which the propagation finds the
//! assumption and the exit. LLVM's `compute()` first pushes the users of every value divergent
//! after initialisation, then drains its LIFO worklist; converge used to drain from the sources
//! directly and listed uses in `f12` (4 more than LLVM) and `f60` that LLVM 22 never lists. LLVM's answer
//! there does not depend on the heap addresses it sees (the order of its pointer-keyed set of
//! seeds): the test prepends unrelated globals and declarations of several name lengths, which
//! move every later allocation, and runs `opt` on each variant.

mod common;
#[allow(dead_code)] // this test uses two of its helpers
mod uniformity_support;

use converge_gen::program::{Flavor, Options, module};
use converge_gen::rng::Rng;
use uniformity_support::function_text;

/// The TEMPORAL DIVERGENCE LIST section of one function's report (empty when there is none).
fn temporal_list(report: &str, name: &str) -> String {
    let start = report
        .find(&format!("function '{name}'"))
        .unwrap_or_else(|| panic!("no report for {name}:\n{report}"));
    let report = &report[start..];
    let end = report.find("\nBLOCK ").unwrap_or(report.len());
    let report = &report[..end];
    match report.find("TEMPORAL DIVERGENCE LIST:") {
        Some(t) => report[t..]
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        None => String::new(),
    }
}

/// Unrelated globals and declarations that shift the addresses of everything LLVM allocates for the
/// function after them.
fn padding(k: usize) -> String {
    let mut s = String::new();
    for i in 0..k {
        s.push_str(&format!(
            "@pad{}{i} = global [{} x i32] zeroinitializer\n",
            "g".repeat(i * 7 % 23),
            i % 5 + 1
        ));
        s.push_str(&format!(
            "declare void @decl{}{i}()\n",
            "q".repeat(i * 5 % 13)
        ));
    }
    s
}

#[test]
fn temporal_list_of_cycles_inside_assumed_divergent_cycles_matches_llvm22() {
    let Some(opt) = converge_gen::reference::opt22("llvm22_temporal_order") else {
        return;
    };
    // docs/llvm-differences.md entry 4: module(seed 0x7d000002, 100 functions), NVPTX, max 16
    // blocks, all reachable.
    let mut rng = Rng::new(0x7d00_0002);
    let mut opts = Options::new(Flavor::Nvptx);
    opts.unreachable = false;
    opts.max_blocks = 16;
    let text = module(&mut rng, 100, &opts);
    let header = text.split("define ").next().unwrap_or("").to_string();
    let dir = std::env::temp_dir().join(format!("converge-temporal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // (function, uses LLVM 22 lists): f12's cycle with header b11 has 8; the assumed-divergent
    // cycle `entries(b12 b10 b9)` none; f60 none at all.
    for (name, uses) in [("f12", 8), ("f60", 0)] {
        let body = function_text(&text, name);
        let mut lists = Vec::new();
        for k in [0usize, 1, 3, 8, 21] {
            let variant = format!("{header}{}{body}", padding(k));
            let out = converge_gen::reference::run_opt(
                &opt,
                &["-passes=print<uniformity>", "-disable-output"],
                &variant,
            );
            assert!(out.success, "opt failed on {name}:\n{}", out.stderr);
            lists.push((k, temporal_list(&out.stderr, name)));
        }
        let llvm = &lists[0].1;
        for (k, l) in &lists {
            assert_eq!(
                l, llvm,
                "{name}: LLVM 22's list changed with {k} padding globals; docs/llvm-differences.md entry 4 says it does not"
            );
        }
        assert_eq!(
            llvm.matches("Used by").count(),
            uses,
            "{name}: LLVM 22's list:\n{llvm}"
        );
        let file = dir.join(format!("{name}.ll"));
        std::fs::write(&file, format!("{header}{body}")).unwrap();
        let ours = uniformity_support::converge_uniformity(&file, &[]);
        assert_eq!(
            &temporal_list(&ours, name),
            llvm,
            "{name}: converge's temporal-divergence list differs from LLVM 22's"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
