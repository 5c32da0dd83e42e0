//! `converge cycles --format llvm` against `opt -passes='print<cycles>'`, live, on random CFGs
//! (`converge_gen::cfg`, every shape), ~100 functions per module: one `opt` and one `converge` run
//! per module. Half the functions have numbered (unnamed) blocks, so the IR reader's slot numbering
//! is exercised too. On a mismatch: the seed, the function's `.ll` and both outputs.
//!
//! - LLVM 22 (the reference), unreachable blocks included: the printed cycles must be identical
//!   (order included).
//! - LLVM 19 on CFGs whose blocks are all reachable: identical too.
//! - LLVM 19 with unreachable blocks, with `--llvm 19` (unreachable predecessors are entries).

mod common;

use converge_gen::cfg::{
    CfgParams, PrintedCycles, RandomCfg, Shape, parse_print_cycles, random_cfg, to_ll,
    to_ll_numbered,
};
use converge_gen::reference::{opt19, opt22, run_opt};
use converge_gen::rng::Rng;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn converge_llvm(module: &str, tag: &str, extra: &[&str]) -> String {
    let dir = std::env::temp_dir().join(format!("converge-cycles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{tag}.ll"));
    std::fs::write(&file, module).unwrap();
    let mut cmd = Command::new(common::converge_bin());
    cmd.args(["cycles", "--format", "llvm"])
        .args(extra)
        .arg(&file);
    let out = common::run(cmd, b"", Duration::from_secs(60));
    assert!(
        out.success(),
        "converge cycles failed ({}):\n{}",
        out.describe_end(),
        out.stderr_str()
    );
    let _ = std::fs::remove_file(&file);
    out.stdout_str()
}

fn section<'a>(text: &'a str, name: &str) -> &'a str {
    let head = format!("CycleInfo for function: {name}\n");
    let Some(i) = text.find(&head) else {
        return "";
    };
    let rest = &text[i..];
    let end = rest[head.len()..]
        .find("CycleInfo for function: ")
        .map_or(rest.len(), |e| e + head.len());
    &rest[..end]
}

#[allow(clippy::too_many_arguments)]
fn differential(
    opt: &Path,
    tag: &str,
    seed: u64,
    count: usize,
    shapes: &[Shape],
    unreachable: bool,
    extra: &[&str],
) -> usize {
    let mut rng = Rng::new(seed);
    let mut cycles = 0;
    let mut done = 0;
    while done < count {
        let k = 100.min(count - done);
        let mut module = String::new();
        let mut cfgs: Vec<(RandomCfg, bool)> = Vec::new();
        for i in 0..k {
            let shape = shapes[(done + i) % shapes.len()];
            let size = if rng.chance(1, 10) {
                60 + rng.below(150)
            } else {
                4 + rng.below(40)
            };
            let mut p = CfgParams::new(shape, size);
            p.allow_unreachable = unreachable;
            let cfg = random_cfg(&mut rng, &p);
            let numbered = i % 2 == 1;
            let name = format!("f{i}");
            module.push_str(&if numbered {
                to_ll_numbered(&cfg, &name)
            } else {
                to_ll(&cfg, &name)
            });
            cfgs.push((cfg, numbered));
        }
        let theirs = run_opt(opt, &["-passes=print<cycles>", "-disable-output"], &module);
        assert!(
            theirs.success,
            "opt failed (seed {seed}):\n{}",
            theirs.stderr
        );
        let ours = converge_llvm(&module, &format!("{tag}-{done}"), extra);
        let t: Vec<PrintedCycles> = parse_print_cycles(&theirs.stderr).unwrap();
        let o: Vec<PrintedCycles> = parse_print_cycles(&ours).unwrap();
        assert_eq!(t.len(), k);
        assert_eq!(o.len(), k, "one CycleInfo per function:\n{ours}");
        for i in 0..k {
            if t[i] != o[i] {
                let name = format!("f{i}");
                let (cfg, numbered) = &cfgs[i];
                let ll = if *numbered {
                    to_ll_numbered(cfg, &name)
                } else {
                    to_ll(cfg, &name)
                };
                panic!(
                    "{tag}: cycle mismatch, seed {seed:#x}, batch at {done}, function {name}\n--- reproducer ---\n{ll}--- opt ---\n{}--- converge ---\n{}",
                    section(&theirs.stderr, &name),
                    section(&ours, &name)
                );
            }
            cycles += t[i].cycles.len();
        }
        done += k;
    }
    cycles
}

#[test]
fn converge_cycles_matches_llvm22_on_random_cfgs() {
    let Some(opt) = opt22("converge_cycles_matches_llvm22_on_random_cfgs") else {
        return;
    };
    let cycles = differential(&opt, "llvm22", 0xC22, 3000, &Shape::ALL, true, &[]);
    assert!(cycles > 2000, "{cycles} cycles");
}

#[test]
fn converge_cycles_matches_llvm19_on_reachable_random_cfgs() {
    let Some(opt) = opt19("converge_cycles_matches_llvm19_on_reachable_random_cfgs") else {
        return;
    };
    let cycles = differential(&opt, "llvm19", 0xC19, 3000, &Shape::ALL, false, &[]);
    assert!(cycles > 2000, "{cycles} cycles");
}

#[test]
fn converge_cycles_llvm19_mode_matches_llvm19_with_unreachable_blocks() {
    let Some(opt) = opt19("converge_cycles_llvm19_mode_matches_llvm19_with_unreachable_blocks")
    else {
        return;
    };
    let shapes = [Shape::Unreachable, Shape::Mixed];
    let cycles = differential(
        &opt,
        "llvm19u",
        0xC1919,
        500,
        &shapes,
        true,
        &["--llvm", "19"],
    );
    assert!(cycles > 500, "{cycles} cycles");
}
