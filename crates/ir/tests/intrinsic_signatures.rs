//! Calls LLVM's verifier rejects and the reader must reject too, located: calls to declared
//! intrinsics whose signature differs from the declaration ("Intrinsic called with incompatible
//! signature"), and `callbr` to an ordinary function. Each case also goes to LLVM's verifier live
//! (19 for signatures; 22 for `callbr`, which 22 allows for intrinsics and 19 only for asm).

const CASES: &[(&str, &str, bool)] = &[
    (
        "too few arguments",
        "define void @f() {\n  %x = call i32 @llvm.amdgcn.mbcnt.hi()\n  ret void\n}\ndeclare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)\n",
        false,
    ),
    (
        "wrong argument type",
        "define void @f(i64 %a) {\n  %x = call i32 @llvm.ctpop.i32(i64 %a)\n  ret void\n}\ndeclare i32 @llvm.ctpop.i32(i32)\n",
        false,
    ),
    (
        "wrong result type",
        "define void @f(i32 %a) {\n  %x = call i64 @llvm.ctpop.i32(i32 %a)\n  ret void\n}\ndeclare i32 @llvm.ctpop.i32(i32)\n",
        false,
    ),
    (
        "matching call",
        "define void @f(i32 %a) {\n  %x = call i32 @llvm.ctpop.i32(i32 %a)\n  ret void\n}\ndeclare i32 @llvm.ctpop.i32(i32)\n",
        true,
    ),
    (
        "ordinary function with another signature (valid IR)",
        "define void @f(i32 %a) {\n  %x = call i64 @g(i32 %a, i32 %a)\n  ret void\n}\ndeclare i32 @g(i32)\n",
        true,
    ),
];

const CALLBR: &[(&str, &str, bool)] = &[
    (
        "callbr to an ordinary function",
        "define void @f() {\n  callbr void @g() to label %a []\na:\n  ret void\n}\ndeclare void @g()\n",
        false,
    ),
    (
        "callbr to an intrinsic",
        "define void @f(i1 %c) {\n  callbr void @llvm.amdgcn.kill(i1 %c) to label %a [label %b]\na:\n  ret void\nb:\n  unreachable\n}\ndeclare void @llvm.amdgcn.kill(i1)\n",
        true,
    ),
    (
        "asm goto",
        "define void @f() {\n  callbr void asm \"\", \"!i\"() to label %a [label %b]\na:\n  ret void\nb:\n  ret void\n}\n",
        true,
    ),
];

#[test]
fn callbr_to_an_ordinary_function_is_rejected_like_llvm_22_does() {
    let opt = converge_gen::reference::opt22("callbr callee checks");
    for &(what, text, valid) in CALLBR {
        let r = converge_ir::parse("cb.ll", text.to_string());
        assert_eq!(r.is_ok(), valid, "{what}");
        if let Err(d) = &r {
            let shown = d.render("cb.ll", text);
            assert!(shown.contains("--> cb.ll:2:3"), "{what}: {shown}");
        }
        if let Some(opt) = &opt {
            let o =
                converge_gen::reference::run_opt(opt, &["-passes=verify", "-disable-output"], text);
            assert_eq!(o.success, valid, "{what}: LLVM 22 says {}", o.stderr);
        }
    }
}

#[test]
fn mismatched_intrinsic_calls_are_rejected_like_llvm_does() {
    let opt = converge_gen::reference::opt19("intrinsic signature checks");
    for &(what, text, valid) in CASES {
        let r = converge_ir::parse("sig.ll", text.to_string());
        assert_eq!(r.is_ok(), valid, "{what}");
        if let Err(d) = &r {
            let shown = d.render("sig.ll", text);
            assert!(shown.contains("--> sig.ll:2:3"), "{what}: {shown}");
            assert!(shown.contains("declared here"), "{what}: {shown}");
        }
        if let Some(opt) = &opt {
            let o =
                converge_gen::reference::run_opt(opt, &["-passes=verify", "-disable-output"], text);
            assert_eq!(o.success, valid, "{what}: LLVM 19 says {}", o.stderr);
        }
    }
}
