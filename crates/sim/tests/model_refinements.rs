//! LLVM main's target-model refinements against the simulator: where main's rule is sound,
//! precise mode takes it (its test programs are in `crates/uniformity/tests/precise/`, checked by
//! `oracle_precise.rs`); where it is not, the simulator shows converged lanes with different
//! values for a value main calls uniform, and precise mode calls that value divergent. Expected
//! answers come from the simulator; the LLVM-main claims are what its lit tests
//! (`workitem-expr.ll`, `uniform_intrinsic.ll`) print.

use converge_ir::{FuncId, InstId, Module};
use converge_sim::hierarchy::enumerate;
use converge_sim::interp::{ArgValue, Options, Program, Target, run};
use converge_sim::report::{Verdict, inst_name, value_uniformity};
use converge_uniformity::llvm::{LlvmFunction, Rules, Target as UTarget};
use converge_uniformity::{LlvmVersion, Mode, SsaFunction, Structure, Val, analyze_with};

/// Whether `name` is divergent in `f` (the first defined function) for the given rules and mode.
fn claims_divergent(m: &Module, name: &str, rules: Rules, mode: Mode) -> bool {
    let fi = m.functions.iter().position(|f| !f.is_declaration).unwrap();
    let f = &m.functions[fi];
    let lf = LlvmFunction::new(m, FuncId(fi as u32));
    let t = UTarget::from_triple(m.triple.as_deref(), Some("gfx900")).with_rules(rules);
    let u = analyze_with(&lf, &t, &Structure::new(lf.cfg()), mode);
    let i = (0..f.insts.len())
        .find(|&i| inst_name(m, f, InstId(i as u32)) == name)
        .expect("named value");
    u.is_divergent(Val::Inst(converge_uniformity::Inst(i as u32)))
}

/// The simulator's witness that `name` differs between converged threads, if any, for `threads`
/// lanes of wave `wave` of the work-group.
fn witness(m: &Module, name: &str, threads: u32, wave: u32, args: &[i128]) -> Option<String> {
    let fi = m.functions.iter().position(|f| !f.is_declaration).unwrap();
    let f = &m.functions[fi];
    let prog = Program::new(m, f, Target::Amdgpu);
    let e = enumerate(&prog.cfg, 16);
    let opts = Options {
        threads,
        wave,
        args: args.iter().map(|&a| Some(ArgValue::Int(a))).collect(),
        target: Target::Amdgpu,
        ..Options::default()
    };
    for h in &e.hierarchies {
        let r = run(&prog, h, &opts);
        for (i, v) in value_uniformity(&r, f.insts.len()) {
            if inst_name(m, f, i) == name
                && let Verdict::Divergent { a, b } = v
            {
                return Some(format!("thread {}: {}, thread {}: {}", a.0, a.1, b.0, b.1));
            }
        }
    }
    None
}

/// LLVM main calls `workitem.id.x >> 6` uniform whenever the wave size is known (its
/// `workitem-expr.ll`), whatever the work-group size. With a 65 x 2 work-group the second wave
/// holds x = 64 (row 0) and x = 0..62 (row 1): the simulator shows 1 and 0 on converged lanes.
/// Precise mode requires the x dimension to fill whole waves and calls it divergent; with
/// `reqd_work_group_size(64, 2, 1)` both agree it is uniform, and the simulator never differs.
#[test]
fn workitem_shift_is_uniform_only_when_x_fills_waves() {
    let text = |x: u32| {
        format!(
            "target triple = \"amdgcn-amd-amdhsa\"\n\
             declare i32 @llvm.amdgcn.workitem.id.x()\n\
             define amdgpu_kernel void @f() !reqd_work_group_size !0 {{\n\
             entry:\n  %x = call i32 @llvm.amdgcn.workitem.id.x()\n  %shr = lshr i32 %x, 6\n  ret void\n}}\n\
             !0 = !{{i32 {x}, i32 2, i32 1}}\n"
        )
    };
    let wraps = converge_ir::parse("wraps.ll", text(65)).unwrap();
    assert!(!claims_divergent(
        &wraps,
        "%shr",
        Rules::Main,
        Mode::Llvm(LlvmVersion::V22)
    ));
    assert!(claims_divergent(
        &wraps,
        "%shr",
        Rules::V22,
        Mode::Llvm(LlvmVersion::V22)
    ));
    assert!(claims_divergent(&wraps, "%shr", Rules::V22, Mode::Precise));
    let w = witness(&wraps, "%shr", 64, 1, &[]);
    assert!(w.is_some(), "wave 1 of a 65 x 2 group: x >> 6 differs");
    assert_eq!(
        witness(&wraps, "%shr", 64, 0, &[]),
        None,
        "wave 0 is x = 0..63"
    );

    let fills = converge_ir::parse("fills.ll", text(64)).unwrap();
    assert!(!claims_divergent(&fills, "%shr", Rules::V22, Mode::Precise));
    for wave in 0..2 {
        assert_eq!(witness(&fills, "%shr", 64, wave, &[]), None);
    }
}

