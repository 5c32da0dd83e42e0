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
//! divergent; exits of cycles that already have a divergent exit; branches that can only reach
//! settled blocks). The exit sweeps of both modes visit only the blocks of a cycle with a use
//! outside it (`temporal.rs`), so deep nests stay linear. In one big irreducible region
//! every branch still reaches the whole region, so that case remains superlinear.
//!
//! The core (`ssa`, `structure`, `sync`, `analysis`) is generic: an IR implements [`SsaFunction`]
//! and a target implements [`DivergenceModel`]. The LLVM-text IR and the AMDGPU / NVPTX target models
//! live in [`llvm`]. `examples/tiny_ir.rs` implements the two traits for a toy IR that is not LLVM
//! (`cargo run -p converge-uniformity --example tiny_ir`).
//!
//! # Example
//!
//! A loop whose exit depends on the thread id: the exit branch is divergent, and `%i`, uniform
//! inside the loop, is temporally divergent at its use after the loop ("Convergence And
//! Uniformity", §Temporal Divergence at Cycle Exit):
//!
//! ```
//! use converge_uniformity::llvm::{LlvmFunction, Target};
//! use converge_uniformity::{Inst, SsaFunction, Structure, Val, analyze};
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
//!   %r = add i32 %i, 0
//!   store i32 %r, ptr addrspace(1) %out
//!   ret void
//! }
//! declare i32 @llvm.amdgcn.workitem.id.x()
//! "#;
//! let m = converge_ir::parse("k.ll", src.to_string()).unwrap();
//! let f = LlvmFunction::new(&m, m.function_by_name("k").unwrap());
//! let target = Target::from_triple(m.triple.as_deref(), None);
//! let u = analyze(&f, &target, &Structure::new(f.cfg()));
//!
//! // Instruction ids in layout order: %tid 0, br 1, %i 2, %i.next 3, %c 4, br 5, %r 6.
//! let inst = |i| Val::Inst(Inst(i));
//! assert!(!u.is_divergent(inst(2)) && !u.is_divergent(inst(3)));
//! assert!(u.is_divergent(inst(4)) && u.is_divergent(inst(6)));
//! assert_eq!(u.divergent_exit_cycles.len(), 1);
//! assert_eq!((u.temporal_divergence[0].value, u.temporal_divergence[0].user), (Inst(2), Inst(6)));
//! ```
#![warn(missing_docs)]

mod analysis;
mod cover;
#[cfg(test)]
mod join_work_tests;
mod jumps;
pub mod precise;
mod rmq;
pub mod ssa;
mod structure;
mod sync;
mod temporal;

#[doc(hidden)]
pub use analysis::{Ablation, analyze_ablated};
pub use analysis::{
    LlvmVersion, OtherHierarchy, TemporalDivergence, Uniformity, analyze, analyze_as,
};
pub use precise::{Mode, analyze_with};
pub use ssa::{Cycle, DivergenceModel, Inst, InstRange, SourceReason, SsaFunction, TokenKind, Val};
pub use structure::Structure;
pub mod llvm;
