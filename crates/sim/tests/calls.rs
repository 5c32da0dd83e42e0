//! Calls into functions of the module: self-contained callees (no communication, no shared memory,
//! no tokens) run inline with exact results; others are not entered and say so.

use converge_sim::hierarchy::Hierarchy;
use converge_sim::interp::{ArgValue, Options, Program, Target, run};

const TEXT: &str = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define internal i32 @tri(i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  %i.next = add i32 %i, 1
  %acc.next = add i32 %acc, %i.next
  %more = icmp ult i32 %i.next, %n
  br i1 %more, label %loop, label %done
done:
  %r = call i32 @sq(i32 %acc.next)
  ret i32 %r
}

define internal i32 @sq(i32 %x) {
  %y = mul i32 %x, %x
  ret i32 %y
}

define internal i32 @talks(i32 %x) {
  %y = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x)
  ret i32 %y
}

define amdgpu_kernel void @k(i32 %u) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %n = add i32 %tid, 1
  %d = call i32 @tri(i32 %n)
  %e = call i32 @tri(i32 %u)
  %f = call i32 @talks(i32 %tid)
  ret void
}
"#;

#[test]
fn self_contained_callees_run_inline() {
    let m = converge_ir::parse("calls.ll", TEXT.to_string()).unwrap();
    let f = m
        .functions
        .iter()
        .find(|f| m.strings.resolve(f.name) == "k")
        .unwrap();
    let prog = Program::new(&m, f, Target::Amdgpu);
    let h = Hierarchy::llvm(&prog.cfg);
    let r = run(
        &prog,
        &h,
        &Options {
            threads: 4,
            args: vec![Some(ArgValue::Int(3))],
            target: Target::Amdgpu,
            ..Options::default()
        },
    );
    let named = |name: &str| {
        f.insts
            .iter()
            .position(|i| matches!(i.name, converge_ir::LocalName::Named(s) if m.strings.resolve(s) == name))
            .unwrap() as u32
    };
    let vals = |name: &str| -> Vec<String> {
        let id = named(name);
        r.threads
            .iter()
            .map(|t| {
                t.records
                    .iter()
                    .find(|x| x.inst.0 == id)
                    .unwrap()
                    .val
                    .render()
            })
            .collect()
    };
    // tri(n) = (1 + ... + n)^2.
    assert_eq!(vals("d"), vec!["1", "9", "36", "100"]);
    assert_eq!(vals("e"), vec!["36"; 4]);
    // @talks communicates: not entered, a per-thread value, and a note.
    let f_vals = vals("f");
    assert_ne!(f_vals[0], f_vals[1]);
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("calls to @talks are not entered")),
        "{:?}",
        r.notes
    );
    // Instances inside callees are not part of the caller's table.
    assert!(r.threads.iter().all(|t| t.blocks.len() == 1));
}
