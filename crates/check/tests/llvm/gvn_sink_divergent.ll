; gvn-sink merges the convergent calls of both arms of a divergent branch into the join block
; (LLVM 19 and 22). Thread 0 takes %then, the others %else: each call communicates with the threads
; of its arm; after gvn-sink, one call communicates with all of them (the ballot example of the
; original convergence-control RFC; "Convergent Operation Semantics", subgroupAdd). docs/llvm-differences.md.
target triple = "nvptx64-nvidia-cuda"

define void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp ult i32 %tid, 1
  br i1 %c, label %then, label %else
then:
  %x1 = add i32 %tid, 5
  %v1 = call i32 @subgroupAdd(i32 %x1)
  br label %join
else:
  %x2 = add i32 %tid, 1
  %v2 = call i32 @subgroupAdd(i32 %x2)
  br label %join
join:
  %r = phi i32 [ %v1, %then ], [ %v2, %else ]
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @subgroupAdd(i32) #0

attributes #0 = { convergent nounwind willreturn memory(none) }
