; Rule P10 with nested loops: the inner loop %IH has only a uniform exit; the outer loop has a
; divergent break (%IX, on the thread id) and a uniform latch exit (%OL). %s, computed in the inner
; loop, is read in %Out2, reached only through the outer latch's exit: the threads there left the
; outer loop in the same iteration and ran its last inner loop together, so uniform. In %Out1,
; after the break, and at the phi %e where both exits meet, it is divergent.
; UNIFORM: %s %u2 %u3
; DIVERGENT: %u1 %e
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @outer_break(i32 %n, i32 %m) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %OH
OH:
  %j = phi i32 [ 0, %entry ], [ %j.next, %OL ]
  br label %IH
IH:
  %i = phi i32 [ 0, %OH ], [ %i.next, %IH ]
  %s = add i32 %i, %j
  %i.next = add i32 %i, 1
  %ic = icmp slt i32 %i.next, %m
  br i1 %ic, label %IH, label %IX
IX:
  %brk = icmp eq i32 %j, %tid
  br i1 %brk, label %Out1, label %OL
OL:
  %j.next = add i32 %j, 1
  %oc = icmp slt i32 %j.next, %n
  br i1 %oc, label %OH, label %Out2
Out1:
  %u1 = add i32 %s, 0
  br label %End
Out2:
  %u2 = add i32 %s, 0
  %u3 = add i32 %j.next, 0
  br label %End
End:
  %e = phi i32 [ %u1, %Out1 ], [ %u2, %Out2 ]
  ret void
}
