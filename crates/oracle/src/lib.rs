//! converge-oracle: checks what a uniformity analysis claims against the executable semantics.
//!
//! A value the analysis calls uniform must produce equal values on all converged dynamic instances
//! ("Convergence And Uniformity", *Uniformity*), under every cycle hierarchy of the CFG (the seed's
//! m-convergence) and for any group of threads. [`check`] runs one function in the simulator
//! (converge-sim, which never sees the analysis) under each distinct hierarchy and reports every
//! violation, together with coverage: whether the threads finished, and which claimed-uniform
//! values were actually executed by converged instances of two threads or more (only those are
//! tested). [`classify`] names the violations that reproduce a documented LLVM bug, so llvm mode
//! can excuse exactly those; [`cases`] draws the random programs of the oracle runs and adds up
//! their figures.

pub mod cases;
pub mod check;
pub mod classify;
pub mod precision;
