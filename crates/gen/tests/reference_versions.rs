//! The reference tools are the versions the tests were written against: each helper of
//! `converge_gen::reference` checks the `--version` its tool reports (failure under `CI=true`,
//! `SKIPPED` elsewhere), and the version comparison itself is checked here on literal strings.

use converge_gen::reference::{
    LLVM19_VERSION, LLVM22_VERSION, clang19, filecheck, opt19, opt22, reported_version,
    version_matches,
};

#[test]
fn version_rules() {
    assert!(version_matches("19.1.7", LLVM19_VERSION));
    assert!(!version_matches("18.1.8", LLVM19_VERSION));
    assert!(!version_matches("119.1.0", LLVM19_VERSION));
    assert!(version_matches("22.1.8", LLVM22_VERSION));
    assert!(!version_matches("22.1.80", LLVM22_VERSION));
    assert!(!version_matches("22.1.7", LLVM22_VERSION));
    assert!(!version_matches("21.1.2", LLVM22_VERSION));
}

#[test]
fn every_reference_tool_reports_its_version() {
    for (name, tool, expected) in [
        ("opt 19", opt19("version check"), LLVM19_VERSION),
        ("FileCheck 19", filecheck("version check"), LLVM19_VERSION),
        ("clang 19", clang19("version check"), LLVM19_VERSION),
        ("opt 22", opt22("version check"), LLVM22_VERSION),
    ] {
        // `None`: skipped (or, under CI=true, the helper has already failed the test).
        if let Some(p) = tool {
            let v = reported_version(&p).expect("the helper accepted a version");
            assert!(version_matches(&v, expected), "{name}: {v}");
            eprintln!("{name}: {} reports {v}", p.display());
        }
    }
}
