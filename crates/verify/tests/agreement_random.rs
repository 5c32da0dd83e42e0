//! Accept/reject and rule-by-rule agreement with LLVM's verifier (`opt -passes=verify`, LLVM 22 and
//! LLVM 19, run live) on random token placements from `converge_gen::tokens`: valid and invalid, in
//! reducible and irreducible CFGs. For every function the sequence of token rules converge reports
//! must equal the sequence of token messages LLVM prints (so single-error functions match by rule),
//! and a function is rejected by converge exactly when LLVM prints anything for it.
//!
//! Budget: 30 modules of 100 functions per LLVM version (3,000 functions), seeded deterministically;
//! about a second of run time.

mod common;

use common::*;
use converge_graph::CycleInfo;
use converge_verify::Rule;
use converge_verify::llvm::{self, Flavor};
use std::collections::BTreeMap;
use std::path::Path;

const MODULES: u64 = 30;
const PER_MODULE: usize = 100;

#[derive(Default)]
struct Stats {
    functions: usize,
    rejected: usize,
    irreducible: usize,
    irreducible_valid: usize,
    reducible_with_cycles: usize,
    by_rule: BTreeMap<&'static str, usize>,
    text_mismatches: usize,
}

fn run(opt: &Path, flavor: Flavor, label: &str) {
    let mut stats = Stats::default();
    let mut failures = Vec::new();
    for k in 0..MODULES {
        let seed = 0xC0_4E_u64 * 1000 + k;
        let (text, fns) = converge_gen::tokens::random_module(seed, PER_MODULE);
        let (m, findings) = converge_findings(&text, flavor);
        let (_, report) = llvm_verify(opt, &text);
        // LLVM's messages by function.
        let mut llvm_by_fn: Vec<Vec<&LlvmMessage>> = vec![Vec::new(); PER_MODULE];
        for msg in &report {
            let idx = msg
                .values
                .iter()
                .find_map(|v| function_index(v))
                .unwrap_or_else(|| panic!("cannot attribute LLVM message {msg:?} (seed {seed})"));
            llvm_by_fn[idx].push(msg);
        }
        let mut ours: Vec<Vec<&llvm::Finding>> = vec![Vec::new(); PER_MODULE];
        for fd in &findings {
            let name = m.strings.resolve(m.functions[fd.func.0 as usize].name);
            let idx = function_index(name).expect("generated function name");
            ours[idx].push(fd);
        }
        for (i, f) in fns.iter().enumerate() {
            stats.functions += 1;
            let fid = m
                .functions
                .iter()
                .position(|x| m.strings.resolve(x.name) == f.name)
                .unwrap();
            let cfg = llvm::function_cfg(&m.functions[fid]);
            let ci = CycleInfo::new(&cfg);
            if ci.cycles().any(|c| !ci.is_reducible(c)) {
                stats.irreducible += 1;
                if llvm_by_fn[i].is_empty() {
                    stats.irreducible_valid += 1;
                }
            } else if !ci.is_empty() {
                stats.reducible_with_cycles += 1;
            }
            let llvm_rules: Vec<Option<Rule>> = llvm_by_fn[i].iter().map(|x| x.rule()).collect();
            let llvm_token_rules: Vec<Rule> = llvm_rules.iter().flatten().copied().collect();
            let our_rules: Vec<Rule> = ours[i].iter().map(|x| x.rule).collect();
            let llvm_rejects = !llvm_by_fn[i].is_empty();
            let we_reject = !our_rules.is_empty();
            if llvm_rejects {
                stats.rejected += 1;
            }
            for r in &our_rules {
                *stats.by_rule.entry(r.id()).or_default() += 1;
            }
            if llvm_rejects != we_reject || llvm_token_rules != our_rules {
                failures.push(format!(
                    "seed {seed} function {}: LLVM {label} says {:?}, converge says {:?}\n--- reproducer ---\n{}\n{}",
                    f.name,
                    llvm_by_fn[i].iter().map(|x| &x.message).collect::<Vec<_>>(),
                    our_rules.iter().map(|r| r.llvm_message()).collect::<Vec<_>>(),
                    converge_gen::tokens::PRELUDE,
                    f.text
                ));
                continue;
            }
            // Same messages: compare the printed values too (instructions, blocks, cycles).
            let ours_text: Vec<String> = ours[i]
                .iter()
                .flat_map(|fd| llvm::llvm_lines(&m, fd))
                .collect();
            let theirs_text: Vec<String> = llvm_by_fn[i]
                .iter()
                .filter(|x| x.rule().is_some())
                .flat_map(|x| std::iter::once(x.message.clone()).chain(x.values.iter().cloned()))
                .collect();
            if ours_text != theirs_text {
                stats.text_mismatches += 1;
                failures.push(format!(
                    "seed {seed} function {}: printed values differ\n  LLVM:     {theirs_text:?}\n  converge: {ours_text:?}\n--- reproducer ---\n{}\n{}",
                    f.name,
                    converge_gen::tokens::PRELUDE,
                    f.text
                ));
            }
        }
    }
    eprintln!(
        "LLVM {label}: {} functions, {} rejected, {} with irreducible cycles ({} of them valid), {} reducible with cycles, rules {:?}, {} with differently printed values",
        stats.functions,
        stats.rejected,
        stats.irreducible,
        stats.irreducible_valid,
        stats.reducible_with_cycles,
        stats.by_rule,
        stats.text_mismatches
    );
    assert!(
        failures.is_empty(),
        "{} disagreements with LLVM {label}; first:\n{}",
        failures.len(),
        failures[0]
    );
    // The generator must exercise both outcomes and both kinds of CFG.
    assert!(
        stats.rejected > stats.functions / 5,
        "too few invalid placements"
    );
    assert!(
        stats.rejected < stats.functions * 4 / 5,
        "too few valid placements"
    );
    assert!(stats.irreducible > 50, "too few irreducible CFGs");
    assert!(
        stats.irreducible_valid > 10,
        "too few valid placements in irreducible CFGs"
    );
    assert!(stats.reducible_with_cycles > 200, "too few reducible loops");
    for r in Rule::ALL {
        // X1/X2 are about declarations the generator does not write; LLVM 22 has no D10.
        if matches!(
            r,
            Rule::TokenReturnNotIntrinsic | Rule::TokenParamNotIntrinsic
        ) || (r == Rule::UseByConvergentOnly && flavor == Flavor::Llvm22)
        {
            continue;
        }
        assert!(
            stats.by_rule.contains_key(r.id()),
            "rule {} never triggered by the generator",
            r.id()
        );
    }
}

#[test]
fn random_placements_agree_with_llvm22() {
    let Some(opt) = converge_gen::reference::opt22("random_placements_agree_with_llvm22") else {
        return;
    };
    run(&opt, Flavor::Llvm22, "22");
}

#[test]
fn random_placements_agree_with_llvm19() {
    let Some(opt) = converge_gen::reference::opt19("random_placements_agree_with_llvm19") else {
        return;
    };
    run(&opt, Flavor::Llvm19, "19");
}
