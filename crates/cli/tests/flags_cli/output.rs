//! What a report looks like: `--format` offering only what a subcommand supports, one JSON layout,
//! `--color`/`NO_COLOR`, the progress line (standard error only, erased on a terminal), `--help`
//! examples, plurals, verify headlines and `dot` on several functions.

use super::*;

#[test]
fn format_offers_only_what_a_subcommand_supports() {
    let f = example("divergent-loop.ll");
    for (sub, bad) in [
        ("stats", "llvm"),
        ("simulate", "llvm"),
        ("explain", "llvm"),
        ("check-transform", "llvm"),
    ] {
        let o = if sub == "check-transform" {
            run(&[sub, "--format", bad, &f, &f])
        } else {
            run(&[sub, "--format", bad, &f])
        };
        assert_eq!(o.code, Some(2), "{sub} --format {bad}");
        let help = ok(&[sub, "--help"]);
        let line = help
            .lines()
            .skip_while(|l| !l.contains("--format"))
            .take(8)
            .collect::<Vec<_>>()
            .join("\n");
        assert!(!line.contains(bad), "{sub} --help offers {bad}: {line}");
    }
}

#[test]
fn json_is_laid_out_the_same_everywhere() {
    let f = example("tokens-invalid.ll");
    for args in [
        vec!["stats", "--format", "json"],
        vec!["cycles", "--format", "json"],
        vec!["uniformity", "--format", "json"],
        vec!["verify", "--format", "json"],
        vec!["explain", "--format", "json"],
        vec![
            "explain",
            "--format",
            "json",
            "--value",
            "%t",
            "--function",
            "mixed",
        ],
        vec!["simulate", "--format", "json", "--function", "mixed"],
    ] {
        let mut a = args.clone();
        a.push(&f);
        let o = run(&a);
        let text = o.stdout_str();
        let v: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}\n{text}"));
        let mut pretty = serde_json::to_string_pretty(&v).unwrap();
        pretty.push('\n');
        assert_eq!(text, pretty, "{args:?}: serde_json's pretty layout");
    }
}

#[test]
fn readable_details() {
    let f = example("divergent-loop.ll");
    let u = ok(&["uniformity", &f]);
    assert!(u.contains(", 1 divergent terminator\n"), "{u}");
    // Verify headlines state the problem found; the rule is a note.
    let o = run(&["verify", &example("tokens-invalid.ll")]);
    assert_eq!(o.code, Some(1));
    let t = o.stdout_str();
    assert!(
        t.contains("error[T-cycle-use]: token %t is used inside the cycle headed by %loop, which does not contain its definition (in @token_crosses_cycle)"),
        "{t}"
    );
    assert!(
        t.contains("= note: rule: a closed path through a use of a token contains its definition"),
        "{t}"
    );
    assert!(
        t.contains("error[T-entry-block]: llvm.experimental.convergence.entry in %body, not in the entry block")
            || t.contains("error[T-entry-block]: llvm.experimental.convergence.entry in %"),
        "{t}"
    );
    for sub in [
        "stats",
        "cycles",
        "uniformity",
        "verify",
        "simulate",
        "explain",
        "dot",
        "check-transform",
        "insert-tokens",
        "explore",
    ] {
        let h = ok(&[sub, "--help"]);
        assert!(h.contains("Example"), "{sub} --help shows an example");
        assert!(h.contains(&format!("converge {sub}")), "{sub}");
    }
    assert!(ok(&["--help"]).contains("Examples"));
}

