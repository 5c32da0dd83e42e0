; "Extended cycles: divergent exit from a loop" (Convergent Operation Semantics): the convergent
; operation in C is reached by a divergent break. With the loop heart in %for, only the threads that
; leave the loop in the same iteration communicate in C; without tokens (@uncontrolled), maximal
; convergence puts every thread that reaches C (outside the cycle) in one group.
; Thread t breaks in iteration t/2: threads {0,1} leave together in iteration 0, {2,3} in iteration 1.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()
declare i64 @subgroupBallot(i1) convergent

define void @controlled() convergent {
entry:
  %entry.tok = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %brk = lshr i32 %tid, 1
  br label %for

for:
  %i = phi i32 [ 0, %entry ], [ %i.next, %D ]
  %inner = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %entry.tok) ]
  %for.cond = icmp slt i32 %i, 10
  br i1 %for.cond, label %B, label %E

B:
  %condition = icmp eq i32 %i, %brk
  br i1 %condition, label %C, label %D

C:
  %who = call i64 @subgroupBallot(i1 true) [ "convergencectrl"(token %inner) ]
  br label %E

D:
  %i.next = add i32 %i, 1
  br label %for

E:
  ret void
}

define void @uncontrolled() {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %brk = lshr i32 %tid, 1
  br label %for

for:
  %i = phi i32 [ 0, %entry ], [ %i.next, %D ]
  %for.cond = icmp slt i32 %i, 10
  br i1 %for.cond, label %B, label %E

B:
  %condition = icmp eq i32 %i, %brk
  br i1 %condition, label %C, label %D

C:
  %who = call i64 @subgroupBallot(i1 true)
  br label %E

D:
  %i.next = add i32 %i, 1
  br label %for

E:
  ret void
}
