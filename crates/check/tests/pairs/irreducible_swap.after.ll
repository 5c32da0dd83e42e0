; The entry branch inverted: LLVM's DFS now reaches the other entry first, so LLVM's hierarchy of
; AFTER is the other hierarchy of BEFORE (allowed: BEFORE could behave so under m-convergence).
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @subgroupAdd(i32) convergent

define void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp ult i32 %tid, 1
  %nc = xor i1 %c, true
  br i1 %nc, label %b, label %a
a:
  %ia = phi i32 [ 0, %entry ], [ %inext, %b ]
  %s = call i32 @subgroupAdd(i32 %ia)
  br label %b
b:
  %ib = phi i32 [ 0, %entry ], [ %ia, %a ]
  %inext = add i32 %ib, 1
  %more = icmp ult i32 %inext, 3
  br i1 %more, label %a, label %exit
exit:
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %inext, ptr addrspace(1) %p
  ret void
}
