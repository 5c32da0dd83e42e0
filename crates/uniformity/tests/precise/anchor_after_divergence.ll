; P6 with divergence between the anchor and the operation ("Convergent Operation Semantics",
; *Controlled Maximal Convergence*: the threads converged at %l are all the threads that reach it
; after being converged at one dynamic instance of the anchor %a). Only the threads with a small
; id reach B, but those of one group of %a execute one instance of %l: uniform, and so is %y,
; computed from it inside %a's region (the later %r uses %a). In E, past the region, the threads of
; different groups are converged again (maximal convergence): %z is divergent when the
; implementation splits the anchor's group (the simulator's even/odd split). LLVM calls all uniform.
; UNIFORM: %l %y %r
; DIVERGENT: %z
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()

define amdgpu_kernel void @f(i32 %n) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %a = call token @llvm.experimental.convergence.anchor()
  %small = icmp ult i32 %tid, 3
  br i1 %small, label %B, label %D
B:
  %l = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid) [ "convergencectrl"(token %a) ]
  %y = add i32 %l, %n
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %y) [ "convergencectrl"(token %a) ]
  br label %E
E:
  %z = add i32 %l, 1
  br label %D
D:
  ret void
}
