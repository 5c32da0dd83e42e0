//! What the oracle found, pinned: each program, the claim, and the simulator's contradiction.

use converge_oracle::check::{Mode, RunSpec, check, claims, main_function};
use converge_uniformity::LlvmVersion;

/// A ballot of a uniform condition under an `anchor`: the anchor's grouping is
/// implementation-defined, so an implementation may split the converged threads, and each part's
/// mask differs. After the anchor's last use the threads are converged again and see different
/// masks. LLVM (which ignores tokens) calls `%t` uniform; precise mode must not (oracle seed 3558,
/// found with `anchor_parts`).
const ANCHOR_BALLOT: &str = r#"target triple = "amdgcn-amd-amdhsa"
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare token @llvm.experimental.convergence.anchor()
define amdgpu_kernel void @f(i32 %a0) convergent {
entry:
  %anc = call token @llvm.experimental.convergence.anchor()
  %c = icmp sle i32 %a0, 100
  %m = call i64 @llvm.amdgcn.ballot.i64(i1 %c) [ "convergencectrl"(token %anc) ]
  %t = trunc i64 %m to i32
  ret void
}
"#;

#[test]
fn ballot_under_an_anchor_leaves_its_region_divergent() {
    let m = converge_ir::parse("anchor.ll", ANCHOR_BALLOT.to_string()).unwrap();
    let fi = main_function(&m).unwrap();
    let t = m.functions[fi.0 as usize]
        .insts
        .iter()
        .position(|i| i.op == converge_ir::Opcode::Trunc)
        .unwrap();
    let llvm = claims(&m, fi, Mode::Llvm(LlvmVersion::V22));
    let precise = claims(&m, fi, Mode::Precise);
    assert!(!llvm.divergent[t], "LLVM calls %t uniform");
    assert!(precise.divergent[t], "precise mode must call %t divergent");
    // The simulator: with the finer anchor grouping of the second input set, %t differs.
    let o = check(&m, fi, &llvm, &RunSpec::new(4, 1));
    assert!(o.violations.iter().any(|v| v.name == "%t"), "{o:?}");
    assert!(
        check(&m, fi, &precise, &RunSpec::new(4, 1))
            .violations
            .is_empty()
    );
}

/// gfx12's transposing load under its old overloaded name: a divergence source for newer LLVM and
/// converge's default (docs/llvm-differences.md 8), not for LLVM 19 (`--llvm-version 19`). The
/// oracle found it on the corpus's `intrinsics.ll`, in llvm and precise mode alike.
#[test]
fn global_load_tr_is_a_divergence_source() {
    let text = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @k(ptr addrspace(1) %addr, ptr addrspace(1) %out) {
entry:
  %tmp0 = call i32 @llvm.amdgcn.global.load.tr.i32(ptr addrspace(1) %addr)
  store i32 %tmp0, ptr addrspace(1) %out
  ret void
}
declare i32 @llvm.amdgcn.global.load.tr.i32(ptr addrspace(1))
"#;
    let m = converge_ir::parse("tr.ll", text.to_string()).unwrap();
    let fi = main_function(&m).unwrap();
    let v19 = claims(&m, fi, Mode::Llvm(LlvmVersion::V19));
    assert!(!v19.divergent[0], "LLVM 19 calls it uniform");
    for mode in [Mode::Llvm(LlvmVersion::V22), Mode::Precise] {
        assert!(claims(&m, fi, mode).divergent[0], "{mode:?}");
    }
    // The simulator: per-thread values, so LLVM 19's claim is violated.
    let o = check(&m, fi, &v19, &RunSpec::new(4, 1));
    assert!(o.violations.iter().any(|v| v.name == "%tmp0"), "{o:?}");
}

/// A loop heart whose parent token is an `anchor` inherits the anchor's implementation-defined
/// grouping: a `readfirstlane` of a per-thread value under the heart differs between the anchor's
/// groups, and a use after the anchor's region sees both (oracle seed 49889).
const HEART_UNDER_ANCHOR: &str = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
define amdgpu_kernel void @f(ptr %q) convergent {
entry:
  %anc = call token @llvm.experimental.convergence.anchor()
  %d = load i32, ptr %q
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %H ]
  %h = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %anc) ]
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %d) [ "convergencectrl"(token %h) ]
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i.next, 2
  br i1 %c, label %H, label %X
X:
  %m = call i64 @llvm.amdgcn.ballot.i64(i1 true) [ "convergencectrl"(token %anc) ]
  %u = add i32 %r, 1
  ret void
}
"#;

