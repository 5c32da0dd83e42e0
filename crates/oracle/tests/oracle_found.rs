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
