; "Reductions inside divergent control flow" (Convergent Operation Semantics): @subgroupAdd in the
; two arms of a divergent if communicates only among the threads of its arm. delta = tid - 2, so
; with four threads the positive deltas are {3} and the others {0, 1, 2}. @amdgpu is the same shape
; with llvm.amdgcn.ballot and no tokens (maximal convergence).
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.entry()
declare i32 @subgroupAdd(i32) convergent
declare i64 @llvm.amdgcn.ballot.i64(i1) convergent

define i32 @example_kernel() convergent {
entry:
  %entry.tok = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %delta = sub i32 %tid, 2
  %cc = icmp sgt i32 %delta, 0
  br i1 %cc, label %then, label %else

then:
  %total_gains = call i32 @subgroupAdd(i32 %delta) [ "convergencectrl"(token %entry.tok) ]
  br label %end

else:
  %total_losses = call i32 @subgroupAdd(i32 %delta) [ "convergencectrl"(token %entry.tok) ]
  br label %end

end:
  %r = phi i32 [ %total_gains, %then ], [ %total_losses, %else ]
  ret i32 %r
}

define i64 @amdgpu() {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %odd = and i32 %tid, 1
  %cc = icmp eq i32 %odd, 1
  br i1 %cc, label %then, label %else

then:
  %b.then = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  br label %end

else:
  %b.else = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  br label %end

end:
  %b = phi i64 [ %b.then, %then ], [ %b.else, %else ]
  %all = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  %sum = add i64 %b, %all
  ret i64 %sum
}
