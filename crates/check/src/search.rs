//! The search for an execution of AFTER that BEFORE cannot produce.
//!
//! A configuration is a thread count, the kernel arguments (the same in every thread) and the seed
//! of memory contents and unknown values. Thread counts go from 2 to `--threads`; each parameter
//! gets a small domain (`i1`: 0, 1; other integers: 0, 1, 2, 3, 6; floats: 0, 1.5, -2; pointers:
//! the simulator's distinct buffers). When the product is at most `max_executions`, every
//! configuration is tried (smallest first, so a counterexample is small); otherwise
//! `max_executions` configurations are drawn with `seed`. Per configuration, BEFORE runs under each
//! of its cycle hierarchies and AFTER under each of its own; every AFTER run must be matched by one
//! of BEFORE's runs ([`crate::refine::compare`]). The search stops at the first violation or when the
//! time box is spent, and says which.

use crate::observe::{Observed, observe};
use crate::refine::{Mismatch, compare};
use crate::{MatchError, match_functions};
use converge_graph::{Cfg, CycleInfo};
use converge_ir::{FuncId, Function, InstId, Module, Type};
use converge_sim::hierarchy::{Enumeration, Hierarchy, enumerate};
use converge_sim::interp::{ArgValue, Options, Program, Target, run};
use converge_sim::report::block_name;
use converge_verify::llvm::{self, Flavor};
use std::time::{Duration, Instant};

/// How hard [`check`] searches: thread counts, time box, configurations and hierarchies.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Largest thread count (counts from 2 up to it are tried; 1 means a single thread).
    pub threads: u32,
    /// Seed of the configuration sample and of the simulator's unspecified values (arguments not
    /// given, memory contents, `undef`).
    pub seed: u64,
    /// Wall-clock limit of the search; when reached, the verdict says how much was compared.
    pub time_limit: Duration,
    /// Configurations tried at most (all of them when there are no more).
    pub max_executions: u64,
    /// DFS successor orders tried per function when enumerating cycle hierarchies.
    pub enumeration_cap: u64,
    /// Steps per thread after which the simulator stops a run (runs that stop are not compared).
    pub step_limit: u64,
    /// `None`: from BEFORE's target triple.
    pub target: Option<Target>,
    /// Every cycle hierarchy (m-convergence); `false`: LLVM's only, for both programs.
    pub all_hierarchies: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            threads: 4,
            seed: 0,
            time_limit: Duration::from_secs(20),
            max_executions: 256,
            enumeration_cap: 512,
            step_limit: 20_000,
            target: None,
            all_hierarchies: true,
        }
    }
}

/// The answer of [`check`]: a search result, never a proof.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No execution found in which AFTER does something BEFORE cannot.
    Refines,
    /// An execution of AFTER that no execution of BEFORE allows (see [`Counterexample`]), or
    /// AFTER breaks the static token rules.
    Violation,
}

impl Verdict {
    /// The name used in reports and as JSON `"verdict"`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Refines => "refines",
            Verdict::Violation => "violation",
        }
    }
}

/// How much was compared.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Configurations whose executions were all compared.
    pub executions: u64,
    /// Configurations there are in the argument domains (before sampling).
    pub configurations: u128,
    /// Whether every configuration of the domains is to be tried (else a seeded sample).
    pub exhaustive: bool,
    /// Configurations to try (all, or the sample size).
    pub planned: u64,
    /// Simulator runs of BEFORE (configurations × hierarchies).
    pub before_runs: u64,
    /// Simulator runs of AFTER (configurations × hierarchies).
    pub after_runs: u64,
    /// Released groups (dynamic instances of communicating operations) of AFTER compared.
    pub groups: u64,
    /// Cycle hierarchies of BEFORE considered (1: LLVM's only).
    pub hierarchies_before: usize,
    /// Cycle hierarchies of AFTER considered (1: LLVM's only).
    pub hierarchies_after: usize,
    /// Whether every DFS successor order was tried for the hierarchies.
    pub hierarchies_exhaustive: bool,
    /// Configurations skipped because a thread of BEFORE stopped on an error or the step limit.
    pub skipped_before_error: u64,
    /// AFTER runs skipped because a thread stopped on an error where BEFORE's did not (reported
    /// in the notes: a change of single-thread behaviour, not of convergence).
    pub skipped_after_error: u64,
    /// Runs whose scheduler had to release a group it could not prove complete.
    pub skipped_inconclusive: u64,
    /// Whether the time limit ended the search.
    pub timed_out: bool,
    /// Wall-clock time of the search.
    pub elapsed: Duration,
}

