; A loop with a thread-dependent trip count inside an irreducible region (rule P1 by every
; hierarchy). The region {A, B, H, X} has the entries A and B, so its header is A or B depending
; on the depth-first order; in both hierarchies the loop {H} is a child cycle of its own (H is
; not an entry of the region), and threads that leave it in different iterations meet again at
; X in the same iteration of the region. So %rb, %rn and %done are uniform under every
; hierarchy; only the loop's value used after it, %iu, is divergent (temporal divergence).
; Before rule P1 analysed each hierarchy, the branch in H (two successors in the region) made
; the whole region assumed divergent.
; UNIFORM: %ra %rb %rn %done %w
; DIVERGENT: %iu
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @f(i1 %u, i32 %n, ptr addrspace(1) %p) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %lim = and i32 %tid, 3
  br i1 %u, label %A, label %B
A:
  %ra = phi i32 [ 0, %entry ], [ %rn, %X ]
  br label %B
B:
  %rb = phi i32 [ %ra, %A ], [ 1, %entry ]
  br label %H
H:
  %i = phi i32 [ 0, %B ], [ %i.n, %H ]
  %i.n = add i32 %i, 1
  %c = icmp ult i32 %i, %lim
  br i1 %c, label %H, label %X
X:
  %iu = add i32 %i.n, %rb
  %rn = add i32 %rb, 1
  %w = mul i32 %rn, %n
  store i32 %iu, ptr addrspace(1) %p
  %done = icmp ugt i32 %rn, 3
  br i1 %done, label %exit, label %A
exit:
  ret void
}
