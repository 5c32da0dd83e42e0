; Regression (oracle seed 7321): the reachability cache of the scheduler was shared between runs
; under different hierarchies, so under hierarchy [1] the readfirstlane in b2 was released for
; thread 0 alone although thread 1 later executed a converged instance of it.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i32 @ext(i32)

define void @f(i32 %a0, i32 inreg %a1, ptr addrspace(1) %p, ptr %q) {
b0:
  %v0 = call i32 @llvm.amdgcn.workitem.id.x()
  %v3 = add i32 0, 0
  switch i32 %v0, label %b1 [
    i32 0, label %b2
    i32 1, label %b3
    i32 2, label %b6
  ]
b1:
  unreachable
b2:
  %v8 = phi i32 [ %v25, %b7 ], [ %a0, %b0 ]
  %v9 = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %v8)
  switch i32 %v3, label %b4 [
    i32 0, label %b6
    i32 1, label %b4
  ]
b3:
  br label %b5
b4:
  %c30 = icmp eq i32 0, 0
  br i1 %c30, label %b7, label %b8
b5:
  %v33 = load i32, ptr addrspace(1) %p, align 4
  br label %b6
b6:
  %c20 = icmp eq i32 0, 0
  br i1 %c20, label %b7, label %b6
b7:
  %v25 = add i32 0, 0
  %c27 = icmp eq i32 0, 0
  br i1 %c27, label %b2, label %b1
b8:
  ret void
}
