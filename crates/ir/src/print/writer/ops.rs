//! Value instructions: arithmetic, comparisons, casts, `select`, vector and aggregate element
//! operations, `va_arg` and `phi` (with the transforms' phi edits).

use super::*;

impl Module {
    /// Writes the operands and trailing parts of a value instruction (arithmetic, compare, cast, vector, aggregate, phi) after its opcode.
    pub(super) fn write_value_inst(&self, out: &mut String, cx: &InstCx<'_>) {
        let InstCx {
            t,
            f,
            func,
            inst,
            ops,
            blocks,
            aux,
            ..
        } = *cx;
        let fl = inst.flags;
        use Opcode::*;
        match inst.op {
            Add | Sub | Mul | Shl | UDiv | SDiv | URem | SRem | LShr | AShr | And | Or | Xor
            | FAdd | FSub | FMul | FDiv | FRem | FNeg => {
                if fl & flags::NUW != 0 {
                    out.push_str(" nuw");
                }
                if fl & flags::NSW != 0 {
                    out.push_str(" nsw");
                }
                if fl & flags::EXACT != 0 {
                    out.push_str(" exact");
                }
                if fl & flags::DISJOINT != 0 {
                    out.push_str(" disjoint");
                }
                cx.write_fmf(out);
                cx.generic(out, ops, false);
            }
            ICmp | FCmp => {
                if inst.op == ICmp {
                    if fl & flags::SAMESIGN != 0 {
                        out.push_str(" samesign");
                    }
                    out.push(' ');
                    out.push_str(IPREDS.get(inst.aux as usize).unwrap_or(&"<pred>"));
                } else {
                    cx.write_fmf(out);
                    out.push(' ');
                    out.push_str(FPREDS.get(inst.aux as usize).unwrap_or(&"<pred>"));
                }
                cx.generic(out, ops, false);
            }
            Trunc | ZExt | SExt | FpTrunc | FpExt | FpToUi | FpToSi | UiToFp | SiToFp
            | PtrToInt | PtrToAddr | IntToPtr | BitCast | AddrSpaceCast => {
                if fl & flags::NNEG != 0 {
                    out.push_str(" nneg");
                }
                if fl & flags::NUW != 0 {
                    out.push_str(" nuw");
                }
                if fl & flags::NSW != 0 {
                    out.push_str(" nsw");
                }
                cx.write_fmf(out);
                cx.generic(out, ops, false);
                out.push_str(" to ");
                self.write_type(out, inst.ty);
            }
            Select => {
                cx.write_fmf(out);
                cx.generic(out, ops, true);
            }
            Freeze | ExtractElement | InsertElement | Resume => cx.generic(out, ops, false),
            ShuffleVector => {
                cx.generic(out, &ops[..ops.len().min(2)], true);
                out.push_str(", ");
                let n = aux.len();
                let _ = write!(out, "<{n} x i32> ");
                if !aux.is_empty() && aux.iter().all(|x| *x == 0) {
                    out.push_str("zeroinitializer");
                } else if aux.iter().all(|x| *x == u64::MAX) {
                    out.push_str("poison");
                } else {
                    out.push('<');
                    for (k, x) in aux.iter().enumerate() {
                        if k > 0 {
                            out.push_str(", ");
                        }
                        if *x == u64::MAX {
                            out.push_str("i32 poison");
                        } else {
                            let _ = write!(out, "i32 {}", *x as u32 as i32);
                        }
                    }
                    out.push('>');
                }
            }
            ExtractValue | InsertValue => {
                cx.generic(out, ops, true);
                for x in aux {
                    let _ = write!(out, ", {x}");
                }
            }
            VaArg => {
                cx.generic(out, ops, false);
                out.push_str(", ");
                self.write_type(out, inst.ty);
            }
            Phi => {
                cx.write_fmf(out);
                out.push(' ');
                self.write_type(out, inst.ty);
                let mut merged_done = false;
                let mut k = 0;
                for (v, b) in ops.iter().zip(blocks) {
                    if t.drop_preds.contains(b) {
                        continue;
                    }
                    if let Some(pm) = &t.phi_merge
                        && pm.preds.contains(b)
                    {
                        if merged_done {
                            continue;
                        }
                        merged_done = true;
                        out.push_str(if k > 0 { ", [ " } else { " [ " });
                        match pm.merged {
                            Some(name) => {
                                out.push('%');
                                out.push_str(name);
                            }
                            None => self.write_operand(out, t, f, *v),
                        }
                        out.push_str(", %");
                        out.push_str(pm.label);
                        out.push_str(" ]");
                        k += 1;
                        continue;
                    }
                    out.push_str(if k > 0 { ", [ " } else { " [ " });
                    self.write_operand(out, t, f, *v);
                    out.push_str(", ");
                    match func.blocks.get(b.index()) {
                        Some(bd) => self.write_local(out, bd.name()),
                        None => out.push_str(crate::print::BADREF),
                    }
                    out.push_str(" ]");
                    k += 1;
                }
            }
            _ => {}
        }
    }
}
