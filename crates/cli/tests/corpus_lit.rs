//! Conformance: LLVM's own lit tests for cycles, uniformity and convergence tokens, run with
//! `converge` in place of `opt`/`llvm-as` (see `common/lit.rs` for the translation) and checked
//! with LLVM 19's FileCheck.
//!
//! Every corpus file gets a verdict (PASS, FAIL with the reason, OUT-OF-SCOPE for transformation
//! tests, UNSUPPORTED for RUN lines the runner cannot interpret). The table goes to
//! `build/corpus-status.md`, one log per file (commands, converge's output, FileCheck's report) to
//! `build/corpus-logs/`, and a summary to stdout (`cargo test --release -p converge-cli --test
//! corpus_lit -- --nocapture`). `CORPUS_FILTER=phi_div` runs only the files whose name contains
//! the text and prints their logs.
//!
//! Next to converge, the same RUN lines run with LLVM 19 itself, live: as written with the corpus
//! README's triple rewrite, and again with 19's `ASSSUMED` spelling replaced by the `ASSUMED` that
//! LLVM 22 prints. The files that pass the latter are the target of issue 4 (every test LLVM 19
//! passes, plus those that fail on 19 only for the spelling). Files without AMDGPU also run with
//! LLVM 22 as written (its build here has no AMDGPU target), the reference where 19 and 22 differ.
//!
//! The test fails when a file of `EXPECTED_PASS` does not pass. It needs the converge binary
//! (`CONVERGE_BIN`, or the one cargo builds for this test run; scripts/test.sh builds it first),
//! FileCheck and the corpus; without them it says SKIPPED (a failure in CI).

mod common;

