; Regression: the simulator released one dynamic instance of a call (one class) as two groups
; ([0] and [2], after running threads ahead on copies); compared with itself this looked like a
; violation. Such runs were then skipped as inconclusive (converge_check::observe); the scheduler
; now releases the class once (crates/sim/tests/regressions.rs, a_heart_controlled_class_is_released_once).
; ModuleID = '<stdin>'
source_filename = "<stdin>"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: convergent
define void @k(ptr addrspace(1) %out, i32 %n, i32 %m) #0 {
entry:
  %entry.tok = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %ploop1

ploop1:                                           ; preds = %ploop1, %entry
  %i3 = phi i32 [ 0, %entry ], [ %inext4, %ploop1 ]
  %pacc5 = phi i32 [ %tid, %entry ], [ %pacc6, %ploop1 ]
  %pacc6 = add i32 %pacc5, %i3
  %inext4 = add i32 %i3, 1
  %c7 = icmp slt i32 %inext4, %n
  br i1 %c7, label %ploop1, label %pexit2

pexit2:                                           ; preds = %ploop1
  %acc8 = phi i32 [ %pacc6, %ploop1 ]
  br label %ploop9

ploop9:                                           ; preds = %ploop9, %pexit2
  %i11 = phi i32 [ 0, %pexit2 ], [ %inext12, %ploop9 ]
  %pacc13 = phi i32 [ %acc8, %pexit2 ], [ %pacc14, %ploop9 ]
  %pacc14 = add i32 %pacc13, %i11
  %inext12 = add i32 %i11, 1
  %c15 = icmp slt i32 %inext12, 2
  br i1 %c15, label %ploop9, label %pexit10

pexit10:                                          ; preds = %ploop9
  %acc16 = phi i32 [ %pacc14, %ploop9 ]
  %t18 = add i32 %tid, %n
  %bound17 = and i32 %t18, 7
  br label %header19

header19:                                         ; preds = %latch21, %pexit10
  %i23 = phi i32 [ 0, %pexit10 ], [ %inext24, %latch21 ]
  %hacc25 = phi i32 [ %acc16, %pexit10 ], [ %lacc26, %latch21 ]
  %heart27 = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %entry.tok) ]
  %c28 = icmp slt i32 %i23, %bound17
  br i1 %c28, label %body20, label %exit22

body20:                                           ; preds = %header19
  %c29 = icmp sgt i32 %n, 0
  %x33 = add i32 %hacc25, 1
  br i1 %c29, label %then30, label %else31

then30:                                           ; preds = %body20
  %v34 = call i32 @subgroupAdd(i32 %x33) [ "convergencectrl"(token %heart27) ]
  br label %join32

else31:                                           ; preds = %body20
  %v35 = call i32 @subgroupAdd(i32 %x33) [ "convergencectrl"(token %heart27) ]
  br label %join32

join32:                                           ; preds = %else31, %then30
  %acc36 = phi i32 [ %v34, %then30 ], [ %v35, %else31 ]
  %acc37 = xor i32 %acc36, %hacc25
  %t39 = add i32 %tid, %n
  %bound38 = and i32 %t39, 7
  br label %header40

header40:                                         ; preds = %latch42, %join32
  %i44 = phi i32 [ 0, %join32 ], [ %inext45, %latch42 ]
  %hacc46 = phi i32 [ %acc37, %join32 ], [ %lacc47, %latch42 ]
  %heart48 = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %heart27) ]
  %c49 = icmp slt i32 %i44, %bound38
  br i1 %c49, label %body41, label %exit43

body41:                                           ; preds = %header40
  %x50 = add i32 %hacc46, 3
  call void @subgroupControlBarrier() [ "convergencectrl"(token %heart48) ]
  %acc52 = mul i32 %x50, 3
  %x53 = add i32 %acc52, 6
  %v54 = call i32 @subgroupAdd(i32 %x53) [ "convergencectrl"(token %heart48) ]
  %acc55 = xor i32 %acc52, %v54
  %x56 = add i32 %acc55, 3
  call void @subgroupControlBarrier() [ "convergencectrl"(token %heart48) ]
  %acc58 = mul i32 %x56, 3
  br label %latch42

