//! Every subcommand over small odd-but-valid and invalid modules: no crash, no hang, the documented
//! exit code (0 analysed, 1 found invalid, 2 unreadable) and, for 2, a `file:line:col` message
//! with an excerpt. The inputs are hand-written shapes that the pipeline fuzzer
//! (`examples/fuzz_pipeline.rs`) exercises at random: unreachable blocks, self-loops, irreducible
//! and exit-less cycles, functions that are a single `unreachable`, tokens across cycles.

mod common;

use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

/// Odd but valid modules: every analysis must succeed (verify may find token violations).
const VALID: &[(&str, &str)] = &[
    ("empty", ""),
    (
        "declarations-only",
        "declare void @f()\ndeclare i32 @g(i32)\n",
    ),
    ("just-unreachable", "define void @f() {\n  unreachable\n}\n"),
    (
        "unreachable-self-loop",
        "define void @f() {\nentry:\n  ret void\ndead:\n  br label %dead\n}\n",
    ),
    (
        "exitless-irreducible",
        "define void @f(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\na:\n  br label %b\nb:\n  br label %a\n}\n",
    ),
    (
        "unreachable-pred-into-cycle",
        "define void @f(i1 %c) {\nentry:\n  br label %h\nh:\n  br i1 %c, label %h, label %x\nu:\n  br label %h\nx:\n  ret void\n}\n",
    ),
    (
        "divergent-self-loop-amdgpu",
        "target triple = \"amdgcn-amd-amdhsa\"\ndefine amdgpu_kernel void @f() {\nentry:\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  br label %l\nl:\n  %i = phi i32 [ 0, %entry ], [ %n, %l ]\n  %n = add i32 %i, 1\n  %c = icmp slt i32 %n, %t\n  br i1 %c, label %l, label %e\ne:\n  ret void\n}\ndeclare i32 @llvm.amdgcn.workitem.id.x()\n",
    ),
    (
        "switch-duplicate-targets-nvptx",
        "target triple = \"nvptx64-nvidia-cuda\"\ndefine void @f() {\nentry:\n  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n  switch i32 %t, label %a [\n    i32 0, label %a\n    i32 1, label %a\n  ]\na:\n  ret void\n}\ndeclare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n",
    ),
];

/// Token-rule violations: readable, analysed, and `verify` exits 1.
const TOKEN_INVALID: &[(&str, &str)] = &[(
    "loop-token-outside-cycle",
    "define void @f() convergent {\nentry:\n  %t = call token @llvm.experimental.convergence.loop()\n  ret void\n}\ndeclare token @llvm.experimental.convergence.loop()\n",
)];

/// Unreadable input: exit 2 with a located message, for every subcommand.
const UNREADABLE: &[(&str, &str)] = &[
    (
        "undefined-label",
        "define void @f() {\nentry:\n  br label %nowhere\n}\n",
    ),
    ("truncated", "define void @f() {\nentry:\n  br label %"),
    (
        "no-terminator",
        "define void @f() {\nentry:\n  %x = add i32 1, 2\n}\n",
    ),
    ("garbage", "define void @f() {\n\u{1}\u{2}\n}\n"),
    // Rejected by LLVM's verifier ("Intrinsic called with incompatible signature"), so by the
    // reader too.
    (
        "intrinsic-called-with-too-few-arguments",
        "target triple = \"amdgcn-amd-amdhsa\"\ndefine amdgpu_kernel void @f() {\n  %x = call i32 @llvm.amdgcn.mbcnt.hi()\n  ret void\n}\ndeclare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)\n",
    ),
];

fn run_all(file: &std::path::Path) -> Vec<(String, common::Outcome)> {
    let f = file.to_str().expect("utf-8 path");
    let page = format!("{f}.html");
    command_lines(f, &page)
        .iter()
        .map(|args| {
            let mut cmd = Command::new(common::converge_bin());
            cmd.args(args);
            (args.join(" "), common::run(cmd, b"", LIMIT))
        })
        .collect()
}

/// The command lines every module goes through: every subcommand, several formats and modes.
fn command_lines(f: &str, page: &str) -> Vec<Vec<String>> {
    let cmds: &[&[&str]] = &[
        &["stats", f],
        &["cycles", f],
        &["cycles", "--format", "llvm", f],
        &["uniformity", "--target", "amdgpu", f],
        &["uniformity", "--target", "nvptx", "--format", "json", f],
        &["uniformity", "--format", "llvm", "--llvm-version", "19", f],
        &["verify", f],
        &["verify", "--format", "json", f],
        &["explain", f],
        &["dot", "--uniformity", "--instructions", f],
        &["uniformity", "--mode", "precise", "--format", "json", f],
        &["explain", "--mode", "precise", f],
        &["explain", "--llvm-version", "19", "--format", "json", f],
        &["dot", "--uniformity", "--llvm-version", "19", f],
        &["stats", "--format", "json", f],
        &["simulate", "--step-limit", "1000", f],
        &[
            "simulate",
            "--step-limit",
            "1000",
            "--threads",
            "3",
            "--mem",
            "#0=1,2,3",
            "--group-id",
            "1",
            "--num-groups",
            "2",
            "--anchor-groups",
            "2",
            "--format",
            "json",
            f,
        ],
        &["explore", "--step-limit", "1000", "-o", page, f],
        &[
            "check-transform",
            "--step-limit",
            "1000",
            "--time-limit",
            "5",
            "--max-executions",
            "8",
            f,
            f,
        ],
        &["insert-tokens", f],
    ];
    cmds.iter()
        .map(|c| c.iter().map(|a| a.to_string()).collect())
        .collect()
}

