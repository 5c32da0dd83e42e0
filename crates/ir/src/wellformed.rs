//! The structural rules of LLVM's verifier that every answer of converge depends on, checked when a
//! module is read, so that invalid IR is an error (exit 2) rather than an answer:
//!
//! - **operand types**: a local value (argument or instruction result) used where the instruction
//!   expects another type (`%y = add i64 %x, 1` with `%x` an `i32`; LLVM's reader: "'%x' defined
//!   with type 'i32' but expected 'i64'"). Checked for the operands whose expected type the
//!   instruction fixes: binary and unary operators, comparisons, `select`, `phi`, `ret`, the
//!   condition of `br`/`switch`, call arguments against the call's function type, and the pointer
//!   of `load`/`store`/`getelementptr`. Constants and globals are typed by the reader where they
//!   are written, so only locals can disagree.
//! - **definitions dominate uses** ("Instruction does not dominate all uses!", "Only PHI nodes may
//!   reference their own value!"): a use in the same block comes after the definition, a use in
//!   another block is dominated by the definition's block, and a phi's incoming value dominates the
//!   end of its incoming block. Uses in unreachable blocks are exempt, as in LLVM. The result of
//!   an `invoke` is defined on its normal edge; uses of `callbr` results are not checked.
//! - **phi incomings match predecessors** ("PHINode should have one entry for each predecessor of
//!   its parent basic block!"), as multisets (an edge taken twice needs two entries), and phis come
//!   first in their block ("PHI nodes not grouped at top of basic block!");
//! - **the entry block has no predecessors** ("Entry block to function must not have
//!   predecessors!").
//!
//! That each block ends in exactly one terminator the reader enforces while parsing.
//!
//! Cost: one pass over the instructions; for functions with a phi or a use that needs dominance,
//! the function's CFG in buffers reused across functions (predecessors in no particular order:
//! only their multiset and dominance matter here, and neither depends on the order); and a
//! dominator tree (Semi-NCA, `converge_graph`) only for functions with a use that is not
//! trivially dominated: a use later in its definition's block, a use of a value defined in the
//! entry block (which dominates every reachable block) and a phi incoming value defined in its
//! incoming block need no tree. See `docs/benchmarks.md`.

use crate::diag::Diagnostic;
use crate::ir::Span;
use crate::ir::{FuncId, Function, InstId, Module, Opcode, Type, TypeId, Value};
use converge_graph::Block;
use converge_graph::{DominatorTree, Graph};

/// A function's CFG in reusable buffers (see the module comment): successors in operand order,
/// predecessors with multiplicity.
#[derive(Default)]
struct FlatCfg {
    succ_start: Vec<u32>,
    succ: Vec<Block>,
    pred_start: Vec<u32>,
    pred: Vec<Block>,
    fill: Vec<u32>,
}

impl FlatCfg {
    fn build(&mut self, f: &Function) {
        let n = f.blocks.len();
        self.succ_start.clear();
        self.succ.clear();
        self.succ_start.push(0);
        for b in 0..n {
            self.succ.extend_from_slice(f.succs(Block(b as u32)));
            self.succ_start.push(self.succ.len() as u32);
        }
        self.pred_start.clear();
        self.pred_start.resize(n + 1, 0);
        for s in &self.succ {
            self.pred_start[s.index() + 1] += 1;
        }
        for i in 0..n {
            self.pred_start[i + 1] += self.pred_start[i];
        }
        self.fill.clear();
        self.fill.extend_from_slice(&self.pred_start[..n]);
        self.pred.clear();
        self.pred.resize(self.succ.len(), Block(0));
        for b in 0..n {
            let (lo, hi) = (self.succ_start[b] as usize, self.succ_start[b + 1] as usize);
            for s in &self.succ[lo..hi] {
                let slot = &mut self.fill[s.index()];
                self.pred[*slot as usize] = Block(b as u32);
                *slot += 1;
            }
        }
    }
}

