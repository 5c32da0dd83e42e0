//! `converge explain` and `converge dot` as commands: summary, chains with locations, JSON, the
//! agreement with `converge uniformity`, and usage errors.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn converge() -> Command {
    Command::new(common::converge_bin())
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../report/tests/data")
        .join(name)
}

fn run(args: &[&str], file: &std::path::Path) -> Output {
    converge().args(args).arg(file).output().unwrap()
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn summary_lists_branches_joins_and_exits() {
    let out = stdout(&run(&["explain"], &data("sync.ll")));
    assert!(out.contains("function @diamond"), "{out}");
    assert!(out.contains("divergent branch in %entry"), "{out}");
    assert!(out.contains("sync.ll:7:1"), "{out}");
    assert!(out.contains("join %join"), "{out}");
    let out = stdout(&run(&["explain"], &data("temporal.ll")));
    assert!(out.contains("divergent exit of cycle %header"), "{out}");
    assert!(out.contains("temporal divergence: %i"), "{out}");
    let out = stdout(&run(&["explain"], &data("irreducible.ll")));
    assert!(out.contains("is assumed divergent"), "{out}");
}

#[test]
fn value_chain_with_locations() {
    let out = stdout(&run(
        &["explain", "--value", "%p", "--function", "@diamond"],
        &data("sync.ll"),
    ));
    assert!(out.contains("is divergent"), "{out}");
    assert!(out.contains("sync.ll:21:3"), "{out}");
    assert!(out.contains("sync dependence: phi at %join"), "{out}");
    assert!(out.contains("disjoint paths"), "{out}");
    assert!(out.contains("thread-id-intrinsic"), "{out}");
    // A block's branch.
    let out = stdout(&run(
        &["explain", "--block", "header"],
        &data("temporal.ll"),
    ));
    assert!(out.contains("the terminator of %header"), "{out}");
    assert!(out.contains("data dependence on divergent %done"), "{out}");
    // A uniform value.
    let out = stdout(&run(&["explain", "--value", "same"], &data("sync.ll")));
    assert!(out.contains("is uniform"), "{out}");
    assert!(out.contains("every incoming value is the same"), "{out}");
}

#[test]
fn json_chain_ends_at_a_source() {
    let out = stdout(&run(
        &["explain", "--value", "%after", "--format", "json"],
        &data("temporal.ll"),
    ));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["divergent"], true);
    let chain = v["chain"].as_array().unwrap();
    assert_eq!(chain[0]["reason"]["kind"], "temporal");
    assert_eq!(chain[0]["reason"]["exit"], "%exit");
    let last = chain.last().unwrap();
    assert_eq!(last["reason"]["kind"], "source");
    assert_eq!(last["reason"]["rule"], "thread-id-intrinsic");
    assert!(
        last["location"]
            .as_str()
            .unwrap()
            .ends_with("temporal.ll:9:3")
    );
    let out = stdout(&run(
        &["explain", "--format", "json"],
        &data("irreducible.ll"),
    ));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &v["functions"][0];
    assert_eq!(f["function"], "irr");
    // Irreducible: more than one entry (the common cycle shape, `CycleJson`).
    assert!(
        f["cycles_assumed_divergent"][0]["entries"]
            .as_array()
            .unwrap()
            .len()
            > 1
    );
    assert!(!f["divergent_branches"].as_array().unwrap().is_empty());
}

