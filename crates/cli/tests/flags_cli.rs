//! The flags every subcommand shares, as an LLVM user expects them: `--target` with LLVM's names
//! and `-mtriple=`, `-` for standard input, `-o FILE`, `--function` (repeatable, glob, `@name`),
//! one `--llvm-version` and `--time-passes` spelling with the old ones as aliases, `--format`
//! listing only supported formats, one JSON layout, `--color`, the progress line, `--help`
//! examples, plurals, verify headlines and `dot` on several functions. Expected answers come from
//! LLVM (`opt -mtriple=...`, live) or from the same subcommand run with the established spelling.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

fn run_in(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> common::Outcome {
    let mut cmd = Command::new(common::converge_bin());
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    common::run(cmd, stdin, LIMIT)
}

fn run(args: &[&str]) -> common::Outcome {
    run_in(args, b"", &[])
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(o.code, Some(0), "{args:?}: {}", o.stderr_str());
    o.stdout_str()
}

fn root() -> PathBuf {
    converge_gen::reference::repo_root()
}

fn example(name: &str) -> String {
    root().join("examples").join(name).display().to_string()
}

fn scratch(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("converge-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Two kernels without a target triple: the target comes from the command line.
const NO_TRIPLE: &str = r#"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define void @kernel_one(i32 %n) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %u = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %s = add i32 %t, %u
  %c = icmp slt i32 %s, %n
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  ret void
}

define void @kernel_two() {
entry:
  br label %loop
loop:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %t, 0
  br i1 %c, label %loop, label %done
done:
  ret void
}

declare void @only_declared()
"#;

#[test]
fn target_takes_llvm_names_triples_and_mtriple() {
    let f = scratch("no-triple.ll", NO_TRIPLE);
    let amd = ok(&["uniformity", "--format", "llvm", "--target", "amdgpu", &f]);
    let nv = ok(&["uniformity", "--format", "llvm", "--target", "nvptx", &f]);
    assert_ne!(amd, nv, "the two models differ on this module");
    for spelling in [
        vec!["--target", "amdgcn"],
        vec!["--target=amdgcn-amd-amdhsa"],
        vec!["-mtriple=amdgcn"],
        vec!["-mtriple", "amdgcn--"],
        vec!["--mtriple", "amdgcn"],
    ] {
        let mut a = vec!["uniformity", "--format", "llvm"];
        a.extend(spelling.iter().copied());
        a.push(&f);
        assert_eq!(ok(&a), amd, "{spelling:?}");
    }
    for spelling in ["nvptx64", "nvptx64-nvidia-cuda", "nvptx"] {
        assert_eq!(
            ok(&["uniformity", "--format", "llvm", "--target", spelling, &f]),
            nv,
            "{spelling}"
        );
    }
    // A triple of a target without divergence: everything uniform, as in LLVM.
    let x86 = ok(&[
        "uniformity",
        "--format",
        "llvm",
        "-mtriple=x86_64-pc-linux-gnu",
        &f,
    ]);
    assert!(x86.contains("ALL VALUES UNIFORM"), "{x86}");
    // A misspelt name is a usage error.
    let o = run(&["uniformity", "--target", "amdgp", &f]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("unknown target"),
        "{}",
        o.stderr_str()
    );
    // -mcpu= as opt spells it.
    let w32 = ok(&[
        "uniformity",
        "--format",
        "llvm",
        "-mtriple=amdgcn",
        "-mcpu=gfx1100",
        &f,
    ]);
    let w32b = ok(&[
        "uniformity",
        "--format",
        "llvm",
        "--target=amdgcn",
        "--mcpu",
        "gfx1100",
        &f,
    ]);
    assert_eq!(w32, w32b);
    // The same spellings reach the other subcommands.
    for sub in ["explain", "dot", "simulate"] {
        let mut a = vec![sub, "-mtriple=amdgcn", &f];
        if sub == "simulate" {
            a.extend(["--function", "kernel_one"]);
        }
        ok(&a);
    }
}

/// `-mtriple=` means what it means to `opt`: LLVM 19's print<uniformity> with the triple given
/// on the command line equals ours with the same flag (LLVM 19 mode).
#[test]
fn mtriple_matches_opt() {
    let Some(opt) = converge_gen::reference::opt19("mtriple_matches_opt") else {
        return;
    };
    let f = scratch("no-triple-opt.ll", NO_TRIPLE);
    for triple in ["amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda"] {
        let o = converge_gen::reference::run_opt(
            &opt,
            &[
                &format!("-mtriple={triple}"),
                "-passes=print<uniformity>",
                "-disable-output",
            ],
            NO_TRIPLE,
        );
        assert!(o.success, "{}", o.stderr);
        let ours = ok(&[
            "uniformity",
            "--format",
            "llvm",
            "--llvm-version",
            "19",
            &format!("-mtriple={triple}"),
            &f,
        ]);
        assert_eq!(ours, o.stderr, "{triple}");
    }
}

#[test]
fn dash_reads_standard_input() {
    let f = example("divergent-loop.ll");
    let text = std::fs::read(&f).unwrap();
    for sub in [
        "stats",
        "cycles",
        "uniformity",
        "verify",
        "explain",
        "dot",
        "simulate",
    ] {
        let from_file = run(&[sub, &f]);
        let from_stdin = run_in(&[sub, "-"], &text, &[]);
        assert_eq!(from_file.code, from_stdin.code, "{sub}");
        let name = f.as_str();
        assert_eq!(
            from_file.stdout_str().replace(name, "<stdin>"),
            from_stdin.stdout_str(),
            "{sub}"
        );
    }
    // Errors in standard input are located in `<stdin>`.
    let o = run_in(&["stats", "-"], b"define void @f( {\n", &[]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("--> <stdin>:"),
        "{}",
        o.stderr_str()
    );
}

#[test]
fn dash_o_writes_every_report_to_a_file() {
    let f = example("tokens-invalid.ll");
    let dir = std::env::temp_dir().join(format!("converge-flags-o-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (k, args) in [
        vec!["stats"],
        vec!["stats", "--format", "json"],
        vec!["cycles", "--format", "llvm"],
        vec!["uniformity", "--format", "json"],
        vec!["verify"],
        vec!["explain"],
        vec!["dot", "--uniformity"],
        vec!["simulate", "--function", "mixed"],
    ]
    .into_iter()
    .enumerate()
    {
        let out = dir.join(format!("out{k}.txt"));
        let out = out.to_str().unwrap();
        let mut a = args.clone();
        a.push(&f);
        let plain = run(&a);
        let mut b = args.clone();
        b.extend(["-o", out, &f]);
        let to_file = run(&b);
        assert_eq!(plain.code, to_file.code, "{args:?}");
        assert!(to_file.stdout.is_empty(), "{args:?}: nothing on stdout");
        assert_eq!(
            std::fs::read(out).unwrap(),
            plain.stdout,
            "{args:?}: the file holds what stdout would"
        );
    }
    let o = run(&["stats", "-o", "/nonexistent-dir/x.txt", &f]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("cannot create"),
        "{}",
        o.stderr_str()
    );
}

#[test]
fn function_selection_everywhere() {
    let f = scratch("select.ll", NO_TRIPLE);
    let all = ok(&["uniformity", "--target", "amdgpu", &f]);
    let one = ok(&[
        "uniformity",
        "--target",
        "amdgpu",
        "--function",
        "kernel_two",
        &f,
    ]);
    assert!(
        !one.contains("@kernel_one") && one.contains("@kernel_two"),
        "{one}"
    );
    assert!(
        all.ends_with(&one),
        "the selection prints what the whole run prints for it"
    );
    assert_eq!(
        one,
        ok(&[
            "uniformity",
            "--target",
            "amdgpu",
            "--function",
            "@kernel_two",
            &f
        ])
    );
    assert_eq!(
        all,
        ok(&[
            "uniformity",
            "--target",
            "amdgpu",
            "--function",
            "kernel_*",
            &f
        ])
    );
    assert_eq!(
        all,
        ok(&[
            "uniformity",
            "--target",
            "amdgpu",
            "--function",
            "kernel_two",
            "--function",
            "@kernel_one",
            &f
        ]),
        "repeated, in module order"
    );
    for sub in [
        "stats",
        "cycles",
        "uniformity",
        "verify",
        "explain",
        "dot",
        "simulate",
    ] {
        let o = run(&[sub, "--function", "@kernel_one", &f]);
        assert_eq!(o.code, Some(0), "{sub}: {}", o.stderr_str());
        assert!(
            !o.stdout_str().contains("kernel_two"),
            "{sub} shows only the selected function"
        );
        let o = run(&[sub, "--function", "kernl_one", &f]);
        assert_eq!(o.code, Some(2), "{sub}");
        let e = o.stderr_str();
        assert!(
            e.contains("no function @kernl_one") && e.contains("did you mean @kernel_one"),
            "{sub}: {e}"
        );
        let o = run(&[sub, "--function", "only_declared", &f]);
        assert_eq!(o.code, Some(2), "{sub}");
        assert!(o.stderr_str().contains("only declared"), "{sub}");
        let o = run(&[sub, "--function", "zz*", &f]);
        assert_eq!(o.code, Some(2), "{sub}");
        assert!(o.stderr_str().contains("matches `zz*`"), "{sub}");
    }
    // stats: the totals are those of the selection.
    let s = ok(&["stats", "--format", "json", "--function", "kernel_two", &f]);
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v["per_function"].as_array().unwrap().len(), 1);
    assert_eq!(v["blocks"], 3);
    assert_eq!(v["cycles"], 1);
    // simulate needs exactly one.
    let o = run(&["simulate", "--function", "kernel_*", &f]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("several functions"),
        "{}",
        o.stderr_str()
    );
}

#[test]
fn one_llvm_version_and_timing_spelling() {
    let f = example("divergent-loop.ll");
    for sub in ["uniformity", "cycles", "verify"] {
        let new = ok(&[sub, "--format", "llvm", "--llvm-version", "19", &f]);
        let old = ok(&[sub, "--format", "llvm", "--llvm", "19", &f]);
        assert_eq!(new, old, "{sub}");
        let o = run(&[sub, "--llvm-version", "18", &f]);
        assert_eq!(o.code, Some(2), "{sub}");
    }
    for sub in ["stats", "cycles", "uniformity"] {
        for flag in ["--time-passes", "--time"] {
            let o = run(&[sub, "--format", "none", flag, &f]);
            assert_eq!(o.code, Some(0), "{sub} {flag}");
            assert!(
                o.stderr_str().contains("ms"),
                "{sub} {flag}: {}",
                o.stderr_str()
            );
        }
    }
}

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

/// `insert-tokens` and `check-transform` take `--function` like the other subcommands (issue 15:
/// `@name` and `name` both work everywhere). Expected answers: the same run with the plain name,
/// and the module's own function names.
#[test]
fn function_selection_in_insert_tokens_and_check_transform() {
    let two = scratch(
        "two-convergent.ll",
        "declare void @sync() convergent\n\
         define void @f() convergent {\n  call void @sync()\n  ret void\n}\n\
         define void @g() convergent {\n  call void @sync()\n  ret void\n}\n",
    );
    let entries = |t: &str| {
        t.matches("call token @llvm.experimental.convergence.entry()")
            .count()
    };
    let plain = ok(&["insert-tokens", "--function", "g", &two]);
    assert_eq!(entries(&plain), 1, "{plain}");
    assert!(plain.contains("define void @f() convergent {\n  call void @sync()\n"));
    assert_eq!(plain, ok(&["insert-tokens", "--function", "@g", &two]));
    // A glob and a repeated flag select both.
    let both = ok(&["insert-tokens", "--function", "[fg]", &two]);
    assert_eq!(entries(&both), 2, "{both}");
    assert_eq!(
        both,
        ok(&["insert-tokens", "--function", "g", "--function", "@f", &two])
    );
    assert_eq!(both, ok(&["insert-tokens", &two]));
    let o = run(&["insert-tokens", "--function", "gg", &two]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("did you mean @g"),
        "{}",
        o.stderr_str()
    );

    let pair = root().join("crates/check/tests/pairs");
    let b = pair.join("sink_entry.before.ll").display().to_string();
    let a = pair.join("sink_entry.after.ll").display().to_string();
    let name = {
        let m = converge_ir::parse(&b, std::fs::read_to_string(&b).unwrap()).unwrap();
        let f = m.func_ids().find(|&f| !m.func(f).is_declaration).unwrap();
        m.str(m.func(f).name).to_string()
    };
    let with = |n: &str| {
        let o = run(&[
            "check-transform",
            "--format",
            "json",
            "--function",
            n,
            &b,
            &a,
        ]);
        let v: serde_json::Value = serde_json::from_str(&o.stdout_str()).unwrap();
        (o.code, v["verdict"].clone(), v["function"].clone())
    };
    let plain = with(&name);
    assert_eq!(plain.2, serde_json::Value::from(name.clone()));
    assert_eq!(plain, with(&format!("@{name}")));
}

/// `check-transform`'s output without its measured time (`"seconds": …` in JSON, `in 0.012s`
/// in text), which differs from run to run.
fn untimed(out: &[u8]) -> String {
    String::from_utf8_lossy(out)
        .lines()
        .filter(|l| !l.trim_start().starts_with("\"seconds\":"))
        .map(|l| match l.rfind(" in ") {
            Some(at) if l.ends_with('s') && l[at + 4..l.len() - 1].parse::<f64>().is_ok() => {
                &l[..at]
            }
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// AMDGPU `callbr` to inline asm: LLVM 19's hooks only looked at `call`, so 19 and 22 differ here
/// (`uniformity_regressions.rs` checks both against `opt` 19 and the corpus rule).
const CALLBR_19_22: &str = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @asm_in(ptr addrspace(1) %out) {
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  callbr void asm "", "v,!i"(i32 %x) to label %a [label %b]
a:
  store i32 1, ptr addrspace(1) %out
  ret void
b:
  ret void
}

define amdgpu_kernel void @asm_vgpr(ptr addrspace(1) %out) {
entry:
  %v = callbr i32 asm "v_mov_b32 $0, 1", "=v,!i"() to label %a [label %b]
a:
  ret void
b:
  ret void
}
"#;

/// `--llvm-version` (alias `--llvm`) on every subcommand whose answer depends on the release:
/// `explain`, `dot` and `explore` give the divergence `uniformity` gives for the same release
/// (the expected answer), and the releases differ on this module. `main` is refused where it is
/// not reproduced.
#[test]
fn llvm_version_on_explain_dot_and_explore() {
    let f = scratch("callbr-19-22.ll", CALLBR_19_22);
    // `function @NAME: ..., N divergent terminator(s)` of uniformity; `N divergent branch(es)`
    // of explain's summary and dot's cluster labels.
    let counts = |text: &str, marker: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains(marker) && l.contains("@asm_"))
            .map(|l| {
                let at = l.find(marker).unwrap();
                let head = &l[..at];
                head.rsplit(' ').next().unwrap_or_default().to_string()
            })
            .collect()
    };
    let mut per_version = Vec::new();
    for v in ["19", "22"] {
        let u = ok(&["uniformity", "--llvm-version", v, &f]);
        let want = counts(&u, " divergent terminator");
        assert_eq!(want.len(), 2, "{u}");
        for spelling in ["--llvm-version", "--llvm"] {
            let e = ok(&["explain", spelling, v, &f]);
            assert_eq!(counts(&e, " divergent branch"), want, "explain {v}: {e}");
            let d = ok(&["dot", "--uniformity", spelling, v, &f]);
            assert_eq!(counts(&d, " divergent branch"), want, "dot {v}: {d}");
        }
        let page =
            std::env::temp_dir().join(format!("converge-llvm{v}-{}.html", std::process::id()));
        let o = run(&[
            "explore",
            "--llvm-version",
            v,
            "-o",
            page.to_str().unwrap(),
            &f,
        ]);
        assert_eq!(o.code, Some(0), "{}", o.stderr_str());
        per_version.push(want);
    }
    assert_ne!(
        per_version[0], per_version[1],
        "the module tells 19 from 22"
    );
    for sub in ["explain", "dot"] {
        let o = run(&[sub, "--llvm-version", "main", &f]);
        assert_eq!(o.code, Some(2), "{sub}");
        assert!(
            o.stderr_str().contains("`main` is reproduced by"),
            "{}",
            o.stderr_str()
        );
    }
}

/// `check-transform --function` reads its one name like the other subcommands: a glob that
/// selects one function, and an unknown name listing BEFORE's closest names (exit 2).
#[test]
fn check_transform_function_glob_and_close_matches() {
    let f = scratch("select-ct.ll", NO_TRIPLE);
    let named = ok(&["check-transform", "--function", "kernel_two", &f, &f]);
    assert_eq!(
        untimed(named.as_bytes()),
        untimed(ok(&["check-transform", "--function", "kernel_t*", &f, &f]).as_bytes())
    );
    assert!(named.starts_with("@kernel_two: refines"), "{named}");
    let o = run(&["check-transform", "--function", "kernl_two", &f, &f]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("did you mean @kernel_two"),
        "{}",
        o.stderr_str()
    );
    let o = run(&["check-transform", "--function", "kernel_*", &f, &f]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("selects 2 functions") && o.stderr_str().contains("@kernel_one"),
        "{}",
        o.stderr_str()
    );
    let o = run(&["check-transform", "--function", "only_declared", &f, &f]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("only declared"),
        "{}",
        o.stderr_str()
    );
    // `explore` too (nothing written on the error).
    let page = std::env::temp_dir().join(format!("converge-sel-{}.html", std::process::id()));
    let o = run(&[
        "explore",
        "--function",
        "kernl_two",
        "-o",
        page.to_str().unwrap(),
        &f,
    ]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("did you mean @kernel_two"),
        "{}",
        o.stderr_str()
    );
    assert!(!page.exists());
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

/// `clang ... -S -emit-llvm -o - | converge uniformity -`, live: the pipe gives what the compiled
/// file gives (the input named `<stdin>`), for both targets clang 19 compiles kernels for.
#[test]
fn clang_pipes_into_converge() {
    use std::process::Stdio;
    let Some(clang) = converge_gen::reference::clang19("clang_pipes_into_converge") else {
        return;
    };
    let src = root().join("examples/kernels/loops.cl");
    let dir = root().join("build/cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    for (target, flags) in converge_gen::clang_kernels::TARGETS {
        let ll = dir.join(format!("pipe-{target}.ll"));
        let o = converge_gen::clang_kernels::command(&clang, &src, flags, "-O2", &ll)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let from_file = ok(&["uniformity", ll.to_str().unwrap()]);
        let mut c =
            converge_gen::clang_kernels::command(&clang, &src, flags, "-O2", Path::new("-"));
        let mut producer = c.stdout(Stdio::piped()).spawn().unwrap();
        let piped = Command::new(common::converge_bin())
            .args(["uniformity", "-"])
            .stdin(producer.stdout.take().unwrap())
            .output()
            .unwrap();
        assert!(producer.wait().unwrap().success());
        assert!(
            piped.status.success(),
            "{}",
            String::from_utf8_lossy(&piped.stderr)
        );
        assert_eq!(
            from_file.replace(ll.to_str().unwrap(), "<stdin>"),
            String::from_utf8_lossy(&piped.stdout),
            "{target}"
        );
        assert!(from_file.contains("divergent"), "{from_file}");
    }
}

/// `-` and `-o FILE` on the subcommands that write whole files or read two modules:
/// `insert-tokens` and `check-transform` (BEFORE from standard input).
#[test]
fn dash_and_dash_o_on_insert_tokens_and_check_transform() {
    let f = example("insert-tokens.ll");
    let text = std::fs::read(&f).unwrap();
    let plain = ok(&["insert-tokens", &f]);
    let from_stdin = run_in(&["insert-tokens", "-"], &text, &[]);
    assert_eq!(from_stdin.code, Some(0));
    assert_eq!(from_stdin.stdout_str(), plain);
    let dir = std::env::temp_dir().join(format!("converge-flags-o2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("with-tokens.ll");
    let o = run(&["insert-tokens", "-o", out.to_str().unwrap(), &f]);
    assert_eq!(o.code, Some(0));
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), plain);

    let ct = ok(&["check-transform", "--function", "kernel", &f, &f]);
    let o = run_in(
        &["check-transform", "--function", "kernel", "-", &f],
        &text,
        &[],
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr_str());
    assert_eq!(untimed(&o.stdout), untimed(ct.as_bytes()));
    let out = dir.join("ct.txt");
    let o = run(&[
        "check-transform",
        "--function",
        "kernel",
        "-o",
        out.to_str().unwrap(),
        &f,
        &f,
    ]);
    assert_eq!(o.code, Some(0));
    assert!(o.stdout.is_empty());
    assert_eq!(
        untimed(&std::fs::read(&out).unwrap()),
        untimed(ct.as_bytes())
    );
}

/// A command line written for `opt` (`-mtriple=… -mcpu=…`) works on the target-independent
/// subcommands too, as `opt -mtriple=amdgcn -passes='print<cycles>'` does: the answer is the one
/// without the flags (it does not depend on the target), and a bad target is still an error.
#[test]
fn target_independent_subcommands_accept_mtriple() {
    let f = example("divergent-loop.ll");
    for sub in ["stats", "cycles", "verify"] {
        let plain = ok(&[sub, &f]);
        assert_eq!(
            plain,
            ok(&[sub, "-mtriple=nvptx64-nvidia-cuda", "-mcpu=sm_70", &f]),
            "{sub}"
        );
        assert_eq!(
            plain,
            ok(&[sub, "--target", "amdgcn", "--mcpu", "gfx1100", &f])
        );
        let o = run(&[sub, "-mtriple=bogus", &f]);
        assert_eq!(o.code, Some(2), "{sub}");
        assert!(o.stderr_str().contains("unknown target `bogus`"), "{sub}");
    }
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

/// `converge explore -` without `-o` names the page `stdin.html` (it was `-.html`), in the
/// current directory, and says so.
#[test]
fn explore_from_standard_input_names_its_page() {
    let dir = std::env::temp_dir().join(format!("converge-explore-stdin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read(example("divergent-loop.ll")).unwrap();
    let mut cmd = Command::new(common::converge_bin());
    cmd.args(["explore", "-"]).current_dir(&dir);
    let o = common::run(cmd, &text, LIMIT);
    assert_eq!(o.code, Some(0), "{}", o.stderr_str());
    assert!(
        o.stderr_str().contains("wrote stdin.html"),
        "{}",
        o.stderr_str()
    );
    let page = std::fs::read_to_string(dir.join("stdin.html")).unwrap();
    assert!(page.contains("find_first"));
    assert!(!dir.join("-.html").exists());
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
