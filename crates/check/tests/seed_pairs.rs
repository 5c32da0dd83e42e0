//! Every transform example of the original convergence-control RFC and of "Convergent Operation
//! Semantics" (*Examples for the Correctness of Program Transforms* and the motivating examples)
//! as a before/after pair, with the verdict the document gives. The pairs are in `tests/pairs/`.

use converge_check::{MismatchKind, Settings, Verdict, check};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pairs")
}

fn run(name: &str) -> converge_check::Outcome {
    let read = |s: &str| {
        let p = dir().join(format!("{name}.{s}.ll"));
        let text = std::fs::read_to_string(&p).unwrap();
        converge_ir::parse_rendered_with(&p.display().to_string(), text, Some(false))
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let (b, a) = (read("before"), read("after"));
    check(
        &b,
        &a,
        None,
        ("before.ll", "after.ll"),
        &Settings::default(),
    )
    .unwrap_or_else(|e| panic!("{name}: {}", e.0))
}

fn expect(name: &str, verdict: Verdict, kind: Option<MismatchKind>) {
    let o = run(name);
    let shown = converge_report::reports::check_transform::text(&o);
    assert_eq!(o.verdict, verdict, "{name}:\n{shown}");
    assert!(!o.stats.timed_out, "{name}: timed out\n{shown}");
    match verdict {
        Verdict::Refines => assert!(
            o.stats.executions > 0 && o.stats.groups > 0,
            "{name}: nothing compared\n{shown}"
        ),
        Verdict::Violation => {
            if let Some(k) = kind {
                let c = o.counterexample.as_ref().expect("a counterexample");
                assert_eq!(c.mismatch.kind, k, "{name}:\n{shown}");
                assert!(!c.after_paths.is_empty() && c.threads >= 2);
            }
        }
    }
}

// 004, "Reductions inside divergent control flow": merging the subgroupAdd of both arms is wrong
// when the condition is divergent, allowed when it is uniform.
#[test]
fn ifelse_merge_divergent_is_a_violation() {
    expect(
        "ifelse_merge_divergent",
        Verdict::Violation,
        Some(MismatchKind::Set),
    );
}
#[test]
fn ifelse_merge_uniform_refines() {
    expect("ifelse_merge_uniform", Verdict::Refines, None);
}

// 004, "Texture sampling in a pixel shader": sinking the sample into the branch is wrong, unless the
// condition is uniform among the threads of the entry token.
#[test]
fn texture_sink_divergent_is_a_violation() {
    expect(
        "texture_sink_divergent",
        Verdict::Violation,
        Some(MismatchKind::Set),
    );
}
#[test]
fn texture_sink_uniform_refines() {
    expect("texture_sink_uniform", Verdict::Refines, None);
}

// "Convergent Operation Semantics", "Unstructured control flow" (the original RFC's jump-threading
// example): with entry, the barrier's set is the threads reaching it, before and after. Without
// tokens, maximal convergence (reconvergence in acyclic control flow is maximal, as that document
// takes it) gives the same answer.
#[test]
fn jump_threading_with_entry_refines() {
    expect("jump_threading_entry", Verdict::Refines, None);
}
#[test]
fn jump_threading_uncontrolled_refines_under_maximal_convergence() {
    expect("jump_threading_uncontrolled", Verdict::Refines, None);
}

// 004, "Loop unrolling examples": all three kinds are allowed when every operation goes back to an
// anchor inside the loop; with uncontrolled operations the remainder is forbidden; with a heart
// whose token comes from outside, the remainder is forbidden and unrolling without one allowed.
#[test]
fn unroll_anchor_in_loop_all_kinds_refine() {
    for k in ["remainder", "noremainder", "full"] {
        expect(&format!("unroll_anchor_{k}"), Verdict::Refines, None);
    }
}
#[test]
fn unroll_uncontrolled_with_remainder_is_a_violation() {
    expect(
        "unroll_uncontrolled_remainder",
        Verdict::Violation,
        Some(MismatchKind::Set),
    );
}
#[test]
fn unroll_heart_with_remainder_is_a_violation() {
    expect(
        "unroll_heart_remainder",
        Verdict::Violation,
        Some(MismatchKind::Set),
    );
}
#[test]
fn unroll_heart_without_remainder_refines() {
    expect("unroll_heart_noremainder", Verdict::Refines, None);
    expect("unroll_heart_full", Verdict::Refines, None);
}

// 004, "Hoisting and sinking".
#[test]
fn hoisting_anchors_out_of_an_if_else_refines() {
    expect("hoist_anchor_ifelse", Verdict::Refines, None);
}
#[test]
fn hoisting_the_operation_itself_is_a_violation() {
    expect(
        "hoist_op_ifelse",
        Verdict::Violation,
        Some(MismatchKind::Set),
    );
}
#[test]
fn sinking_an_anchor_into_its_only_use_refines() {
    expect("sink_anchor", Verdict::Refines, None);
}
#[test]
fn sinking_an_anchor_into_a_loop_is_a_violation() {
    expect(
        "sink_anchor_into_loop",
        Verdict::Violation,
        Some(MismatchKind::Freer),
    );
}
#[test]
fn hoisting_an_anchor_out_of_a_loop_breaks_the_static_rules() {
    let o = run("hoist_anchor_out_of_loop");
    assert_eq!(o.verdict, Verdict::Violation);
    assert!(
        o.token_errors.iter().any(|e| e.contains("cycle")),
        "{:?}",
        o.token_errors
    );
}
#[test]
fn sinking_operations_with_their_anchor_refines() {
    expect("sink_with_anchor", Verdict::Refines, None);
}
#[test]
fn sinking_only_one_operation_of_an_anchor_is_a_violation() {
    expect("sink_only_b", Verdict::Violation, Some(MismatchKind::Set));
}
#[test]
fn entry_forbids_sinking() {
    expect("sink_entry", Verdict::Violation, Some(MismatchKind::Set));
}

// 004, inlining ("llvm.experimental.convergence.entry": inlining replaces the callee's entry by the
// call site's token). The simulator executes the call: the callee's entry takes the call's threads.
// Hoisting the inlined operation above the branch makes threads that never called execute it.
#[test]
fn inlining_a_callee_that_uses_entry_refines() {
    expect("inline_entry", Verdict::Refines, None);
}
#[test]
fn inlining_then_hoisting_is_a_violation() {
    expect(
        "inline_entry_hoisted",
        Verdict::Violation,
        Some(MismatchKind::Extra),
    );
}

// "Convergence And Uniformity": maximal convergence is relative to a cycle hierarchy. AFTER inverts
// the entry branch of an irreducible cycle, so LLVM's hierarchy of AFTER is the other hierarchy of
// BEFORE: refines under m-convergence, a violation if only LLVM's hierarchies were compared.
#[test]
fn irreducible_entry_swap_refines_under_m_convergence_only() {
    expect("irreducible_swap", Verdict::Refines, None);
    let o = run("irreducible_swap");
    assert_eq!(o.stats.hierarchies_before, 2);
    let read = |s: &str| {
        let p = dir().join(format!("irreducible_swap.{s}.ll"));
        converge_ir::parse_rendered_with("x.ll", std::fs::read_to_string(p).unwrap(), Some(false))
            .unwrap()
    };
    let settings = Settings {
        all_hierarchies: false,
        ..Settings::default()
    };
    let llvm_only = check(&read("before"), &read("after"), None, ("b", "a"), &settings).unwrap();
    assert_eq!(llvm_only.verdict, Verdict::Violation);
}

/// The pairs directory holds only pairs that a test above names.
#[test]
fn every_pair_is_tested() {
    let src = include_str!("seed_pairs.rs");
    for e in std::fs::read_dir(dir()).unwrap() {
        let n = e.unwrap().file_name().into_string().unwrap();
        let stem = n.split('.').next().unwrap().to_string();
        let named = src.contains(&format!("\"{stem}\""))
            || stem
                .rsplit_once('_')
                .is_some_and(|(head, k)| src.contains(&format!("{head}_{{k}}")) && !k.is_empty());
        assert!(named, "{n} is not checked by a test");
    }
}