#[test]
fn dot_draws_every_function_in_one_graph() {
    let f = scratch("dot.ll", NO_TRIPLE);
    let d = ok(&["dot", "--uniformity", "--target", "amdgpu", &f]);
    assert_eq!(d.matches("digraph ").count(), 1, "{d}");
    assert!(d.contains("subgraph \"cluster_f0\"") && d.contains("subgraph \"cluster_f1\""));
    assert!(d.contains("@kernel_one") && d.contains("@kernel_two"));
    assert_eq!(d.matches('{').count(), d.matches('}').count());
    // Node ids are distinct across functions: every edge end is declared once.
    let mut nodes: Vec<&str> = d
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('f') && l.contains(" [label=") && !l.contains(" -> "))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    let n = nodes.len();
    nodes.sort();
    nodes.dedup();
    assert_eq!(nodes.len(), n, "node ids are unique");
    assert_eq!(n, 3 + 3, "every block of both functions");
    for l in d.lines().map(str::trim).filter(|l| l.contains(" -> ")) {
        let mut it = l.split(' ');
        let (a, b) = (it.next().unwrap(), it.nth(1).unwrap().trim_end_matches(';'));
        assert!(nodes.contains(&a) && nodes.contains(&b), "{l}");
    }
    // One function: the single digraph, as before.
    let one = ok(&["dot", "--function", "kernel_one", &f]);
    assert!(one.starts_with("digraph \"@kernel_one\" {"), "{one}");
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let f = example("divergent-loop.ll");
    let esc = |s: &str| s.contains('\x1b');
    assert!(!esc(&ok(&["uniformity", &f])), "piped: no colour");
    assert!(esc(&ok(&["uniformity", "--color", "always", &f])));
    assert!(!esc(&ok(&["uniformity", "--color", "never", &f])));
    assert!(esc(&ok(&["cycles", "--color=always", &f])));
    // simulate: painted only when asked, and otherwise the same text.
    let sim = ok(&["simulate", "--threads", "3", &f]);
    assert!(!esc(&sim));
    let painted = ok(&["simulate", "--threads", "3", "--color", "always", &f]);
    assert!(esc(&painted));
    let mut stripped = String::new();
    let mut in_escape = false;
    for c in painted.chars() {
        match (in_escape, c) {
            (false, '\x1b') => in_escape = true,
            (true, 'm') => in_escape = false,
            (false, c) => stripped.push(c),
            _ => {}
        }
    }
    assert_eq!(stripped, sim, "colour only adds escape codes");
    let o = run_in(
        &["verify", "--color", "always", &example("tokens-invalid.ll")],
        b"",
        &[],
    );
    assert!(esc(&o.stdout_str()));
    // Machine formats are never coloured.
    for args in [
        vec!["uniformity", "--format", "json"],
        vec!["uniformity", "--format", "llvm"],
        vec!["cycles", "--format", "llvm"],
        vec!["dot", "--uniformity"],
    ] {
        let mut a = args.clone();
        a.extend(["--color", "always", &f]);
        assert!(!esc(&ok(&a)), "{args:?}");
    }
    // NO_COLOR keeps `auto` plain (piped here anyway), `always` still colours.
    let o = run_in(
        &["uniformity", "--color", "always", &f],
        b"",
        &[("NO_COLOR", "1")],
    );
    assert!(esc(&o.stdout_str()));
}

/// `text` without its ANSI escape sequences.
fn strip_escapes(text: &str) -> String {
    let mut stripped = String::new();
    let mut in_escape = false;
    for c in text.chars() {
        match (in_escape, c) {
            (false, '\x1b') => in_escape = true,
            (true, 'm') => in_escape = false,
            (false, c) => stripped.push(c),
            _ => {}
        }
    }
    stripped
}

