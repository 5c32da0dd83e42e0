//! converge-sim: the executable dynamic semantics of "Convergence And Uniformity" and "Convergent
//! Operation Semantics".
//!
//! - [`hierarchy`]: cycle hierarchies of a CFG (LLVM's and the other DFS choices);
//! - [`instances`]: dynamic instances and the converged-with relation (maximal convergence by the
//!   header-chain characterisation, controlled convergence by token classes);
//! - [`inputs`]: kernel arguments and memory contents given by the user, and their syntax;
//! - `interp`: an interpreter of converge-ir functions for a group of threads, whose scheduler
//!   evaluates communicating operations over exactly the converged threads.
//!
//! The simulator is the oracle of the other crates: it shares facts with the analyses (what an
//! intrinsic computes), never their decisions (what is uniform), so it depends on neither
//! converge-uniformity nor converge-verify.
//!
//! # Example
//!
//! Four threads run a loop that thread `t` iterates `t + 1` times; the communicating `readfirstlane`
//! after the loop is executed by all four threads together (maximal convergence), the one inside
//! the loop only by threads of the same iteration:
//!
//! ```
//! use converge_sim::hierarchy::Hierarchy;
//! use converge_sim::interp::{Options, Program, Target, run};
//!
//! let src = r#"
//! define void @k() convergent {
//! entry:
//!   %tid = call i32 @llvm.amdgcn.workitem.id.x()
//!   br label %loop
//! loop:
//!   %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
//!   %in = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid)
//!   %i.next = add i32 %i, 1
//!   %c = icmp ult i32 %i, %tid
//!   br i1 %c, label %loop, label %exit
//! exit:
//!   %out = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid)
//!   ret void
//! }
//! declare i32 @llvm.amdgcn.workitem.id.x()
//! declare i32 @llvm.amdgcn.readfirstlane.i32(i32) convergent
//! "#;
//! let m = converge_ir::parse("k.ll", src.to_string()).unwrap();
//! let f = &m.functions[0];
//! let prog = Program::new(&m, f, Target::Amdgpu);
//! let h = Hierarchy::llvm(&prog.cfg);
//! let r = run(&prog, &h, &Options { threads: 4, ..Options::default() });
//! assert!(r.threads.iter().all(|t| !t.status.is_failure()));
//!
//! // Threads per released group, in release order: iterations 1 to 4 of the loop, then %exit.
//! let sizes: Vec<usize> = r.groups.iter().map(|g| g.threads.len()).collect();
//! assert_eq!(sizes, [4, 3, 2, 1, 4]);
//! ```
#![warn(missing_docs)]

pub mod hierarchy;
pub mod inputs;
pub mod instances;
pub mod interp;
pub mod report;
pub mod value;
