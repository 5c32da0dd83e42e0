//! The two-thread reader (`parser/parallel.rs`) gives exactly the sequential reader's result: the
//! same `Module` field by field (same ids, same order) or the same first error, on every LLVM corpus
//! file, on generated GPU modules of several seeds and sizes, and on mutated versions of them
//! (truncations, deleted and duplicated lines, byte flips, functions swapped across the split).
//!
//! Deterministic (SplitMix64, fixed seeds); the case counts are the time budget (well under a minute
//! in release mode). On a mismatch the seed, the case and the differing field are printed, and the
//! input is written to `target/parallel-mismatch.ll`.

use converge_gen::module::{GpuTarget, ModuleSpec, generate};
use converge_ir::Module;
use std::fmt::Write;
use std::hash::{DefaultHasher, Hasher};
use std::path::Path;

struct Hash(DefaultHasher);
impl Write for Hash {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.write(s.as_bytes());
        Ok(())
    }
}

fn h(v: &dyn std::fmt::Debug) -> u64 {
    let mut w = Hash(DefaultHasher::new());
    write!(w, "{v:?}").unwrap();
    w.0.finish()
}

/// Every field of the module hashed through its `Debug` text (the interner's hash map is left out:
/// it is derived from `buf` and `spans`, and its iteration order is random).
fn fields(m: &Module) -> Vec<(&'static str, u64)> {
    vec![
        ("source_name", h(&m.source_name)),
        ("source", h(&m.source.as_str())),
        ("triple", h(&m.triple)),
        ("datalayout", h(&m.datalayout)),
        ("strings.buf", h(&m.strings.buf)),
        ("strings.spans", h(&m.strings.spans)),
        ("strings.map.len", h(&m.strings.map.len())),
        ("types", h(&m.types)),
        ("globals", h(&m.globals)),
        ("functions", h(&m.functions)),
        ("consts", h(&m.consts)),
        ("const_lists", h(&m.const_lists)),
        ("bytes", h(&m.bytes)),
        ("asms", h(&m.asms)),
        ("attrs", h(&m.attrs)),
        ("metadata", h(&m.metadata)),
        ("md_lists", h(&m.md_lists)),
        ("named_metadata", h(&m.named_metadata)),
        ("source_filename", h(&m.source_filename)),
        ("comdats", h(&m.comdats)),
        ("attr_groups", h(&m.attr_groups)),
        ("first_inline_md", h(&m.first_inline_md)),
    ]
}

/// Where two modules' functions or constants first differ (for the failure message).
fn first_difference(a: &Module, b: &Module) -> String {
    if a.functions.len() != b.functions.len() {
        return format!(
            ": {} functions against {}",
            a.functions.len(),
            b.functions.len()
        );
    }
    for (i, (x, y)) in a.functions.iter().zip(&b.functions).enumerate() {
        let (x, y) = (format!("{x:?}"), format!("{y:?}"));
        if x != y {
            let k = x
                .bytes()
                .zip(y.bytes())
                .position(|(p, q)| p != q)
                .unwrap_or(0);
            let lo = k.saturating_sub(300);
            return format!(
                ": function {i}, sequential `...{}`, parallel `...{}`",
                &x[lo..(k + 200).min(x.len())],
                &y[lo..(k + 200).min(y.len())]
            );
        }
    }
    for (i, (x, y)) in a.consts.iter().zip(&b.consts).enumerate() {
        if format!("{x:?}") != format!("{y:?}") {
            return format!(": const {i}: {x:?} against {y:?}");
        }
    }
    String::new()
}

/// Reads `text` both ways; panics with the differing field (or the two errors) on a mismatch.
/// Returns whether the module was accepted.
fn same(text: &str, what: &str) -> bool {
    let seq = converge_ir::parse_with("t.ll", text.to_string(), Some(false));
    let par = converge_ir::parse_with("t.ll", text.to_string(), Some(true));
    let fail = |msg: String| -> ! {
        let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/parallel-mismatch.ll");
        let _ = std::fs::write(&out, text);
        panic!("{what}: {msg} (input written to {})", out.display());
    };
    match (seq, par) {
        (Ok(a), Ok(b)) => {
            let (fa, fb) = (fields(&a), fields(&b));
            for (x, y) in fa.iter().zip(&fb) {
                if x != y {
                    fail(format!(
                        "field `{}` differs{}",
                        x.0,
                        first_difference(&a, &b)
                    ));
                }
            }
            true
        }
        (Err(a), Err(b)) => {
            let (ra, rb) = (a.render("t.ll", text), b.render("t.ll", text));
            if ra != rb {
                fail(format!("different errors:\n{ra}\n---\n{rb}"));
            }
            false
        }
        (Ok(_), Err(e)) => fail(format!(
            "only the parallel reader fails: {}",
            e.render("t.ll", text)
        )),
        (Err(e), Ok(_)) => fail(format!(
            "only the sequential reader fails: {}",
            e.render("t.ll", text)
        )),
    }
}

