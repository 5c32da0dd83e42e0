//! NVPTX divergence model (LLVM's `NVPTXTTIImpl`, as LLVM 19 and 22 apply it):
//! - arguments are divergent unless the function is a kernel (`ptx_kernel` calling convention, or
//!   `!nvvm.annotations !{ptr @f, !"kernel", i32 1}`);
//! - a load is divergent iff it reads generic (0) or local (5) memory; the load rule comes first;
//! - every other atomic (`atomicrmw`, `cmpxchg`, `fence`, atomic `store`) and every `call` is a
//!   source (intrinsics, inline asm and void calls included); `invoke` is not;
//! - nothing is always uniform.
//!
//! Newer rules ([`Rules::Main`], LLVM's development branch as its lit tests expect it):
//! - an `alloca` is a source: its pointer names per-thread (local) memory, so what is loaded
//!   through it is per-thread even where the stored value is uniform;
//! - a load from generic memory (0) is no longer a source: it follows its pointer (local (5)
//!   loads stay sources).
//!
//! Precise mode ([`Rules::Precise`]) takes a sound variant of the generic-load rule: a generic
//! pointer may address the thread's local memory (a local address cast to generic, an alloca, a
//! pointer passed in or loaded), where every thread reads its own memory at the same address. So
//! a generic load stays a source unless its pointer provably addresses global, shared or constant
//! memory: built by `getelementptr`, `bitcast`, `phi` or `select` only from `addrspacecast`s of
//! pointers in such spaces (1, 3, 4, 101) or from globals in them. With that rule the alloca rule
//! adds nothing sound: every load through an alloca's pointer is a source anyway, and the
//! address itself is the same number in every thread (each thread's frame has the same layout),
//! so precise mode keeps an `alloca` uniform.

use super::rules::Rules;
use super::{LlvmFunction, md_tuple, resolve_md};
use crate::ssa::{DivergenceModel, Inst, SourceReason};
use converge_ir::{Metadata, Opcode, Ordering, Value};

/// The NVPTX target model: the [`DivergenceModel`] that names this target's divergence sources
/// ("Convergence And Uniformity", *Divergence*), following the rules listed in this module's
/// documentation. It has no always-uniform operations.
#[derive(Copy, Clone, Debug, Default)]
pub struct Nvptx {
    /// Which release's hooks.
    pub rules: Rules,
}

impl Nvptx {
    /// Whether `f` is a kernel (the `ptx_kernel` calling convention, or an `!nvvm.annotations`
    /// entry `!{ptr @f, !"kernel", i32 1}`): a kernel's arguments are the same for every thread,
    /// so they are uniform; any other function's arguments are divergence sources.
    pub fn is_kernel(f: &LlvmFunction<'_>) -> bool {
        if f.call_conv() == "ptx_kernel" {
            return true;
        }
        let m = f.module;
        let Some(&(_, list)) = m.named_metadata.iter().find(|(name, _)| {
            m.strings.resolve(*name).trim_start_matches('!') == "nvvm.annotations"
        }) else {
            return false;
        };
        let me = f.func.name;
        m.md_lists[list.range()].iter().any(|&node| {
            let Some(ops) = md_tuple(m, node.0) else {
                return false;
            };
            if ops.len() < 3 {
                return false;
            }
            let is_me = match resolve_md(m, ops[0].0) {
                Metadata::Value(_, Value::Func(fid)) => m.functions[fid.0 as usize].name == me,
                Metadata::Value(_, Value::Const(c)) => match m.consts[c.0 as usize].kind {
                    converge_ir::ConstKind::Func(fid) => m.functions[fid.0 as usize].name == me,
                    _ => false,
                },
                _ => false,
            };
            let is_kernel = matches!(resolve_md(m, ops[1].0),
                Metadata::String(s) if m.strings.resolve(*s) == "kernel");
            let one = match resolve_md(m, ops[2].0) {
                Metadata::Value(_, v) => f.const_int(*v) == Some(1),
                _ => false,
            };
            is_me && is_kernel && one
        })
    }
}

impl<'m> DivergenceModel<LlvmFunction<'m>> for Nvptx {
    fn has_branch_divergence(&self, _f: &LlvmFunction<'m>) -> bool {
        true
    }
    fn is_source_arg(&self, f: &LlvmFunction<'m>, _arg: u32) -> bool {
        !Nvptx::is_kernel(f)
    }
    fn is_source_inst(&self, f: &LlvmFunction<'m>, i: Inst) -> bool {
        source(f, i.0, self.rules).is_some()
    }
    fn source_reason(&self, f: &LlvmFunction<'m>, i: Inst) -> Option<SourceReason> {
        source(f, i.0, self.rules)
    }
    fn is_always_uniform(&self, _f: &LlvmFunction<'m>, _i: Inst) -> bool {
        false
    }
    fn is_source_inst_precise(&self, f: &LlvmFunction<'m>, i: Inst) -> bool {
        source(f, i.0, Rules::Precise).is_some()
    }
}

/// Whether `i` is a source under `rules`, and why.
fn source(f: &LlvmFunction<'_>, i: u32, rules: Rules) -> Option<SourceReason> {
    let inst = &f.func.insts[i as usize];
    let load = SourceReason::DivergentLoad(inst.aux);
    match inst.op {
        Opcode::Load => match (inst.aux, rules) {
            (5, _) => Some(load),
            (0, Rules::V19 | Rules::V22) => Some(load),
            (0, Rules::Main) => None,
            (0, Rules::Precise) => (!f
                .operands(i)
                .first()
                .is_some_and(|&p| converge_ir::memspace::addresses_non_local(f.module, f.fid, p)))
            .then_some(load),
            _ => None,
        },
        Opcode::Alloca => (rules == Rules::Main).then_some(SourceReason::PrivateAlloca),
        Opcode::AtomicRmw | Opcode::CmpXchg | Opcode::Fence => Some(SourceReason::Atomic),
        Opcode::Store => (inst.ordering != Ordering::NotAtomic).then_some(SourceReason::Atomic),
        Opcode::Call => Some(if f.asm_constraints(i).is_some() {
            SourceReason::InlineAsm
        } else {
            match f.callee_name(i) {
                Some(n) if converge_ir::intrinsics::nvptx::is_id_intrinsic(n) => {
                    SourceReason::ThreadIdIntrinsic
                }
                // NVPTX makes every call a source, whatever the intrinsic computes.
                _ => SourceReason::Call,
            }
        }),
        _ => None,
    }
}
