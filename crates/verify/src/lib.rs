//! converge-verify: the static rules of convergence control tokens (seed 004, "Convergent Operation
//! Semantics") as LLVM's IR verifier applies them (`GenericConvergenceVerifier`), with every
//! violation of a function collected and a witness closed path for the cycle rules.
//!
//! The core ([`core`]) is generic over [`TokenFunction`] (instructions, intrinsics, bundles) and
//! [`Structure`] (dominance, cycle hierarchy); [`llvm`] adapts converge-ir's LLVM-text IR.

pub mod core;
pub mod llvm;
mod rules;
pub mod structure;

pub use crate::core::{
    Control, CycleSummary, Intrinsic, Structure, TokenFunction, Violation, verify_function,
};
pub use rules::Rule;
