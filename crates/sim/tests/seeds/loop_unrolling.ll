; "Loop unrolling examples" (Convergent Operation Semantics). @original: the loop heart counts
; iterations; thread t runs 3 + 2t iterations (3 and 5 for two threads), so the operation's first
; three iterations are converged. @unrolled: unrolled by 2 with a remainder; the threads execute
; A H B H C D E and A H B H B H C D E (the seed omits the loop header H), and the third iteration of the original loop is no longer converged
; (thread 1 runs it in the remainder D, thread 2 as the first operation of its second B).
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
declare i64 @convergent.operation(i32) convergent

define void @original() {
A:
  %outer = call token @llvm.experimental.convergence.anchor()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t2 = shl i32 %tid, 1
  %counter0 = add i32 %t2, 3
  br label %H

H:
  %counter = phi i32 [ %counter0, %A ], [ %counter.next, %B ]
  %inner = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  %more = icmp sgt i32 %counter, 0
  br i1 %more, label %B, label %C

B:
  %r = call i64 @convergent.operation(i32 %counter) [ "convergencectrl"(token %inner) ]
  %counter.next = sub i32 %counter, 1
  br label %H

C:
  ret void
}

define void @unrolled() {
A:
  %outer = call token @llvm.experimental.convergence.anchor()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t2 = shl i32 %tid, 1
  %counter0 = add i32 %t2, 3
  br label %H

H:
  %counter = phi i32 [ %counter0, %A ], [ %counter.next, %B ]
  %inner = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  %more = icmp sge i32 %counter, 2
  br i1 %more, label %B, label %C

B:
  %r1 = call i64 @convergent.operation(i32 %counter) [ "convergencectrl"(token %inner) ]
  %r2 = call i64 @convergent.operation(i32 %counter) [ "convergencectrl"(token %inner) ]
  %counter.next = sub i32 %counter, 2
  br label %H

C:
  %left = icmp sgt i32 %counter, 0
  br i1 %left, label %D, label %E

D:
  %remainder = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  %r3 = call i64 @convergent.operation(i32 %counter) [ "convergencectrl"(token %remainder) ]
  br label %E

E:
  ret void
}
