; "Convergent Operation Semantics", texture sampling in a pixel shader: the sample feeds only the then-branch (uniform condition).
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

define void @example_shader(ptr addrspace(1) %out, i32 %n) convergent {
entry:
  %entry.tok = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %coord = uitofp i32 %tid to float
  %color = call float @textureSample(float %coord) [ "convergencectrl"(token %entry.tok) ]
  %condition = icmp ult i32 %n, 2
  br i1 %condition, label %then, label %end
then:
  %p = getelementptr float, ptr addrspace(1) %out, i32 %tid
  store float %color, ptr addrspace(1) %p
  br label %end
end:
  ret void
}
