; The other side of the work-item-id rule: with `reqd_work_group_size(4, 16, 1)` a wave holds
; several rows of 4, so `workitem.id.y` differs between lanes of one wave (lanes 4-7 have y = 1)
; and is a divergence source; `workitem.id.z` (size 1) is always 0.
; UNIFORM: %z
; DIVERGENT: %y %x
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workitem.id.z()

define amdgpu_kernel void @f(i32 %n) !reqd_work_group_size !0 {
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %y = call i32 @llvm.amdgcn.workitem.id.y()
  %z = call i32 @llvm.amdgcn.workitem.id.z()
  ret void
}

!0 = !{i32 4, i32 16, i32 1}
