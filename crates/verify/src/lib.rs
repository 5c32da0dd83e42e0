//! converge-verify: the static rules of convergence control tokens ("Convergent Operation
//! Semantics", §Static Rules) as LLVM's IR verifier applies them, with every
//! violation of a function collected and a witness closed path for the cycle rules.
//!
//! The core ([`core`]) is generic over [`TokenFunction`] (instructions, intrinsics, bundles) and
//! [`Structure`] (dominance, cycle hierarchy); [`llvm`] adapts converge-ir's LLVM-text IR.
//!
//! # Example
//!
//! A `loop` heart outside any cycle breaks a static rule; the finding names the rule and prints as
//! LLVM's verifier would:
//!
//! ```
//! use converge_verify::llvm::{Flavor, llvm_report, verify_module};
//!
//! let src = r#"
//! define void @f() convergent {
//! entry:
//!   %a = call token @llvm.experimental.convergence.entry()
//!   %h = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %a) ]
//!   ret void
//! }
//! declare token @llvm.experimental.convergence.entry()
//! declare token @llvm.experimental.convergence.loop()
//! "#;
//! let m = converge_ir::parse("f.ll", src.to_string()).unwrap();
//! let findings = verify_module(&m, Flavor::Llvm22);
//! assert_eq!(findings.len(), 1);
//! println!("{}: {}", findings[0].rule.id(), findings[0].rule.llvm_message());
//! assert!(llvm_report(&m, &findings).contains("%h = call token"));
//!
//! // Inside a cycle, in its header, the same heart is valid.
//! let ok = src.replace("  %h =", "  br label %l\nl:\n  %h =").replace("  ret void", "  br label %l");
//! let m = converge_ir::parse("f.ll", ok).unwrap();
//! assert!(verify_module(&m, Flavor::Llvm22).is_empty());
//! ```
#![warn(missing_docs)]

pub mod core;
pub mod llvm;
mod rules;
pub mod structure;

pub use crate::core::{
    Control, CycleSummary, Intrinsic, Structure, TokenFunction, Violation, verify_function,
};
pub use converge_graph::{Cycle, Inst, InstRange};
pub use rules::Rule;
