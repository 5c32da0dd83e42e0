//! `converge check-transform`'s JSON report ([`CheckReport`], schema
//! `converge.check-transform/1`): the verdict, the counterexample when there is one, and how much
//! was compared (a "refines" verdict is the result of a search, not a proof), and the same as a
//! person reads it ([`text`]). Both say how much was compared; `converge-check` returns the data
//! only ([`Outcome`]).

use super::style::{Painter, Style};
use converge_check::refine::{MismatchKind, ordinal};
use converge_check::search::{Outcome, Stats, Verdict};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// The JSON document.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CheckReport {
    /// `converge.check-transform/1`.
    pub schema: String,
    /// The function compared, without `@` (the same name in BEFORE and AFTER).
    pub function: String,
    /// `refines` (no execution of AFTER found that BEFORE cannot match: a search result) or
    /// `violation`.
    pub verdict: String,
    /// AFTER breaks the static token rules: the verifier's diagnostics, rendered.
    /// Empty when AFTER's tokens are valid.
    pub token_errors: Vec<String>,
    /// An execution of AFTER that no execution of BEFORE matches; `None` (JSON null) for
    /// `refines`, and for a violation found by the token rules alone.
    pub counterexample: Option<CounterexampleJson>,
    /// How much was compared.
    pub stats: StatsJson,
    /// Remarks: runs skipped and why, functions not compared.
    pub notes: Vec<String>,
    /// Always false: the check is a search.
    pub proof: bool,
}

/// An execution of AFTER that no execution of BEFORE matches.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct CounterexampleJson {
    /// What differs (`communicating-set`, …).
    pub kind: String,
    /// The thread whose operation is reported (its id in the group).
    pub thread: u32,
    /// The callee of the convergent operation, without `@`.
    pub callee: String,
    /// Which call of `callee` by `thread` (1 for the first).
    pub occurrence: u32,
    /// `file:line:col` of the operation in AFTER; `None` (null) when not known.
    pub after_site: Option<String>,
    /// `file:line:col` of the same operation in BEFORE; `None` (null) when not known or absent
    /// from BEFORE.
    pub before_site: Option<String>,
    /// The threads the operation communicates with in AFTER (its dynamic instance's threads:
    /// sorted, the thread included).
    pub after_set: Vec<u32>,
    /// What BEFORE gives the same operation; `None` (null) when BEFORE has no matching one.
    pub before_set: Option<Vec<u32>>,
    /// A sentence explaining the difference.
    pub detail: String,
    /// Threads in the group of the execution.
    pub threads: u32,
    /// The kernel arguments of the execution, as given to the simulator.
    pub args: Vec<String>,
    /// The simulator seed of the execution (it fixes the unspecified values: memory contents,
    /// `undef`).
    pub seed: u64,
    /// Index of AFTER's cycle hierarchy the execution ran under (0: LLVM's).
    pub after_hierarchy: usize,
    /// Per thread, the blocks it executed in AFTER, in order.
    pub after_paths: Vec<Vec<String>>,
    /// Per thread, the blocks it executed in BEFORE (under LLVM's hierarchy).
    pub before_paths: Vec<Vec<String>>,
}

/// How much was compared.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct StatsJson {
    /// Executions compared (configurations whose executions were all compared).
    pub executions: u64,
    /// A decimal string (the count can exceed 64 bits).
    /// Configurations of the argument domains, before any sampling.
    pub configurations: String,
    /// Every configuration was tried (otherwise a seeded sample).
    pub exhaustive: bool,
    /// Executions planned: all configurations, or the sample size.
    pub planned: u64,
    /// Simulator runs of BEFORE (configurations × hierarchies).
    pub before_runs: u64,
    /// Simulator runs of AFTER (configurations × hierarchies).
    pub after_runs: u64,
    /// Thread groups (dynamic instances of communicating operations) of AFTER compared.
    pub thread_groups: u64,
    /// Cycle hierarchies of BEFORE considered (1: LLVM's only).
    pub hierarchies_before: usize,
    /// Cycle hierarchies of AFTER considered (1: LLVM's only).
    pub hierarchies_after: usize,
    /// Every DFS successor order was tried for the hierarchies.
    pub hierarchies_exhaustive: bool,
    /// Executions skipped because BEFORE stopped on an error (or the step limit).
    pub skipped_before_error: u64,
    /// Executions skipped because AFTER stopped on an error where BEFORE did not (a change of
    /// single-thread behaviour, reported in the notes).
    pub skipped_after_error: u64,
    /// Runs skipped because the scheduler released a thread group it could not prove complete.
    pub skipped_inconclusive: u64,
    /// The time box ran out before the search finished.
    pub timed_out: bool,
    /// Elapsed wall-clock time in seconds (a measurement: differs between runs).
    pub seconds: f64,
}

