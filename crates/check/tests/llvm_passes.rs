//! LLVM's code-moving passes, checked: generated kernels with convergent operations (uncontrolled and
//! with tokens; loops with runtime trip counts; divergent and uniform conditions) go through `opt`
//! 19 (AMDGPU) and 22 (NVPTX) pass by pass, and every (input, output) pair through
//! `converge_check::check`. The table says per pass and LLVM version how many programs went in, how
//! many pairs were checked (opt succeeded), how many changed the function, and how many violations
//! were found.
//!
//! The default run is a small share (a few programs per pass). `CONVERGE_CHECK_PROGRAMS=N` runs N
//! programs per pass and version (`scripts/check-llvm-passes.sh` does the big run);
//! `CONVERGE_CHECK_JOBS` sets worker threads, `CONVERGE_CHECK_SEED` the first program seed,
//! `CONVERGE_CHECK_PASSES` a comma-separated subset of the passes (names as in the table),
//! `CONVERGE_CHECK_OUT` where violating pairs are written (default `target/check-transform`).

use converge_check::{Settings, Verdict, check};
use converge_gen::kernels::{ConvergentOptions, GpuTarget, convergent_kernel};
use converge_gen::reference::{self, run_opt};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// (name, opt arguments). Loop passes get LLVM's loop canonical form first, as their pipelines do.
const PASSES: &[(&str, &[&str])] = &[
    ("simplifycfg", &["-passes=simplifycfg"]),
    (
        "simplifycfg<hoist;sink>",
        &["-passes=simplifycfg<hoist-common-insts;sink-common-insts>"],
    ),
    ("jump-threading", &["-passes=jump-threading"]),
    ("loop-unroll", &["-passes=loop-unroll<O3>"]),
    (
        "loop-unroll runtime x2",
        &[
            "-passes=loop-unroll<O3>",
            "-unroll-runtime",
            "-unroll-count=2",
        ],
    ),
    (
        "loop-unroll runtime x3 remainder",
        &[
            "-passes=loop-unroll<O3>",
            "-unroll-runtime",
            "-unroll-count=3",
            "-unroll-allow-remainder",
        ],
    ),
    ("loop-unroll-full", &["-passes=loop(loop-unroll-full)"]),
    ("licm", &["-passes=loop-mssa(licm)"]),
    ("gvn-hoist", &["-passes=gvn-hoist"]),
    ("gvn-sink", &["-passes=gvn-sink"]),
    ("loop-rotate", &["-passes=loop(loop-rotate)"]),
    (
        "simple-loop-unswitch",
        &["-passes=loop-mssa(simple-loop-unswitch<nontrivial>)"],
    ),
    ("instcombine", &["-passes=instcombine"]),
    ("inline", &["-passes=inline"]),
    ("structurizecfg", &["-passes=structurizecfg"]),
    ("O3", &["-O3"]),
];

#[derive(Default, Clone)]
struct Row {
    programs: u64,
    checked: u64,
    changed: u64,
    violations: u64,
    /// Violations classified as a known LLVM miscompile (docs/llvm-differences.md).
    known: u64,
    opt_failed: u64,
    skipped_runs: u64,
}

/// Known LLVM miscompiles (each written up with a minimal pair in docs/llvm-differences.md):
/// - "merged call sites" (entry 5): some callee has fewer (but still some) call sites in AFTER than
///   in BEFORE, and threads that executed different call sites in BEFORE communicate at one in
///   AFTER (gvn-sink sinks the convergent calls of both arms of a divergent branch into the join;
///   the operation reported may be inside the merged callee).
fn classify(before: &str, after: &str, o: &converge_check::Outcome) -> Option<&'static str> {
    let c = o.counterexample.as_ref()?;
    let m = &c.mismatch;
    let calls = |t: &str| {
        let mut n: HashMap<String, usize> = HashMap::new();
        for line in t.lines().filter(|l| l.contains("call ")) {
            if let Some(at) = line.find(" @") {
                let name: String = line[at + 2..]
                    .chars()
                    .take_while(|&ch| ch != '(' && ch != ' ')
                    .collect();
                *n.entry(name).or_default() += 1;
            }
        }
        n
    };
    let (b, a) = (calls(before), calls(after));
    let fewer = b
        .iter()
        .any(|(name, &nb)| a.get(name).is_some_and(|&na| na >= 1 && na < nb));
    let merged = m.kind == converge_check::MismatchKind::Set
        && m.detail.contains("different dynamic instances")
        && fewer;
    merged.then_some("merged call sites")
}

