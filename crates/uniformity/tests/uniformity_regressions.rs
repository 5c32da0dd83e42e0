//! Small regression tests, one per mismatch found by the differential suites or the corpus, plus the
//! 19-vs-22 join difference (issue 137277) on the shape from the reference notes.

use converge_ir::{FuncId, LocalName, Module};
use converge_uniformity::llvm::{LlvmFunction, Target};
use converge_uniformity::{Inst, LlvmVersion, SsaFunction, Structure, Uniformity, Val, analyze_as};

fn parse(text: &str) -> Module {
    converge_ir::parse("test.ll", text.to_string())
        .unwrap_or_else(|d| panic!("{}", d.render("test.ll", text)))
}

fn run(m: &Module, name: &str, version: LlvmVersion) -> (Uniformity, Vec<String>) {
    let fid = FuncId(
        m.functions
            .iter()
            .position(|f| m.strings.resolve(f.name) == name)
            .expect("function") as u32,
    );
    let lf = LlvmFunction::new(m, fid);
    let s = Structure::new(lf.cfg());
    let target = Target::from_triple(m.triple.as_deref(), None);
    let u = analyze_as(&lf, &target, &s, version);
    let names = lf
        .func
        .insts
        .iter()
        .map(|i| match i.name() {
            LocalName::Named(s) => m.strings.resolve(s).to_string(),
            _ => String::new(),
        })
        .collect();
    (u, names)
}

fn divergent(u: &Uniformity, names: &[String], name: &str) -> bool {
    let i = names.iter().position(|n| n == name).expect("value");
    u.is_divergent(Val::Inst(converge_uniformity::Inst(i as u32)))
}

/// Overloaded intrinsics carry a type suffix (`readfirstlane.i32`); the tables name the base.
#[test]
fn amdgpu_intrinsic_tables_see_through_type_suffixes() {
    let m = parse(
        r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare { i1, i64 } @llvm.amdgcn.if.i64(i1)
define void @f(ptr addrspace(1) %p) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %t)
  %c = icmp eq i32 %t, 0
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 %c)
  %if = call { i1, i64 } @llvm.amdgcn.if.i64(i1 %c)
  %mask = extractvalue { i1, i64 } %if, 1
  %cond = extractvalue { i1, i64 } %if, 0
  ret void
}
"#,
    );
    let (u, n) = run(&m, "f", LlvmVersion::V22);
    assert!(divergent(&u, &n, "t"));
    assert!(
        !divergent(&u, &n, "r"),
        "readfirstlane.i32 is always uniform"
    );
    assert!(!divergent(&u, &n, "b"), "ballot.i64 is always uniform");
    assert!(divergent(&u, &n, "if"), "llvm.amdgcn.if.i64 is a source");
    assert!(
        !divergent(&u, &n, "mask"),
        "the mask of llvm.amdgcn.if.i64 is uniform"
    );
    assert!(divergent(&u, &n, "cond"));
}

/// Issue 137277: two chains from a divergent branch meet at B6, which branches again. LLVM 19's
/// floor heuristic stops before the second label reaches B6; LLVM 22 finds the join.
#[test]
fn join_after_two_chains_llvm19_misses_llvm22_finds() {
    let m = parse(
        r#"target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
define ptx_kernel void @f(i32 %a, i32 %b, ptr addrspace(1) %p) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp eq i32 %t, 0
  br i1 %c, label %B1, label %B3
B1:
  br label %B2
B2:
  br label %B5
B3:
  br label %B4
B4:
  br label %B5x
B5x:
  br label %B6
B5:
  br label %B6
B6:
  %x = phi i32 [ %a, %B5 ], [ %b, %B5x ]
  %c2 = icmp eq i32 %t, 1
  br i1 %c2, label %B7, label %B8
B7:
  br label %B8
B8:
  ret void
}
"#,
    );
    let (u22, n) = run(&m, "f", LlvmVersion::V22);
    assert!(
        divergent(&u22, &n, "x"),
        "the phi at the join of the two chains is divergent"
    );
    let (u19, n19) = run(&m, "f", LlvmVersion::V19);
    assert!(
        !divergent(&u19, &n19, "x"),
        "LLVM 19 mode reproduces the missed join (the CLI suite checks 19 mode live against opt 19)"
    );
}

/// LLVM's temporal-divergence list: an add in a loop with a divergent exit, used after the loop.
#[test]
fn temporal_divergence_is_recorded_for_uses_outside_the_cycle() {
    let m = parse(
        r#"target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
define ptx_kernel void @f(i32 %n, ptr addrspace(1) %p) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i1, %h ]
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %t
  br i1 %c, label %h, label %x
x:
  %u = add i32 %i1, %n
  store i32 %u, ptr addrspace(1) %p
  ret void
}
"#,
    );
    let (u, n) = run(&m, "f", LlvmVersion::V22);
    assert!(!divergent(&u, &n, "i1"), "uniform inside the loop");
    assert!(divergent(&u, &n, "u"), "temporally divergent outside");
    assert_eq!(u.divergent_exit_cycles.len(), 1);
    let i1 = n.iter().position(|x| x == "i1").unwrap() as u32;
    let uu = n.iter().position(|x| x == "u").unwrap() as u32;
    assert!(u.is_temporally_divergent(Inst(i1), Inst(uu)));
}

/// Single-lane AMDGPU functions have no divergence at all.
#[test]
fn amdgpu_single_lane_function_is_all_uniform() {
    let m = parse(
        r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
define void @f() #0 {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  ret void
}
attributes #0 = { "amdgpu-flat-work-group-size"="1,1" }
"#,
    );
    let (u, n) = run(&m, "f", LlvmVersion::V22);
    assert!(!u.analysed);
    assert!(!divergent(&u, &n, "t"));
}
