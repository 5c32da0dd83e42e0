//! Bad input never panics or hangs: truncated and byte-mutated versions of real modules (our feature
//! modules and the LLVM corpus) and pathologically nested input are read under `catch_unwind`, and
//! every module that is accepted is also walked with the helpers (CFG, names, instruction text).
//!
//! Deterministic: the mutation stream comes from SplitMix64 with a fixed seed; the case count is the
//! budget (a few thousand variants, well under a minute in release mode). On a failure the seed,
//! variant number and the mutated text are printed.

use converge_graph::Graph;
use converge_ir::{FuncId, InstId, Module, Value};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const SEED: u64 = 0x00c0_ffee_5eed;
/// Variants per input file (truncations + mutations).
const CASES_PER_FILE: usize = 2000;
/// No single read may take longer than this (a hang detector; real reads take microseconds).
const SLOW: Duration = Duration::from_secs(2);

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

/// Uses every helper on every function, value and instruction of an accepted module.
fn exercise(m: &Module) {
    for f in m.func_ids() {
        let func = m.func(f);
        let cfg = func.cfg();
        for b in 0..cfg.num_blocks() {
            let b = converge_graph::Block(b as u32);
            let _ = (cfg.succs(b), cfg.preds(b), m.block_name(f, b));
        }
        for p in 0..func.params.len() {
            let _ = m.value_name(f, Value::Arg(p as u32));
        }
        for i in 0..func.insts.len() {
            let i = InstId(i as u32);
            let _ = m.inst_text(f, i);
            for &v in func.operands(i) {
                let _ = m.value_name(f, v);
                let _ = m.value_type(f, v);
            }
            let _ = (
                m.callee_name(f, i),
                m.is_convergent_call(f, i),
                m.convergence_token(f, i),
            );
            if let Some(c) = func.call(i) {
                let _ = m.value_name(f, c.callee);
            }
        }
        let _ = m.is_kernel(FuncId(f.0));
    }
    for t in 0..m.types.types.len() {
        let _ = m.type_text(converge_ir::TypeId(t as u32));
    }
    for md in 0..m.metadata.len() {
        let _ = m.md_text(converge_ir::MdId(md as u32));
    }
}

/// Reads one text; `Err` describes a panic or a hang.
fn check(text: &str) -> Result<bool, String> {
    let t0 = Instant::now();
    let r = catch_unwind(AssertUnwindSafe(|| {
        match converge_ir::parse("fuzz.ll", text.to_string()) {
            Ok(m) => {
                exercise(&m);
                true
            }
            Err(d) => {
                let rendered = d.render("fuzz.ll", text);
                assert!(rendered.contains("fuzz.ll:"), "no location in {rendered}");
                false
            }
        }
    }));
    let dt = t0.elapsed();
    match r {
        Ok(_) if dt > SLOW => Err(format!("took {dt:?}")),
        Ok(ok) => Ok(ok),
        Err(_) => Err("panicked".to_string()),
    }
}

fn mutate(rng: &mut Rng, src: &str) -> String {
    const INTERESTING: &[u8] = b"{}()[]<>,=%@!#\"; \n0123456789-.:xabcilnptv*\\^$|";
    let mut b = src.as_bytes().to_vec();
    let edits = 1 + rng.below(4);
    for _ in 0..edits {
        if b.is_empty() {
            break;
        }
        let at = rng.below(b.len());
        match rng.below(5) {
            // Replace an ASCII byte (keeps the text valid UTF-8).
            0 | 1 => {
                if b[at].is_ascii() {
                    b[at] = INTERESTING[rng.below(INTERESTING.len())];
                }
            }
            // Delete a run.
            2 => {
                let n = 1 + rng.below(8);
                let end = (at + n).min(b.len());
                if b[at..end].iter().all(u8::is_ascii) {
                    b.drain(at..end);
                }
            }
            // Duplicate a run somewhere else.
            3 => {
                let n = 1 + rng.below(40);
                let end = (at + n).min(b.len());
                let piece = b[at..end].to_vec();
                let to = rng.below(b.len());
                if piece.iter().all(u8::is_ascii) && b[to].is_ascii() {
                    b.splice(to..to, piece);
                }
            }
            // Insert a byte.
            _ => {
                if b[at].is_ascii() {
                    b.insert(at, INTERESTING[rng.below(INTERESTING.len())]);
                }
            }
        }
    }
    String::from_utf8(b).unwrap_or_else(|_| src.to_string())
}

