; The callee inlined and its operation hoisted above the branch (forbidden: it communicates with all threads).
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.entry()
declare i32 @subgroupAdd(i32) convergent

define void @k(ptr addrspace(1) %out, i32 %n) convergent {
entry:
  %tok = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %condition = icmp ult i32 %tid, 2
  %s = call i32 @subgroupAdd(i32 %tid) [ "convergencectrl"(token %tok) ]
  br i1 %condition, label %then, label %end
then:
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %s, ptr addrspace(1) %p
  br label %end
end:
  ret void
}
