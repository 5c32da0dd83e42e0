//! The oracle on real code: every function of LLVM's own tests (the shared corpus, by path) and of
//! the OpenCL kernels of `examples/kernels/` compiled by clang 19 (amdgcn and nvptx, -O0 and -O3).
//! Each function runs with 4 and 33 threads, two input sets each, under every hierarchy; every
//! violation is classified. llvm mode may only show the documented LLVM bugs and the explicit
//! exceptions below (promises the IR makes that the simulator cannot see).

use converge_ir::FuncId;
use converge_oracle::cases::Stats;
use converge_oracle::check::{Mode, Outcome, RunSpec, check, claims};
use converge_oracle::classify::classify;
use converge_uniformity::LlvmVersion;
use std::path::Path;

/// (file name part, function, value, why the oracle's violation is not a bug): values LLVM calls
/// uniform because the IR promises it, which the simulator cannot know.
const PROMISES: &[(&str, &str, &str, &str)] = &[];

/// Runs the oracle on every defined function of one module file; returns its figures and the
/// unexplained violations.
fn run_module(path: &Path, label: &str, mode: Mode, st: &mut Stats) -> Vec<String> {
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
        let cl = claims(&m, fi, mode);
        let mut all = Outcome::default();
        for threads in [4, 33] {
            let mut spec = RunSpec::new(threads, 1);
            spec.step_limit = 5_000;
            spec.enumeration_cap = 64;
            let o = check(&m, fi, &cl, &spec);
            all.hierarchies = o.hierarchies;
            all.finished = o.finished;
            all.all_step_limit = o.all_step_limit;
            all.error = all.error.or(o.error);
            all.claimed_uniform = o.claimed_uniform;
            all.executed = all.executed.max(o.executed);
            for i in o.covered_insts {
                if !all.covered_insts.contains(&i) {
                    all.covered_insts.push(i);
                }
            }
            all.violations.extend(o.violations);
        }
        all.covered = all.covered_insts.len();
        let known = classify(&m, fi, &cl, &all.violations);
        let mut found = Vec::new();
        for (v, k) in all.violations.iter().zip(known) {
            let promised = PROMISES
                .iter()
                .any(|p| label.contains(p.0) && p.1 == fname && p.2 == v.name);
            if k.is_none() && !promised {
                bad.push(format!(
                    "{label} @{fname}: {} (hierarchy {}, input seed {}: {})",
                    v.name, v.hierarchy, v.input_seed, v.witness
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
            threads: 33,
            tokens: false,
            step_limit: 5_000,
            inputs: 2,
        };
        st.add(&case, &all, found);
    }
    bad
}

#[test]
fn oracle_on_the_llvm_corpus() {
    let Some(root) = converge_gen::reference::corpus("oracle on the corpus") else {
        return;
    };
    let mut st = Stats::default();
    let mut bad = Vec::new();
    let files = converge_gen::reference::ll_files(&root.join("test"));
    for p in &files {
        let label = p.strip_prefix(&root).unwrap_or(p).display().to_string();
        bad.extend(run_module(p, &label, Mode::Llvm(LlvmVersion::V22), &mut st));
    }
    eprintln!(
        "oracle on the corpus ({} files): {}",
        files.len(),
        st.summary()
    );
    for b in &bad {
        eprintln!("  unexplained: {b}");
    }
    assert!(st.programs > 100, "only {} functions", st.programs);
    assert!(bad.is_empty(), "{} unexplained violations", bad.len());
}

#[test]
fn oracle_on_clang_kernels() {
    let Some(clang) = converge_gen::reference::clang19("oracle on clang kernels") else {
        return;
    };
    let dir = converge_gen::reference::repo_root().join("build/oracle-kernels");
    let modules = converge_gen::kernels::compile_all(&clang, &dir).expect("kernels compile");
    let mut st = Stats::default();
    let mut bad = Vec::new();
    for (label, p) in &modules {
        bad.extend(run_module(p, label, Mode::Llvm(LlvmVersion::V22), &mut st));
    }
    eprintln!(
        "oracle on {} clang kernel modules: {}",
        modules.len(),
        st.summary()
    );
    for b in &bad {
        eprintln!("  unexplained: {b}");
    }
    assert!(st.programs >= modules.len());
    assert!(bad.is_empty(), "{} unexplained violations", bad.len());
}
