; The same loop with the heart moved into C and a free anchor in E ("unnatural counting of loop
; iterations", Convergent Operation Semantics). LLVM's verifier rejects this placement (the heart
; does not dominate the cycle); the simulator still gives it the document's meaning: %loop(1) ==
; %loop(2), hence @op.1(1) == @op.1(2). Whether @op.2(1) == @op.2(2) is implementation-defined; with
; our anchor choice (maximal convergence at the anchor) they are not converged, because the threads
; execute E in different iterations of the cycle headed by B.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
declare i64 @op.1() convergent
declare i64 @op.2() convergent

define void @unnatural() {
A:
  %anchor = call token @llvm.experimental.convergence.anchor()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %B

B:
  %i = phi i32 [ 0, %A ], [ %i.next, %F ]
  %cond1 = icmp eq i32 %i, %tid
  br i1 %cond1, label %C, label %D

C:
  %loop = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %anchor) ]
  %x1 = call i64 @op.1() [ "convergencectrl"(token %loop) ]
  br label %D

D:
  %cond2 = icmp ne i32 %i, %tid
  br i1 %cond2, label %E, label %F

E:
  %free = call token @llvm.experimental.convergence.anchor()
  %x2 = call i64 @op.2() [ "convergencectrl"(token %free) ]
  br label %F

F:
  %i.next = add i32 %i, 1
  %again = icmp ult i32 %i.next, 2
  br i1 %again, label %B, label %G

G:
  ret void
}