use common::lit::{self, LineStatus, Mode, Subst, Tools, Verdict};
use common::printed;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Corpus files (relative to the corpus's `test/`) that converge must pass. Only files seen
/// passing in a real run belong here (40 of 62 on 2026-11-22); docs/corpus-status.md explains
/// the rest and names the target list (all 29 of its files are here).
const EXPECTED_PASS: &[&str] = &[
    "Analysis/UniformityAnalysis/AMDGPU/always_uniform.ll",
    "Analysis/UniformityAnalysis/AMDGPU/alwaysuniform_function_attribute.ll",
    "Analysis/UniformityAnalysis/AMDGPU/atomics.ll",
    "Analysis/UniformityAnalysis/AMDGPU/b42473-r1-crash.ll",
    "Analysis/UniformityAnalysis/AMDGPU/branch-after-join.ll",
    "Analysis/UniformityAnalysis/AMDGPU/callbr.ll",
    "Analysis/UniformityAnalysis/AMDGPU/control-flow-intrinsics.ll",
    "Analysis/UniformityAnalysis/AMDGPU/divergent-cycle-exit-join.ll",
    "Analysis/UniformityAnalysis/AMDGPU/divergent-cycle-exit-phi.ll",
    "Analysis/UniformityAnalysis/AMDGPU/hidden_diverge.ll",
    "Analysis/UniformityAnalysis/AMDGPU/hidden_loopdiverge.ll",
    "Analysis/UniformityAnalysis/AMDGPU/incorrect-assertion-issue-170048.ll",
    "Analysis/UniformityAnalysis/AMDGPU/inline-asm.ll",
    "Analysis/UniformityAnalysis/AMDGPU/interp_f16.ll",
    "Analysis/UniformityAnalysis/AMDGPU/irreducible/hidden-post-dom.ll",
    "Analysis/UniformityAnalysis/AMDGPU/irreducible/irreducible-1.ll",
    "Analysis/UniformityAnalysis/AMDGPU/irreducible/irreducible-2.ll",
    "Analysis/UniformityAnalysis/AMDGPU/irreducible/reducible-subgraph.ll",
    "Analysis/UniformityAnalysis/AMDGPU/join-at-loop-exit.ll",
    "Analysis/UniformityAnalysis/AMDGPU/join-at-loop-heart.ll",
    "Analysis/UniformityAnalysis/AMDGPU/kernel-args.ll",
    "Analysis/UniformityAnalysis/AMDGPU/no-return-blocks.ll",
    "Analysis/UniformityAnalysis/AMDGPU/nodivergencesource-divergent-arg.ll",
    "Analysis/UniformityAnalysis/AMDGPU/nodivergencesource.ll",
    "Analysis/UniformityAnalysis/AMDGPU/phi-undef.ll",
    "Analysis/UniformityAnalysis/AMDGPU/phi_div_branch.ll",
    "Analysis/UniformityAnalysis/AMDGPU/phi_div_loop.ll",
    "Analysis/UniformityAnalysis/AMDGPU/propagate-loop-live-out.ll",
    "Analysis/UniformityAnalysis/AMDGPU/rts_swc_diverge.ll",
    "Analysis/UniformityAnalysis/AMDGPU/temporal_diverge.ll",
    "Analysis/UniformityAnalysis/AMDGPU/trivial-join-at-loop-exit.ll",
    "Analysis/UniformityAnalysis/AMDGPU/unreachable-loop-block.ll",
    "Analysis/UniformityAnalysis/AMDGPU/unstructured-branch.ll",
    "Analysis/UniformityAnalysis/AMDGPU/vgpr-address-space-load.ll",
    "Analysis/UniformityAnalysis/AMDGPU/workitem-intrinsics.ll",
    "Analysis/UniformityAnalysis/NVPTX/daorder.ll",
    "Analysis/UniformityAnalysis/NVPTX/diverge.ll",
    "Analysis/UniformityAnalysis/NVPTX/hidden_diverge.ll",
    "Analysis/UniformityAnalysis/NVPTX/irreducible.ll",
    "Verifier/convergencectrl-invalid.ll",
];

/// Corpus files that fail in the default mode (LLVM 22) and pass in another documented mode of
/// converge, with that mode: `llvm main` (`--llvm-version main`: LLVM's development branch, whose
/// newer lit tests expect its target-model refinements and cycle print order), `precise`
/// (`--mode precise` on `uniformity`: LLVM main's phi refinement is precise mode's rule P5) or
/// `llvm 19` (`--llvm-version 19`: old tests that check 19's `ASSSUMED` spelling).
/// docs/corpus-status.md explains each; the files in no list say there why they cannot pass.
const EXPECTED_PASS_IN_MODE: &[(&str, &str)] = &[
    ("Analysis/CycleInfo/basic.ll", "llvm main"),
    ("Analysis/CycleInfo/unreachable-predecessor.ll", "llvm main"),
    (
        "Analysis/UniformityAnalysis/AMDGPU/addrspacecast.ll",
        "llvm main",
    ),
    (
        "Analysis/UniformityAnalysis/AMDGPU/irreducible/branch-outside.ll",
        "llvm main",
    ),
    (
        "Analysis/UniformityAnalysis/AMDGPU/irreducible/diverged-entry-basic.ll",
        "llvm main",
    ),
    (
        "Analysis/UniformityAnalysis/AMDGPU/irreducible/diverged-entry-headers.ll",
        "llvm main",
    ),
    (
        "Analysis/UniformityAnalysis/AMDGPU/irreducible/exit-divergence.ll",
        "llvm main",
    ),
    (
        "Analysis/UniformityAnalysis/AMDGPU/irreducible/reducible-headers.ll",
        "llvm main",
    ),
    (
        "Analysis/UniformityAnalysis/AMDGPU/phi_no_divergence.ll",
        "precise",
    ),
    (
        "Analysis/UniformityAnalysis/AMDGPU/uniform_intrinsic.ll",
        "llvm main",
    ),
    (
        "Analysis/UniformityAnalysis/AMDGPU/workitem-expr.ll",
        "llvm main",
    ),
    (
        "Analysis/UniformityAnalysis/NVPTX/alloca-tid-load.ll",
        "llvm main",
    ),
    (
        "Analysis/UniformityAnalysis/NVPTX/generic-load-divergence.ll",
        "llvm main",
    ),
];

/// Uniformity files whose divergent sets may differ from those of the LLVM that reads them
/// (`compare_with_llvm`), or that no LLVM here reads, with the reason. Every other uniformity file
/// must give exactly LLVM's divergent arguments, definitions, terminators and cycle lists; an
/// entry that no longer differs must be removed. The files no LLVM here reads are checked by
/// their own CHECK lines (they pass, see `EXPECTED_PASS`) and by the soundness oracle
/// (`crates/oracle/tests/oracle_real_code.rs`). Paths under `Analysis/UniformityAnalysis/`.
const SET_EXCEPTIONS: &[(&str, &str)] = &[
    (
        "AMDGPU/always_uniform.ll",
        "llvm.amdgcn.s.mov.from.global / s.swap.to.global: always uniform in newer LLVM (the file's CHECKs); LLVM 19 calls them divergent",
    ),
    (
        "AMDGPU/vgpr-address-space-load.ll",
        "loads from addrspace(13) (VGPR) are divergent in newer LLVM (the file's CHECKs); LLVM 19 does not know the address space",
    ),
    (
        "AMDGPU/alwaysuniform_function_attribute.ll",
        "no LLVM here reads it: `alwaysuniform` is unknown to 19 (parse error), 22 has no AMDGPU",
    ),
    (
        "AMDGPU/callbr.ll",
        "no LLVM here reads it: LLVM 19's verifier rejects callbr to an intrinsic, 22 has no AMDGPU",
    ),
    (
        "AMDGPU/intrinsics.ll",
        "no LLVM here reads it: gfx950 intrinsics undeclared (19's parser does not auto-declare), 22 has no AMDGPU",
    ),
    (
        "AMDGPU/join-at-loop-heart.ll",
        "no LLVM here reads it: LLVM 19's verifier rejects the heart placement, 22 has no AMDGPU",
    ),
    (
        "AMDGPU/nodivergencesource-divergent-arg.ll",
        "no LLVM here reads it: `nodivergencesource` is unknown to 19 (parse error), 22 has no AMDGPU",
    ),
    (
        "AMDGPU/nodivergencesource.ll",
        "no LLVM here reads it: `nodivergencesource` is unknown to 19 (parse error), 22 has no AMDGPU",
    ),
    (
        "AMDGPU/rts_swc_diverge.ll",
        "no LLVM here reads it: rts.*/swc.* intrinsics unknown to 19 (parse error), 22 has no AMDGPU",
    ),
];

/// Per-process time limit: a hang is reported as a failure of that file.
const LIMIT: Duration = Duration::from_secs(60);

struct FileResult {
    name: String,
    converge: Verdict,
    llvm19: Option<Verdict>,
    llvm19_spelling: Option<Verdict>,
    /// `None` when LLVM 22 is missing or the file needs the AMDGPU target it lacks.
    llvm22: Option<Verdict>,
    /// What the translation dropped or emulated (the `note:` lines of the converge log).
    notes: Vec<String>,
    /// For uniformity tests: converge's answer against LLVM's on the same input.
    semantics: String,
    /// The first mode that passes: `llvm` (the default), `llvm main`, `precise`, or empty.
    passing_mode: &'static str,
}

fn collect_ll(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ll") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn run_file(path: &Path, name: &str, tools: &Tools, logs: &Path, tmp: &Path) -> FileResult {
    let source = std::fs::read_to_string(path).unwrap_or_default();
    let rls = lit::run_lines(&source);
    let flat = name.replace('/', "__");
    let subst = Subst {
        source: path.to_path_buf(),
        temp: tmp.join(format!("{flat}.tmp")),
    };
    let mut log = format!("# {name}\n\n## converge\n");
    let run_mode = |mode: Mode, log: &mut String| -> Verdict {
        let mut statuses: Vec<(usize, LineStatus)> = Vec::new();
        for rl in &rls {
            let r = lit::run_line(rl, &subst, mode, tools);
            log.push_str(&r.log);
            statuses.push((rl.line, r.status));
        }
        lit::verdict(&statuses)
    };
    let converge = run_mode(Mode::Converge, &mut log);
    let mut passing_mode = if converge == Verdict::Pass {
        "llvm"
    } else {
        ""
    };
    if matches!(converge, Verdict::Fail(_)) {
        for (mode, label) in [
            (Mode::ConvergeMain, "llvm main"),
            (Mode::ConvergePrecise, "precise"),
            (Mode::Converge19, "llvm 19"),
        ] {
            log.push_str(&format!("\n## converge, {label} mode\n"));
            if run_mode(mode, &mut log) == Verdict::Pass {
                passing_mode = label;
                break;
            }
        }
    }
    let mut notes: Vec<String> = Vec::new();
    for l in log.lines() {
        if let Some(n) = l.trim_start().strip_prefix("note: ")
            && !notes.iter().any(|x| x == n)
        {
            notes.push(n.to_string());
        }
    }
    let (llvm19, llvm19_spelling) = if tools.opt19.is_some() {
        log.push_str("\n## LLVM 19 (triple rewrite)\n");
        let a = run_mode(Mode::Llvm19, &mut log);
        log.push_str("\n## LLVM 19 (triple rewrite, ASSSUMED -> ASSUMED)\n");
        let b = run_mode(Mode::Llvm19Spelling, &mut log);
        (Some(a), Some(b))
    } else {
        (None, None)
    };
    let amdgpu = source.contains("amdgcn") || source.contains("amdgpu") || name.contains("AMDGPU");
    let llvm22 = if tools.opt22.is_some() && !amdgpu {
        log.push_str("\n## LLVM 22\n");
        Some(run_mode(Mode::Llvm22, &mut log))
    } else {
        None
    };
    let semantics = compare_with_llvm(&rls, &subst, tools, amdgpu, &mut log);
    let _ = std::fs::write(logs.join(format!("{flat}.log")), log);
    FileResult {
        name: name.to_string(),
        converge,
        llvm19,
        llvm19_spelling,
        llvm22,
        notes,
        semantics,
        passing_mode,
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn short(v: &Option<Verdict>) -> &'static str {
    match v {
        None => "n/a",
        Some(v) => v.label(),
    }
}

/// Tells a printing difference from a different answer: on the first `print<uniformity>` RUN
/// line, compares converge's divergent arguments, definitions and terminators, cycle lists and
/// (against LLVM 22) temporal divergence with LLVM's own report on the same input and target:
/// LLVM 22 where it can (no AMDGPU), else LLVM 19 with the triple rewrite.
fn compare_with_llvm(
    rls: &[lit::RunLine],
    subst: &Subst,
    tools: &Tools,
    amdgpu: bool,
    log: &mut String,
) -> String {
    let Some((stage, call)) = rls.iter().find_map(|rl| {
        let p = lit::parse(&rl.text, subst).ok()?;
        let st = p.first()?.first()?.clone();
        let cs = lit::translate(&st).ok()?;
        let call = cs.calls.into_iter().find(|c| c[0] == "uniformity")?;
        Some((st, call))
    }) else {
        return String::new();
    };
    let (ver, opt, opts) = match (&tools.opt22, &tools.opt19) {
        (Some(o22), _) if !amdgpu => ("LLVM 22", o22, lit::target_options(&stage.argv)),
        (_, Some(o19)) => (
            "LLVM 19",
            o19,
            lit::rewrite_triples_for_19(&lit::target_options(&stage.argv)),
        ),
        _ => return String::new(),
    };
    let input = call.last().expect("input file").clone();
    let mut cmd = std::process::Command::new(&tools.converge);
    cmd.args(&call);
    if ver == "LLVM 19" {
        // Compare like with like: where 19 and 22 differ (issue 137277's joins), converge's
        // default answer is 22's, which would show as a spurious difference here.
        cmd.args(["--llvm-version", "19"]);
    }
    let ours = common::run(cmd, b"", LIMIT);
    let mut cmd = std::process::Command::new(opt);
    cmd.args(&opts)
        .args(["-passes=print<uniformity>", "-disable-output"])
        .arg(&input);
    let theirs = common::run(cmd, b"", LIMIT);
    log.push_str(&format!(
        "\n## converge vs {ver} (divergent sets, cycle lists)\n  {} {}\n",
        opts.join(" "),
        input
    ));
    if !ours.success() {
        return format!("converge {}", ours.describe_end());
    }
    if !theirs.success() {
        return format!("{ver} rejects the file");
    }
    let d = printed::diff(
        &printed::parse_uniformity(&ours.stdout_str()),
        &printed::parse_uniformity(&theirs.stderr_str()),
        ver == "LLVM 22",
    );
    for x in &d {
        log.push_str(&format!("  {x}\n"));
    }
    if d.is_empty() {
        format!("same as {ver}")
    } else {
        format!("differs from {ver} ({} places)", d.len())
    }
}

fn reason_and_notes(r: &FileResult) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !r.converge.reason().is_empty() {
        parts.push(r.converge.reason().to_string());
    }
    parts.extend(r.notes.iter().map(|n| format!("note: {n}")));
    parts.join("; ")
}

fn is_target(r: &FileResult) -> bool {
    r.llvm19_spelling == Some(Verdict::Pass)
}

#[test]
fn corpus_lit() {
    let Some(corpus) = converge_gen::reference::corpus("corpus_lit") else {
        return;
    };
    let Some(filecheck) = converge_gen::reference::filecheck("corpus_lit") else {
        return;
    };
    let opt19 = converge_gen::reference::opt19("corpus_lit (LLVM 19 baseline column)");
    let opt22 = converge_gen::reference::opt22("corpus_lit (LLVM 22 column)");
    let tools = Tools {
        converge: common::converge_bin(),
        filecheck,
        opt19,
        opt22,
        limit: LIMIT,
    };
    let test_root = corpus.join("test");
    let files = collect_ll(&test_root);
    assert!(
        !files.is_empty(),
        "no .ll files under {}",
        test_root.display()
    );
    let build = converge_gen::reference::repo_root().join("build");
    let logs = build.join("corpus-logs");
    let tmp = build.join("corpus-tmp");
    std::fs::create_dir_all(&logs).expect("create build/corpus-logs");
    std::fs::create_dir_all(&tmp).expect("create build/corpus-tmp");

    let names: Vec<String> = files
        .iter()
        .map(|p| {
            p.strip_prefix(&test_root)
                .unwrap_or(p)
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    let known: BTreeSet<&str> = names.iter().map(|s| s.as_str()).collect();
    for e in EXPECTED_PASS
        .iter()
        .chain(EXPECTED_PASS_IN_MODE.iter().map(|(f, _)| f))
    {
        assert!(
            known.contains(e),
            "EXPECTED_PASS(_IN_MODE) names {e}, which is not in the corpus"
        );
    }
    // CORPUS_FILTER=text runs only the files whose name contains it and prints their logs (for
    // working on one test); the table is then not rewritten.
    let filter = std::env::var("CORPUS_FILTER")
        .ok()
        .filter(|f| !f.is_empty());
    let (files, names): (Vec<PathBuf>, Vec<String>) = files
        .into_iter()
        .zip(names.iter().cloned())
        .filter(|(_, n)| filter.as_ref().is_none_or(|f| n.contains(f.as_str())))
        .unzip();

    // Two workers: the machine is shared, and each file runs a few short processes.
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<FileResult>>> =
        Mutex::new((0..files.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= files.len() {
                        break;
                    }
                    let r = run_file(&files[i], &names[i], &tools, &logs, &tmp);
                    results.lock().unwrap()[i] = Some(r);
                }
            });
        }
    });
    let results: Vec<FileResult> = results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every file ran"))
        .collect();

    // The table.
    let expected: BTreeSet<&str> = EXPECTED_PASS.iter().copied().collect();
    let mut md = String::new();
    md.push_str("# Corpus status (generated by `cargo test --release -p converge-cli --test corpus_lit`)\n\n");
    md.push_str(&format!(
        "converge: `{}`; logs per file in `build/corpus-logs/`.\n\n",
        tools.converge.display()
    ));
    md.push_str("Columns: converge's verdict and reason; converge vs LLVM = its divergent sets and cycle lists against LLVM's own report on the same input (LLVM 22 without AMDGPU, else 19; so a FAIL with `same as` is a printing difference or a test expecting a newer LLVM); LLVM 19 run live on the same RUN lines (new-style AMDGPU triples rewritten), then again with `ASSSUMED` read as `ASSUMED`; LLVM 22 as written (n/a: AMDGPU, which that build lacks); target = passes with 19 + spelling (issue 4); expected = listed in `EXPECTED_PASS`.\n\n");
    md.push_str(
        "| file | converge | passes in mode | reason | converge vs LLVM | LLVM 19 | 19 + spelling | LLVM 22 | target | expected |\n",
    );
    md.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
    for r in &results {
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.name,
            r.converge.label(),
            r.passing_mode,
            cell(&reason_and_notes(r)),
            r.semantics,
            short(&r.llvm19),
            short(&r.llvm19_spelling),
            short(&r.llvm22),
            if is_target(r) { "yes" } else { "" },
            if expected.contains(r.name.as_str()) {
                "yes"
            } else {
                ""
            },
        ));
    }
    let count = |f: &dyn Fn(&FileResult) -> bool| results.iter().filter(|r| f(r)).count();
    let pass = count(&|r| r.converge == Verdict::Pass);
    let fail = count(&|r| matches!(r.converge, Verdict::Fail(_)));
    let oos = count(&|r| matches!(r.converge, Verdict::OutOfScope(_)));
    let unsup = count(&|r| matches!(r.converge, Verdict::Unsupported(_)));
    let targets = count(&|r| is_target(r));
    let target_pass = count(&|r| is_target(r) && r.converge == Verdict::Pass);
    let in_main = count(&|r| r.passing_mode == "llvm main");
    let in_precise = count(&|r| r.passing_mode == "precise");
    let in_19 = count(&|r| r.passing_mode == "llvm 19");
    let summary = format!(
        "corpus: {} files: {pass} PASS, {fail} FAIL, {oos} OUT-OF-SCOPE, {unsup} UNSUPPORTED; \
         of the failures {in_main} pass with --llvm-version main, {in_precise} with --mode precise, {in_19} with --llvm-version 19; \
         target (LLVM 19 passes, 22 spelling): {target_pass}/{targets} pass; expected-pass list: {}",
        results.len(),
        EXPECTED_PASS.len()
    );
    md.push_str(&format!("\n{summary}\n"));
    println!("{summary}");
    if let Some(f) = &filter {
        println!(
            "CORPUS_FILTER={f}: {} files; table not written",
            results.len()
        );
        for r in &results {
            let log = logs.join(format!("{}.log", r.name.replace('/', "__")));
            println!("{}", std::fs::read_to_string(log).unwrap_or_default());
        }
    } else {
        let _ = std::fs::write(build.join("corpus-status.md"), &md);
        println!("table: {}", build.join("corpus-status.md").display());
    }
    for r in &results {
        println!(
            "  {:<13} {:<72} {}",
            r.converge.label(),
            r.name,
            r.converge.reason()
        );
    }
    let newly: Vec<&str> = results
        .iter()
        .filter(|r| r.converge == Verdict::Pass && !expected.contains(r.name.as_str()))
        .map(|r| r.name.as_str())
        .collect();
    if !newly.is_empty() {
        println!(
            "passing but not in EXPECTED_PASS (add them): {}",
            newly.join(", ")
        );
    }
    let regressions: Vec<String> = results
        .iter()
        .filter(|r| expected.contains(r.name.as_str()) && r.converge != Verdict::Pass)
        .map(|r| {
            format!(
                "{}: {} {} (log: build/corpus-logs/{}.log)",
                r.name,
                r.converge.label(),
                r.converge.reason(),
                r.name.replace('/', "__")
            )
        })
        .collect();
    assert!(
        regressions.is_empty(),
        "corpus files expected to pass do not:\n{}",
        regressions.join("\n")
    );
    let in_modes: Vec<String> = EXPECTED_PASS_IN_MODE
        .iter()
        .filter_map(|&(f, m)| {
            let r = results.iter().find(|r| r.name == f)?;
            (r.passing_mode != m).then(|| {
                format!(
                    "{f}: expected to pass in {m} mode, passes in {:?} (log: build/corpus-logs/{}.log)",
                    r.passing_mode,
                    f.replace('/', "__")
                )
            })
        })
        .collect();
    assert!(
        in_modes.is_empty(),
        "corpus files expected to pass in another mode do not:\n{}",
        in_modes.join("\n")
    );
    // Every file with a RUN line passes in some documented mode, or docs/corpus-status.md says
    // why it cannot: a file that fails in every mode must be named in that document's list of
    // files that pass in no mode (by the path below `Analysis/UniformityAnalysis/`, `Analysis/`
    // or the corpus root, as the list writes it), and every file that list names must still fail.
    if filter.is_none() {
        let doc = std::fs::read_to_string(
            converge_gen::reference::repo_root().join("docs/corpus-status.md"),
        )
        .expect("docs/corpus-status.md");
        let list = no_mode_list(&doc);
        let unexplained: Vec<&str> = results
            .iter()
            .filter(|r| matches!(r.converge, Verdict::Fail(_)) && r.passing_mode.is_empty())
            .map(|r| r.name.as_str())
            .filter(|n| !list.iter().any(|l| n.ends_with(&format!("/{l}"))))
            .collect();
        let passing_now: Vec<&String> = list
            .iter()
            .filter(|l| {
                results
                    .iter()
                    .any(|r| r.name.ends_with(&format!("/{l}")) && !r.passing_mode.is_empty())
            })
            .collect();
        println!(
            "files passing in no mode: {} named in docs/corpus-status.md, {} unexplained",
            list.len(),
            unexplained.len()
        );
        assert!(
            unexplained.is_empty() && passing_now.is_empty() && !list.is_empty(),
            "files that pass in no mode must be explained in docs/corpus-status.md (\"pass in no \
             mode\" list): unexplained {unexplained:?}; listed there but passing now {passing_now:?}"
        );
    }
    // Divergent sets equal to LLVM's on every uniformity file, except the explained ones. Only a
    // full run (no filter) with the reference tools can judge every file.
    if filter.is_none() && tools.opt19.is_some() && tools.opt22.is_some() {
        let excepted = |n: &str| {
            SET_EXCEPTIONS
                .iter()
                .any(|(f, _)| n == format!("Analysis/UniformityAnalysis/{f}"))
        };
        let differing: Vec<String> = results
            .iter()
            .filter(|r| {
                !r.semantics.is_empty() && !r.semantics.starts_with("same as") && !excepted(&r.name)
            })
            .map(|r| format!("{}: {}", r.name, r.semantics))
            .collect();
        let stale: Vec<&str> = SET_EXCEPTIONS
            .iter()
            .map(|(f, _)| *f)
            .filter(|f| {
                results.iter().any(|r| {
                    r.name == format!("Analysis/UniformityAnalysis/{f}")
                        && r.semantics.starts_with("same as")
                })
            })
            .collect();
        println!(
            "divergent sets: {} uniformity files compared with LLVM, {} differ outside SET_EXCEPTIONS, {} exceptions stale",
            results.iter().filter(|r| !r.semantics.is_empty()).count(),
            differing.len(),
            stale.len()
        );
        assert!(
            differing.is_empty() && stale.is_empty(),
            "divergent sets differ from LLVM's (not in SET_EXCEPTIONS):\n{}\nstale exceptions: {stale:?}",
            differing.join("\n")
        );
    }
}