impl Graph for FlatCfg {
    fn num_blocks(&self) -> usize {
        self.succ_start.len() - 1
    }
    fn entry(&self) -> Block {
        Block(0)
    }
    fn succs(&self, b: Block) -> &[Block] {
        &self.succ[self.succ_start[b.index()] as usize..self.succ_start[b.index() + 1] as usize]
    }
    fn preds(&self, b: Block) -> &[Block] {
        &self.pred[self.pred_start[b.index()] as usize..self.pred_start[b.index() + 1] as usize]
    }
}

/// The first violation in module order (function by function, instruction by instruction).
pub(crate) fn check_module(m: &Module) -> Result<(), Box<Diagnostic>> {
    let mut scratch = Scratch::default();
    for (k, f) in m.functions.iter().enumerate() {
        if !f.is_declaration {
            check_function(m, FuncId(k as u32), f, &mut scratch)?;
        }
    }
    Ok(())
}

/// Buffers reused across functions (the dominator tree keeps its arrays between computations).
#[derive(Default)]
struct Scratch {
    preds: Vec<u32>,
    incoming: Vec<u32>,
    cfg: FlatCfg,
    dt: DominatorTree,
}

fn err(span: Span, code: &str, msg: String, llvm: &str) -> Box<Diagnostic> {
    Box::new(
        Diagnostic::error(msg, span)
            .with_code(code)
            .with_note(format!("LLVM's verifier rejects this module (\"{llvm}\")")),
    )
}

fn is_bool(m: &Module, t: TypeId) -> bool {
    match &m.types.types[t.0 as usize] {
        Type::Int(1) => true,
        Type::Vector { elem, .. } => matches!(m.types.types[elem.0 as usize], Type::Int(1)),
        _ => false,
    }
}

fn is_pointer(m: &Module, t: TypeId) -> bool {
    match &m.types.types[t.0 as usize] {
        Type::Ptr(_) => true,
        Type::Vector { elem, .. } => matches!(m.types.types[elem.0 as usize], Type::Ptr(_)),
        _ => false,
    }
}

