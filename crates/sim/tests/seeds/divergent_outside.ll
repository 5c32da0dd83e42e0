; Diverged paths from Entry reach the irreducible cycle at P and at R.
; Each thread's path is forced: at step s (the position in the thread's path), a block with two
; successors takes the first one iff bit (32*tid + s) of its mask is set. %s.X counts steps.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @divergent_outside() {
Entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %base = mul i32 %tid, 32
  %s.Entry = add i32 0, 0
  %n.Entry = add i32 %s.Entry, 1
  %sh.Entry = add i32 %base, %s.Entry
  %w.Entry = zext i32 %sh.Entry to i128
  %m.Entry = lshr i128 1, %w.Entry
  %c.Entry = trunc i128 %m.Entry to i1
  br i1 %c.Entry, label %P, label %R
P:
  %s.P = phi i32 [ %n.Entry, %Entry ], [ %n.S, %S ]
  %n.P = add i32 %s.P, 1
  br label %Q
Q:
  %s.Q = phi i32 [ %n.P, %P ]
  %n.Q = add i32 %s.Q, 1
  %sh.Q = add i32 %base, %s.Q
  %w.Q = zext i32 %sh.Q to i128
  %m.Q = lshr i128 549755813892, %w.Q
  %c.Q = trunc i128 %m.Q to i1
  br i1 %c.Q, label %R, label %S
R:
  %s.R = phi i32 [ %n.Entry, %Entry ], [ %n.Q, %Q ]
  %n.R = add i32 %s.R, 1
  br label %S
S:
  %s.S = phi i32 [ %n.Q, %Q ], [ %n.R, %R ]
  %n.S = add i32 %s.S, 1
  %sh.S = add i32 %base, %s.S
  %w.S = zext i32 %sh.S to i128
  %m.S = lshr i128 154618822672, %w.S
  %c.S = trunc i128 %m.S to i1
  br i1 %c.S, label %P, label %Exit
Exit:
  %s.Exit = phi i32 [ %n.S, %S ]
  %n.Exit = add i32 %s.Exit, 1
  ret void
}