/// The JSON document of an outcome.
pub fn json(o: &Outcome) -> CheckReport {
    let st = &o.stats;
    CheckReport {
        schema: super::schema("check-transform"),
        function: o.function.clone(),
        verdict: o.verdict.name().to_string(),
        token_errors: o.token_errors.clone(),
        counterexample: o.counterexample.as_ref().map(|c| CounterexampleJson {
            kind: c.mismatch.kind.name().to_string(),
            thread: c.mismatch.thread,
            callee: c.mismatch.callee.clone(),
            occurrence: c.mismatch.k + 1,
            after_site: c.after_site.clone(),
            before_site: c.before_site.clone(),
            after_set: c.mismatch.after_set.clone(),
            before_set: c.mismatch.before_set.clone(),
            detail: c.mismatch.detail.clone(),
            threads: c.threads,
            args: c.args.clone(),
            seed: c.seed,
            after_hierarchy: c.after_hierarchy,
            after_paths: c.after_paths.clone(),
            before_paths: c.before_paths.clone(),
        }),
        stats: StatsJson {
            executions: st.executions,
            configurations: st.configurations.to_string(),
            exhaustive: st.exhaustive,
            planned: st.planned,
            before_runs: st.before_runs,
            after_runs: st.after_runs,
            thread_groups: st.groups,
            hierarchies_before: st.hierarchies_before,
            hierarchies_after: st.hierarchies_after,
            hierarchies_exhaustive: st.hierarchies_exhaustive,
            skipped_before_error: st.skipped_before_error,
            skipped_after_error: st.skipped_after_error,
            skipped_inconclusive: st.skipped_inconclusive,
            timed_out: st.timed_out,
            seconds: st.elapsed.as_secs_f64(),
        },
        notes: o.notes.clone(),
        proof: false,
    }
}

fn set(s: &[u32]) -> String {
    format!(
        "{{{}}}",
        s.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
    )
}

