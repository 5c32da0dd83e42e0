//! Random program generators and the plumbing to run the reference LLVM tools.
//!
//! The generators emit LLVM textual IR so the same program can be fed to `converge` and to `opt`.

pub mod cfg;
pub mod clang_kernels;
pub mod convergent;
pub mod kernels;
pub mod module;
pub mod oracle;
pub mod program;
pub mod reference;
pub mod rng;
pub mod tokens;
