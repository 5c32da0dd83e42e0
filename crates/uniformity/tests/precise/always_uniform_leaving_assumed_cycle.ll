; An always-uniform value leaving a cycle assumed divergent (docs/llvm-differences.md entry 3).
; DIVERGENT: %u
; UNIFORM: %r
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define amdgpu_kernel void @f(i1 %again) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %tid, 0
  br i1 %c, label %A, label %B
A:
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid)
  br i1 %again, label %B, label %X
B:
  br label %A
X:
  %u = add i32 %r, 0
  ret void
}
