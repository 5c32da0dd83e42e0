; Convergence control tokens used correctly (valid for LLVM's verifier and `converge verify`).
;
; The function is convergent, so it may take part in its caller's convergence with
; `llvm.experimental.convergence.entry`. The loop's heart is `loop`, its header: the
; `convergence.loop` there makes the threads that execute an iteration together be converged for
; the subgroup reduction in that iteration. After the loop, a fresh `anchor` starts a new
; convergence region whose threads are implementation-defined.
;
;   converge verify examples/tokens-valid.ll
;   opt -passes=verify -disable-output examples/tokens-valid.ll

target triple = "amdgcn-amd-amdhsa"

declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()
declare token @llvm.experimental.convergence.anchor()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i32 @subgroup_add(i32) convergent

define i32 @sum_rounds(i32 %x, i32 %rounds) convergent {
entry:
  %outer = call token @llvm.experimental.convergence.entry()
  br label %loop

loop:                                             ; header and heart of the cycle
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  %tok = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  %part = call i32 @subgroup_add(i32 %x) [ "convergencectrl"(token %tok) ]
  %acc.next = add i32 %acc, %part
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %rounds
  br i1 %more, label %loop, label %exit

exit:
  %fresh = call token @llvm.experimental.convergence.anchor()
  %first = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %acc.next) [ "convergencectrl"(token %fresh) ]
  ret i32 %first
}
