; Temporal divergence: the loop exits on a divergent condition; %i is uniform inside the loop
; but its use after the loop is divergent.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @loop(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %header

header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %header ]
  %i.next = add i32 %i, 1
  %done = icmp sge i32 %i.next, %tid
  br i1 %done, label %exit, label %header

exit:
  %after = mul i32 %i, 3
  store i32 %after, ptr addrspace(1) %out
  ret void
}
