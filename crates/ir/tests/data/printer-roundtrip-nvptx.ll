; Printer round-trip regressions (NVPTX): every instruction kind, flags, metadata, EH.
target triple = "nvptx64-nvidia-cuda"

%pair = type { i32, float }
@g = global [4 x i32] [i32 1, i32 2, i32 3, i32 4]
@h = addrspace(3) global [16 x i8] undef
@s = private unnamed_addr constant [6 x i8] c"hi\0A\00\FF\22"
@gp = global ptr getelementptr inbounds nuw ([4 x i32], ptr @g, i64 0, i64 2)

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0() #0
declare i32 @personality(...)
declare void @may_throw(i32)
declare { i32, i1 } @llvm.sadd.with.overflow.i32(i32, i32)

define void @ops(ptr %p, ptr addrspace(3) %q, <4 x float> %v, i64 %n, i32 %x) personality ptr @personality {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !range !0
  %a = alloca [4 x i32], align 16
  %sh = shufflevector <4 x float> %v, <4 x float> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %e = extractelement <4 x float> %sh, i64 1
  %sel = select nnan i1 true, float %e, float 0.5
  %ov = call { i32, i1 } @llvm.sadd.with.overflow.i32(i32 %tid, i32 %x)
  %ev = extractvalue { i32, i1 } %ov, 0
  %iv = insertvalue %pair undef, i32 %ev, 0
  %cx = cmpxchg ptr %p, i32 0, i32 %ev syncscope("block") acq_rel monotonic, align 4
  %rmw = atomicrmw add ptr addrspace(3) %q, i32 1 seq_cst, align 4
  fence syncscope("block") release
  %ld = load volatile i32, ptr %p, align 4, !nontemporal !1
  %gep = getelementptr inbounds nuw %pair, ptr %p, i64 %n, i32 1
  %gep2 = getelementptr i8, ptr addrspace(3) getelementptr inbounds ([16 x i8], ptr addrspace(3) @h, i32 0, i32 4), i32 %tid
  %fr = freeze i32 %ld
  %asm = call i32 asm sideeffect "mov.u32 $0, %laneid;", "=r"()
  %c = icmp ult i32 %fr, 10
  switch i32 %fr, label %def [
    i32 0, label %one
    i32 7, label %two
  ]
one:
  invoke void @may_throw(i32 %tid)
          to label %two unwind label %lp
two:
  %ph = phi i32 [ 0, %entry ], [ 1, %one ]
  call void @llvm.nvvm.barrier0()
  br i1 %c, label %def, label %loop
loop:
  %i = phi i64 [ 0, %two ], [ %i.next, %loop ]
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %def, label %loop, !llvm.loop !2
lp:
  %lpad = landingpad { ptr, i32 }
          cleanup
  resume { ptr, i32 } %lpad
def:
  %fp = fptrunc double 0x3FEE147AE147AE14 to float
  %hh = fadd half 0xH3C00, 0xH3C01
  %bf = fadd bfloat 0xR3F80, 0xR3F80
  store float %fp, ptr getelementptr inbounds ([4 x i32], ptr @g, i64 0, i64 1), align 4
  %pi = ptrtoint ptr @s to i64
  unreachable
}

define void @loop2(i1 %c) {
entry:
  br label %h
h:
  br i1 %c, label %h, label %x
x:
  ret void
}

attributes #0 = { convergent nounwind }
!0 = !{i32 0, i32 1024}
!1 = !{i32 1}
!2 = distinct !{!2, !3}
!3 = !{!"llvm.loop.mustprogress"}
