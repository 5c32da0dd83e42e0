//! The subcommands' reports, one module per report: each turns an analysis result into the
//! readable text, LLVM's printer layout where LLVM has one, and JSON. The CLI only parses flags,
//! loads the input and calls these.
//!
//! JSON is serde-derived from the structs of each module, so the structs *are* the schema:
//! `docs/json-schema.md` describes every field, and every document carries
//! `"schema": "converge.<report>/<version>"` ([`schema`]). Documents are printed by [`json_text`]:
//! serde_json's pretty layout, keys in sorted order, a final newline, the same on every
//! subcommand. A cycle has one JSON shape everywhere ([`CycleJson`]).

pub mod check_transform;
pub mod cycles;
pub mod explain;
pub mod jsonw;
pub mod simulate;
pub mod stats;
pub mod style;
pub mod uniformity;
pub mod verify;

use converge_graph::{Block, Cycle, CycleInfo};
use converge_ir::{Function, Module};
use serde::{Deserialize, Serialize};

/// The `"schema"` value of a report: `converge.<report>/<version>`. The version grows when a field
/// changes meaning or disappears; new fields keep it.
pub fn schema(report: &str) -> String {
    format!("converge.{report}/1")
}

/// A JSON document as every subcommand prints it: keys sorted (through `serde_json::Value`), two
/// spaces of indent, a final newline.
pub fn json_text<T: Serialize + ?Sized>(doc: &T) -> String {
    let v = serde_json::to_value(doc).unwrap_or(serde_json::Value::Null);
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// A cycle, the same shape in every report: nesting depth (1 for a top-level cycle), header,
/// entries (the header first) and every block of the cycle (entries included), as raw block
/// names (`print<cycles>`'s spelling: no `%`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct CycleJson {
    /// Nesting depth in the cycle hierarchy: 1 for a top-level cycle, its parent's depth plus
    /// one for a cycle nested in another.
    pub depth: u32,
    /// The cycle's header: the entry LLVM's `CycleInfo` picks, the first entry reached by its
    /// depth-first search (a reducible cycle has only this entry).
    pub header: String,
    /// The cycle's entries (blocks of the cycle with a predecessor outside it), the header
    /// first. More than one for an irreducible cycle.
    /// Absent where the hierarchy records no entries (`simulate`'s hierarchies).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<String>,
    /// Every block of the cycle, entries included (nested cycles' blocks too).
    pub blocks: Vec<String>,
}

impl CycleJson {
    /// Cycle `c` of `ci` in function `f`.
    pub fn new(m: &Module, f: &Function, ci: &CycleInfo, c: Cycle) -> CycleJson {
        let names = |bs: &[Block]| block_names(m, f, bs.iter().copied());
        CycleJson {
            depth: ci.depth(c),
            header: m.block_name_in(f, ci.header(c)),
            entries: names(ci.entries(c)),
            blocks: names(ci.blocks(c)),
        }
    }
}

impl CycleJson {
    /// [`CycleJson::new`]'s JSON written into `w` (keys in sorted order, as [`json_text`] prints
    /// them), without building the lists of names: a cycle of a deep nest lists thousands of
    /// blocks. `buf` is scratch.
    pub fn write(
        w: &mut jsonw::JsonWriter<impl std::fmt::Write>,
        m: &Module,
        f: &Function,
        ci: &CycleInfo,
        c: Cycle,
        buf: &mut String,
    ) -> std::fmt::Result {
        w.begin_object()?;
        w.key("blocks")?;
        write_block_names(w, m, f, ci.blocks(c), buf)?;
        w.key("depth")?;
        w.uint(ci.depth(c).into())?;
        // `skip_serializing_if = "Vec::is_empty"`.
        if !ci.entries(c).is_empty() {
            w.key("entries")?;
            write_block_names(w, m, f, ci.entries(c), buf)?;
        }
        w.key("header")?;
        w.str_with(buf, |s| m.write_block_name(f, ci.header(c), s))?;
        w.end_object()
    }
}

/// [`block_names`] written into `w` as a JSON array. `buf` is scratch.
pub fn write_block_names(
    w: &mut jsonw::JsonWriter<impl std::fmt::Write>,
    m: &Module,
    f: &Function,
    bs: &[Block],
    buf: &mut String,
) -> std::fmt::Result {
    w.begin_array()?;
    for &b in bs {
        w.item()?;
        w.str_with(buf, |s| m.write_block_name(f, b, s))?;
    }
    w.end_array()
}

/// Raw names of blocks (`print<cycles>`'s spelling).
pub fn block_names(m: &Module, f: &Function, bs: impl IntoIterator<Item = Block>) -> Vec<String> {
    bs.into_iter().map(|b| m.block_name_in(f, b)).collect()
}

/// `depth=N: entries(E…) B…` for cycle `c`: LLVM's spelling, with raw block names.
pub fn cycle_line(m: &Module, f: &Function, ci: &CycleInfo, c: Cycle) -> String {
    let mut s = String::new();
    ci.write_llvm_line(&mut s, c, |b, out| m.write_block_name(f, b, out));
    s
}

/// Past this many blocks, readable text names a cycle by its depth, header, entries and size
/// instead of listing its blocks.
const BRIEF_BLOCKS: usize = 32;

/// A cycle in readable text: [`cycle_line`] for a cycle of at most `BRIEF_BLOCKS` blocks, else
/// `depth=D: header B, E entries, N blocks`. Every block names its innermost cycle, so full
/// lists made the text quadratic in a deep nest (issue 13: 1.2 GB for one 16,000-block
/// `irreducible` function in precise mode, killed at 22 GB at 64,000 blocks); `cycles` and
/// `--format llvm` still list every block, as `opt` does.
pub fn cycle_brief(m: &Module, f: &Function, ci: &CycleInfo, c: Cycle) -> String {
    let n = ci.blocks(c).len();
    if n <= BRIEF_BLOCKS {
        return cycle_line(m, f, ci, c);
    }
    let mut s = format!("depth={}: header ", ci.depth(c));
    m.write_block_name(f, ci.header(c), &mut s);
    let e = ci.entries(c).len();
    s.push_str(&format!(", {}, {n} blocks", count(e, "entry", "entries")));
    s
}

/// [`cycle_line`] as LLVM's development branch prints it (`--llvm-version main`): the entries in
/// depth-first preorder, then the cycle's other blocks in preorder.
pub fn main_cycle_line(m: &Module, f: &Function, ci: &CycleInfo, c: Cycle) -> String {
    let (entries, others) = converge_uniformity::llvm::main_print_order(ci, c);
    let mut s = String::new();
    converge_graph::write_cycle_line(&mut s, ci.depth(c), &entries, others, |b, out| {
        m.write_block_name(f, b, out)
    });
    s
}

/// `n` and the noun, plural unless `n == 1`: `1 divergent terminator`, `2 divergent terminators`.
pub fn count(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}
