//! Whole modules printed back: every function body (block labels, instructions, debug records)
//! printed from the IR by the instruction writer, everything outside the bodies (globals,
//! declarations, function headers, attribute groups, metadata) kept as the source wrote it.
//! Instructions use the source's own `#N`/`!N` numbers so they fit the unchanged definitions.
//!
//! Transforms print through [`BodyEdits`]: lines inserted before an instruction and an operand
//! bundle added to a call; the rest of the module is printed exactly as without edits. The
//! round-trip test (`crates/ir/tests/roundtrip.rs`) checks, against `opt`, that this printing loses
//! nothing: `opt -S` of the printed text equals `opt -S` of the source.

use crate::lexer::{Lexer, Tok};
use crate::*;

/// Changes a transform makes while a module is printed (see the module comment).
pub trait BodyEdits {
    /// Appends whole lines (each `"  ...\n"`) to print before instruction `i` of `f`.
    fn before_inst(&self, _f: FuncId, _i: InstId, _out: &mut String) {}
    /// An operand bundle (`"convergencectrl"(token %t)`) to add to call `i` of `f`.
    fn extra_bundle(&self, _f: FuncId, _i: InstId) -> Option<&str> {
        None
    }
}

/// No edits: the module printed back as it is.
pub struct NoEdits;

impl BodyEdits for NoEdits {}

impl Module {
    /// The module printed back (see the module comment).
    pub fn print_module(&self) -> String {
        self.print_module_with(&NoEdits)
    }

    /// The module printed back with a transform's edits.
    pub fn print_module_with(&self, edits: &dyn BodyEdits) -> String {
        let src = self.source.as_str();
        let mut out = String::with_capacity(src.len() + src.len() / 4 + 256);
        let mut defs: Vec<FuncId> = self
            .func_ids()
            .filter(|&f| {
                let func = self.func(f);
                !func.is_declaration && !func.blocks.is_empty()
            })
            .collect();
        defs.sort_by_key(|&f| self.func(f).span.start);
        let records = src.contains("#dbg_");
        let mut pos = 0usize;
        for f in defs {
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
        out.push_str(&src[pos..]);
        out
    }

    /// The offset just after the `{` that opens a definition's body.
    fn body_open(&self, func: &Function) -> usize {
        let start = func.span.start as usize;
        let first = func.blocks[0].span.start as usize;
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
        for (bi, b) in func.blocks.iter().enumerate() {
            if bi > 0 {
                out.push('\n');
            }
            match b.name {
                LocalName::Named(s) => {
                    let name = super::sigil_name('%', self.str(s));
                    out.push_str(&name[1..]);
                    out.push_str(":\n");
                }
                LocalName::Slot(k) if bi > 0 => {
                    out.push_str(&k.to_string());
                    out.push_str(":\n");
                }
                _ => {}
            }
            let mut prev_end = b.span.start as usize;
            for i in b.insts.start..b.insts.end {
                let inst = &func.insts[i as usize];
                let id = InstId(i);
                if records {
                    let gap = src.get(prev_end..inst.span.start as usize).unwrap_or("");
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
                prev_end = inst.span.end as usize;
                edits.before_inst(f, id, out);
                self.inst_text_source_into(out, f, id, edits.extra_bundle(f, id));
                out.push('\n');
            }
        }
    }
}
