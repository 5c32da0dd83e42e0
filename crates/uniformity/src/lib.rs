//! converge-uniformity: which values of a GPU program are uniform across the threads of a group and
//! which are divergent, as LLVM's `UniformityInfo` computes it (LLVM 22 behaviour by default; LLVM 19
//! with [`LlvmVersion::V19`]).
//!
//! Exactness: the divergent sets, the cycles with a divergent exit and the temporal-divergence
//! triples are LLVM's. Where LLVM's own answer depends on hash or worklist order (which nested
//! cycles are also listed as assumed divergent; the exit sweep skipped for a cycle that was already
//! inside an assumed-divergent cycle at that moment) this crate is deterministic and follows a
//! LIFO worklist seeded in function order.
//!
//! Cost: value propagation is linear; each divergent branch costs the region its labels reach
//! (scratch reused, no per-branch O(V) reset), cycle queries are O(1) or O(log depth), and work
//! whose outcome is already known is skipped (joins inside a top-level cycle already assumed
//! divergent; exits of cycles that already have a divergent exit). In one big irreducible region
//! every branch still reaches the whole region, so that case remains superlinear.
//!
//! The core (`ssa`, `structure`, `sync`, `analysis`) is generic: an IR implements [`SsaFunction`]
//! and a target implements [`DivergenceModel`]. The LLVM-text IR and the AMDGPU / NVPTX target models
//! live in [`llvm`].

mod analysis;
pub mod precise;
pub mod ssa;
mod structure;
mod sync;

#[doc(hidden)]
pub use analysis::{Ablation, analyze_ablated};
pub use analysis::{LlvmVersion, TemporalDivergence, Uniformity, analyze, analyze_as};
pub use precise::{Mode, analyze_with};
pub use ssa::{DivergenceModel, SsaFunction, TokenKind, Val};
pub use structure::Structure;
pub mod llvm;