fn check_function(
    m: &Module,
    fid: FuncId,
    f: &Function,
    sc: &mut Scratch,
) -> Result<(), Box<Diagnostic>> {
    let local = |v: Value| f.local_type(v);
    let mismatch = |i: &crate::ir::Inst, id: InstId, v: Value, want: TypeId| -> Box<Diagnostic> {
        err(
            f.inst_span(id),
            "E-type",
            format!(
                "{} has type {} but this `{}` expects {}",
                m.value_name(fid, v),
                m.type_text(local(v).unwrap_or(want)),
                opcode_word(m, fid, i),
                m.type_text(want)
            ),
            &format!(
                "'{}' defined with type '{}' but expected '{}'",
                m.value_name(fid, v),
                m.type_text(local(v).unwrap_or(want)),
                m.type_text(want)
            ),
        )
    };
    let mut needs_dt = false;
    let mut has_phi = false;
    for (k, i) in f.insts.iter().enumerate() {
        let id = InstId(k as u32);
        let ops = f.operands(id);
        let expect = |v: Value, want: TypeId| -> Result<(), Box<Diagnostic>> {
            match local(v) {
                Some(t) if t != want => Err(mismatch(i, id, v, want)),
                _ => Ok(()),
            }
        };
        use Opcode as O;
        match i.op {
            O::FNeg
            | O::Add
            | O::FAdd
            | O::Sub
            | O::FSub
            | O::Mul
            | O::FMul
            | O::UDiv
            | O::SDiv
            | O::FDiv
            | O::URem
            | O::SRem
            | O::FRem
            | O::Shl
            | O::LShr
            | O::AShr
            | O::And
            | O::Or
            | O::Xor
            | O::Freeze
            | O::Phi => {
                for &v in ops {
                    expect(v, i.ty)?;
                }
            }
            O::Select if ops.len() == 3 => {
                if let Some(t) = local(ops[0])
                    && !is_bool(m, t)
                {
                    return Err(err(
                        f.inst_span(id),
                        "E-type",
                        format!(
                            "the condition {} of `select` has type {}, not i1",
                            m.value_name(fid, ops[0]),
                            m.type_text(t)
                        ),
                        "select condition must be i1 or <n x i1>",
                    ));
                }
                expect(ops[1], i.ty)?;
                expect(ops[2], i.ty)?;
            }
            O::ICmp | O::FCmp if ops.len() == 2 => {
                let t0 = m.value_type(fid, ops[0]);
                let t1 = m.value_type(fid, ops[1]);
                if t0 != t1 {
                    let (v, want) = if local(ops[1]).is_some() {
                        (ops[1], t0)
                    } else {
                        (ops[0], t1)
                    };
                    return Err(mismatch(i, id, v, want));
                }
            }
            O::Ret if ops.len() == 1 => expect(ops[0], f.ret_ty)?,
            O::Br if ops.len() == 1 => {
                if let Some(t) = local(ops[0])
                    && !matches!(m.types.types[t.0 as usize], Type::Int(1))
                {
                    return Err(err(
                        f.inst_span(id),
                        "E-type",
                        format!(
                            "the condition {} of `br` has type {}, not i1",
                            m.value_name(fid, ops[0]),
                            m.type_text(t)
                        ),
                        "Branch condition is not 'i1' type!",
                    ));
                }
            }
            O::Switch if ops.len() > 1 => {
                expect(ops[0], m.value_type(fid, ops[1]))?;
            }
            O::Load | O::GetElementPtr if !ops.is_empty() => {
                pointer(m, fid, i, id, ops[0], &local)?
            }
            O::Store if ops.len() == 2 => pointer(m, fid, i, id, ops[1], &local)?,
            O::Call | O::Invoke | O::CallBr => {
                if let Some(call) = f.calls.get(i.aux as usize)
                    && let Type::Func { params, .. } = &m.types.types[call.fn_ty.0 as usize]
                {
                    let params = &m.types.lists[params.range()];
                    for (&v, &want) in ops.iter().zip(params) {
                        expect(v, want)?;
                    }
                }
            }
            _ => {}
        }
        // Uses the dominance pass below would accept without a tree (see the module comment);
        // anything else (a use before its definition, possibly in unreachable code, uses of
        // `invoke` results, other blocks) needs it.
        has_phi |= i.op == O::Phi;
        if !needs_dt {
            let is_phi = i.op == O::Phi;
            let in_blocks = f.inst_blocks(id);
            needs_dt = ops.iter().enumerate().any(|(n, &v)| {
                let Value::Inst(d) = v else { return false };
                let di = &f.insts[d.0 as usize];
                let at = if is_phi {
                    match in_blocks.get(n) {
                        Some(&b) => b,
                        None => return false,
                    }
                } else {
                    i.block
                };
                match di.op {
                    O::CallBr => false,
                    O::Invoke => true,
                    _ if di.block == at => !is_phi && d.0 as usize >= k,
                    _ => di.block != Block(0),
                }
            });
        }
    }

    // Phis first in their block, and one incoming per predecessor edge.
    let entry_is_target = || {
        err(
            f.block_span(Block(0)),
            "E-entry-preds",
            format!(
                "the entry block %{} of @{} is a branch target",
                m.block_name(fid, Block(0)),
                m.str(f.name)
            ),
            "Entry block to function must not have predecessors!",
        )
    };
    if !has_phi && !needs_dt {
        // Only the entry rule is left: no CFG needed.
        let n = f.blocks.len() as u32;
        if (0..n).any(|b| f.succs(Block(b)).contains(&Block(0))) {
            return Err(entry_is_target());
        }
        return Ok(());
    }
    sc.cfg.build(f);
    let cfg = &sc.cfg;
    if !cfg.preds(Block(0)).is_empty() {
        return Err(entry_is_target());
    }
    for b in 0..f.blocks.len() {
        let mut seen_other = false;
        let mut preds_ready = false;
        for k in f.block_range(Block(b as u32)).range() {
            let i = &f.insts[k];
            if i.op != Opcode::Phi {
                seen_other = true;
                continue;
            }
            if seen_other {
                return Err(err(
                    f.inst_span(InstId(k as u32)),
                    "E-phi-position",
                    "a phi after a non-phi instruction of its block".to_string(),
                    "PHI nodes not grouped at top of basic block!",
                ));
            }
            if !preds_ready {
                // Predecessor edges with multiplicity (a switch may reach a block twice).
                // (the CFG keeps one predecessor entry per successor slot).
                sc.preds.clear();
                sc.preds
                    .extend(cfg.preds(Block(b as u32)).iter().map(|p| p.0));
                sc.preds.sort_unstable();
                preds_ready = true;
            }
            sc.incoming.clear();
            sc.incoming
                .extend(f.inst_blocks(InstId(k as u32)).iter().map(|b| b.0));
            sc.incoming.sort_unstable();
            if sc.incoming != sc.preds {
                let names = |v: &[u32]| -> String {
                    let s: Vec<String> = v
                        .iter()
                        .map(|&x| format!("%{}", m.block_name(fid, Block(x))))
                        .collect();
                    if s.is_empty() {
                        "none".to_string()
                    } else {
                        s.join(" ")
                    }
                };
                return Err(err(
                    f.inst_span(InstId(k as u32)),
                    "E-phi-preds",
                    format!(
                        "the phi's incoming blocks ({}) are not the predecessors of %{} ({})",
                        names(&sc.incoming),
                        m.block_name(fid, Block(b as u32)),
                        names(&sc.preds)
                    ),
                    "PHINode should have one entry for each predecessor of its parent basic block!",
                ));
            }
        }
    }

    if !needs_dt {
        return Ok(());
    }
    sc.dt.compute(cfg);
    let dt = &sc.dt;
    for (k, i) in f.insts.iter().enumerate() {
        let ops = f.operands(InstId(k as u32));
        let is_phi = i.op == Opcode::Phi;
        let in_blocks = f.inst_blocks(InstId(k as u32));
        for (n, &v) in ops.iter().enumerate() {
            let Value::Inst(d) = v else { continue };
            let di = &f.insts[d.0 as usize];
            // Where the use must be dominated: the end of the incoming block for a phi.
            let (at, same_block_ok) = if is_phi {
                match in_blocks.get(n) {
                    Some(&b) => (b, true),
                    None => continue,
                }
            } else {
                (i.block, false)
            };
            if !dt.is_reachable(at) {
                continue;
            }
            let ok = match di.op {
                Opcode::CallBr => true,
                Opcode::Invoke => {
                    // Defined on the normal edge: the normal destination must be reached only
                    // through it and dominate the use.
                    let normal = f.inst_blocks(d).first().copied();
                    match normal {
                        Some(nb) => {
                            let single = cfg.preds(nb).len() == 1
                                && f.succs(di.block).iter().filter(|&&s| s == nb).count() == 1;
                            !single || dt.dominates(nb, at)
                        }
                        None => true,
                    }
                }
                _ => {
                    if di.block == at {
                        same_block_ok || d.0 < k as u32
                    } else {
                        dt.dominates(di.block, at)
                    }
                }
            };
            if !ok {
                return Err(not_dominated(m, fid, f, d, InstId(k as u32)));
            }
        }
    }
    Ok(())
}

