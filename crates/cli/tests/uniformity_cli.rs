//! `converge uniformity` as a command: formats, flags, determinism across thread counts, errors.

mod common;

use converge_gen::program::{Flavor, Options, module};
use converge_gen::rng::Rng;
use std::process::Command;

fn converge() -> Command {
    Command::new(common::converge_bin())
}

fn sample(name: &str, flavor: Flavor, n: usize) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("converge-uniformity-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let mut rng = Rng::new(42);
    let mut opts = Options::new(flavor);
    opts.unreachable = true;
    std::fs::write(&path, module(&mut rng, n, &opts)).unwrap();
    path
}

#[test]
fn output_does_not_depend_on_the_thread_count() {
    let file = sample("threads.ll", Flavor::Nvptx, 60);
    for format in ["llvm", "json", "text"] {
        let run = |threads: &str| {
            let out = converge()
                .env("RAYON_NUM_THREADS", threads)
                .args(["uniformity", "--format", format])
                .arg(&file)
                .output()
                .unwrap();
            assert!(out.status.success());
            out.stdout
        };
        assert_eq!(run("1"), run("2"), "--format {format}");
    }
}

#[test]
fn json_is_valid_and_agrees_with_the_llvm_format() {
    let file = sample("json.ll", Flavor::Amdgpu, 20);
    let out = converge()
        .args(["uniformity", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let funcs = v["functions"].as_array().unwrap();
    assert_eq!(funcs.len(), 20);
    let llvm = String::from_utf8(
        converge()
            .args(["uniformity", "--format", "llvm"])
            .arg(&file)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    // Every divergent instruction of the JSON shows up as a DIVERGENT line of the LLVM format.
    let json_div: usize = funcs
        .iter()
        .flat_map(|f| f["blocks"].as_array().unwrap().iter())
        .flat_map(|b| b["instructions"].as_array().unwrap().iter())
        .filter(|i| i["divergent"].as_bool().unwrap())
        .count();
    let llvm_div = llvm
        .lines()
        .filter(|l| l.starts_with("  DIVERGENT:   "))
        .count();
    assert_eq!(json_div, llvm_div);
}

#[test]
fn none_format_prints_nothing_and_time_goes_to_stderr() {
    let file = sample("none.ll", Flavor::Nvptx, 5);
    let out = converge()
        .args(["uniformity", "--format", "none", "--time"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("uniformity") && err.contains("parse"), "{err}");
}

#[test]
fn a_target_without_divergence_is_all_uniform() {
    let file = sample("none-target.ll", Flavor::Nvptx, 3);
    let out = converge()
        .args(["uniformity", "--format", "llvm", "--target", "none"])
        .arg(&file)
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert_eq!(s.matches("ALL VALUES UNIFORM").count(), 3, "{s}");
}

#[test]
fn unreadable_input_is_exit_code_2_with_a_location() {
    let dir = std::env::temp_dir().join(format!("converge-uniformity-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.ll");
    std::fs::write(
        &bad,
        "define void @f() {\nentry:\n  %x = add i32 %nope,\n}\n",
    )
    .unwrap();
    let out = converge().args(["uniformity"]).arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.ll:"), "{err}");
    let missing = converge()
        .args(["uniformity", "/nonexistent/x.ll"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
}

/// `-j N` sets the worker threads; `-j 1` also keeps the reader on one thread (the module here is
/// above the two-thread reader's 4 MiB threshold). The output is the same for every N.
#[test]
fn jobs_flag_keeps_the_output_and_rejects_zero() {
    let dir = std::env::temp_dir().join(format!("converge-uniformity-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("jobs.ll");
    let mut rng = Rng::new(9);
    let mut opts = Options::new(Flavor::Amdgpu);
    opts.min_blocks = 50;
    opts.max_blocks = 120;
    let text = module(&mut rng, 260, &opts);
    assert!(text.len() > 4 << 20, "{} bytes", text.len());
    std::fs::write(&file, text).unwrap();
    let run = |jobs: &str| {
        let out = converge()
            .args(["-j", jobs, "uniformity", "--format", "llvm"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "-j {jobs}");
        out.stdout
    };
    let one = run("1");
    assert!(!one.is_empty());
    assert_eq!(one, run("2"));
    assert_eq!(one, run("3"));
    let out = converge()
        .args(["uniformity", "--jobs", "0"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--jobs"));
}

/// The readable text names a big cycle by its header and size (`reports::cycle_brief`): every
/// block names its innermost cycle, and listing the blocks of each made the text quadratic in a
/// deep nest (issue 13: 1.2 GB for a 16,000-block `irreducible` function in precise mode). Text
/// of a 4,000-block function of that family (a nest thousands deep) stays under 1 KB a block
/// and a small cycle is still listed in full.
#[test]
fn readable_text_stays_linear_in_a_deep_nest() {
    let dir = std::env::temp_dir().join(format!("converge-uniformity-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("deep-nest.ll");
    let n = 4000;
    let text = converge_gen::program::irreducible_module(&mut Rng::new(3), n);
    std::fs::write(&path, text).unwrap();
    for mode in ["llvm", "precise"] {
        let out = converge()
            .args(["uniformity", "--mode", mode])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{mode}");
        let s = String::from_utf8(out.stdout).unwrap();
        assert!(
            s.len() < 1000 * n,
            "{mode}: {} bytes for {n} blocks",
            s.len()
        );
        assert!(
            s.contains(" blocks\n") && s.contains(": header b"),
            "{mode}: no brief cycle"
        );
    }
    // A small loop keeps LLVM's full line.
    let small = dir.join("small-loop.ll");
    std::fs::write(
        &small,
        "target triple = \"amdgcn-amd-amdhsa\"\ndefine void @f(i1 %c) {\nentry:\n  br label %h\nh:\n  br i1 %c, label %h, label %x\nx:\n  ret void\n}\n",
    )
    .unwrap();
    let out = converge()
        .args(["uniformity"])
        .arg(&small)
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("; in cycle depth=1: entries(h)"), "{s}");
}
