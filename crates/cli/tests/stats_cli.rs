//! `converge stats`: counts against LLVM 22 (`opt -passes=instcount -stats` for functions, blocks and
//! instructions; `print<cycles>` for the number of cycles), output formats, and exit codes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

fn run(args: &[&str]) -> common::Outcome {
    let mut cmd = Command::new(common::converge_bin());
    cmd.args(args);
    common::run(cmd, b"", LIMIT)
}

fn inputs() -> Vec<PathBuf> {
    let root = converge_gen::reference::repo_root();
    let mut v = vec![root.join("crates/ir/tests/data/features.ll")];
    if let Some(c) = converge_gen::reference::corpus("stats inputs") {
        for rel in [
            "test/Analysis/CycleInfo/basic.ll",
            "test/Analysis/UniformityAnalysis/AMDGPU/irreducible/irreducible-2.ll",
            "test/Analysis/UniformityAnalysis/NVPTX/daorder.ll",
        ] {
            v.push(c.join(rel));
        }
    }
    v
}

/// (defined functions, blocks, instructions) as LLVM 22's instcount counts them (optnone removed:
/// instcount skips optnone functions).
fn llvm_counts(opt: &Path, text: &str) -> (u64, u64, u64) {
    let o = converge_gen::reference::run_opt(
        opt,
        &["-passes=instcount", "-stats", "-disable-output"],
        &text.replace(" optnone", ""),
    );
    assert!(o.success, "{}", o.stderr);
    let get = |what: &str| {
        o.stderr
            .lines()
            .find(|l| l.ends_with(what))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (
        get("Number of non-external functions"),
        get("Number of basic blocks"),
        get("Number of instructions (of all types)"),
    )
}

/// Number of cycles `print<cycles>` reports over the module.
fn llvm_cycles(opt: &Path, text: &str) -> u64 {
    let o =
        converge_gen::reference::run_opt(opt, &["-passes=print<cycles>", "-disable-output"], text);
    assert!(o.success, "{}", o.stderr);
    (o.stdout + &o.stderr)
        .lines()
        .filter(|l| l.trim_start().starts_with("depth="))
        .count() as u64
}

#[test]
fn json_counts_match_llvm() {
    let Some(opt) = converge_gen::reference::opt22("json_counts_match_llvm") else {
        return;
    };
    for file in inputs() {
        let text = std::fs::read_to_string(&file).unwrap();
        let o = run(&["stats", "--format", "json", file.to_str().unwrap()]);
        assert!(o.success(), "{}: {}", file.display(), o.stderr_str());
        let v: serde_json::Value = serde_json::from_str(&o.stdout_str()).expect("json");
        let (funcs, blocks, insts) = llvm_counts(&opt, &text);
        assert_eq!(
            v["functions"]["defined"].as_u64(),
            Some(funcs),
            "{}",
            file.display()
        );
        assert_eq!(v["blocks"].as_u64(), Some(blocks), "{}", file.display());
        assert_eq!(
            v["instructions"].as_u64(),
            Some(insts),
            "{}",
            file.display()
        );
        let per = v["per_function"].as_array().expect("per_function");
        assert_eq!(per.len() as u64, funcs);
        let sum: u64 = per
            .iter()
            .map(|f| f["instructions"].as_u64().unwrap())
            .sum();
        assert_eq!(sum, insts);
        assert_eq!(
            v["cycles"].as_u64(),
            Some(llvm_cycles(&opt, &text)),
            "{}",
            file.display()
        );
    }
}

#[test]
fn text_and_none_formats() {
    let file = converge_gen::reference::repo_root().join("crates/ir/tests/data/features.ll");
    let o = run(&["stats", file.to_str().unwrap()]);
    assert!(o.success(), "{}", o.stderr_str());
    let out = o.stdout_str();
    assert!(out.contains("functions"), "{out}");
    assert!(out.contains("@branches"), "{out}");
    assert!(
        out.contains("@ptxk  (kernel)"),
        "nvvm.annotations kernel marker: {out}"
    );
    assert!(out.contains("@kern  (kernel)"), "amdgpu_kernel: {out}");
    let o = run(&["stats", "--format", "none", file.to_str().unwrap()]);
    assert!(o.success());
    assert!(o.stdout_str().is_empty());
}

#[test]
fn bad_input_exits_2_with_location() {
    let dir = converge_gen::reference::repo_root().join("build/cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("stats-bad.ll");
    std::fs::write(
        &bad,
        "define void @f() {\nentry:\n  %x = add i32 1\n  ret void\n}\n",
    )
    .unwrap();
    let o = run(&["stats", bad.to_str().unwrap()]);
    assert_eq!(o.code, Some(2), "{}", o.stderr_str());
    let err = o.stderr_str();
    assert!(err.contains("stats-bad.ll:4:3"), "{err}");
    assert!(err.contains("expected `,`"), "{err}");
    assert!(err.contains('^'), "{err}");
    let o = run(&["stats", dir.join("does-not-exist.ll").to_str().unwrap()]);
    assert_eq!(o.code, Some(2), "{}", o.stderr_str());
    let o = run(&["stats", "--format", "llvm", bad.to_str().unwrap()]);
    assert_eq!(o.code, Some(2), "{}", o.stderr_str());
}