fn pointer(
    m: &Module,
    fid: FuncId,
    i: &crate::ir::Inst,
    id: InstId,
    v: Value,
    local: &dyn Fn(Value) -> Option<TypeId>,
) -> Result<(), Box<Diagnostic>> {
    match local(v) {
        Some(t) if !is_pointer(m, t) => Err(err(
            m.func(fid).inst_span(id),
            "E-type",
            format!(
                "{} has type {} but this `{}` expects a pointer",
                m.value_name(fid, v),
                m.type_text(t),
                opcode_word(m, fid, i)
            ),
            &format!(
                "'{}' defined with type '{}' but expected 'ptr'",
                m.value_name(fid, v),
                m.type_text(t)
            ),
        )),
        _ => Ok(()),
    }
}

fn not_dominated(
    m: &Module,
    fid: FuncId,
    f: &Function,
    d: InstId,
    user: InstId,
) -> Box<Diagnostic> {
    let def = &f.insts[d.0 as usize];
    let name = m.value_name(fid, Value::Inst(d));
    let (msg, llvm) = if d == user {
        (
            format!("{name} uses its own value, and it is not a phi"),
            "Only PHI nodes may reference their own value!",
        )
    } else {
        (
            format!(
                "{name} is used where its definition in %{} does not dominate the use",
                m.block_name(fid, def.block)
            ),
            "Instruction does not dominate all uses!",
        )
    };
    let mut e = Diagnostic::error(msg, f.inst_span(user))
        .with_code("E-dominance")
        .with_note(format!("LLVM's verifier rejects this module (\"{llvm}\")"));
    if d != user {
        e = e.with_label(f.inst_span(d), "defined here");
    }
    Box::new(e)
}

