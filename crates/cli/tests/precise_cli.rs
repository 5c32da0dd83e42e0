//! `--mode llvm|precise` on `uniformity`, `explain` and `dot`: llvm mode is today's output byte for
//! byte and says so in JSON; precise mode names itself in every format; `explain` never states a
//! false reason (the exit phi with incomings 1 and 2 of docs/llvm-differences.md entry 2) and backs
//! precise-mode divergence with a simulator witness that `converge simulate` reproduces.

mod common;

use std::path::PathBuf;
use std::process::Command;

fn program(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../uniformity/tests/precise")
        .join(name)
}

fn out(args: &[&str]) -> String {
    let o = Command::new(common::converge_bin())
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn llvm_mode_is_the_default_and_unchanged() {
    let f = program("exit_phi_constants.ll");
    let f = f.to_str().unwrap();
    for format in ["llvm", "text"] {
        let default = out(&["uniformity", "--format", format, f]);
        let llvm = out(&["uniformity", "--mode", "llvm", "--format", format, f]);
        assert_eq!(default, llvm);
        assert!(!default.contains("precise"), "{default}");
    }
    let default = out(&["uniformity", "--format", "llvm", f]);
    assert!(
        default.starts_with("UniformityInfo for function 'f':"),
        "{default}"
    );
    // LLVM 19 still selectable in llvm mode.
    let v19 = out(&["uniformity", "--llvm-version", "19", "--format", "llvm", f]);
    assert!(v19.starts_with("UniformityInfo"), "{v19}");
    let j: serde_json::Value =
        serde_json::from_str(&out(&["uniformity", "--format", "json", f])).unwrap();
    assert_eq!(j["mode"], "llvm");
    let j: serde_json::Value = serde_json::from_str(&out(&[
        "uniformity",
        "--mode",
        "precise",
        "--format",
        "json",
        f,
    ]))
    .unwrap();
    assert_eq!(j["mode"], "precise");
    let p = out(&["uniformity", "--mode", "precise", "--format", "llvm", f]);
    assert!(
        p.starts_with("; converge uniformity --mode precise\nUniformityInfo"),
        "{p}"
    );
    let p = out(&["uniformity", "--mode", "precise", f]);
    assert!(p.starts_with("mode: precise"), "{p}");
    let d = out(&["dot", "--uniformity", "--mode", "precise", f]);
    assert!(d.contains("--mode precise") && d.contains("digraph"), "{d}");
    let e = out(&["explain", "--mode", "precise", f]);
    assert!(e.starts_with("mode: precise"), "{e}");
}

/// LLVM (19 and 22) calls `%ph` uniform; the simulator shows it divergent (entry 2). The old
/// explanation claimed every incoming value was the same.
#[test]
fn explain_gives_the_true_reason_and_a_witness() {
    let f = program("exit_phi_constants.ll");
    let f = f.to_str().unwrap();
    let llvm = out(&["explain", "--value", "%ph", f]);
    assert!(llvm.contains("is uniform"), "{llvm}");
    assert!(!llvm.contains("every incoming value is the same"), "{llvm}");
    assert!(
        llvm.contains("is an exit of") && llvm.contains("none is defined inside the cycle"),
        "{llvm}"
    );
    let precise = out(&["explain", "--mode", "precise", "--value", "%ph", f]);
    assert!(precise.contains("is divergent"), "{precise}");
    let line = precise
        .lines()
        .find(|l| l.trim_start().starts_with("converge simulate"))
        .unwrap_or_else(|| panic!("no witness command:\n{precise}"));
    // The witness reproduces with the simulator.
    let argv: Vec<&str> = line.split_whitespace().skip(1).collect();
    let sim = out(&argv);
    assert!(
        sim.lines()
            .any(|l| l.contains("divergent") && l.contains("%ph ")),
        "{sim}"
    );
    let j: serde_json::Value = serde_json::from_str(&out(&[
        "explain", "--mode", "precise", "--value", "%ph", "--format", "json", f,
    ]))
    .unwrap();
    assert_eq!(j["mode"], "precise");
    assert!(j["witness"]["command"].is_string(), "{j}");
}

/// A divergence past an anchor's convergence region shows only when the implementation splits
/// the anchor's group: the witness says so (`--anchor-groups 2`), and `converge simulate`
/// reproduces it; with one group the same run shows no difference.
#[test]
fn anchor_witness_splits_the_group_and_reproduces() {
    let f = program("anchor_region.ll");
    let f = f.to_str().unwrap();
    let precise = out(&["explain", "--mode", "precise", "--value", "%z", f]);
    assert!(precise.contains("is divergent"), "{precise}");
    let line = precise
        .lines()
        .find(|l| l.trim_start().starts_with("converge simulate"))
        .unwrap_or_else(|| panic!("no witness command:\n{precise}"));
    assert!(line.contains("--anchor-groups 2"), "{line}");
    let argv: Vec<&str> = line.split_whitespace().skip(1).collect();
    let shows = |argv: &[&str]| {
        out(argv)
            .lines()
            .any(|l| l.contains("divergent") && l.contains("%z "))
    };
    assert!(shows(&argv));
    let k = argv.iter().position(|&a| a == "--anchor-groups").unwrap();
    let mut one = argv.clone();
    one[k + 1] = "1";
    assert!(!shows(&one), "maximal grouping shows %z divergent too");
    let j: serde_json::Value = serde_json::from_str(&out(&[
        "explain", "--mode", "precise", "--value", "%z", "--format", "json", f,
    ]))
    .unwrap();
    assert_eq!(j["witness"]["anchor_groups"], 2, "{j}");
}
