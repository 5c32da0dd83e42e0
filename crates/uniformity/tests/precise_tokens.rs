//! Precise mode's token rules whose expected answers come from "Convergent Operation Semantics"
//! directly (the simulator cannot show them: its convergence regions are whole blocks).
//! An `anchor` captures an implementation-defined group of threads, so `readfirstlane` controlled
//! by it returns one value per group: uniform inside the anchor's convergence region (program
//! points dominated by the anchor from which a use of it is reachable), where threads are
//! converged only within a group (*Controlled Maximal Convergence*), and divergent after the
//! region's last program point, even in the same block (P6 in docs/precise-mode.md); LLVM mode
//! keeps the target's always-uniform rule everywhere.

use converge_ir::{FuncId, Module};
use converge_uniformity::llvm::{LlvmFunction, Target};
use converge_uniformity::{LlvmVersion, Mode, SsaFunction, Structure, Val, analyze_with};

const ANCHOR: &str = r#"
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()

define amdgpu_kernel void @f() convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %a = call token @llvm.experimental.convergence.anchor()
  %by.anchor = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid) [ "convergencectrl"(token %a) ]
  %in.region = add i32 %by.anchor, 1
  %last = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %in.region) [ "convergencectrl"(token %a) ]
  %after = add i32 %by.anchor, 2
  %by.entry = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid) [ "convergencectrl"(token %e) ]
  ret void
}
"#;

fn divergent(m: &Module, mode: Mode, name: &str) -> bool {
    let fid = FuncId(m.functions.iter().position(|f| !f.is_declaration).unwrap() as u32);
    let lf = LlvmFunction::new(m, fid);
    let s = Structure::new(lf.cfg());
    let t = Target::from_triple(m.triple.as_deref(), None);
    let u = analyze_with(&lf, &t, &s, mode);
    let i = (0..lf.num_insts())
        .find(|&i| m.value_name(fid, converge_ir::Value::Inst(converge_ir::InstId(i))) == name)
        .unwrap_or_else(|| panic!("no {name}"));
    u.is_divergent(Val::Inst(converge_uniformity::Inst(i)))
}

#[test]
fn anchor_controlled_readfirstlane_is_uniform_only_in_the_region() {
    let m = converge_ir::parse("anchor.ll", ANCHOR.to_string()).unwrap();
    assert!(!divergent(&m, Mode::Precise, "%by.anchor"));
    assert!(!divergent(&m, Mode::Precise, "%in.region"));
    assert!(divergent(&m, Mode::Precise, "%after"));
    // `entry`: the whole group, as maximal convergence at the function's start: one value.
    assert!(!divergent(&m, Mode::Precise, "%by.entry"));
    // LLVM ignores tokens: both always uniform.
    assert!(!divergent(&m, Mode::Llvm(LlvmVersion::V22), "%by.anchor"));
    assert!(!divergent(&m, Mode::Llvm(LlvmVersion::V22), "%after"));
}
