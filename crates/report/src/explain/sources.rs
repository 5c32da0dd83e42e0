//! Which target rule makes a value a divergence source, in words: thread-id intrinsics, other
//! divergent intrinsics, per-lane registers and inline asm, loads from per-thread memory, atomics,
//! calls, and arguments the calling convention passes per thread.

use super::analysed::Analysed;
use super::reasons::SourceRule;
use converge_ir::{InstId, Opcode, intrinsics};
use converge_uniformity::llvm::Target;

pub(super) fn argument_rule(a: &Analysed<'_>) -> String {
    match &a.target {
        Target::Nvptx(_) => "argument of a non-kernel function (NVPTX)".to_string(),
        Target::Amdgpu(_) => format!(
            "argument without `inreg` of a `{}` function (AMDGPU: only kernel arguments and inreg shader arguments are uniform)",
            a.lf.call_conv()
        ),
        Target::Uniform => "argument".to_string(),
    }
}

/// Whether the target's intrinsic table (in the IR layer, shared with the analysis and the
/// simulator) says intrinsic `name` returns the executing thread's own id.
fn is_thread_id_intrinsic(t: &Target, name: &str) -> bool {
    match t {
        Target::Amdgpu(_) => intrinsics::amdgpu::is_id_intrinsic(name),
        Target::Nvptx(_) => intrinsics::nvptx::is_id_intrinsic(name),
        Target::Uniform => false,
    }
}

/// Which target rule made instruction `i` a source.
pub(super) fn classify_source(a: &Analysed<'_>, i: u32) -> (SourceRule, String) {
    let f = a.lf.func;
    let m = a.module();
    let inst = &f.insts[i as usize];
    match inst.op {
        Opcode::Load => (
            SourceRule::Load,
            format!(
                "load from address space {} ({})",
                inst.aux,
                addrspace_name(&a.target, inst.aux)
            ),
        ),
        Opcode::AtomicRmw | Opcode::CmpXchg | Opcode::Fence | Opcode::Store => (
            SourceRule::Atomic,
            format!(
                "{} is atomic: each thread sees a different value",
                converge_ir::print::opcode_name(inst.op)
            ),
        ),
        Opcode::AddrSpaceCast => scratch_address(),
        Opcode::Invoke => (
            SourceRule::Invoke,
            "invoke: the result may differ per thread".to_string(),
        ),
        _ => {
            if let Some(c) = a.lf.asm_constraints(i) {
                return (
                    SourceRule::InlineAsm,
                    format!("inline asm with constraints \"{c}\" writes a per-lane register"),
                );
            }
            match a.lf.callee_name(i) {
                Some(n) if intrinsics::amdgpu::is_addrspacecast_intrinsic(n) => scratch_address(),
                Some(n) if n.starts_with("llvm.read_register") => (
                    SourceRule::ReadRegister,
                    format!("{n} reads a per-lane register"),
                ),
                Some(n) if is_thread_id_intrinsic(&a.target, n) => (
                    SourceRule::ThreadId,
                    format!("{n} is a thread-id intrinsic"),
                ),
                Some(n) if n.starts_with("llvm.") => (
                    SourceRule::Intrinsic,
                    format!("{n} is a divergent intrinsic on this target"),
                ),
                Some(n) => (
                    SourceRule::Call,
                    format!(
                        "call to @{n}: the result of an unknown function may differ per thread"
                    ),
                ),
                None => {
                    let callee = f
                        .call(InstId(i))
                        .map(|c| m.value_name(a.fid(), c.callee))
                        .unwrap_or_default();
                    (
                        SourceRule::Call,
                        format!("indirect call through {callee}: the result may differ per thread"),
                    )
                }
            }
        }
    }
}

/// The only `addrspacecast` a target model names a source: AMDGPU's private-to-flat cast where
/// scratch is globally addressable.
fn scratch_address() -> (SourceRule, String) {
    (
        SourceRule::ScratchAddress,
        "private-to-flat address cast with globally addressable scratch (AMDGPU gfx1250): each lane's scratch has its own flat address".to_string(),
    )
}

fn addrspace_name(t: &Target, aspace: u32) -> &'static str {
    match (t, aspace) {
        (Target::Amdgpu(_), 0) => "flat",
        (Target::Amdgpu(_), 5) => "private",
        (Target::Amdgpu(_), 13) => "VGPR",
        (Target::Nvptx(_), 0) => "generic",
        (Target::Nvptx(_), 5) => "local",
        _ => "per-thread memory",
    }
}
