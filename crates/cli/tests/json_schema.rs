//! Every subcommand's JSON against its documented schema (docs/json-schema.md): on every example
//! module (and the check-transform pairs), each document reads back into its report struct of
//! `converge_report::reports` and prints back byte for byte (so it has no field the struct does
//! not know, and the struct none the document lacks), carries `"schema":
//! "converge.<report>/1"`, and uses only fields the page lists; over all inputs, every field the
//! page lists occurs. The expected field lists come from the documentation, not from our output.
//! `explain` runs on the examples (summary and `--value` on every named value, both modes) and
//! on two precise-mode tests whose values have the token and heart reasons (rules P6, P7).

mod common;

use converge_report::reports::{
    check_transform::CheckReport,
    cycles::CyclesReport,
    explain::{ExplainReport, ExplainValueReport},
    json_text,
    simulate::SimulateReport,
    stats::StatsReport,
    uniformity::UniformityReport,
    verify::VerifyReport,
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

fn root() -> PathBuf {
    converge_gen::reference::repo_root()
}

/// `## \`converge.<report>/1\`` sections of the page: report → documented paths.
fn documented() -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(root().join("docs/json-schema.md")).unwrap();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            current = h
                .strip_prefix("`converge.")
                .and_then(|r| r.split_once("/1`"))
                .map(|(r, _)| r.to_string());
            continue;
        }
        if let (Some(r), Some(row)) = (&current, line.strip_prefix("| `")) {
            let path = row.split('`').next().unwrap().to_string();
            out.entry(r.clone()).or_default().insert(path);
        }
    }
    out
}

