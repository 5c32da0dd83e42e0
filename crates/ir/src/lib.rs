//! LLVM textual IR, read into an arena IR.
//!
//! Data flow: source text → [`parse`] → [`Module`] (functions with flat instruction, operand and
//! block-reference pools, `u32` indices everywhere, a source [`Span`] on every item). The analyses do
//! not see this crate directly: they go through small traits (`converge_graph::Graph`, the SSA trait of
//! `converge-uniformity`, …), and this crate provides the implementations.
//!
//! Modules: `lexer` (byte-level tokens, no allocation), `parser` (recursive descent after LLVM's
//! `LLParser`, forward references patched per function and per module; modules of 4 MiB and more are
//! read on two threads with the same result, see `parser/parallel.rs`), `api` (CFG, names, call
//! and type queries on [`Module`], [`Function`], [`Types`]), [`print`](mod@print) (operand names, types,
//! constants and instruction text as LLVM prints them), [`intrinsics`] (which intrinsics LLVM's table marks
//! `convergent`, whatever a declaration says).
//!
//! Accepted language: LLVM 19-22 textual IR with opaque pointers (typed pointers `T*` read as
//! `ptr`, as LLVM 17+ does). Not modelled: `uselistorder` directives (skipped; predecessor order
//! follows the text), summary entries `^N` (skipped), debug records `#dbg_*` (skipped, not
//! instructions, as in LLVM), the operands of specialised metadata nodes (`!DILocation(...)` is
//! parsed but kept as its name). Every read also checks the rules of LLVM's verifier that the
//! answers depend on (`wellformed`: operand types of locals, definitions dominating uses, phi
//! incomings matching predecessors, phis first, no branch to the entry block); other verifier rules
//! are not checked, so some modules LLVM rejects are still accepted.
//!
//! # Example
//!
//! Read a kernel, walk its blocks and calls, and hand its CFG to converge-graph:
//!
//! ```
//! use converge_graph::{CycleInfo, Graph};
//!
//! let src = r#"
//! define amdgpu_kernel void @k(i32 %n) {
//! entry:
//!   %tid = call i32 @llvm.amdgcn.workitem.id.x()
//!   br label %loop
//! loop:
//!   %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
//!   %i.next = add i32 %i, %tid
//!   %c = icmp slt i32 %i.next, %n
//!   br i1 %c, label %loop, label %exit
//! exit:
//!   ret void
//! }
//! declare i32 @llvm.amdgcn.workitem.id.x()
//! "#;
//! let m = converge_ir::parse("k.ll", src.to_string()).unwrap();
//! let k = m.function_by_name("k").unwrap();
//! let f = m.func(k);
//! assert_eq!((f.num_blocks(), f.num_insts()), (3, 7));
//! let first = f.block_insts(converge_graph::Block(0)).next().unwrap();
//! assert_eq!(m.callee_name(k, first), Some("llvm.amdgcn.workitem.id.x"));
//!
//! let cfg = f.cfg();
//! assert_eq!(cfg.succs(converge_graph::Block(1)).len(), 2);
//! assert_eq!(CycleInfo::new(&cfg).len(), 1);
//!
//! // Bad input is a located error, never a panic.
//! let bad = "define void @f() {\n  ret i32\n}\n";
//! let err = converge_ir::parse("bad.ll", bad.to_string()).unwrap_err();
//! let text = err.render("bad.ll", bad);
//! assert!(text.starts_with("error") && text.contains("--> bad.ll:3:1"));
//! ```
#![warn(missing_docs)]

pub mod ir;
pub use ir::*;
pub mod diag;
pub mod intrinsics;
pub mod memspace;
mod source;
pub use diag::Diagnostic;
pub use source::Source;
mod api;
mod check;
mod fx;
pub mod layout;
mod lexer;
mod parser;
pub mod print;
mod wellformed;

/// Reads a module from LLVM textual IR. `source_name` is used in diagnostics.
///
/// Errors carry the location of the first problem; `Diagnostic::render` shows it with an excerpt.
pub fn parse(source_name: &str, source: impl Into<Source>) -> Result<Module, Diagnostic> {
    let source = source.into();
    let mut m = parser::parse_source(source_name, &source, None).map_err(|d| *d)?;
    m.source = source;
    Ok(m)
}

/// Like [`parse`], but an error comes back already rendered (`Diagnostic::render` with the source
/// text), so callers need not keep a second copy of a large source around just for the message.
pub fn parse_rendered(source_name: &str, source: impl Into<Source>) -> Result<Module, String> {
    parse_rendered_with(source_name, source, None)
}

/// [`parse_rendered`] with the reader chosen as in [`parse_with`] (`Some(false)`: one thread).
pub fn parse_rendered_with(
    source_name: &str,
    source: impl Into<Source>,
    parallel: Option<bool>,
) -> Result<Module, String> {
    let source = source.into();
    let r = parser::parse_source(source_name, &source, parallel);
    match r {
        Ok(mut m) => {
            m.source = source;
            Ok(m)
        }
        Err(d) => Err(d.render(source_name, &source)),
    }
}

/// [`parse`] with the reader chosen: `Some(true)` forces the two-thread reader at any size,
/// `Some(false)` the sequential one, `None` picks by size as [`parse`] does. The result (module or
/// first error) is the same either way; tests compare the two.
#[doc(hidden)]
pub fn parse_with(
    source_name: &str,
    source: impl Into<Source>,
    parallel: Option<bool>,
) -> Result<Module, Diagnostic> {
    let source = source.into();
    let mut m = parser::parse_source(source_name, &source, parallel).map_err(|d| *d)?;
    m.source = source;
    Ok(m)
}

/// The well-formedness checks every read makes (operand types, definitions dominating uses, phi
/// incomings matching predecessors; see the `wellformed` module), on an already read module: the
/// first violation. For timing the checks apart from the reader.
#[doc(hidden)]
pub fn check_wellformed(m: &Module) -> Result<(), Box<Diagnostic>> {
    wellformed::check_module(m, &[], &[], false)
}

/// How many reads so far merged two threads' results (the others read sequentially). For tests.
#[doc(hidden)]
pub fn parallel_merges() -> usize {
    parser::MERGED.load(std::sync::atomic::Ordering::Relaxed)
}
