//! `converge simulate`: the seed table in text form, JSON, `--all-hierarchies`, `--hierarchy`,
//! `--args`, the step limit, and usage errors.

mod common;

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn seed(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../sim/tests/seeds")
        .join(name)
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

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("converge-sim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The natural-loop table of the seed, as the text output's rows (cells numbered per thread).
#[test]
fn text_table_is_the_seed_table() {
    let f = seed("natural_loop.ll");
    let (code, out, err) = converge(&["simulate", f.to_str().unwrap(), "--threads", "2"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .filter(|l| l.starts_with("thread "))
        .map(|l| l.split_whitespace().skip(2).collect())
        .collect();
    assert_eq!(
        rows,
        vec![
            "Entry1 H1 B1 L1 H2 . L2 . . . Exit1"
                .split(' ')
                .collect::<Vec<_>>(),
            "Entry1 H1 . L1 H2 B1 L2 H3 B2 L3 Exit1"
                .split(' ')
                .collect::<Vec<_>>(),
        ],
        "{out}"
    );
    assert!(out.contains("divergent  %tid"), "{out}");
}

#[test]
fn json_and_all_hierarchies() {
    let f = seed("closed_path.ll");
    let (code, out, err) = converge(&[
        "simulate",
        f.to_str().unwrap(),
        "--threads",
        "2",
        "--all-hierarchies",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(j["function"], "closed_path");
    let all = &j["all_hierarchies"];
    assert_eq!(all["exhaustive"], true);
    assert_eq!(all["hierarchies"].as_array().unwrap().len(), 2);
    assert_eq!(all["m_converged"], serde_json::json!(["Entry", "Exit"]));
    // Under LLVM's hierarchy (R, S) thread 1's first S is not converged with thread 2's first S.
    let s_classes = |threads: &Value, k: usize| -> Vec<u64> {
        threads[k]["instances"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["block"] == "S")
            .map(|x| x["class"].as_u64().unwrap())
            .collect()
    };
    let t = &j["run"]["threads"];
    assert_ne!(s_classes(t, 0)[0], s_classes(t, 1)[0]);
    // Under the other hierarchy (P), they are.
    let other = &all["runs"][1]["threads"];
    assert_eq!(s_classes(other, 0)[0], s_classes(other, 1)[0]);
}

#[test]
fn hierarchy_flag_selects_a_dfs_order() {
    let f = seed("closed_path.ll");
    let p = f.to_str().unwrap();
    let (c0, llvm, _) = converge(&["simulate", p, "--threads", "2", "--hierarchy", "0"]);
    let (c1, other, _) = converge(&["simulate", p, "--threads", "2", "--hierarchy", "1"]);
    let (c2, rev, _) = converge(&["simulate", p, "--threads", "2", "--hierarchy", "reversed"]);
    assert_eq!((c0, c1, c2), (0, 0, 0));
    assert!(llvm.contains("{R: P Q S} {S: P Q}"), "{llvm}");
    assert!(other.contains("{P: Q R S}"), "{other}");
    assert!(rev.contains("{P: Q R S}"), "{rev}");
    let (code, _, err) = converge(&["simulate", p, "--hierarchy", "7"]);
    assert_eq!(code, 2);
    assert!(err.contains("2 distinct hierarchies"), "{err}");
}

const COUNTED: &str = r#"
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define amdgpu_kernel void @count(i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i.next, %h ]
  %i.next = add i32 %i, 1
  %lim = add i32 %n, %tid
  %more = icmp slt i32 %i.next, %lim
  br i1 %more, label %h, label %exit
exit:
  %first = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %i.next)
  %after = add i32 %i.next, 0
  ret void
}

define void @spin() {
entry:
  br label %loop
loop:
  br label %loop
}
"#;

#[test]
fn args_communication_and_temporal_divergence() {
    let f = temp("counted.ll", COUNTED);
    let (code, out, err) = converge(&[
        "simulate",
        f.to_str().unwrap(),
        "--function",
        "count",
        "--threads",
        "3",
        "--args",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("arguments: 2"), "{out}");
    // Inside the loop %i.next is uniform per iteration; at the exit it is temporally divergent.
    assert!(out.contains("uniform    %i.next"), "{out}");
    // readfirstlane at the exit: all three threads converge there (maximal convergence), and
    // thread 0's value (2) is broadcast.
    assert!(
        out.contains("%first (@llvm.amdgcn.readfirstlane.i32 in exit): [0 1 2]"),
        "{out}"
    );
    assert!(out.contains("uniform    %first"), "{out}");
    assert!(
        out.contains("divergent  %after  (thread 0: 2, thread 1: 3)"),
        "{out}"
    );
}

#[test]
fn step_limit_is_reported() {
    let f = temp("spin.ll", COUNTED);
    let (code, out, err) = converge(&[
        "simulate",
        f.to_str().unwrap(),
        "--function",
        "@spin",
        "--threads",
        "2",
        "--step-limit",
        "50",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("thread 0: STOPPED: step limit reached after 50 steps"),
        "{out}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let f = temp("usage.ll", COUNTED);
    let p = f.to_str().unwrap();
    let (code, _, err) = converge(&["simulate", p]);
    assert_eq!(code, 2);
    assert!(err.contains("several functions"), "{err}");
    let (code, _, err) = converge(&["simulate", p, "--function", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no function @nope"), "{err}");
    let (code, _, err) = converge(&["simulate", p, "--function", "count", "--args", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a number"), "{err}");
    let (code, _, err) = converge(&["simulate", p, "--function", "count", "--threads", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--threads"), "{err}");
    let bad = temp(
        "bad.ll",
        "define void @f() {\nentry:\n  br label %nowhere\n}\n",
    );
    let (code, _, err) = converge(&["simulate", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.ll:"), "{err}");
}

/// A thread that stops on an error (here an `indirectbr`, which is not simulated) still gets its
/// table, but the command says so on stderr and exits 1: the result is incomplete.
#[test]
fn a_thread_stopped_by_an_error_is_exit_code_1() {
    let p = temp(
        "indirectbr.ll",
        "define void @f(ptr %t) {\nentry:\n  indirectbr ptr %t, [label %a]\na:\n  ret void\n}\n",
    );
    let (code, out, err) = converge(&["simulate", p.to_str().unwrap(), "--threads", "2"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("thread 0"), "{out}");
    assert!(
        err.contains("error: thread 0 stopped: `indirectbr` is not simulated"),
        "{err}"
    );
    let ok = temp("ret.ll", "define void @f() {\nentry:\n  ret void\n}\n");
    let (code, _, err) = converge(&["simulate", ok.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
}
