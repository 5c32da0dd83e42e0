//! `converge cycles`'s report: each function's cycle hierarchy (LLVM's `CycleInfo`) as readable
//! text ([`text`]), `opt -passes='print<cycles>'`'s layout ([`llvm`]) or JSON ([`CyclesReport`],
//! schema `converge.cycles/1`).

use super::style::{Painter, Style};
use super::{CycleJson, block_names};
use converge_graph::{Block, Cfg, Cycle, CycleInfo, Graph};
use converge_ir::{FuncId, Module};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The JSON document.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CyclesReport {
    /// `converge.cycles/1`.
    pub schema: String,
    /// The input's name (`<stdin>` for standard input).
    pub file: String,
    /// One entry per selected function, in module order.
    pub functions: Vec<FunctionCycles>,
}

impl CyclesReport {
    /// The document for input `file` (its name as shown) with `functions`, schema filled in.
    pub fn new(file: String, functions: Vec<FunctionCycles>) -> CyclesReport {
        CyclesReport {
            schema: super::schema("cycles"),
            file,
            functions,
        }
    }
}

/// One function's cycles.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct FunctionCycles {
    /// The function's name, without `@`.
    pub name: String,
    /// Number of blocks of the function.
    pub blocks: usize,
    /// The function's cycles in preorder of the cycle hierarchy (LLVM's order); empty without
    /// cycles.
    pub cycles: Vec<CycleDetail>,
}

/// A cycle with its place in the hierarchy and its exits.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct CycleDetail {
    /// Depth, header, entries, blocks: the shape of a cycle in every report.
    #[serde(flatten)]
    pub cycle: CycleJson,
    /// Index of the cycle in [`FunctionCycles::cycles`] (preorder of the hierarchy).
    pub id: u32,
    /// The enclosing cycle's `id`, null for a top-level cycle.
    pub parent: Option<u32>,
    /// The `id`s of the cycles directly inside this one (depth one more).
    pub children: Vec<u32>,
    /// The cycle has one entry, its header (a natural loop); false for an irreducible cycle.
    pub reducible: bool,
    /// Blocks outside the cycle with a predecessor inside, in LLVM's order.
    pub exits: Vec<String>,
    /// Blocks inside the cycle with a successor outside.
    pub exiting: Vec<String>,
}

/// `print<cycles>` for one function.
///
/// With `main`, in the block order of LLVM's development branch (`--llvm-version main`).
/// [`write_llvm`] into a `String`.
pub fn llvm(m: &Module, fid: FuncId, ci: &CycleInfo, main: bool) -> String {
    let mut s = String::new();
    let _ = write_llvm(&mut s, m, fid, ci, main);
    s
}

/// [`llvm`] written to `out` a cycle at a time: each cycle lists all its blocks, so a nest
/// thousands deep prints a quadratic amount that need not fit in memory. Stops at the first
/// error of `out` (a closed pipe).
pub fn write_llvm(
    out: &mut impl std::fmt::Write,
    m: &Module,
    fid: FuncId,
    ci: &CycleInfo,
    main: bool,
) -> std::fmt::Result {
    let f = m.func(fid);
    out.write_str("CycleInfo for function: ")?;
    out.write_str(m.str(f.name))?;
    out.write_char('\n')?;
    let mut line = String::new();
    for c in ci.cycles() {
        line.clear();
        // `CycleInfo::print_llvm`'s layout, a line at a time.
        for _ in 0..ci.depth(c) {
            line.push_str("    ");
        }
        if main {
            line.push_str(&super::main_cycle_line(m, f, ci, c));
        } else {
            ci.write_llvm_line(&mut line, c, |b, o| m.write_block_name(f, b, o));
        }
        line.push('\n');
        out.write_str(&line)?;
    }
    Ok(())
}

/// About how many bytes [`llvm`] (`text`: [`text`]) prints for `ci`: a block name per block of
/// each cycle and the indent. The CLI renders a function whose estimate is large straight into
/// its output instead of a buffer.
pub fn size_hint(ci: &CycleInfo, text: bool) -> u64 {
    // A name with its separator (text names are `%`-prefixed operands), a line's fixed part.
    let (name, line) = if text { (10, 200) } else { (8, 24) };
    64 + ci
        .cycles()
        .map(|c| {
            // Text lists each cycle's blocks, exits and exiting blocks: at most twice its blocks.
            let listed = ci.blocks(c).len() as u64 * if text { 2 } else { 1 };
            line + name * listed + 4 * ci.depth(c) as u64 + 8 * ci.children(c).len() as u64
        })
        .sum::<u64>()
}

