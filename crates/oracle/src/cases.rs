//! The random cases of an oracle run and the figures it adds up.
//!
//! A case is a seed: it decides the program ([`converge_gen::oracle`] by default, or the older
//! [`converge_gen::program`] generator for comparison), the number of threads (2 to 64, most of
//! them small) and the inputs. [`Stats`] counts what the runs tested (programs that finished,
//! claimed-uniform values covered, programs with several hierarchies) and what they found.

use crate::check::{Claims, Mode, Outcome, RunSpec, Violation, check, claims, main_function};
use crate::classify::{KnownBug, classify};
use converge_gen::program::{self, Flavor};
use converge_gen::rng::Rng;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Which generator draws the programs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Generator {
    /// `converge_gen::program` with at most `blocks` blocks and 2-8 threads: the oracle before
    /// issue 10, kept for the before/after figures.
    /// `converge_gen::program` programs of at most `blocks` blocks, 2-8 threads.
    Legacy {
        /// Blocks of the program at most.
        blocks: usize,
    },
    /// `converge_gen::oracle`: terminating loops, irreducible regions, calls, always-uniform
    /// intrinsics, tokens; 2-64 threads.
    /// `converge_gen::oracle` programs of at most `blocks` blocks, 2-64 threads.
    Oracle {
        /// Blocks of the main function at most.
        blocks: usize,
    },
    /// `Oracle` with breaks out of natural loops leaving to a block of their own
    /// (`converge_gen::oracle::Options::split_exits`): code reached only through a loop's
    /// other exits, where precise mode's rule P10 decides.
    Exits {
        /// Blocks of the main function at most.
        blocks: usize,
    },
}

/// One random case.
#[derive(Clone, Debug)]
pub struct Case {
    /// The seed everything of the case is drawn from (reproduces it).
    pub seed: u64,
    /// The module, as LLVM text; the function checked is its first defined one.
    pub text: String,
    /// Threads per group.
    pub threads: u32,
    /// Whether the program uses convergence control tokens.
    pub tokens: bool,
    /// Steps per thread (the legacy oracle used 4000).
    pub step_limit: u64,
    /// Input sets per hierarchy (the legacy oracle used 1).
    pub inputs: u32,
    /// Small values in the global buffer (`RunSpec::small_globals`; not in the legacy oracle).
    pub small_globals: bool,
    /// Candidate input sets chosen by path coverage (`RunSpec::explore`; not in the legacy
    /// oracle).
    pub explore: u32,
}

/// Candidate input sets per case chosen by path coverage, by default.
pub const DEFAULT_EXPLORE: u32 = 8;

/// The [`RunSpec`] of case `c`.
pub fn spec_of(c: &Case) -> RunSpec {
    let mut spec = RunSpec::new(c.threads, c.seed);
    spec.step_limit = c.step_limit;
    spec.inputs = c.inputs;
    spec.small_globals = c.small_globals;
    spec.explore = c.explore;
    spec
}

/// The case of `seed`.
pub fn case(seed: u64, generator: Generator) -> Case {
    let mut rng = Rng::new(seed);
    let flavor = if rng.chance(1, 4) {
        Flavor::Nvptx
    } else {
        Flavor::Amdgpu
    };
    match generator {
        Generator::Legacy { blocks } => {
            let mut o = program::Options::new(flavor);
            o.max_blocks = blocks.max(3);
            o.max_insts = 4;
            let text = program::module_header(flavor) + &program::function(&mut rng, "f", &o);
            let threads = 2 + rng.below(7) as u32;
            Case {
                seed,
                text,
                threads,
                tokens: false,
                step_limit: 4_000,
                inputs: 1,
                small_globals: false,
                explore: 0,
            }
        }
        Generator::Oracle { blocks } | Generator::Exits { blocks } => {
            let mut o = converge_gen::oracle::Options::new(flavor);
            o.max_blocks = blocks;
            if matches!(generator, Generator::Exits { .. }) {
                o.split_exits = true;
                // Irreducible regions make everything around them divergent (P1): rarer here.
                o.irreducible = rng.chance(1, 4);
            }
            o.tokens = rng.chance(1, 4);
            let p = converge_gen::oracle::program(&mut rng, &o);
            // Groups of 2-8 threads rarely split at every divergent branch the way a wrong claim
            // needs: most cases have more.
            let threads = match rng.below(10) {
                0..=2 => 2 + rng.below(7),
                3..=6 => 9 + rng.below(24),
                _ => 33 + rng.below(32),
            } as u32;
            Case {
                seed,
                text: p.text,
                threads,
                tokens: p.tokens,
                step_limit: 20_000,
                // `CONVERGE_ORACLE_INPUTS=1` for long runs on a busy machine (half the cost;
                // anchors are split on every other seed instead of every other input set).
                inputs: std::env::var("CONVERGE_ORACLE_INPUTS")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(3),
                small_globals: true,
                // `CONVERGE_ORACLE_EXPLORE`: candidates tried after the fixed input sets.
                explore: std::env::var("CONVERGE_ORACLE_EXPLORE")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(DEFAULT_EXPLORE),
            }
        }
    }
}

