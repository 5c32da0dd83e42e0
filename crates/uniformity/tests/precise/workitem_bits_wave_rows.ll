; Work-item-id bit patterns with a known work-group size (LLVM main's refinement, sound
; variant). With `reqd_work_group_size(64, 4, 1)` the x dimension fills whole waves of 64 lanes,
; so within a wave x runs over one aligned block of 64 and y is one value: `x >> 6`, `x & 192`,
; `x | 63` and `workitem.id.y` are the same in every lane; `x & 3` is not.
; UNIFORM: %wave %mask %or %y
; DIVERGENT: %lane %x
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()

define amdgpu_kernel void @f(i32 %n) !reqd_work_group_size !0 {
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %wave = lshr i32 %x, 6
  %mask = and i32 %x, 192
  %or = or i32 %x, 63
  %y = call i32 @llvm.amdgcn.workitem.id.y()
  %lane = and i32 %x, 3
  ret void
}

!0 = !{i32 64, i32 4, i32 1}