fn slug(name: &str) -> String {
    name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
}

fn env_num(k: &str, d: u64) -> u64 {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}

fn settings() -> Settings {
    Settings {
        threads: 4,
        seed: 1,
        time_limit: Duration::from_secs(10),
        max_executions: 32,
        enumeration_cap: 64,
        step_limit: 20_000,
        target: None,
        all_hierarchies: true,
    }
}

#[test]
fn llvm_passes_keep_communicating_sets() {
    let o19 = reference::opt19("llvm_passes");
    let o22 = reference::opt22("llvm_passes");
    let (Some(o19), Some(o22)) = (o19, o22) else {
        return;
    };
    let big = std::env::var("CONVERGE_CHECK_PROGRAMS").is_ok();
    let programs = env_num("CONVERGE_CHECK_PROGRAMS", 3);
    let jobs = env_num("CONVERGE_CHECK_JOBS", 1).max(1) as usize;
    let seed0 = env_num("CONVERGE_CHECK_SEED", 0);
    let out_dir = std::env::var("CONVERGE_CHECK_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|_| reference::repo_root().join("target/check-transform"));
    // `CONVERGE_CHECK_PASSES=inline,O3`: only these passes (names as in the table).
    let only: Option<Vec<String>> = std::env::var("CONVERGE_CHECK_PASSES")
        .ok()
        .map(|v| v.split(',').map(|x| x.trim().to_string()).collect());
    // Work items: (version, pass, program index).
    let mut items = Vec::new();
    for v in [19u32, 22] {
        for (p, (name, _)) in PASSES.iter().enumerate() {
            if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == name)) {
                continue;
            }
            for k in 0..programs {
                items.push((v, p, k));
            }
        }
    }
    let rows = Mutex::new(vec![vec![Row::default(); PASSES.len()]; 2]);
    let failures = Mutex::new(Vec::<String>::new());
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                loop {
                    let w = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(v, p, k)) = items.get(w) else {
                        break;
                    };
                    if big && w > 0 && w.is_multiple_of(500) {
                        eprintln!("progress: {w} of {} pairs", items.len());
                    }
                    let (opt, target) = if v == 19 {
                        (&o19, GpuTarget::Amdgpu)
                    } else {
                        (&o22, GpuTarget::Nvptx)
                    };
                    let seed = seed0 + k * 7919 + p as u64 * 104_729 + v as u64;
                    let opts = ConvergentOptions {
                        target,
                        tokens: k % 2 == 1,
                        max_stmts: 2 + (k % 3) as usize / 2,
                        max_depth: 2,
                    };
                    let text = convergent_kernel(seed, &opts);
                    let (name, args) = PASSES[p];
                    let vi = (v == 22) as usize;
                    rows.lock().unwrap()[vi][p].programs += 1;
                    // BEFORE as opt prints it (the same printer as AFTER's).
                    let before = run_opt(opt, &["-S", "-passes=verify"], &text);
                    let mut a = vec!["-S"];
                    a.extend_from_slice(args);
                    let after = run_opt(opt, &a, &text);
                    if !before.success || !after.success {
                        let dir = out_dir.join(format!("opt{v}-failed-{}-{seed}", slug(name)));
                        let _ = std::fs::create_dir_all(&dir);
                        let _ = std::fs::write(dir.join("input.ll"), &text);
                        let _ = std::fs::write(dir.join("stderr.txt"), &after.stderr);
                        let mut r = rows.lock().unwrap();
                        r[vi][p].opt_failed += 1;
                        if !before.success {
                            failures.lock().unwrap().push(format!(
                                "generated program (seed {seed}) rejected by opt {v}: {}",
                                before.stderr
                            ));
                        }
                        continue;
                    }
                    let parse = |t: &str, n: &str| {
                        converge_ir::parse_rendered_with(n, t.to_string(), Some(false))
                    };
                    let (bm, am) = match (
                        parse(&before.stdout, "before.ll"),
                        parse(&after.stdout, "after.ll"),
                    ) {
                        (Ok(b), Ok(a)) => (b, a),
                        (Err(e), _) | (_, Err(e)) => {
                            failures
                                .lock()
                                .unwrap()
                                .push(format!("{name} (LLVM {v}, seed {seed}): unreadable: {e}"));
                            continue;
                        }
                    };
                    let outcome =
                        match check(&bm, &am, Some("k"), ("before.ll", "after.ll"), &settings()) {
                            Ok(o) => o,
                            Err(e) => {
                                failures
                                    .lock()
                                    .unwrap()
                                    .push(format!("{name} (LLVM {v}, seed {seed}): {}", e.0));
                                continue;
                            }
                        };
                    let mut r = rows.lock().unwrap();
                    let row = &mut r[vi][p];
                    row.checked += 1;
                    row.changed += (before.stdout != after.stdout) as u64;
                    row.skipped_runs +=
                        outcome.stats.skipped_after_error + outcome.stats.skipped_inconclusive;
                    if outcome.verdict == Verdict::Violation {
                        row.violations += 1;
                        let known = classify(&before.stdout, &after.stdout, &outcome);
                        row.known += known.is_some() as u64;
                        drop(r);
                        let dir = out_dir.join(format!(
                            "{}llvm{v}-{}-{seed}",
                            if known.is_some() { "known-" } else { "" },
                            slug(name)
                        ));
                        let _ = std::fs::create_dir_all(&dir);
                        let _ = std::fs::write(dir.join("before.ll"), &before.stdout);
                        let _ = std::fs::write(dir.join("after.ll"), &after.stdout);
                        let report = converge_report::reports::check_transform::text(&outcome);
                        let _ = std::fs::write(dir.join("report.txt"), &report);
                        if known.is_some() {
                            continue;
                        }
                        failures.lock().unwrap().push(format!(
                            "{name} (LLVM {v}, seed {seed}): violation, pair in {}\n{report}",
                            dir.display()
                        ));
                    }
                }
            });
        }
    });
    let rows = rows.into_inner().unwrap();
    let mut table = String::from(
        "| pass | LLVM | programs | pairs checked | changed by the pass | violations | of which known LLVM miscompiles | opt failed | AFTER runs not compared |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut total = Row::default();
    for (vi, v) in [19, 22].iter().enumerate() {
        for (p, (name, _)) in PASSES.iter().enumerate() {
            let r = &rows[vi][p];
            table.push_str(&format!(
                "| `{name}` | {v} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.programs,
                r.checked,
                r.changed,
                r.violations,
                r.known,
                r.opt_failed,
                r.skipped_runs
            ));
            total.programs += r.programs;
            total.checked += r.checked;
            total.changed += r.changed;
            total.violations += r.violations;
            total.known += r.known;
            total.opt_failed += r.opt_failed;
            total.skipped_runs += r.skipped_runs;
        }
    }
    table.push_str(&format!(
        "| all | | {} | {} | {} | {} | {} | {} | {} |\n",
        total.programs,
        total.checked,
        total.changed,
        total.violations,
        total.known,
        total.opt_failed,
        total.skipped_runs
    ));
    println!("{table}");
    println!(
        "AFTER runs not compared: a thread stopped on an error only in AFTER, or a run of either \
         program did not show its classes exactly (see converge_check::observe)"
    );
    if big && let Ok(path) = std::env::var("CONVERGE_CHECK_REPORT") {
        let _ = std::fs::write(path, &table);
    }
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} problem(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(total.checked > 0, "no pair was checked");
}

