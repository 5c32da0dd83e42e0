; A module exercising the reader: every instruction family, attributes, metadata, EH, tokens.
source_filename = "features.c"
target datalayout = "e-p:64:64-i64:64-n32:64"
target triple = "x86_64-unknown-linux-gnu"

%struct.S = type { i32, [4 x float], ptr }
%opaque.T = type opaque
%"quoted type" = type <{ i8, i16 }>

$comdat.any = comdat any
$comdat.big = comdat largest

@g = global i32 7, align 4
@"quoted global" = internal constant [6 x i8] c"hi\00\01\FF\22"
@arr = dso_local local_unnamed_addr global [3 x i64] [i64 1, i64 -2, i64 3], section ".data.x", comdat($comdat.any), align 16
@s = private unnamed_addr constant %struct.S { i32 1, [4 x float] [float 1.000000e+00, float 0x3FB99999A0000000, float -0.000000e+00, float 5.000000e-01], ptr @g }
@tls = thread_local(initialexec) global i32 0
@ext = external global i32
@ew = extern_weak global i32
@shared = addrspace(3) global [64 x float] poison, align 4
@ptrs = global [2 x ptr] [ptr @g, ptr getelementptr inbounds (i8, ptr @g, i64 4)]
@expr = global i64 add (i64 ptrtoint (ptr @g to i64), i64 8)
@zero = common global %struct.S zeroinitializer
@vec = global <4 x i32> <i32 1, i32 2, i32 3, i32 4>
@ba = global ptr blockaddress(@branches, %target.a)
@0 = private constant i8 0
@alias = alias i32, ptr @g
@ifunc = ifunc void (), ptr @resolver

declare token @llvm.experimental.convergence.entry() #1
declare token @llvm.experimental.convergence.anchor() #1
declare token @llvm.experimental.convergence.loop() #1
declare i32 @__gxx_personality_v0(...)
declare void @may_throw(i32) 
declare void @vararg(i32, ...)
declare noundef i32 @callee(ptr noundef byval(%struct.S) align 8, i32 inreg signext) #0

define ptr @resolver() {
  ret ptr null
}

define dso_local i32 @arith(i32 %a, i32 noundef %b, float %f, double %d, <4 x i32> %v) #0 !dbg !10 {
entry:
  %add = add nuw nsw i32 %a, %b
  %sub = sub i32 %add, 1
  %mul = mul nsw i32 %sub, %b
  %udiv = udiv exact i32 %mul, 3
  %sdiv = sdiv i32 %udiv, -7
  %urem = urem i32 %sdiv, 5
  %srem = srem i32 %urem, 5
  %shl = shl i32 %srem, 2
  %lshr = lshr exact i32 %shl, 1
  %ashr = ashr i32 %lshr, 1
  %and = and i32 %ashr, 255
  %or = or disjoint i32 %and, 256
  %xor = xor i32 %or, -1
  %fadd = fadd fast float %f, 1.000000e+00
  %fsub = fsub nnan ninf float %fadd, 2.500000e-01
  %fmul = fmul float %fsub, %fsub
  %fdiv = fdiv arcp float %fmul, 3.000000e+00
  %frem = frem float %fdiv, 2.000000e+00
  %fneg = fneg float %frem
  %dd = fadd double %d, 0x7FF0000000000000
  %h = fptrunc double %dd to half
  %hh = fadd half %h, 0xH3C00
  %bf = fptrunc float %fneg to bfloat
  %ext = fpext half %hh to float
  %tr = trunc nuw i32 %xor to i8
  %zx = zext nneg i8 %tr to i64
  %sx = sext i8 %tr to i16
  %fi = fptosi float %ext to i32
  %fu = fptoui float %ext to i32
  %si = sitofp i32 %fi to double
  %ui = uitofp nneg i32 %fu to float
  %p = inttoptr i64 %zx to ptr
  %pi = ptrtoint ptr %p to i64
  %bc = bitcast <4 x i32> %v to <2 x i64>
  %asc = addrspacecast ptr %p to ptr addrspace(1)
  %c1 = icmp samesign ult i32 %a, %b
  %c2 = icmp eq ptr %p, null
  %c3 = fcmp olt float %f, 0.000000e+00
  %c4 = fcmp fast uno double %d, %d
  %vc = icmp sgt <4 x i32> %v, zeroinitializer
  %sel = select i1 %c1, i32 %a, i32 %b
  %fsel = select nnan i1 %c3, float %f, float 1.000000e+00
  %fr = freeze i32 %sel
  %ee = extractelement <4 x i32> %v, i64 2
  %ie = insertelement <4 x i32> %v, i32 %fr, i32 0
  %sv = shufflevector <4 x i32> %v, <4 x i32> %ie, <4 x i32> <i32 0, i32 5, i32 poison, i32 7>
  %sp = shufflevector <4 x i32> %v, <4 x i32> poison, <2 x i32> zeroinitializer
  %agg = insertvalue { i32, { float, ptr } } undef, i32 %a, 0
  %agg2 = insertvalue { i32, { float, ptr } } %agg, float %f, 1, 0
  %ev = extractvalue { i32, { float, ptr } } %agg2, 1, 1
  %splat = add <4 x i32> %v, splat (i32 3)
    #dbg_value(i32 %b, !12, !DIExpression(), !13)
  %r = add i32 %ee, %fr, !dbg !13
  ret i32 %r
}

