//! The instruction writer's entry point (`AssemblyWriter::printInstruction`): picks the numbering,
//! reads back from the source tokens what the reader does not keep (fast-math and other flags),
//! writes the result name and opcode, hands the rest to the family's writer (`ops`, `memory`,
//! `control`, `call`) and ends with the metadata attachments sorted by kind.

use super::*;

impl Module {
    pub(super) fn write_inst(
        &self,
        out: &mut String,
        f: FuncId,
        i: InstId,
        numbering: Numbering,
        edit: &InstEdit<'_>,
    ) {
        let extra_bundle = edit.extra_bundle;
        let tables = if numbering == Numbering::Source {
            self.source_print_tables()
        } else {
            self.print_tables()
        };
        let fi = f.0 as usize;
        let empty = FxHashMap::default();
        let slots = match numbering {
            Numbering::Value | Numbering::Module => {
                let module = numbering == Numbering::Module;
                Slots {
                    md_first: if module {
                        &tables.md_num_module
                    } else {
                        &tables.md_named
                    },
                    md: if module { None } else { tables.md_num.get(fi) },
                    call_attr: if module {
                        tables.call_attr_module.get(fi)
                    } else {
                        tables.call_attr.get(fi)
                    }
                    .map_or(&[], |v| v.as_slice()),
                    md_operands: &tables.md_num_module,
                    kind_rank: &tables.kind_rank,
                    layout: &tables.layout,
                    source_attrs: false,
                    extra_bundle,
                    retarget: &[],
                    phi_merge: None,
                    drop_preds: &[],
                    extra_fn_attr: None,
                }
            }
            Numbering::Source => Slots {
                md_first: &empty,
                md: None,
                call_attr: &[],
                md_operands: &empty,
                kind_rank: &tables.kind_rank,
                layout: &tables.layout,
                source_attrs: true,
                extra_bundle: edit.extra_bundle,
                retarget: edit.retarget,
                phi_merge: edit.phi_merge,
                drop_preds: edit.drop_preds,
                extra_fn_attr: edit.extra_fn_attr,
            },
        };
        let t = &slots;
        let func = self.func(f);
        let inst = func.inst(i);
        let ops = func.operands(i);
        let blocks = func.inst_blocks(i);
        let aux = func.aux_list(i);
        let span = func.inst_span(i);
        let src = self
            .source
            .as_bytes()
            .get(span.start as usize..span.end as usize)
            .unwrap_or(b"");
        // The source is lexed only for what the reader does not keep (see the module comment).
        let needs_src = inst.flags & flags::FAST_MATH != 0
            || match inst.op {
                Opcode::Call | Opcode::Invoke | Opcode::CallBr => true,
                Opcode::GetElementPtr => inst.flags & flags::INBOUNDS == 0,
                Opcode::Alloca | Opcode::CatchSwitch => true,
                _ => false,
            };
        let toks = if needs_src {
            src_tokens(src)
        } else {
            Vec::new()
        };
        // Words right after the opcode keyword (flags written in the source).
        let op_pos = toks
            .iter()
            .position(|(k, w)| {
                *k == Tok::Ident && (opcode_word(w) || matches!(*w, "tail" | "musttail" | "notail"))
            })
            .unwrap_or(0);
        let fmf = {
            let mut bits = 0;
            for (k, w) in toks.iter().skip(op_pos + 1) {
                if *k != Tok::Ident {
                    break;
                }
                if *w == "call" {
                    continue;
                }
                let b = fmf_bit(w);
                if b == 0 && !matches!(*w, "nuw" | "nsw" | "exact" | "disjoint" | "nneg") {
                    break;
                }
                bits |= b;
            }
            bits
        };
        out.push_str("  ");
        if inst.name() != LocalName::None {
            self.write_local(out, inst.name());
            out.push_str(" = ");
        }
        let fl = inst.flags;
        if inst.op == Opcode::Call {
            if fl & flags::TAIL != 0 {
                out.push_str("tail ");
            } else if fl & flags::MUSTTAIL != 0 {
                out.push_str("musttail ");
            } else if fl & flags::NOTAIL != 0 {
                out.push_str("notail ");
            }
        }
        out.push_str(opcode_name(inst.op));
        let cx = InstCx {
            m: self,
            t,
            f,
            func,
            inst,
            id: i,
            ops,
            blocks,
            aux,
            toks: &toks,
            op_pos,
            fmf,
        };
        use Opcode::*;
        match inst.op {
            Add | Sub | Mul | Shl | UDiv | SDiv | URem | SRem | LShr | AShr | And | Or | Xor
            | FAdd | FSub | FMul | FDiv | FRem | FNeg | ICmp | FCmp | Trunc | ZExt | SExt
            | FpTrunc | FpExt | FpToUi | FpToSi | UiToFp | SiToFp | PtrToInt | PtrToAddr
            | IntToPtr | BitCast | AddrSpaceCast | Select | Freeze | ExtractElement
            | InsertElement | Resume | ShuffleVector | ExtractValue | InsertValue | VaArg | Phi => {
                self.write_value_inst(out, &cx)
            }
            GetElementPtr | Alloca | Load | Store | Fence | CmpXchg | AtomicRmw => {
                self.write_memory_inst(out, &cx)
            }
            Ret | Br | Switch | IndirectBr | Unreachable | CleanupRet | CatchRet | CatchSwitch
            | CatchPad | CleanupPad | LandingPad => self.write_control_inst(out, &cx),
            Call | Invoke | CallBr => {
                self.write_call(out, t, f, i, &toks, op_pos, &|out: &mut String| {
                    cx.write_fmf(out)
                })
            }
        }
        // Attachments, sorted by kind id.
        let mds = func.inst_md(i);
        if !mds.is_empty() {
            let mut sorted: Vec<(u32, usize)> = mds
                .iter()
                .enumerate()
                .map(|(k, (kind, _))| (t.kind_rank.get(kind).copied().unwrap_or(u32::MAX), k))
                .collect();
            sorted.sort_unstable();
            for (_, k) in sorted {
                let (kind, md) = mds[k];
                out.push_str(", ");
                self.write_sigil(out, '!', self.str(kind));
                out.push(' ');
                match t.md_first.get(&md_resolve(self, md).0) {
                    Some(n) => {
                        let _ = write!(out, "!{n}");
                    }
                    None => self.write_md_ref(out, t.md, md),
                }
            }
        }
    }
}

