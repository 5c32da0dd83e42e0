//! `converge cycles --format llvm` on LLVM's own test files (the corpus, reached by path), compared
//! live with `opt -passes='print<cycles>'`: every `.ll` of the corpus against LLVM 22 (the files
//! LLVM 22 cannot read are listed and skipped), and `Analysis/CycleInfo/*.ll` against LLVM 19 with
//! `--llvm 19`. The printed lines must be identical.

mod common;

use converge_gen::reference::{corpus, opt19, opt22, run_opt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The `print<cycles>` lines of a printer's output.
fn cycle_lines(text: &str) -> String {
    text.lines()
        .filter(|l| {
            l.starts_with("CycleInfo for function: ") || l.trim_start().starts_with("depth=")
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

fn converge(file: &Path, extra: &[&str]) -> Result<String, String> {
    let mut cmd = Command::new(common::converge_bin());
    cmd.args(["cycles", "--format", "llvm"])
        .args(extra)
        .arg(file);
    let out = common::run(cmd, b"", Duration::from_secs(60));
    if out.success() {
        Ok(out.stdout_str())
    } else {
        Err(format!("{}: {}", out.describe_end(), out.stderr_str()))
    }
}

fn compare(opt: &Path, files: &[PathBuf], extra: &[&str]) -> (usize, Vec<String>) {
    let mut compared = 0;
    let mut skipped = Vec::new();
    let mut failures = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        let theirs = run_opt(opt, &["-passes=print<cycles>", "-disable-output"], &text);
        if !theirs.success {
            skipped.push(format!(
                "{}: opt cannot read it: {}",
                f.display(),
                theirs.stderr.lines().next().unwrap_or("")
            ));
            continue;
        }
        compared += 1;
        match converge(f, extra) {
            Ok(ours) => {
                let (t, o) = (cycle_lines(&theirs.stderr), cycle_lines(&ours));
                if t != o {
                    failures.push(format!(
                        "{}\n--- opt ---\n{t}--- converge ---\n{o}",
                        f.display()
                    ));
                }
            }
            Err(e) => failures.push(format!("{}: converge failed: {e}", f.display())),
        }
    }
    for s in &skipped {
        eprintln!("skipped {s}");
    }
    assert!(
        failures.is_empty(),
        "{} of {compared} files differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    (compared, skipped)
}

#[test]
fn corpus_cycles_match_llvm22() {
    let (Some(opt), Some(root)) = (
        opt22("corpus_cycles_match_llvm22"),
        corpus("corpus_cycles_match_llvm22"),
    ) else {
        return;
    };
    let files = converge_gen::reference::ll_files(&root.join("test"));
    assert!(files.len() >= 60, "corpus has {} files", files.len());
    let (compared, _) = compare(&opt, &files, &[]);
    assert!(compared >= 40, "only {compared} files compared");
    let cycle_info: Vec<PathBuf> =
        converge_gen::reference::ll_files(&root.join("test/Analysis/CycleInfo"));
    assert_eq!(cycle_info.len(), 2);
}

#[test]
fn corpus_cycle_info_tests_match_llvm19_in_llvm19_mode() {
    let (Some(opt), Some(root)) = (
        opt19("corpus_cycle_info_tests_match_llvm19_in_llvm19_mode"),
        corpus("corpus_cycle_info_tests_match_llvm19_in_llvm19_mode"),
    ) else {
        return;
    };
    let files = converge_gen::reference::ll_files(&root.join("test/Analysis/CycleInfo"));
    let (compared, skipped) = compare(&opt, &files, &["--llvm", "19"]);
    assert_eq!(compared, files.len(), "{skipped:?}");
}
