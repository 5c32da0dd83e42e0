//! converge-uniformity: which values of a GPU program are uniform across the threads of a group and
//! which are divergent, as LLVM's `UniformityInfo` computes it (LLVM 22 behaviour), in near-linear
//! time per divergent branch region.
//!
//! The core (`ssa`, `structure`, `sync`, `analysis`) is generic: an IR implements [`SsaFunction`]
//! and a target implements [`DivergenceModel`]. The LLVM-text IR and the AMDGPU / NVPTX target models
//! live in [`llvm`].

mod analysis;
pub mod ssa;
mod structure;
mod sync;

pub use analysis::{LlvmVersion, TemporalDivergence, Uniformity, analyze, analyze_as};
pub use ssa::{DivergenceModel, SsaFunction, Val};
pub use structure::Structure;
pub mod llvm;