/// A violation a person can follow.
#[derive(Clone, Debug)]
pub struct Counterexample {
    /// Threads in the group of the counterexample's execution.
    pub threads: u32,
    /// Kernel arguments as given to the simulator (`_` for the simulator's own pointer/default).
    pub args: Vec<String>,
    /// The simulator seed of the execution (its unspecified values: memory contents, `undef`).
    pub seed: u64,
    /// Index of AFTER's cycle hierarchy (0: LLVM's).
    pub after_hierarchy: usize,
    /// The operation whose communicating set or result BEFORE cannot produce.
    pub mismatch: Mismatch,
    /// Per thread: the blocks executed in AFTER and in BEFORE (LLVM's hierarchy).
    pub after_paths: Vec<Vec<String>>,
    /// Per thread: the blocks executed in BEFORE (LLVM's hierarchy).
    pub before_paths: Vec<Vec<String>>,
    /// `file:line:col` of the call in AFTER and of the matched call in BEFORE, when known.
    pub after_site: Option<String>,
    /// `file:line:col` of the matched call in BEFORE, when known.
    pub before_site: Option<String>,
}

/// The result of [`check`] for one function pair.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The function compared (its name without `@`).
    pub function: String,
    /// Refines, or violation.
    pub verdict: Verdict,
    /// How much was compared.
    pub stats: Stats,
    /// The first violating execution found, for a violation by execution.
    pub counterexample: Option<Counterexample>,
    /// AFTER breaks the static token rules: the verifier's diagnostics, rendered.
    pub token_errors: Vec<String>,
    /// Remarks: runs skipped and why, functions not compared.
    pub notes: Vec<String>,
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The values tried for one parameter.
fn domain(m: &Module, f: &Function, k: usize) -> Vec<Option<ArgValue>> {
    match &m.types.types[f.params[k].ty.0 as usize] {
        Type::Int(1) => vec![Some(ArgValue::Int(0)), Some(ArgValue::Int(1))],
        Type::Int(_) => [0, 1, 2, 3, 6]
            .iter()
            .map(|&x| Some(ArgValue::Int(x)))
            .collect(),
        Type::Float | Type::Double | Type::Half => [0.0, 1.5, -2.0]
            .iter()
            .map(|&x| Some(ArgValue::Float(x)))
            .collect(),
        _ => vec![None],
    }
}

/// The distinct cycle hierarchies of a CFG. Without irreducible cycles there is one (every cycle is
/// a natural loop whose header dominates it, whatever the DFS order), so nothing is enumerated.
fn hierarchies(cfg: &Cfg, cap: u64, all: bool) -> Enumeration {
    let ci = CycleInfo::new(cfg);
    if !all || ci.cycles().all(|c| ci.is_reducible(c)) {
        return Enumeration {
            hierarchies: vec![Hierarchy::llvm(cfg)],
            exhaustive: all,
            orders_tried: 1,
        };
    }
    enumerate(cfg, cap)
}

fn site(m: &Module, f: FuncId, i: InstId, file: &str) -> Option<String> {
    let sp = m.functions[f.0 as usize].inst_span(i);
    if sp.end == 0 {
        return None;
    }
    let (l, c) = converge_ir::diag::line_col(&m.source, sp.start);
    Some(format!("{file}:{l}:{c}"))
}

fn paths(m: &Module, f: &Function, o: &Observed) -> Vec<Vec<String>> {
    o.paths
        .iter()
        .map(|p| p.iter().map(|&b| block_name(m, f, b)).collect())
        .collect()
}

fn render_arg(a: &Option<ArgValue>) -> String {
    match a {
        Some(ArgValue::Int(x)) => x.to_string(),
        Some(ArgValue::Float(x)) => x.to_string(),
        None => "_".into(),
    }
}

