//! `converge cycles`: formats, names, filters, determinism and errors. Expected hierarchies were
//! worked out by hand from the algorithm (the DFS explores the last successor first); the
//! printer's exact text is checked live against `opt` 22 where it is available.

mod common;

use converge_gen::cfg::{CfgParams, Shape, random_cfg, to_ll};
use converge_gen::reference::{opt22, run_opt};
use converge_gen::rng::Rng;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// An outer loop `h` with an inner self-loop `"in ner"`, an irreducible pair (`0` unnamed, `b`)
/// and an unreachable block that branches into the pair.
const SAMPLE: &str = r#"
define void @"two parts"(i1 %c, i32 %s) {
entry:
  br label %h
h:
  br label %"in ner"
"in ner":
  br i1 %c, label %"in ner", label %latch
latch:
  br i1 %c, label %h, label %split
split:
  br i1 %c, label %0, label %b
0:
  br i1 %c, label %b, label %done
b:
  br label %0
done:
  ret void
dead:
  br label %b
}

define void @straight() {
entry:
  ret void
}

declare void @ext()
"#;

fn write(tag: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("converge-cycles-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{tag}.ll"));
    std::fs::write(&p, text).unwrap();
    p
}

fn converge(args: &[&str], env: &[(&str, &str)]) -> common::Outcome {
    let mut cmd = Command::new(common::converge_bin());
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    common::run(cmd, b"", Duration::from_secs(60))
}

#[test]
fn json_reports_the_whole_hierarchy() {
    let f = write("json", SAMPLE);
    let out = converge(&["cycles", "--format", "json", f.to_str().unwrap()], &[]);
    assert!(out.success(), "{}", out.stderr_str());
    let v: Value = serde_json::from_str(&out.stdout_str()).unwrap();
    let funcs = v["functions"].as_array().unwrap();
    assert_eq!(funcs.len(), 2, "declarations are skipped");
    assert_eq!(funcs[0]["name"], "two parts");
    assert_eq!(funcs[1]["cycles"].as_array().unwrap().len(), 0);
    let cycles = funcs[0]["cycles"].as_array().unwrap();
    assert_eq!(cycles.len(), 3);
    let strs = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    // The DFS reaches `split`'s last successor `b` before `0`: `b` is the header; `0` an entry.
    // Discovery: {b, 0} first, then {in ner}, then {h, ...} adopts {in ner}.
    let irr = &cycles[0];
    assert_eq!(irr["header"], "b");
    assert_eq!(strs(&irr["entries"]), ["b", "0"]);
    assert_eq!(irr["reducible"], false);
    assert_eq!(strs(&irr["exits"]), ["done"]);
    assert_eq!(strs(&irr["exiting"]), ["0"]);
    assert_eq!(irr["depth"], 1);
    assert!(irr["parent"].is_null());
    let outer = &cycles[1];
    assert_eq!(outer["header"], "h");
    assert_eq!(strs(&outer["blocks"]), ["h", "latch", "in ner"]);
    assert_eq!(strs(&outer["exits"]), ["split"]);
    assert_eq!(strs(&outer["exiting"]), ["latch"]);
    assert_eq!(outer["children"], serde_json::json!([2]));
    let inner = &cycles[2];
    assert_eq!(inner["header"], "in ner");
    assert_eq!(inner["parent"], 1);
    assert_eq!(inner["depth"], 2);
    assert_eq!(inner["reducible"], true);
}

#[test]
fn llvm_format_matches_opt22_with_quoted_and_numbered_names() {
    let f = write("llvm", SAMPLE);
    let out = converge(&["cycles", "--format", "llvm", f.to_str().unwrap()], &[]);
    assert!(out.success(), "{}", out.stderr_str());
    let expected = "CycleInfo for function: two parts\n    depth=1: entries(b 0)\n    depth=1: entries(h) latch in ner\n        depth=2: entries(in ner)\nCycleInfo for function: straight\n";
    assert_eq!(out.stdout_str(), expected);
    let Some(opt) = opt22("llvm_format_matches_opt22_with_quoted_and_numbered_names") else {
        return;
    };
    let theirs = run_opt(&opt, &["-passes=print<cycles>", "-disable-output"], SAMPLE);
    assert!(theirs.success, "{}", theirs.stderr);
    assert_eq!(theirs.stderr, expected);
}

