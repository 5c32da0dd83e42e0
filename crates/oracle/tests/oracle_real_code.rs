//! The oracle on real code: every function of LLVM's own tests (the shared corpus, by path) and of
//! the OpenCL kernels of `examples/kernels/` compiled by clang 19 (amdgcn and nvptx, -O0 and -O3).
//! Each function runs with 4 and 16 threads, two input sets each, under every hierarchy, and both
//! llvm and precise mode are judged on the same runs; every violation is classified. llvm mode may
//! only show the documented LLVM bugs and the explicit exceptions below (promises the IR makes
//! that the simulator cannot see); precise mode only those exceptions.

use converge_ir::FuncId;
use converge_oracle::cases::Stats;
use converge_oracle::check::{Mode, Outcome, RunSpec, check_many, claims};
use converge_oracle::classify::classify;
use converge_uniformity::LlvmVersion;
use std::path::Path;

/// (file name part, function, value, why the oracle's violation is not a bug): values LLVM calls
/// uniform because the IR promises it, which the simulator cannot know.
const PROMISES: &[(&str, &str, &str, &str)] = &[];

/// Runs the oracle on every defined function of one module file, in llvm mode (`st[0]`) and
/// precise mode (`st[1]`) on the same runs; returns the violations not explained (llvm mode: by
/// a documented LLVM bug; precise mode: none is).
fn run_module(path: &Path, label: &str, st: &mut [Stats; 2]) -> Vec<String> {
    let Ok(mut text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    // The corpus gives the target on the RUN line (`-mtriple`); the directory says which.
    if !text.contains("target triple") {
        if label.contains("AMDGPU") {
            text.insert_str(0, "target triple = \"amdgcn-amd-amdhsa\"\n");
        } else if label.contains("NVPTX") {
            text.insert_str(0, "target triple = \"nvptx64-nvidia-cuda\"\n");
        }
    }
    let Ok(m) = converge_ir::parse(&path.display().to_string(), text) else {
        return Vec::new();
    };
    let mut bad = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        if f.is_declaration {
            continue;
        }
        let fi = FuncId(fi as u32);
        let fname = m.strings.resolve(f.name).to_string();
        let sets = [
            claims(&m, fi, Mode::Llvm(LlvmVersion::V22)),
            claims(&m, fi, Mode::Precise),
        ];
        let mut all = [Outcome::default(), Outcome::default()];
        for threads in [4, 16] {
            let mut spec = RunSpec::new(threads, 1);
            spec.step_limit = 3_000;
            spec.enumeration_cap = 64;
            for (a, o) in all.iter_mut().zip(check_many(&m, fi, &sets, &spec)) {
                a.hierarchies = o.hierarchies;
                a.finished = o.finished;
                a.all_step_limit = o.all_step_limit;
                a.error = a.error.take().or(o.error);
                a.claimed_uniform = o.claimed_uniform;
                a.executed = a.executed.max(o.executed);
                a.input_sets += o.input_sets;
                a.branches = a.branches.max(o.branches);
                a.branches_split = a.branches_split.max(o.branches_split);
                for i in o.covered_insts {
                    if !a.covered_insts.contains(&i) {
                        a.covered_insts.push(i);
                    }
                }
                a.violations.extend(o.violations);
            }
        }
        for (mode, (a, cl)) in all.iter_mut().zip(&sets).enumerate() {
            a.covered = a.covered_insts.len();
            let known = if mode == 0 {
                classify(&m, fi, cl, &a.violations)
            } else {
                vec![None; a.violations.len()]
            };
            let mut found = Vec::new();
            for (v, k) in a.violations.iter().zip(known) {
                let promised = PROMISES
                    .iter()
                    .any(|p| label.contains(p.0) && p.1 == fname && p.2 == v.name);
                if k.is_none() && !promised {
                    bad.push(format!(
                        "{} mode, {label} @{fname}: {} (hierarchy {}, input seed {}: {})",
                        ["llvm", "precise"][mode],
                        v.name,
                        v.hierarchy,
                        v.input_seed,
                        v.witness
                    ));
                }
                found.push(converge_oracle::cases::Found {
                    seed: 0,
                    violation: v.clone(),
                    known: k,
                });
            }
            let case = converge_oracle::cases::Case {
                seed: 0,
                text: String::new(),
                threads: 16,
                tokens: false,
                step_limit: 3_000,
                inputs: 2,
                small_globals: false,
                explore: 0,
            };
            st[mode].add(&case, a, found);
        }
    }
    bad
}

fn report(what: &str, st: &[Stats; 2], bad: &[String]) {
    for (mode, s) in ["llvm", "precise"].iter().zip(st) {
        eprintln!("oracle on {what}, {mode} mode: {}", s.summary());
    }
    for b in bad {
        eprintln!("  unexplained: {b}");
    }
}

#[test]
fn oracle_on_the_llvm_corpus() {
    let Some(root) = converge_gen::reference::corpus("oracle on the corpus") else {
        return;
    };
    let mut st = [Stats::default(), Stats::default()];
    let mut bad = Vec::new();
    let files = converge_gen::reference::ll_files(&root.join("test"));
    for p in &files {
        let label = p.strip_prefix(&root).unwrap_or(p).display().to_string();
        bad.extend(run_module(p, &label, &mut st));
    }
    report(&format!("the corpus ({} files)", files.len()), &st, &bad);
    assert!(st[0].programs > 100, "only {} functions", st[0].programs);
    assert!(bad.is_empty(), "{} unexplained violations", bad.len());
}

#[test]
fn oracle_on_clang_kernels() {
    let Some(clang) = converge_gen::reference::clang19("oracle on clang kernels") else {
        return;
    };
    let dir = converge_gen::reference::repo_root().join("build/oracle-kernels");
    let modules = converge_gen::clang_kernels::compile_all(&clang, &dir).expect("kernels compile");
    let mut st = [Stats::default(), Stats::default()];
    let mut bad = Vec::new();
    for (label, p) in &modules {
        bad.extend(run_module(p, label, &mut st));
    }
    report(
        &format!("{} clang kernel modules", modules.len()),
        &st,
        &bad,
    );
    assert!(st[0].programs >= modules.len());
    assert!(bad.is_empty(), "{} unexplained violations", bad.len());
}
