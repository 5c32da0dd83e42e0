//! Agreement with LLVM's verifier (LLVM 22 and 19, run live) on LLVM's own token tests, reached by
//! path through `converge_gen::reference::corpus`:
//! - `Verifier/convergencectrl-invalid.ll`, function by function (one module per function, with all
//!   declarations): same accept/reject, and the same sequence of token rules as LLVM's messages
//!   (so functions with a single error match by rule) and the same printed values;
//! - the token-using uniformity test and the Transforms tests' inputs, as whole modules.

mod common;

use common::*;
use converge_verify::Rule;
use converge_verify::llvm::{self, Flavor};
use std::path::Path;

fn check_module(opt: &Path, flavor: Flavor, label: &str, what: &str, text: &str) -> Vec<String> {
    let (m, findings) = converge_findings(text, flavor);
    let (ok, report) = llvm_verify(opt, text);
    let mut problems = Vec::new();
    if ok != findings.is_empty() {
        problems.push(format!(
            "{what}: LLVM {label} {} it, converge {} it\n  LLVM: {:?}\n  converge: {:?}",
            if ok { "accepts" } else { "rejects" },
            if findings.is_empty() {
                "accepts"
            } else {
                "rejects"
            },
            report.iter().map(|x| &x.message).collect::<Vec<_>>(),
            findings.iter().map(|f| f.rule.id()).collect::<Vec<_>>()
        ));
        return problems;
    }
    let theirs: Vec<Rule> = report.iter().filter_map(|x| x.rule()).collect();
    let ours: Vec<Rule> = findings.iter().map(|f| f.rule).collect();
    if theirs != ours {
        problems.push(format!(
            "{what}: LLVM {label} reports {theirs:?}, converge {ours:?}"
        ));
        return problems;
    }
    let theirs_text: Vec<String> = report
        .iter()
        .filter(|x| x.rule().is_some())
        .flat_map(|x| std::iter::once(x.message.clone()).chain(x.values.iter().cloned()))
        .collect();
    let ours_text: Vec<String> = findings
        .iter()
        .flat_map(|fd| llvm::llvm_lines(&m, fd))
        .collect();
    if theirs_text != ours_text {
        problems.push(format!(
            "{what}: printed values differ from LLVM {label}\n  LLVM:     {theirs_text:?}\n  converge: {ours_text:?}"
        ));
    }
    problems
}

fn corpus_file(rel: &str) -> Option<String> {
    let root = converge_gen::reference::corpus(rel)?;
    Some(std::fs::read_to_string(root.join("test").join(rel)).expect("corpus file"))
}

fn run_verifier_test(opt: &Path, flavor: Flavor, label: &str) {
    let Some(text) = corpus_file("Verifier/convergencectrl-invalid.ll") else {
        return;
    };
    let fns = split_functions(&text);
    assert!(
        fns.len() >= 19,
        "expected the test's 19 functions, got {}",
        fns.len()
    );
    let mut problems = Vec::new();
    let mut rejected = 0;
    for (name, module) in &fns {
        let (_, findings) = converge_findings(module, flavor);
        if !findings.is_empty() {
            rejected += 1;
        }
        problems.extend(check_module(
            opt,
            flavor,
            label,
            &format!("@{name}"),
            module,
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Every function of that test is invalid for LLVM 19; LLVM 22 accepts `@missing.attribute`.
    assert!(
        rejected >= fns.len() - 1,
        "{rejected} of {} rejected",
        fns.len()
    );
}

#[test]
fn verifier_test_function_by_function_llvm22() {
    let Some(opt) = converge_gen::reference::opt22("verifier_test_function_by_function_llvm22")
    else {
        return;
    };
    run_verifier_test(&opt, Flavor::Llvm22, "22");
}

#[test]
fn verifier_test_function_by_function_llvm19() {
    let Some(opt) = converge_gen::reference::opt19("verifier_test_function_by_function_llvm19")
    else {
        return;
    };
    run_verifier_test(&opt, Flavor::Llvm19, "19");
}

const VALID_INPUTS: [&str; 4] = [
    "Analysis/UniformityAnalysis/AMDGPU/join-at-loop-heart.ll",
    "Transforms/ADCE/convergence.ll",
    "Transforms/BDCE/convergence.ll",
    "Transforms/Inline/convergence-inline.ll",
];

fn run_valid_inputs(opt: &Path, flavor: Flavor, label: &str) {
    let mut problems = Vec::new();
    for rel in VALID_INPUTS {
        let Some(text) = corpus_file(rel) else { return };
        problems.extend(check_module(opt, flavor, label, rel, &text));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn token_using_corpus_inputs_llvm22() {
    let Some(opt) = converge_gen::reference::opt22("token_using_corpus_inputs_llvm22") else {
        return;
    };
    run_valid_inputs(&opt, Flavor::Llvm22, "22");
}

#[test]
fn token_using_corpus_inputs_llvm19() {
    let Some(opt) = converge_gen::reference::opt19("token_using_corpus_inputs_llvm19") else {
        return;
    };
    run_valid_inputs(&opt, Flavor::Llvm19, "19");
}
