//! Whole modules printed back: every function body (block labels, instructions, debug records)
//! printed from the IR by the instruction writer, everything outside the bodies (globals,
//! declarations, function headers, attribute groups, metadata) kept as the source wrote it.
//! Instructions use the source's own `#N`/`!N` numbers so they fit the unchanged definitions.
//!
//! Transforms print through [`BodyEdits`]: lines inserted before an instruction, an operand bundle
//! added to a call, and new preheader blocks (a block before a header that the header's entering
//! edges go through; header phis get one entry from it, merged by phis in the preheader when
//! several predecessors enter); the rest of the module is printed exactly as without edits. The
//! round-trip test (`crates/ir/tests/roundtrip.rs`) checks, against `opt`, that this printing loses
//! nothing: `opt -S` of the printed text equals `opt -S` of the source.

use super::writer::{InstEdit, PhiMerge};
use crate::lexer::{Lexer, Tok};
use crate::*;
use converge_graph::{Block, Graph};

/// A new block inserted before `header`; the edges from `preds` to the header go through it.
#[derive(Clone, Debug, Default)]
pub struct Preheader {
    /// The cycle header the new block is inserted before.
    pub header: Block,
    /// The new block's label as printed (without `%`; a bare name).
    pub label: String,
    /// The distinct predecessors whose edges to the header are redirected (outside the cycle).
    pub preds: Vec<Block>,
    /// Per phi of the header, in order: the name (bare, without `%`) of the phi that merges its
    /// values in the preheader. Used only when `preds` has more than one block.
    pub phi_names: Vec<String>,
    /// Whole lines (`"  ...\n"`) printed in the new block before its branch to the header.
    pub lines: String,
}

/// Changes a transform makes while a module is printed (see the module comment).
pub trait BodyEdits: Sync {
    /// Appends whole lines (each `"  ...\n"`) to print before instruction `i` of `f`.
    fn before_inst(&self, _f: FuncId, _i: InstId, _out: &mut String) {}
    /// An operand bundle (`"convergencectrl"(token %t)`) to add to call `i` of `f`.
    fn extra_bundle(&self, _f: FuncId, _i: InstId) -> Option<&str> {
        None
    }
    /// A function attribute to add to call `i` of `f` (`convergent`).
    fn extra_fn_attr(&self, _f: FuncId, _i: InstId) -> Option<&str> {
        None
    }
    /// New preheader blocks of `f`.
    fn preheaders(&self, _f: FuncId) -> &[Preheader] {
        &[]
    }
    /// Edges (from a block unreachable from the entry, to) redirected to one new block ending in
    /// `unreachable`, with that block's label; phis of the targets drop the edges' entries.
    fn dead_edges(&self, _f: FuncId) -> (&str, &[(Block, Block)]) {
        ("", &[])
    }
}

/// No edits: the module printed back as it is.
pub struct NoEdits;

impl BodyEdits for NoEdits {}

impl Module {
    /// The module printed back (see the module comment).
    pub fn print_module(&self) -> String {
        self.print_module_with(&NoEdits, 0)
    }

    /// The module printed back with a transform's edits. Function bodies are printed on
    /// `threads` threads (0: one per core; 1: this thread only); the text is the same for any.
    pub fn print_module_with(&self, edits: &dyn BodyEdits, threads: usize) -> String {
        self.print_module_chunks(edits, threads).concat()
    }

