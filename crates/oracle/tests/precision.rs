//! Precision of precise mode against llvm mode, measured on clang OpenCL kernels (amdgcn and
//! nvptx, -O0 and -O3) and on generated modules (docs/oracle.md has the figures). Every
//! refinement must be backed by the oracle (never contradicted); every value precise mode calls
//! divergent and LLVM uniform is printed, with the simulator's witness against LLVM when it finds
//! one. `CONVERGE_PRECISION_CASES` generated programs (default 150).

use converge_oracle::cases::{Generator, case, spec_of};
use converge_oracle::check::RunSpec;
use converge_oracle::precision::Precision;

fn report(what: &str, p: &Precision) {
    eprintln!("precision on {what}: {}", p.summary());
    for (v, k) in &p.llvm_bugs {
        eprintln!(
            "  LLVM uniform, simulator divergent: {v} ({})",
            k.map_or("not a documented pattern", |k| k.name())
        );
    }
    // By the rule they come from, and by what the value is (the generator's names: %l lane of a
    // readlane, %w ballot mask, %k counters, %c conditions, %v other values).
    let mut rules: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
    for (v, r) in &p.conservative {
        *rules.entry(r.name()).or_default() += 1;
        let name = v.rsplit(' ').next().unwrap_or("");
        let k: String = name.chars().take_while(|c| !c.is_ascii_digit()).collect();
        *kinds.entry(k).or_default() += 1;
    }
    eprintln!("  precise divergent, LLVM uniform, no witness, by rule: {rules:?}");
    eprintln!("  precise divergent, LLVM uniform, no witness, by name: {kinds:?}");
    for (v, r) in &p.conservative {
        eprintln!(
            "  precise divergent, LLVM uniform, no witness: {v} ({})",
            r.name()
        );
    }
}

/// Issue 10's criteria: no refinement is contradicted by the oracle, and every value precise mode
/// calls divergent and LLVM uniform is an LLVM bug, shown by the simulator and listed in
/// docs/llvm-differences.md.
fn assert_every_difference_backed(p: &Precision) {
    assert!(
        p.refinements_violated.is_empty(),
        "refinements the oracle contradicts: {:?}",
        p.refinements_violated
    );
    assert!(
        p.conservative.is_empty(),
        "precise divergent, LLVM uniform, without a witness: {:?}",
        p.conservative
    );
    let unlisted: Vec<_> = p.llvm_bugs.iter().filter(|(_, k)| k.is_none()).collect();
    assert!(
        unlisted.is_empty(),
        "LLVM bugs not documented: {unlisted:?}"
    );
}

#[test]
fn precision_on_clang_kernels() {
    let Some(clang) = converge_gen::reference::clang19("precision on clang kernels") else {
        return;
    };
    let dir = converge_gen::reference::repo_root().join("build/oracle-kernels");
    let modules = converge_gen::clang_kernels::compile_all(&clang, &dir).expect("kernels compile");
    let mut kernel_spec = RunSpec::new(33, 1);
    kernel_spec.step_limit = 5_000;
    let mut p = Precision::default();
    let mut per: std::collections::BTreeMap<String, Precision> = Default::default();
    for (label, path) in &modules {
        let text = std::fs::read_to_string(path).unwrap();
        let m = converge_ir::parse(&path.display().to_string(), text).expect("parses");
        p.add_module(&m, label, std::slice::from_ref(&kernel_spec));
        // "file target level": one row per target and level.
        let key = label
            .split_once(' ')
            .map_or(label.as_str(), |x| x.1)
            .to_string();
        per.entry(key)
            .or_default()
            .add_module(&m, label, std::slice::from_ref(&kernel_spec));
    }
    for (k, q) in &per {
        eprintln!("precision on clang kernels {k}: {}", q.summary());
    }
    report("clang kernels", &p);
    assert!(p.functions >= modules.len());
    assert_every_difference_backed(&p);
}

#[test]
fn precision_on_generated_modules() {
    let n: u64 = std::env::var("CONVERGE_PRECISION_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let mut p = Precision::default();
    for seed in 1..=n {
        let c = case(seed, Generator::Oracle { blocks: 20 });
        let m = converge_ir::parse("gen.ll", c.text.clone()).expect("parses");
        let mut plain = RunSpec::new(c.threads, 1);
        plain.step_limit = 5_000;
        p.add_module(&m, &format!("seed {seed}"), &[spec_of(&c), plain]);
    }
    report("generated modules", &p);
    assert_every_difference_backed(&p);
}
