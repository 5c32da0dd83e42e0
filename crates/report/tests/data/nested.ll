; A divergent branch inside an inner loop: the inner loop's exit is divergent, the outer header
; phi is not a join (only reached around the cycle), and a use after the inner loop is
; temporally divergent.
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @nest(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %outer

outer:
  %o = phi i32 [ 0, %entry ], [ %o.next, %outer.latch ]
  br label %inner

inner:
  %k = phi i32 [ 0, %outer ], [ %k.next, %inner.body ]
  %k.next = add i32 %k, 1
  %t = icmp eq i32 %k, %tid
  br i1 %t, label %inner.done, label %inner.body

inner.body:
  %more = icmp slt i32 %k.next, %n
  br i1 %more, label %inner, label %inner.done

inner.done:
  %kk = phi i32 [ %k, %inner ], [ %k.next, %inner.body ]
  %use = add i32 %k.next, 1
  br label %outer.latch

outer.latch:
  %o.next = add i32 %o, 1
  %oc = icmp slt i32 %o.next, %n
  br i1 %oc, label %outer, label %exit

exit:
  store i32 %o, ptr addrspace(1) %out
  ret void
}
