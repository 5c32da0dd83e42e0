//! converge-report: explanations and pictures that make converge's results understandable.
//!
//! - [`explain`]: why a value is divergent (the shortest chain of reasons back to a divergence
//!   source: data dependence, sync dependence at a join of a divergent branch, temporal divergence
//!   at a divergent cycle exit, a cycle assumed divergent) or why it is uniform, computed after the
//!   fact from `converge-uniformity`'s result so the two never disagree;
//! - [`render`]: those explanations and a per-function summary as text (with `file:line:col`) or
//!   JSON;
//! - [`dot`]: the CFG as Graphviz DOT, with cycles as nested clusters and divergence highlighted;
//! - [`witness`]: thread inputs under which the simulator shows a value divergent (precise mode's
//!   explanations come with one when the search finds it);
//! - [`reports`]: the subcommands' reports (uniformity, cycles, stats, verify) as text, LLVM's
//!   layouts and serde-derived JSON with a versioned schema (docs/json-schema.md);
//! - [`explore`]: one self-contained interactive HTML page per module (CFG picture, source,
//!   explanation chains, token diagnostics, the simulator's tables of dynamic instances).
//!
//! Only this crate and the CLI produce output formats (text, JSON, DOT, HTML); the analyses return
//! data.
//!
//! # Example
//!
//! Why is a value after a loop with a divergent exit divergent? The chain ends at the thread id;
//! the same analysis gives the DOT picture:
//!
//! ```
//! use converge_report::dot::{DotOptions, render};
//! use converge_report::explain::find_value;
//! use converge_report::{Analysed, Explainer, Explanation, LineIndex, render::Ctx};
//! use converge_uniformity::llvm::Target;
//!
//! let src = r#"
//! target triple = "amdgcn-amd-amdhsa"
//! define amdgpu_kernel void @k(ptr addrspace(1) %out) {
//! entry:
//!   %tid = call i32 @llvm.amdgcn.workitem.id.x()
//!   br label %loop
//! loop:
//!   %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
//!   %i.next = add i32 %i, 1
//!   %c = icmp ult i32 %i, %tid
//!   br i1 %c, label %loop, label %exit
//! exit:
//!   store i32 %i, ptr addrspace(1) %out
//!   ret void
//! }
//! declare i32 @llvm.amdgcn.workitem.id.x()
//! "#;
//! let m = converge_ir::parse("k.ll", src.to_string()).unwrap();
//! let f = m.function_by_name("k").unwrap();
//! let a = Analysed::new(&m, f, &Target::from_triple(m.triple.as_deref(), None));
//! let node = find_value(&m, f, "%c").unwrap();
//! let e = Explainer::new(&a).explain(node);
//! assert!(matches!(&e, Explanation::Divergent(chain) if chain.len() >= 2));
//!
//! let lines = LineIndex::new(&m.source);
//! let text = Ctx { a: &a, lines: &lines }.explanation_text(node, &e);
//! assert!(text.contains("llvm.amdgcn.workitem.id.x"));
//!
//! let dot = render(&a, &DotOptions { uniformity: true, instructions: false });
//! assert!(dot.starts_with("digraph"));
//! ```
#![warn(missing_docs)]

pub mod dot;
pub mod explain;
pub mod explore;
pub mod loc;
pub mod paths;
pub mod render;
pub mod reports;
pub mod witness;

pub use explain::{Analysed, Explainer, Explanation, Node, Reason, SourceRule, Step, UniformFact};
pub use loc::{LineIndex, Loc};
