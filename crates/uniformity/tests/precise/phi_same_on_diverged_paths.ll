; A phi at a join whose incoming values on the diverged paths (the edges from blocks the divergent
; branch reaches) are one value: %loop.b takes %new.b from both latches, so threads that
; diverged in %body.1 still agree at the header (LLVM main's phi_no_divergence refinement; LLVM
; 19 and 22 call it divergent). %loop.c keeps its old value on one path and takes %new.c on the
; other: divergent. %exit.val and the exit branch stay uniform, so the loop has no divergent exit.
; UNIFORM: %loop.b %exit.val %new.b
; DIVERGENT: %loop.c
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @f(i32 %a, i32 %b, i32 %c) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %odd = and i32 %tid, 1
  %div.cond = icmp eq i32 %odd, 0
  br label %header
header:
  %loop.b = phi i32 [ %b, %entry ], [ %new.b, %body.1 ], [ %new.b, %body.2 ]
  %loop.c = phi i32 [ %c, %entry ], [ %loop.c, %body.1 ], [ %new.c, %body.2 ]
  %exit.val = phi i32 [ %a, %entry ], [ %next.exit.val, %body.1 ], [ %next.exit.val, %body.2 ]
  %exit.cond = icmp sgt i32 %exit.val, 4
  br i1 %exit.cond, label %end, label %body.1
body.1:
  %new.b = add i32 %loop.b, 1
  %next.exit.val = add i32 %exit.val, 1
  br i1 %div.cond, label %body.2, label %header
body.2:
  %new.c = add i32 %loop.c, 1
  br label %header
end:
  ret void
}
