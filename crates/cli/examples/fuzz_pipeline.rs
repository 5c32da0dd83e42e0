//! In-process mutation fuzzer for the whole pipeline (reader → cycles/dominators → uniformity for
//! every target and both LLVM versions → token verifier → explain/DOT reports → simulator under
//! several hierarchies). Stable Rust has no libFuzzer, so this is a plain grammar-aware mutator:
//! it splices lines, `%names`, `label`s and keywords between seed modules, so that many variants
//! still parse and reach the analyses.
//!
//! Each case runs under `catch_unwind`; a watchdog thread aborts with the offending input when one
//! case takes longer than `--hang` seconds. Findings are written to the output directory.
//!
//! Run: `cargo run --release -p converge-cli --example fuzz_pipeline -- --secs 300 DIR_OR_FILE...`
//! (seeds: `examples/`, `crates/ir/tests/data/`, the LLVM test corpus). The mutation stream is
//! fixed by `--seed`; how far it gets depends on `--secs`. The cargo-fuzz target
//! `crates/ir/fuzz/fuzz_targets/pipeline.rs` does the same minus the simulator, coverage-guided.

use converge_graph::{CycleInfo, DominatorTree, PostDominatorTree, UnreachablePreds};
use converge_ir::{FuncId, Module};
use converge_report::LineIndex;
use converge_report::dot::{DotOptions, render};
use converge_report::explain::{Analysed, Explainer, Node};
use converge_report::render::Ctx;
use converge_sim::hierarchy::{Hierarchy, enumerate};
use converge_sim::interp as sim;
use converge_sim::report::{m_converged, table, value_uniformity};
use converge_uniformity::llvm::{Amdgpu, LlvmFunction, Nvptx, Target};
use converge_uniformity::{LlvmVersion, Mode, Structure, analyze_as, analyze_with};
use converge_verify::llvm::{self as vl, Flavor};
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

/// Everything the CLI does with a module, through the library APIs.
fn pipeline(m: &Module) -> usize {
    let mut work = 0;
    let lines = LineIndex::new(&m.source);
    let targets = [
        Target::Uniform,
        Target::Amdgpu(Amdgpu::new(None)),
        Target::Amdgpu(Amdgpu::new(Some("gfx1030"))),
        Target::Nvptx(Nvptx),
        Target::from_triple(m.triple.as_deref(), None),
    ];
    for f in m.func_ids() {
        let func = m.func(f);
        if func.is_declaration {
            continue;
        }
        let cfg = func.cfg();
        for mode in [UnreachablePreds::Ignore, UnreachablePreds::AreEntries] {
            let mut ci = CycleInfo::default();
            ci.compute(&cfg, mode);
            let mut dom = DominatorTree::default();
            dom.compute_from_dfs(&cfg, ci.dfs());
            let mut dom2 = DominatorTree::default();
            dom2.compute(&cfg);
            let _ = PostDominatorTree::new(&cfg);
        }
        uniformity(m, f, &targets, &mut work);
        simulate(m, func, &mut work);
        for t in &targets {
            let a = Analysed::new(m, f, t);
            let ex = Explainer::new(&a);
            let ctx = Ctx {
                a: &a,
                lines: &lines,
            };
            let (txt, _j) = ctx.summary(&ex, true);
            work += txt.len();
            let (txt, _j) = ctx.summary(&ex, false);
            work += txt.len();
            // Explain a few nodes: every argument and up to 64 instructions.
            for p in 0..func.params.len().min(8) {
                let n = Node::Arg(p as u32);
                let e = ex.explain(n);
                work += ctx.explanation_text(n, &e).len();
                work += ctx.explanation_json(n, &e).to_string().len();
            }
            for i in 0..func.insts.len().min(64) {
                let n = Node::Inst(i as u32);
                let e = ex.explain(n);
                work += ctx.explanation_text(n, &e).len();
                work += ctx.explanation_json(n, &e).to_string().len();
            }
            for (u, ins) in [(false, false), (true, true)] {
                work += render(
                    &a,
                    &DotOptions {
                        uniformity: u,
                        instructions: ins,
                    },
                )
                .len();
            }
        }
    }
    for flavor in [Flavor::Llvm22, Flavor::Llvm19] {
        let findings = vl::verify_module(m, flavor);
        work += vl::llvm_report(m, &findings).len();
        for fd in &findings {
            work += vl::diagnostic(m, fd).render("fuzz.ll", &m.source).len();
            work += vl::llvm_lines(m, fd).len();
        }
    }
    work
}

fn uniformity(m: &Module, f: FuncId, targets: &[Target], work: &mut usize) {
    let lf = LlvmFunction::new(m, f);
    for llvm19 in [false, true] {
        let g = converge_uniformity::SsaFunction::cfg(&lf);
        let s = if llvm19 {
            Structure::new_llvm19(g)
        } else {
            Structure::new(g)
        };
        let v = if llvm19 {
            LlvmVersion::V19
        } else {
            LlvmVersion::V22
        };
        for t in targets {
            let u = analyze_as(&lf, t, &s, v);
            *work += usize::from(u.analysed);
            if !llvm19 {
                let p = analyze_with(&lf, t, &s, Mode::Precise);
                *work += usize::from(p.analysed);
            }
        }
    }
}

/// The simulator with a small step limit, under LLVM's hierarchy and a few enumerated ones.
fn simulate(m: &Module, func: &converge_ir::Function, work: &mut usize) {
    let target = sim::Target::from_triple(m.triple.as_deref());
    let opts = sim::Options {
        threads: 4,
        args: Vec::new(),
        seed: 0,
        step_limit: 300,
        target,
        ..sim::Options::default()
    };
    let prog = sim::Program::new(m, func, target);
    let mut hs = vec![Hierarchy::llvm(&prog.cfg), Hierarchy::reversed(&prog.cfg)];
    hs.extend(enumerate(&prog.cfg, 8).hierarchies);
    let runs: Vec<sim::Run> = hs.iter().map(|h| sim::run(&prog, h, &opts)).collect();
    for r in &runs {
        if let Ok(t) = table(r) {
            *work += std::mem::size_of_val(&t);
        }
        *work += value_uniformity(r, func.insts.len()).len();
    }
    let pairs: Vec<(&Hierarchy, &sim::Run)> = hs.iter().zip(runs.iter()).collect();
    *work += m_converged(&pairs, func.blocks.len()).len();
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
