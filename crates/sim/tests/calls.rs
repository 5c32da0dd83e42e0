//! Calls into functions of the module are executed in a new activation: exact results, recursion
//! bounded by the step limit, and convergent operations inside the callee communicate with the
//! threads of converged call instances ("Convergent Operation Semantics": the callee's `entry`
//! token takes the call site's converged threads).

use converge_sim::hierarchy::Hierarchy;
use converge_sim::interp::{ArgValue, Options, Program, Status, Target, run};

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
fn callees_are_executed() {
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
            .position(|i| matches!(i.name(), converge_ir::LocalName::Named(s) if m.strings.resolve(s) == name))
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
    // @talks is entered by all four threads from one converged call instance: its readfirstlane
    // reads thread 0's id.
    assert_eq!(vals("f"), vec!["0"; 4]);
    let talks: Vec<_> = r.groups.iter().filter(|g| g.convergent).collect();
    assert_eq!(talks.len(), 1);
    assert_eq!(talks[0].threads, vec![0, 1, 2, 3]);
    assert_eq!(
        m.strings
            .resolve(m.functions[talks[0].func.0 as usize].name),
        "talks"
    );
    assert_eq!(talks[0].stack.len(), 1);
    assert_eq!(talks[0].stack[0].1.0, named("f"));
    // Instances inside callees are not part of the caller's table.
    assert!(r.threads.iter().all(|t| t.blocks.len() == 1));
}

fn run_text(
    text: &str,
    func: &str,
    threads: u32,
    step_limit: u64,
) -> (converge_ir::Module, converge_sim::interp::Run) {
    let m = converge_ir::parse("calls.ll", text.to_string()).unwrap();
    let r = {
        let f = m
            .functions
            .iter()
            .find(|f| m.strings.resolve(f.name) == func)
            .unwrap();
        let prog = Program::new(&m, f, Target::Amdgpu);
        let h = Hierarchy::llvm(&prog.cfg);
        run(
            &prog,
            &h,
            &Options {
                threads,
                step_limit,
                target: Target::Amdgpu,
                ..Options::default()
            },
        )
    };
    (m, r)
}

/// Per convergent group (in release order): the threads and each thread's result.
fn groups(r: &converge_sim::interp::Run) -> Vec<(Vec<u32>, Vec<String>)> {
    r.groups
        .iter()
        .enumerate()
        .filter(|(_, g)| g.convergent)
        .map(|(k, g)| {
            let vals = g
                .threads
                .iter()
                .map(|&t| {
                    r.threads[t as usize]
                        .ops
                        .iter()
                        .find(|o| o.group as usize == k)
                        .unwrap()
                        .val
                        .render()
                })
                .collect();
            (g.threads.clone(), vals)
        })
        .collect()
}

/// The same callee called from two call sites of a divergent branch: the threads of each call
/// site communicate only with each other (the callee's instances are converged only for
/// converged call instances).
#[test]
fn divergent_call_sites_do_not_communicate() {
    let text = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define internal i32 @first(i32 %x) {
  %y = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x)
  ret i32 %y
}

define amdgpu_kernel void @k() {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp ult i32 %tid, 2
  br i1 %c, label %a, label %b
a:
  %ra = call i32 @first(i32 %tid)
  br label %j
b:
  %rb = call i32 @first(i32 %tid)
  br label %j
j:
  %r = call i32 @first(i32 %tid)
  ret void
}
"#;
    let (_, r) = run_text(text, "k", 4, 10_000);
    // Threads 0, 1 through %a (first lane 0), 2, 3 through %b (first lane 2); all four at the
    // join, converged again (first lane 0).
    assert_eq!(
        groups(&r),
        vec![
            (vec![0, 1], vec!["0".to_string(); 2]),
            (vec![2, 3], vec!["2".to_string(); 2]),
            (vec![0, 1, 2, 3], vec!["0".to_string(); 4]),
        ]
    );
    assert!(r.failures().is_empty(), "{:?}", r.failures());
}

/// A callee whose convergent operation uses its `entry` token, called with an anchor's token in
/// a divergent branch: the entry token takes the converged threads of the call (seed 004's
/// inlining example: the same groups as the operation inlined with the anchor's token).
#[test]
fn entry_token_takes_the_call_sites_threads() {
    let text = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()

define internal i64 @vote(i1 %p) convergent {
  %e = call token @llvm.experimental.convergence.entry()
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 %p) [ "convergencectrl"(token %e) ]
  ret i64 %b
}

define amdgpu_kernel void @k() convergent {
entry:
  %t = call token @llvm.experimental.convergence.anchor()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %odd = trunc i32 %tid to i1
  %c = icmp ult i32 %tid, 3
  br i1 %c, label %a, label %j
a:
  %v = call i64 @vote(i1 %odd) [ "convergencectrl"(token %t) ]
  br label %j
j:
  ret void
}
"#;
    let (_, r) = run_text(text, "k", 4, 10_000);
    // Threads 0..2 call @vote; the odd one among them is thread 1: ballot = 0b10.
    assert_eq!(groups(&r), vec![(vec![0, 1, 2], vec!["2".to_string(); 3])]);
}

