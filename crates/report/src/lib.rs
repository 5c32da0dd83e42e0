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
