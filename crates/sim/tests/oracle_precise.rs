//! Precise mode checked by the simulator (the oracle): values `--mode precise` calls uniform must be
//! equal on converged dynamic instances under every cycle hierarchy of the CFG, with maximal or
//! (where the program has tokens) controlled convergence, for several thread counts and inputs.
//!
//! Two parts. The hand-written programs in `crates/uniformity/tests/precise/*.ll` each name, in
//! `; UNIFORM:` and `; DIVERGENT:` comment lines, the answers precise mode must give: a UNIFORM
//! value must never differ on converged instances (and must be executed by converged threads at
//! least once, so the check is not vacuous), a DIVERGENT one must differ in some run (the
//! simulator's witness, so the expected answer comes from the oracle). Then random programs from
//! converge-gen's generator: `CONVERGE_PRECISE_CASES` (default 800), `CONVERGE_PRECISE_SEED`
//! (default 1), `CONVERGE_PRECISE_BLOCKS` (default 9).

use converge_gen::program::{self, Flavor};
use converge_gen::rng::Rng;
use converge_ir::{FuncId, Module, Opcode, Type};
use converge_sim::hierarchy::enumerate;
use converge_sim::interp::{ArgValue, Options, Program, Target, anchor_parts, run};
use converge_sim::report::{Verdict, inst_name, value_uniformity};
use converge_uniformity::llvm::{LlvmFunction, Target as UTarget};
use converge_uniformity::{Mode, SsaFunction, Structure, Uniformity, Val, analyze_with};
use std::collections::{BTreeMap, BTreeSet};

const ENUMERATION_CAP: u64 = 256;

fn env_u64(k: &str, d: u64) -> u64 {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}

/// What the simulator saw for one named value over all runs.
#[derive(Default, Debug)]
struct Seen {
    /// A witness of two converged instances with different values.
    divergent: Option<String>,
    /// Some converged class had more than one thread.
    shared: bool,
}

/// Runs the first defined function of `text` under every hierarchy, for each (threads, seed), and
/// collects per value name what the simulator saw. Returns the analysis result too.
fn simulate(
    text: &str,
    runs: &[(u32, u64)],
    mode: Mode,
) -> (Uniformity, Vec<String>, BTreeMap<String, Seen>) {
    let m: Module = converge_ir::parse("precise.ll", text.to_string()).expect("parses");
    let fi = m
        .functions
        .iter()
        .position(|f| !f.is_declaration)
        .expect("a defined function");
    let f = &m.functions[fi];
    let lf = LlvmFunction::new(&m, FuncId(fi as u32));
    let ut = UTarget::from_triple(m.triple.as_deref(), None);
    let s = Structure::new(lf.cfg());
    let u = analyze_with(&lf, &ut, &s, mode);
    let names: Vec<String> = (0..f.insts.len())
        .map(|i| inst_name(&m, f, converge_ir::InstId(i as u32)))
        .collect();
    let target = Target::from_triple(m.triple.as_deref());
    let prog = Program::new(&m, f, target);
    let e = enumerate(&prog.cfg, ENUMERATION_CAP);
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    for &(threads, seed) in runs {
        let mut rng = Rng::new(seed);
        let args: Vec<Option<ArgValue>> = f
            .params
            .iter()
            .enumerate()
            .map(|(k, p)| match m.types.types[p.ty.0 as usize] {
                // Every combination of i1 arguments over the seeds.
                Type::Int(1) => Some(ArgValue::Int(((seed >> k) & 1) as i128)),
                Type::Int(_) => Some(ArgValue::Int(rng.below(9) as i128 - 2)),
                _ => None,
            })
            .collect();
        let opts = Options {
            threads,
            args,
            seed,
            step_limit: 4_000,
            target,
            // Even seeds: the implementation splits every anchor's group in two (even and odd
            // threads); an anchor's grouping is implementation-defined.
            anchor_parts: anchor_parts(threads, if seed % 2 == 0 { 2 } else { 1 }),
            ..Options::default()
        };
        for (k, h) in e.hierarchies.iter().enumerate() {
            let r = run(&prog, h, &opts);
            for (i, v) in value_uniformity(&r, f.insts.len()) {
                if f.insts[i.0 as usize].op == Opcode::Store {
                    continue;
                }
                let e = seen.entry(names[i.0 as usize].clone()).or_default();
                match v {
                    Verdict::Divergent { a, b } => {
                        e.shared = true;
                        e.divergent.get_or_insert(format!(
                            "hierarchy [{k}], {threads} threads, seed {seed}: thread {}: {}, thread {}: {}",
                            a.0, a.1, b.0, b.1
                        ));
                    }
                    Verdict::Uniform { shared, .. } => e.shared |= shared > 0,
                    Verdict::NotExecuted => {}
                }
            }
        }
    }
    (u, names, seen)
}