fn inputs() -> Vec<PathBuf> {
    let mut v = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/features.ll")];
    if let Some(c) = converge_gen::reference::corpus("robustness inputs") {
        for rel in [
            "test/Analysis/UniformityAnalysis/AMDGPU/callbr.ll",
            "test/Analysis/UniformityAnalysis/AMDGPU/always_uniform.ll",
            "test/Analysis/UniformityAnalysis/AMDGPU/irreducible/irreducible-2.ll",
            "test/Analysis/UniformityAnalysis/NVPTX/daorder.ll",
            "test/Analysis/CycleInfo/basic.ll",
        ] {
            let p = c.join(rel);
            if p.exists() {
                v.push(p);
            }
        }
    }
    v
}

#[test]
fn truncated_and_mutated_modules_never_panic() {
    // Panics are caught and reported below; keep the default hook from printing each one.
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(SEED);
    let mut failures = Vec::new();
    let (mut total, mut accepted) = (0usize, 0usize);
    for file in inputs() {
        let src = std::fs::read_to_string(&file).unwrap();
        assert!(check(&src) == Ok(true), "{} must be read", file.display());
        for case in 0..CASES_PER_FILE {
            let text = if case % 4 == 0 {
                // Truncation at a character boundary.
                let mut at = rng.below(src.len());
                while !src.is_char_boundary(at) {
                    at -= 1;
                }
                src[..at].to_string()
            } else {
                mutate(&mut rng, &src)
            };
            total += 1;
            match check(&text) {
                Ok(ok) => accepted += ok as usize,
                Err(why) => failures.push(format!(
                    "{} variant {case} (seed {SEED:#x}) {why}:\n{text}",
                    file.display()
                )),
            }
            if failures.len() >= 3 {
                break;
            }
        }
    }
    std::panic::set_hook(prev);
    eprintln!(
        "robustness: {total} variants, {accepted} still accepted, {} failures",
        failures.len()
    );
    assert!(total >= 1000, "only {total} variants");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let depth = 100_000;
    let ty = format!("{}i32{}", "[1 x ".repeat(depth), "]".repeat(depth));
    let cases = [
        format!("@g = global {ty} zeroinitializer\n"),
        format!("!0 = {}{}\n", "!{".repeat(depth), "}".repeat(depth)),
        format!("@g = global {{}} {}\n", "{".repeat(depth)),
        format!(
            "%T = type {}i32{}\n",
            "{ ".repeat(depth),
            " }".repeat(depth)
        ),
        format!(
            "define void @f() {{\n  %x = add i32 {}0{}, 1\n  ret void\n}}\n",
            "add (i32 ".repeat(depth),
            ", i32 1)".repeat(depth)
        ),
    ];
    for text in &cases {
        let r = catch_unwind(|| converge_ir::parse("deep.ll", text.clone()));
        let Ok(Err(d)) = r else {
            panic!("deeply nested input must be rejected with a diagnostic");
        };
        assert!(
            d.message.contains("nesting") || d.message.contains("expected"),
            "{}",
            d.message
        );
    }
}

#[test]
fn diagnostics_point_at_the_problem() {
    let cases: &[(&str, &str, (usize, usize))] = &[
        (
            "define void @f() {\n  %x = add i32 1\n  ret void\n}\n",
            "expected `,`",
            (3, 3),
        ),
        (
            "define void @f() {\n  bogus\n}\n",
            "expected an instruction opcode",
            (2, 3),
        ),
        (
            "define void @f() {\n  br label %nowhere\n}\n",
            "undefined value `%nowhere`",
            (2, 12),
        ),
        (
            "define void @f() {\n  %x = add i32 1, 2\n}\n",
            "no terminator",
            (3, 1),
        ),
        (
            "@g = global i32 @missing\n",
            "undefined global value `@missing`",
            (1, 17),
        ),
        (
            "define void @f() {\n  ret void, !dbg !7\n}\n",
            "undefined metadata `!7`",
            (2, 18),
        ),
        (
            "define void @f() {\n  %x = add i32 1, 2\n  %x = add i32 1, 2\n  ret void\n}\n",
            "redefinition",
            (3, 3),
        ),
        (
            "define i32 @f() {\n  ret i32 \"s\"\n}\n",
            "expected a value",
            (2, 11),
        ),
    ];
    for (text, msg, (line, col)) in cases {
        let d = converge_ir::parse("t.ll", text.to_string()).expect_err(text);
        assert!(
            d.message.contains(msg),
            "{:?} does not contain {msg:?}",
            d.message
        );
        assert_eq!(
            d.line_col(text),
            Some((*line, *col)),
            "{}",
            d.render("t.ll", text)
        );
    }
}
