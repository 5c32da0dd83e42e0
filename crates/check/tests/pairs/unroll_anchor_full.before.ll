; "Convergent Operation Semantics", loop unrolling: a loop with an anchor inside the loop (constant trip count 2).
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
declare i32 @pure.convergent.operation(i32) convergent
declare void @convergent.operation() convergent

define void @k(i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t = add i32 %tid, %n
  %c0 = add i32 0, 2
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
