//! `converge check-transform`'s JSON report ([`CheckReport`], schema
//! `converge.check-transform/1`): the verdict, the counterexample when there is one, and how much
//! was compared (a "refines" verdict is the result of a search, not a proof). The readable text
//! is `converge_check::render::text`.

use converge_check::search::Outcome;
use serde::{Deserialize, Serialize};

/// The JSON document.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CheckReport {
    /// `converge.check-transform/1`.
    pub schema: String,
    pub function: String,
    /// `refines` or `violation`.
    pub verdict: String,
    /// AFTER breaks the static token rules: the verifier's diagnostics, rendered.
    pub token_errors: Vec<String>,
    pub counterexample: Option<CounterexampleJson>,
    pub stats: StatsJson,
    pub notes: Vec<String>,
    /// Always false: the check is a search.
    pub proof: bool,
}

/// An execution of AFTER that no execution of BEFORE matches.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct CounterexampleJson {
    /// What differs (`communicating-set`, …).
    pub kind: String,
    pub thread: u32,
    pub callee: String,
    /// Which call of `callee` by `thread` (1 for the first).
    pub occurrence: u32,
    pub after_site: Option<String>,
    pub before_site: Option<String>,
    pub after_set: Vec<u32>,
    pub before_set: Option<Vec<u32>>,
    pub detail: String,
    pub threads: u32,
    pub args: Vec<String>,
    pub seed: u64,
    pub after_hierarchy: usize,
    pub after_paths: Vec<Vec<String>>,
    pub before_paths: Vec<Vec<String>>,
}

/// How much was compared.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct StatsJson {
    pub executions: u64,
    /// A decimal string (the count can exceed 64 bits).
    pub configurations: String,
    pub exhaustive: bool,
    pub planned: u64,
    pub before_runs: u64,
    pub after_runs: u64,
    pub thread_groups: u64,
    pub hierarchies_before: usize,
    pub hierarchies_after: usize,
    pub hierarchies_exhaustive: bool,
    pub skipped_before_error: u64,
    pub skipped_after_error: u64,
    pub skipped_inconclusive: u64,
    pub timed_out: bool,
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