/// A violation with its program and classification.
#[derive(Clone, Debug)]
pub struct Found {
    /// The case's seed.
    pub seed: u64,
    /// The value called uniform and the simulator's converged instances that differ.
    pub violation: Violation,
    /// The documented LLVM bug the violation matches, if any ([`classify`]).
    pub known: Option<KnownBug>,
}

/// Figures of a run.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Programs checked.
    pub programs: usize,
    /// Of those, programs with convergence control tokens.
    pub with_tokens: usize,
    /// Programs where every thread finished under LLVM's hierarchy.
    pub finished: usize,
    /// Programs where every thread stopped at the step limit.
    pub all_step_limit: usize,
    /// Programs where a thread stopped on an operation the simulator does not model.
    pub sim_errors: usize,
    /// Programs with more than one cycle hierarchy (irreducible cycles).
    pub several_hierarchies: usize,
    /// Hierarchies run, over all programs.
    pub hierarchies: usize,
    /// Largest thread count used.
    pub max_threads: u32,
    /// Reachable values the analysis called uniform.
    pub claimed_uniform: usize,
    /// Of those, executed by a converged instance of two threads or more (the claim was tested).
    pub covered: usize,
    /// Of those claimed uniform, executed at all.
    pub executed: usize,
    /// Input sets run under every hierarchy, over all programs (fixed and kept candidates).
    pub input_sets: usize,
    /// Conditional branches executed, over all programs.
    pub branches: usize,
    /// Of those, branches some converged instance of which split (threads went different ways).
    pub branches_split: usize,
    /// Programs with at least one violation.
    pub programs_with_violations: usize,
    /// Every violation found, with its case and classification.
    pub violations: Vec<Found>,
    /// Cases that panicked (the simulator or the check), with the message.
    pub panics: Vec<(u64, String)>,
}

impl Stats {
    /// Adds the outcome of case `c` and its classified violations.
    pub fn add(&mut self, c: &Case, o: &Outcome, found: Vec<Found>) {
        self.programs += 1;
        self.with_tokens += c.tokens as usize;
        self.finished += o.finished as usize;
        self.all_step_limit += o.all_step_limit as usize;
        self.sim_errors += o.error.is_some() as usize;
        self.several_hierarchies += (o.hierarchies > 1) as usize;
        self.hierarchies += o.hierarchies;
        self.max_threads = self.max_threads.max(c.threads);
        self.claimed_uniform += o.claimed_uniform;
        self.covered += o.covered;
        self.executed += o.executed;
        self.input_sets += o.input_sets;
        self.branches += o.branches;
        self.branches_split += o.branches_split;
        self.programs_with_violations += !found.is_empty() as usize;
        self.violations.extend(found);
    }

    /// Adds the figures of another run (for parallel runs).
    pub fn merge(&mut self, o: Stats) {
        self.programs += o.programs;
        self.with_tokens += o.with_tokens;
        self.finished += o.finished;
        self.all_step_limit += o.all_step_limit;
        self.sim_errors += o.sim_errors;
        self.several_hierarchies += o.several_hierarchies;
        self.hierarchies += o.hierarchies;
        self.max_threads = self.max_threads.max(o.max_threads);
        self.claimed_uniform += o.claimed_uniform;
        self.covered += o.covered;
        self.executed += o.executed;
        self.input_sets += o.input_sets;
        self.branches += o.branches;
        self.branches_split += o.branches_split;
        self.programs_with_violations += o.programs_with_violations;
        self.violations.extend(o.violations);
        self.panics.extend(o.panics);
    }

