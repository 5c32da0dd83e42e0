; After full unrolling, a loop heart stays in a block that is no longer in a cycle; gvn merges that
; block into its predecessor, after a convergent call: the module breaks the token rules.
; Found by the LLVM harness (LLVM 19 -O3, seed 1916443; full unrolling left the heart), reduced by hand.
; LLVM 19 gvn: "Loop intrinsic cannot be preceded by a convergent operation"; LLVM 22 keeps the block.
define void @k(i32 %x) convergent {
entry:
  %entry.tok = call token @llvm.experimental.convergence.entry()
  %v = call i32 @subgroupBroadcastFirst(i32 %x) [ "convergencectrl"(token %entry.tok) ]
  br label %header
header:
  %heart = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %entry.tok) ]
  %w = call i32 @subgroupBroadcastFirst(i32 %v) [ "convergencectrl"(token %heart) ]
  ret void
}
declare i32 @subgroupBroadcastFirst(i32) #0
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()
attributes #0 = { convergent nounwind willreturn memory(none) }