/// The files docs/corpus-status.md says pass in no mode: the backquoted `.ll` names of the bullet
/// list that follows "pass in no mode", up to the next paragraph that is not a bullet or its
/// continuation.
fn no_mode_list(doc: &str) -> Vec<String> {
    let Some(start) = doc.find("pass in no mode") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut in_list = false;
    for line in doc[start..].lines().skip(1) {
        if line.starts_with("- ") {
            in_list = true;
            // The names at the start of the bullet, before its first colon.
            let head = line.split(':').next().unwrap_or("");
            for part in head.split('`').skip(1).step_by(2) {
                if part.ends_with(".ll") {
                    out.push(part.to_string());
                }
            }
        } else if in_list && !line.starts_with("  ") {
            break;
        }
    }
    out
}

#[test]
fn no_mode_list_reads_the_bullets() {
    let doc = "intro. The four that pass in no mode, and why:\n\n- `A/x.ll`, `y.ll`: why, `z.ll`\n  more\n- `w.ll`: old\n\nNext paragraph `v.ll`.\n";
    assert_eq!(no_mode_list(doc), vec!["A/x.ll", "y.ll", "w.ll"]);
}

// The translation rules, checked on RUN lines of the shapes the corpus uses.

fn subst() -> Subst {
    Subst {
        source: PathBuf::from("/c/t.ll"),
        temp: PathBuf::from("/tmp/t.tmp"),
    }
}

