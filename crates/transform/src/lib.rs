//! converge-transform: transforms of LLVM-text IR, the layer after the analyses. Each transform
//! plans its changes on the IR (with the CFG, cycles and the verifier's facts) and prints the
//! module back through converge-ir's module printer with the planned edits, so every part it does
//! not change prints as before.
//!
//! - [`insert_tokens`]: convergence control tokens for uncontrolled convergent code ("Convergent
//!   Operation Semantics", §"Inferring tokens"; the blog post "A New Type of Convergence Control
//!   Intrinsic?" for natural loops inside irreducible cycles).

pub mod insert_tokens;
