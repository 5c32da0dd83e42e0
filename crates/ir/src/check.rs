//! Checks LLVM's verifier makes that the reader alone does not: they reject modules LLVM itself
//! rejects, so that no analysis runs on IR whose meaning LLVM does not define.
//!
//! - A direct call to a *declared* intrinsic must use the declaration's signature ("Intrinsic
//!   called with incompatible signature"). The opaque-pointer call syntax lets any call name any
//!   function, and for ordinary functions a mismatch is valid IR (undefined only when executed);
//!   for intrinsics the verifier refuses it, and the target models read arguments by position.
//! - `callbr` calls inline asm (`asm goto`) or an intrinsic, never an ordinary function ("Callbr
//!   currently only supports asm-goto and selected intrinsics"; LLVM 19 allowed only asm).

use crate::diag::Diagnostic;
use crate::ir::{Function, Module, Opcode, Type, TypeId, Value};

/// The first call in `m` (in module order) that LLVM's verifier rejects: a `callbr` to an ordinary
/// function, or a call whose signature differs from the intrinsic it calls.
pub(crate) fn intrinsic_call_signatures(m: &Module) -> Result<(), Box<Diagnostic>> {
    for f in m.functions.iter().filter(|f| !f.is_declaration) {
        for (k, inst) in f.insts.iter().enumerate() {
            let id = crate::ir::InstId(k as u32);
            if !inst.op.is_call_like() {
                continue;
            }
            let Some(call) = f.calls.get(inst.aux as usize) else {
                continue;
            };
            if inst.op == Opcode::CallBr {
                let ok = match call.callee {
                    Value::Asm(_) => true,
                    Value::Func(g) => m
                        .strings
                        .resolve(m.functions[g.0 as usize].name)
                        .starts_with("llvm."),
                    _ => false,
                };
                if !ok {
                    return Err(Box::new(
                        Diagnostic::error(
                            "callbr may only call inline asm (`asm goto`) or an intrinsic",
                            f.inst_span(id),
                        )
                        .with_code("E-callbr-callee")
                        .with_note(
                            "LLVM's verifier rejects this module (\"Callbr currently only supports \
                             asm-goto and selected intrinsics\")",
                        ),
                    ));
                }
            }
            let Value::Func(g) = call.callee else {
                continue;
            };
            let callee = &m.functions[g.0 as usize];
            let name = m.strings.resolve(callee.name);
            if !name.starts_with("llvm.") || same_signature(m, call.fn_ty, callee) {
                continue;
            }
            let given = f.operand_range(id).len();
            let declared = callee.params.len();
            let what = if given != declared && !callee.vararg {
                let s = if given == 1 { "" } else { "s" };
                format!("{given} argument{s} given, {declared} declared")
            } else {
                "argument or result types differ from the declaration".to_string()
            };
            return Err(Box::new(
                Diagnostic::error(
                    format!("call to intrinsic @{name} does not match its declaration: {what}"),
                    f.inst_span(id),
                )
                .with_code("E-intrinsic-signature")
                .with_label(callee.span, "declared here")
                .with_note(
                    "LLVM's verifier rejects this module (\"Intrinsic called with incompatible \
                     signature\")",
                ),
            ));
        }
    }
    Ok(())
}

fn same_signature(m: &Module, fn_ty: TypeId, callee: &Function) -> bool {
    let Type::Func {
        ret,
        params,
        vararg,
    } = &m.types.types[fn_ty.0 as usize]
    else {
        return false;
    };
    let params = &m.types.lists[params.range()];
    *vararg == callee.vararg
        && *ret == callee.ret_ty
        && params.len() == callee.params.len()
        && params.iter().zip(&callee.params).all(|(a, p)| *a == p.ty)
}
