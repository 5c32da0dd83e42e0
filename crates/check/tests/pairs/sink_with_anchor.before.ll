; "Convergent Operation Semantics", hoisting and sinking: an anchor and two pure convergent operations used only in a conditional block.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
declare i32 @pure.convergent.operation(i32) convergent
declare void @convergent.operation() convergent

define void @k(ptr addrspace(1) %out, i32 %n) convergent {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %condition = icmp ult i32 %tid, 2
  %tok = call token @llvm.experimental.convergence.anchor()
  %a = call i32 @pure.convergent.operation(i32 %tid) [ "convergencectrl"(token %tok) ]
  %b = call i32 @pure.convergent.operation(i32 %n) [ "convergencectrl"(token %tok) ]
  br i1 %condition, label %then, label %end
then:
  %s = add i32 %a, %b
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %s, ptr addrspace(1) %p
  br label %end
end:
  ret void
}