/// The instruction's opcode as written (`add`, `icmp`, …), for messages.
fn opcode_word(m: &Module, fid: FuncId, i: &crate::ir::Inst) -> String {
    let _ = (m, fid);
    format!("{:?}", i.op).to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    fn verdict(src: &str) -> Result<(), String> {
        crate::parse("t.ll", src.to_string())
            .map(|_| ())
            .map_err(|d| d.code.unwrap_or_default())
    }

    /// The entry rule on both paths of the check: a function without phis or dominance questions
    /// (no CFG is built) and one with a phi (the CFG is built). LLVM: "Entry block to function
    /// must not have predecessors!".
    #[test]
    fn entry_block_branch_target_is_rejected_with_and_without_a_cfg() {
        let plain =
            "define void @f(i1 %c) {\nb0:\n  br i1 %c, label %b0, label %x\nx:\n  ret void\n}\n";
        assert_eq!(verdict(plain), Err("E-entry-preds".to_string()));
        let phi = "define i32 @f(i1 %c) {\nb0:\n  br i1 %c, label %b0, label %x\nx:\n  %p = phi i32 [ 0, %b0 ]\n  ret i32 %p\n}\n";
        assert_eq!(verdict(phi), Err("E-entry-preds".to_string()));
    }

    /// Uses the check accepts without a dominator tree (a value of the entry block used later, a
    /// phi incoming defined in its incoming block) and one that needs the tree and fails it (a
    /// value of one arm of a diamond used at the join). LLVM: "Instruction does not dominate all
    /// uses!".
    #[test]
    fn trivially_dominated_uses_and_a_real_violation() {
        let ok = "define i32 @f(i32 %a, i1 %c) {\nentry:\n  %x = add i32 %a, 1\n  br label %loop\nloop:\n  %i = phi i32 [ %x, %entry ], [ %n, %loop ]\n  %n = add i32 %i, %x\n  br i1 %c, label %loop, label %done\ndone:\n  ret i32 %n\n}\n";
        assert_eq!(verdict(ok), Ok(()));
        let bad = "define i32 @f(i32 %a, i1 %c) {\nentry:\n  br i1 %c, label %l, label %r\nl:\n  %x = add i32 %a, 1\n  br label %j\nr:\n  br label %j\nj:\n  ret i32 %x\n}\n";
        assert_eq!(verdict(bad), Err("E-dominance".to_string()));
    }
}