/// LLVM main makes a permlane16's result follow `src0` only (`uniform_intrinsic.ll`), but a lane
/// whose source lane is not executing gets `old`: with a uniform `old` different from a uniform
/// `src0`, converged lanes differ. Precise mode calls it divergent.
#[test]
fn permlane16_with_a_different_old_is_divergent() {
    let text = "target triple = \"amdgcn-amd-amdhsa\"\n\
        declare i32 @llvm.amdgcn.permlane16.i32(i32, i32, i32, i32, i1 immarg, i1 immarg)\n\
        define amdgpu_kernel void @f(i32 %n) {\n\
        entry:\n  %x = add i32 %n, 3\n  %old = add i32 %n, 5\n\
          %p = call i32 @llvm.amdgcn.permlane16.i32(i32 %old, i32 %x, i32 15, i32 0, i1 false, i1 false)\n\
          ret void\n}\n";
    let m = converge_ir::parse("p.ll", text.to_string()).unwrap();
    assert!(!claims_divergent(
        &m,
        "%p",
        Rules::Main,
        Mode::Llvm(LlvmVersion::V22)
    ));
    assert!(claims_divergent(&m, "%p", Rules::V22, Mode::Precise));
    let w = witness(&m, "%p", 4, 0, &[1]).expect("lane 0 gets old, lane 1 src0");
    assert!(w.contains("6") && w.contains("4"), "{w}");

    // Main ignores even a divergent `old` (its test's `permlanex16(%v, %src0, …)`): the
    // operand-aware rule (`DivergenceModel::ignored_operands`) keeps the result uniform there,
    // and only there.
    let text = "target triple = \"amdgcn-amd-amdhsa\"\n\
        declare i32 @llvm.amdgcn.workitem.id.x()\n\
        declare i32 @llvm.amdgcn.permlanex16.i32(i32, i32, i32, i32, i1 immarg, i1 immarg)\n\
        define amdgpu_kernel void @f(i32 %n) {\n\
        entry:\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n\
          %p = call i32 @llvm.amdgcn.permlanex16.i32(i32 %t, i32 %n, i32 0, i32 0, i1 false, i1 false)\n\
          %q = call i32 @llvm.amdgcn.permlanex16.i32(i32 %n, i32 %t, i32 0, i32 0, i1 false, i1 false)\n\
          ret void\n}\n";
    let m = converge_ir::parse("x.ll", text.to_string()).unwrap();
    assert!(!claims_divergent(
        &m,
        "%p",
        Rules::Main,
        Mode::Llvm(LlvmVersion::V22)
    ));
    assert!(claims_divergent(
        &m,
        "%q",
        Rules::Main,
        Mode::Llvm(LlvmVersion::V22)
    ));
    assert!(claims_divergent(
        &m,
        "%p",
        Rules::V22,
        Mode::Llvm(LlvmVersion::V22)
    ));
    assert!(claims_divergent(&m, "%p", Rules::V22, Mode::Precise));
    // x16 with 4 threads: every source lane is in the other row, not executing: `old`, the
    // thread id, differs.
    assert!(witness(&m, "%p", 4, 0, &[1]).is_some());
}
