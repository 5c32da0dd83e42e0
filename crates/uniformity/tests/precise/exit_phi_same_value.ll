; An exit phi whose incoming values from inside the cycle are one uniform value defined before
; the cycle: the thread left in different iterations, but the value is the same for all of them.
; Another exit phi takes different constants and is divergent.
; UNIFORM: %same %a
; DIVERGENT: %diff
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @f(i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %a = add i32 %n, 7
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %L ]
  %i.next = add i32 %i, 1
  %c1 = icmp ugt i32 %i, %tid
  br i1 %c1, label %X, label %L
L:
  %c2 = icmp ugt i32 %i.next, 5
  br i1 %c2, label %X, label %H
X:
  %same = phi i32 [ %a, %H ], [ %a, %L ]
  %diff = phi i32 [ 1, %H ], [ 2, %L ]
  ret void
}
