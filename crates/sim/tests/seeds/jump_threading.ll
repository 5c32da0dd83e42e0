; "Unstructured control flow" (Convergent Operation Semantics): jump threading must not change the
; threads that meet at the barrier. cond1 = tid & 1, cond2 = tid & 2: with four threads, threads
; {0, 2, 3} reach then2 in both versions, and they form one group there.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.entry()
declare i64 @subgroupControlBarrier() convergent

define void @example_original() convergent {
entry:
  %entry.tok = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %b1 = and i32 %tid, 1
  %cond1 = icmp ne i32 %b1, 0
  br i1 %cond1, label %then1, label %mid

then1:
  %b2 = and i32 %tid, 2
  %cond2 = icmp ne i32 %b2, 0
  br label %mid

mid:
  %flag = phi i1 [ true, %entry ], [ %cond2, %then1 ]
  br i1 %flag, label %then2, label %end

then2:
  %who = call i64 @subgroupControlBarrier() [ "convergencectrl"(token %entry.tok) ]
  br label %end

end:
  ret void
}

define void @example_jumpthreaded() convergent {
entry:
  %entry.tok = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %b1 = and i32 %tid, 1
  %cond1 = icmp ne i32 %b1, 0
  br i1 %cond1, label %then1, label %then2

then1:
  %b2 = and i32 %tid, 2
  %cond2 = icmp ne i32 %b2, 0
  br i1 %cond2, label %then2, label %end

then2:
  %who = call i64 @subgroupControlBarrier() [ "convergencectrl"(token %entry.tok) ]
  br label %end

end:
  ret void
}
