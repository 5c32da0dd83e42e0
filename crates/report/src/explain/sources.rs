//! A divergence source's rule in words. *Which* rule makes a value a source is the target
//! model's answer ([`DivergenceModel::source_reason`](converge_uniformity::DivergenceModel::source_reason),
//! asked through [`Analysed::source_reason`]); this module only names it and fills in the
//! details the reader needs (the intrinsic, the address space, the callee, the asm constraints).

use super::analysed::Analysed;
use super::reasons::SourceRule;
use converge_ir::InstId;
use converge_uniformity::SourceReason;
use converge_uniformity::llvm::Target;

/// Why argument `arg` is a source, in words (the calling convention's rule).
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

/// The rule and its words for instruction `i`, which the target model names a source for
/// `reason`.
pub(super) fn source_rule(a: &Analysed<'_>, i: u32, reason: SourceReason) -> (SourceRule, String) {
    let inst = &a.lf.func.insts[i as usize];
    let callee = a.lf.callee_name(i);
    match reason {
        SourceReason::DivergentLoad(aspace) => (
            SourceRule::Load,
            match callee {
                // An intrinsic that loads (AMDGPU's `global.load.tr`).
                Some(n) => format!(
                    "{n} loads from address space {aspace} ({})",
                    addrspace_name(&a.target, aspace)
                ),
                None => format!(
                    "load from address space {aspace} ({})",
                    addrspace_name(&a.target, aspace)
                ),
            },
        ),
        SourceReason::Atomic => (
            SourceRule::Atomic,
            format!(
                "{} is atomic: each thread sees a different value",
                converge_ir::print::opcode_name(inst.op)
            ),
        ),
        SourceReason::ScratchAddressCast => (
            SourceRule::ScratchAddress,
            "private-to-flat address cast with globally addressable scratch (AMDGPU gfx1250): each lane's scratch has its own flat address".to_string(),
        ),
        SourceReason::Invoke => (
            SourceRule::Invoke,
            "invoke: the result may differ per thread".to_string(),
        ),
        SourceReason::InlineAsm => (
            SourceRule::InlineAsm,
            format!(
                "inline asm with constraints \"{}\" writes a per-lane register",
                a.lf.asm_constraints(i).unwrap_or_default()
            ),
        ),
        SourceReason::PerLaneRegister => (
            SourceRule::ReadRegister,
            format!(
                "{} reads a per-lane register",
                callee.unwrap_or(converge_ir::intrinsics::READ_REGISTER)
            ),
        ),
        SourceReason::ThreadIdIntrinsic => (
            SourceRule::ThreadId,
            format!("{} is a thread-id intrinsic", callee.unwrap_or_default()),
        ),
        SourceReason::PerLaneIntrinsic => (
            SourceRule::Intrinsic,
            format!(
                "{} is a divergent intrinsic on this target",
                callee.unwrap_or_default()
            ),
        ),
        SourceReason::PrivateAlloca => (
            SourceRule::PrivateAlloca,
            "alloca: its pointer names the thread's own (local) memory".to_string(),
        ),
        SourceReason::Argument | SourceReason::Other => (
            SourceRule::Other,
            "the target model names this value a divergence source".to_string(),
        ),
        SourceReason::Call => match callee {
            // A call the target makes a source whatever it calls (NVPTX: every call): an
            // intrinsic is still worded as one.
            Some(n) if n.starts_with("llvm.") => (
                SourceRule::Intrinsic,
                format!("{n} is a divergent intrinsic on this target"),
            ),
            Some(n) => (
                SourceRule::Call,
                format!("call to @{n}: the result of an unknown function may differ per thread"),
            ),
            None => {
                let callee = a
                    .lf
                    .func
                    .call(InstId(i))
                    .map(|c| a.module().value_name(a.fid(), c.callee))
                    .unwrap_or_default();
                (
                    SourceRule::Call,
                    format!("indirect call through {callee}: the result may differ per thread"),
                )
            }
        },
    }
}

fn addrspace_name(t: &Target, aspace: u32) -> &'static str {
    match (t, aspace) {
        (Target::Amdgpu(_), 0) => "flat",
        (Target::Amdgpu(_), 1) => "global",
        (Target::Amdgpu(_), 5) => "private",
        (Target::Amdgpu(_), 13) => "VGPR",
        (Target::Nvptx(_), 0) => "generic",
        (Target::Nvptx(_), 5) => "local",
        _ => "per-thread memory",
    }
}
