; Rule P10's negative case, and the LLVM 19/22 bug of docs/llvm-differences.md entry 11. The exit in
; %B is on a uniform argument, but threads reach %B in different iterations: the divergent branch
; in the header sends some threads round again through %A (a "continue") while the others go on
; to %B. So threads leave through %B's uniform exit in different iterations, and the loop values
; read in %X differ (the simulator's witness). LLVM misses the divergent exit because the branch
; is in the header (it never passes the header's own label on to the exits); precise mode
; follows it (P3) and P10 does not apply (the exit is reached by a divergent path that also goes
; round). %i itself is uniform inside the loop (P5: both latches bring %i.next).
; UNIFORM: %i %i.next
; DIVERGENT: %ph %use %use2
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @f(i1 %u, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %A ], [ %i.next, %B ]
  %i.next = add i32 %i, 1
  %skip = icmp ult i32 %i, %tid
  br i1 %skip, label %A, label %B
A:
  br label %H
B:
  %k = mul i32 %i, %n
  br i1 %u, label %X, label %H
X:
  %ph = phi i32 [ %i.next, %B ]
  %use = add i32 %i, 0
  %use2 = add i32 %k, 1
  ret void
}