/// Checks the function named `function` (or the one [`match_functions`] picks) of AFTER against
/// BEFORE. `files` names the inputs in diagnostics.
pub fn check(
    before: &Module,
    after: &Module,
    function: Option<&str>,
    files: (&str, &str),
    settings: &Settings,
) -> Result<Outcome, MatchError> {
    let start = Instant::now();
    let (bf, af) = match_functions(before, after, function)?;
    let fname = before.strings.resolve(bf.name).to_string();
    let bad_before = llvm::verify_module(before, Flavor::Llvm22);
    if let Some(fd) = bad_before.first() {
        return Err(MatchError(format!(
            "{}\nerror: BEFORE breaks the static rules of convergence control tokens: the original \
             has no defined behaviour to compare with",
            llvm::diagnostic(before, fd).render(files.0, &before.source)
        )));
    }
    let bad_after = llvm::verify_module(after, Flavor::Llvm22);
    if !bad_after.is_empty() {
        return Ok(Outcome {
            function: fname,
            verdict: Verdict::Violation,
            stats: Stats::default(),
            counterexample: None,
            token_errors: bad_after
                .iter()
                .map(|fd| llvm::diagnostic(after, fd).render(files.1, &after.source))
                .collect(),
            notes: Vec::new(),
        });
    }
    let target = settings
        .target
        .unwrap_or_else(|| Target::from_triple(before.triple.as_deref()));
    let bp = Program::new(before, bf, target);
    let ap = Program::new(after, af, target);
    let cap = settings.enumeration_cap.max(1);
    let be = hierarchies(&bp.cfg, cap, settings.all_hierarchies);
    let ae = hierarchies(&ap.cfg, cap, settings.all_hierarchies);
    let mut stats = Stats {
        hierarchies_before: be.hierarchies.len(),
        hierarchies_after: ae.hierarchies.len(),
        hierarchies_exhaustive: be.exhaustive && ae.exhaustive,
        ..Stats::default()
    };
    let mut notes = Vec::new();

    let counts: Vec<u32> = if settings.threads <= 1 {
        vec![1]
    } else {
        (2..=settings.threads).collect()
    };
    let domains: Vec<Vec<Option<ArgValue>>> = (0..bf.params.len())
        .map(|k| domain(before, bf, k))
        .collect();
    let per_count: u128 = domains.iter().map(|d| d.len() as u128).product();
    let total = per_count.saturating_mul(counts.len() as u128);
    stats.configurations = total;
    stats.exhaustive = total <= settings.max_executions as u128;
    let n = if stats.exhaustive {
        total as u64
    } else {
        settings.max_executions
    };
    stats.planned = n;
    let mut rng = Rng(settings.seed ^ 0x5EED_C0DE);
    let mut violation = None;
    for e in 0..n {
        if start.elapsed() > settings.time_limit {
            stats.timed_out = true;
            break;
        }
        let (threads, args, seed) = if stats.exhaustive {
            let mut rest = e as u128;
            let mut args = Vec::with_capacity(domains.len());
            for d in &domains {
                args.push(d[(rest % d.len() as u128) as usize]);
                rest /= d.len() as u128;
            }
            (
                counts[(rest as usize).min(counts.len() - 1)],
                args,
                settings.seed,
            )
        } else {
            let threads = counts[(rng.next() % counts.len() as u64) as usize];
            let args = domains
                .iter()
                .map(|d| d[(rng.next() % d.len() as u64) as usize])
                .collect();
            (threads, args, rng.next())
        };
        let opts = Options {
            threads,
            args: args.clone(),
            seed,
            step_limit: settings.step_limit,
            target,
            ..Options::default()
        };
        let mut befores: Vec<Observed> = Vec::new();
        let mut before_failed = None;
        for h in &be.hierarchies {
            let r = run(&bp, h, &opts);
            stats.before_runs += 1;
            let o = observe(before, bf, &r);
            if let Some(fail) = o.failed() {
                before_failed = Some(fail);
                break;
            }
            if o.inconclusive {
                stats.skipped_inconclusive += 1;
                continue;
            }
            befores.push(o);
        }
        if before_failed.is_some() {
            stats.skipped_before_error += 1;
            continue;
        }
        if befores.is_empty() {
            continue;
        }
        for (hk, h) in ae.hierarchies.iter().enumerate() {
            let r = run(&ap, h, &opts);
            stats.after_runs += 1;
            let o = observe(after, af, &r);
            if let Some((t, why)) = o.failed() {
                stats.skipped_after_error += 1;
                let note = format!(
                    "AFTER stops on an error where BEFORE does not (thread {t}: {why}; {threads} \
                     threads, arguments {}): a single-thread change, not compared",
                    args.iter().map(render_arg).collect::<Vec<_>>().join(",")
                );
                if notes.len() < 5 && !notes.contains(&note) {
                    notes.push(note);
                }
                continue;
            }
            if o.inconclusive {
                stats.skipped_inconclusive += 1;
                continue;
            }
            stats.groups += o.groups as u64;
            let mut first: Option<Mismatch> = None;
            let mut ok = false;
            for b in &befores {
                match compare(&o, b) {
                    Ok(()) => {
                        ok = true;
                        break;
                    }
                    Err(m) => {
                        first.get_or_insert(m);
                    }
                }
            }
            if !ok && let Some(mm) = first {
                let b0 = &befores[0];
                let t = mm.thread as usize;
                let a_inst = o.threads[t]
                    .iter()
                    .find(|x| x.callee == mm.callee && x.k == mm.k)
                    .map(|x| (x.func, x.inst));
                let b_inst = b0.find(t, &mm.callee, mm.k).map(|x| (x.func, x.inst));
                violation = Some(Counterexample {
                    threads,
                    args: args.iter().map(render_arg).collect(),
                    seed,
                    after_hierarchy: hk,
                    after_paths: paths(after, af, &o),
                    before_paths: paths(before, bf, b0),
                    after_site: a_inst.and_then(|(f, i)| site(after, f, i, files.1)),
                    before_site: b_inst.and_then(|(f, i)| site(before, f, i, files.0)),
                    mismatch: mm,
                });
                break;
            }
        }
        if violation.is_some() {
            break;
        }
        stats.executions += 1;
    }
    stats.elapsed = start.elapsed();
    Ok(Outcome {
        function: fname,
        verdict: if violation.is_some() {
            Verdict::Violation
        } else {
            Verdict::Refines
        },
        stats,
        counterexample: violation,
        token_errors: Vec::new(),
        notes,
    })
}