define void @memory(ptr %p, ptr addrspace(1) %gp, i64 %n) {
  %a = alloca i32, align 4
  %b = alloca [8 x i8], i64 %n, align 16, addrspace(5)
  %c = alloca inalloca i32
  %l = load i32, ptr %p, align 4, !tbaa !20
  %lv = load volatile i32, ptr addrspace(1) %gp, align 4
  %la = load atomic i32, ptr %p syncscope("agent") acquire, align 4
  store i32 %l, ptr %a, align 4
  store volatile i32 %lv, ptr addrspace(1) %gp
  store atomic i32 %la, ptr %p release, align 4
  fence syncscope("workgroup") seq_cst
  fence acq_rel
  %x = cmpxchg ptr %p, i32 0, i32 1 acq_rel monotonic, align 4
  %y = cmpxchg weak volatile ptr addrspace(1) %gp, i32 %l, i32 2 syncscope("one-as") seq_cst seq_cst
  %x0 = extractvalue { i32, i1 } %x, 0
  %rmw = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  %rmw2 = atomicrmw volatile fadd ptr addrspace(1) %gp, float 1.000000e+00 syncscope("agent") monotonic
  %rmw3 = atomicrmw uinc_wrap ptr %p, i32 9 monotonic
  %g1 = getelementptr inbounds %struct.S, ptr %p, i64 %n, i32 1, i64 2
  %g2 = getelementptr i8, ptr addrspace(1) %gp, i64 4
  %g3 = getelementptr inbounds nuw [3 x i64], ptr @arr, i64 0, i64 1
  %g4 = getelementptr i32, ptr %p, <2 x i64> <i64 0, i64 1>
  %g5 = getelementptr [64 x float], ptr addrspace(3) @shared, i32 0, i32 %x0
  ret void
}

define i32 @branches(i32 %x, i1 %c, ptr %addr) {
entry:
  br i1 %c, label %sw, label %ind

sw:
  switch i32 %x, label %def [
    i32 0, label %target.a
    i32 1, label %target.b
    i32 2, label %target.a
  ]

ind:
  indirectbr ptr %addr, [label %target.a, label %target.b]

target.a:
  %pa = phi i32 [ 0, %sw ], [ 1, %ind ], [ 0, %sw ]
  br label %def

target.b:
  %pb = phi i32 [ 2, %sw ], [ 3, %ind ]
  br label %def

def:
  %pd = phi i32 [ %pa, %target.a ], [ %pb, %target.b ], [ -1, %sw ]
  ret i32 %pd
}

define void @unnamed(i32, i32 %named, i32) {
  %3 = add i32 %0, %1
  br label %5

5:
  %6 = phi i32 [ %3, %2 ], [ %7, %5 ]
  %7 = add i32 %6, 1
  %8 = icmp slt i32 %7, 10
  br i1 %8, label %5, label %"exit block"

"exit block":
  ret void
}

