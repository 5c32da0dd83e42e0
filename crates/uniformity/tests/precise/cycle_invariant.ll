; A cycle-invariant value after a divergent exit: %inv is computed inside the loop (as at -O0,
; not hoisted) from %n and %k, both defined before the loop, so every iteration computes the same
; value; threads that leave the loop in different iterations (the exit depends on the thread id)
; read the same %inv at %use: uniform. %var depends on the iteration (%i): divergent at %vuse
; (temporal divergence). LLVM calls %use divergent.
; UNIFORM: %inv %use %inv2 %use2
; DIVERGENT: %vuse
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @f(i32 %n, ptr addrspace(1) %p) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %k = load i32, ptr addrspace(1) %p
  %lim = and i32 %tid, 3
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %H ]
  %inv = mul i32 %n, %k
  %inv2 = add i32 %inv, 7
  %var = add i32 %i, %n
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i, %lim
  br i1 %c, label %H, label %X
X:
  %use = add i32 %inv, 1
  %use2 = xor i32 %inv2, %n
  %vuse = add i32 %var, 1
  ret void
}
