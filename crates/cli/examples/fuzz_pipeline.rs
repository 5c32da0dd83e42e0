//! In-process mutation fuzzer for the whole pipeline (reader → cycles/dominators → uniformity for
//! every target and both LLVM versions → token verifier → explain/DOT reports → simulator under
//! several hierarchies → the `explore` page → check-transform of each function against itself).
//! Stable Rust has no libFuzzer, so this is a plain grammar-aware mutator:
//! it splices lines, `%names`, `label`s and keywords between seed modules, so that many variants
//! still parse and reach the analyses.
//!
//! Each case runs under `catch_unwind`; a watchdog thread aborts with the offending input when one
//! case takes longer than `--hang` seconds. Findings are written to the output directory.
//!
//! Run: `cargo run --release -p converge-cli --example fuzz_pipeline -- --secs 300 DIR_OR_FILE...`
//! (seeds: `examples/`, `crates/ir/tests/data/`, the LLVM test corpus). The mutation stream is
//! fixed by `--seed`; how far it gets depends on `--secs`. The pipeline itself is
//! `fuzz/pipeline.rs`, shared with the coverage-guided cargo-fuzz target `fuzz/fuzz_targets/pipeline.rs`.

#[path = "../../../fuzz/pipeline.rs"]
mod shared;

use shared::pipeline;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Keywords and fragments spliced into inputs (besides what the seeds themselves contain).
const DICT: &[&str] = &[
    "br label %",
    "br i1 %",
    ", label %",
    "phi i32 [",
    "switch i32 %",
    "unreachable",
    "ret void",
    "callbr void asm \"\", \"\"() to label %",
    "invoke void @f() to label %",
    " unwind label %",
    "call token @llvm.experimental.convergence.entry()",
    "call token @llvm.experimental.convergence.anchor()",
    "call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %",
    "[ \"convergencectrl\"(token %",
    "convergent",
    "define void @g() {\n",
    "}\n",
    "declare void @h()\n",
    "%",
    "@",
    "\"",
    "!",
    "#0",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ",",
    ":",
    "\n",
    " ",
    "0",
    "-1",
    "i32",
    "token none",
    "undef",
    "poison",
    "addrspace(3)",
    "call i32 @llvm.amdgcn.workitem.id.x()",
    "call i32 @llvm.nvvm.read.ptx.sreg.tid.x()",
    "indirectbr ptr %",
    "blockaddress(@f, %",
];

static WHERE: Mutex<String> = Mutex::new(String::new());

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

/// Byte offsets of `%name`/`@name` tokens (the mutator swaps them to rewire CFGs and SSA).
fn sigils(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' || b[i] == b'@' {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b"._$-".contains(&b[j])) {
                j += 1;
            }
            if j > i + 1 {
                out.push((i, j));
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn mutate(rng: &mut Rng, seeds: &[String], base: &str) -> String {
    let mut s = base.to_string();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        if s.is_empty() {
            s = seeds[rng.below(seeds.len())].clone();
        }
        match rng.below(9) {
            // Swap a `%name` with another one of the same module (rewires edges/uses).
            0..=2 => {
                let toks = sigils(&s);
                if toks.len() >= 2 {
                    let (a0, a1) = toks[rng.below(toks.len())];
                    let (b0, b1) = toks[rng.below(toks.len())];
                    let rep = s[b0..b1].to_string();
                    s.replace_range(a0..a1, &rep);
                }
            }
            // Delete, duplicate or move a line.
            3 | 4 => {
                let mut lines: Vec<&str> = s.split_inclusive('\n').collect();
                if !lines.is_empty() {
                    let i = rng.below(lines.len());
                    match rng.below(3) {
                        0 => {
                            lines.remove(i);
                        }
                        1 => lines.insert(i, lines[i]),
                        _ => {
                            let l = lines.remove(i);
                            let j = rng.below(lines.len() + 1);
                            lines.insert(j, l);
                        }
                    }
                    s = lines.concat();
                }
            }
            // Insert a line from another seed.
            5 => {
                let other = &seeds[rng.below(seeds.len())];
                let ol: Vec<&str> = other.split_inclusive('\n').collect();
                if !ol.is_empty() {
                    let l = ol[rng.below(ol.len())].to_string();
                    let at = floor_char(&s, rng.below(s.len() + 1));
                    let at = s[..at].rfind('\n').map_or(0, |p| p + 1);
                    s.insert_str(at, &l);
                }
            }
            // Insert a dictionary fragment.
            6 => {
                let at = floor_char(&s, rng.below(s.len() + 1));
                s.insert_str(at, DICT[rng.below(DICT.len())]);
            }
            // Delete a short byte range.
            7 => {
                let a = floor_char(&s, rng.below(s.len() + 1));
                let b = floor_char(&s, a + 1 + rng.below(16));
                s.replace_range(a..b, "");
            }
            // Truncate.
            _ => {
                let a = floor_char(&s, rng.below(s.len() + 1));
                s.truncate(a);
            }
        }
    }
    s
}

