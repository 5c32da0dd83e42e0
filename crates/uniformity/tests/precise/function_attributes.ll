; LLVM main's function attributes: a call to an `alwaysuniform` function is uniform whatever its
; operands; a call to a `nodivergencesource` function is no source of its own and follows its
; operands (uniform operands: uniform; a thread id: divergent).
; UNIFORM: %au %nds.uniform
; DIVERGENT: %nds.tid %plain
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @au(i32) #0
declare i32 @nds(i32) #1
declare i32 @plain(i32) #2

define amdgpu_kernel void @f(i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %au = call i32 @au(i32 %tid)
  %nds.uniform = call i32 @nds(i32 %n)
  %nds.tid = call i32 @nds(i32 %tid)
  %plain = call i32 @plain(i32 %n)
  ret void
}

attributes #0 = { nounwind alwaysuniform }
attributes #1 = { nounwind nodivergencesource }
attributes #2 = { nounwind }