#[test]
fn heart_under_an_anchor_is_implementation_grouped() {
    let m = converge_ir::parse("heart.ll", HEART_UNDER_ANCHOR.to_string()).unwrap();
    let fi = main_function(&m).unwrap();
    let f = &m.functions[fi.0 as usize];
    let u = f
        .insts
        .iter()
        .rposition(|i| i.op == converge_ir::Opcode::Add)
        .unwrap();
    let llvm = claims(&m, fi, Mode::Llvm(LlvmVersion::V22));
    let precise = claims(&m, fi, Mode::Precise);
    assert!(!llvm.divergent[u], "LLVM calls %u uniform");
    assert!(precise.divergent[u], "precise mode must call %u divergent");
    let o = check(&m, fi, &llvm, &RunSpec::new(4, 1));
    assert!(o.violations.iter().any(|v| v.name == "%u"), "{o:?}");
    assert!(
        check(&m, fi, &precise, &RunSpec::new(4, 1))
            .violations
            .is_empty()
    );
}

/// Oracle seed 49600 with one input set (`CONVERGE_ORACLE_INPUTS=1`, as in the 100,000-program
/// run): the simulator's scheduler released one class of a heart-controlled `@conv` as two groups
/// ("instruction #34 class 22 was released twice"), which stopped the check. Now the case runs
/// and precise mode has no violation.
#[test]
fn seed_49600_runs_and_precise_mode_holds() {
    use converge_oracle::cases::{Generator, case, run_case};
    let mut c = case(49600, Generator::Oracle { blocks: 20 });
    c.inputs = 1;
    assert!(c.text.contains("convergence.loop()"), "{}", c.text);
    let (o, found) = run_case(&c, Mode::Precise);
    assert!(o.finished, "{o:?}");
    assert!(found.is_empty(), "{found:?}");
    assert!(o.covered > 0, "{o:?}");
}

/// Legacy-generator seed 5396 (the simulator crate's old oracle test found it and excused it by a
/// hand-kept list, since LLVM 19 disagrees and LLVM 22 has no AMDGPU backend): LLVM 22 misses the
/// join at a divergent branch block that is an entry of an irreducible cycle. Every violation of
/// the program is named by its pattern (docs/llvm-differences.md 1); precise mode has none.
#[test]
fn legacy_seed_5396_is_the_join_at_an_irreducible_entry() {
    use converge_oracle::cases::{Generator, case, run_case};
    use converge_oracle::classify::KnownBug;
    let c = case(5396, Generator::Legacy { blocks: 9 });
    let (_, found) = run_case(&c, Mode::Llvm(LlvmVersion::V22));
    assert!(!found.is_empty(), "{}", c.text);
    for f in &found {
        assert_eq!(
            f.known,
            Some(KnownBug::JoinAtIrreducibleEntry),
            "{:?}",
            f.violation
        );
    }
    eprintln!("seed 5396: {} violations, all named", found.len());
    let (_, found) = run_case(&c, Mode::Precise);
    assert!(found.is_empty(), "{found:?}");
}

/// docs/llvm-differences.md 11: a loop whose header ends in a divergent branch (round again
/// through `%A`, or on to the uniform exit in `%B`). Threads leave in different iterations with
/// different `%c` (the loop increments it in memory); LLVM 19/22, and so llvm mode, miss the
/// divergent exit. Every violation in llvm mode is named by the pattern; precise mode has none.
const HEADER_BRANCH_EXIT: &str = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @f(i32 %n, ptr addrspace(1) %p) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %A ], [ %i.next, %B ]
  %i.next = add i32 %i, 1
  %again = icmp ult i32 %i, %tid
  br i1 %again, label %A, label %B
A:
  br label %H
B:
  %c = load i32, ptr addrspace(1) %p, align 4
  %c1 = add i32 %c, 1
  store i32 %c1, ptr addrspace(1) %p, align 4
  %go = icmp sgt i32 %n, -100
  br i1 %go, label %X, label %H
X:
  %use = add i32 %c, 0
  %more = mul i32 %use, 3
  ret void
}
"#;

#[test]
fn header_branch_exit_is_named_in_llvm_mode() {
    use converge_oracle::cases::{Case, run_case};
    use converge_oracle::classify::KnownBug;
    let mut named = 0;
    for threads in [4u32, 9, 33] {
        let c = Case {
            seed: 11,
            text: HEADER_BRANCH_EXIT.to_string(),
            threads,
            tokens: false,
            step_limit: 20_000,
            inputs: 3,
            small_globals: true,
            explore: 0,
        };
        let (_, found) = run_case(&c, Mode::Llvm(LlvmVersion::V22));
        for f in &found {
            assert_eq!(
                f.known,
                Some(KnownBug::HeaderBranchExit),
                "{:?}",
                f.violation
            );
        }
        named += found.len();
        let (_, found) = run_case(&c, Mode::Precise);
        assert!(found.is_empty(), "{found:?}");
    }
    assert!(named >= 2, "{named} violations named");
}
