; "Convergent Operation Semantics", unstructured control flow (and the original convergence-control RFC): the barrier after a flag set on some paths (uncontrolled).
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
declare i32 @pure.convergent.operation(i32) convergent
declare void @convergent.operation() convergent
declare void @subgroupControlBarrier() convergent

define void @example_original(i32 %n) {
entry:

  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %cond1 = icmp ult i32 %tid, 2
  br i1 %cond1, label %then1, label %mid
then1:
  %x = add i32 %tid, %n
  %cond2 = icmp eq i32 %x, 1
  br label %mid
mid:
  %flag = phi i1 [ true, %entry ], [ %cond2, %then1 ]
  br i1 %flag, label %then2, label %end
then2:
  call void @subgroupControlBarrier() 
  br label %end
end:
  ret void
}