#[test]
fn parallel_reader_matches_on_the_corpus() {
    let mut files = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/features.ll")];
    if let Some(c) = converge_gen::reference::corpus("parallel reader on the corpus") {
        files.extend(converge_gen::reference::ll_files(&c));
    }
    let mut accepted = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        accepted += same(&text, &f.display().to_string()) as usize;
    }
    assert!(accepted > 0, "no corpus module was accepted");
    eprintln!(
        "{} files, {accepted} accepted, identical both ways ({} merged reads so far)",
        files.len(),
        converge_ir::parallel_merges()
    );
}

fn spec(seed: u64, target: GpuTarget, bytes: usize) -> ModuleSpec {
    ModuleSpec {
        seed,
        target,
        bytes,
        ..ModuleSpec::default()
    }
}

#[test]
fn parallel_reader_matches_on_generated_modules() {
    for (seed, target, bytes) in [
        (1, GpuTarget::Amdgpu, 6 << 20),
        (2, GpuTarget::Nvptx, 3 << 20),
        (3, GpuTarget::Amdgpu, 300 << 10),
        (4, GpuTarget::Nvptx, 100 << 10),
    ] {
        let text = generate(&spec(seed, target, bytes));
        let before = converge_ir::parallel_merges();
        assert!(
            same(&text, &format!("generated seed {seed}")),
            "seed {seed} rejected"
        );
        assert!(
            converge_ir::parallel_merges() > before,
            "seed {seed}: the two-thread reader fell back to the sequential one"
        );
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Mutations aimed at the split: lines deleted, duplicated or moved (a function defined twice, a
/// global or type moved into the function range, a call to a later or earlier function), bytes
/// flipped, truncation.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    match rng.below(5) {
        0 => {
            let at = rng.below(text.len());
            let mut at = at;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            return text[..at].to_string();
        }
        1 => {
            let i = rng.below(lines.len());
            lines.remove(i);
        }
        2 => {
            let i = rng.below(lines.len());
            let j = rng.below(lines.len());
            let l = lines[i];
            lines.insert(j, l);
        }
        3 => {
            // Move a whole top-level item (a function or any other line at column 0).
            let starts: Vec<usize> = (0..lines.len())
                .filter(|&i| lines[i].starts_with(|c: char| !c.is_whitespace() && c != '}'))
                .collect();
            let s = starts[rng.below(starts.len())];
            let mut e = s + 1;
            if lines[s].starts_with("define") {
                while e < lines.len() && lines[e - 1] != "}" {
                    e += 1;
                }
            }
            let item: Vec<&str> = lines.drain(s..e).collect();
            let to = rng.below(lines.len() + 1);
            for (k, l) in item.into_iter().enumerate() {
                lines.insert(to + k, l);
            }
        }
        _ => {
            let mut b = text.as_bytes().to_vec();
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(b.len());
                let set = b" %@!{}(),=\n;\"0123abcx#";
                b[i] = set[rng.below(set.len())];
            }
            return String::from_utf8_lossy(&b).into_owned();
        }
    }
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

#[test]
fn parallel_reader_matches_on_mutated_modules() {
    const SEED: u64 = 0x005e_ed0f_5911;
    const CASES: usize = 1200;
    let mut rng = Rng(SEED);
    let mut inputs = vec![
        generate(&spec(7, GpuTarget::Amdgpu, 60 << 10)),
        generate(&spec(8, GpuTarget::Nvptx, 40 << 10)),
    ];
    inputs.push(
        std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/features.ll"),
        )
        .unwrap(),
    );
    let (mut ok, mut bad) = (0, 0);
    let before = converge_ir::parallel_merges();
    for (k, base) in inputs.iter().enumerate() {
        for case in 0..CASES {
            let text = mutate(base, &mut rng);
            if same(&text, &format!("seed {SEED:#x}, input {k}, case {case}")) {
                ok += 1;
            } else {
                bad += 1;
            }
        }
    }
    let merged = converge_ir::parallel_merges() - before;
    eprintln!(
        "mutated: {ok} accepted, {bad} rejected, identical both ways ({merged} merged reads)"
    );
    assert!(ok > 0 && bad > 0 && merged > 0);
}

