//! Explanations computed after the fact from a [`Uniformity`](converge_uniformity::Uniformity)
//! result, so they never disagree with `converge uniformity`.
//!
//! Every divergent value gets candidate *reasons*, each with at most one *premise* (another value
//! or a branch that must itself be divergent): a divergence source of the target (no premise), data
//! dependence on a divergent operand, sync dependence (a phi at a join of a divergent branch: two
//! disjoint paths from the branch, the seeds' definition), temporal divergence (an operand defined
//! in a cycle with a divergent exit, used outside it; the premise is a divergent branch inside the
//! cycle that reaches the exit), or a cycle assumed divergent (irreducible cycle entered on diverged
//! paths). A BFS from the sources over premise → conclusion edges then picks, for every divergent
//! value, the shortest chain back to a source. Only values the analysis calls divergent get
//! reasons, so a uniform value can never receive a divergence chain.
//!
//! One concern per file: [`analysed`] holds a function with its analysis result and the join
//! queries on its CFG; [`reasons`] the vocabulary (values, reasons, facts, explanations);
//! `candidates` finds every possible reason of a divergent value, `chains` picks the shortest
//! chain among them; `sources` names the target rule that makes a value a source; `uniform` says
//! why a value is uniform; `lookup` finds values and blocks by name; `precise` adds the reasons
//! of precise mode's own rules (docs/precise-mode.md) that LLVM's reasons do not cover. Rendering is in
//! [`crate::render`].

pub mod analysed;
mod candidates;
mod chains;
#[cfg(test)]
mod fast_path_tests;
mod lookup;
mod precise;
pub mod reasons;
mod sources;
mod uniform;

pub use analysed::{Analysed, JoinWork};
pub use chains::Explainer;
pub use lookup::{find_block, find_value};
pub use reasons::{
    Explanation, JoinWitness, Node, PreciseRule, Reason, SourceRule, Step, UniformFact,
};
