; Rule P10: a use reached only through a uniformly-taken exit. The loop has a divergent exit (the
; break in %H, on the thread id) and a uniform one (the latch %L, on the trip count %n). Threads
; that do not break all reach %L in the same iteration and leave there together, so the values of
; the loop read in %Out2 (reached only through %L's exit) are those of one iteration: uniform.
; %o1, after the divergent break, and the phi %e, where threads of both exits meet, are
; divergent (the simulator's witness). LLVM 22 calls %o2 and %o2b divergent.
; UNIFORM: %i %i.next %c %o2 %o2b %ph
; DIVERGENT: %o1 %e
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @f(i32 %n, ptr addrspace(1) %p) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %L ]
  %brk = icmp eq i32 %i, %tid
  br i1 %brk, label %Out1, label %L
L:
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %H, label %Out2
Out1:
  %o1 = add i32 %i, 100
  br label %End
Out2:
  %ph = phi i32 [ %i.next, %L ]
  %o2 = add i32 %i.next, 0
  %o2b = mul i32 %i, 3
  br label %End
End:
  %e = phi i32 [ %i, %Out1 ], [ %i.next, %Out2 ]
  ret void
}
