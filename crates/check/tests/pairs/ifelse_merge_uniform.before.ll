; "Convergent Operation Semantics", reductions inside divergent control flow: subgroupAdd in both arms of an if/else (uniform condition).
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
declare i32 @subgroupAdd(i32) convergent
declare float @textureSample(float) convergent
declare i32 @pure.convergent.operation(i32) convergent
declare void @convergent.operation() convergent
declare void @subgroupControlBarrier() convergent

define void @example_kernel(ptr addrspace(1) %out, i32 %n) convergent {
entry:
  %entry.tok = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %delta = sub i32 %tid, 1
  %cc = icmp sgt i32 %n, 2
  br i1 %cc, label %then, label %else
then:
  %total_gains = call i32 @subgroupAdd(i32 %delta) [ "convergencectrl"(token %entry.tok) ]
  br label %end
else:
  %total_losses = call i32 @subgroupAdd(i32 %delta) [ "convergencectrl"(token %entry.tok) ]
  br label %end
end:
  %r = phi i32 [ %total_gains, %then ], [ %total_losses, %else ]
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %p
  ret void
}