/// The minimal reproducer of the known miscompile: LLVM 19's and 22's gvn-sink, live, and the
/// checker's verdict on the pair (docs/llvm-differences.md, "gvn-sink merges convergent calls").
#[test]
fn gvn_sink_merges_convergent_calls_of_a_divergent_branch() {
    let (Some(o19), Some(o22)) = (
        reference::opt19("gvn_sink_merges_convergent_calls"),
        reference::opt22("gvn_sink_merges_convergent_calls"),
    ) else {
        return;
    };
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/llvm/gvn_sink_divergent.ll");
    let text = std::fs::read_to_string(&path).unwrap();
    for (v, opt) in [(19, &o19), (22, &o22)] {
        let before = run_opt(opt, &["-S", "-passes=verify"], &text);
        let after = run_opt(opt, &["-S", "-passes=gvn-sink"], &text);
        assert!(before.success && after.success, "{}", after.stderr);
        assert_eq!(
            after.stdout.matches("call i32 @subgroupAdd(").count(),
            1,
            "LLVM {v} no longer merges the calls:\n{}",
            after.stdout
        );
        let parse =
            |t: &str| converge_ir::parse_rendered_with("x.ll", t.to_string(), Some(false)).unwrap();
        let o = check(
            &parse(&before.stdout),
            &parse(&after.stdout),
            Some("k"),
            ("before.ll", "after.ll"),
            &Settings::default(),
        )
        .unwrap();
        assert_eq!(o.verdict, Verdict::Violation, "LLVM {v}");
        let c = o.counterexample.unwrap();
        assert_eq!(c.threads, 2);
        assert_eq!(c.mismatch.after_set, vec![0, 1]);
        assert_eq!(c.mismatch.before_set, Some(vec![0]));
    }
}