latch42:                                          ; preds = %body41
  %lacc47 = add i32 %acc58, 1
  %inext45 = add i32 %i44, 1
  br label %header40

exit43:                                           ; preds = %header40
  %acc59 = phi i32 [ %hacc46, %header40 ]
  %t61 = add i32 %tid, %n
  %bound60 = and i32 %t61, 7
  br label %header62

header62:                                         ; preds = %latch64, %exit43
  %i66 = phi i32 [ 0, %exit43 ], [ %inext67, %latch64 ]
  %hacc68 = phi i32 [ %acc59, %exit43 ], [ %lacc69, %latch64 ]
  %heart70 = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %heart27) ]
  %c71 = icmp slt i32 %i66, %bound60
  br i1 %c71, label %body63, label %exit65

body63:                                           ; preds = %header62
  %anchor72 = call token @llvm.experimental.convergence.anchor()
  %t74 = and i32 %hacc68, 1
  %c73 = icmp eq i32 %t74, 0
  %x78 = add i32 %hacc68, 1
  br i1 %c73, label %then75, label %else76

then75:                                           ; preds = %body63
  %v79 = call i32 @subgroupBroadcastFirst(i32 %x78) [ "convergencectrl"(token %anchor72) ]
  br label %join77

else76:                                           ; preds = %body63
  %v80 = call i32 @subgroupBroadcastFirst(i32 %x78) [ "convergencectrl"(token %anchor72) ]
  br label %join77

join77:                                           ; preds = %else76, %then75
  %acc81 = phi i32 [ %v79, %then75 ], [ %v80, %else76 ]
  %acc82 = xor i32 %acc81, %hacc68
  %t84 = and i32 %acc82, 1
  %c83 = icmp eq i32 %t84, 0
  %x88 = add i32 %acc82, 1
  br i1 %c83, label %then85, label %else86

then85:                                           ; preds = %join77
  %v89 = call i32 @subgroupBroadcastFirst(i32 %x88) [ "convergencectrl"(token %anchor72) ]
  br label %join87

else86:                                           ; preds = %join77
  %v90 = call i32 @subgroupBroadcastFirst(i32 %x88) [ "convergencectrl"(token %anchor72) ]
  br label %join87

join87:                                           ; preds = %else86, %then85
  %acc91 = phi i32 [ %v89, %then85 ], [ %v90, %else86 ]
  %acc92 = xor i32 %acc91, %acc82
  %x93 = add i32 %acc92, 7
  call void @subgroupControlBarrier() [ "convergencectrl"(token %anchor72) ]
  %acc95 = mul i32 %x93, 3
  br label %latch64

latch64:                                          ; preds = %join87
  %lacc69 = add i32 %acc95, 1
  %inext67 = add i32 %i66, 1
  br label %header62

exit65:                                           ; preds = %header62
  %acc96 = phi i32 [ %hacc68, %header62 ]
  br label %latch21

latch21:                                          ; preds = %exit65
  %lacc26 = add i32 %acc96, 1
  %inext24 = add i32 %i23, 1
  br label %header19

exit22:                                           ; preds = %header19
  %acc97 = phi i32 [ %hacc25, %header19 ]
  %outp = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %acc97, ptr addrspace(1) %outp, align 4
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: convergent nounwind willreturn memory(none)
declare i32 @subgroupAdd(i32) #2

; Function Attrs: convergent nounwind willreturn memory(none)
declare i32 @subgroupBroadcastFirst(i32) #2

; Function Attrs: convergent nounwind willreturn memory(none)
declare i32 @subgroupBallot(i1) #2

; Function Attrs: convergent nounwind
declare void @subgroupControlBarrier() #3

; Function Attrs: convergent nocallback nofree nosync nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.entry() #4

; Function Attrs: convergent nocallback nofree nosync nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.anchor() #4

; Function Attrs: convergent nocallback nofree nosync nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.loop() #4

attributes #0 = { convergent }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent nounwind willreturn memory(none) }
attributes #3 = { convergent nounwind }
attributes #4 = { convergent nocallback nofree nosync nounwind willreturn memory(none) }
