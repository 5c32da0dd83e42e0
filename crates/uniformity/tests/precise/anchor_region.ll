; Controlled convergence with an anchor ("Convergent Operation Semantics", *Controlled Maximal
; Convergence*): the threads converged at %l and %b are all the threads that reach them after one
; dynamic instance of the anchor %a, an implementation-defined group, and inside %a's convergence
; region threads are converged only within a group. So %l, %b and %y (computed from them inside
; the region) are uniform; the simulator is run with the anchor both maximal and split into two
; groups. After the last use of %a (block X) the groups are converged again: %z and %w are
; divergent (the first lane and the mask differ between the groups). LLVM calls all five uniform.
; (X is a block of its own: the simulator's regions are whole blocks, a superset of the program
; points the semantics names.)
; UNIFORM: %l %b %y %r
; DIVERGENT: %z %w
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()

define amdgpu_kernel void @f(i32 %n) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %A
A:
  %a = call token @llvm.experimental.convergence.anchor()
  %l = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid) [ "convergencectrl"(token %a) ]
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 true) [ "convergencectrl"(token %a) ]
  %b32 = trunc i64 %b to i32
  %y = add i32 %l, %b32
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %y) [ "convergencectrl"(token %a) ]
  br label %X
X:
  %z = add i32 %l, %n
  %w = add i32 %b32, %n
  ret void
}
