//! The verdict as a person reads it (`text`; the JSON report is
//! `converge_report::reports::check_transform`).
//! Both say how much was compared; a "refines" verdict is the result of a search, not a proof.

use crate::refine::{MismatchKind, ordinal};
use crate::search::{Outcome, Stats, Verdict};
use std::fmt::Write;

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

/// Readable report.
pub fn text(o: &Outcome) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "@{}: {}", o.function, o.verdict.name());
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
