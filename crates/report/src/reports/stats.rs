//! `converge stats`'s report: functions, blocks, instructions and cycles of a module and of each
//! selected function, as readable text ([`text`]) or JSON ([`StatsReport`], schema
//! `converge.stats/1`). The counting is here too ([`FunctionStats::count`], [`StatsReport::new`]),
//! so the CLI and the fuzz pipeline share it; the caller decides which functions, whether cycles
//! are computed, and how many threads count.

use super::style::{Painter, Style};
use converge_graph::{CycleInfo, Graph};
use converge_ir::{CallConv, FuncId, Module};
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

    /// The report of module `m` (named `file`) for the selected functions' counts `per_function`
    /// (from [`FunctionStats::count`], in module order): the totals of blocks, instructions and
    /// cycles are those of the selection, the function counts those of the whole module.
    pub fn new(m: &Module, file: String, per_function: Vec<FunctionStats>) -> StatsReport {
        let defined = m.func_ids().filter(|&f| !m.func(f).is_declaration).count();
        let sum = |sel: fn(&FunctionStats) -> usize| per_function.iter().map(sel).sum();
        StatsReport {
            schema: StatsReport::schema(),
            file,
            source_filename: m.source_filename.clone(),
            target_triple: m.triple.clone(),
            functions: FunctionCounts {
                total: m.functions.len(),
                defined,
                declared: m.functions.len() - defined,
            },
            globals: m.globals.len(),
            blocks: sum(|s| s.blocks),
            instructions: sum(|s| s.instructions),
            cycles: sum(|s| s.cycles),
            irreducible_cycles: sum(|s| s.irreducible_cycles),
            named_metadata: m.named_metadata.len(),
            per_function,
        }
    }
}

impl FunctionStats {
    /// The counts of defined function `f`; cycles (LLVM's `CycleInfo`) only when `with_cycles`
    /// (0 otherwise). `nvvm_kernels` is [`Module::nvvm_kernels`], computed once by the caller
    /// (it scans the module's metadata).
    pub fn count(m: &Module, f: FuncId, with_cycles: bool, nvvm_kernels: &[FuncId]) -> Self {
        let func = m.func(f);
        let mut s = FunctionStats {
            name: m.str(func.name).to_string(),
            calling_convention: match func.cc {
                CallConv::C => "ccc".to_string(),
                CallConv::Named(n) => m.str(n).to_string(),
            },
            kernel: nvvm_kernels.contains(&f)
                || matches!(func.cc, CallConv::Named(n)
                    if matches!(m.str(n), "amdgpu_kernel" | "ptx_kernel" | "spir_kernel")),
            params: func.params.len(),
            blocks: func.num_blocks(),
            instructions: func.num_insts(),
            cycles: 0,
            top_level_cycles: 0,
            irreducible_cycles: 0,
            max_cycle_depth: 0,
        };
        let cfg = if with_cycles { Some(func.cfg()) } else { None };
        if let Some(cfg) = cfg.filter(|c| c.num_blocks() > 0) {
            let ci = CycleInfo::new(&cfg);
            s.cycles = ci.len();
            s.top_level_cycles = ci.num_top_level();
            for c in ci.cycles() {
                s.irreducible_cycles += usize::from(!ci.is_reducible(c));
                s.max_cycle_depth = s.max_cycle_depth.max(ci.depth(c));
            }
        }
        s
    }
}

/// The readable default: totals, then one line per function.
pub fn text(r: &StatsReport) -> String {
    text_painted(r, Painter::PLAIN)
}

/// [`text`] with the headline and the table's header in bold when `p` colours (`--color`).
pub fn text_painted(r: &StatsReport, p: Painter) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        p.paint(Style::Bold, &format!("module {}", r.file))
    );
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
        let header = format!(
            "  {:>7} {:>8} {:>7} {:>6}  function",
            "blocks", "insts", "cycles", "depth"
        );
        let _ = writeln!(out, "{}", p.paint(Style::Bold, &header));
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
