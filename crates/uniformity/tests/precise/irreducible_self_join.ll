; LLVM 22 misses the join at the branch block b4 inside the irreducible cycle {b2, b4}
; (docs/llvm-differences.md entry 1); under the hierarchy with header b4 both arrivals converge.
; DIVERGENT: %phi
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @f(i1 %u, ptr %q) {
entry:
  br i1 %u, label %b4, label %b2
b2:
  br label %b4
b4:
  %phi = phi i32 [ 2, %b4 ], [ 0, %b2 ], [ 1, %entry ]
  %x = load i32, ptr %q
  %c = icmp slt i32 %x, 0
  br i1 %c, label %b2, label %b4
}
