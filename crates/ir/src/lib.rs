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
//! parsed but kept as its name). Type checking is structural only: ill-typed operands that LLVM
//! rejects may be accepted.

pub mod ir;
pub use ir::*;
pub mod diag;
pub mod intrinsics;
pub mod memspace;
pub use diag::Diagnostic;
mod api;
mod check;
mod fx;
mod lexer;
mod parser;
pub mod print;
mod wellformed;

/// Reads a module from LLVM textual IR. `source_name` is used in diagnostics.
///
/// Errors carry the location of the first problem; `Diagnostic::render` shows it with an excerpt.
pub fn parse(source_name: &str, source: String) -> Result<Module, Diagnostic> {
    let mut m = parser::parse_source(source_name, &source, None).map_err(|d| *d)?;
    m.source = source;
    Ok(m)
}

/// Like [`parse`], but an error comes back already rendered (`Diagnostic::render` with the source
/// text), so callers need not keep a second copy of a large source around just for the message.
pub fn parse_rendered(source_name: &str, source: String) -> Result<Module, String> {
    parse_rendered_with(source_name, source, None)
}

/// [`parse_rendered`] with the reader chosen as in [`parse_with`] (`Some(false)`: one thread).
pub fn parse_rendered_with(
    source_name: &str,
    source: String,
    parallel: Option<bool>,
) -> Result<Module, String> {
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
    source: String,
    parallel: Option<bool>,
) -> Result<Module, Diagnostic> {
    let mut m = parser::parse_source(source_name, &source, parallel).map_err(|d| *d)?;
    m.source = source;
    Ok(m)
}

/// The well-formedness checks every read makes (operand types, definitions dominating uses, phi
/// incomings matching predecessors; see the `wellformed` module), on an already read module: the
/// first violation. For timing the checks apart from the reader.
#[doc(hidden)]
pub fn check_wellformed(m: &Module) -> Result<(), Box<Diagnostic>> {
    wellformed::check_module(m)
}

/// How many reads so far merged two threads' results (the others read sequentially). For tests.
#[doc(hidden)]
pub fn parallel_merges() -> usize {
    parser::MERGED.load(std::sync::atomic::Ordering::Relaxed)
}
