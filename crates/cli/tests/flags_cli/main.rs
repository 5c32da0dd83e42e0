//! The flags every subcommand shares, as an LLVM user expects them: `--target` with LLVM's names
//! and `-mtriple=`, `-` for standard input, `-o FILE`, `--function` (repeatable, glob, `@name`),
//! one `--llvm-version` and `--time-passes` spelling with the old ones as aliases, `--format`
//! listing only supported formats, one JSON layout, `--color`, the progress line, `--help`
//! examples, plurals, verify headlines and `dot` on several functions. Expected answers come from
//! LLVM (`opt -mtriple=...`, live) or from the same subcommand run with the established spelling.
//! One test binary, a module per concern: `target`, `io` (standard input, `-o`), `select`
//! (`--function`, `--llvm-version`, `--time-passes`) and `output` (formats, JSON, colour, progress,
//! wording); this file holds what they share.

#[path = "../common/mod.rs"]
mod common;
mod io;
mod output;
mod select;
mod target;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

fn run_in(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> common::Outcome {
    let mut cmd = Command::new(common::converge_bin());
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    common::run(cmd, stdin, LIMIT)
}

fn run(args: &[&str]) -> common::Outcome {
    run_in(args, b"", &[])
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(o.code, Some(0), "{args:?}: {}", o.stderr_str());
    o.stdout_str()
}

fn root() -> PathBuf {
    converge_gen::reference::repo_root()
}

fn example(name: &str) -> String {
    root().join("examples").join(name).display().to_string()
}

fn scratch(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("converge-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Two kernels without a target triple: the target comes from the command line.
const NO_TRIPLE: &str = r#"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define void @kernel_one(i32 %n) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %u = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %s = add i32 %t, %u
  %c = icmp slt i32 %s, %n
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  ret void
}

define void @kernel_two() {
entry:
  br label %loop
loop:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %t, 0
  br i1 %c, label %loop, label %done
done:
  ret void
}

declare void @only_declared()
"#;

/// `check-transform`'s output without its measured time (`"seconds": …` in JSON, `in 0.012s`
/// in text), which differs from run to run.
fn untimed(out: &[u8]) -> String {
    String::from_utf8_lossy(out)
        .lines()
        .filter(|l| !l.trim_start().starts_with("\"seconds\":"))
        .map(|l| match l.rfind(" in ") {
            Some(at) if l.ends_with('s') && l[at + 4..l.len() - 1].parse::<f64>().is_ok() => {
                &l[..at]
            }
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
