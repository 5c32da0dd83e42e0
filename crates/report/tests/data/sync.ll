; Sync dependence: a phi at the join of a branch on the thread id.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @diamond(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp slt i32 %tid, %n
  br i1 %c, label %then, label %else

then:
  %a = add i32 %n, 1
  br label %join

else:
  %b = mul i32 %n, 2
  br label %join

join:
  %p = phi i32 [ %a, %then ], [ %b, %else ]
  %same = phi i32 [ 7, %then ], [ 7, %else ]
  %q = add i32 %p, %same
  %u = add i32 %n, %same
  store i32 %q, ptr addrspace(1) %out
  ret void
}
