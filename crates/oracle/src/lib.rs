//! converge-oracle: checks what a uniformity analysis claims against the executable semantics.
//!
//! A value the analysis calls uniform must produce equal values on all converged dynamic instances
//! ("Convergence And Uniformity", *Uniformity*), under every cycle hierarchy of the CFG (*m-converged Static
//! Instances*) and for any group of threads. [`check`] runs one function in the simulator
//! (converge-sim, which never sees the analysis) under each distinct hierarchy and reports every
//! violation, together with coverage: whether the threads finished, and which claimed-uniform
//! values were actually executed by converged instances of two threads or more (only those are
//! tested). [`classify`] names the violations that reproduce a documented LLVM bug, so llvm mode
//! can excuse exactly those; [`cases`] draws the random programs of the oracle runs and adds up
//! their figures.
//!
//! # Example
//!
//! LLVM's answer for a loop with a divergent exit holds in the simulator; a broken analysis that
//! calls everything uniform is caught on the thread id:
//!
//! ```
//! use converge_oracle::check::{Claims, Mode, RunSpec, check, claims, main_function};
//! use converge_uniformity::LlvmVersion;
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
//! let f = main_function(&m).unwrap();
//! let spec = RunSpec::new(4, 1);
//!
//! let llvm = check(&m, f, &claims(&m, f, Mode::Llvm(LlvmVersion::V22)), &spec);
//! assert!(llvm.finished && llvm.violations.is_empty());
//!
//! let n = m.functions[f.0 as usize].insts.len();
//! let wrong = Claims { divergent: vec![false; n], llvm: None };
//! let caught = check(&m, f, &wrong, &spec);
//! assert!(caught.violations.iter().any(|v| v.name == "%tid"));
//! ```
#![warn(missing_docs)]

pub mod cases;
pub mod check;
pub mod classify;
pub mod precision;
