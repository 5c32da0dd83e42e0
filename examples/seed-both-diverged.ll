; "Convergence And Uniformity", section "Examples": two nested irreducible cycles, with
; divergent branches in Entry and in Q. The CFG is the figure's: Entry -> P | R, P -> Q,
; Q -> R | S, R -> S, S -> P | Exit. LLVM's cycle hierarchy makes R the header of the outer cycle
; {R, S, P, Q} (entries R and P) and S the header of the inner cycle {S, P, Q}.
;
; The thread paths are the document's table with threads 1, 2, 3 numbered 0, 1, 2:
;   thread 0: Entry P Q S P Q R S Exit
;   thread 1: Entry P Q R S Exit
;   thread 2: Entry R S Exit
; Explore it (3 threads, as in the document's table):
;   converge explore examples/seed-both-diverged.ll --threads 3 -o both.html
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @both_diverged(ptr addrspace(1) %out) {
Entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  ; Divergent branch: threads 0 and 1 enter the cycles at P, thread 2 at R.
  %to.p = icmp ult i32 %tid, 2
  br i1 %to.p, label %P, label %R

P:
  %k = phi i32 [ 0, %Entry ], [ %k.next, %S ]
  br label %Q

Q:
  ; Divergent branch: to R when tid + k is odd (thread 0 on its second visit, thread 1 at once).
  %sum = add i32 %tid, %k
  %odd = and i32 %sum, 1
  %to.r = icmp ne i32 %odd, 0
  br i1 %to.r, label %R, label %S

R:
  %k.r = phi i32 [ 0, %Entry ], [ %k, %Q ]
  br label %S

S:
  ; A join of the divergent branch in Q (paths Q -> S and Q -> R -> S): both phis are divergent.
  %k.s = phi i32 [ %k, %Q ], [ %k.r, %R ]
  %again = phi i1 [ true, %Q ], [ false, %R ]
  %k.next = add i32 %k.s, 1
  br i1 %again, label %P, label %Exit

Exit:
  %slot = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  store i32 %k.next, ptr addrspace(1) %slot, align 4
  ret void
}
