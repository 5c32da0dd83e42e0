//! Calls to declared intrinsics whose signature differs from the declaration: LLVM's verifier
//! rejects them ("Intrinsic called with incompatible signature"), and so does the reader, with the
//! call located. Each case is also given to LLVM 19's verifier live, which must agree.

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
