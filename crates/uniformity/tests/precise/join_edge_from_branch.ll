; Regression (random oracle, seed 383): the divergent switch in %b1 reaches the join %b4 directly
; and through %b2; the edge from the branch block itself is one of the diverged paths, so %v10
; (5 on it, 1 on the other) is divergent. %same takes %u on both: uniform.
; DIVERGENT: %v10
; UNIFORM: %same
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @f(i32 %u) {
b0:
  %v0 = call i32 @llvm.amdgcn.workitem.id.x()
  br label %b1
b1:
  switch i32 %v0, label %b2 [
    i32 1, label %b4
    i32 2, label %b4
  ]
b2:
  br label %b4
b4:
  %v10 = phi i32 [ 1, %b2 ], [ 5, %b1 ], [ 5, %b1 ]
  %same = phi i32 [ %u, %b2 ], [ %u, %b1 ], [ %u, %b1 ]
  ret void
}
