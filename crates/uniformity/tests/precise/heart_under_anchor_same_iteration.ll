; Controlled convergence past a loop heart's region ("Convergent Operation Semantics", *Controlled
; maximal convergence relation*): the heart %h's parent is the anchor %a. %x and %m are computed
; once per dynamic instance of %h (its group: the threads of one anchor group in one iteration).
; Block B is past %h's convergence region (no use of %h is reachable from it without passing %h
; again) but inside %a's, and inside %h's cycle: two threads converged at %y are converged at an
; instance of %a and in the same iteration of the loop, so at the same instance of %h, and they
; read the same %x and %m. Uniform (before 2026-11-29 precise mode called %y and %w divergent:
; oracle seeds 14 and 130 of the precision test). After the loop (X), threads that left in
; different iterations are converged again: %z and %v are divergent. The simulator runs the anchor
; both maximal and split into even and odd threads. LLVM calls all four uniform.
; UNIFORM: %x %m %y %w
; DIVERGENT: %z %v
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()

define amdgpu_kernel void @f(i32 %n) convergent {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %a = call token @llvm.experimental.convergence.anchor()
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %L ]
  %h = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %a) ]
  %x = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid) [ "convergencectrl"(token %h) ]
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 true) [ "convergencectrl"(token %h) ]
  %m = trunc i64 %b to i32
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i, %tid
  br i1 %c, label %B, label %X
B:
  %y = add i32 %x, %i
  %w = xor i32 %m, %n
  br label %L
L:
  br label %H
X:
  %z = add i32 %x, %n
  %v = add i32 %m, %n
  ret void
}