/// Every path in `v` (`a.b`, `a[].b`), with `all_hierarchies.runs[]` written as `run` and a
/// summary branch's `explanation.` as the top level of explain's value document (the page
/// documents a run and an explanation once).
fn paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                let p = p
                    .replace("all_hierarchies.runs[].", "run.")
                    .replace("functions[].divergent_branches[].explanation.", "");
                out.insert(p.clone());
                paths(x, &p, out);
            }
        }
        Value::Array(a) => {
            for x in a {
                paths(x, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

fn run(args: &[String]) -> (Option<i32>, String) {
    let mut cmd = Command::new(common::converge_bin());
    cmd.args(args);
    let o = common::run(cmd, b"", Duration::from_secs(120));
    (o.code, o.stdout_str())
}

/// Reads `text` into `T` and prints it back: the same bytes.
fn round_trip<T: Serialize + DeserializeOwned>(what: &str, text: &str) {
    let parsed: T = serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    assert_eq!(
        json_text(&parsed),
        text,
        "{what}: not printed back the same"
    );
}

#[test]
fn every_json_document_matches_its_documented_schema() {
    let docs = documented();
    for r in [
        "stats",
        "cycles",
        "uniformity",
        "verify",
        "simulate",
        "check-transform",
        "explain",
    ] {
        assert!(
            docs.contains_key(r),
            "docs/json-schema.md has no section for {r}"
        );
    }
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 5);
    let examples = inputs.len();
    // Values with precise mode's token (P6), heart (P7) and diverged-entry (P1 by one
    // hierarchy's joins: `region`) reasons, for explain only.
    for t in [
        "crates/uniformity/tests/precise/heart_region.ll",
        "crates/check/tests/regressions/opportunistic.after.ll",
        "crates/uniformity/tests/precise/always_uniform_leaving_assumed_cycle.ll",
    ] {
        inputs.push(root().join(t));
    }
    let mut check = |report: &str, args: Vec<String>, round: &dyn Fn(&str, &str)| {
        let (code, text) = run(&args);
        if text.is_empty() {
            // `simulate` on a module with several functions and no --function: usage error.
            assert_eq!(code, Some(2), "{args:?}");
            return;
        }
        let what = format!("{args:?}");
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(
            v["schema"],
            Value::from(format!("converge.{report}/1")),
            "{what}"
        );
        round(&what, &text);
        let mut ps = BTreeSet::new();
        paths(&v, "", &mut ps);
        let doc = &docs[report];
        let undocumented: Vec<_> = ps.difference(doc).collect();
        assert!(
            undocumented.is_empty(),
            "{what}: fields not in docs/json-schema.md: {undocumented:?}"
        );
        seen.entry(report.to_string()).or_default().extend(ps);
    };
    for (k, f) in inputs.iter().enumerate() {
        let f = f.display().to_string();
        let a = |xs: &[&str]| -> Vec<String> {
            xs.iter()
                .map(|s| s.to_string())
                .chain([f.clone()])
                .collect()
        };
        let m = converge_ir::parse(&f, std::fs::read_to_string(&f).unwrap()).unwrap();
        for mode in ["llvm", "precise"] {
            check(
                "explain",
                a(&["explain", "--format", "json", "--mode", mode]),
                &round_trip::<ExplainReport>,
            );
            for fid in m.func_ids().filter(|&g| !m.func(g).is_declaration) {
                let func = m.func(fid);
                let name = m.str(func.name).to_string();
                let named = (0..func.insts.len() as u32)
                    .filter(|&i| func.insts[i as usize].name() != converge_ir::LocalName::None)
                    .map(|i| converge_ir::Value::Inst(converge_ir::InstId(i)));
                let args = (0..func.params.len() as u32).map(converge_ir::Value::Arg);
                for v in args.chain(named) {
                    let v = m.value_name(fid, v);
                    check(
                        "explain",
                        a(&[
                            "explain",
                            "--format",
                            "json",
                            "--mode",
                            mode,
                            "--function",
                            &name,
                            "--value",
                            &v,
                        ]),
                        &round_trip::<ExplainValueReport>,
                    );
                }
            }
        }
        if k >= examples {
            continue;
        }
        check(
            "stats",
            a(&["stats", "--format", "json"]),
            &round_trip::<StatsReport>,
        );
        check(
            "cycles",
            a(&["cycles", "--format", "json"]),
            &round_trip::<CyclesReport>,
        );
        for mode in ["llvm", "precise"] {
            check(
                "uniformity",
                a(&["uniformity", "--format", "json", "--mode", mode]),
                &round_trip::<UniformityReport>,
            );
        }
        check(
            "verify",
            a(&["verify", "--format", "json"]),
            &round_trip::<VerifyReport>,
        );
        // Every function of the module, alone (simulate runs one).
        for fid in m.func_ids().filter(|&g| !m.func(g).is_declaration) {
            let name = m.str(m.func(fid).name).to_string();
            for all in [false, true] {
                let mut args = a(&[
                    "simulate",
                    "--format",
                    "json",
                    "--threads",
                    "3",
                    "--step-limit",
                    "2000",
                    "--enumeration-cap",
                    "8",
                    "--function",
                    &name,
                ]);
                if all {
                    args.insert(1, "--all-hierarchies".into());
                }
                check("simulate", args, &round_trip::<SimulateReport>);
            }
        }
    }
    // check-transform: a refining pair and a violating one.
    let pairs = root().join("crates/check/tests/pairs");
    for p in ["sink_entry", "texture_sink_uniform", "hoist_op_ifelse"] {
        let b = pairs.join(format!("{p}.before.ll")).display().to_string();
        let af = pairs.join(format!("{p}.after.ll")).display().to_string();
        let args: Vec<String> = [
            "check-transform",
            "--format",
            "json",
            "--threads",
            "3",
            &b,
            &af,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        check("check-transform", args, &|what, text| {
            // `seconds` is a float: compare after reading, not byte for byte.
            let parsed: CheckReport =
                serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"));
            let back: Value = serde_json::from_str(&json_text(&parsed)).unwrap();
            let orig: Value = serde_json::from_str(text).unwrap();
            assert_eq!(back, orig, "{what}");
        });
    }
    for (report, doc) in &docs {
        let got = seen.get(report).cloned().unwrap_or_default();
        let never: Vec<_> = doc.difference(&got).collect();
        assert!(
            never.is_empty(),
            "docs/json-schema.md lists fields of {report} no output had: {never:?}"
        );
    }
}