    /// [`Module::print_module_with`] as consecutive pieces (one per printing thread) whose
    /// concatenation is the module: a large module can be written out without one more copy.
    pub fn print_module_chunks(&self, edits: &dyn BodyEdits, threads: usize) -> Vec<String> {
        let src = self.source.as_str();
        let mut defs: Vec<FuncId> = self
            .func_ids()
            .filter(|&f| {
                let func = self.func(f);
                !func.is_declaration && !func.blocks.is_empty()
            })
            .collect();
        defs.sort_by_key(|&f| self.func(f).span.start);
        let records = src.contains("#dbg_");
        let threads = match threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
        .clamp(1, defs.len().max(1));
        let size = |f: FuncId| {
            let sp = self.func(f).span;
            sp.end.saturating_sub(sp.start) as usize
        };
        // Contiguous runs of functions of about equal source size, one per thread.
        let total: usize = defs.iter().map(|&f| size(f)).sum();
        let mut runs: Vec<&[FuncId]> = Vec::with_capacity(threads);
        let (mut start, mut acc) = (0, 0);
        for (k, &f) in defs.iter().enumerate() {
            acc += size(f);
            if acc * threads >= total * (runs.len() + 1) && runs.len() + 1 < threads {
                runs.push(&defs[start..=k]);
                start = k + 1;
            }
        }
        runs.push(&defs[start..]);
        // Run k starts where run k-1's last function ends; the last run takes the module's tail.
        let starts: Vec<usize> = runs
            .iter()
            .scan(0usize, |pos, r| {
                let here = *pos;
                if let Some(&last) = r.last() {
                    *pos = (*pos).max(self.func(last).span.end as usize);
                }
                Some(here)
            })
            .collect();
        let nruns = runs.len();
        let print_run = |k: usize| -> String {
            let run = runs[k];
            let bytes: usize = run.iter().map(|&f| size(f)).sum();
            let mut out = String::with_capacity(bytes * 5 / 4 + 256);
            let mut pos = starts[k];
            for &f in run {
                let func = self.func(f);
                let open = self.body_open(func);
                if open < pos {
                    continue;
                }
                out.push_str(&src[pos..open]);
                out.push('\n');
                self.write_body(&mut out, f, edits, records);
                out.push('}');
                pos = func.span.end as usize;
            }
            if k + 1 == nruns {
                out.push_str(&src[pos..]);
            }
            out
        };
        if nruns == 1 {
            vec![print_run(0)]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..nruns).map(|k| s.spawn(move || print_run(k))).collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("printing thread"))
                    .collect()
            })
        }
    }

    /// The offset just after the `{` that opens a definition's body.
    fn body_open(&self, func: &Function) -> usize {
        let start = func.span.start as usize;
        let first = func.block_span(Block(0)).start as usize;
        let b = &self.source.as_bytes()[start..first];
        let mut lex = Lexer::new(b);
        let mut open = first;
        loop {
            let t = lex.next();
            match t.kind {
                Tok::Eof | Tok::Error => break,
                Tok::LBrace => open = start + t.end as usize,
                _ => {}
            }
        }
        open
    }

    fn write_body(&self, out: &mut String, f: FuncId, edits: &dyn BodyEdits, records: bool) {
        let func = self.func(f);
        let src = self.source.as_str();
        let pre = edits.preheaders(f);
        let (dead_label, dead) = edits.dead_edges(f);
        let mut dropped: Vec<Block> = Vec::new();
        let mut retarget: Vec<(Block, &str)> = Vec::new();
        let cfg = func.cfg();
        for (bi, b) in func.blocks.iter().enumerate() {
            if bi > 0 {
                out.push('\n');
            }
            let this = Block(bi as u32);
            let header_of = pre.iter().find(|p| p.header == this);
            if let Some(p) = header_of {
                self.write_preheader(out, f, p, cfg.preds(this));
            }
            let line_start = out.len();
            match b.name() {
                LocalName::Named(s) => {
                    let name = super::sigil_name('%', self.str(s));
                    out.push_str(&name[1..]);
                    out.push(':');
                }
                LocalName::Slot(k) if bi > 0 => {
                    out.push_str(&k.to_string());
                    out.push(':');
                }
                _ => {}
            }
            if bi > 0 {
                // LLVM's comment with the predecessors (use-list order), from column 50.
                let preds: Vec<String> = match header_of {
                    None => cfg
                        .preds(this)
                        .iter()
                        .filter(|&&p| !dead.contains(&(p, this)))
                        .map(|&p| self.block_operand(f, p))
                        .collect(),
                    Some(h) => {
                        // Use-list order of the printed text: sources in reverse textual order,
                        // and the preheader sits just before the header.
                        let mut v = Vec::new();
                        let mut placed = false;
                        for &p in cfg.preds(this) {
                            if dead.contains(&(p, this)) || h.preds.contains(&p) {
                                continue;
                            }
                            if !placed && p.0 < this.0 {
                                placed = true;
                                v.push(format!("%{}", h.label));
                            }
                            v.push(self.block_operand(f, p));
                        }
                        if !placed {
                            v.push(format!("%{}", h.label));
                        }
                        v
                    }
                };
                write_preds_comment(out, line_start, &preds);
            }
            if out.len() > line_start {
                out.push('\n');
            }
            dropped.clear();
            dropped.extend(dead.iter().filter(|e| e.1 == this).map(|e| e.0));
            let mut prev_end = b.span_start as usize;
            let insts = func.block_range(this);
            for i in insts.start..insts.end {
                let inst = &func.insts[i as usize];
                let id = InstId(i);
                let span = func.inst_span(id);
                if records {
                    let gap = src.get(prev_end..span.start as usize).unwrap_or("");
                    if gap.contains("#dbg_") {
                        for line in gap.lines() {
                            let l = line.trim();
                            if l.starts_with("#dbg_") {
                                out.push_str("    ");
                                out.push_str(l);
                                out.push('\n');
                            }
                        }
                    }
                }
                prev_end = span.end as usize;
                edits.before_inst(f, id, out);
                retarget.clear();
                if inst.op.is_terminator() {
                    retarget.extend(
                        pre.iter()
                            .filter(|p| p.preds.contains(&this))
                            .map(|p| (p.header, p.label.as_str())),
                    );
                    retarget.extend(
                        dead.iter()
                            .filter(|e| e.0 == this)
                            .map(|e| (e.1, dead_label)),
                    );
                }
                let phi_merge = match header_of {
                    Some(p) if inst.op == Opcode::Phi => Some(PhiMerge {
                        preds: &p.preds,
                        label: &p.label,
                        merged: (p.preds.len() > 1)
                            .then(|| p.phi_names.get((i - insts.start) as usize))
                            .flatten()
                            .map(|s| s.as_str()),
                    }),
                    _ => None,
                };
                let edit = InstEdit {
                    extra_bundle: edits.extra_bundle(f, id),
                    extra_fn_attr: edits.extra_fn_attr(f, id),
                    retarget: &retarget,
                    phi_merge,
                    drop_preds: if inst.op == Opcode::Phi {
                        &dropped
                    } else {
                        &[]
                    },
                };
                self.inst_text_source_into(out, f, id, &edit);
                out.push('\n');
            }
        }
        if !dead.is_empty() {
            out.push('\n');
            let line_start = out.len();
            out.push_str(dead_label);
            out.push(':');
            // Use-list order: sources in reverse order, their successor slots in reverse.
            let mut preds: Vec<String> = Vec::new();
            let mut sources: Vec<Block> = dead.iter().map(|e| e.0).collect();
            sources.sort_unstable();
            sources.dedup();
            for &u in sources.iter().rev() {
                for &s in cfg.succs(u).iter().rev() {
                    if dead.contains(&(u, s)) {
                        preds.push(self.block_operand(f, u));
                    }
                }
            }
            write_preds_comment(out, line_start, &preds);
            out.push_str("\n  unreachable\n");
        }
    }
}

