; Rule P10 at a header exit: the loop's condition is tested in the header %H (uniform, on %n); the
; body has a divergent break to %Y. Threads still in the loop are converged at %H in each
; iteration, so they all leave through %H's exit in the same one: %ux, reached only through it,
; is uniform. %uy, after the break, is divergent (threads break in different iterations).
; UNIFORM: %i %c %ux
; DIVERGENT: %uy
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @f(i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %Body ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %Body, label %X
Body:
  %i.next = add i32 %i, 1
  %brk = icmp eq i32 %i, %tid
  br i1 %brk, label %Y, label %H
X:
  %ux = add i32 %i, 0
  br label %Z
Y:
  %uy = add i32 %i, 0
  br label %Z
Z:
  ret void
}
