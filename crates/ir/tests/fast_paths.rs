//! The reader's fast paths (`parser/fast.rs`: `%x = `, `ptr addrspace(N)`, `, align N`,
//! `, !kind !N`, `label %x`, `T %x`, `, T v`, `, T %x`, `, %x`, `tail call`, `to T`, small integer
//! and `float` constants) give exactly what the token-by-token path gives.
//!
//! Each module is read twice: as written (the fast paths taken wherever they apply) and with every
//! space outside string literals doubled, a spelling no fast path accepts, so the general path
//! reads all of it. The two modules must agree field by field once source positions are masked
//! (they are the only thing the spacing changes), and an invalid module must fail with the same
//! message.

use converge_gen::module::{GpuTarget, ModuleSpec, generate};
use converge_ir::Module;

/// Doubles every space outside `"..."` literals and outside attribute group lines (whose
/// `memory(argmem: readwrite)` values are kept as written).
fn respaced(src: &str) -> String {
    let mut out = String::with_capacity(src.len() * 2);
    for line in src.split_inclusive('\n') {
        if line.starts_with("attributes ") {
            out.push_str(line);
            continue;
        }
        let mut in_str = false;
        for c in line.chars() {
            if c == '"' {
                in_str = !in_str;
            }
            if c == ' ' && !in_str {
                out.push(' ');
            }
            out.push(c);
        }
    }
    out
}

