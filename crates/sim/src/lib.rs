//! converge-sim: the executable dynamic semantics of "Convergence And Uniformity" and "Convergent
//! Operation Semantics".
//!
//! - [`hierarchy`]: cycle hierarchies of a CFG (LLVM's and the other DFS choices);
//! - [`instances`]: dynamic instances and the converged-with relation (maximal convergence by the
//!   header-chain characterisation, controlled convergence by token classes);
//! - [`inputs`]: kernel arguments and memory contents given by the user, and their syntax;
//! - `interp`: an interpreter of converge-ir functions for a group of threads, whose scheduler
//!   evaluates communicating operations over exactly the converged threads.

pub mod hierarchy;
pub mod inputs;
pub mod instances;
pub mod interp;
pub mod report;
pub mod value;
