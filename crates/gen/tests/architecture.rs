//! The layering invariants of ARCHITECTURE.md ("Invariants"), enforced.
//!
//! - Each crate's normal dependencies, as `cargo metadata` reports them, are exactly the ones the
//!   table between `<!-- deps:begin -->` and `<!-- deps:end -->` in ARCHITECTURE.md allows; the
//!   table is the allowed list, so the document cannot go stale and a new dependency is a
//!   deliberate change of both.
//! - The named invariants are checked on the same data, so a failure says which rule broke:
//!   `graph` knows no IR, `sim` (the oracle) never depends on the analyses it judges, only
//!   `report` and `cli` produce output formats, `gen` is a
//!   dependency of tests and of the oracle only.
//! - The generic cores of the analyses do not name the LLVM-text IR outside their tests.
//! - Every library crate warns on missing documentation (`#![warn(missing_docs)]` in its `lib.rs`)
//!   and no source file of it turns the lint off (ARCHITECTURE.md, "Public API documentation").

use converge_gen::reference::repo_root;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

type Deps = BTreeMap<String, BTreeSet<String>>;

/// Normal and dev dependencies per workspace crate, from `cargo metadata --no-deps`.
fn metadata() -> (Deps, Deps) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(repo_root())
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let (mut normal, mut dev) = (Deps::new(), Deps::new());
    for p in v["packages"].as_array().expect("packages") {
        let name = p["name"].as_str().expect("name").to_string();
        let (mut n, mut d) = (BTreeSet::new(), BTreeSet::new());
        for dep in p["dependencies"].as_array().expect("dependencies") {
            let dn = dep["name"].as_str().expect("dependency name").to_string();
            match dep["kind"].as_str() {
                None => n.insert(dn),
                Some("dev") => d.insert(dn),
                _ => false, // build dependencies: none today
            };
        }
        normal.insert(name.clone(), n);
        dev.insert(name, d);
    }
    (normal, dev)
}

/// The allowed normal dependencies, from ARCHITECTURE.md's table.
fn allowed() -> Deps {
    let text =
        std::fs::read_to_string(repo_root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let begin = text.find("<!-- deps:begin -->").expect("deps:begin marker");
    let end = text.find("<!-- deps:end -->").expect("deps:end marker");
    let mut out = Deps::new();
    for line in text[begin..end].lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // `| `converge-x` | `a`, `b` | why |`: cells[0] is empty (before the first bar).
        if cells.len() < 3 || !cells[1].starts_with("`converge-") {
            continue;
        }
        let name = cells[1].trim_matches('`').to_string();
        let deps: BTreeSet<String> = cells[2]
            .split(',')
            .map(|d| d.trim().trim_matches('`').to_string())
            .filter(|d| !d.is_empty() && d != "—")
            .collect();
        assert!(
            out.insert(name.clone(), deps).is_none(),
            "{name} listed twice"
        );
    }
    assert!(
        !out.is_empty(),
        "no rows in ARCHITECTURE.md's dependency table"
    );
    out
}

