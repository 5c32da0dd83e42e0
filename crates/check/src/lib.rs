//! converge-check: is a program transformation correct for convergent operations?
//!
//! "Convergent Operation Semantics" (section *Examples for the Correctness of Program
//! Transforms*) states the criterion: a transform is correct when every set of communicating
//! threads in the transformed program was possible in the original. This crate checks it by
//! execution: both functions are run by the simulator (converge-sim, the oracle) on the same
//! configurations (thread count, kernel arguments, memory seed); every execution of AFTER (under
//! each of its cycle hierarchies) must be matched by an execution of BEFORE under some cycle
//! hierarchy (m-convergence) and some grouping of its anchors (implementation-defined), as
//! [`refine`] describes. The search ([`search`]) is exhaustive over small argument domains where
//! that is feasible and seeded-random beyond, and time-boxed: a "refines" verdict says how much was
//! compared, never that it is proved. AFTER must also keep the static token rules (converge-verify).
//!
//! # Example
//!
//! Sinking a `subgroupAdd` out of both arms of a divergent branch into one call after the join
//! lets every thread communicate with every other, which BEFORE never allows ("Convergent
//! Operation Semantics", §Examples for the Correctness of Program Transforms):
//!
//! ```
//! use converge_check::{MismatchKind, Settings, Verdict, check};
//!
//! let before = r#"
//! target triple = "amdgcn-amd-amdhsa"
//! declare i32 @llvm.amdgcn.workitem.id.x()
//! declare i32 @subgroupAdd(i32) convergent
//! define i32 @k() convergent {
//! entry:
//!   %tid = call i32 @llvm.amdgcn.workitem.id.x()
//!   %c = icmp sgt i32 %tid, 0
//!   br i1 %c, label %then, label %else
//! then:
//!   %a = call i32 @subgroupAdd(i32 %tid)
//!   br label %end
//! else:
//!   %b = call i32 @subgroupAdd(i32 %tid)
//!   br label %end
//! end:
//!   %r = phi i32 [ %a, %then ], [ %b, %else ]
//!   ret i32 %r
//! }
//! "#;
//! let after = r#"
//! target triple = "amdgcn-amd-amdhsa"
//! declare i32 @llvm.amdgcn.workitem.id.x()
//! declare i32 @subgroupAdd(i32) convergent
//! define i32 @k() convergent {
//! entry:
//!   %tid = call i32 @llvm.amdgcn.workitem.id.x()
//!   %c = icmp sgt i32 %tid, 0
//!   br i1 %c, label %then, label %else
//! then:
//!   br label %end
//! else:
//!   br label %end
//! end:
//!   %r = call i32 @subgroupAdd(i32 %tid)
//!   ret i32 %r
//! }
//! "#;
//! let parse = |name: &str, s: &str| converge_ir::parse(name, s.to_string()).unwrap();
//! let (b, a) = (parse("before.ll", before), parse("after.ll", after));
//! let settings = Settings { threads: 2, ..Settings::default() };
//! let outcome = check(&b, &a, None, ("before.ll", "after.ll"), &settings).unwrap();
//! assert_eq!(outcome.verdict, Verdict::Violation);
//! let cex = outcome.counterexample.unwrap();
//! assert_eq!(cex.mismatch.kind, MismatchKind::Set);
//!
//! // The identity transform refines.
//! let same = check(&b, &parse("b2.ll", before), None, ("b", "b"), &settings).unwrap();
//! assert_eq!(same.verdict, Verdict::Refines);
//! ```
#![warn(missing_docs)]

pub mod observe;
pub mod refine;
pub mod search;

pub use refine::{Mismatch, MismatchKind};
pub use search::{Counterexample, Outcome, Settings, Stats, Verdict, check};

use converge_ir::{Function, Module, Value};

/// Why two functions cannot be compared (exit code 2 in the CLI).
#[derive(Clone, Debug)]
pub struct MatchError(pub String);

/// Picks the function to compare: `want` if given (it must have a body in both modules), else the
/// one function with a body of that name in both modules that no other defined function of BEFORE
/// calls (the kernel, when BEFORE also holds the callees of an inlining).
pub fn match_functions<'a>(
    before: &'a Module,
    after: &'a Module,
    want: Option<&str>,
) -> Result<(&'a Function, &'a Function), MatchError> {
    let defined = |m: &'a Module, name: &str| -> Option<&'a Function> {
        m.functions
            .iter()
            .find(|f| !f.is_declaration && m.strings.resolve(f.name) == name)
    };
    let name = match want {
        Some(w) => w.trim_start_matches('@').to_string(),
        None => {
            let called: Vec<u32> = before
                .functions
                .iter()
                .filter(|f| !f.is_declaration)
                .flat_map(|f| {
                    f.insts.iter().filter_map(move |i| {
                        if !i.op.is_call_like() {
                            return None;
                        }
                        match f.calls[i.aux as usize].callee {
                            Value::Func(fid) => Some(fid.0),
                            _ => None,
                        }
                    })
                })
                .collect();
            let common: Vec<String> = before
                .functions
                .iter()
                .enumerate()
                .filter(|(k, f)| !f.is_declaration && !called.contains(&(*k as u32)))
                .map(|(_, f)| before.strings.resolve(f.name).to_string())
                .filter(|n| defined(after, n).is_some())
                .collect();
            match common.as_slice() {
                [one] => one.clone(),
                [] => {
                    return Err(MatchError(
                        "error: no function with a body in both modules (name one with --function)"
                            .into(),
                    ));
                }
                more => {
                    return Err(MatchError(format!(
                        "error: several functions to compare ({}); pick one with --function",
                        more.iter()
                            .map(|n| format!("@{n}"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    )));
                }
            }
        }
    };
    let bf = defined(before, &name)
        .ok_or_else(|| MatchError(format!("error: BEFORE has no function @{name} with a body")))?;
    let af = defined(after, &name)
        .ok_or_else(|| MatchError(format!("error: AFTER has no function @{name} with a body")))?;
    if bf.params.len() != af.params.len() {
        return Err(MatchError(format!(
            "error: @{name} has {} parameters in BEFORE and {} in AFTER",
            bf.params.len(),
            af.params.len()
        )));
    }
    for (k, (p, q)) in bf.params.iter().zip(&af.params).enumerate() {
        let (tp, tq) = (
            &before.types.types[p.ty.0 as usize],
            &after.types.types[q.ty.0 as usize],
        );
        if std::mem::discriminant(tp) != std::mem::discriminant(tq) {
            return Err(MatchError(format!(
                "error: parameter {} of @{name} has different types in BEFORE and AFTER",
                k + 1
            )));
        }
    }
    Ok((bf, af))
}
