; Oracle seed 49600 (converge-gen oracle generator, 5 threads): a `@conv` controlled by the heart
; %tok1, reached in b5 by threads that left the inner loop b6 at different times.
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @ext(i32)
declare i32 @conv(i32) convergent
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()

define ptx_kernel void @f(i32 %a0, i32 %a1, ptr addrspace(1) %p, ptr %q) convergent {
b0:
  %tok0 = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %u = load i32, ptr addrspace(1) %p, align 4
  %d = load i32, ptr %q, align 4
  %v1 = and i32 %tid, %u
  %v2 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v3 = load i32, ptr addrspace(1) %p, align 4
  br label %b1
b1:
  %k1 = phi i32 [ %k1.n, %b5 ], [ 0, %b0 ]
  %v4 = phi i32 [ %v1, %b5 ], [ 1, %b0 ]
  %v5 = phi i32 [ 1, %b5 ], [ %v3, %b0 ]
  %tok1 = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %tok0) ]
  %k1.n = add i32 %k1, 1
  %k1.m = and i32 %v3, 3
  %k1.b = add i32 %k1.m, 2
  %k1.cap = icmp sge i32 %k1.n, 5
  %k1.s = icmp sge i32 %k1.n, %k1.b
  %k1.stop = select i1 %k1.cap, i1 true, i1 %k1.s
  %v6 = call i32 @helper(i32 %u, i32 %k1.n)
  store i32 %d, ptr addrspace(1) %p, align 4
  br i1 %k1.stop, label %b3, label %b2
b2:
  %v8 = phi i32 [ %v4, %b1 ]
  %v9 = or i32 %v5, %k1.n
  %c10 = icmp sgt i32 %d, %v3
  br i1 %c10, label %b4, label %b5
b3:
  %v11 = phi i32 [ 2, %b8 ], [ %v8, %b5 ], [ %d, %b1 ]
  %v12 = phi i32 [ %v29, %b8 ], [ 1, %b5 ], [ %d, %b1 ]
  %v13 = and i32 %v6, %tid
  %v14 = sub i32 1, %d
  ret void
b4:
  %v15 = phi i32 [ %tid, %b2 ]
  br label %b6
b5:
  %v16 = phi i32 [ %v15, %b8 ], [ %v6, %b2 ]
  %v17 = add i32 %v2, %v5
  %v18 = call i32 @conv(i32 %v6) [ "convergencectrl"(token %tok1) ]
  %v19 = mul i32 %a0, %v9
  %c20 = icmp ult i32 %v16, %u
  br i1 %c20, label %b3, label %b1
b6:
  %k6 = phi i32 [ %k6.n, %b7 ], [ 0, %b4 ]
  %v21 = phi i32 [ %v24, %b7 ], [ %a1, %b4 ]
  %tok2 = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %tok1) ]
  %k6.n = add i32 %k6, 1
  %k6.m = and i32 %tid, 3
  %k6.b = add i32 %k6.m, 2
  %k6.cap = icmp sge i32 %k6.n, 5
  %k6.s = icmp slt i32 %k6.n, %k6.b
  %k6.go = select i1 %k6.cap, i1 false, i1 %k6.s
  %v22 = call i32 @conv(i32 %d) [ "convergencectrl"(token %tok2) ]
  %v23 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v24 = load i32, ptr %q, align 4
  %v25 = and i32 %v8, %v5
  br i1 %k6.go, label %b7, label %b8
b7:
  %v26 = and i32 %v4, %v22
  %v27 = load i32, ptr addrspace(1) %p, align 4
  br label %b6
b8:
  %v28 = call i32 @conv(i32 %v6) [ "convergencectrl"(token %tok1) ]
  %v29 = mul i32 %v28, %v22
  %v30 = add i32 %v24, %v29
  %v31 = call i32 @ext(i32 %v24)
  %c32 = icmp sgt i32 %v28, 1
  br i1 %c32, label %b3, label %b5
}

define internal i32 @helper(i32 %x, i32 %y) {
entry:
  %n = and i32 %y, 3
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ %x, %entry ], [ %acc.next, %loop ]
  %acc.next = mul i32 %acc, 3
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i, %n
  br i1 %more, label %loop, label %done
done:
  ret i32 %acc.next
}

