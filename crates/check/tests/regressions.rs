//! Checker false positives found by the LLVM harness, fixed, each with its program.

use converge_check::{Settings, Verdict, check};
use std::path::PathBuf;
use std::time::Duration;

fn module(name: &str) -> converge_ir::Module {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/regressions")
        .join(name);
    let text = std::fs::read_to_string(&p).unwrap();
    converge_ir::parse_rendered_with(&p.display().to_string(), text, Some(false)).unwrap()
}

/// LLVM 22's `inline` left this kernel unchanged (seed 1501122 of the harness), and the checker
/// reported a violation of the program against itself: a run in which the simulator released one
/// class of `@subgroupBroadcastFirst` as two groups was compared as if the groups were the classes.
/// Such runs were then skipped as inconclusive; since the scheduler's fix (a heart instance needs
/// its parent token's value, and running ahead on copies trusts no guessed value; the simulator's
/// regression `a_heart_controlled_class_is_released_once`) no run of this kernel is.
#[test]
fn a_class_is_released_once_and_no_run_is_inconclusive() {
    let m = module("split_class.ll");
    let settings = Settings {
        seed: 1,
        max_executions: 32,
        enumeration_cap: 64,
        time_limit: Duration::from_secs(60),
        ..Settings::default()
    };
    let o = check(&m, &m, Some("k"), ("a.ll", "a.ll"), &settings).unwrap();
    assert_eq!(
        o.verdict,
        Verdict::Refines,
        "{}",
        converge_report::reports::check_transform::text(&o)
    );
    assert_eq!(o.stats.skipped_inconclusive, 0);
}

/// Found by running check-transform on insert-tokens' output: an anchor standing for an
/// uncontrolled operation of a function that is not `convergent` was called freer than BEFORE,
/// but BEFORE's grouping there is implementation-defined too ("Opportunistic convergent
/// operations"). The same anchor in a `convergent` function stays a violation ("Convergent
/// Operation Semantics", §Opportunistic Convergent Operations).
#[test]
fn an_anchor_for_opportunistic_operations_is_not_freer() {
    let before = module("opportunistic.before.ll");
    let after = module("opportunistic.after.ll");
    let settings = Settings {
        seed: 1,
        time_limit: Duration::from_secs(60),
        ..Settings::default()
    };
    let o = check(&before, &after, Some("f"), ("b.ll", "a.ll"), &settings).unwrap();
    assert_eq!(
        o.verdict,
        Verdict::Refines,
        "{}",
        converge_report::reports::check_transform::text(&o)
    );
    // Made `convergent`, BEFORE's convergence at the ballot is fixed: the anchor is freer.
    let conv = |m: &converge_ir::Module| {
        let text = m.source.replace(
            "define i64 @f(i32 %n) {",
            "define i64 @f(i32 %n) convergent {",
        );
        converge_ir::parse("c.ll", text).unwrap()
    };
    let o = check(
        &conv(&before),
        &conv(&after),
        Some("f"),
        ("b.ll", "a.ll"),
        &settings,
    )
    .unwrap();
    assert_eq!(
        o.verdict,
        Verdict::Violation,
        "{}",
        converge_report::reports::check_transform::text(&o)
    );
}