fn runs() -> Vec<(u32, u64)> {
    let mut v = Vec::new();
    for threads in [2u32, 4, 7] {
        for seed in 1..=6u64 {
            v.push((threads, seed));
        }
    }
    v
}

/// The programs of `crates/uniformity/tests/precise`, with their expected answers.
#[test]
fn precise_programs_match_the_simulator() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../uniformity/tests/precise");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/precise exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{} programs", files.len());
    let mut errors = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let expect = |tag: &str| -> BTreeSet<String> {
            text.lines()
                .filter_map(|l| l.trim().strip_prefix(tag))
                .flat_map(|l| l.split_whitespace().map(str::to_string))
                .collect()
        };
        let (want_u, want_d) = (expect("; UNIFORM:"), expect("; DIVERGENT:"));
        assert!(
            !want_u.is_empty() || !want_d.is_empty(),
            "{file}: no expectations"
        );
        let (u, names, seen) = simulate(&text, &runs(), Mode::Precise);
        let divergent = |n: &str| {
            names
                .iter()
                .position(|x| x == n)
                .map(|i| u.is_divergent(Val::Inst(converge_uniformity::Inst(i as u32))))
        };
        // Soundness: nothing precise mode calls uniform differs on converged instances.
        for (n, sn) in &seen {
            if divergent(n) == Some(false)
                && let Some(w) = &sn.divergent
            {
                errors.push(format!("{file}: {n} called uniform, but {w}"));
            }
        }
        for n in &want_u {
            match divergent(n) {
                None => errors.push(format!("{file}: no value {n}")),
                Some(true) => errors.push(format!("{file}: {n} should be uniform in precise mode")),
                Some(false) => {
                    if !seen.get(n).is_some_and(|s| s.shared) {
                        errors.push(format!(
                            "{file}: {n} never executed by converged threads: the check is vacuous"
                        ));
                    }
                }
            }
        }
        for n in &want_d {
            match divergent(n) {
                None => errors.push(format!("{file}: no value {n}")),
                Some(false) => {
                    errors.push(format!("{file}: {n} should be divergent in precise mode"))
                }
                Some(true) => {
                    if seen.get(n).and_then(|s| s.divergent.as_ref()).is_none() {
                        errors.push(format!(
                            "{file}: {n} expected divergent, but the simulator found no witness"
                        ));
                    }
                }
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

fn case_text(seed: u64) -> (String, u32) {
    let mut rng = Rng::new(seed);
    let flavor = if rng.chance(1, 4) {
        Flavor::Nvptx
    } else {
        Flavor::Amdgpu
    };
    let mut o = program::Options::new(flavor);
    o.max_blocks = env_u64("CONVERGE_PRECISE_BLOCKS", 9).max(3) as usize;
    o.max_insts = 4;
    let text = program::module_header(flavor) + &program::function(&mut rng, "f", &o);
    let threads = 2 + rng.below(7) as u32;
    (text, threads)
}

/// Random programs: precise mode has no violation (no LLVM verdict excuses one).
#[test]
fn precise_mode_is_sound_on_random_programs() {
    let cases = env_u64("CONVERGE_PRECISE_CASES", 800);
    let base = env_u64("CONVERGE_PRECISE_SEED", 1);
    let start = std::time::Instant::now();
    let mut bad = Vec::new();
    for c in 0..cases {
        let seed = base + c;
        let (text, threads) = case_text(seed);
        let (u, names, seen) = simulate(&text, &[(threads, seed)], Mode::Precise);
        for (n, sn) in &seen {
            let Some(w) = &sn.divergent else { continue };
            let Some(i) = names.iter().position(|x| x == n) else {
                continue;
            };
            if u.analysed && !u.is_divergent(Val::Inst(converge_uniformity::Inst(i as u32))) {
                bad.push(format!("seed {seed}: {n} called uniform, but {w}\n{text}"));
                break;
            }
        }
    }
    eprintln!(
        "precise oracle: {cases} programs in {:.1}s, {} with a violation",
        start.elapsed().as_secs_f64(),
        bad.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