/// One function as JSON, built whole: the reference [`write_json`] matches byte for byte
/// (through [`super::json_text`]); tests and library callers use it.
pub fn json(m: &Module, fid: FuncId, cfg: &Cfg, ci: &CycleInfo) -> FunctionCycles {
    let f = m.func(fid);
    let cycles = ci
        .cycles()
        .map(|c| CycleDetail {
            cycle: CycleJson::new(m, f, ci, c),
            id: c.0,
            parent: ci.parent(c).map(|p| p.0),
            children: ci.children(c).iter().map(|ch| ch.0).collect(),
            reducible: ci.is_reducible(c),
            exits: block_names(m, f, ci.exit_blocks(cfg, c)),
            exiting: block_names(m, f, ci.exiting_blocks(cfg, c)),
        })
        .collect();
    FunctionCycles {
        name: m.str(f.name).to_string(),
        blocks: f.blocks.len(),
        cycles,
    }
}

/// [`CyclesReport`]'s JSON for input `file`, streamed: [`write_json_head`], each function
/// through [`super::jsonw::ListDocument::element`] and [`write_json`], then [`write_json_tail`];
/// the bytes [`super::json_text`] prints for the whole report.
pub fn write_json_head(out: impl std::fmt::Write, file: &str) -> std::fmt::Result {
    let schema = super::schema("cycles");
    frame(&[("file", file)], &[("schema", &schema)]).head(out)
}

/// The end of [`CyclesReport`]'s JSON after `count` functions (see [`write_json_head`]).
pub fn write_json_tail(out: impl std::fmt::Write, count: usize) -> std::fmt::Result {
    let schema = super::schema("cycles");
    frame(&[], &[("schema", &schema)]).tail(out, count)
}

/// The keys around `functions`, in sorted order.
fn frame<'a>(
    before: &'a [(&'a str, &'a str)],
    after: &'a [(&'a str, &'a str)],
) -> super::jsonw::ListDocument<'a> {
    super::jsonw::ListDocument {
        before,
        list: "functions",
        after,
    }
}

/// [`json`] written into `w` as it is rendered, keys in sorted order (a [`CycleDetail`]'s
/// flattened [`CycleJson`] keys among its own), the bytes [`super::json_text`] prints for the
/// [`FunctionCycles`]: every cycle lists its blocks, quadratic in a deep nest (337 MB for an
/// 8,000-block nest), so the function is never built as a value. Stops at the first error of
/// `w`'s sink.
pub fn write_json(
    w: &mut super::jsonw::JsonWriter<impl std::fmt::Write>,
    m: &Module,
    fid: FuncId,
    cfg: &Cfg,
    ci: &CycleInfo,
) -> std::fmt::Result {
    let f = m.func(fid);
    let mut buf = String::new();
    let (mut seen, mut exits) = (Vec::new(), Vec::new());
    w.begin_object()?;
    w.key("blocks")?;
    w.uint(f.blocks.len() as u64)?;
    w.key("cycles")?;
    w.begin_array()?;
    for c in ci.cycles() {
        w.item()?;
        w.begin_object()?;
        w.key("blocks")?;
        super::write_block_names(w, m, f, ci.blocks(c), &mut buf)?;
        w.key("children")?;
        w.begin_array()?;
        for ch in ci.children(c) {
            w.item()?;
            w.uint(ch.0.into())?;
        }
        w.end_array()?;
        w.key("depth")?;
        w.uint(ci.depth(c).into())?;
        if !ci.entries(c).is_empty() {
            w.key("entries")?;
            super::write_block_names(w, m, f, ci.entries(c), &mut buf)?;
        }
        w.key("exiting")?;
        super::write_block_names(w, m, f, &ci.exiting_blocks(cfg, c), &mut buf)?;
        w.key("exits")?;
        ci.exit_blocks_into(cfg, c, &mut seen, &mut exits);
        super::write_block_names(w, m, f, &exits, &mut buf)?;
        w.key("header")?;
        w.str_with(&mut buf, |s| m.write_block_name(f, ci.header(c), s))?;
        w.key("id")?;
        w.uint(c.0.into())?;
        w.key("parent")?;
        match ci.parent(c) {
            Some(p) => w.uint(p.0.into())?,
            None => w.null()?,
        }
        w.key("reducible")?;
        w.bool(ci.is_reducible(c))?;
        w.end_object()?;
    }
    w.end_array()?;
    w.key("name")?;
    w.str(m.str(f.name))?;
    w.end_object()
}

