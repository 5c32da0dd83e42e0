; NVPTX's generic-load rule (LLVM main's refinement, sound variant): a generic load whose pointer
; is a global pointer cast to generic reads memory every thread sees alike (uniform); one through
; a generic kernel parameter may read the thread's own local memory and stays a source; one
; through an alloca reads each thread's own copy (here the thread id stored there). The alloca's
; address itself is the same number in every thread.
; UNIFORM: %v %g %a
; DIVERGENT: %l %r
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @f(ptr addrspace(1) %p, ptr %q) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %g = addrspacecast ptr addrspace(1) %p to ptr
  %v = load i32, ptr %g, align 4
  %l = load i32, ptr %q, align 4
  %a = alloca i32, align 4
  store i32 %tid, ptr %a, align 4
  %r = load i32, ptr %a, align 4
  ret void
}