/// Recursion: exact results, and an unbounded recursion stops at the step limit (a failure).
#[test]
fn recursion_is_bounded_by_the_step_limit() {
    let text = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()

define internal i32 @fact(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %one, label %rec
one:
  ret i32 1
rec:
  %m = sub i32 %n, 1
  %f = call i32 @fact(i32 %m)
  %p = mul i32 %n, %f
  ret i32 %p
}

define internal i32 @forever(i32 %n) {
  %r = call i32 @forever(i32 %n)
  ret i32 %r
}

define amdgpu_kernel i32 @k() {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %n = add i32 %tid, 2
  %f = call i32 @fact(i32 %n)
  ret i32 %f
}

define amdgpu_kernel i32 @loops() {
  %r = call i32 @forever(i32 1)
  ret i32 %r
}
"#;
    let (_, r) = run_text(text, "k", 3, 10_000);
    let rets: Vec<_> = r.threads.iter().map(|t| t.status.clone()).collect();
    // 2! 3! 4!
    assert_eq!(
        rets,
        ["2", "6", "24"]
            .iter()
            .map(|v| Status::Returned(Some(v.to_string())))
            .collect::<Vec<_>>()
    );
    let (_, r) = run_text(text, "loops", 2, 500);
    assert!(r.threads.iter().all(|t| t.status == Status::StepLimit));
    assert_eq!(r.failures().len(), 2);
    // The activations a thread holds are bounded too (2^24 values over the group): with 1024
    // threads, 16384 values each, @fat's activations (200 instructions, 1 block; the recursive
    // call first) stop at depth 82 (82 * 201 > 16384), long before the step limit.
    let mut fat = String::from(
        "define internal i32 @fat(i32 %n) {\n  %r = call i32 @fat(i32 %n)\n  %a0 = add i32 %r, 1\n",
    );
    for k in 1..198 {
        fat.push_str(&format!("  %a{k} = add i32 %a{}, 1\n", k - 1));
    }
    fat.push_str(
        "  ret i32 %a197\n}\ndefine i32 @k() {\n  %r = call i32 @fat(i32 0)\n  ret i32 %r\n}\n",
    );
    let (m, r) = run_text(&fat, "k", 1024, 100_000);
    assert_eq!(m.functions[0].insts.len(), 200);
    for t in &r.threads {
        match &t.status {
            Status::Error(e) => assert!(
                e.contains("call stack too deep: entering @fat at depth 82 "),
                "{e}"
            ),
            s => panic!("{s:?}"),
        }
    }
}

/// The API the transform checker uses: a callee's cycle hierarchy can be chosen
/// (`Program::callee_functions`, `run_with`). In the callee, the irreducible cycle {A, B} is
/// entered at A by thread 1 and at B by thread 0, and the ballot is in B: when B is the header,
/// both threads' first B instances follow no header instance and converge ([0 1]); when A is the
/// header, thread 1's B follows its A instance and thread 0's follows none ([0], [1]).
#[test]
fn callee_hierarchy_can_be_chosen() {
    let text = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i64 @llvm.amdgcn.ballot.i64(i1)

define internal void @irr(i32 %tid) {
entry:
  %odd = trunc i32 %tid to i1
  br i1 %odd, label %A, label %B
A:
  br label %B
B:
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  %never = icmp eq i32 %tid, 100
  br i1 %never, label %A, label %exit
exit:
  ret void
}

define amdgpu_kernel void @k() {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  call void @irr(i32 %tid)
  ret void
}
"#;
    let m = converge_ir::parse("calls.ll", text.to_string()).unwrap();
    let f = m
        .functions
        .iter()
        .find(|f| m.strings.resolve(f.name) == "k")
        .unwrap();
    let prog = Program::new(&m, f, Target::Amdgpu);
    let h = Hierarchy::llvm(&prog.cfg);
    let callees = prog.callee_functions();
    assert_eq!(callees.len(), 1);
    let irr = &m.functions[callees[0].0 as usize];
    assert_eq!(m.strings.resolve(irr.name), "irr");
    let cfg = converge_sim::interp::function_cfg(irr);
    let opts = Options {
        threads: 2,
        target: Target::Amdgpu,
        ..Options::default()
    };
    let mut seen = Vec::new();
    for ch in [Hierarchy::llvm(&cfg), Hierarchy::reversed(&cfg)] {
        let header = ch.cycles[0].header;
        let r = converge_sim::interp::run_with(&prog, &h, &[(callees[0], &ch)], &opts);
        let sets: Vec<Vec<u32>> = groups(&r).into_iter().map(|g| g.0).collect();
        // Blocks: entry 0, A 1, B 2.
        let want: Vec<Vec<u32>> = if header.0 == 2 {
            vec![vec![0, 1]]
        } else {
            vec![vec![0], vec![1]]
        };
        let mut got = sets.clone();
        got.sort();
        assert_eq!(got, want, "header {header:?}");
        seen.push(header.0);
    }
    seen.sort();
    assert_eq!(seen, vec![1, 2], "both headers tried");
}

/// An anchor grouping choice: threads maximally converged at the anchor are grouped by part.
#[test]
fn anchor_grouping_can_be_chosen() {
    let text = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare token @llvm.experimental.convergence.anchor()

define amdgpu_kernel void @k() convergent {
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 true) [ "convergencectrl"(token %a) ]
  ret void
}
"#;
    let (_, r) = run_text(text, "k", 4, 1000);
    assert_eq!(
        groups(&r),
        vec![(vec![0, 1, 2, 3], vec!["15".to_string(); 4])]
    );
    let m = converge_ir::parse("a.ll", text.to_string()).unwrap();
    let f = m.functions.iter().find(|f| !f.is_declaration).unwrap();
    let prog = Program::new(&m, f, Target::Amdgpu);
    let h = Hierarchy::llvm(&prog.cfg);
    let r = run(
        &prog,
        &h,
        &Options {
            threads: 4,
            target: Target::Amdgpu,
            anchor_parts: vec![0, 1, 0, 1],
            ..Options::default()
        },
    );
    // Parts {0, 2} and {1, 3}: ballots 0b0101 and 0b1010.
    let mut got = groups(&r);
    got.sort();
    assert_eq!(
        got,
        vec![
            (vec![0, 2], vec!["5".to_string(); 2]),
            (vec![1, 3], vec!["10".to_string(); 2]),
        ]
    );
}