/// About how many bytes [`write_json`] prints for `ci` (see [`size_hint`]): a line per block of
/// each cycle, its entries, exits and exiting blocks (at most twice its blocks).
pub fn json_size_hint(ci: &CycleInfo) -> u64 {
    // An indented, quoted name with its comma and line break; a cycle's fixed lines.
    const NAME: u64 = 24;
    const CYCLE: u64 = 320;
    256 + ci
        .cycles()
        .map(|c| {
            let listed = (3 * ci.blocks(c).len() + ci.entries(c).len()) as u64;
            CYCLE + NAME * listed + 16 * ci.children(c).len() as u64
        })
        .sum::<u64>()
}

/// The readable default: one paragraph per cycle, indented by depth. [`write_text`] into a
/// `String`.
pub fn text(m: &Module, fid: FuncId, cfg: &Cfg, ci: &CycleInfo, p: Painter) -> String {
    let mut s = String::new();
    let _ = write_text(&mut s, m, fid, cfg, ci, p);
    s
}

/// [`text`] written to `out` a cycle at a time (see [`write_llvm`]). Linear in the text: each
/// name is appended in place (no string per block), exits are found with a mark per block
/// instead of a sort (issue 13: a name per block and a sort per cycle made `cycles` spend
/// 117 instructions per byte printed, over 300 s for a 64,000-block irreducible region).
pub fn write_text(
    out: &mut impl std::fmt::Write,
    m: &Module,
    fid: FuncId,
    cfg: &Cfg,
    ci: &CycleInfo,
    p: Painter,
) -> std::fmt::Result {
    let f = m.func(fid);
    let names = |s: &mut String, bs: &[Block]| {
        for (k, &b) in bs.iter().enumerate() {
            if k > 0 {
                s.push(' ');
            }
            m.write_block_operand(f, b, s);
        }
    };
    let mut s = String::new();
    let irreducible = ci.cycles().filter(|&c| !ci.is_reducible(c)).count();
    let max_depth = ci.cycles().map(|c| ci.depth(c)).max().unwrap_or(0);
    let _ = write!(
        s,
        "{}: ",
        p.paint(Style::Bold, &format!("function @{}", m.str(f.name)))
    );
    match ci.len() {
        0 => s.push_str("no cycles\n"),
        n => {
            let _ = writeln!(
                s,
                "{n} cycle{} ({irreducible} irreducible), nesting depth {max_depth}",
                if n == 1 { "" } else { "s" }
            );
        }
    }
    out.write_str(&s)?;
    let (mut seen, mut exits, mut exiting) = (Vec::new(), Vec::new(), Vec::new());
    let mut indent = String::new();
    for c in ci.cycles() {
        s.clear();
        indent.clear();
        for _ in 0..ci.depth(c) {
            indent.push_str("  ");
        }
        let kind = if ci.is_reducible(c) {
            "reducible".to_string()
        } else {
            p.paint(Style::Warn, "irreducible")
        };
        let _ = write!(
            s,
            "{indent}cycle #{} (depth {}, {kind}) header ",
            c.0,
            ci.depth(c)
        );
        m.write_block_operand(f, ci.header(c), &mut s);
        s.push('\n');
        if !ci.is_reducible(c) {
            let _ = write!(s, "{indent}  entries: ");
            names(&mut s, ci.entries(c));
            s.push('\n');
        }
        let _ = write!(s, "{indent}  blocks ({}): ", ci.blocks(c).len());
        names(&mut s, ci.blocks(c));
        s.push('\n');
        ci.exit_blocks_into(cfg, c, &mut seen, &mut exits);
        let _ = write!(s, "{indent}  exits: ");
        if exits.is_empty() {
            s.push_str("none (the cycle never terminates)");
        } else {
            names(&mut s, &exits);
            s.push_str("  (exiting: ");
            exiting.clear();
            exiting.extend(
                ci.blocks(c)
                    .iter()
                    .copied()
                    .filter(|&b| cfg.succs(b).iter().any(|&x| !ci.contains(c, x))),
            );
            names(&mut s, &exiting);
            s.push(')');
        }
        s.push('\n');
        if let Some(par) = ci.parent(c) {
            let _ = writeln!(s, "{indent}  parent: #{}", par.0);
        }
        let kids: &[Cycle] = ci.children(c);
        if !kids.is_empty() {
            let _ = write!(s, "{indent}  children:");
            for k in kids {
                let _ = write!(s, " #{}", k.0);
            }
            s.push('\n');
        }
        out.write_str(&s)?;
    }
    Ok(())
}
