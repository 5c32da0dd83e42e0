; Exit phi with constant incomings 1 and 2 from inside a cycle with a divergent exit
; (docs/llvm-differences.md entry 2).
; DIVERGENT: %ph
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @f(i32 %n, ptr %q) {
entry:
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %B ], [ %i.next2, %C ]
  %odd = and i32 %i, 1
  %h = icmp eq i32 %odd, 0
  br i1 %h, label %A, label %C
A:
  %x = load i32, ptr %q
  %div = icmp slt i32 %x, 0
  br i1 %div, label %X, label %B
B:
  %i.next = add i32 %i, 1
  br label %H
C:
  %i.next2 = add i32 %i, 1
  %u = icmp slt i32 %i.next2, %n
  br i1 %u, label %H, label %X
X:
  %ph = phi i32 [ 1, %A ], [ 2, %C ]
  ret void
}
