//! Terminators and exception-handling pads: `ret`, `br`, `switch`, `indirectbr`, `unreachable`,
//! `cleanupret`, `catchret`, `catchswitch`, `catchpad`/`cleanuppad` and `landingpad`.

use super::*;

impl Module {
    /// Writes the operands and trailing parts of a terminator or exception-handling pad after its opcode.
    pub(super) fn write_control_inst(&self, out: &mut String, cx: &InstCx<'_>) {
        let InstCx {
            t,
            f,
            inst,
            ops,
            blocks,
            aux,
            toks,
            ..
        } = *cx;
        use Opcode::*;
        match inst.op {
            Ret => {
                if ops.is_empty() {
                    out.push_str(" void");
                } else {
                    cx.generic(out, ops, true);
                }
            }
            Br => {
                out.push(' ');
                if let Some(&c) = ops.first() {
                    self.write_typed(out, t, f, c);
                    out.push_str(", ");
                }
                for (k, b) in blocks.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.write_block_ref(out, t, f, *b);
                }
            }
            Switch => {
                out.push(' ');
                if let Some(&c) = ops.first() {
                    self.write_typed(out, t, f, c);
                }
                if let Some(&d) = blocks.first() {
                    out.push_str(", ");
                    self.write_block_ref(out, t, f, d);
                }
                out.push_str(" [");
                for (v, b) in ops.iter().skip(1).zip(blocks.iter().skip(1)) {
                    out.push_str("\n    ");
                    self.write_typed(out, t, f, *v);
                    out.push_str(", ");
                    self.write_block_ref(out, t, f, *b);
                }
                out.push_str("\n  ]");
            }
            IndirectBr => {
                out.push(' ');
                if let Some(&c) = ops.first() {
                    self.write_typed(out, t, f, c);
                }
                out.push_str(", [");
                for (k, b) in blocks.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.write_block_ref(out, t, f, *b);
                }
                out.push(']');
            }
            Unreachable => {}
            CleanupRet => {
                out.push_str(" from ");
                if let Some(&p) = ops.first() {
                    self.write_operand(out, t, f, p);
                }
                out.push_str(" unwind ");
                match blocks.first() {
                    Some(&b) => self.write_block_ref(out, t, f, b),
                    None => out.push_str("to caller"),
                }
            }
            CatchRet => {
                out.push_str(" from ");
                if let Some(&p) = ops.first() {
                    self.write_operand(out, t, f, p);
                }
                out.push_str(" to ");
                if let Some(&b) = blocks.first() {
                    self.write_block_ref(out, t, f, b);
                }
            }
            CatchSwitch => {
                out.push_str(" within ");
                if let Some(&p) = ops.first() {
                    self.write_operand(out, t, f, p);
                }
                // The reader puts the unwind destination first when there is one.
                let has_unwind = !toks.iter().any(|(k, w)| *k == Tok::Ident && *w == "caller");
                let (unwind, handlers) = if has_unwind && !blocks.is_empty() {
                    (Some(blocks[0]), &blocks[1..])
                } else {
                    (None, blocks)
                };
                out.push_str(" [");
                for (k, b) in handlers.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.write_block_ref(out, t, f, *b);
                }
                out.push_str("] unwind ");
                match unwind {
                    Some(b) => self.write_block_ref(out, t, f, b),
                    None => out.push_str("to caller"),
                }
            }
            CatchPad | CleanupPad => {
                out.push_str(" within ");
                if let Some(&p) = ops.first() {
                    self.write_operand(out, t, f, p);
                }
                out.push_str(" [");
                for (k, v) in ops.iter().skip(1).enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.write_typed(out, t, f, *v);
                }
                out.push(']');
            }
            LandingPad => {
                out.push(' ');
                self.write_type(out, inst.ty);
                if inst.aux == 1 {
                    out.push_str("\n          cleanup");
                }
                for (v, kind) in ops.iter().zip(aux) {
                    out.push_str(if *kind == 0 {
                        "\n          catch "
                    } else {
                        "\n          filter "
                    });
                    self.write_typed(out, t, f, *v);
                }
            }
            _ => {}
        }
    }
}
