; Precise mode, rule P6: %t14 uses a readlane controlled by the loop heart %tok1, whose parent
; token is the anchor %tok0 (a heart inherits its parent's implementation-defined grouping), past
; the heart's convergence region. explain once found no chain for it (random program, precision
; seed 14). Since 2026-11-29 precise mode calls it uniform: it stays in the heart's cycle and in
; the anchor's region, so the threads converged there share one heart instance
; (docs/precise-mode.md, P6); explain must still give a chain for every divergent value here.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i32 @llvm.amdgcn.readlane.i32(i32, i32)
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare i32 @ext(i32)
declare i32 @conv(i32) convergent
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()

define void @f(i32 %a0, i32 %a1, ptr addrspace(1) %p, ptr %q) convergent {
b0:
  %tok0 = call token @llvm.experimental.convergence.anchor()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %u = load i32, ptr addrspace(1) %p, align 4
  %d.raw = load i32, ptr %q, align 4
  %d = and i32 %d.raw, 7
  store i32 %tid, ptr addrspace(1) %p, align 4
  %v2 = or i32 %tid, %d
  %v3 = xor i32 2, %u
  %v4 = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %v3) [ "convergencectrl"(token %tok0) ]
  br label %b1
b1:
  %k1 = phi i32 [ %k1.n, %b5 ], [ 0, %b0 ]
  %v5 = phi i32 [ %v7, %b5 ], [ %a0, %b0 ]
  %v6 = phi i32 [ %v23, %b5 ], [ %tid, %b0 ]
  %tok1 = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %tok0) ]
  %k1.n = add i32 %k1, 1
  %k1.m = and i32 %a1, 3
  %k1.b = add i32 %k1.m, 2
  %k1.cap = icmp sge i32 %k1.n, 5
  %k1.s = icmp slt i32 %k1.n, %k1.b
  %k1.go = select i1 %k1.cap, i1 false, i1 %k1.s
  %v7 = mul i32 %k1.n, %tid
  br i1 %k1.go, label %b2, label %b3
b2:
  %l9 = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid) [ "convergencectrl"(token %tok1) ]
  %v8 = call i32 @llvm.amdgcn.readlane.i32(i32 %v5, i32 %l9) [ "convergencectrl"(token %tok1) ]
  %v10 = or i32 %k1.n, %v7
  %v11 = and i32 %v8, %v7
  %v12 = call i32 @conv(i32 %a1) [ "convergencectrl"(token %tok1) ]
  %t14 = add i32 %v8, %k1.n
  %c13 = icmp ult i32 %t14, %v3
  br i1 %c13, label %b5, label %b4
b3:
  %v15 = phi i32 [ %k1.n, %b5 ], [ %v6, %b1 ]
  %v16 = phi i32 [ %v24, %b5 ], [ %a1, %b1 ]
  %c18 = icmp ult i32 %v6, %k1.n
  %v17 = select i1 %c18, i32 %v5, i32 %v6
  ret void
b4:
  %v19 = phi i32 [ %k1.n, %b2 ]
  %v20 = xor i32 %k1.n, %v10
  %v21 = call i32 @llvm.amdgcn.workitem.id.x()
  %s22 = and i32 %v2, 3
  switch i32 %s22, label %b8 [
    i32 0, label %b6
    i32 1, label %b7
  ]
b5:
  %v23 = phi i32 [ %v43, %b9 ], [ %v12, %b2 ]
  %v24 = call i32 @llvm.amdgcn.workitem.id.x()
  %v25 = xor i32 %v23, %v6
  %r27 = call i32 @ext(i32 %v11)
  %v26 = and i32 %r27, 7
  %t29 = add i32 %v3, %k1.n
  %c28 = icmp slt i32 %t29, 1
  br i1 %c28, label %b3, label %b1
b6:
  %k6 = phi i32 [ %k8.n, %b12 ], [ 0, %b4 ]
  %v30 = phi i32 [ %tid, %b12 ], [ %v19, %b4 ]
  %v31 = phi i32 [ %v40, %b12 ], [ %v20, %b4 ]
  %k6.n = add i32 %k6, 1
  %k6.m = and i32 %v4, 3
  %k6.b = add i32 %k6.m, 2
  %k6.cap = icmp sge i32 %k6.n, 5
  %k6.s = icmp slt i32 %k6.n, %k6.b
  %k6.go = select i1 %k6.cap, i1 false, i1 %k6.s
  %v32 = load i32, ptr %q, align 4
  br i1 %k6.go, label %b10, label %b9
b7:
  %k7 = phi i32 [ %k8.n, %b12 ], [ %k6.n, %b10 ], [ 0, %b4 ]
  %v33 = phi i32 [ %v21, %b12 ], [ %v44, %b10 ], [ %tid, %b4 ]
  %v34 = phi i32 [ %v50, %b12 ], [ %v7, %b10 ], [ %a1, %b4 ]
  %k7.n = add i32 %k7, 1
  %k7.m = and i32 %tid, 3
  %k7.b = add i32 %k7.m, 2
  %k7.cap = icmp sge i32 %k7.n, 5
  %k7.s = icmp slt i32 %k7.n, %k7.b
  %k7.go = select i1 %k7.cap, i1 false, i1 %k7.s
  %r36 = load i32, ptr %q, align 4
  %v35 = and i32 %r36, 7
  %anc38 = call token @llvm.experimental.convergence.anchor()
  %v37 = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %a1) [ "convergencectrl"(token %anc38) ]
  br i1 %k7.go, label %b11, label %b9
b8:
  %k8 = phi i32 [ %k7.n, %b11 ], [ 0, %b4 ]
  %v39 = phi i32 [ %v49, %b11 ], [ %v10, %b4 ]
  %k8.n = add i32 %k8, 1
  %k8.m = and i32 %k1.n, 3
  %k8.b = add i32 %k8.m, 2
  %k8.cap = icmp sge i32 %k8.n, 5
  %k8.s = icmp slt i32 %k8.n, %k8.b
  %k8.go = select i1 %k8.cap, i1 false, i1 %k8.s
  %anc41 = call token @llvm.experimental.convergence.anchor()
  %v40 = call i32 @conv(i32 %v20) [ "convergencectrl"(token %anc41) ]
  br i1 %k8.go, label %b12, label %b9
b9:
  %v42 = phi i32 [ %v39, %b8 ], [ %v7, %b7 ], [ %v21, %b6 ]
  %v43 = phi i32 [ %v12, %b8 ], [ %v37, %b7 ], [ %k6.n, %b6 ]
  br label %b5
b10:
  %v44 = phi i32 [ %a0, %b6 ]
  br label %b7
b11:
  %v45 = phi i32 [ %v37, %b7 ]
  %v46 = phi i32 [ %v34, %b7 ]
  %c48 = icmp ult i32 %v33, %v6
  %v47 = select i1 %c48, i32 %v35, i32 %v33
  %v49 = sub i32 %k7.n, %v6
  br label %b8
b12:
  %v50 = load i32, ptr %q, align 4
  %t52 = add i32 %v8, %k8.n
  %t53 = and i32 %t52, 3
  %t54 = and i32 %k1.n, 3
  %c51 = icmp ne i32 %t53, %t54
  br i1 %c51, label %b6, label %b7
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