fn collect(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let Ok(rd) = std::fs::read_dir(p) else { return };
        let mut es: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        es.sort();
        for e in es {
            collect(&e, out);
        }
    } else if p.extension().is_some_and(|e| e == "ll") {
        out.push(p.to_path_buf());
    }
}

fn main() {
    let mut secs = 60u64;
    let mut seed = 1u64;
    let mut hang = 10u64;
    let mut out_dir = PathBuf::from("target/fuzz-pipeline");
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--secs" => secs = args.next().and_then(|x| x.parse().ok()).unwrap_or(secs),
            "--seed" => seed = args.next().and_then(|x| x.parse().ok()).unwrap_or(seed),
            "--hang" => hang = args.next().and_then(|x| x.parse().ok()).unwrap_or(hang),
            "--out" => out_dir = args.next().map(PathBuf::from).unwrap_or(out_dir),
            p => collect(Path::new(p), &mut files),
        }
    }
    let seeds: Vec<String> = files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .filter(|s| s.len() < 64 * 1024)
        .collect();
    assert!(!seeds.is_empty(), "no .ll seeds given");
    std::fs::create_dir_all(&out_dir).expect("output directory");
    eprintln!("{} seeds, {secs} s, seed {seed}", seeds.len());

    // Watchdog: the current input and when it started.
    let current = Arc::new(Mutex::new(String::new()));
    let started = Arc::new(AtomicU64::new(0));
    let t0 = Instant::now();
    {
        let current = Arc::clone(&current);
        let started = Arc::clone(&started);
        let out_dir = out_dir.clone();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(200));
                let s = started.load(Ordering::SeqCst);
                let now = t0.elapsed().as_millis() as u64;
                if s != 0 && now.saturating_sub(s) > hang * 1000 {
                    let text = current.lock().map(|c| c.clone()).unwrap_or_default();
                    let p = out_dir.join("hang.ll");
                    let _ = std::fs::write(&p, &text);
                    eprintln!("HANG (> {hang} s): input written to {}", p.display());
                    std::process::exit(3);
                }
            }
        });
    }

    // Keep only the panic's location (printed with the finding), not the default report.
    std::panic::set_hook(Box::new(|info| {
        if let (Some(l), Ok(mut w)) = (info.location(), WHERE.lock()) {
            *w = format!("{}:{}", l.file(), l.line());
        }
    }));
    let mut rng = Rng(seed);
    let (mut execs, mut parsed, mut crashes, mut multi_block) = (0u64, 0u64, 0u64, 0u64);
    let mut pool: Vec<String> = seeds.clone();
    let deadline = Duration::from_secs(secs);
    while t0.elapsed() < deadline {
        let base = &pool[rng.below(pool.len())];
        let input = mutate(&mut rng, &seeds, base);
        if let Ok(mut c) = current.lock() {
            c.clone_from(&input);
        }
        started.store(t0.elapsed().as_millis() as u64 + 1, Ordering::SeqCst);
        let mut ok_parse = false;
        let r = catch_unwind(AssertUnwindSafe(|| {
            match converge_ir::parse("fuzz.ll", input.clone()) {
                Ok(m) => {
                    ok_parse = true;
                    pipeline(&m);
                    let multi = |f: &converge_ir::Function| !f.is_declaration && f.blocks.len() > 1;
                    let n = m.functions.iter().filter(|f| multi(f)).count() as u64;
                    multi_block += n;
                    n > 0
                }
                Err(d) => {
                    let msg = d.render("fuzz.ll", &input);
                    // The promise: a located message.
                    assert!(
                        msg.contains("fuzz.ll:"),
                        "diagnostic without a location: {msg}"
                    );
                    false
                }
            }
        }));
        started.store(0, Ordering::SeqCst);
        execs += 1;
        match r {
            // Read, analysed, and with control flow: keep it as a base for further mutation (a
            // bounded pool; straight-line variants would crowd out the interesting shapes).
            Ok(true) => {
                parsed += 1;
                if input.len() < 16 * 1024 {
                    if pool.len() < 4096 {
                        pool.push(input);
                    } else {
                        let i = rng.below(pool.len());
                        pool[i] = input;
                    }
                }
            }
            Ok(false) => {
                parsed += u64::from(ok_parse);
            }
            Err(e) => {
                crashes += 1;
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                let p = out_dir.join(format!("crash-{execs}.ll"));
                let _ = std::fs::write(&p, &input);
                let at = WHERE.lock().map(|w| w.clone()).unwrap_or_default();
                eprintln!(
                    "PANIC #{crashes} at exec {execs}: {msg} at {at} -> {}",
                    p.display()
                );
                if crashes >= 20 {
                    break;
                }
            }
        }
    }
    eprintln!(
        "done: {execs} executions in {:.1} s, {parsed} parsed and analysed \
         ({multi_block} functions with 2+ blocks), {crashes} panics",
        t0.elapsed().as_secs_f64()
    );
}
