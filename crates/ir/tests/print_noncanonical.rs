//! `inst_text` on NON-canonical input against LLVM's own `Value::print`, live: the module below is
//! written the way old or hand-written tests write IR (odd spacing, comments, typed pointers,
//! attribute groups out of order and duplicated, custom metadata kinds, floats as decimals, loads
//! without `align`, every opcode), and `opt -passes='print<uniformity>'` of LLVM 22 and LLVM 19
//! prints every instruction of a function that has a divergent value. Each instruction's text must
//! appear, in order, as a whole line after the 13-column prefix.
//!
//! `ONLY22` functions use syntax or printing that LLVM 19 does not share (checked against 22 only,
//! the reference version).

use converge_ir::{FuncId, InstId, Module};
use std::path::Path;

const TID: &str = "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n";

/// (function name, body after the `tid` line, checked against LLVM 19 too).
const FUNCS: &[(&str, &str, bool)] = &[
    (
        "arith(i32 %a, i32 %b, float %f, double %d, <4 x i32> %v)",
        "  %x1 = add   nuw nsw i32 %tid,%a   ; a comment
  %x2 = sub nsw i32 %x1, 1
  %x3 = mul i32 %x2, %b
  %x4 = udiv exact i32 %x3, 3
  %x5 = sdiv i32 %x4, -7
  %x6 = urem i32 %x5, %b
  %x7 = srem i32 %x6, %a
  %x8 = shl nsw nuw i32 %x7, 2
  %x9 = lshr exact i32 %x8, 1
  %x10 = ashr i32 %x9, 1
  %x11 = and i32 %x10, 255
  %x12 = or disjoint i32 %x11, 256
  %x13 = xor i32 %x12, -1
  %fa = fadd contract nnan float %f, 1.0
  %fb = fsub fast float %fa, 0.5
  %fc = fmul arcp afn reassoc float %fb, 2.5e+00
  %fd = fdiv float %fc, 3.0
  %fe = frem float %fd, 0x3FB99999A0000000
  %fn = fneg nsz float %fe
  %da = fadd double %d, 0.1
  %db = fmul double %da, 1.0e10
  %dc = fadd double %db, 0x7FF0000000000000
  %h = fptrunc double %dc to half
  %hh = fadd half %h, 0xH3C00
  %vv = add <4 x i32> %v, <i32 1, i32 2, i32 3, i32 4>
  %vz = mul <4 x i32> %vv, zeroinitializer
  ret void",
        true,
    ),
    (
        "casts(i32 %a, float %f, i8 addrspace(1)* %p)",
        "  %c1 = trunc i32 %tid to i8
  %c2 = zext nneg i8 %c1 to i64
  %c3 = sext i8 %c1 to i16
  %c4 = fpext float %f to double
  %c5 = fptoui float %f to i32
  %c6 = fptosi double %c4 to i64
  %c7 = uitofp i32 %a to float
  %c8 = sitofp i16 %c3 to double
  %c9 = ptrtoint i8 addrspace(1)* %p to i64
  %c10 = inttoptr i64 %c2 to i32*
  %c11 = bitcast i32 %tid to float
  %c12 = addrspacecast i8 addrspace(1)* %p to i8*
  %c13 = icmp   ult i32 %tid, %a
  %c14 = fcmp fast oge float %f, 1.0
  %c15 = fcmp uno double %c4, %c4
  %c16 = select i1 %c13, i32 %a, i32 %tid
  %c17 = select nnan i1 %c14, float %f, float 2.0
  %c18 = freeze i32 %c16
  ret void",
        true,
    ),
    (
        "memory(i32 addrspace(1)* %p, <2 x i32> addrspace(1)* %q, i32* %r, i64 %n)",
        "  %g = getelementptr <2 x i32>, <2 x i32> addrspace(1)* %q, i32 %tid
  %gi = getelementptr inbounds i32, i32 addrspace(1)* %p, i64 %n
  %gs = getelementptr inbounds {i32, [4 x float]}, ptr %r, i32 0, i32 1, i32 %tid
  %v = load <2 x i32>, <2 x i32> addrspace(1)* %g
  %l = load volatile i32, i32 addrspace(0)* %r, align 8
  %l64 = load i64, ptr %r
  %lp = load ptr addrspace(3), ptr %r
  store i32 %tid, i32 addrspace(1)* %gi
  store volatile double 1.5, ptr %r, align 16
  %al = alloca i32
  %al2 = alloca [4 x i64], align 32
  %al3 = alloca i8, i32 %tid
  %al4 = alloca i64, i64 1
  %at = load atomic i32, i32 addrspace(1)* %p syncscope(\"agent\") acquire, align 4
  store atomic i32 %at, ptr %r seq_cst, align 4
  fence syncscope(\"workgroup\") release
  fence seq_cst
  %cx = cmpxchg weak i32 addrspace(1)* %p, i32 %at, i32 %tid acq_rel monotonic
  %cxv = cmpxchg volatile ptr %r, i32 0, i32 1 syncscope(\"block\") seq_cst seq_cst, align 8
  %rm = atomicrmw add i32 addrspace(1)* %p, i32 1 monotonic
  %rm2 = atomicrmw volatile xchg ptr %r, i32 %tid syncscope(\"device\") seq_cst, align 4
  %rm3 = atomicrmw fadd ptr %r, float 1.0 seq_cst
  %rm4 = atomicrmw umax ptr %r, i64 %n acquire
  ret void",
        true,
    ),
    (
        "vectors(<4 x float> %v, { i32, float } %s, i32 %i)",
        "  %e = extractelement <4 x float> %v, i32 %tid
  %e2 = extractelement <4 x float> %v, i64 3
  %ins = insertelement <4 x float> %v, float %e, i32 %tid
  %sh = shufflevector <4 x float> %ins, <4 x float> undef, <4 x i32> <i32 3, i32 undef, i32 1, i32 0>
  %sh2 = shufflevector <4 x float> %sh, <4 x float> %v, <2 x i32> zeroinitializer
  %sh3 = shufflevector <4 x float> %sh, <4 x float> poison, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %ev = extractvalue { i32, float } %s, 1
  %iv = insertvalue { i32, float } %s, i32 %tid, 0
  %agg = insertvalue {i32, {float, i8}} undef, i8 1, 1, 1
  %ev2 = extractvalue {i32, {float, i8}} %agg, 1, 0
  ret void",
        true,
    ),
    (
        "control(i32 %a, i1 %c)",
        "  %cmp = icmp eq i32 %tid, %a
  br i1 %cmp, label %B1, label %B2
B1:
  %a0 = add i32 %a, 1
  switch i32 %tid, label %B3 [ i32 0, label %B2
      i32 7, label %B3  i32 -1, label %B2 ]
B2:
  %ph = phi i32 [%a0,%B1],[ 0 , %0 ],   [%a0, %B1]
  %ph2 = phi float [1.0, %B1], [0.5, %0], [ 1.0 , %B1 ]
  br label %B3
B3:
  %m = phi i32 [ %a0, %B1 ], [%ph, %B2], [%a0, %B1]
  br i1 %c, label %B4, label %B5
B4:
  unreachable
B5:
  ret void",
        true,
    ),
    (
        "calls(ptr %fp, i32 %x) #5",
        "  %r1 = call i32 @ext(i32 %tid) #3
  %r2 = tail call i32 @ext(i32 %x) #1
  call void @ext2(i32 zeroext %x, ptr noundef nonnull %fp) #4
  %r3 = call fast float @extf(float 1.0)
  %r4 = notail call noundef i32 %fp(i32 %x) nounwind
  %r5 = call i32 (i32, ...) @vararg(i32 1, i32 %tid, double 2.0)
  %r6 = call i32 @ext(i32 %x) #2, !zz !7, !aa !3
  call void @ext2(i32 %tid, ptr null) readnone
  %r7 = call i32 asm sideeffect \"mov $0, $1;\", \"=r,r\"(i32 %tid)
  ret void",
        true,
    ),
    (
        "tokens(i1 %c) #0",
        "  %t0 = call token @llvm.experimental.convergence.entry()
  br i1 %c, label %L, label %X
L:
  %t1 = call token @llvm.experimental.convergence.loop()   [ \"convergencectrl\"(token %t0) ]
  %s = call i32 @ext(i32 %tid) [\"convergencectrl\"( token %t1 )]
  %k = call i32 @ext(i32 %s) [ \"convergencectrl\" (token %t1), \"foo\"(i32 1, i32 %s) ]
  br i1 %c, label %L, label %X
X:
  ret void",
        true,
    ),
    (
        "meta(ptr %p) !fa !4",
        "  %m1 = load i32, ptr %p, !range !5, !zz !6, !aa !3
  %m2 = load i32, ptr %p, align 4, !noundef !8, !zz !2
  %m3 = add i32 %m1, %tid, !aa !9, !zz !10
  store i32 %m3, ptr %p, !nontemporal !11
  ret void, !bb !3",
        true,
    ),
    (
        "eh(i32 %x) personality i32 (...)* @pers",
        "  invoke void @ext2(i32 %tid, ptr null)
          to label %ok unwind label %lp
ok:
  %r = invoke i32 @ext(i32 %x) #1 to label %ok2 unwind label %lp
ok2:
  ret void
lp:
  %lpv = landingpad { ptr, i32 } cleanup catch ptr @gv filter [1 x ptr] [ptr @gv]
  resume { ptr, i32 } %lpv",
        true,
    ),
    (
        "funclets() personality ptr @pers",
        "  invoke void @ext2(i32 %tid, ptr null) to label %ok unwind label %cs
ok:
  ret void
cs:
  %sw = catchswitch within none [label %h1, label %h2] unwind to caller, !zz !3
h1:
  %cp = catchpad within %sw [ptr @gv, i32 64, ptr null]
  catchret from %cp to label %ok
h2:
  %cp2 = catchpad within %sw []
  invoke void @ext2(i32 1, ptr null) [\"funclet\"(token %cp2)] to label %ok unwind label %cl
cl:
  %cu = cleanuppad within %cp2 [i32 %tid]
  cleanupret from %cu unwind to caller",
        true,
    ),
    (
        "indirect(ptr %ap, i1 %c)",
        "  %va = va_arg ptr %ap, i32
  %d = select i1 %c, ptr blockaddress(@indirect, %T1), ptr blockaddress(@indirect, %T2)
  indirectbr ptr %d, [label %T1, label %T2]
T1:
  callbr void asm \"\", \"r,!i\"(i32 %tid) to label %T2 [label %T1]
T2:
  ret void",
        true,
    ),
    (
        "misc(ptr %p, <2 x i32> %v, i8 %b)",
        "  %s1 = call i32 @ext3(i32 signext %tid, ptr readonly align 4 noalias %p, i8 zeroext noundef %b)
  %s2 = call zeroext i8 @ext4(ptr noalias dereferenceable(8) %p) #1
  %s4 = icmp slt <2 x i32> %v, zeroinitializer
  %s5 = select <2 x i1> %s4, <2 x i32> %v, <2 x i32> <i32 0, i32 undef>
  %s6 = getelementptr i32, ptr %p, <2 x i64> <i64 0, i64 1>
  %s7 = getelementptr inbounds [4 x i8], ptr @str, i64 0, i32 %tid
  %s8 = ptrtoint ptr getelementptr (i8, ptr @gv, i64 4) to i64
  %s9 = add i64 %s8, ptrtoint (ptr @gv to i64)
  %s10 = insertvalue { i32, ptr } { i32 1, ptr null }, i32 %tid, 0
  %s11 = trunc nuw nsw i32 %tid to i8
  %s12 = call zeroext i8 @ext4(ptr byval(i32 addrspace(1)*) align 4 null)
  %s13 = call zeroext i8 @ext4(ptr byval(i8*) null)
  ret void",
        true,
    ),
    (
        "misc22(i32 %a, i32 %b)",
        "  %u1 = icmp samesign ult i32 %tid, %a
  %u2 = uitofp nneg i32 %a to float
  %u3 = call range(i32 0, 10) i32 @ext(i32 %b)
  %u4 = call i32 @ext3(i32 %a, ptr captures(none) null, i8 0)
  %u5 = call i32 @ext3(i32 %a, ptr nocapture readonly align 4 dereferenceable(4) null, i8 0)
  %u6 = call noundef zeroext i8 @ext4(ptr noundef nonnull byval(i32) align 4 null)
  %u7 = add <2 x i32> <i32 7, i32 7>, <i32 1, i32 1>
  ret void",
        false,
    ),
    (
        "mdop(ptr %p)",
        "  %r = call i64 @llvm.read_register.i64(metadata !13)
  %a = load i32, ptr %p, !zz !12
  ret void",
        true,
    ),
    (
        "gepflags(ptr %p, i64 %i)",
        "  %g1 = getelementptr inbounds nuw i8, ptr %p, i64 %i
  %g2 = getelementptr nusw i8, ptr %p, i32 %tid
  %g3 = getelementptr nuw [4 x i32], ptr %p, i64 0, i64 %i
  ret void",
        false,
    ),
];

const TAIL: &str = r#"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()
declare i32 @ext(i32) #1
declare void @ext2(i32, ptr) #3
declare float @extf(float)
declare i32 @vararg(i32, ...)
declare i32 @pers(...)
declare i32 @ext3(i32, ptr, i8)
declare i64 @llvm.read_register.i64(metadata)
declare i8 @ext4(ptr)
@str = constant [4 x i8] c"abc\00"
@gv = global i32 0

attributes #5 = { "k"="v" noinline }
attributes #4 = { convergent nounwind }
attributes #3 = { nounwind }
attributes #1 = { convergent }
attributes #2 = { nounwind convergent }
attributes #0 = { convergent nounwind }

!named = !{!1, !0}
!other = !{!12}
!0 = !{i32 0}
!1 = !{!"n", !2}
!2 = !{i32 2}
!3 = !{i32 3}
!4 = !{!5, !3}
!5 = !{i32 0, i32 10}
!6 = !{i32 6}
!7 = !{!6, !12}
!8 = !{}
!9 = !{!10}
!10 = !{!"ten"}
!11 = !{i32 1}
!12 = !{i32 12}
!13 = !{!"sp"}
"#;

fn module_text(with: impl Fn(bool) -> bool) -> String {
    let mut s = String::from("target triple = \"nvptx64-nvidia-cuda\"\n\n");
    for (sig, body, both) in FUNCS {
        if !with(*both) {
            continue;
        }
        s.push_str(&format!("define void @{sig} {{\n{TID}{body}\n}}\n\n"));
    }
    s.push_str(TAIL);
    s
}

/// Every instruction of every function, in order, as a whole line of the printer's output.
fn compare(m: &Module, out: &str, version: &str, failures: &mut Vec<String>) {
    let mut text = String::new();
    for f in m.func_ids() {
        let func = m.func(f);
        if func.is_declaration {
            continue;
        }
        let name = m.str(func.name);
        let header = format!("UniformityInfo for function '{name}':\n");
        let Some(start) = out.find(&header) else {
            failures.push(format!("{version}: no output for {name}"));
            continue;
        };
        let section = &out[start + header.len()..];
        let section = &section[..section
            .find("UniformityInfo for function")
            .unwrap_or(section.len())];
        let mut cursor = 0;
        for i in 0..func.insts.len() {
            text.clear();
            m.inst_text_into(&mut text, f, InstId(i as u32));
            let found = ["\n  DIVERGENT: ", "\n             "]
                .iter()
                .filter_map(|p| {
                    let needle = format!("{p}{text}\n");
                    section[cursor..]
                        .find(&needle)
                        .map(|k| cursor + k + needle.len() - 1)
                })
                .min();
            match found {
                Some(end) => cursor = end,
                None => {
                    let line = func.inst_span(converge_ir::InstId(i as u32));
                    let src = &m.source[line.start as usize..line.end as usize];
                    failures.push(format!(
                        "{version} @{name}: `{src}`\n  converge: {text:?}\n  LLVM's lines:\n{}",
                        section
                            .lines()
                            .filter(|l| l.contains(&text.trim()[..text.trim().len().min(6)]))
                            .take(4)
                            .collect::<Vec<_>>()
                            .join("\n")
                    ));
                }
            }
        }
    }
}

fn run(opt: &Path, version: &str, text: &str, failures: &mut Vec<String>) {
    let r = converge_gen::reference::run_opt(
        opt,
        &["-passes=print<uniformity>", "-disable-output"],
        text,
    );
    assert!(
        r.success,
        "{version} rejected the test module:\n{}",
        r.stderr
    );
    let m = converge_ir::parse("noncanonical.ll", text.to_string())
        .unwrap_or_else(|d| panic!("{}", d.render("noncanonical.ll", text)));
    compare(&m, &r.stderr, version, failures);
}

#[test]
fn noncanonical_instructions_print_as_llvm_prints_them() {
    let mut failures = Vec::new();
    if let Some(opt) = converge_gen::reference::opt22("non-canonical printing (LLVM 22)") {
        run(&opt, "LLVM 22", &module_text(|_| true), &mut failures);
    }
    if let Some(opt) = converge_gen::reference::opt19("non-canonical printing (LLVM 19)") {
        run(&opt, "LLVM 19", &module_text(|both| both), &mut failures);
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `Value::print` numbers call-site attribute sets after every function's set, per function;
/// `opt -S` keeps counting over the module. Both views of one call must agree with LLVM 22.
#[test]
fn attribute_group_numbering_per_function_and_per_module() {
    let Some(opt) = converge_gen::reference::opt22("attribute numbering") else {
        return;
    };
    let text = module_text(|_| true);
    let r = converge_gen::reference::run_opt(&opt, &["-S"], &text);
    assert!(r.success, "{}", r.stderr);
    let m = converge_ir::parse("s.ll", r.stdout.clone()).unwrap();
    let mut got = String::new();
    for f in m.func_ids() {
        for i in 0..m.func(f).insts.len() {
            let i = InstId(i as u32);
            got.clear();
            m.inst_text_module_into(&mut got, f, i);
            let span = m.func(f).inst_span(i);
            let start = r.stdout[..span.start as usize]
                .rfind('\n')
                .map_or(0, |p| p + 1);
            assert_eq!(
                got,
                &r.stdout[start..span.end as usize],
                "in {:?}",
                FuncId(f.0)
            );
        }
    }
}