impl Module {
    /// A new preheader block: its label, merge phis (several predecessors), lines, branch.
    fn write_preheader(&self, out: &mut String, f: FuncId, p: &Preheader, header_preds: &[Block]) {
        let func = self.func(f);
        let line_start = out.len();
        out.push_str(&p.label);
        out.push(':');
        let preds: Vec<String> = header_preds
            .iter()
            .filter(|b| p.preds.contains(b))
            .map(|&b| self.block_operand(f, b))
            .collect();
        write_preds_comment(out, line_start, &preds);
        out.push('\n');
        if p.preds.len() > 1 {
            for (k, i) in func.block_range(p.header).range().enumerate() {
                let inst = &func.insts[i];
                let id = InstId(i as u32);
                if inst.op != Opcode::Phi {
                    break;
                }
                let Some(name) = p.phi_names.get(k) else {
                    break;
                };
                out.push_str("  %");
                out.push_str(name);
                out.push_str(" = phi ");
                out.push_str(&self.type_text(inst.ty));
                let ops = func.operands(id);
                let blocks = func.inst_blocks(id);
                // One entry per edge (a predecessor may branch to the header twice).
                let edges = header_preds.iter().filter(|b| p.preds.contains(b));
                for (n, pred) in edges.enumerate() {
                    out.push_str(if n > 0 { ", [ " } else { " [ " });
                    match blocks.iter().position(|b| b == pred) {
                        Some(j) => self.operand_source_into(out, f, ops[j]),
                        None => out.push_str("poison"),
                    }
                    out.push_str(", ");
                    out.push_str(&self.block_operand(f, *pred));
                    out.push_str(" ]");
                }
                out.push('\n');
            }
        }
        out.push_str(&p.lines);
        out.push_str("  br label ");
        out.push_str(&self.block_operand(f, p.header));
        out.push_str("\n\n");
    }
}

/// `; preds = %a, %b` (or `; No predecessors!`) padded to column 50 as LLVM's writer does.
fn write_preds_comment(out: &mut String, line_start: usize, preds: &[String]) {
    let col = out[line_start..].chars().count();
    for _ in 0..50usize.saturating_sub(col).max(1) {
        out.push(' ');
    }
    if preds.is_empty() {
        out.push_str("; No predecessors!");
    } else {
        out.push_str("; preds = ");
        out.push_str(&preds.join(", "));
    }
}
