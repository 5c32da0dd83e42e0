; "Rationale for the static rules about cycles" (Convergent Operation Semantics), the loop with two
; convergent operations and the heart in B. Thread 1 executes A B C D F B D E F G and thread 2
; executes A B D E F B C D F G (cond1 is "iteration == tid", cond2 its negation): the hearts are
; converged per iteration, so @op.1(1) != @op.1(2) and @op.2(1) != @op.2(2).
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
declare i64 @op.1() convergent
declare i64 @op.2() convergent

define void @hearts() {
A:
  %anchor = call token @llvm.experimental.convergence.anchor()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %B

B:
  %i = phi i32 [ 0, %A ], [ %i.next, %F ]
  %loop = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %anchor) ]
  %cond1 = icmp eq i32 %i, %tid
  br i1 %cond1, label %C, label %D

C:
  %x1 = call i64 @op.1() [ "convergencectrl"(token %loop) ]
  br label %D

D:
  %cond2 = icmp ne i32 %i, %tid
  br i1 %cond2, label %E, label %F

E:
  %x2 = call i64 @op.2() [ "convergencectrl"(token %loop) ]
  br label %F

F:
  %i.next = add i32 %i, 1
  %again = icmp ult i32 %i.next, 2
  br i1 %again, label %B, label %G

G:
  ret void
}