    /// `a` as a percentage of `b` (0 when `b` is 0).
    pub fn share(a: usize, b: usize) -> f64 {
        if b == 0 {
            0.0
        } else {
            100.0 * a as f64 / b as f64
        }
    }
    /// Percentage of programs that finished.
    pub fn finished_pct(&self) -> f64 {
        Self::share(self.finished, self.programs)
    }
    /// Percentage of programs where every thread hit the step limit.
    pub fn step_limit_pct(&self) -> f64 {
        Self::share(self.all_step_limit, self.programs)
    }
    /// Percentage of claimed-uniform values covered.
    pub fn covered_pct(&self) -> f64 {
        Self::share(self.covered, self.claimed_uniform)
    }
    /// Percentage of the executed conditional branches that split a converged instance.
    pub fn split_pct(&self) -> f64 {
        Self::share(self.branches_split, self.branches)
    }
    /// Percentage of claimed-uniform values executed at all.
    pub fn executed_pct(&self) -> f64 {
        Self::share(self.executed, self.claimed_uniform)
    }
    /// Percentage of programs with several hierarchies.
    pub fn several_pct(&self) -> f64 {
        Self::share(self.several_hierarchies, self.programs)
    }
    /// Violations not explained by a known LLVM bug.
    pub fn unexplained(&self) -> Vec<&Found> {
        self.violations
            .iter()
            .filter(|f| f.known.is_none())
            .collect()
    }

    /// One paragraph with every figure, as the tests print it.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let _ = write!(
            s,
            "{} programs ({} with tokens, up to {} threads; {} panicked): finished {:.1}%, every thread at the step limit {:.1}%, \
             simulator errors {}, several hierarchies {:.1}% (mean {:.2}); claimed-uniform values {} of which \
             covered {:.1}% (executed at all {:.1}%); input sets per program {:.2}; conditional branches executed {}, \
             split by a converged instance {:.1}%; violations {} in {} programs",
            self.programs,
            self.with_tokens,
            self.max_threads,
            self.panics.len(),
            self.finished_pct(),
            self.step_limit_pct(),
            self.sim_errors,
            self.several_pct(),
            self.hierarchies as f64 / self.programs.max(1) as f64,
            self.claimed_uniform,
            self.covered_pct(),
            Self::share(self.executed, self.claimed_uniform),
            self.input_sets as f64 / self.programs.max(1) as f64,
            self.branches,
            self.split_pct(),
            self.violations.len(),
            self.programs_with_violations,
        );
        let mut by: BTreeMap<String, usize> = BTreeMap::new();
        for f in &self.violations {
            *by.entry(f.known.map_or("unexplained", |k| k.name()).to_string())
                .or_default() += 1;
        }
        for (k, n) in by {
            let _ = write!(s, "\n  {n} x {k}");
        }
        s
    }
}

/// Runs one case in `mode`; every violation classified.
pub fn run_case(c: &Case, mode: Mode) -> (Outcome, Vec<Found>) {
    let m = converge_ir::parse("oracle.ll", c.text.clone()).unwrap_or_else(|e| {
        panic!(
            "seed {}: the program does not parse: {e:?}\n{}",
            c.seed, c.text
        )
    });
    let fi = main_function(&m).expect("a defined function");
    let cl: Claims = claims(&m, fi, mode);
    let o = check(&m, fi, &cl, &spec_of(c));
    let known = classify(&m, fi, &cl, &o.violations);
    let found = o
        .violations
        .iter()
        .zip(known)
        .map(|(v, k)| Found {
            seed: c.seed,
            violation: v.clone(),
            known: k,
        })
        .collect();
    (o, found)
}

/// Runs seeds `base..base + count` with `generator` in `mode` on `workers` threads.
pub fn run_seeds(base: u64, count: u64, generator: Generator, mode: Mode, workers: usize) -> Stats {
    let workers = workers.max(1) as u64;
    std::thread::scope(|sc| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                sc.spawn(move || {
                    let mut st = Stats::default();
                    let mut k = w;
                    while k < count {
                        let c = case(base + k, generator);
                        // A panic is a finding too: keep its seed and go on.
                        match std::panic::catch_unwind(|| run_case(&c, mode)) {
                            Ok((o, found)) => st.add(&c, &o, found),
                            Err(e) => st.panics.push((
                                c.seed,
                                e.downcast_ref::<String>()
                                    .cloned()
                                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                                    .unwrap_or_default(),
                            )),
                        }
                        k += workers;
                    }
                    st
                })
            })
            .collect();
        let mut all = Stats::default();
        for h in handles {
            all.merge(h.join().expect("worker"));
        }
        all.violations
            .sort_by_key(|f| (f.seed, f.violation.hierarchy, f.violation.inst.0));
        all
    })
}

