; The negative of loop_in_irreducible_region.ll: the loop's header H is itself an entry of the
; irreducible region {H, X, B} (entries H and B). Under LLVM's hierarchy (header B) the loop {H}
; is a child cycle, and a thread that leaves it comes back to H in the next iteration of the
; region, not converged with the threads still in the loop. Under the hierarchy with header H
; (a depth-first order that enters H first) the region is one cycle headed by H: a thread that
; goes round through X and B and one that stays in H both start the next iteration at H and are
; converged there, with different %i and %r ("Convergence And Uniformity", *Maximal
; Convergence*: each hierarchy has its own). So %i and %r are divergent (the simulator shows it
; under that hierarchy); %k, computed before the region, stays uniform.
; UNIFORM: %k
; DIVERGENT: %i %r
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @f(i1 %u, i32 %n, ptr addrspace(1) %p) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %lim = and i32 %tid, 3
  %k = add i32 %n, 1
  br i1 %u, label %H, label %B
H:
  %i = phi i32 [ 0, %entry ], [ %i.n, %H ], [ 5, %B ]
  %r = phi i32 [ 0, %entry ], [ %r, %H ], [ %r.n, %B ]
  %i.n = add i32 %i, 1
  %c = icmp ult i32 %i, %lim
  br i1 %c, label %H, label %X
X:
  store i32 %i, ptr addrspace(1) %p
  br label %B
B:
  %rb = phi i32 [ %r, %X ], [ %k, %entry ]
  %r.n = add i32 %rb, 1
  %go = icmp ult i32 %r.n, 4
  br i1 %go, label %H, label %exit
exit:
  ret void
}