fn coverage(st: &Stats) -> String {
    let sample = if st.exhaustive {
        "every configuration of the argument domains".to_string()
    } else {
        format!(
            "a seeded sample of the {} configurations of the argument domains",
            st.configurations
        )
    };
    let hier = |n: usize| if n == 1 { "hierarchy" } else { "hierarchies" };
    let mut s = format!(
        "compared {} of {} execution{} ({sample}): {} BEFORE run{} under {} cycle {}, {} AFTER \
         run{} under {} {}{}, {} thread group{} of AFTER",
        st.executions,
        st.planned,
        plural(st.planned),
        st.before_runs,
        plural(st.before_runs),
        st.hierarchies_before,
        hier(st.hierarchies_before),
        st.after_runs,
        plural(st.after_runs),
        st.hierarchies_after,
        hier(st.hierarchies_after),
        if st.hierarchies_exhaustive {
            ""
        } else {
            " (hierarchies sampled)"
        },
        st.groups,
        plural(st.groups),
    );
    let _ = write!(s, " in {:.3}s", st.elapsed.as_secs_f64());
    s
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The readable report (`converge check-transform`'s text format).
pub fn text(o: &Outcome) -> String {
    text_painted(o, Painter::PLAIN)
}

/// [`text`] with the verdict coloured by `p` (the CLI's `--color`): a violation as an error.
pub fn text_painted(o: &Outcome, p: Painter) -> String {
    let mut s = String::new();
    let style = match o.verdict {
        Verdict::Violation => Style::Error,
        Verdict::Refines => Style::Bold,
    };
    let _ = writeln!(s, "@{}: {}", o.function, p.paint(style, o.verdict.name()));
    if !o.token_errors.is_empty() {
        for e in &o.token_errors {
            let _ = writeln!(s, "{e}");
        }
        let _ = writeln!(
            s,
            "AFTER breaks the static rules of convergence control tokens ({} error{})",
            o.token_errors.len(),
            plural(o.token_errors.len() as u64)
        );
        return s;
    }
    if let Some(c) = &o.counterexample {
        let m = &c.mismatch;
        let what = format!("the {} call of @{}", ordinal(m.k + 1), m.callee);
        let at = |x: &Option<String>| x.as_ref().map(|x| format!(" ({x})")).unwrap_or_default();
        match m.kind {
            MismatchKind::Extra => {
                let _ = writeln!(
                    s,
                    "  in AFTER, thread {} executes {what}{}, which it never executes in BEFORE",
                    m.thread,
                    at(&c.after_site)
                );
            }
            _ => {
                let _ = writeln!(
                    s,
                    "  in AFTER, thread {} executes {what}{} together with threads {}",
                    m.thread,
                    at(&c.after_site),
                    set(&m.after_set)
                );
                match &m.before_set {
                    Some(b) => {
                        let _ = writeln!(
                            s,
                            "  in BEFORE, the same operation{} communicates with threads {}",
                            at(&c.before_site),
                            set(b)
                        );
                    }
                    None => {
                        let _ = writeln!(
                            s,
                            "  in BEFORE, no grouping allows it{}",
                            at(&c.before_site)
                        );
                    }
                }
            }
        }
        if !m.detail.is_empty() {
            let _ = writeln!(s, "  ({}: {})", m.kind.name(), m.detail);
        } else {
            let _ = writeln!(s, "  ({})", m.kind.name());
        }
        let _ = writeln!(
            s,
            "  execution: {} threads, arguments [{}], seed {}, AFTER's cycle hierarchy {}{}",
            c.threads,
            c.args.join(", "),
            c.seed,
            c.after_hierarchy,
            if c.after_hierarchy == 0 {
                " (LLVM's)"
            } else {
                ""
            }
        );
        let _ = writeln!(s, "  paths in AFTER:");
        for (t, p) in c.after_paths.iter().enumerate() {
            let _ = writeln!(s, "    thread {t}: {}", p.join(" -> "));
        }
        let _ = writeln!(s, "  paths in BEFORE (LLVM's cycle hierarchy):");
        for (t, p) in c.before_paths.iter().enumerate() {
            let _ = writeln!(s, "    thread {t}: {}", p.join(" -> "));
        }
        let _ = writeln!(
            s,
            "  checked no BEFORE execution (any cycle hierarchy, any anchor grouping) with these \
             communicating sets"
        );
    } else {
        let _ = writeln!(
            s,
            "  no execution found in which AFTER's convergent operations communicate with a set of \
             threads (or compute a result) that BEFORE could not"
        );
        if o.stats.timed_out {
            let _ = writeln!(
                s,
                "  the time limit ran out: only part of the configurations were compared"
            );
        }
    }
    if o.verdict == Verdict::Violation {
        let _ = writeln!(
            s,
            "  before the counterexample's execution, {}",
            coverage(&o.stats)
        );
    } else {
        let _ = writeln!(s, "  {}", coverage(&o.stats));
    }
    skipped(&mut s, &o.stats);
    for n in &o.notes {
        let _ = writeln!(s, "  note: {n}");
    }
    if o.verdict == Verdict::Refines {
        let _ = writeln!(
            s,
            "  (a search over these executions, not a proof for all inputs and thread counts)"
        );
    }
    s
}

fn skipped(s: &mut String, st: &Stats) {
    if st.skipped_before_error > 0 {
        let _ = writeln!(
            s,
            "  skipped {} configuration{} where a thread of BEFORE stops on an error or the step limit",
            st.skipped_before_error,
            plural(st.skipped_before_error)
        );
    }
    if st.skipped_inconclusive > 0 {
        let _ = writeln!(
            s,
            "  skipped {} run{} whose scheduler could not prove a group complete",
            st.skipped_inconclusive,
            plural(st.skipped_inconclusive)
        );
    }
}
