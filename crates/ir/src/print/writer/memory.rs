//! Memory instructions: `getelementptr`, `alloca`, `load`, `store`, `fence`, `cmpxchg` and
//! `atomicrmw`, with the default alignments LLVM's reader fills in (from [`crate::layout`]).

use super::*;

impl Module {
    /// Writes the operands and trailing parts of a memory instruction after its opcode.
    pub(super) fn write_memory_inst(&self, out: &mut String, cx: &InstCx<'_>) {
        let InstCx {
            t,
            f,
            inst,
            ops,
            aux,
            ..
        } = *cx;
        let fl = inst.flags;
        use Opcode::*;
        match inst.op {
            GetElementPtr => {
                if fl & flags::INBOUNDS != 0 {
                    out.push_str(" inbounds");
                } else if cx.src_has("nusw") {
                    out.push_str(" nusw");
                }
                if fl & flags::NUW != 0 {
                    out.push_str(" nuw");
                }
                out.push(' ');
                self.write_type(out, TypeId(inst.aux));
                out.push(',');
                cx.generic(out, ops, false);
            }
            Alloca => {
                out.push(' ');
                if cx.src_has("inalloca") {
                    out.push_str("inalloca ");
                }
                if cx.src_has("swifterror") {
                    out.push_str("swifterror ");
                }
                let ty = TypeId(cx.func.aux2(cx.id));
                self.write_type(out, ty);
                if aux.first() == Some(&1)
                    && let Some(&c) = ops.first()
                {
                    let one_i32 = matches!(c, Value::Const(k)
                        if matches!(self.consts[k.0 as usize].kind, ConstKind::Int { value: 1, .. })
                            && matches!(self.types.get(self.consts[k.0 as usize].ty), Type::Int(32)));
                    if !one_i32 {
                        out.push_str(", ");
                        self.write_typed(out, t, f, c);
                    }
                }
                let a = match aux.get(1) {
                    Some(&a) if a != 0 => a,
                    _ => t.layout.align(&self.types, ty).1,
                };
                cx.write_align(out, a);
                if inst.aux != 0 {
                    let _ = write!(out, ", addrspace({})", inst.aux);
                }
            }
            Load => {
                let atomic = inst.ordering != Ordering::NotAtomic;
                if atomic {
                    out.push_str(" atomic");
                }
                if fl & flags::VOLATILE != 0 {
                    out.push_str(" volatile");
                }
                out.push(' ');
                self.write_type(out, inst.ty);
                out.push(',');
                cx.generic(out, ops, false);
                if atomic {
                    cx.write_sync(out);
                    out.push(' ');
                    out.push_str(ordering_text(inst.ordering));
                }
                let a = match aux.first() {
                    Some(&a) => a,
                    None => t.layout.align(&self.types, inst.ty).0,
                };
                cx.write_align(out, a);
            }
            Store => {
                let atomic = inst.ordering != Ordering::NotAtomic;
                if atomic {
                    out.push_str(" atomic");
                }
                if fl & flags::VOLATILE != 0 {
                    out.push_str(" volatile");
                }
                cx.generic(out, ops, true);
                if atomic {
                    cx.write_sync(out);
                    out.push(' ');
                    out.push_str(ordering_text(inst.ordering));
                }
                let a = match aux.first() {
                    Some(&a) => a,
                    None => ops
                        .first()
                        .map_or(1, |v| t.layout.align(&self.types, self.value_type(f, *v)).0),
                };
                cx.write_align(out, a);
            }
            Fence => {
                cx.write_sync(out);
                out.push(' ');
                out.push_str(ordering_text(inst.ordering));
            }
            CmpXchg => {
                if fl & flags::WEAK != 0 {
                    out.push_str(" weak");
                }
                if fl & flags::VOLATILE != 0 {
                    out.push_str(" volatile");
                }
                cx.generic(out, ops, true);
                cx.write_sync(out);
                out.push(' ');
                out.push_str(ordering_text(inst.ordering));
                out.push(' ');
                out.push_str(ordering_text(ordering_from(
                    aux.first().copied().unwrap_or_default(),
                )));
                let a = match aux.get(1) {
                    Some(&a) => a,
                    None => ops.get(1).map_or(1, |v| {
                        t.layout.store_size(&self.types, self.value_type(f, *v))
                    }),
                };
                cx.write_align(out, a);
            }
            AtomicRmw => {
                if fl & flags::VOLATILE != 0 {
                    out.push_str(" volatile");
                }
                out.push(' ');
                out.push_str(RMW.get(inst.aux as usize).unwrap_or(&"<op>"));
                cx.generic(out, ops, true);
                cx.write_sync(out);
                out.push(' ');
                out.push_str(ordering_text(inst.ordering));
                let a = match aux.first() {
                    Some(&a) => a,
                    None => t.layout.store_size(&self.types, inst.ty),
                };
                cx.write_align(out, a);
            }
            _ => {}
        }
    }
}
