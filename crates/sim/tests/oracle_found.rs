//! Simulator bugs the soundness oracle found on LLVM's own tests (converge-oracle's
//! `oracle_real_code.rs`), pinned.

use converge_sim::hierarchy::Hierarchy;
use converge_sim::interp::{ArgValue, Options, Program, Target, run};
use converge_sim::report::{Verdict, value_uniformity};

/// `llvm.amdgcn.if.break.i64.i64` (the mangled name) was taken for a per-thread `llvm.amdgcn.if*`
/// intrinsic: converged threads got different masks. It is the wave's ballot of the condition or'ed
/// with the saved mask, the same in every converged thread.
#[test]
fn mangled_if_break_is_a_ballot() {
    let text = r#"target triple = "amdgcn-amd-amdhsa"
declare i64 @llvm.amdgcn.if.break.i64.i64(i1, i64)
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_ps void @f(i32 %arg0, i64 inreg %saved) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %cond = icmp eq i32 %tid, 1
  %break = call i64 @llvm.amdgcn.if.break.i64.i64(i1 %cond, i64 %saved)
  ret void
}
"#;
    let m = converge_ir::parse("ifbreak.ll", text.to_string()).unwrap();
    let fi = m.functions.iter().position(|f| !f.is_declaration).unwrap();
    let f = &m.functions[fi];
    let prog = Program::new(&m, f, Target::Amdgpu);
    let r = run(
        &prog,
        &Hierarchy::llvm(&prog.cfg),
        &Options {
            threads: 4,
            args: vec![Some(ArgValue::Int(0)), Some(ArgValue::Int(8))],
            target: Target::Amdgpu,
            ..Options::default()
        },
    );
    let brk = (0..f.insts.len())
        .position(|i| {
            let id = converge_ir::InstId(i as u32);
            f.inst(id).op == converge_ir::Opcode::Call && f.operands(id).len() == 2
        })
        .unwrap();
    let v = value_uniformity(&r, f.insts.len());
    let (_, verdict) = v.iter().find(|(i, _)| i.0 as usize == brk).unwrap();
    assert!(
        matches!(verdict, Verdict::Uniform { shared: 1, .. }),
        "{verdict:?}"
    );
    // ballot(tid == 1) = 0b10, or'ed with the saved mask 8.
    let val = r.threads[0]
        .records
        .iter()
        .find(|x| x.inst.0 as usize == brk)
        .unwrap()
        .val
        .render();
    assert_eq!(val, "10");
}