/// The `Debug` text with source positions masked: every `Span { .. }`, and the numbers after
/// `span_start: ` and `span_len: ` (instruction and block records keep their text's position so).
fn masked(v: &dyn std::fmt::Debug) -> String {
    let s = format!("{v:?}");
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    loop {
        let next = ["Span { start: ", "span_start: ", "span_len: "]
            .iter()
            .filter_map(|k| rest.find(k).map(|p| (p, *k)))
            .min();
        let Some((p, key)) = next else {
            break;
        };
        out.push_str(&rest[..p]);
        let tail = &rest[p..];
        if key.starts_with("Span") {
            let close = tail.find('}').expect("a span's closing brace");
            out.push_str("Span { _ }");
            rest = &tail[close + 1..];
        } else {
            out.push_str(key);
            out.push('_');
            rest = tail[key.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
        }
    }
    out.push_str(rest);
    out
}

fn fields(m: &Module) -> Vec<(&'static str, String)> {
    vec![
        ("strings.buf", masked(&m.strings.buf)),
        ("strings.spans", masked(&m.strings.spans)),
        ("types", masked(&m.types)),
        ("globals", masked(&m.globals)),
        ("functions", masked(&m.functions)),
        ("consts", masked(&m.consts)),
        ("const_lists", masked(&m.const_lists)),
        ("attrs", masked(&m.attrs)),
        ("metadata", masked(&m.metadata)),
        ("md_lists", masked(&m.md_lists)),
        ("named_metadata", masked(&m.named_metadata)),
        ("attr_groups", masked(&m.attr_groups)),
    ]
}

fn read(src: &str) -> Result<Module, String> {
    converge_ir::parse_with("t.ll", src.to_string(), Some(false)).map_err(|d| d.message.clone())
}

fn same_both_ways(src: &str) {
    let wide = respaced(src);
    assert_ne!(src, wide, "the respaced module must differ");
    match (read(src), read(&wide)) {
        (Ok(a), Ok(b)) => {
            for ((name, x), (_, y)) in fields(&a).into_iter().zip(fields(&b)) {
                assert!(x == y, "field {name} differs between the two spellings");
            }
        }
        (Err(a), Err(b)) => assert_eq!(a, b),
        (a, b) => panic!(
            "one spelling reads, the other does not: {:?} / {:?}",
            a.err(),
            b.err()
        ),
    }
}

#[test]
fn generated_gpu_modules_read_the_same_both_ways() {
    for (target, seed) in [
        (GpuTarget::Amdgpu, 1),
        (GpuTarget::Nvptx, 2),
        (GpuTarget::Amdgpu, 3),
    ] {
        let spec = ModuleSpec {
            bytes: 300_000,
            seed,
            target,
            ..ModuleSpec::default()
        };
        same_both_ways(&generate(&spec));
    }
}

/// Spellings next to the fast paths' limits: numbers too long for them, names they leave to the
/// lexer (quoted, numbered), constants outside the small-integer table, and errors.
#[test]
fn edge_spellings_read_the_same_both_ways() {
    let body = |insts: &str| {
        format!(
            "@g = addrspace(1) global i32 0\n\
             declare i32 @h(i32, ptr addrspace(1))\n\
             define i32 @f(ptr addrspace(1) %p, i32 %n) {{\nentry:\n{insts}\n}}\n\
             !0 = !{{!\"x\"}}\n"
        )
    };
    let ok = [
        "  %a = load i32, ptr addrspace(1) %p, align 4, !tbaa !0\n  ret i32 %a",
        "  %\"q q\" = add i32 %n, 1\n  br label %\"e x\"\n\"e x\":\n  ret i32 %\"q q\"",
        "  %0 = add i32 %n, 63\n  %1 = add i32 %0, 64\n  %2 = add i64 0, 999999999\n  %3 = trunc i64 %2 to i32\n  ret i32 %3",
        "  %a = tail call i32 @h(i32 %n, ptr addrspace(1) @g)\n  %b = tail call i32 @h(i32 0, ptr addrspace(1) %p)\n  ret i32 %b",
        "  %c = icmp slt i32 %n, 4\n  br i1 %c, label %x, label %y\nx:\n  %v = phi i32 [ 0, %entry ]\n  ret i32 %v\ny:\n  ret i32 1",
        "  %f = fadd float 1.000000e+00, 1.000000e+00\n  %g = fadd float 0x3FB99999A0000000, 2.5e-01\n  %i = fptosi float %f to i32\n  ret i32 %i",
        "  %a = zext i1 true to i32\n  %b = sext i32 %a to i64\n  %c = trunc i64 %b to i32\n  ret i32 %c",
        "  store i32 7, ptr addrspace(1) %p, align 8, !tbaa !0, !range !0\n  ret i32 0",
        // `T %x` and `, T %x` with numbered and plain names, in call arguments too.
        "  %0 = add i32 %n, 1\n  %1 = mul i32 %0, %0\n  %2 = call i32 @h(i32 %1, ptr addrspace(1) %p)\n  %3 = sext i32 %2 to i64\n  %4 = getelementptr i32, ptr addrspace(1) %p, i64 %3\n  store i32 %2, ptr addrspace(1) %4\n  %5 = select i1 true, i32 %2, i32 %1\n  %6 = call i32 @h(i32 %5, ptr addrspace(1) %4)\n  ret i32 %6",
        "  %a-b.c$ = add i32 %n, 1\n  %x.1 = icmp eq i32 %a-b.c$, %n\n  %s = select i1 %x.1, i32 %a-b.c$, i32 %n\n  ret i32 %s",
        "  br label %l\nl:\n  %v = phi i32 [ %n, %entry ], [ %w, %l ]\n  %w = add i32 %v, 1\n  br label %l",
    ];
    for insts in ok {
        let src = body(insts);
        assert!(read(&src).is_ok(), "{insts}: {:?}", read(&src).err());
        same_both_ways(&src);
    }
    let bad = [
        "  %a = load i32, ptr addrspace(1) %p, align 4294967296\n  ret i32 %a",
        "  %a = load i32, ptr addrspace(4294967296) %p\n  ret i32 %a",
        "  %a = load i32, ptr addrspace(1) %p, !tbaa !99999999999\n  ret i32 %a",
        "  %a = load i32, ptr addrspace(1) %p, !tbaa !5x\n  ret i32 %a",
        "  br label %nowhere",
        "  %a = add i32 %n, %undefined\n  ret i32 %a",
        "  %a = sext i32 %n to i64x\n  ret i32 0",
        "  %a = tail calls i32 @h(i32 %n, ptr addrspace(1) @g)\n  ret i32 %a",
        "  %a = add i32 %n, 1\n  %a = add i32 %n, 2\n  ret i32 %a",
        "  store i32 1, ptr addrspace(1) %p, align 4, !tbaa\n  ret i32 0",
        "  %a = add i64 %n, 1\n  ret i32 0",
        "  %a = add i32 %1x, 1\n  ret i32 %a",
        "  %a = add i32 %, 1\n  ret i32 %a",
        "  %a = call i32 @h(i32 %n, ptr addrspace(1) %q)\n  ret i32 %a",
        "  %a = add i32 %b, 1\n  %b = add i32 %n, 1\n  ret i32 %a",
        "  %a = call i32 @h(i64 %n, ptr %p)\n  ret i32 %a",
        "  %a = icmp eq i32 %n, %p\n  ret i32 0",
    ];
    for insts in bad {
        let src = body(insts);
        assert!(read(&src).is_err(), "{insts} should not read");
        same_both_ways(&src);
    }
}
