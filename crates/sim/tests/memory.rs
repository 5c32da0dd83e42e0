//! Bounded objects: globals, allocas, `--mem` buffers and null; expected answers from the
//! programs' source.

use converge_sim::hierarchy::Hierarchy;
use converge_sim::inputs::parse_mem;
use converge_sim::interp::{Options, Program, Run, Status, run};

fn run_text(text: &str, opts: Options) -> Run {
    let m = converge_ir::parse("memory.ll", text.to_string()).unwrap();
    let f = m.functions.iter().find(|f| !f.is_declaration).unwrap();
    let prog = Program::new(&m, f, opts.target);
    let h = Hierarchy::llvm(&prog.cfg);
    run(&prog, &h, &opts)
}

fn statuses(r: &Run) -> Vec<Status> {
    r.threads.iter().map(|t| t.status.clone()).collect()
}

/// 300 globals: the last one keeps its initialiser and its bounds, and a pointer parameter's
/// default (unbounded) memory does not fall into any global's region.
#[test]
fn many_globals_keep_their_contents_and_bounds() {
    let mut text = String::new();
    for g in 0..300 {
        text.push_str(&format!("@g{g} = global i32 {g}\n"));
    }
    text.push_str(
        "define i32 @f(ptr %p) {\n  %a = load i32, ptr @g299\n  \
         %q = getelementptr i8, ptr %p, i64 1000000\n  store i32 %a, ptr %q\n  \
         %b = load i32, ptr %q\n  %c = add i32 %a, %b\n  ret i32 %c\n}\n",
    );
    let r = run_text(
        &text,
        Options {
            threads: 2,
            ..Options::default()
        },
    );
    assert_eq!(statuses(&r), vec![Status::Returned(Some("598".into())); 2]);
    // One element past @g299 is out of bounds.
    let past = text.replace(
        "load i32, ptr @g299",
        "load i32, ptr getelementptr (i32, ptr @g299, i64 1)",
    );
    let r = run_text(
        &past,
        Options {
            threads: 1,
            ..Options::default()
        },
    );
    match &r.threads[0].status {
        Status::Error(e) => assert!(
            e.contains("load of 4 bytes at offset 4 of @g299 (4 bytes): out of bounds"),
            "{e}"
        ),
        s => panic!("{s:?}"),
    }
}

/// Allocas bound private memory; the first page is null; `--mem` replaces a global's contents.
#[test]
fn allocas_null_and_global_contents() {
    let text = "@tab = global [4 x i16] [i16 1, i16 2, i16 3, i16 4]\n\
        define i32 @f(i32 %k) {\n  %x = alloca [2 x i32]\n  \
        %p = getelementptr i32, ptr %x, i32 %k\n  store i32 5, ptr %p\n  \
        %t = getelementptr i16, ptr @tab, i32 %k\n  %v = load i16, ptr %t\n  \
        %w = zext i16 %v to i32\n  ret i32 %w\n}\n";
    let with_k = |k: i128, mem: &[&str]| {
        run_text(
            text,
            Options {
                threads: 1,
                args: vec![Some(converge_sim::inputs::ArgValue::Int(k))],
                memory: mem.iter().map(|m| parse_mem(m).unwrap()).collect(),
                ..Options::default()
            },
        )
    };
    assert_eq!(
        statuses(&with_k(1, &[])),
        vec![Status::Returned(Some("2".into()))]
    );
    assert_eq!(
        statuses(&with_k(1, &["@tab=7,8"])),
        vec![Status::Returned(Some("8".into()))]
    );
    match &with_k(2, &[]).threads[0].status {
        Status::Error(e) => assert!(
            e.contains("store of 4 bytes") && e.contains("outside every alloca"),
            "{e}"
        ),
        s => panic!("{s:?}"),
    }
    let null = "define i32 @f() {\n  %v = load i32, ptr null\n  ret i32 %v\n}\n";
    match &run_text(null, Options::default()).threads[0].status {
        Status::Error(e) => assert!(e.contains("null pointer (at %v in @f)"), "{e}"),
        s => panic!("{s:?}"),
    }
}
