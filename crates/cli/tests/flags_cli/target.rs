//! `--target` with LLVM's names and triples, `-mtriple=`/`-mcpu=` as `opt` reads them, on every
//! subcommand (the target-independent ones accept and check them too).

use super::*;

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
