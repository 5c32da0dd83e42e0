; "Convergent Operation Semantics", hoisting and sinking: an anchor outside a loop whose heart uses it.
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
  %c0 = add i32 %tid, %n
  %outer = call token @llvm.experimental.convergence.anchor()
  br label %cond
cond:
  %counter = phi i32 [ %c0, %entry ], [ %dec, %body ]
  %inner = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  %more = icmp sgt i32 %counter, 0
  br i1 %more, label %body, label %exit
body:
  call void @convergent.operation() [ "convergencectrl"(token %inner) ]
  %dec = sub i32 %counter, 1
  br label %cond
exit:
  ret void
}
