; Controlled convergence ("Convergent Operation Semantics"): %x is computed in a loop with a
; divergent exit (pairs of threads leave in different iterations). %y uses it after the exit but
; inside the convergence region of the loop heart %t (a use of %t follows), where only threads of
; the same iteration are converged: uniform there (LLVM calls it divergent). After the last use
; of %t the threads of all iterations are converged again: %z and %w are divergent. (They sit in
; a block of their own: the simulator's regions are whole blocks, a superset of the program
; points the semantics names, so it would not show their divergence inside X.)
; UNIFORM: %y %r
; DIVERGENT: %z %w
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()

define amdgpu_kernel void @f(i32 %n) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %half = lshr i32 %tid, 1
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %H ]
  %t = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %x = mul i32 %i, 3
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i, %half
  br i1 %c, label %H, label %X
X:
  %y = add i32 %x, %n
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %y) [ "convergencectrl"(token %t) ]
  br label %Y
Y:
  %z = add i32 %y, 1
  %w = add i32 %r, 1
  ret void
}
