; "Convergent Operation Semantics", inlining: a callee whose convergent operation is controlled by its entry token, called in a
; divergent branch with the caller's token in the call's bundle.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.entry()
declare i32 @subgroupAdd(i32) convergent

define internal i32 @callee(i32 %x) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %s = call i32 @subgroupAdd(i32 %x) [ "convergencectrl"(token %e) ]
  ret i32 %s
}

define void @k(ptr addrspace(1) %out, i32 %n) convergent {
entry:
  %tok = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %condition = icmp ult i32 %tid, 2
  br i1 %condition, label %then, label %end
then:
  %r = call i32 @callee(i32 %tid) [ "convergencectrl"(token %tok) ]
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %p
  br label %end
end:
  ret void
}
