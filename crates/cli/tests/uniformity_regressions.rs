//! Regression tests for uniformity questions that came up in the corpus runner: each one either
//! compares `converge uniformity` live with `opt` on a small module of our own, or checks a target
//! rule that no available LLVM build can answer (AMDGPU `callbr`: LLVM 22 here lacks AMDGPU and
//! LLVM 19 predates the rule).

mod common;

use common::printed::{self, Report};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn converge_report(module: &str, name: &str, extra: &[&str]) -> BTreeMap<String, Report> {
    let dir = std::env::temp_dir().join(format!(
        "converge-uniformity-regressions-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, module).unwrap();
    let out = Command::new(common::converge_bin())
        .args(["uniformity", "--format", "llvm"])
        .args(extra)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "converge failed on {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    printed::parse_uniformity(&String::from_utf8(out.stdout).unwrap())
}

fn opt_report(opt: &Path, module: &str) -> BTreeMap<String, Report> {
    let out = converge_gen::reference::run_opt(
        opt,
        &["-passes=print<uniformity>", "-disable-output"],
        module,
    );
    assert!(out.success, "opt rejected the module:\n{}", out.stderr);
    printed::parse_uniformity(&out.stderr)
}

fn assert_same(ours: &BTreeMap<String, Report>, theirs: &BTreeMap<String, Report>, v22: bool) {
    let d = printed::diff(ours, theirs, v22);
    assert!(d.is_empty(), "converge vs LLVM:\n{}", d.join("\n"));
}

/// A cycle A-B (two entries) containing an irreducible cycle P-T entered from C, with a divergent
/// branch at Q inside the inner cycle whose paths meet again at S. LLVM 19's join early stop
/// (issue 137277) makes it also report the outer cycle with a divergent exit; LLVM 22 does not.
/// The corpus runner compared converge's default (22) answer against 19 and flagged it.
fn nested_irreducible(header: &str, source: &str) -> String {
    format!(
        r#"{header}
define {{cc}} void @nested(i32 %u, i32 %w) {{
start:
  %uni = icmp sgt i32 %u, 7
  %lane = call i32 {source}()
  %div = icmp sgt i32 %lane, 3
  br i1 %uni, label %A, label %B
A:
  br label %B
B:
  br i1 %uni, label %C, label %D
C:
  br i1 %uni, label %P, label %T
P:
  %p = phi i32 [ %u, %C ], [ %w, %T ]
  br i1 %uni, label %R, label %Q
Q:
  %q = add i32 %w, 2
  br i1 %div, label %S, label %R
R:
  %r = add i32 %w, 3
  br label %S
S:
  %s = phi i32 [ %q, %Q ], [ %r, %R ]
  %s1 = add i32 %p, %s
  br i1 %uni, label %D, label %T
D:
  br i1 %uni, label %done, label %A
T:
  %t = phi i32 [ %s1, %S ], [ %u, %C ]
  br label %P
done:
  ret void
}}
declare i32 {source}()
"#
    )
}

fn nvptx_nested() -> String {
    nested_irreducible(
        "target triple = \"nvptx64-nvidia-cuda\"",
        "@llvm.nvvm.read.ptx.sreg.tid.x",
    )
    .replace("{cc}", "ptx_kernel")
}

fn amdgpu_nested() -> String {
    nested_irreducible(
        "target triple = \"amdgcn-amd-amdhsa\"",
        "@llvm.amdgcn.workitem.id.x",
    )
    .replace("{cc}", "amdgpu_kernel")
}

#[test]
fn nested_irreducible_divergent_exit_matches_llvm22() {
    let Some(opt) = converge_gen::reference::opt22("nested_irreducible_divergent_exit (22)") else {
        return;
    };
    let m = nvptx_nested();
    let ours = converge_report(&m, "nested22.ll", &[]);
    assert_same(&ours, &opt_report(&opt, &m), true);
    // The inner cycle is entered on diverged paths, so the shape exercises the criterion.
    assert!(!ours["nested"].assumed_divergent.is_empty());
}

#[test]
fn nested_irreducible_divergent_exit_matches_llvm19_in_19_mode() {
    let Some(opt) = converge_gen::reference::opt19("nested_irreducible_divergent_exit (19)") else {
        return;
    };
    for (name, m) in [("nv19.ll", nvptx_nested()), ("amd19.ll", amdgpu_nested())] {
        let ours = converge_report(&m, name, &["--llvm-version", "19"]);
        assert_same(&ours, &opt_report(&opt, &m), false);
        // The shape must keep exercising the 19/22 difference in divergent exits.
        let default = converge_report(&m, name, &[]);
        assert_ne!(
            ours["nested"].divergent_exit, default["nested"].divergent_exit,
            "{name}: LLVM 19 and 22 modes agree, the shape no longer tests issue 137277"
        );
    }
}

/// Whether the terminator of `block` is printed DIVERGENT.
fn term_divergent(r: &Report, block: &str, needle: &str) -> bool {
    let (_, es) = r
        .blocks
        .iter()
        .find(|(b, _)| b == block)
        .unwrap_or_else(|| panic!("no block {block}"));
    es.iter()
        .find(|e| e.text.contains(needle))
        .unwrap_or_else(|| panic!("no {needle} in {block}"))
        .divergent
}

/// `callbr` to a call that is not inline asm (LLVM 19's verifier rejects it).
const AMDGPU_CALLBR_KILL: &str = r#"
declare void @llvm.amdgcn.kill(i1)

define void @kill(i1 inreg %c) {
entry:
  callbr void @llvm.amdgcn.kill(i1 %c) to label %go [label %dead]
dead:
  unreachable
go:
  ret void
}
"#;

/// `callbr` to inline asm: no outputs with a divergent operand, an SGPR output, a VGPR output.
const AMDGPU_CALLBR_ASM: &str = r#"target triple = "amdgcn-amd-amdhsa"
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

define amdgpu_kernel void @asm_sgpr(ptr addrspace(1) %out) {
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %v = callbr i32 asm "s_mov_b32 $0, $1", "=s,v,!i"(i32 %x) to label %a [label %b]
a:
  store i32 %v, ptr addrspace(1) %out
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

#[test]
fn amdgpu_callbr_follows_the_call_rules() {
    let m = format!("{AMDGPU_CALLBR_ASM}{AMDGPU_CALLBR_KILL}");
    let r = converge_report(&m, "callbr.ll", &[]);
    // A call other than inline asm is a source even with uniform operands.
    assert!(term_divergent(&r["kill"], "entry", "callbr"));
    // Inline asm without VGPR outputs is always uniform, whatever its operands.
    assert!(!term_divergent(&r["asm_in"], "entry", "callbr"));
    assert!(r["asm_sgpr"].all_uniform || !term_divergent(&r["asm_sgpr"], "entry", "callbr"));
    // A VGPR output makes it a source.
    assert!(term_divergent(&r["asm_vgpr"], "entry", "callbr"));
}

#[test]
fn amdgpu_callbr_asm_matches_llvm19_in_19_mode() {
    let Some(opt) = converge_gen::reference::opt19("amdgpu_callbr_asm (19)") else {
        return;
    };
    // LLVM 19's hooks only looked at `call`: its `callbr` was neither a source nor always uniform.
    let ours = converge_report(AMDGPU_CALLBR_ASM, "callbr19.ll", &["--llvm-version", "19"]);
    assert_same(&ours, &opt_report(&opt, AMDGPU_CALLBR_ASM), false);
}

#[test]
fn nvptx_callbr_asm_matches_llvm22() {
    let Some(opt) = converge_gen::reference::opt22("nvptx_callbr_asm") else {
        return;
    };
    // LLVM 22 accepts `callbr` only to inline asm and a few AMDGPU intrinsics, so NVPTX has
    // only the asm forms: operands propagate (no always-uniform rule), outputs are not sources.
    let m = r#"target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @asm_in(ptr %out) {
entry:
  %x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  callbr void asm "", "r,!i"(i32 %x) to label %a [label %b]
a:
  store i32 1, ptr %out
  ret void
b:
  ret void
}

define ptx_kernel void @asm_out(ptr %out, i32 %u) {
entry:
  %v = callbr i32 asm "mov.u32 $0, $1;", "=r,r,!i"(i32 %u) to label %a [label %b]
a:
  %w = add i32 %v, 1
  store i32 %w, ptr %out
  ret void
b:
  ret void
}

define void @device(ptr %out, i32 %u) {
entry:
  callbr void asm "", "r,!i"(i32 %u) to label %a [label %b]
a:
  store i32 1, ptr %out
  ret void
b:
  ret void
}
"#;
    assert_same(
        &converge_report(m, "nvcallbr.ll", &[]),
        &opt_report(&opt, m),
        true,
    );
}
