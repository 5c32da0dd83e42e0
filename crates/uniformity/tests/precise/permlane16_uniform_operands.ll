; permlane16/permlanex16 (LLVM main's refinement, sound variant). Lane 0 selects lane 15 of its
; row, lanes 1-15 select lane 0: with fewer than 16 threads lane 15 is not executing, so lane 0
; gets `old` while the others get lane 0's `src0`.
; - %same: `old` is `src0` itself, no fetch-inactive, no bound_ctrl: every lane gets %x (uniform);
; - %cross: the same across rows (lanes 16-31 are not executing either): uniform;
; - %other.old: a different (uniform) `old`: lane 0 differs from lane 1. LLVM main calls this
;   uniform (its result follows `src0` only); precise mode does not;
; - %fetch.inactive: `fi` reads the stale register of the inactive lane 15: divergent.
; UNIFORM: %same %cross %x %old
; DIVERGENT: %other.old %fetch.inactive
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.permlane16.i32(i32, i32, i32, i32, i1 immarg, i1 immarg)
declare i32 @llvm.amdgcn.permlanex16.i32(i32, i32, i32, i32, i1 immarg, i1 immarg)

define amdgpu_kernel void @f(i32 %n) {
entry:
  %x = add i32 %n, 3
  %old = add i32 %n, 5
  %same = call i32 @llvm.amdgcn.permlane16.i32(i32 %x, i32 %x, i32 15, i32 0, i1 false, i1 false)
  %cross = call i32 @llvm.amdgcn.permlanex16.i32(i32 %x, i32 %x, i32 15, i32 0, i1 false, i1 false)
  %other.old = call i32 @llvm.amdgcn.permlane16.i32(i32 %old, i32 %x, i32 15, i32 0, i1 false, i1 false)
  %fetch.inactive = call i32 @llvm.amdgcn.permlane16.i32(i32 %x, i32 %x, i32 15, i32 0, i1 true, i1 false)
  ret void
}
