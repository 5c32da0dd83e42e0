//! converge-transform: transforms of LLVM-text IR, the layer after the analyses. Each transform
//! plans its changes on the IR (with the CFG, cycles and the verifier's facts) and prints the
//! module back through converge-ir's module printer with the planned edits, so every part it does
//! not change prints as before.
//!
//! - [`insert_tokens`]: convergence control tokens for uncontrolled convergent code ("Convergent
//!   Operation Semantics", §"Inferring tokens"; the blog post "A New Type of Convergence Control
//!   Intrinsic?" for natural loops inside irreducible cycles).
//!
//! # Example
//!
//! A loop with a barrier gets an `entry` token, a `loop` heart and a bundle on the barrier; the
//! output passes the token verifier:
//!
//! ```
//! use converge_transform::insert_tokens::{Options, insert_tokens};
//!
//! let src = r#"
//! define void @k(i32 %n) convergent {
//! entry:
//!   br label %loop
//! loop:
//!   %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
//!   call void @barrier()
//!   %i.next = add i32 %i, 1
//!   %c = icmp slt i32 %i.next, %n
//!   br i1 %c, label %loop, label %exit
//! exit:
//!   ret void
//! }
//! declare void @barrier() convergent
//! "#;
//! let m = converge_ir::parse("k.ll", src.to_string()).unwrap();
//! let out = insert_tokens(&m, &Options::default()).unwrap();
//! assert_eq!((out.stats.functions, out.stats.hearts, out.stats.bundles), (1, 1, 1));
//! let text = out.text();
//! assert!(text.contains("call token @llvm.experimental.convergence.loop()"));
//! assert!(text.contains("call void @barrier() [ \"convergencectrl\"(token %cv.loop.loop) ]"));
//!
//! let m2 = converge_ir::parse("k2.ll", text).unwrap();
//! let flavor = converge_verify::llvm::Flavor::Llvm22;
//! assert!(converge_verify::llvm::verify_module(&m2, flavor).is_empty());
//! ```
#![warn(missing_docs)]

pub mod insert_tokens;
