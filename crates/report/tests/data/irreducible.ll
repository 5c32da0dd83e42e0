; A divergent branch enters an irreducible cycle at two different entries: the whole cycle is
; assumed divergent.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @irr(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %tid, 0
  br i1 %c, label %left, label %right

left:
  %x = add i32 %n, 1
  %lc = icmp sgt i32 %n, 5
  br i1 %lc, label %right, label %out.block

right:
  %y = add i32 %n, 2
  %rc = icmp sgt i32 %n, 9
  br i1 %rc, label %left, label %out.block

out.block:
  ret void
}
