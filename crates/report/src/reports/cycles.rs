//! `converge cycles`'s report: each function's cycle hierarchy (LLVM's `CycleInfo`) as readable
//! text ([`text`]), `opt -passes='print<cycles>'`'s layout ([`llvm`]) or JSON ([`CyclesReport`],
//! schema `converge.cycles/1`).

use super::style::{Painter, Style};
use super::{CycleJson, block_names};
use converge_graph::{Block, Cfg, Cycle, CycleInfo};
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
pub fn llvm(m: &Module, fid: FuncId, ci: &CycleInfo, main: bool) -> String {
    let f = m.func(fid);
    let mut s = String::new();
    s.push_str("CycleInfo for function: ");
    s.push_str(m.str(f.name));
    s.push('\n');
    if main {
        for c in ci.cycles() {
            s.push_str(&"    ".repeat(ci.depth(c) as usize));
            s.push_str(&super::main_cycle_line(m, f, ci, c));
            s.push('\n');
        }
        return s;
    }
    ci.print_llvm(&mut s, |b, out| m.write_block_name(f, b, out));
    s
}

/// One function as JSON.
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

/// The readable default: one paragraph per cycle, indented by depth.
pub fn text(m: &Module, fid: FuncId, cfg: &Cfg, ci: &CycleInfo, p: Painter) -> String {
    let f = m.func(fid);
    let names = |bs: &[Block]| -> String {
        bs.iter()
            .map(|&b| m.block_operand(fid, b))
            .collect::<Vec<_>>()
            .join(" ")
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
    for c in ci.cycles() {
        let indent = "  ".repeat(ci.depth(c) as usize);
        let kind = if ci.is_reducible(c) {
            "reducible".to_string()
        } else {
            p.paint(Style::Warn, "irreducible")
        };
        let _ = writeln!(
            s,
            "{indent}cycle #{} (depth {}, {kind}) header {}",
            c.0,
            ci.depth(c),
            m.block_operand(fid, ci.header(c))
        );
        if !ci.is_reducible(c) {
            let _ = writeln!(s, "{indent}  entries: {}", names(ci.entries(c)));
        }
        let _ = writeln!(
            s,
            "{indent}  blocks ({}): {}",
            ci.blocks(c).len(),
            names(ci.blocks(c))
        );
        let exits = ci.exit_blocks(cfg, c);
        let _ = writeln!(
            s,
            "{indent}  exits: {}",
            if exits.is_empty() {
                "none (the cycle never terminates)".to_string()
            } else {
                format!(
                    "{}  (exiting: {})",
                    names(&exits),
                    names(&ci.exiting_blocks(cfg, c))
                )
            }
        );
        if let Some(par) = ci.parent(c) {
            let _ = writeln!(s, "{indent}  parent: #{}", par.0);
        }
        let kids: &[Cycle] = ci.children(c);
        if !kids.is_empty() {
            let k: Vec<String> = kids.iter().map(|k| format!("#{}", k.0)).collect();
            let _ = writeln!(s, "{indent}  children: {}", k.join(" "));
        }
    }
    s
}
