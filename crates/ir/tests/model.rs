//! What the reader puts in the data model, on small modules: names and slot numbers, forward
//! references, calls and attributes, tokens and bundles, kernels, address spaces, atomics.
//! Regression tests for reader bugs found while building it are marked as such.

use converge_graph::{Block, Graph};
use converge_ir::{
    CallConv, ConstKind, InstId, LocalName, Module, Opcode, Ordering, Type, Value, parse,
};

fn read(text: &str) -> Module {
    parse("t.ll", text.to_string()).unwrap_or_else(|d| panic!("{}", d.render("t.ll", text)))
}

#[test]
fn slots_follow_llvm_numbering_including_gaps() {
    // Unnamed args, then per block: the block if unnamed, then unnamed non-void instructions.
    // LLVM 20+ accepts the gap (%5 after %3); the printer numbers densely.
    let m = read(
        "define i32 @f(i32, i32 %named, i32) {\n  %3 = add i32 %0, %1\n  br label %5\n5:\n  %6 = add i32 %3, 1\n  store i32 %6, ptr null\n  ret i32 %6\n}\n",
    );
    let f = m.function_by_name("f").unwrap();
    let func = m.func(f);
    assert_eq!(func.params[0].name, LocalName::Slot(0));
    assert!(matches!(func.params[1].name, LocalName::Named(_)));
    assert_eq!(func.params[2].name, LocalName::Slot(1));
    assert_eq!(func.blocks[0].name(), LocalName::Slot(2));
    assert_eq!(func.insts[0].name(), LocalName::Slot(3));
    assert_eq!(func.blocks[1].name(), LocalName::Slot(4));
    assert_eq!(m.block_name(f, Block(1)), "4");
    assert_eq!(func.insts[2].name(), LocalName::Slot(5));
    assert_eq!(func.insts[3].name(), LocalName::None, "store has no value");
    // `%1` in the source is the third parameter (the second is named).
    assert_eq!(func.operands(InstId(0)), &[Value::Arg(0), Value::Arg(2)]);
    assert_eq!(m.value_name(f, Value::Inst(InstId(2))), "%5");
}

#[test]
fn forward_references_resolve_in_phis_and_unreachable_code() {
    let m = read(
        "define void @f(i1 %c) {\nentry:\n  br label %loop\nloop:\n  %i = phi i32 [ 0, %entry ], [ %n, %latch ]\n  br i1 %c, label %latch, label %exit\nlatch:\n  %n = add i32 %i, 1\n  br label %loop\nexit:\n  ret void\ndead:\n  %a = add i32 %b, 1\n  %b = add i32 %a, 1\n  unreachable\n}\n",
    );
    let f = m.function_by_name("f").unwrap();
    let func = m.func(f);
    let phi = InstId(1);
    let inc: Vec<_> = func.phi_incoming(phi).collect();
    assert_eq!(inc[1], (Value::Inst(InstId(3)), Block(2)));
    assert_eq!(func.operands(InstId(6))[0], Value::Inst(InstId(7)));
    assert_eq!(func.operands(InstId(7))[0], Value::Inst(InstId(6)));
    let cfg = func.cfg();
    assert_eq!(cfg.succs(Block(1)), &[Block(2), Block(3)]);
    // Use-list order: the latch's branch was read after the entry's.
    assert_eq!(cfg.preds(Block(1)), &[Block(2), Block(0)]);
    assert!(cfg.preds(Block(4)).is_empty());
}

#[test]
fn calls_attributes_groups_and_convergence() {
    let m = read(
        "define void @k() #0 {\n  %t = call token @llvm.experimental.convergence.entry()\n  call void @g() [ \"convergencectrl\"(token %t) ]\n  call void @h() #1\n  call void @plain()\n  ret void\n}\ndeclare void @g() #1\ndeclare void @h()\ndeclare void @plain()\ndeclare token @llvm.experimental.convergence.entry() #1\nattributes #0 = { convergent \"amdgpu-flat-work-group-size\"=\"1,64\" }\nattributes #1 = { convergent nounwind }\n",
    );
    let k = m.function_by_name("k").unwrap();
    assert!(
        m.has_fn_attr(k, "convergent"),
        "attributes from a group defined later"
    );
    assert_eq!(
        m.attr_value(m.func(k).attrs, "amdgpu-flat-work-group-size"),
        Some("1,64")
    );
    assert_eq!(
        m.intrinsic_name(k, InstId(0)),
        Some("llvm.experimental.convergence.entry")
    );
    assert_eq!(
        m.convergence_token(k, InstId(1)),
        Some(Value::Inst(InstId(0)))
    );
    assert!(m.is_convergent_call(k, InstId(1)), "callee attribute");
    assert!(
        m.is_convergent_call(k, InstId(2)),
        "call-site attribute group"
    );
    assert!(!m.is_convergent_call(k, InstId(3)));
    assert_eq!(m.callee_name(k, InstId(3)), Some("plain"));
    assert!(m.types.is_token(m.func(k).insts[0].ty));
}

