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
    checked_calls(m, true)
}

/// [`intrinsic_call_signatures`]; without `skip`, every function's instructions are visited
/// (the tests' reference).
fn checked_calls(m: &Module, skip: bool) -> Result<(), Box<Diagnostic>> {
    // Per function of the module, whether it is an intrinsic (`llvm.*`): its name resolved once,
    // not at every call.
    let intrinsic: Vec<bool> = m
        .functions
        .iter()
        .map(|g| m.strings.resolve(g.name).starts_with("llvm."))
        .collect();
    let is_intrinsic = |g: crate::ir::FuncId| intrinsic.get(g.0 as usize).copied().unwrap_or(false);
    for f in m.functions.iter().filter(|f| !f.is_declaration) {
        // A function whose every call-site record calls inline asm or an intrinsic with the
        // declaration's signature has nothing to reject, whatever its instructions' opcodes:
        // its instructions need not be visited (each call-like instruction has its record).
        if skip
            && f.calls.iter().all(|call| match call.callee {
                Value::Asm(_) => true,
                Value::Func(g) => {
                    is_intrinsic(g) && same_signature(m, call.fn_ty, &m.functions[g.0 as usize])
                }
                _ => false,
            })
        {
            continue;
        }
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
                    Value::Func(g) => is_intrinsic(g),
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
            if !is_intrinsic(g) || same_signature(m, call.fn_ty, callee) {
                continue;
            }
            let name = m.strings.resolve(callee.name);
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

#[cfg(test)]
mod tests {
    /// Modules of several functions mixing good intrinsic calls, ordinary calls, asm, `callbr`
    /// and bad intrinsic calls: the check that skips functions whose calls are all fine gives
    /// the first error (or none) of the check that visits every instruction.
    #[test]
    fn skipping_functions_gives_the_full_checks_answer() {
        let bodies = [
            "  %x = call i32 @llvm.ctpop.i32(i32 %a)\n  ret void",
            "  %x = call i64 @llvm.ctpop.i32(i32 %a)\n  ret void",
            "  %x = call i32 @g(i32 %a)\n  ret void",
            "  call void asm \"\", \"\"()\n  ret void",
            "  callbr void @h() to label %l []\nl:\n  ret void",
            "  callbr void asm \"\", \"!i\"() to label %l [label %m]\nl:\n  ret void\nm:\n  ret void",
            "  %x = call i32 @llvm.ctpop.i32(i32 %a)\n  %y = call i32 @g(i32 %x)\n  ret void",
            "  ret void",
        ];
        let (mut errors, mut fine) = (0, 0);
        for i in 0..bodies.len() {
            for j in 0..bodies.len() {
                for k in 0..bodies.len() {
                    let mut text = String::from(
                        "declare i32 @llvm.ctpop.i32(i32)\ndeclare i32 @g(i32)\ndeclare void @h()\n",
                    );
                    for (n, b) in [i, j, k].iter().enumerate() {
                        text.push_str(&format!(
                            "define void @f{n}(i32 %a) {{\n{}\n}}\n",
                            bodies[*b]
                        ));
                    }
                    let m = crate::parser::Parser::new("t.ll", &text)
                        .parse_module()
                        .map(|(m, _)| m)
                        .unwrap_or_else(|e| panic!("{text}\n{e:?}"));
                    let skip = super::checked_calls(&m, true).map_err(|e| format!("{e:?}"));
                    let full = super::checked_calls(&m, false).map_err(|e| format!("{e:?}"));
                    assert_eq!(skip, full, "{text}");
                    if full.is_err() {
                        errors += 1;
                    } else {
                        fine += 1;
                    }
                }
            }
        }
        assert!(errors > 100 && fine > 100, "{errors} {fine}");
    }
}
