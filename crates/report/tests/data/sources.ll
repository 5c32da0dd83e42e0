; Divergence sources of the AMDGPU model: arguments of a non-kernel function, loads from flat and
; private memory, atomics, calls, inline asm with a VGPR output.
target triple = "amdgcn-amd-amdhsa"

declare i32 @ext(i32)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define void @callee(i32 %arg, i32 inreg %sarg, ptr %flat, ptr addrspace(1) inreg %glob, ptr addrspace(5) %priv) {
entry:
  %fromarg = add i32 %arg, 1
  %fromsarg = add i32 %sarg, 1
  %flatload = load i32, ptr %flat
  %globload = load i32, ptr addrspace(1) %glob
  %privload = load i32, ptr addrspace(5) %priv
  %rmw = atomicrmw add ptr addrspace(1) %glob, i32 1 seq_cst
  %call = call i32 @ext(i32 %sarg)
  %asm = call i32 asm "v_mov_b32 $0, 0", "=v"()
  %rfl = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %arg)
  %sum = add i32 %fromarg, %rfl
  ret void
}
