; "Convergent Operation Semantics", loop unrolling: every convergent operation goes back to an anchor inside the loop.
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
  br label %cond
cond:
  %counter = phi i32 [ %c0, %entry ], [ %dec, %body ]
  %more = icmp sgt i32 %counter, 0
  br i1 %more, label %body, label %exit
body:
  %tok = call token @llvm.experimental.convergence.anchor()
  call void @convergent.operation() [ "convergencectrl"(token %tok) ]
  %dec = sub i32 %counter, 1
  br label %cond
exit:
  ret void
}