#[test]
fn undeclared_intrinsics_are_declared_implicitly() {
    // As LLVM does: a call to an undeclared `llvm.*` function declares it with the call's type.
    let m =
        read("define i32 @f() {\n  %x = call i32 @llvm.amdgcn.workitem.id.x()\n  ret i32 %x\n}\n");
    let g = m
        .function_by_name("llvm.amdgcn.workitem.id.x")
        .expect("declared");
    assert!(m.func(g).is_declaration);
    assert!(
        parse(
            "t.ll",
            "define void @f() {\n  call void @undeclared()\n  ret void\n}\n".to_string()
        )
        .is_err()
    );
}

#[test]
fn kernels_params_and_address_spaces() {
    let m = read(
        "target triple = \"nvptx64-nvidia-cuda\"\n@s = addrspace(3) global i32 0\ndefine void @k(ptr byval(i32) %p, i32 inreg %x) {\n  %v = load atomic i32, ptr addrspace(3) @s syncscope(\"block\") acquire, align 4\n  %o = atomicrmw add ptr %p, i32 1 seq_cst\n  %c = cmpxchg ptr %p, i32 0, i32 1 acq_rel monotonic\n  ret void\n}\ndefine amdgpu_kernel void @a() {\n  ret void\n}\n!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !\"kernel\", i32 1}\n",
    );
    let k = m.function_by_name("k").unwrap();
    let a = m.function_by_name("a").unwrap();
    assert_eq!(m.triple.as_deref(), Some("nvptx64-nvidia-cuda"));
    assert_eq!(m.nvvm_kernels(), vec![k]);
    assert!(m.is_kernel(k) && m.is_kernel(a));
    assert!(matches!(m.func(a).cc, CallConv::Named(s) if m.str(s) == "amdgpu_kernel"));
    assert!(m.has_param_attr(k, 0, "byval"));
    assert_eq!(
        m.attr_value(m.func(k).params[0].attrs, "byval"),
        Some("i32")
    );
    assert!(m.has_param_attr(k, 1, "inreg"));
    let func = m.func(k);
    let load = &func.insts[0];
    assert_eq!(
        (load.op, load.aux, load.ordering),
        (Opcode::Load, 3, Ordering::Acquire)
    );
    assert_eq!(func.syncscope(InstId(0)).map(|s| m.str(s)), Some("block"));
    assert_eq!(
        m.types
            .ptr_addrspace(m.value_type(k, func.operands(InstId(0))[0])),
        Some(3)
    );
    assert_eq!(func.insts[1].ordering, Ordering::SeqCst);
    assert_eq!(func.aux_list(InstId(2))[0], Ordering::Monotonic as u64);
    assert!(matches!(m.types.get(func.insts[2].ty), Type::Struct { .. }));
}

#[test]
fn regression_external_global_is_not_followed_by_an_initializer() {
    // Bug: `external global i32` took the next line's `@ew` as its initializer.
    let m = read("@ext = external global i32\n@ew = extern_weak global i32\n@g = global i32 1\n");
    assert_eq!(m.globals.len(), 3);
    assert!(m.globals[0].init.is_none() && m.globals[1].init.is_none());
    let init = m.globals[2].init.unwrap();
    assert!(matches!(
        m.consts[init.0 as usize].kind,
        ConstKind::Int { value: 1, .. }
    ));
}

#[test]
fn regression_unnamed_parameters_are_referable() {
    // Bug: `%0` of an unnamed parameter was reported as undefined.
    let m = read("define i32 @f(i32) {\n  ret i32 %0\n}\n");
    let f = m.function_by_name("f").unwrap();
    assert_eq!(m.func(f).operands(InstId(0)), &[Value::Arg(0)]);
}

#[test]
fn regression_typed_pointers_read_as_opaque() {
    // LLVM 17+ reads `i32 addrspace(1)*` as `ptr addrspace(1)`; so does the corpus.
    let m = read("define void @f(i32 addrspace(1)* %p, i8* %q) {\n  ret void\n}\n");
    let f = m.func(m.function_by_name("f").unwrap());
    assert_eq!(m.types.ptr_addrspace(f.params[0].ty), Some(1));
    assert_eq!(m.types.ptr_addrspace(f.params[1].ty), Some(0));
}

