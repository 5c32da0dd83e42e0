; A compute kernel whose loop exits on a thread-dependent condition.
;
; Each thread walks its own list until it finds `key`. The exit condition depends on the
; work-item id, so threads leave the cycle in different iterations: the exit of the cycle is a
; divergent exit. `%i` is uniform inside the loop (every thread still in the loop holds the same
; iteration count), but its use after the loop, in `done`, is temporally divergent: threads that
; left early read an older value. So `%found.at` is divergent although it only copies `%i`.
;
;   converge uniformity examples/divergent-loop.ll
;   opt -passes='print<uniformity>' -disable-output examples/divergent-loop.ll

target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @find_first(ptr addrspace(1) %lists, i32 %n, i32 %key, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %base = mul i32 %tid, %n
  br label %loop

loop:                                             ; the header of the only cycle
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %idx = add i32 %base, %i
  %p = getelementptr inbounds i32, ptr addrspace(1) %lists, i32 %idx
  %v = load i32, ptr addrspace(1) %p, align 4
  %hit = icmp eq i32 %v, %key
  br i1 %hit, label %done, label %latch             ; divergent exit: %v differs per thread

latch:
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, %n                 ; uniform exit: %n is a kernel argument
  br i1 %more, label %loop, label %done

done:
  %found.at = phi i32 [ %i, %loop ], [ -1, %latch ] ; temporal divergence on %i
  %slot = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  store i32 %found.at, ptr addrspace(1) %slot, align 4
  ret void
}