fn converge_argv(run: &str) -> Result<Vec<Vec<String>>, lit::Skip> {
    let p = lit::parse(run, &subst()).expect("parses");
    lit::translate(&p[0][0]).map(|c| c.calls)
}

fn v(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

#[test]
fn run_lines_join_continuations_and_ignore_non_run_text() {
    let src = "; RUN: opt -passes='print<cycles>' \\\n; RUN:   -disable-output %s\n; XRUN: nope\n; CHECK: RUN\n;RUN: llvm-as %s\n";
    let rl = lit::run_lines(src);
    assert_eq!(rl.len(), 2, "{rl:?}");
    assert_eq!(rl[0].line, 1);
    assert_eq!(rl[0].text, "opt -passes='print<cycles>' -disable-output %s");
    assert_eq!(rl[1].line, 5);
}

#[test]
fn pipeline_parsing_handles_quotes_not_and_redirections() {
    let p = lit::parse(
        "not llvm-as < %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=A,B",
        &subst(),
    )
    .unwrap();
    assert_eq!(p.len(), 1);
    let [a, b] = p[0].as_slice() else {
        panic!("two stages expected: {p:?}")
    };
    assert_eq!(a.nots, 1);
    assert_eq!(a.argv, v("llvm-as -o /dev/null"));
    assert_eq!(a.stdin_file.as_deref(), Some("/c/t.ll"));
    assert!(a.stderr_to_stdout);
    assert_eq!(b.argv, v("FileCheck /c/t.ll --check-prefixes=A,B"));
    let q = lit::parse("opt \"-passes=print<uniformity>\" %s && opt %s", &subst()).unwrap();
    assert_eq!(q.len(), 2);
    assert_eq!(q[0][0].argv[1], "-passes=print<uniformity>");
    assert!(lit::parse("opt %s || true", &subst()).is_err());
}

#[test]
fn uniformity_run_maps_triples_and_cpus() {
    let base = "uniformity --format llvm";
    let cases = [
        (
            "opt -mtriple amdgcn-- -passes='print<uniformity>' -disable-output %s 2>&1",
            format!("{base} --target amdgpu /c/t.ll"),
        ),
        (
            "opt -mtriple amdgpu9.08-unknown-amdhsa -passes='print<uniformity>' -disable-output %s",
            format!("{base} --target amdgpu --mcpu gfx908 /c/t.ll"),
        ),
        (
            "opt %s -mtriple=amdgpu12.00-- -passes='print<uniformity>' -disable-output",
            format!("{base} --target amdgpu --mcpu gfx1200 /c/t.ll"),
        ),
        (
            "opt -S -mtriple=amdgpu-amd-amdhsa -passes='print<uniformity>' %s",
            format!("{base} --target amdgpu /c/t.ll"),
        ),
        (
            "opt -mtriple=amdgcn-amd-amdhsa -mcpu=gfx1010 --passes=print<uniformity> < %s",
            format!("{base} --target amdgpu --mcpu gfx1010 /c/t.ll"),
        ),
        (
            "opt -mtriple nvptx64-nvidia-cuda -passes='print<uniformity>' %s",
            format!("{base} --target nvptx /c/t.ll"),
        ),
        (
            "opt -mtriple x86_64-- -passes='print<uniformity>' %s",
            format!("{base} --target none /c/t.ll"),
        ),
        (
            "opt %s -passes='print<uniformity>' -disable-output",
            format!("{base} /c/t.ll"),
        ),
    ];
    for (run, want) in cases {
        assert_eq!(converge_argv(run).unwrap(), vec![v(&want)], "{run}");
    }
}

#[test]
fn cycles_verify_and_transforms_are_classified() {
    assert_eq!(
        converge_argv("opt < %s -disable-output -passes='verify<cycles>,print<cycles>'").unwrap(),
        vec![v("cycles --format llvm /c/t.ll")]
    );
    assert_eq!(
        converge_argv("not llvm-as < %s -o /dev/null").unwrap(),
        vec![v("verify --format llvm /c/t.ll")]
    );
    assert_eq!(
        converge_argv("opt -passes=verify -disable-output %s").unwrap(),
        vec![v("verify --format llvm /c/t.ll")]
    );
    for run in [
        "opt %s -passes=adce -S",
        "opt -passes='cgscc(inline)' -S %s",
    ] {
        assert!(
            matches!(converge_argv(run), Err(lit::Skip::OutOfScope(_))),
            "{run}"
        );
    }
    assert!(matches!(
        converge_argv("opt -passes='print<uniformity>' -some-unknown-flag %s"),
        Err(lit::Skip::Unsupported(_))
    ));
}

#[test]
fn llvm19_rewrite_of_new_style_triples() {
    let r = lit::rewrite_triples_for_19(&v("opt -mtriple amdgpu7.00-unknown-amdhsa -passes=x %s"));
    assert_eq!(
        r,
        v("opt -mtriple amdgcn-unknown-amdhsa -mcpu=gfx700 -passes=x %s")
    );
    let r = lit::rewrite_triples_for_19(&v("opt -mtriple=amdgpu-amd-amdhsa %s"));
    assert_eq!(r, v("opt -mtriple=amdgcn-amd-amdhsa %s"));
    let r = lit::rewrite_triples_for_19(&v("opt -mtriple amdgcn-- -mcpu=gfx900 %s"));
    assert_eq!(r, v("opt -mtriple amdgcn-- -mcpu=gfx900 %s"));
}

#[test]
fn filecheck_reasons_name_the_check() {
    let err = "/x/t.ll:3:10: error: CHECK: expected string not found in input\n; CHECK: DIVERGENT: %a\n         ^\n";
    assert_eq!(
        lit::filecheck_reason(err),
        "FileCheck (line 3): CHECK: expected string not found in input: `; CHECK: DIVERGENT: %a`"
    );
    let not = "/x/t.ll:7:14: error: CHECK-NOT: excluded string found in input\n; CHECK-NOT: DIVERGENT\n             ^\n<stdin>:22:2: note: found here\n DIVERGENT: %m = extractvalue { i1, i64 } %if, 1\n ^~~~\n";
    assert_eq!(
        lit::filecheck_reason(not),
        "FileCheck (line 7): CHECK-NOT: excluded string found in input: `; CHECK-NOT: DIVERGENT`; found: `DIVERGENT: %m = extractvalue { i1, i64 } %if, 1`"
    );
    assert_eq!(
        lit::module_echo("; CHECK: x\ndefine void @f() {\n  ret void ; c\n}\n"),
        "define void @f() {\n  ret void ; c\n}\n"
    );
}

/// The runner's lit semantics, checked with a stand-in for converge (a shell script with a fixed
/// output and exit code) and the real FileCheck: stream routing (`2>&1`), `not`, exit 2, crashes
/// and hangs, and the `-S` module echo.
#[test]
fn runner_semantics_with_a_stub_converge() {
    use std::os::unix::fs::PermissionsExt;
    let Some(filecheck) = converge_gen::reference::filecheck("runner_semantics") else {
        return;
    };
    let dir = converge_gen::reference::repo_root().join("build/corpus-runner-selftest");
    std::fs::create_dir_all(&dir).unwrap();
    let stub = |name: &str, body: &str| -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    };
    // Each stub echoes its subcommand, so the CHECK lines see which tool was called.
    let ok = stub("ok.sh", "echo \"HELLO $1\"; exit 0");
    let invalid = stub("invalid.sh", "echo \"HELLO $1\"; exit 1");
    let usage = stub("usage.sh", "echo 'error: bad flag' >&2; exit 2");
    let crash = stub("crash.sh", "kill -9 $$");
    let hang = stub("hang.sh", "exec sleep 5");
    let test = dir.join("t.ll");
    std::fs::write(
        &test,
        "; CHECK: HELLO\n; CHECK-LABEL: define void @f\n; U: HELLO uniformity\n; V: HELLO verify\n\
         define void @f() {\n  ret void\n}\n",
    )
    .unwrap();
    let run = |converge: &Path, line: &str| -> LineStatus {
        let tools = Tools {
            converge: converge.to_path_buf(),
            filecheck: filecheck.clone(),
            opt19: None,
            opt22: None,
            limit: Duration::from_millis(1500),
        };
        let subst = Subst {
            source: test.clone(),
            temp: dir.join("t.tmp"),
        };
        let rl = lit::RunLine {
            line: 1,
            text: line.to_string(),
        };
        lit::run_line(&rl, &subst, Mode::Converge, &tools).status
    };
    let uni = "opt -passes='print<uniformity>' -disable-output %s";
    let fail = |s: &LineStatus| matches!(s, LineStatus::Fail(_));
    // The report reaches FileCheck only through 2>&1 (it stands for opt's stderr); the CHECK-LABEL
    // needs the module, which only -S without -disable-output prints.
    let s = run(
        &ok,
        &format!("{uni} 2>&1 | FileCheck %s --check-prefix=CHECK"),
    );
    assert!(fail(&s), "no module printed, CHECK-LABEL must fail: {s:?}");
    let s = run(
        &ok,
        "opt -S -passes='print<uniformity>' %s 2>&1 | FileCheck %s",
    );
    assert_eq!(s, LineStatus::Pass);
    let s = run(&ok, "opt -S -passes='print<uniformity>' %s | FileCheck %s");
    assert!(
        fail(&s),
        "report without 2>&1 must not reach FileCheck: {s:?}"
    );
    // `not`: exit 1 (found invalid) satisfies it, exit 0 does not; exit 2 never does.
    let verify = "not llvm-as < %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=V";
    assert_eq!(run(&invalid, verify), LineStatus::Pass);
    assert!(fail(&run(&ok, verify)));
    assert!(fail(&run(&usage, verify)));
    // Without `not`, any non-zero exit fails before FileCheck runs; crashes and hangs fail.
    let checked = format!("{uni} 2>&1 | FileCheck %s --check-prefix=U");
    assert_eq!(run(&ok, &checked), LineStatus::Pass);
    for s in [&invalid, &usage, &crash, &hang] {
        let st = run(s, &checked);
        assert!(fail(&st), "{}: {st:?}", s.display());
    }
    assert!(matches!(
        run(&ok, "opt -passes=adce -S %s | FileCheck %s"),
        LineStatus::Skipped(lit::Skip::OutOfScope(_))
    ));
}

#[test]
fn verdicts_combine_run_lines() {
    use lit::Skip;
    let pass = LineStatus::Pass;
    let fail = LineStatus::Fail("x".into());
    let oos = LineStatus::Skipped(Skip::OutOfScope("adce".into()));
    assert_eq!(lit::verdict(&[(1, pass.clone())]), Verdict::Pass);
    assert_eq!(
        lit::verdict(&[(1, pass.clone()), (2, fail.clone())]),
        Verdict::Fail("RUN@2: x".into())
    );
    assert_eq!(lit::verdict(&[(1, oos.clone())]).label(), "OUT-OF-SCOPE");
    assert_eq!(lit::verdict(&[(1, oos), (2, pass)]), Verdict::Pass);
    assert_eq!(lit::verdict(&[]).label(), "UNSUPPORTED");
}
