; "Convergent Operation Semantics", hoisting and sinking: an anchor whose token is used only in a conditional block.
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
  %tok = call token @llvm.experimental.convergence.anchor()
  br i1 %condition, label %then, label %end
then:
  call void @convergent.operation() [ "convergencectrl"(token %tok) ]
  br label %end
end:
  ret void
}