/// The benchmark modules themselves (`scripts/bench-parse.sh` generates `gpu-60mb.ll`): run with
/// `--ignored`.
#[test]
#[ignore = "needs build/bench/gpu-60mb.ll; about 10 s"]
fn parallel_reader_matches_on_the_60mb_modules() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../build/bench");
    let mut seen = 0;
    for name in ["gpu-60mb.ll", "cfg-60mb.ll"] {
        let Ok(text) = std::fs::read_to_string(dir.join(name)) else {
            continue;
        };
        let before = converge_ir::parallel_merges();
        assert!(same(&text, name));
        assert!(
            converge_ir::parallel_merges() > before,
            "{name}: fell back to the sequential reader"
        );
        seen += 1;
    }
    assert!(
        seen > 0,
        "generate build/bench/gpu-60mb.ll with scripts/bench-parse.sh"
    );
}

/// Deep nesting read by the second thread: accepted up to the reader's bound and rejected past it
/// with the same error (the worker thread has a main-thread-sized stack).
#[test]
fn parallel_reader_matches_on_deep_nesting_in_the_second_half() {
    let base = generate(&spec(5, GpuTarget::Amdgpu, 200 << 10));
    for depth in [150, 199, 250, 5000] {
        let ty = format!("{}i32{}", "[1 x ".repeat(depth), "]".repeat(depth));
        let text = format!(
            "{base}\ndefine void @deep() {{\nentry:\n  %x = alloca {ty}, align 4\n  ret void\n}}\n"
        );
        let before = converge_ir::parallel_merges();
        let ok = same(&text, &format!("depth {depth}"));
        assert_eq!(ok, depth < 200, "depth {depth}");
        if ok {
            assert!(
                converge_ir::parallel_merges() > before,
                "depth {depth}: not merged"
            );
        }
    }
}

/// References across the split of every kind the merge remaps, in both directions: calls, `blockaddress`,
/// implicitly declared intrinsics first called in either half, inline asm, strings, new types and
/// constants, inline and numbered metadata, call-site attributes and groups, globals defined after
/// the functions; padded so the split falls between `@first` and `@second`.
#[test]
fn parallel_reader_matches_on_cross_half_references() {
    let pad = |n: usize, tag: &str| -> String {
        (0..n)
            .map(|i| {
                format!(
                    "define i32 @{tag}{i}(i32 %x) {{\nentry:\n  %y = add i32 %x, {i}\n  ret i32 %y\n}}\n"
                )
            })
            .collect()
    };
    let head = "target triple = \"amdgcn-amd-amdhsa\"\n%pair = type { i32, float }\n\
        @g = global i32 0\ndeclare void @ext(ptr) #1\ndeclare void @mix(metadata, i32)\n";
    let first = "define void @first(ptr %p) #0 {\nentry:\n  call void @second(ptr blockaddress(@second, %target))\n\
        %v = call i32 @llvm.amdgcn.workitem.id.x(), !range !3\n  %s = alloca { i64, [3 x i16] }, align 8\n\
        store ptr @late, ptr %p, align 8\n  call void asm sideeffect \"s_nop 0\", \"\"()\n\
        call void @ext(ptr @g) nounwind \"first-attr\"=\"1\"\n  ret void, !dbg !{!\"inline\", i32 7}\n}\n";
    let second = "define void @second(ptr %q) #0 {\nentry:\n  br label %target\ntarget:\n\
        %w = call float @llvm.amdgcn.rsq.f32(float 2.5)\n  %v = call i32 @llvm.amdgcn.workitem.id.x()\n\
        %t = alloca { i64, [3 x i16] }, align 8\n  %u = alloca { i8, <2 x half> }, align 8\n\
        %c = getelementptr inbounds %pair, ptr %q, i32 0, i32 1\n\
        store i32 ptrtoint (ptr @late to i32), ptr %c, align 4\n  store [4 x i8] c\"ab\\00c\", ptr %q, align 1\n\
        call void asm \"v_nop\", \"v\"(i32 %v)\n  call void @mix(metadata i32 %v, i32 noundef %v)\n  call void @mix(metadata !3, i32 %v)\n  call void @first(ptr @g) #2 \"second-attr\"\n\
        call void @ext(ptr %q) [ \"convergencectrl\"(token none) ]\n  ret void, !dbg !{!\"inline2\", !3, !{}}\n}\n";
    let tail = "@late = global [2 x i32] [i32 1, i32 2]\nattributes #0 = { convergent }\n\
        attributes #1 = { nounwind }\nattributes #2 = { \"group\"=\"2\" }\n!3 = !{i32 0, i32 1024}\n";
    for n in [0, 1, 5, 40] {
        let text = format!(
            "{head}{}{first}{}{second}{}{tail}",
            pad(n, "a"),
            pad(n, "b"),
            pad(n, "c")
        );
        let before = converge_ir::parallel_merges();
        assert!(
            same(&text, &format!("cross-half, padding {n}")),
            "padding {n} rejected"
        );
        // Without padding the middle of the function range falls inside `@second`: no split.
        assert!(
            n < 5 || converge_ir::parallel_merges() > before,
            "padding {n}: not merged"
        );
    }
}
