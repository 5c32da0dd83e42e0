//! `converge stats`'s report: functions, blocks, instructions and cycles of a module and of each
//! selected function, as readable text ([`text`]) or JSON ([`StatsReport`], schema
//! `converge.stats/1`). The counting is the caller's (it decides which functions and whether
//! cycles are computed); this module only lays the numbers out.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The JSON document (and the input of [`text`]).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct StatsReport {
    /// `converge.stats/1`.
    pub schema: String,
    /// The input's name (`<stdin>` for standard input).
    pub file: String,
    /// The module's `source_filename`; `None` (JSON null) when the module has none.
    pub source_filename: Option<String>,
    /// The module's `target triple`; `None` (JSON null) when the module has none.
    pub target_triple: Option<String>,
    /// Functions of the whole module.
    pub functions: FunctionCounts,
    /// Global variables of the module.
    pub globals: usize,
    /// Blocks of the selected functions (every defined one without `--function`).
    pub blocks: usize,
    /// Instructions of the selected functions.
    pub instructions: usize,
    /// Cycles of the selected functions, at every depth (0 when cycles were not computed).
    pub cycles: usize,
    /// Irreducible cycles (more than one entry) among [`StatsReport::cycles`].
    pub irreducible_cycles: usize,
    /// Named metadata nodes of the module (`!name = !{…}`).
    pub named_metadata: usize,
    /// One entry per selected function, in module order.
    pub per_function: Vec<FunctionStats>,
}

/// Functions of the module: all, with a body, declarations.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionCounts {
    /// All functions: `defined + declared`.
    pub total: usize,
    /// Functions with a body (`define`).
    pub defined: usize,
    /// Declarations without a body (`declare`).
    pub declared: usize,
}

/// One defined function.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct FunctionStats {
    /// The function's name, without `@`.
    pub name: String,
    /// `ccc`, or the named convention (`amdgpu_kernel`, `ptx_kernel`, …).
    pub calling_convention: String,
    /// An entry point: a kernel calling convention or listed in `!nvvm.annotations`.
    pub kernel: bool,
    /// Number of parameters.
    pub params: usize,
    /// Number of blocks.
    pub blocks: usize,
    /// Number of instructions, terminators included.
    pub instructions: usize,
    /// Cycles at every depth.
    pub cycles: usize,
    /// Cycles not nested in another cycle (depth 1).
    pub top_level_cycles: usize,
    /// Irreducible cycles (more than one entry), at every depth.
    pub irreducible_cycles: usize,
    /// The deepest cycle's depth (1 for a top-level cycle); 0 without cycles.
    pub max_cycle_depth: u32,
}

impl StatsReport {
    /// The value of [`StatsReport::schema`]: `converge.stats/1`.
    pub fn schema() -> String {
        super::schema("stats")
    }
}

/// The readable default: totals, then one line per function.
pub fn text(r: &StatsReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "module {}", r.file);
    if let Some(t) = &r.target_triple {
        let _ = writeln!(out, "  target triple   {t}");
    }
    let _ = writeln!(
        out,
        "  functions       {} ({} defined, {} declared)",
        r.functions.total, r.functions.defined, r.functions.declared
    );
    let _ = writeln!(out, "  globals         {}", r.globals);
    let _ = writeln!(out, "  blocks          {}", r.blocks);
    let _ = writeln!(out, "  instructions    {}", r.instructions);
    let _ = writeln!(
        out,
        "  cycles          {} ({} irreducible)",
        r.cycles, r.irreducible_cycles
    );
    if !r.per_function.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "  {:>7} {:>8} {:>7} {:>6}  function",
            "blocks", "insts", "cycles", "depth"
        );
        for s in &r.per_function {
            let kernel = if s.kernel { "  (kernel)" } else { "" };
            let _ = writeln!(
                out,
                "  {:>7} {:>8} {:>7} {:>6}  @{}{kernel}",
                s.blocks, s.instructions, s.cycles, s.max_cycle_depth, s.name
            );
        }
    }
    out
}