#[test]
fn dependencies_match_architecture_md() {
    let (normal, _) = metadata();
    let allowed = allowed();
    let crates: BTreeSet<&String> = normal.keys().chain(allowed.keys()).collect();
    let mut problems = Vec::new();
    for c in crates {
        match (normal.get(c), allowed.get(c)) {
            (Some(have), Some(may)) => {
                for extra in have.difference(may) {
                    problems.push(format!(
                        "{c} depends on {extra}, which ARCHITECTURE.md does not allow"
                    ));
                }
                for gone in may.difference(have) {
                    problems.push(format!(
                        "ARCHITECTURE.md lists {gone} for {c}, which no longer depends on it"
                    ));
                }
            }
            (Some(_), None) => {
                problems.push(format!("{c} is missing from ARCHITECTURE.md's table"))
            }
            (None, Some(_)) => {
                problems.push(format!("ARCHITECTURE.md lists {c}, not a workspace crate"))
            }
            (None, None) => unreachable!(),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn named_invariants() {
    let (normal, dev) = metadata();
    let deps = |c: &str| normal.get(c).unwrap_or_else(|| panic!("no crate {c}"));
    let workspace = |c: &str| -> Vec<String> {
        deps(c)
            .iter()
            .filter(|d| d.starts_with("converge-"))
            .cloned()
            .collect()
    };
    // graph knows no IR: no workspace dependency at all.
    assert_eq!(
        workspace("converge-graph"),
        Vec::<String>::new(),
        "graph must know no IR"
    );
    // The IR layer sits on graph only.
    assert_eq!(workspace("converge-ir"), ["converge-graph"]);
    // The simulator is the oracle: it shares facts, never decisions.
    for judged in [
        "converge-uniformity",
        "converge-verify",
        "converge-check",
        "converge-report",
    ] {
        assert!(
            !deps("converge-sim").contains(judged),
            "sim must not depend on {judged}"
        );
    }
    // The analyses do not depend on each other's decisions, nor on anything above them.
    let above = [
        "converge-report",
        "converge-cli",
        "converge-check",
        "converge-transform",
        "converge-oracle",
        "converge-gen",
    ];
    for analysis in ["converge-uniformity", "converge-verify", "converge-sim"] {
        for a in above
            .iter()
            .chain(["converge-uniformity", "converge-verify", "converge-sim"].iter())
        {
            assert!(
                *a == analysis || !deps(analysis).contains(*a),
                "{analysis} must not depend on {a}"
            );
        }
    }
    // Output formats: only report and cli.
    for (c, d) in &normal {
        if d.contains("serde_json") {
            assert!(
                ["converge-report", "converge-cli"].contains(&c.as_str()),
                "{c} produces an output format (serde_json); only report and cli may"
            );
        }
    }
    // Nothing depends on the CLI; gen is for tests, and for the oracle that draws its programs.
    for (c, d) in &normal {
        assert!(
            !d.contains("converge-cli"),
            "{c} depends on the binary crate"
        );
        if d.contains("converge-gen") {
            assert_eq!(c, "converge-oracle", "{c} depends on the test generators");
        }
    }
    // gen's generators need graph only (it must stay cheap to build for every test).
    assert_eq!(workspace("converge-gen"), ["converge-graph"]);
    // Tests of the simulator may compare with the analysis, never the other way round in the
    // simulator itself (checked above); and no crate's tests pull in the CLI binary's code.
    for (c, d) in &dev {
        assert!(
            !d.contains("converge-cli"),
            "{c}'s tests depend on the binary crate"
        );
    }
}

/// Code outside `#[cfg(test)]` modules and comments.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn generic_cores_do_not_name_the_llvm_text_ir() {
    let root = repo_root();
    let mut cores: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["crates/graph/src"] {
        for e in std::fs::read_dir(root.join(dir)).expect("read_dir") {
            cores.push(e.expect("entry").path());
        }
    }
    for f in [
        "crates/uniformity/src/ssa.rs",
        "crates/uniformity/src/structure.rs",
        "crates/uniformity/src/sync.rs",
        "crates/uniformity/src/analysis.rs",
        "crates/uniformity/src/analysis/settle.rs",
        "crates/uniformity/src/analysis/late.rs",
        "crates/uniformity/src/analysis/lone.rs",
        "crates/verify/src/core.rs",
        "crates/verify/src/structure.rs",
    ] {
        cores.push(root.join(f));
    }
    for p in cores
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
    {
        let c = code(p);
        for name in ["converge_ir", "crate::llvm"] {
            assert!(
                !c.contains(name),
                "{} names {name}: the generic core must go through its traits",
                p.display()
            );
        }
    }
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read_dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_library_crate_documents_its_public_api() {
    let root = repo_root();
    let mut libs = 0;
    for e in std::fs::read_dir(root.join("crates")).expect("read_dir") {
        let dir = e.expect("entry").path();
        let lib = dir.join("src/lib.rs");
        if !lib.exists() {
            continue;
        }
        libs += 1;
        let text = std::fs::read_to_string(&lib).expect("lib.rs");
        assert!(
            text.contains("#![warn(missing_docs)]") || text.contains("#![deny(missing_docs)]"),
            "{} does not warn on missing documentation",
            lib.display()
        );
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        for f in files {
            let c = code(&f);
            assert!(
                !c.contains("allow(missing_docs)"),
                "{} turns off the missing_docs lint (ARCHITECTURE.md says no module is exempt)",
                f.display()
            );
        }
    }
    assert!(libs >= 10, "the library crates are found ({libs})");
}
