; Uncontrolled convergent code, the input of `converge insert-tokens` (README, "Inserting
; convergence control tokens"): a kernel with a barrier in a loop and a reduction in a nested loop,
; and a helper that is not `convergent` itself.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier() convergent
declare i32 @llvm.amdgcn.wave.reduce.umax.i32(i32, i32 immarg) convergent

define amdgpu_kernel void @kernel(ptr addrspace(1) %out, i32 %n) convergent {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %outer

outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  call void @llvm.amdgcn.s.barrier()
  br label %inner

inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %x = add i32 %tid, %j
  %m = call i32 @llvm.amdgcn.wave.reduce.umax.i32(i32 %x, i32 1)
  %j.next = add i32 %j, 1
  %more = icmp ult i32 %j.next, %tid
  br i1 %more, label %inner, label %outer.latch

outer.latch:
  %i.next = add i32 %i, 1
  %again = icmp ult i32 %i.next, %n
  br i1 %again, label %outer, label %exit

exit:
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  store i32 %m, ptr addrspace(1) %p, align 4
  ret void
}

define void @helper() {
entry:
  call void @llvm.amdgcn.s.barrier()
  ret void
}
