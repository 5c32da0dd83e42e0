; An anchor, then a block starting with a heart that uses it (outside any cycle, as full unrolling
; leaves it): gvn merges the two blocks, so the heart follows the anchor in one block.
; Found by the LLVM harness (LLVM 22 -O3, seed 1884770), reduced by hand: LLVM 19 and 22 gvn alike.
define void @k(i32 %x) {
entry:
  %anchor = call token @llvm.experimental.convergence.anchor()
  br label %header
header:
  %heart = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %anchor) ]
  %w = call i32 @subgroupBroadcastFirst(i32 %x) [ "convergencectrl"(token %heart) ]
  ret void
}
declare i32 @subgroupBroadcastFirst(i32) #0
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
attributes #0 = { convergent nounwind willreturn memory(none) }
