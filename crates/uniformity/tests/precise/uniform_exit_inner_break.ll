; Rule P10 with nested loops: the inner loop %IH has a divergent break (on the thread id) and a
; uniform latch exit %IL. Threads that did not break leave through %IL together, so %b in
; %IOut2 is uniform; %a after the break is divergent, and so is the phi %x where both meet. After
; the outer loop (whose only exit is uniform), %j is uniform, but %i is divergent: in the last
; outer iteration threads left the inner loop in different inner iterations.
; UNIFORM: %b %uj %j
; DIVERGENT: %a %x %ui %ux
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @inner_break(i32 %n, i32 %m) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %OH
OH:
  %j = phi i32 [ 0, %entry ], [ %j.next, %OL ]
  br label %IH
IH:
  %i = phi i32 [ 0, %OH ], [ %i.next, %IL ]
  %t = add i32 %i, %j
  %brk = icmp eq i32 %t, %tid
  br i1 %brk, label %IOut1, label %IL
IL:
  %i.next = add i32 %i, 1
  %ic = icmp slt i32 %i.next, %m
  br i1 %ic, label %IH, label %IOut2
IOut1:
  %a = add i32 %i, 7
  br label %OL
IOut2:
  %b = add i32 %i, 9
  br label %OL
OL:
  %x = phi i32 [ %a, %IOut1 ], [ %b, %IOut2 ]
  %j.next = add i32 %j, 1
  %oc = icmp slt i32 %j.next, %n
  br i1 %oc, label %OH, label %Out
Out:
  %uj = add i32 %j, 0
  %ui = add i32 %i, 0
  %ux = add i32 %x, 0
  ret void
}