#[test]
fn llvm19_mode_counts_the_unreachable_predecessor() {
    let f = write("llvm19", SAMPLE);
    let out = converge(
        &[
            "cycles",
            "--format",
            "llvm",
            "--llvm",
            "19",
            f.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.success(), "{}", out.stderr_str());
    // `dead -> b`: `b` already is an entry, so nothing changes here...
    assert!(out.stdout_str().contains("entries(b 0)"));
    // ...but a block with only an unreachable outside predecessor becomes an entry.
    let g = "define void @g(i1 %c) {\nentry:\n  br label %h\nh:\n  br label %x\nx:\n  br i1 %c, label %h, label %e\ne:\n  ret void\nd:\n  br label %x\n}\n";
    let f = write("llvm19b", g);
    let new = converge(&["cycles", "--format", "llvm", f.to_str().unwrap()], &[]);
    let old = converge(
        &[
            "cycles",
            "--format",
            "llvm",
            "--llvm",
            "19",
            f.to_str().unwrap(),
        ],
        &[],
    );
    assert!(new.stdout_str().contains("depth=1: entries(h) x\n"));
    assert!(old.stdout_str().contains("depth=1: entries(h x)\n"));
}

#[test]
fn text_format_is_readable() {
    let f = write("text", SAMPLE);
    let out = converge(&["cycles", f.to_str().unwrap()], &[]);
    assert!(out.success(), "{}", out.stderr_str());
    let s = out.stdout_str();
    assert!(
        s.contains("function @two parts: 3 cycles (1 irreducible), nesting depth 2"),
        "{s}"
    );
    assert!(s.contains("header %b"), "{s}");
    assert!(s.contains("entries: %b %0"), "{s}");
    assert!(s.contains("%\"in ner\""), "{s}");
    assert!(s.contains("function @straight: no cycles"), "{s}");
}

#[test]
fn function_filter() {
    let f = write("filter", SAMPLE);
    let out = converge(
        &[
            "cycles",
            "--format",
            "llvm",
            "--function",
            "straight",
            f.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.stdout_str(), "CycleInfo for function: straight\n");
    let out = converge(&["cycles", "--function", "nope", f.to_str().unwrap()], &[]);
    assert_eq!(out.code, Some(2));
    assert!(out.stderr_str().contains("nope"));
}

#[test]
fn output_does_not_depend_on_thread_count() {
    let mut rng = Rng::new(99);
    let mut module = String::new();
    for i in 0..300 {
        let params = CfgParams::new(Shape::Mixed, 5 + rng.below(60));
        let cfg = random_cfg(&mut rng, &params);
        module.push_str(&to_ll(&cfg, &format!("f{i}")));
    }
    let f = write("threads", &module);
    for format in ["llvm", "json", "text"] {
        let args = ["cycles", "--format", format, f.to_str().unwrap()];
        let one = converge(&args, &[("RAYON_NUM_THREADS", "1")]);
        let four = converge(&args, &[("RAYON_NUM_THREADS", "4")]);
        assert!(one.success() && four.success());
        assert_eq!(one.stdout, four.stdout, "{format}");
    }
}

#[test]
fn bad_input_is_reported_with_a_location() {
    let f = write(
        "bad",
        "define void @f() {\nentry:\n  br label %nowhere\n}\n",
    );
    let out = converge(&["cycles", f.to_str().unwrap()], &[]);
    assert_eq!(out.code, Some(2), "{}", out.stderr_str());
    assert!(out.stderr_str().contains("bad.ll:"), "{}", out.stderr_str());
    let out = converge(&["cycles", "/nonexistent/x.ll"], &[]);
    assert_eq!(out.code, Some(2));
}

#[test]
fn time_passes_reports_phases() {
    let f = write("time", SAMPLE);
    let out = converge(
        &[
            "cycles",
            "--format",
            "none",
            "--time-passes",
            f.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.success());
    assert!(out.stdout.is_empty());
    let e = out.stderr_str();
    for phase in ["read+parse", "dominators", "cycles"] {
        assert!(e.contains(phase), "{e}");
    }
}