/// Every named value of the examples: `explain` says divergent exactly when `uniformity` does.
#[test]
fn explain_agrees_with_uniformity() {
    let mut compared = 0;
    for name in [
        "sync.ll",
        "temporal.ll",
        "irreducible.ll",
        "sources.ll",
        "nested.ll",
    ] {
        let file = data(name);
        let u: serde_json::Value =
            serde_json::from_str(&stdout(&run(&["uniformity", "--format", "json"], &file)))
                .unwrap();
        for f in u["functions"].as_array().unwrap() {
            let fname = f["name"].as_str().unwrap();
            let mut values: Vec<(String, bool)> = Vec::new();
            for a in f["arguments"].as_array().unwrap() {
                values.push((
                    a["name"].as_str().unwrap().to_string(),
                    a["divergent"].as_bool().unwrap(),
                ));
            }
            for b in f["blocks"].as_array().unwrap() {
                for i in b["instructions"].as_array().unwrap() {
                    if let Some(n) = i["name"].as_str() {
                        values.push((n.to_string(), i["divergent"].as_bool().unwrap()));
                    }
                }
            }
            for (v, div) in values {
                let out = stdout(&run(
                    &[
                        "explain",
                        "--function",
                        fname,
                        "--value",
                        &v,
                        "--format",
                        "json",
                    ],
                    &file,
                ));
                let e: serde_json::Value = serde_json::from_str(&out).unwrap();
                assert_eq!(e["divergent"], div, "{name} @{fname} {v}");
                if div {
                    let chain = e["chain"].as_array().expect("a chain");
                    assert_eq!(chain.last().unwrap()["reason"]["kind"], "source");
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 40, "{compared}");
}

#[test]
fn usage_errors_exit_2() {
    let o = run(&["explain", "--value", "%nope"], &data("sync.ll"));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no value %nope"));
    let o = run(&["explain", "--function", "missing"], &data("sync.ll"));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no function @missing"));
    let o = run(&["dot", "--function", "missing"], &data("sync.ll"));
    assert_eq!(o.status.code(), Some(2));
    let o = run(
        &["explain", "--value", "%x", "--block", "b"],
        &data("sync.ll"),
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn dot_command_output() {
    let out = stdout(&run(&["dot", "--uniformity"], &data("nested.ll")));
    assert!(out.starts_with("digraph \"@nest\" {"), "{out}");
    assert!(out.contains("subgraph \"cluster_cycle0\""), "{out}");
    assert!(out.contains("subgraph \"cluster_cycle1\""), "{out}");
    assert!(out.contains("[divergent branch]"), "{out}");
    assert!(out.contains("divergent exit"), "{out}");
    assert_eq!(
        out.matches('{').count(),
        out.matches('}').count(),
        "no braces inside labels here"
    );
    // Without --uniformity: structure only.
    let out = stdout(&run(&["dot"], &data("nested.ll")));
    assert!(!out.contains("divergent branch"), "{out}");
    assert!(out.contains("header of cycle 1"), "{out}");
}

/// A `nest` of `gen_uniformity` (issue 13), about `blocks` blocks.
fn deep_nest(blocks: usize) -> String {
    use converge_gen::program::{Flavor, module_header, tid_function_with_cfg};
    let mut t = module_header(Flavor::Amdgpu);
    let nest = converge_gen::cfg::nested_loops((blocks - 2) / 2).succs;
    t.push_str(&tid_function_with_cfg(Flavor::Amdgpu, "big", &nest));
    t
}

/// Issue 13, session 21: on a nest thousands deep, the summary of `explain` and the joins of
/// `dot --uniformity` cost about the output, not a search per (cycle, branch) or a dominator
/// tree per branch. Work first (no clock): a 3,000-block nest's summary and picture build no
/// join set (a dominator tree per branch before: 1,499 of them), since every join candidate of
/// a latch lies behind a stop header. Then the commands on 6,000 blocks: before, `explain` ran
/// for minutes (over 120 s at 4,000 blocks) and `dot --uniformity` about a minute (25 s at
/// 4,000); now about a second each on an idle machine, so the bound leaves room for a loaded one.
#[test]
fn deep_nest_explain_and_dot_finish_quickly() {
    use converge_report::explain::{Analysed, Explainer};
    use converge_report::render::Ctx;
    use converge_uniformity::llvm::Target;
    let m = converge_ir::parse("nest.ll", deep_nest(3000)).unwrap();
    let fid = m.function_by_name("big").unwrap();
    let a = Analysed::new(&m, fid, &Target::from_triple(m.triple.as_deref(), None));
    let lines = converge_report::LineIndex::new(&m.source);
    let ex = Explainer::new(&a);
    let ctx = Ctx {
        a: &a,
        lines: &lines,
    };
    let (text, _) = ctx.summary(&ex, false);
    assert!(text.contains("1499 divergent branches"), "{}", &text[..200]);
    let dot = converge_report::dot::render(
        &a,
        &converge_report::dot::DotOptions {
            uniformity: true,
            ..Default::default()
        },
    );
    assert!(dot.starts_with("digraph"));
    let w = a.join_work();
    assert!(w.join_sets <= 8, "{w:?}");

    let dir = std::env::temp_dir().join(format!("converge-deep-explain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nest-6000.ll");
    std::fs::write(&path, deep_nest(6000)).unwrap();
    for args in [&["explain"][..], &["dot", "--uniformity"][..]] {
        let start = std::time::Instant::now();
        let out = run(args, &path);
        let took = start.elapsed();
        let text = stdout(&out);
        assert!(text.len() > 1_000_000, "{args:?}: {} bytes", text.len());
        assert!(
            took < std::time::Duration::from_secs(30),
            "{args:?} on a 6,000-block nest took {took:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 13, session 22: `explore` on a deep nest. Each uniform header phi asked every divergent
/// branch whether it is a join, and each (branch, stop headers) pair built a dominator tree of
/// the function: cubic (70 G instructions at 1,000 blocks, over 120 s at 2,000). The quick join
/// test now answers those queries, so the page's values and join marks build at most a few join
/// sets, at 1,500 and at 3,000 blocks (with the quick test off: 19,900 at 400 blocks). Then the
/// command on 4,000 blocks: about a second on an idle machine (before: did not finish in 120 s).
#[test]
fn deep_nest_explore_builds_no_join_set_per_phi() {
    use converge_report::explain::{Analysed, Explainer};
    use converge_report::render::Ctx;
    use converge_uniformity::llvm::Target;
    for blocks in [1500, 3000] {
        let m = converge_ir::parse("nest.ll", deep_nest(blocks)).unwrap();
        let fid = m.function_by_name("big").unwrap();
        let a = Analysed::new(&m, fid, &Target::from_triple(m.triple.as_deref(), None));
        let lines = converge_report::LineIndex::new(&m.source);
        let ex = Explainer::new(&a);
        let ctx = Ctx {
            a: &a,
            lines: &lines,
        };
        let vals = converge_report::explore::data::values_json(&ctx, &ex, 2_000);
        // Every header phi is explained as uniform: not a join, a header reached again.
        let uni = vals["uni"].as_object().unwrap();
        let headers = uni
            .values()
            .filter(|f| f.to_string().contains("header"))
            .count();
        assert!(
            headers >= 300,
            "{blocks} blocks: {headers} header phis explained"
        );
        let w = a.join_work();
        assert!(w.join_sets <= 8, "{blocks} blocks: {w:?}");
        assert!(w.ruled_out > 100_000, "{blocks} blocks: {w:?}");
    }
    let dir = std::env::temp_dir().join(format!("converge-deep-explore-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nest-4000.ll");
    std::fs::write(&path, deep_nest(4000)).unwrap();
    let page = dir.join("nest-4000.html");
    let start = std::time::Instant::now();
    let out = converge()
        .args(["explore", "-o"])
        .arg(&page)
        .arg(&path)
        .output()
        .unwrap();
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::metadata(&page).unwrap().len() > 1_000_000);
    assert!(
        took < std::time::Duration::from_secs(60),
        "explore on a 4,000-block nest took {took:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