define void @forward(i1 %c) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %latch ]
  br i1 %c, label %latch, label %exit

latch:
  %next = add i32 %i, 1
  br label %loop

exit:
  ret void

dead:
  %z = add i32 %z2, 1
  %z2 = add i32 %z, 1
  unreachable
}

define void @calls(ptr %fp, i32 %x) personality ptr @__gxx_personality_v0 {
entry:
  %t = call i32 @callee(ptr byval(%struct.S) align 8 @s, i32 inreg signext 5) #2
  %u = tail call noundef i32 %fp(i32 %x) nounwind
  call void (i32, ...) @vararg(i32 1, double 2.000000e+00, ptr null)
  %asm = call i32 asm sideeffect "mov $0, $1", "=r,r"(i32 %x)
  call void asm "nop", ""()
  %v = notail call fastcc i32 @callee(ptr %fp, i32 0) [ "deopt"(i32 1, i64 2), "gc-live"() ]
  invoke void @may_throw(i32 1)
          to label %cont unwind label %lpad

cont:
  callbr void asm "", "r,!i"(i32 %x)
          to label %fall [label %indirect]

fall:
  ret void

indirect:
  ret void

lpad:
  %lp = landingpad { ptr, i32 }
          cleanup
          catch ptr null
          filter [1 x ptr] [ptr @g]
  resume { ptr, i32 } %lp
}

define void @funclets() personality ptr @__gxx_personality_v0 {
entry:
  invoke void @may_throw(i32 0)
          to label %exit unwind label %dispatch

dispatch:
  %cs = catchswitch within none [label %handler] unwind label %cleanup

handler:
  %cp = catchpad within %cs [ptr null, i32 64, ptr null]
  catchret from %cp to label %exit

cleanup:
  %cl = cleanuppad within none []
  cleanupret from %cl unwind to caller

exit:
  ret void
}

define void @va(ptr %ap) {
  %v = va_arg ptr %ap, i32
  ret void
}

define void @tokens(i1 %c) #1 {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br label %loop

loop:
  %t = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %a = call token @llvm.experimental.convergence.anchor()
  br i1 %c, label %loop, label %exit

exit:
  ret void
}

define amdgpu_kernel void @kern(ptr addrspace(1) inreg %out, i32 %n) #3 !reqd_work_group_size !30 {
  store i32 %n, ptr addrspace(1) %out, align 4
  ret void
}

define ptx_kernel void @ptxk(ptr %p) {
  ret void
}

define cc 91 void @ccn() section "text.x" align 16 gc "statepoint-example" prefix i32 123 {
  ret void
}

define void @target_types(target("spirv.Image", i8, 1) %img) {
  ret void
}

attributes #0 = { noinline nounwind optnone "frame-pointer"="all" "target-cpu"="gfx90a" }
attributes #1 = { convergent nounwind willreturn memory(none) }
attributes #2 = { nounwind }
attributes #3 = { "amdgpu-flat-work-group-size"="1,256" "uniform-work-group-size"="true" }

!llvm.dbg.cu = !{!1}
!llvm.module.flags = !{!5, !6}
!nvvm.annotations = !{!7}

!1 = distinct !DICompileUnit(language: DW_LANG_C99, file: !2, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!2 = !DIFile(filename: "features.c", directory: "/tmp")
!5 = !{i32 2, !"Debug Info Version", i32 3}
!6 = !{i32 1, !"wchar_size", i32 4}
!7 = !{ptr @ptxk, !"kernel", i32 1}
!10 = distinct !DISubprogram(name: "arith", scope: !2, file: !2, line: 1, type: !11, unit: !1, spFlags: DISPFlagDefinition)
!11 = !DISubroutineType(types: !{null})
!12 = !DILocalVariable(name: "a", arg: 1, scope: !10, file: !2, line: 1, type: !14)
!13 = !DILocation(line: 2, column: 3, scope: !10)
!14 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!20 = !{!21, !21, i64 0}
!21 = !{!"int", !22, i64 0}
!22 = !{!"omnipotent char", !23, i64 0}
!23 = !{!"Simple C/C++ TBAA"}
!30 = !{i32 64, i32 1, i32 1}
