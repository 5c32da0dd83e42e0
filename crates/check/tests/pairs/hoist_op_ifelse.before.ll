; "Convergent Operation Semantics", hoisting and sinking: an anchor and an operation in each arm of an if/else.
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
  %condition = icmp ult i32 %tid, 2
  br i1 %condition, label %then, label %else
then:
  %tok1 = call token @llvm.experimental.convergence.anchor()
  call void @convergent.operation() [ "convergencectrl"(token %tok1) ]
  br label %end
else:
  %tok2 = call token @llvm.experimental.convergence.anchor()
  call void @convergent.operation() [ "convergencectrl"(token %tok2) ]
  br label %end
end:
  ret void
}
