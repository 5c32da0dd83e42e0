; "Convergence And Uniformity", section "Divergent Branch inside a Cycle": the closed
; path P -> Q -> R -> S with entries P and R, a divergent branch in Q and its join S. Here the
; branch in Entry is uniform (a kernel argument), so only Q diverges; whether the instances of S
; are converged depends on the cycle hierarchy (header P, or nested cycles with headers R and S),
; so the analysis reports the values of the irreducible cycle as divergent.
;
; Explore it with both hierarchies (the simulation panel offers each):
;   converge explore examples/seed-divergent-inside.ll --threads 2 --args 1 -o inside.html
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @divergent_inside(i32 %start.at.p, i32 %n, ptr addrspace(1) %out) {
Entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  ; Uniform branch: every thread enters at the same block.
  %at.p = icmp ne i32 %start.at.p, 0
  br i1 %at.p, label %P, label %R

P:
  %i = phi i32 [ 0, %Entry ], [ %i.next, %S ]
  br label %Q

Q:
  ; Divergent branch: threads with an odd tid + i go through R.
  %sum = add i32 %tid, %i
  %odd = and i32 %sum, 1
  %via.r = icmp ne i32 %odd, 0
  br i1 %via.r, label %R, label %S

R:
  %i.r = phi i32 [ 0, %Entry ], [ %i, %Q ]
  %w = add i32 %i.r, 10
  br label %S

S:
  ; The join of the divergent branch in Q.
  %i.s = phi i32 [ %i, %Q ], [ %i.r, %R ]
  %i.next = add i32 %i.s, 1
  %more = icmp ult i32 %i.next, %n
  br i1 %more, label %P, label %Exit

Exit:
  %slot = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  store i32 %i.next, ptr addrspace(1) %slot, align 4
  ret void
}
