//! The one intrinsic table (`converge_ir::intrinsics::amdgpu`) cross-checked against its two
//! readers: an intrinsic the table says is the same in every lane of the group is never seen
//! with different values on converged threads by the simulator, even for thread-dependent
//! operands; one it says computes a value of each lane's own is a divergence source for the
//! analysis (LLVM 22's rules and precise mode), and the simulator shows converged threads with
//! different values for it even with uniform operands (cross-lane permutes excepted: they move
//! `src0` between lanes, so a uniform `src0` stays uniform).

use converge_ir::intrinsics::amdgpu::{Computes, sample_names};
use converge_ir::{FuncId, InstId, Module};
use converge_sim::hierarchy::enumerate;
use converge_sim::interp::{ArgValue, Options, Program, Target, run};
use converge_sim::report::{Verdict, inst_name, value_uniformity};
use converge_uniformity::llvm::{LlvmFunction, Target as UTarget};
use converge_uniformity::{DivergenceModel, Mode, SsaFunction, Structure, Val, analyze_with};

/// A kernel calling `name` once as `%v`: with thread-dependent operands for group-uniform
/// intrinsics, with uniform ones (from the argument `%n`) for per-lane ones.
fn module(name: &str, c: Computes) -> String {
    let (ret, params, args) = match (c, name) {
        (_, n) if n.contains("workitem.id") => ("i32", "", ""),
        (_, n) if n.ends_with(".icmp") => ("i64", "i32, i32, i32", "i32 %x, i32 %n, i32 32"),
        (_, n) if n.ends_with(".fcmp") => {
            ("i64", "float, float, i32", "float %xf, float 1.0, i32 1")
        }
        (_, n) if n.ends_with(".ballot") => ("i64", "i1", "i1 %c"),
        (_, n) if n.ends_with(".if.break") => ("i64", "i1, i64", "i1 %c, i64 0"),
        (_, n) if n.ends_with(".readlane") => ("i32", "i32, i32", "i32 %x, i32 %x"),
        (_, n) if n.contains("mbcnt") => ("i32", "i32, i32", "i32 %n, i32 %n"),
        (_, n) if n.ends_with("writelane") => ("i32", "i32, i32, i32", "i32 %n, i32 %n, i32 %n"),
        (_, n) if n.ends_with(".var") => (
            "i32",
            "i32, i32, i32, i1, i1",
            "i32 %n, i32 %n, i32 %n, i1 false, i1 false",
        ),
        (_, n) if n.contains("permlane") => (
            "i32",
            "i32, i32, i32, i32, i1, i1",
            "i32 %n, i32 %n, i32 %n, i32 0, i1 false, i1 false",
        ),
        (_, n) if n.ends_with("inverse.ballot") => ("i1", "i64", "i64 %n64"),
        (Computes::GroupUniform, _) => ("i32", "i32", "i32 %x"),
        (Computes::PerLane, _) => ("i32", "i32", "i32 %n"),
    };
    let decl = if name == "llvm.amdgcn.workitem.id.x" {
        String::new()
    } else {
        format!("declare {ret} @{name}({params})\n")
    };
    format!(
        "target triple = \"amdgcn-amd-amdhsa\"\n\
         declare i32 @llvm.amdgcn.workitem.id.x()\n\
         {decl}\
         define amdgpu_kernel void @k(i32 %n) !reqd_work_group_size !0 {{\n\
         entry:\n\
           %x = call i32 @llvm.amdgcn.workitem.id.x()\n\
           %xf = sitofp i32 %x to float\n\
           %c = icmp ult i32 %x, 2\n\
           %n64 = zext i32 %n to i64\n\
           %v = call {ret} @{name}({args})\n\
           ret void\n}}\n\
         !0 = !{{i32 2, i32 2, i32 16}}\n"
    )
}

/// The simulator's verdict on `%v` over 40 threads (a 2 x 2 x 16 work-group, so that every
/// work-item id varies, and lanes above 32 for `mbcnt.hi`), every hierarchy, `%n` = 5.
fn simulated(m: &Module) -> Option<String> {
    let f = &m.functions[m.functions.iter().position(|f| !f.is_declaration).unwrap()];
    let prog = Program::new(m, f, Target::Amdgpu);
    let e = enumerate(&prog.cfg, 4);
    let opts = Options {
        threads: 40,
        args: vec![Some(ArgValue::Int(5))],
        target: Target::Amdgpu,
        ..Options::default()
    };
    for h in &e.hierarchies {
        let r = run(&prog, h, &opts);
        for (i, v) in value_uniformity(&r, f.insts.len()) {
            if inst_name(m, f, i) == "%v"
                && let Verdict::Divergent { a, b } = v
            {
                return Some(format!("thread {}: {}, thread {}: {}", a.0, a.1, b.0, b.1));
            }
        }
    }
    None
}

#[test]
fn the_intrinsic_table_agrees_with_the_analysis_and_the_simulator() {
    let samples = sample_names();
    assert!(samples.len() > 40, "{} samples", samples.len());
    let mut checked_sim = 0;
    for (name, c) in &samples {
        let text = module(name, *c);
        let m =
            converge_ir::parse("t.ll", text.clone()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let fi = FuncId(m.functions.iter().position(|f| !f.is_declaration).unwrap() as u32);
        let lf = LlvmFunction::new(&m, fi);
        let v = (0..lf.num_insts())
            .find(|&i| inst_name(&m, lf.func, InstId(i)) == "%v")
            .unwrap();
        let t = UTarget::from_triple(m.triple.as_deref(), None);
        match c {
            Computes::GroupUniform => {
                assert!(
                    t.is_always_uniform(&lf, converge_uniformity::Inst(v)),
                    "{name}: always uniform for the analysis"
                );
                assert_eq!(
                    simulated(&m),
                    None,
                    "{name}: the simulator shows divergence"
                );
                checked_sim += 1;
            }
            Computes::PerLane => {
                assert!(
                    t.is_source_inst(&lf, converge_uniformity::Inst(v)),
                    "{name}: a source for LLVM 22's rules"
                );
                let u = analyze_with(&lf, &t, &Structure::new(lf.cfg()), Mode::Precise);
                // Precise mode: a source, except a permute whose `old` is its uniform `src0`
                // (docs/precise-mode.md: LLVM main's permlane16 rule).
                if !name.contains("permlane") {
                    assert!(
                        u.is_divergent(Val::Inst(converge_uniformity::Inst(v))),
                        "{name}: a source in precise mode"
                    );
                    assert!(
                        simulated(&m).is_some(),
                        "{name}: per lane, yet uniform in the simulator"
                    );
                    checked_sim += 1;
                }
            }
        }
    }
    assert!(checked_sim > 40, "{checked_sim} simulated");
}
