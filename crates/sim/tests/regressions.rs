//! Regression tests for simulator bugs found by the oracle.

use converge_sim::hierarchy::enumerate;
use converge_sim::interp::{ArgValue, Options, Program, Target, run};
use converge_sim::report::{Verdict, check_groups, value_uniformity};

/// Oracle seed 7321: running one `Program` under several hierarchies reused header-avoiding
/// reachability computed for the previous hierarchy, and a readfirstlane group was released early.
#[test]
fn reachability_is_recomputed_per_hierarchy() {
    let path = format!(
        "{}/tests/seeds/regress_hierarchy_cache.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    let m = converge_ir::parse(&path, std::fs::read_to_string(&path).unwrap()).unwrap();
    let f = m.functions.iter().find(|f| !f.is_declaration).unwrap();
    let prog = Program::new(&m, f, Target::Amdgpu);
    let e = enumerate(&prog.cfg, 256);
    assert_eq!(e.hierarchies.len(), 2);
    let opts = Options {
        threads: 2,
        args: vec![Some(ArgValue::Int(6)), Some(ArgValue::Int(6))],
        seed: 7321,
        step_limit: 4000,
        target: Target::Amdgpu,
        ..Options::default()
    };
    let rfl = f
        .insts
        .iter()
        .position(
            |i| matches!(i.name(), converge_ir::LocalName::Named(s) if m.strings.resolve(s) == "v9"),
        )
        .unwrap();
    // Both orders of running the hierarchies.
    for order in [[0usize, 1], [1, 0]] {
        for k in order {
            let r = run(&prog, &e.hierarchies[k], &opts);
            check_groups(&r).unwrap();
            let v = value_uniformity(&r, f.insts.len());
            let (_, verdict) = v.iter().find(|(i, _)| i.0 as usize == rfl).unwrap();
            assert!(
                matches!(verdict, Verdict::Uniform { .. }),
                "hierarchy [{k}]: {verdict:?}"
            );
        }
    }
}

/// The LLVM corpus's `use_in_cycle` shape (a token from outside a cycle used inside it, which the
/// static rules forbid): the scheduler released the same (operation, token) instance once per
/// iteration. Now the n-th executions with one token value are taken as converged, with a note.
#[test]
fn token_reused_in_a_cycle_is_counted_and_reported() {
    let text = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.anchor()
declare i64 @subgroupBallot(i1) convergent

define void @reuse() {
A:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %tok = call token @llvm.experimental.convergence.anchor()
  br label %B
B:
  %i = phi i32 [ 0, %A ], [ %i.next, %B ]
  %b = call i64 @subgroupBallot(i1 true) [ "convergencectrl"(token %tok) ]
  %i.next = add i32 %i, 1
  %more = icmp ule i32 %i.next, %tid
  br i1 %more, label %B, label %C
C:
  ret void
}
"#;
    let m = converge_ir::parse("reuse.ll", text.to_string()).unwrap();
    let f = m.functions.iter().find(|f| !f.is_declaration).unwrap();
    let prog = Program::new(&m, f, Target::Amdgpu);
    let h = converge_sim::hierarchy::Hierarchy::llvm(&prog.cfg);
    let r = run(
        &prog,
        &h,
        &Options {
            threads: 3,
            target: Target::Amdgpu,
            ..Options::default()
        },
    );
    check_groups(&r).unwrap();
    let groups: Vec<Vec<u32>> = r.groups.iter().map(|g| g.threads.clone()).collect();
    assert_eq!(groups, vec![vec![0, 1, 2], vec![1, 2], vec![2]]);
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("breaks the static rules on cycles")),
        "{:?}",
        r.notes
    );
}

/// Oracle seed 113299 (14-block run): `select` on an undef condition returned one arm when the
/// other was undef, turning "any value" into a concrete per-thread choice; `%v8` then looked
/// divergent although every refinement may pick the same value. LLVM (and we) call it uniform.
#[test]
fn select_on_undef_keeps_undef() {
    let text = r#"target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @f(i32 %a0, i32 %a1, ptr %q) {
b0:
  %v2 = load i32, ptr %q, align 4
  %c4 = icmp slt i32 %a0, %v2
  br i1 %c4, label %b1, label %b3
b1:
  br label %b3
b3:
  %v7 = phi i32 [ 0, %b1 ], [ undef, %b0 ]
  %c9 = icmp ult i32 %v7, %v7
  %v8 = select i1 %c9, i32 %a1, i32 %v7
  ret void
}
"#;
    let m = converge_ir::parse("undef.ll", text.to_string()).unwrap();
    let f = &m.functions[0];
    let prog = Program::new(&m, f, Target::Amdgpu);
    let h = converge_sim::hierarchy::Hierarchy::llvm(&prog.cfg);
    let r = run(
        &prog,
        &h,
        &Options {
            threads: 6,
            args: vec![Some(ArgValue::Int(2)), Some(ArgValue::Int(-1))],
            seed: 113299,
            target: Target::Amdgpu,
            ..Options::default()
        },
    );
    let v = value_uniformity(&r, f.insts.len());
    let c4 = &v.iter().find(|(i, _)| i.0 == 1).unwrap().1;
    assert!(matches!(c4, Verdict::Divergent { .. }), "both paths taken");
    let v8 = &v.last().unwrap().1;
    assert!(matches!(v8, Verdict::Uniform { .. }), "{v8:?}");
}

