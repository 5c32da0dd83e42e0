//! Convergence regions are sets of program points, and a heart's value is converged as its token
//! is ("Convergent Operation Semantics", *Convergence Regions*, *Controlled Maximal
//! Convergence*). Expected answers are derived by hand from the seed's definitions.

use converge_sim::hierarchy::Hierarchy;
use converge_sim::interp::{Options, Program, Run, Target, run};
use converge_sim::report::{Verdict, value_uniformity};

fn run_text(text: &str, threads: u32) -> (converge_ir::Module, Run) {
    let m = converge_ir::parse("regions.ll", text.to_string()).unwrap();
    let r = {
        let f = m.functions.iter().find(|f| !f.is_declaration).unwrap();
        let prog = Program::new(&m, f, Target::Amdgpu);
        let h = Hierarchy::llvm(&prog.cfg);
        run(
            &prog,
            &h,
            &Options {
                threads,
                target: Target::Amdgpu,
                ..Options::default()
            },
        )
    };
    (m, r)
}

fn verdict(m: &converge_ir::Module, r: &Run, name: &str) -> Verdict {
    let f = m.functions.iter().find(|f| !f.is_declaration).unwrap();
    let id = f
        .insts
        .iter()
        .position(
            |i| matches!(i.name(), converge_ir::LocalName::Named(s) if m.strings.resolve(s) == name),
        )
        .unwrap() as u32;
    value_uniformity(r, f.insts.len())
        .into_iter()
        .find(|(i, _)| i.0 == id)
        .unwrap()
        .1
}

/// Thread t runs t + 1 iterations, then a ballot in the exit block uses the heart's token: the
/// region of the heart extends to that use and ends there. `%before` (above the use) is compared
/// only between threads that left in the same iteration (none here: every instance alone);
/// `%after` (below the last use) is outside the region, where the threads are maximally converged
/// at the exit block and `%i.next` = t + 1 differs: divergent (temporal divergence).
#[test]
fn the_region_ends_at_the_last_use() {
    let text = r#"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()

define void @k() convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %h = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %i.next = add i32 %i, 1
  %c = icmp ule i32 %i.next, %tid
  br i1 %c, label %loop, label %exit
exit:
  %before = add i32 %i.next, 0
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 true) [ "convergencectrl"(token %h) ]
  %after = add i32 %i.next, 100
  ret void
}
"#;
    let (m, r) = run_text(text, 3);
    assert!(r.failures().is_empty(), "{:?}", r.failures());
    assert_eq!(
        verdict(&m, &r, "before"),
        Verdict::Uniform {
            classes: 3,
            shared: 0
        }
    );
    assert!(
        matches!(verdict(&m, &r, "after"), Verdict::Divergent { .. }),
        "{:?}",
        verdict(&m, &r, "after")
    );
    // Each thread's ballot is alone (it left in its own iteration): one lane bit each.
    let sets: Vec<Vec<u32>> = r.groups.iter().map(|g| g.threads.clone()).collect();
    assert_eq!(sets, vec![vec![0], vec![1], vec![2]]);
}

/// A heart in a block of the loop that is not its header (the static rules forbid it; the
/// simulator still runs it). Two iterations; thread 1 skips `%body` in the first one. Its only
/// heart instance is its first (n = 1), converged with thread 0's first: the ballot groups are
/// [0 1] and [0], and the heart's value is reported the same way: two classes, one shared.
#[test]
fn heart_values_follow_the_token() {
    let text = r#"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()

define void @k() convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %one = icmp eq i32 %tid, 1
  %first = icmp eq i32 %i, 0
  %skip = and i1 %one, %first
  br i1 %skip, label %latch, label %body
body:
  %h = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 true) [ "convergencectrl"(token %h) ]
  br label %latch
latch:
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i.next, 2
  br i1 %c, label %head, label %exit
exit:
  ret void
}
"#;
    let (m, r) = run_text(text, 2);
    let sets: Vec<Vec<u32>> = r.groups.iter().map(|g| g.threads.clone()).collect();
    let mut sorted = sets.clone();
    sorted.sort();
    assert_eq!(sorted, vec![vec![0], vec![0, 1]], "{sets:?}");
    assert_eq!(
        verdict(&m, &r, "h"),
        Verdict::Uniform {
            classes: 2,
            shared: 1
        }
    );
    // The ballot's values: 0b11 for the shared instance, 0b01 for thread 0's second.
    assert_eq!(
        verdict(&m, &r, "b"),
        Verdict::Uniform {
            classes: 2,
            shared: 1
        }
    );
}