/// Every subcommand of `converge --help` is among the command lines above, so a new subcommand
/// cannot skip this test (its library work joins `fuzz/pipeline.rs` likewise).
#[test]
fn every_subcommand_is_exercised() {
    let out = Command::new(common::converge_bin())
        .arg("--help")
        .output()
        .expect("converge --help");
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let list = help.split("Commands:").nth(1).expect("Commands: in --help");
    let subs: Vec<&str> = list
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l[2..].starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(subs.len() >= 10, "{subs:?}");
    let run: Vec<String> = command_lines("x.ll", "x.html")
        .into_iter()
        .map(|c| c[0].clone())
        .collect();
    for s in subs {
        assert!(
            run.iter().any(|r| r == s),
            "robustness_pipeline does not run `{s}`"
        );
    }
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(format!("{name}.ll"));
    std::fs::write(&p, text).expect("write input");
    p
}

fn tmpdir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("converge-robust-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// `simulate` exits 2 when it cannot run (with a message) and 1 when a thread stopped on an error
/// or the step limit, or a barrier was not reached by the whole group (each named on stderr).
fn simulate_refused_or_stopped(cmd: &str, o: &common::Outcome) -> bool {
    let named =
        o.stderr_str().contains("error: thread ") || o.stderr_str().contains("error: barrier ");
    (cmd.starts_with("simulate") && (o.code == Some(2) || (o.code == Some(1) && named)))
        || check_refused(cmd, o)
}

/// `check-transform FILE FILE` compares a module with itself: it refuses (exit 2, with a message)
/// when no single function can be picked or the module breaks the token rules, and otherwise must
/// find no violation (exit 0).
fn check_refused(cmd: &str, o: &common::Outcome) -> bool {
    cmd.starts_with("check-transform")
        && o.code == Some(2)
        && o.stderr_str().contains("error:")
        && !o.stderr_str().contains("panicked")
}

#[test]
fn odd_valid_modules_are_analysed_by_every_subcommand() {
    let dir = tmpdir("valid");
    for (name, text) in VALID {
        let p = write(&dir, name, text);
        for (cmd, o) in run_all(&p) {
            // simulate may legitimately refuse (no function to run, step limit): exit 2 with a
            // message; or run and find a thread stopped on an error: exit 1, saying which. Never
            // a crash or hang.
            let ok = o.code == Some(0) || simulate_refused_or_stopped(&cmd, &o);
            assert!(
                ok && !o.stderr_str().contains("panicked"),
                "{name}: `converge {cmd}` ended with {}\n--- input ---\n{text}\n--- stderr ---\n{}",
                o.describe_end(),
                o.stderr_str()
            );
        }
    }
}

#[test]
fn token_violations_exit_1_and_other_commands_still_work() {
    let dir = tmpdir("tokens");
    for (name, text) in TOKEN_INVALID {
        let p = write(&dir, name, text);
        for (cmd, o) in run_all(&p) {
            let want = if cmd.starts_with("verify") { 1 } else { 0 };
            let ok = o.code == Some(want) || simulate_refused_or_stopped(&cmd, &o);
            assert!(
                ok && !o.stderr_str().contains("panicked"),
                "{name}: `converge {cmd}` ended with {} (want exit {want})\n--- stderr ---\n{}",
                o.describe_end(),
                o.stderr_str()
            );
        }
    }
}

#[test]
fn unreadable_modules_exit_2_with_a_located_excerpt() {
    let dir = tmpdir("bad");
    for (name, text) in UNREADABLE {
        let p = write(&dir, name, text);
        let shown = p.display().to_string();
        for (cmd, o) in run_all(&p) {
            let err = o.stderr_str();
            // `--> path:line:col` followed by an excerpt line with a caret.
            let marker = format!("--> {shown}:");
            let located = err.find(&marker).is_some_and(|at| {
                let rest = &err[at + marker.len()..];
                let pos = rest.lines().next().unwrap_or_default();
                let mut parts = pos.split(':');
                let num = |x: Option<&str>| {
                    x.is_some_and(|n| n.trim().parse::<u32>().is_ok_and(|v| v > 0))
                };
                num(parts.next()) && num(parts.next())
            });
            // `explore` leaves no page behind.
            let no_page = !std::path::Path::new(&format!("{shown}.html")).exists();
            assert!(
                o.code == Some(2)
                    && located
                    && no_page
                    && err.contains('^')
                    && !err.contains("panicked"),
                "{name}: `converge {cmd}` ended with {}\n--- stderr ---\n{err}",
                o.describe_end()
            );
        }
    }
}
