//! `--llvm-version main` (alias `--llvm main`) on `uniformity`, `cycles` and `verify`: LLVM's
//! development branch. Expected answers come from LLVM's own lit tests (the corpus runner,
//! `corpus_lit.rs`, runs them in this mode); here the flag itself: accepted where an LLVM release
//! is reproduced, the main-only rules visible on a small program, the rest unchanged, a bad
//! value exit 2.

mod common;

use std::process::Command;

fn converge(args: &[&str], stdin_file: &str) -> (i32, String, String) {
    let o = Command::new(common::converge_bin())
        .args(args)
        .arg(stdin_file)
        .output()
        .expect("runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn write(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("converge-llvm-main-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// A kernel with a 64 x 2 work-group on gfx900 (wave64): `x >> 6` is uniform for LLVM main's
/// rule (any known wave size) and for 22's only when y and z are 1, so the two modes differ;
/// NVPTX's generic load through a global pointer is a source in 22 only.
#[test]
fn main_rules_differ_from_22_where_lit_tests_say_so() {
    let amd = write(
        "amd.ll",
        "target triple = \"amdgcn-amd-amdhsa\"\n\
         declare i32 @llvm.amdgcn.workitem.id.x()\n\
         define amdgpu_kernel void @k() #0 !reqd_work_group_size !0 {\n\
         entry:\n  %x = call i32 @llvm.amdgcn.workitem.id.x()\n  %w = lshr i32 %x, 6\n  ret void\n}\n\
         attributes #0 = { \"target-cpu\"=\"gfx900\" }\n\
         !0 = !{i32 64, i32 2, i32 1}\n",
    );
    let (c22, out22, _) = converge(&["uniformity", "--format", "llvm"], &amd);
    let (cm, outm, _) = converge(
        &["uniformity", "--format", "llvm", "--llvm-version", "main"],
        &amd,
    );
    let (ca, outa, _) = converge(&["uniformity", "--format", "llvm", "--llvm", "main"], &amd);
    assert_eq!((c22, cm, ca), (0, 0, 0));
    assert!(out22.contains("DIVERGENT:   %w = lshr"), "{out22}");
    assert!(!outm.contains("DIVERGENT:   %w"), "{outm}");
    assert_eq!(outm, outa, "--llvm main is an alias");

    let nv = write(
        "nv.ll",
        "target triple = \"nvptx64-nvidia-cuda\"\n\
         define ptx_kernel void @k(ptr addrspace(1) %p) {\n\
         entry:\n  %g = addrspacecast ptr addrspace(1) %p to ptr\n  %v = load i32, ptr %g, align 4\n  ret void\n}\n",
    );
    let (_, out22, _) = converge(&["uniformity", "--format", "llvm"], &nv);
    let (_, outm, _) = converge(
        &["uniformity", "--format", "llvm", "--llvm-version", "main"],
        &nv,
    );
    assert!(out22.contains("DIVERGENT:   %v = load"), "{out22}");
    assert!(outm.contains("ALL VALUES UNIFORM"), "{outm}");
}

#[test]
fn cycles_and_verify_take_main_and_bad_values_are_usage_errors() {
    let f = "examples/divergent-loop.ll";
    let root = converge_gen::reference::repo_root();
    let f = root.join(f).to_string_lossy().into_owned();
    for sub in ["cycles", "verify", "uniformity"] {
        let (code, _, err) = converge(&[sub, "--llvm-version", "main"], &f);
        assert_eq!(code, 0, "{sub}: {err}");
        let (code, _, err) = converge(&[sub, "--llvm-version", "18"], &f);
        assert_eq!(code, 2, "{sub} --llvm-version 18: {err}");
        assert!(
            err.contains("main"),
            "the error names the accepted values: {err}"
        );
    }
    // A reducible function: main's print order is 22's (only irreducible cycles' own blocks
    // are listed differently).
    let (_, c22, _) = converge(&["cycles", "--format", "llvm"], &f);
    let (_, cm, _) = converge(
        &["cycles", "--format", "llvm", "--llvm-version", "main"],
        &f,
    );
    assert_eq!(c22, cm);
}
