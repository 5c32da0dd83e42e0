//! `converge check-transform`: exit codes (0 refines, 1 violation or broken token rules, 2 bad
//! input or usage), the counterexample a person reads, JSON's top-level verdict. The pairs are the
//! examples of crates/check/tests/pairs (verdicts from the original convergence-control RFC and
//! "Convergent Operation Semantics").

mod common;

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn pair(name: &str, side: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../check/tests/pairs")
        .join(format!("{name}.{side}.ll"))
        .display()
        .to_string()
}

fn converge(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(common::converge_bin())
        .args(args)
        .output()
        .expect("run converge");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn check(name: &str, extra: &[&str]) -> (i32, String, String) {
    let (b, a) = (pair(name, "before"), pair(name, "after"));
    let mut args = vec!["check-transform", b.as_str(), a.as_str()];
    args.extend_from_slice(extra);
    converge(&args)
}

#[test]
fn a_violation_exits_1_with_a_counterexample() {
    let (code, out, err) = check("ifelse_merge_divergent", &[]);
    assert_eq!(code, 1, "{out}{err}");
    // What a person needs: the operation, both sets, the configuration, each thread's path.
    for want in [
        "violation",
        "@subgroupAdd",
        "together with threads {",
        "in BEFORE, the same operation",
        "threads, arguments [",
        "paths in AFTER:",
        "thread 0: entry ->",
        "paths in BEFORE",
    ] {
        assert!(out.contains(want), "missing `{want}` in\n{out}");
    }
}

#[test]
fn refinement_exits_0_and_says_what_was_compared_without_claiming_a_proof() {
    let (code, out, err) = check("ifelse_merge_uniform", &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("refines"), "{out}");
    assert!(out.contains("compared 15 of 15 executions"), "{out}");
    assert!(out.contains("not a proof"), "{out}");
}

#[test]
fn json_has_a_top_level_verdict() {
    for (name, verdict) in [
        ("texture_sink_divergent", "violation"),
        ("texture_sink_uniform", "refines"),
    ] {
        let (_, out, _) = check(name, &["--format", "json"]);
        let v: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(v["verdict"], verdict, "{name}: {out}");
        assert_eq!(v["proof"], false);
        assert!(v["stats"]["before_runs"].as_u64().unwrap() > 0);
        if verdict == "violation" {
            let c = &v["counterexample"];
            assert!(
                c["after_set"].is_array() && c["before_set"].is_array(),
                "{out}"
            );
            assert!(c["after_paths"].as_array().unwrap().len() >= 2);
        }
    }
}

#[test]
fn broken_token_rules_in_after_exit_1_with_the_verifier_diagnostic() {
    let (code, out, _) = check("hoist_anchor_out_of_loop", &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("static rules"), "{out}");
    assert!(out.contains("hoist_anchor_out_of_loop.after.ll:"), "{out}");
}

#[test]
fn the_seed_makes_sampled_runs_reproducible() {
    let run = |seed: &str| {
        check(
            "unroll_heart_noremainder",
            &[
                "--threads",
                "6",
                "--max-executions",
                "7",
                "--seed",
                seed,
                "--format",
                "json",
            ],
        )
    };
    let strip = |s: &str| {
        let mut v: Value = serde_json::from_str(s).unwrap();
        v["stats"]["seconds"] = Value::Null;
        v
    };
    let (c1, a, _) = run("5");
    let (_, b, _) = run("5");
    assert_eq!(c1, 0);
    assert_eq!(strip(&a), strip(&b));
    assert_eq!(strip(&a)["stats"]["exhaustive"], false);
}

#[test]
fn usage_and_unmatched_functions_exit_2() {
    let b = pair("sink_anchor", "before");
    let a = pair("sink_anchor", "after");
    let (code, _, err) = converge(&["check-transform", &b, &a, "--function", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no function @nope"), "{err}");
    let (code, _, err) = converge(&["check-transform", &b, "/nonexistent/after.ll"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
    let (code, _, _) = converge(&["check-transform", &b]);
    assert_eq!(code, 2);
    let (code, _, err) = converge(&["check-transform", &b, &a, "--threads", "0"]);
    assert_eq!(code, 2, "{err}");
    // Different parameter lists cannot be matched.
    let other = pair("texture_sink_uniform", "after");
    let (code, _, err) = converge(&["check-transform", &b, &other, "--function", "k"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn unreadable_after_is_located() {
    let dir = std::env::temp_dir().join(format!("converge-ct-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.ll");
    std::fs::write(
        &bad,
        "define void @k(i32 %n) {\nentry:\n  br label %nowhere\n}\n",
    )
    .unwrap();
    let b = pair("sink_anchor", "before");
    let (code, _, err) = converge(&["check-transform", &b, bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.ll:3:"), "{err}");
}