/// One instruction being printed, with what every family's writer needs: its pools, the numbering,
/// and the flags read back from its source tokens.
#[derive(Copy, Clone)]
pub(super) struct InstCx<'a> {
    pub(super) m: &'a Module,
    pub(super) t: &'a Slots<'a>,
    pub(super) f: FuncId,
    pub(super) func: &'a Function,
    pub(super) inst: &'a Inst,
    pub(super) id: InstId,
    pub(super) ops: &'a [Value],
    pub(super) blocks: &'a [converge_graph::Block],
    pub(super) aux: &'a [u64],
    /// The source tokens (only for what the reader does not keep; see the module comment).
    pub(super) toks: &'a [(Tok, &'a str)],
    /// Index in `toks` of the opcode keyword.
    pub(super) op_pos: usize,
    /// Fast-math flags written in the source (bits of `FMF`).
    pub(super) fmf: u32,
}

impl InstCx<'_> {
    /// Whether the word `w` is among the flags written right after the opcode.
    pub(super) fn src_has(&self, w: &str) -> bool {
        self.toks
            .iter()
            .skip(self.op_pos + 1)
            .take_while(|(k, _)| *k == Tok::Ident)
            .any(|(_, x)| *x == w)
    }

    pub(super) fn write_fmf(&self, out: &mut String) {
        if self.fmf == 0x7f {
            out.push_str(" fast");
        } else {
            for (b, name) in FMF.iter().enumerate() {
                if self.fmf & (1 << b) != 0 {
                    out.push(' ');
                    out.push_str(name);
                }
            }
        }
    }

    /// The generic operand list: the first operand's type once if all operands share it.
    pub(super) fn generic(&self, out: &mut String, ops: &[Value], all: bool) {
        let (m, f) = (self.m, self.f);
        let all = all || ops.iter().skip(1).any(|v| !m.same_type(f, ops[0], *v));
        if ops.is_empty() {
            return;
        }
        out.push(' ');
        if !all {
            m.write_value_type(out, f, ops[0]);
            out.push(' ');
        }
        for (k, v) in ops.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            if all {
                m.write_typed(out, self.t, f, *v);
            } else {
                m.write_operand(out, self.t, f, *v);
            }
        }
    }

    pub(super) fn write_align(&self, out: &mut String, a: u64) {
        let _ = write!(out, ", align {a}");
    }

    pub(super) fn write_sync(&self, out: &mut String) {
        if let Some(s) = self.func.syncscope(self.id) {
            out.push_str(" syncscope(\"");
            escape_into(out, self.m.str(s).as_bytes());
            out.push_str("\")");
        }
    }
}