#[test]
fn regression_similar_names_stay_distinct() {
    // Bug: the name hash mapped `x289`/`x202`-style names to one value (a perf pathology; the
    // interner stayed correct). Names and their values must stay distinct.
    let mut text = String::from("define i32 @f(i32 %a) {\n");
    for i in 200..300 {
        text += &format!("  %ldsidx{i} = add i32 %a, {i}\n");
    }
    text += "  ret i32 %ldsidx289\n}\n";
    let m = read(&text);
    let f = m.function_by_name("f").unwrap();
    let func = m.func(f);
    let ret = func.insts.len() - 1;
    assert_eq!(
        func.operands(InstId(ret as u32)),
        &[Value::Inst(InstId(89))]
    );
    let mut names: Vec<_> = func.insts[..100].iter().map(|i| i.name()).collect();
    names.sort_by_key(|n| format!("{n:?}"));
    names.dedup();
    assert_eq!(names.len(), 100);
}

#[test]
fn spans_cover_items() {
    let text = "define void @f() {\nentry:\n  %x = add i32 1, 2 ; c\n  ret void\n}\n";
    let m = read(text);
    let f = m.func(m.function_by_name("f").unwrap());
    let s = f.inst_span(InstId(0));
    assert_eq!(&text[s.start as usize..s.end as usize], "%x = add i32 1, 2");
    assert_eq!(
        &text[f.span.start as usize..f.span.end as usize],
        text.trim_end()
    );
    let b = f.block_span(Block(0));
    assert!(text[b.start as usize..b.end as usize].starts_with("entry:"));
}

#[test]
fn names_sharing_numbers_across_prefixes_resolve_to_their_definitions() {
    // Clang numbers its named and unnamed values with one counter (`%arrayidx10`, `%11`,
    // `%old12`); the reader's local map keys such names by their number. Here numbers are also
    // shared by several names of one function (`%a5`, `%b5`, `%"5"`, `%5`: one per structure
    // the map may use), reused with other prefixes in the next function, and some are past any
    // dense range. Every operand must name the value defined with its exact spelling (unnamed
    // values by their slot: the printer numbers them densely).
    let prefixes = ["a", "arrayidx", "x.", "idxprom9", "", "b"];
    let mut text = String::new();
    let mut expect: Vec<(String, Vec<Vec<String>>)> = Vec::new();
    let mut seed = 7u64;
    let mut next = |k: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % k
    };
    for fi in 0..4 {
        let fname = format!("f{fi}");
        text += &format!("define i32 @{fname}(i32 %a{fi}, i32 %p) {{\nentry:\n");
        let mut defined = vec![format!("%a{fi}"), "%p".to_string()];
        let mut written = Vec::new();
        let mut unnamed = 0u32;
        let mut counter = 1u32;
        let mut used = std::collections::HashSet::new();
        let mut slots = std::collections::HashMap::new();
        while written.len() < 300 {
            let n = match next(8) {
                0 => 900_000_000 + counter,
                1 if counter > 3 => counter - 1 - next(3) as u32,
                _ => counter,
            };
            let p = prefixes[next(prefixes.len() as u64) as usize];
            let name = match (p, next(4)) {
                // Unnamed values must be numbered in increasing order.
                ("", 0) if n >= unnamed && n < 900_000_000 => {
                    unnamed = n + 1;
                    slots.insert(format!("%{n}"), format!("%{}", slots.len()));
                    format!("%{n}")
                }
                ("", _) => format!("%\"{n}\""),
                _ => format!("%{p}{n}"),
            };
            counter += 1;
            if !used.insert(name.clone()) {
                continue;
            }
            let ops: Vec<String> = (0..2)
                .map(|_| defined[next(defined.len() as u64) as usize].clone())
                .collect();
            text += &format!("  {name} = add i32 {}, {}\n", ops[0], ops[1]);
            written.push(
                ops.iter()
                    .map(|o| slots.get(o).unwrap_or(o).clone())
                    .collect(),
            );
            defined.push(name);
        }
        text += &format!("  ret i32 {}\n}}\n", defined.last().unwrap());
        let last = defined.last().unwrap();
        written.push(vec![slots.get(last).unwrap_or(last).clone()]);
        expect.push((fname, written));
    }
    let m = read(&text);
    for (fname, written) in expect {
        let f = m.function_by_name(&fname).unwrap();
        for (i, ops) in written.iter().enumerate() {
            let got: Vec<String> = m
                .func(f)
                .operands(InstId(i as u32))
                .iter()
                .map(|&v| m.value_name(f, v))
                .collect();
            assert_eq!(&got, ops, "{fname}, instruction {i}");
        }
    }
}
