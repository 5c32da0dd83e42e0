; Unrolled by 2 with a remainder loop (forbidden for uncontrolled convergent operations).
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
declare i32 @pure.convergent.operation(i32) convergent
declare void @convergent.operation() convergent
declare void @subgroupControlBarrier() convergent

define void @k(i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c0 = add i32 %tid, %n
  br label %cond2
cond2:
  %counter = phi i32 [ %c0, %entry ], [ %dec2, %body2 ]
  %more2 = icmp sge i32 %counter, 2
  br i1 %more2, label %body2, label %rcond
body2:
  call void @convergent.operation()
  call void @convergent.operation()
  %dec2 = sub i32 %counter, 2
  br label %cond2
rcond:
  %rc = phi i32 [ %counter, %cond2 ], [ %rdec, %rbody ]
  %rmore = icmp sgt i32 %rc, 0
  br i1 %rmore, label %rbody, label %exit
rbody:
  call void @convergent.operation()
  %rdec = sub i32 %rc, 1
  br label %rcond
exit:
  ret void
}
