; An NVPTX kernel: a block-level partial sum with a barrier and a thread-dependent loop.
;
; Kernel arguments are uniform (the kernel is marked by the `ptx_kernel` calling convention and
; by !nvvm.annotations, the older spelling), the thread id is a divergence source. LLVM's NVPTX
; model also takes every call result as divergent, so even `%block` (the block id, the same for
; all threads of a block) is divergent, and so are the values computed from it. The loop runs
; `%tid + 1` iterations, so its exit is divergent; `%sum.next` is uniform inside the loop but
; its use after the loop by the `mul` is temporally divergent (LLVM 22 lists it in its
; TEMPORAL DIVERGENCE LIST). The barrier is reached by all threads in convergence, after the
; divergent `if` has rejoined. (LLVM 22 prints the barrier under its new name,
; `llvm.nvvm.barrier.cta.sync.aligned.all`, after upgrading the old intrinsic.)
;
;   converge uniformity examples/nvptx-kernel.ll
;   opt -passes='print<uniformity>' -disable-output examples/nvptx-kernel.ll

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @prefix(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %scale) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %block = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %is.first = icmp eq i32 %tid, 0
  br i1 %is.first, label %first, label %join          ; divergent branch

first:
  %slot0 = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %block
  store i32 0, ptr addrspace(1) %slot0, align 4
  br label %join

join:                                               ; all threads again
  call void @llvm.nvvm.barrier0()
  br label %loop

loop:
  %j = phi i32 [ 0, %join ], [ %j.next, %loop ]
  %sum = phi i32 [ 0, %join ], [ %sum.next, %loop ]
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %j
  %x = load i32, ptr addrspace(1) %p, align 4        ; uniform address, uniform value
  %sum.next = add i32 %sum, %x
  %j.next = add i32 %j, 1
  %again = icmp ule i32 %j.next, %tid
  br i1 %again, label %loop, label %exit             ; divergent exit

exit:
  %scaled = mul i32 %sum.next, %scale                ; temporally divergent use
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  store i32 %scaled, ptr addrspace(1) %q, align 4
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @prefix, !"kernel", i32 1}
