; Precise mode, rule P6: %v59 uses an always-uniform operation controlled by the anchor %anc60,
; defined inside a cycle; reaching the anchor again starts a new dynamic instance, so the value is
; past the anchor's convergence region. explain once found no chain for it (random program).
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

define amdgpu_kernel void @f(i32 %a0, i32 %a1, ptr addrspace(1) %p, ptr %q) convergent {
b0:
  %tok0 = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %u = load i32, ptr addrspace(1) %p, align 4
  %d.raw = load i32, ptr %q, align 4
  %d = and i32 %d.raw, 7
  %v1 = and i32 1, %d
  %v2 = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %u) [ "convergencectrl"(token %tok0) ]
  %v3 = mul i32 %u, %a0
  %c5 = icmp ult i32 %u, %v2
  %w6 = call i64 @llvm.amdgcn.ballot.i64(i1 %c5) [ "convergencectrl"(token %tok0) ]
  %v4 = trunc i64 %w6 to i32
  %c7 = icmp slt i32 %a1, %v4
  br i1 %c7, label %b1, label %b16
b1:
  %v8 = phi i32 [ %u, %b0 ]
  %v9 = phi i32 [ %a1, %b0 ]
  store i32 %a0, ptr addrspace(1) %p, align 4
  %v11 = add i32 %v3, %v2
  %c12 = icmp sgt i32 %v9, %tid
  br i1 %c12, label %b3, label %b10
b2:
  %v13 = phi i32 [ %a1, %b16 ], [ %v31, %b4 ]
  %v14 = mul i32 %v13, %v3
  ret void
b3:
  %v20 = phi i32 [ %v9, %b1 ]
  %v21 = call i32 @conv(i32 %v9) [ "convergencectrl"(token %tok0) ]
  %v22 = call i32 @ext(i32 %v11)
  %c24 = icmp ult i32 %v11, %v3
  %v23 = select i1 %c24, i32 %v9, i32 %v11
  %v25 = sub i32 %v1, %u
  %t27 = and i32 %tid, 3
  %c26 = icmp eq i32 %t27, 2
  br i1 %c26, label %b5, label %b6
b4:
  %v28 = phi i32 [ %a0, %b13 ], [ %v39, %b7 ]
  %v29 = phi i32 [ %a0, %b13 ], [ %v40, %b7 ]
  store i32 %v3, ptr addrspace(1) %p, align 4
  %v31 = sub i32 %v28, %v8
  br label %b2
b5:
  %k5 = phi i32 [ %k6.n, %b9 ], [ 0, %b3 ]
  %v33 = phi i32 [ %v21, %b9 ], [ %v22, %b3 ]
  %k5.n = add i32 %k5, 1
  %k5.m = and i32 %v25, 3
  %k5.b = add i32 %k5.m, 2
  %k5.cap = icmp sge i32 %k5.n, 5
  %k5.s = icmp slt i32 %k5.n, %k5.b
  %k5.go = select i1 %k5.cap, i1 false, i1 %k5.s
  br i1 %k5.go, label %b8, label %b7
b6:
  %k6 = phi i32 [ %k5.n, %b8 ], [ 0, %b3 ]
  %v34 = phi i32 [ %v53, %b8 ], [ %v25, %b3 ]
  %k6.n = add i32 %k6, 1
  %k6.m = and i32 %tid, 3
  %k6.b = add i32 %k6.m, 2
  %k6.cap = icmp sge i32 %k6.n, 5
  %k6.s = icmp slt i32 %k6.n, %k6.b
  %k6.go = select i1 %k6.cap, i1 false, i1 %k6.s
  store i32 5, ptr addrspace(1) %p, align 4
  %v36 = add i32 %tid, %v25
  %v37 = and i32 %a0, %v21
  br i1 %k6.go, label %b9, label %b7
b7:
  %v38 = phi i32 [ %v22, %b6 ], [ %v2, %b5 ]
  %v39 = phi i32 [ %v22, %b6 ], [ %v33, %b5 ]
  %v40 = add i32 %v1, %u
  %c42 = icmp ult i32 %v39, %v8
  %w43 = call i64 @llvm.amdgcn.ballot.i64(i1 %c42) [ "convergencectrl"(token %tok0) ]
  %v41 = trunc i64 %w43 to i32
  br label %b4
b8:
  %v53 = phi i32 [ %v2, %b5 ]
  %v54 = phi i32 [ %v33, %b5 ]
  %c56 = icmp ult i32 %v2, %v21
  %v55 = select i1 %c56, i32 %a0, i32 %v2
  br label %b6
b9:
  br label %b5
b10:
  %c32 = icmp slt i32 %u, %v2
  br i1 %c32, label %b11, label %b12
b11:
  %k11 = phi i32 [ %k12.n, %b15 ], [ 0, %b10 ]
  %v44 = phi i32 [ %v3, %b15 ], [ %tid, %b10 ]
  %v45 = phi i32 [ %a0, %b15 ], [ 3, %b10 ]
  %k11.n = add i32 %k11, 1
  %k11.m = and i32 %tid, 3
  %k11.b = add i32 %k11.m, 2
  %k11.cap = icmp sge i32 %k11.n, 5
  %k11.s = icmp slt i32 %k11.n, %k11.b
  %k11.go = select i1 %k11.cap, i1 false, i1 %k11.s
  br i1 %k11.go, label %b14, label %b13
b12:
  %k12 = phi i32 [ %k11.n, %b14 ], [ 0, %b10 ]
  %v46 = phi i32 [ %v58, %b14 ], [ %u, %b10 ]
  %k12.n = add i32 %k12, 1
  %k12.m = and i32 %tid, 3
  %k12.b = add i32 %k12.m, 2
  %k12.cap = icmp sge i32 %k12.n, 5
  %k12.s = icmp slt i32 %k12.n, %k12.b
  %k12.go = select i1 %k12.cap, i1 false, i1 %k12.s
  %v47 = or i32 %tid, %v4
  %v48 = add i32 %v11, %v3
  br i1 %k12.go, label %b15, label %b13
b13:
  %v49 = mul i32 %v2, %v4
  %r51 = load i32, ptr %q, align 4
  %v50 = and i32 %r51, 7
  %v52 = xor i32 %v11, %v50
  br label %b4
b14:
  %v57 = phi i32 [ %k11.n, %b11 ]
  %v58 = phi i32 [ %v45, %b11 ]
  %anc60 = call token @llvm.experimental.convergence.anchor()
  %c61 = icmp ult i32 %v44, %v58
  %w62 = call i64 @llvm.amdgcn.ballot.i64(i1 %c61) [ "convergencectrl"(token %anc60) ]
  %v59 = trunc i64 %w62 to i32
  br label %b12
b15:
  br label %b11
b16:
  %v15 = phi i32 [ %u, %b0 ]
  %v16 = load i32, ptr %q, align 4
  %v17 = call i32 @ext(i32 %v1)
  %c19 = icmp ult i32 %v16, %v4
  %v18 = select i1 %c19, i32 %d, i32 %v16
  br label %b2
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