/// LLVM 19's gvn merges a block that starts with a loop heart (left outside any cycle by full
/// unrolling) into its predecessor, after a convergent call: the output breaks the static token
/// rules, which LLVM 19's own verifier reports and check-transform reports too (exit 1 with the
/// verify diagnostic). LLVM 22 keeps the block (docs/llvm-differences.md, entry 6).
#[test]
fn gvn19_merges_a_heart_block_after_a_convergent_call() {
    let (Some(o19), Some(o22)) = (
        reference::opt19("gvn19_merges_a_heart_block"),
        reference::opt22("gvn19_merges_a_heart_block"),
    ) else {
        return;
    };
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/llvm/gvn19_heart_block_merge.ll");
    let text = std::fs::read_to_string(&path).unwrap();
    let parse =
        |t: &str| converge_ir::parse_rendered_with("x.ll", t.to_string(), Some(false)).unwrap();
    let before = parse(&text);
    let checked = run_opt(&o19, &["-S", "-passes=gvn"], &text);
    assert!(!checked.success, "LLVM 19's gvn output now verifies");
    assert!(
        checked
            .stderr
            .contains("Loop intrinsic cannot be preceded by a convergent operation")
    );
    let after19 = run_opt(&o19, &["-S", "-passes=gvn", "-disable-verify"], &text);
    let o = check(
        &before,
        &parse(&after19.stdout),
        Some("k"),
        ("b", "a"),
        &Settings::default(),
    )
    .unwrap();
    assert_eq!(o.verdict, Verdict::Violation);
    assert!(
        o.token_errors.iter().any(|e| e.contains("T-loop-first")),
        "{:?}",
        o.token_errors
    );
    let after22 = run_opt(&o22, &["-S", "-passes=gvn"], &text);
    assert!(after22.success, "{}", after22.stderr);
    let o = check(
        &before,
        &parse(&after22.stdout),
        Some("k"),
        ("b", "a"),
        &Settings::default(),
    )
    .unwrap();
    assert_eq!(
        o.verdict,
        Verdict::Refines,
        "{}",
        converge_report::reports::check_transform::text(&o)
    );
}

/// The same merge after an anchor: LLVM 19 and 22 alike (docs/llvm-differences.md, entry 6).
#[test]
fn gvn_merges_a_heart_block_after_an_anchor() {
    let (Some(o19), Some(o22)) = (
        reference::opt19("gvn_merges_a_heart_block_after_an_anchor"),
        reference::opt22("gvn_merges_a_heart_block_after_an_anchor"),
    ) else {
        return;
    };
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/llvm/gvn_heart_block_merge_anchor.ll");
    let text = std::fs::read_to_string(&path).unwrap();
    let parse =
        |t: &str| converge_ir::parse_rendered_with("x.ll", t.to_string(), Some(false)).unwrap();
    for (v, opt) in [(19, &o19), (22, &o22)] {
        let verified = run_opt(opt, &["-S", "-passes=gvn"], &text);
        assert!(!verified.success, "LLVM {v}'s gvn output now verifies");
        let after = run_opt(opt, &["-S", "-passes=gvn", "-disable-verify"], &text);
        let o = check(
            &parse(&text),
            &parse(&after.stdout),
            Some("k"),
            ("b", "a"),
            &Settings::default(),
        )
        .unwrap();
        assert_eq!(o.verdict, Verdict::Violation, "LLVM {v}");
        assert!(
            o.token_errors.iter().any(|e| e.contains("T-loop-first")),
            "{:?}",
            o.token_errors
        );
    }
}