/// Every readable report takes `--color`: stats, explain (the summary and `--value`) and
/// check-transform (a refinement, exit 0, and a violation, exit 1) too; colour only adds escape
/// codes.
#[test]
fn every_readable_report_is_coloured_on_request() {
    let f = example("divergent-loop.ll");
    let pairs = root().join("crates/check/tests/pairs");
    let pair = |name: &str| {
        (
            pairs
                .join(format!("{name}.before.ll"))
                .display()
                .to_string(),
            pairs.join(format!("{name}.after.ll")).display().to_string(),
        )
    };
    let (rb, ra) = pair("hoist_anchor_ifelse");
    let (vb, va) = pair("hoist_op_ifelse");
    let cases: Vec<Vec<String>> = vec![
        vec!["stats".into(), f.clone()],
        vec!["explain".into(), f.clone()],
        vec![
            "explain".into(),
            "--value".into(),
            "%found.at".into(),
            f.clone(),
        ],
        vec!["explain".into(), "--value".into(), "%n".into(), f.clone()],
        vec!["check-transform".into(), rb, ra],
        vec!["check-transform".into(), vb, va],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let plain = run(&args);
        let mut painted_args = args.clone();
        painted_args.extend(["--color", "always"]);
        let painted = run(&painted_args);
        assert_eq!(plain.code, painted.code, "{args:?}");
        assert!(
            matches!(plain.code, Some(0 | 1)),
            "{args:?}: {}",
            plain.stderr_str()
        );
        let (plain, painted) = (plain.stdout_str(), painted.stdout_str());
        assert!(!plain.contains('\x1b'), "{args:?}: piped, no colour");
        assert!(painted.contains('\x1b'), "{args:?}: --color always colours");
        // check-transform reports its elapsed time ("in 0.001s"): a measurement, not output.
        let untimed = |t: &str| {
            t.split(" in ")
                .map(|part| part.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.'))
                .collect::<Vec<_>>()
                .join(" in ")
        };
        assert_eq!(
            untimed(&strip_escapes(&painted)),
            untimed(&plain),
            "{args:?}: colour only adds escape codes"
        );
    }
}

#[test]
fn progress_goes_to_stderr_only() {
    let dir = root().join("build/cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("progress.ll");
    if !Path::new(&f).exists() {
        let text = converge_gen::module::generate(&converge_gen::module::ModuleSpec {
            seed: 5,
            bytes: 300 << 10,
            ..Default::default()
        });
        std::fs::write(&f, text).unwrap();
    }
    let f = f.to_str().unwrap();
    for format in ["json", "llvm"] {
        let quiet = run(&["uniformity", "--format", format, f]);
        let loud = run_in(
            &["uniformity", "--format", format, f],
            b"",
            &[
                ("CONVERGE_PROGRESS", "1"),
                ("CONVERGE_PROGRESS_AFTER_MS", "0"),
            ],
        );
        assert_eq!(quiet.code, Some(0));
        assert_eq!(
            quiet.stdout, loud.stdout,
            "--format {format}: stdout untouched"
        );
        assert!(quiet.stderr.is_empty(), "no progress off a terminal");
        assert!(
            loud.stderr_str().contains("converge: uniformity:"),
            "{}",
            loud.stderr_str()
        );
    }
}

/// The progress line of the subcommands that do one long call (token verification, explanations,
/// drawing, insertion, the transform search, the page): on standard error only, never changing
/// standard output. Forced on with a zero delay, since the tests' inputs are quick.
#[test]
fn progress_on_every_long_subcommand() {
    let f = example("divergent-loop.ll");
    let page = std::env::temp_dir().join(format!("converge-progress-{}.html", std::process::id()));
    let page = page.to_str().unwrap().to_string();
    for (args, label) in [
        (vec!["verify", "--format", "json", &f], "verifying tokens"),
        (vec!["explain", "--format", "json", &f], "explaining"),
        (vec!["explain", "--value", "%found.at", &f], "explaining"),
        (vec!["dot", "--uniformity", &f], "drawing"),
        (vec!["insert-tokens", &f], "inserting tokens"),
        (
            vec!["check-transform", "--format", "json", &f, &f],
            "comparing executions",
        ),
        (vec!["stats", "--format", "json", &f], "counting"),
        (vec!["cycles", "--format", "llvm", &f], "cycles"),
        (vec!["explore", "-o", &page, &f], "building the page"),
    ] {
        let quiet = run(&args);
        let loud = run_in(
            &args,
            b"",
            &[
                ("CONVERGE_PROGRESS", "1"),
                ("CONVERGE_PROGRESS_AFTER_MS", "0"),
            ],
        );
        assert_eq!(quiet.code, loud.code, "{args:?}");
        assert_eq!(
            untimed(&quiet.stdout),
            untimed(&loud.stdout),
            "{args:?}: stdout untouched"
        );
        assert!(
            !quiet.stderr_str().contains("converge: "),
            "{args:?}: no progress off a terminal"
        );
        assert!(
            loud.stderr_str().contains(&format!("converge: {label}")),
            "{args:?}: {}",
            loud.stderr_str()
        );
    }
}

/// The simulator's table of converged values says "1 converged instance", not "instance(s)".
#[test]
fn simulate_plurals() {
    let f = example("divergent-loop.ll");
    let t = ok(&["simulate", "--threads", "3", &f]);
    assert!(!t.contains("(s)"), "{t}");
    assert!(t.contains("(1 converged instance, "), "{t}");
    assert!(
        t.lines()
            .filter(|l| l.contains(" converged instances, "))
            .all(|l| !l.contains("(1 converged instances")),
        "{t}"
    );
    let one = ok(&["simulate", "--threads", "1", &f]);
    assert!(one.starts_with("function @find_first: 1 thread, "), "{one}");
    let stopped = run(&["simulate", "--threads", "2", "--step-limit", "1", &f]);
    assert_eq!(stopped.code, Some(1));
    assert!(
        stopped.stdout_str().contains(" after 1 step\n"),
        "{}",
        stopped.stdout_str()
    );
    let o = run(&["simulate", "--args", "1,2,3,4,5", &f]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str()
            .contains("5 values given, @find_first has 4 parameters"),
        "{}",
        o.stderr_str()
    );
}

/// `--color auto` and the progress line on a real terminal (a pseudo-terminal from util-linux's
/// `script`): colour on a terminal unless `NO_COLOR` is set, never in JSON; the progress line is
/// drawn in place and erased (`\r` + erase-line), so the report after it is intact.
#[test]
fn colour_and_progress_on_a_terminal() {
    let f = example("divergent-loop.ll");
    let bin = common::converge_bin();
    let on_tty = |cmd: &str, env: &[(&str, &str)]| -> Option<String> {
        let mut c = Command::new("script");
        c.args(["-qec", cmd, "/dev/null"]).env_remove("NO_COLOR");
        for (k, v) in env {
            c.env(k, v);
        }
        match c.output() {
            Ok(o) => Some(String::from_utf8_lossy(&o.stdout).replace("\r\n", "\n")),
            Err(e) => {
                eprintln!("SKIPPED colour_and_progress_on_a_terminal: cannot run `script`: {e}");
                None
            }
        }
    };
    let plain = ok(&["uniformity", &f]);
    let cmd = format!("{} uniformity {f}", bin.display());
    let Some(tty) = on_tty(&cmd, &[]) else {
        return;
    };
    assert!(
        tty.contains("\x1b[1mfunction @find_first\x1b[0m"),
        "{tty:?}"
    );
    let tty = on_tty(&cmd, &[("NO_COLOR", "1")]).unwrap();
    assert_eq!(tty, plain, "NO_COLOR: plain on a terminal");
    let json = on_tty(
        &format!("{} uniformity --format json {f}", bin.display()),
        &[],
    )
    .unwrap();
    assert!(!json.contains('\x1b'), "JSON is never coloured");
    // The progress line, forced to appear at once, drawn in place and erased before the report.
    let tty = on_tty(
        &format!("{} uniformity --color never {f}", bin.display()),
        &[("CONVERGE_PROGRESS_AFTER_MS", "0")],
    )
    .unwrap();
    assert!(tty.contains("\r\x1b[2Kconverge: "), "{tty:?}");
    let last_erase = tty.rfind("\r\x1b[2K").unwrap();
    let rest = &tty[last_erase + "\r\x1b[2K".len()..];
    assert_eq!(rest, plain, "the report follows the erased line intact");
}

/// The reader's intrinsic-signature error counts arguments without "(s)".
#[test]
fn intrinsic_argument_count_plurals() {
    for (args, want) in [
        ("i32 1", "1 argument given, 2 declared"),
        ("", "0 arguments given, 2 declared"),
    ] {
        let f = scratch(
            &format!("mbcnt{}.ll", args.len()),
            &format!(
                "target triple = \"amdgcn-amd-amdhsa\"\ndefine amdgpu_kernel void @f() {{\n  %x = call i32 @llvm.amdgcn.mbcnt.hi({args})\n  ret void\n}}\ndeclare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)\n"
            ),
        );
        let o = run(&["stats", &f]);
        assert_eq!(o.code, Some(2));
        assert!(o.stderr_str().contains(want), "{}", o.stderr_str());
    }
}

/// The formats clap lists for `sub --format` (`[possible values: …]` of an invalid one).
fn offered_formats(sub: &str, f: &str) -> Vec<String> {
    let o = run(&[sub, "--format", "no-such-format", f, f]);
    assert_eq!(o.code, Some(2), "{sub}");
    let e = o.stderr_str();
    let list = e
        .split("[possible values: ")
        .nth(1)
        .and_then(|r| r.split(']').next())
        .unwrap_or_else(|| panic!("{sub}: no list of formats in:\n{e}"));
    list.split(", ").map(str::to_string).collect()
}

/// Every format a subcommand offers works (issue 15: `stats --format llvm` was offered and then
/// failed): on every example, each offered format exits 0 (1 for `verify` on the invalid-token
/// example), prints something unless it is `none`, and JSON is serde_json's pretty layout, the
/// one layout of every subcommand (`check-transform` included).
#[test]
fn every_offered_format_works() {
    let examples: Vec<String> = converge_gen::reference::ll_files(&root().join("examples"))
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    assert!(examples.len() >= 6, "{examples:?}");
    let mut runs = 0;
    for sub in [
        "stats",
        "cycles",
        "uniformity",
        "verify",
        "simulate",
        "explain",
        "check-transform",
    ] {
        let formats = offered_formats(sub, &examples[0]);
        assert!(formats.len() >= 2, "{sub}: {formats:?}");
        for f in &examples {
            // check-transform refuses a BEFORE that breaks the token rules (exit 2, by design).
            if sub == "check-transform" && f.contains("tokens-invalid") {
                continue;
            }
            let text = std::fs::read_to_string(f).unwrap();
            // `simulate` and `check-transform` are about one function.
            let first = text
                .lines()
                .find_map(|l| l.strip_prefix("define "))
                .and_then(|l| l.split('@').nth(1))
                .and_then(|l| l.split('(').next())
                .unwrap()
                .to_string();
            for fmt in &formats {
                let mut args = vec![sub, "--format", fmt.as_str()];
                if matches!(sub, "simulate" | "check-transform") {
                    args.extend(["--function", first.as_str()]);
                }
                args.push(f);
                if sub == "check-transform" {
                    args.push(f);
                }
                let o = run(&args);
                let allowed: &[i32] = if sub == "verify" { &[0, 1] } else { &[0] };
                assert!(
                    o.code.is_some_and(|c| allowed.contains(&c)),
                    "{args:?}: exit {:?}\n{}",
                    o.code,
                    o.stderr_str()
                );
                let out = o.stdout_str();
                // `verify --format llvm` is silent on a valid module, as `opt -passes=verify` is.
                let silent =
                    fmt == "none" || (sub == "verify" && fmt == "llvm" && o.code == Some(0));
                assert_eq!(out.is_empty(), silent, "{args:?}: output\n{out}");
                if fmt == "json" {
                    let v: serde_json::Value = serde_json::from_str(&out)
                        .unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"));
                    let mut pretty = serde_json::to_string_pretty(&v).unwrap();
                    pretty.push('\n');
                    assert_eq!(out, pretty, "{args:?}: serde_json's pretty layout");
                }
                runs += 1;
            }
        }
    }
    assert!(runs >= 7 * 6 * 2, "{runs} runs");
}

/// One timing flag: every subcommand that reports its time spells it `--time-passes` (as `opt`
/// does, with `--time` as an alias), and no other flag of any subcommand is about time except
/// check-transform's search budget `--time-limit`.
#[test]
fn one_timing_flag_everywhere() {
    let f = example("divergent-loop.ll");
    let mut timed = Vec::new();
    for sub in [
        "stats",
        "cycles",
        "uniformity",
        "verify",
        "simulate",
        "explain",
        "dot",
        "check-transform",
        "insert-tokens",
        "explore",
    ] {
        let help = ok(&[sub, "--help"]);
        let flags: Vec<&str> = help
            .lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with("--") || l.starts_with("-o"))
            .filter_map(|l| l.split([' ', ',', '=']).find(|w| w.starts_with("--")))
            .filter(|w| w.contains("tim"))
            .collect();
        for flag in &flags {
            assert!(
                *flag == "--time-passes" || (sub == "check-transform" && *flag == "--time-limit"),
                "{sub} has the timing flag {flag}"
            );
        }
        if flags.contains(&"--time-passes") {
            timed.push(sub);
            // The alias, and the report on standard error only.
            let plain = ok(&[sub, &f]);
            for spelling in ["--time-passes", "--time"] {
                let o = run(&[sub, spelling, &f]);
                assert_eq!(o.code, Some(0), "{sub} {spelling}: {}", o.stderr_str());
                assert_eq!(o.stdout_str(), plain, "{sub} {spelling}: stdout unchanged");
                assert!(!o.stderr.is_empty(), "{sub} {spelling}: a report on stderr");
            }
        }
    }
    assert_eq!(timed, ["stats", "cycles", "uniformity"]);
}

/// `dot` on a module with several functions draws every function: Graphviz (live) lays out one
/// node per block of every function, without warnings, and renders a PNG. Graphviz is a reference
/// tool (`converge_gen::reference::graphviz`, installed by scripts/test.sh).
#[test]
fn dot_output_renders_whole_with_graphviz() {
    let Some(gv) = converge_gen::reference::graphviz("dot_output_renders_whole_with_graphviz")
    else {
        return;
    };
    let three = scratch(
        "dot-three.ll",
        &format!(
            "{NO_TRIPLE}\ndefine void @kernel_three() {{\nentry:\n  br label %x\nx:\n  ret void\n}}\n"
        ),
    );
    for (file, blocks) in [(scratch("dot-gv.ll", NO_TRIPLE), 6), (three, 8)] {
        for args in [
            vec!["dot", "--target", "amdgpu"],
            vec!["dot", "--uniformity", "--target", "amdgpu"],
        ] {
            let mut a = args.clone();
            a.push(&file);
            let d = ok(&a);
            let draw = |fmt: &str| {
                let mut cmd = Command::new(&gv);
                cmd.arg(fmt);
                common::run(cmd, d.as_bytes(), LIMIT)
            };
            let plain = draw("-Tplain");
            assert_eq!(plain.code, Some(0), "{a:?}: {}", plain.stderr_str());
            assert!(plain.stderr.is_empty(), "{a:?}: {}", plain.stderr_str());
            let nodes = plain
                .stdout_str()
                .lines()
                .filter(|l| l.starts_with("node "))
                .count();
            // One node per block of every function (and the drawing's own extra nodes).
            assert!(nodes >= blocks, "{a:?}: {nodes} nodes for {blocks} blocks");
            let png = draw("-Tpng");
            assert_eq!(png.code, Some(0), "{a:?}: {}", png.stderr_str());
            assert!(png.stdout.starts_with(b"\x89PNG"), "{a:?}: a PNG");
        }
    }
}
