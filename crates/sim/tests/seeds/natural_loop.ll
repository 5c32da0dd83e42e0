; Natural loop of 'Convergence And Uniformity' (Entry, H, B, L, Exit).
; Each thread's path is forced: at step s (the position in the thread's path), a block with two
; successors takes the first one iff bit (32*tid + s) of its mask is set. %s.X counts steps.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @natural_loop() {
Entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %base = mul i32 %tid, 32
  %s.Entry = add i32 0, 0
  %n.Entry = add i32 %s.Entry, 1
  br label %H
H:
  %s.H = phi i32 [ %n.Entry, %Entry ], [ %n.L, %L ]
  %n.H = add i32 %s.H, 1
  %sh.H = add i32 %base, %s.H
  %w.H = zext i32 %sh.H to i128
  %m.H = lshr i128 309237645314, %w.H
  %c.H = trunc i128 %m.H to i1
  br i1 %c.H, label %B, label %L
B:
  %s.B = phi i32 [ %n.H, %H ]
  %n.B = add i32 %s.B, 1
  br label %L
L:
  %s.L = phi i32 [ %n.H, %H ], [ %n.B, %B ]
  %n.L = add i32 %s.L, 1
  %sh.L = add i32 %base, %s.L
  %w.L = zext i32 %sh.L to i128
  %m.L = lshr i128 154618822664, %w.L
  %c.L = trunc i128 %m.L to i1
  br i1 %c.L, label %H, label %Exit
Exit:
  %s.Exit = phi i32 [ %n.L, %L ]
  %n.Exit = add i32 %s.Exit, 1
  ret void
}