/// What one mutant did on a set of programs.
#[derive(Clone, Debug, Default)]
pub struct MutantStats {
    /// Programs the mutant was run on.
    pub programs: usize,
    /// Programs where the mutant calls some reachable value uniform that the full analysis calls
    /// divergent.
    pub matters: usize,
    /// Of those, programs where the oracle reports a violation on such a value.
    pub caught: usize,
    /// Values the mutant wrongly calls uniform, and of those the ones the oracle reports.
    pub changed_values: usize,
    /// Of the changed values, those the oracle reports.
    pub caught_values: usize,
    /// Changed values executed by a converged instance of two threads or more.
    pub covered_values: usize,
    /// Programs where a deeper search (the default run, plus 6 more input sets with 64 threads
    /// and 24 candidates chosen by path coverage)
    /// shows some changed value divergent: the mutant is observably unsound there.
    pub observable: usize,
}

impl MutantStats {
    /// Caught programs as a percentage of those where the mutant matters.
    pub fn rate(&self) -> f64 {
        Stats::share(self.caught, self.matters)
    }
    /// Caught by the default run, of the programs where the mutant is observably unsound.
    pub fn observable_rate(&self) -> f64 {
        Stats::share(self.caught, self.observable)
    }
}

/// Runs the mutant `ablation` on seeds `base..base + count` of `generator`.
pub fn run_mutant(
    base: u64,
    count: u64,
    generator: Generator,
    ablation: converge_uniformity::Ablation,
) -> MutantStats {
    use converge_uniformity::LlvmVersion;
    let mut st = MutantStats::default();
    for seed in base..base + count {
        let c = case(seed, generator);
        let m = converge_ir::parse("oracle.ll", c.text.clone()).expect("parses");
        let fi = main_function(&m).expect("a defined function");
        let full = claims(&m, fi, Mode::Llvm(LlvmVersion::V22));
        let mutant = claims(&m, fi, Mode::Ablated(ablation));
        st.programs += 1;
        let changed: Vec<usize> = (0..full.divergent.len())
            .filter(|&i| full.divergent[i] && !mutant.divergent[i])
            .collect();
        let o = check(&m, fi, &mutant, &spec_of(&c));
        // Only values the check could see count as changed (reachable values).
        let reported: std::collections::BTreeSet<u32> =
            o.violations.iter().map(|v| v.inst.0).collect();
        let f = &m.functions[fi.0 as usize];
        let lf = converge_uniformity::llvm::LlvmFunction::new(&m, fi);
        let s = converge_uniformity::Structure::new(converge_uniformity::SsaFunction::cfg(&lf));
        let changed: Vec<usize> = changed
            .into_iter()
            .filter(|&i| {
                !matches!(
                    m.types.types[f.insts[i].ty.0 as usize],
                    converge_ir::Type::Void | converge_ir::Type::Token
                ) && f.insts[i].op != converge_ir::Opcode::Store
                    && !f.insts[i].op.is_terminator()
                    && s.is_reachable(f.insts[i].block)
            })
            .collect();
        if changed.is_empty() {
            continue;
        }
        st.matters += 1;
        st.changed_values += changed.len();
        let hit = changed
            .iter()
            .filter(|&&i| reported.contains(&(i as u32)))
            .count();
        st.caught_values += hit;
        st.covered_values += changed
            .iter()
            .filter(|&&i| o.covered_insts.contains(&(i as u32)))
            .count();
        st.caught += (hit > 0) as usize;
        // `CONVERGE_MUTATION_DEEP=0` skips the deeper search (observable = caught).
        let deep_on = std::env::var("CONVERGE_MUTATION_DEEP").map_or(true, |v| v != "0");
        let observable = hit > 0
            || deep_on && {
                let mut deep = RunSpec::new(64, c.seed ^ 0x5eed);
                deep.step_limit = c.step_limit;
                deep.inputs = 6;
                deep.small_globals = c.small_globals;
                deep.explore = 24;
                check(&m, fi, &mutant, &deep)
                    .violations
                    .iter()
                    .any(|v| changed.contains(&(v.inst.0 as usize)))
            };
        st.observable += observable as usize;
        if hit == 0 && std::env::var("CONVERGE_MUTATION_DEBUG").is_ok() {
            let names: Vec<String> = changed
                .iter()
                .map(|&i| converge_sim::report::inst_name(&m, f, converge_ir::InstId(i as u32)))
                .collect();
            eprintln!(
                "uncaught (observable {observable}): seed {seed}, {} threads: {names:?}",
                c.threads
            );
        }
    }
    st
}