/// Pipeline fuzzer (`crates/cli/examples/fuzz_pipeline.rs`, seed 3): a call passing fewer
/// arguments than the intrinsic takes (accepted by the opaque-pointer call syntax, rejected by
/// LLVM's verifier) indexed past the argument list and panicked. Now the thread stops with an
/// error naming the intrinsic.
#[test]
fn intrinsic_called_with_too_few_arguments_stops_the_thread() {
    for (call, name) in [
        ("call i32 @llvm.amdgcn.mbcnt.hi()", "llvm.amdgcn.mbcnt.hi"),
        (
            "call i32 @llvm.amdgcn.mbcnt.lo(i32 -1)",
            "llvm.amdgcn.mbcnt.lo",
        ),
        ("call i32 @llvm.smin.i32(i32 1)", "llvm.smin.i32"),
        ("call i32 @llvm.ctpop.i32()", "llvm.ctpop.i32"),
        ("call i32 @llvm.abs.i32()", "llvm.abs.i32"),
        (
            "call i1 @llvm.amdgcn.inverse.ballot.i64()",
            "llvm.amdgcn.inverse.ballot.i64",
        ),
    ] {
        let text = format!("define amdgpu_kernel void @k() {{\n  %x = {call}\n  ret void\n}}\n");
        let m = converge_ir::parse("few_args.ll", text).unwrap();
        let f = m.functions.iter().find(|f| !f.is_declaration).unwrap();
        let prog = Program::new(&m, f, Target::Amdgpu);
        let h = converge_sim::hierarchy::Hierarchy::llvm(&prog.cfg);
        let opts = Options {
            threads: 2,
            target: Target::Amdgpu,
            ..Options::default()
        };
        let r = run(&prog, &h, &opts);
        for t in &r.threads {
            match &t.status {
                converge_sim::interp::Status::Error(msg) => {
                    assert!(msg.contains(name), "{call}: unexpected message {msg}")
                }
                s => panic!("{call}: expected an error status, got {s:?}"),
            }
        }
    }
}

/// Oracle seed 49600 (`CONVERGE_ORACLE_INPUTS=1`): a `@conv` in `b5` controlled by the loop heart
/// `%tok1` is reached by every thread with the same heart instance (the first iteration of `b1`),
/// three of them after leaving the inner loop `b6` at different iterations. The scheduler held
/// its group back (the static test ignored that a heart instance needs its parent token's value),
/// then ran the blocking threads ahead on copies whose `@conv` results were computed for
/// incomplete groups, concluded they would not come, and released the class twice: for threads
/// 0 and 4, later for 1, 2 and 3. By "Convergent Operation Semantics" the five instances are
/// converged (same token value, the operation executed once per thread with it): one group.
#[test]
fn a_heart_controlled_class_is_released_once() {
    let path = format!(
        "{}/tests/seeds/regress_split_heart.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    let m = converge_ir::parse(&path, std::fs::read_to_string(&path).unwrap()).unwrap();
    let f = m.functions.iter().find(|f| !f.is_declaration).unwrap();
    let prog = Program::new(&m, f, Target::Nvptx);
    let e = enumerate(&prog.cfg, 256);
    let v18 = f
        .insts
        .iter()
        .position(
            |i| matches!(i.name(), converge_ir::LocalName::Named(s) if m.strings.resolve(s) == "v18"),
        )
        .unwrap() as u32;
    // The oracle's arguments for seed 49600: %a0 = -2, %a1 = 0.
    let opts = Options {
        threads: 5,
        args: vec![Some(ArgValue::Int(-2)), Some(ArgValue::Int(0)), None, None],
        seed: 49600,
        step_limit: 20_000,
        target: Target::Nvptx,
        ..Options::default()
    };
    for (k, h) in e.hierarchies.iter().enumerate() {
        let r = run(&prog, h, &opts);
        check_groups(&r).unwrap_or_else(|e| panic!("hierarchy [{k}]: {e}"));
        let at_v18: Vec<&Vec<u32>> = r
            .groups
            .iter()
            .filter(|g| g.inst.0 == v18)
            .map(|g| &g.threads)
            .collect();
        assert_eq!(at_v18, vec![&vec![0, 1, 2, 3, 4]], "hierarchy [{k}]");
        assert!(
            !r.notes.iter().any(|n| n.contains("scheduling")),
            "hierarchy [{k}]: {:?}",
            r.notes
        );
    }
}
