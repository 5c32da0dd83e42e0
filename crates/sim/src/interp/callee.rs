//! Callee classification: what a call computes, by the callee's name, the target and whether it is
//! convergent (the communicating operations the scheduler synchronises, thread and lane ids, pure and
//! per-thread values).

use super::*;

/// The target whose id intrinsics and wave size apply.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// AMDGPU: `llvm.amdgcn.*` ids, wave size 64.
    Amdgpu,
    /// NVPTX: `llvm.nvvm.read.ptx.sreg.*` registers, warp size 32.
    Nvptx,
    /// Any other triple, or none: no target intrinsics, wave size 64.
    Generic,
}

impl Target {
    /// From a module triple.
    pub fn from_triple(t: Option<&str>) -> Target {
        match t {
            Some(t) if t.starts_with("amdgcn") => Target::Amdgpu,
            Some(t) if t.starts_with("nvptx") => Target::Nvptx,
            _ => Target::Generic,
        }
    }
    /// Threads per wave (AMDGPU) or warp (NVPTX): the group communicating operations see.
    pub fn wave_size(self) -> u32 {
        match self {
            Target::Nvptx => 32,
            _ => 64,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Comm {
    ReadFirstLane,
    ReadLane,
    /// `permlane16` / `permlanex16` (`cross`), with a lane select per 16-lane row from the
    /// scalar operands, or from each lane's own operand (`var`, gfx12).
    Permlane16 {
        cross: bool,
        var: bool,
    },
    Ballot,
    AmdIcmp,
    AmdFcmp,
    IfBreak,
    Reduce(Red),
    Permlane64,
    Bpermute,
    NvBallot,
    NvAny,
    NvAll,
    NvUni,
    NvActiveMask,
    NvShfl(u8),
    SgBroadcastFirst,
    SgShuffle,
    /// A work-group barrier (`llvm.nvvm.barrier0` and its `.and`/`.or`/`.popc` reductions = 1, 2,
    /// 3; `llvm.amdgcn.s.barrier`, OpenCL `barrier`): every thread of the group must reach it
    /// converged.
    Barrier(u8),
    /// Any other convergent call: its value (if any) identifies the set of communicating threads.
    Opaque,
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Red {
    Add,
    Min,
    Max,
    UMin,
    UMax,
    And,
    Or,
    Xor,
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum CallKind {
    TokEntry,
    TokAnchor,
    TokLoop,
    Comm(Comm),
    /// A work-item query (ids, sizes; OpenCL builtins, NVVM special registers, AMDGPU ids).
    WorkItem(builtins::WorkItem),
    /// A function of the module with a body: executed in a new activation.
    Defined(u32),
    LaneId,
    MbcntLo,
    MbcntHi,
    WaveSize,
    /// A pure function of the operands.
    Pure,
    /// The same value in every thread (a declared function with the `alwaysuniform` attribute).
    Uniform,
    /// A different deterministic value per thread (unknown calls, divergence sources).
    PerThread,
    InverseBallot,
    Identity,
    Ctpop,
    MinMax(Red),
    Abs,
}

/// Target and name classification of a callee.
pub(crate) fn classify_callee(name: &str, convergent: bool, target: Target) -> CallKind {
    use CallKind::*;
    if let Some(w) = builtins::classify(name) {
        return WorkItem(w);
    }
    if let Some(k) = nvptx(name) {
        return k;
    }
    if let Some(k) = amdgpu(name) {
        return k;
    }
    if let Some(b) = barrier(name) {
        return Comm(self::Comm::Barrier(b));
    }
    {
        use converge_ir::intrinsics::ConvergenceControl as C;
        match C::of(name) {
            Some(C::Entry) => return TokEntry,
            Some(C::Anchor) => return TokAnchor,
            Some(C::Loop) => return TokLoop,
            None => {}
        }
    }
    match name {
        "getSubgroupLocalInvocationId" => return LaneId,
        "subgroupBroadcastFirst" => return Comm(self::Comm::SgBroadcastFirst),
        "subgroupBallot" => return Comm(self::Comm::Ballot),
        "subgroupAdd" => return Comm(self::Comm::Reduce(Red::Add)),
        "subgroupShuffle" => return Comm(self::Comm::SgShuffle),
        _ => {}
    }
    let base = strip_type_suffix(name);
    if base == "llvm.ctpop" {
        return Ctpop;
    }
    if base == "llvm.abs" {
        return Abs;
    }
    for (n, r) in [
        ("llvm.smin", Red::Min),
        ("llvm.smax", Red::Max),
        ("llvm.umin", Red::UMin),
        ("llvm.umax", Red::UMax),
    ] {
        if base == n {
            return MinMax(r);
        }
    }
    if name.starts_with("llvm.amdgcn.") {
        // What the intrinsic computes comes from the one table (`converge_ir::intrinsics`).
        use converge_ir::intrinsics::amdgpu::{Computes, computes};
        return match computes(name) {
            Some(Computes::PerLane) => PerThread,
            _ if convergent => Comm(self::Comm::Opaque),
            Some(Computes::GroupUniform) => Uniform,
            None => Pure,
        };
    }
    if name.starts_with("llvm.nvvm.") {
        return if convergent {
            Comm(self::Comm::Opaque)
        } else {
            PerThread
        };
    }
    if name.starts_with("llvm.") {
        return Pure;
    }
    let _ = target;
    if convergent {
        Comm(self::Comm::Opaque)
    } else {
        PerThread
    }
}

/// OpenCL's work-group barriers (AMDGPU's and NVPTX's come from their tables): 0 plain, 1 `and`, 2 `or`, 3 `popc` (NVVM's reducing `barrier0`).
fn barrier(name: &str) -> Option<u8> {
    Some(match name {
        "barrier"
        | "work_group_barrier"
        | "_Z7barrierj"
        | "_Z18work_group_barrierj"
        | "_Z18work_group_barrierj12memory_scope" => 0,
        _ => return None,
    })
}

/// NVPTX intrinsics, executed as the one table (`converge_ir::intrinsics::nvptx`) says they are:
/// the lane and the warp size, votes, shuffles, reductions, barriers (the CTA's id and size
/// registers are work-item queries, [`builtins::classify`]). `None` for the rest, among them the
/// registers that are a value of the thread's own without a model here (`warpid`, the lane
/// masks): the caller's fallback runs them per thread.
fn nvptx(name: &str) -> Option<CallKind> {
    use converge_ir::intrinsics::nvptx::{Barrier, Nvvm, Redux, Shuffle, Sreg, Vote, lookup};
    Some(match lookup(name)? {
        Nvvm::Sreg(Sreg::LaneId) => CallKind::LaneId,
        Nvvm::Sreg(Sreg::WarpSize) => CallKind::WaveSize,
        Nvvm::Sreg(_) => return None,
        Nvvm::Vote(v) => CallKind::Comm(match v {
            Vote::All => Comm::NvAll,
            Vote::Any => Comm::NvAny,
            Vote::Uni => Comm::NvUni,
            Vote::Ballot => Comm::NvBallot,
        }),
        Nvvm::Shuffle(s) => CallKind::Comm(Comm::NvShfl(match s {
            Shuffle::Idx => 0,
            Shuffle::Up => 1,
            Shuffle::Down => 2,
            Shuffle::Bfly => 3,
        })),
        Nvvm::Redux(op) => CallKind::Comm(Comm::Reduce(match op {
            Redux::Add => Red::Add,
            Redux::Min => Red::Min,
            Redux::Max => Red::Max,
            Redux::UMin => Red::UMin,
            Redux::UMax => Red::UMax,
            Redux::And => Red::And,
            Redux::Or => Red::Or,
            Redux::Xor => Red::Xor,
        })),
        Nvvm::Barrier(b) => CallKind::Comm(Comm::Barrier(match b {
            Barrier::Plain => 0,
            Barrier::And => 1,
            Barrier::Or => 2,
            Barrier::Popc => 3,
        })),
        Nvvm::ActiveMask => CallKind::Comm(Comm::NvActiveMask),
    })
}

/// AMDGPU intrinsics, executed as the one table (`converge_ir::intrinsics::amdgpu`) says they are:
/// `None` for the rest (ids and kernel pointers are work-item queries, [`builtins::classify`];
/// the others run from the table's `computes` in the caller's fallback).
fn amdgpu(name: &str) -> Option<CallKind> {
    use converge_ir::intrinsics::amdgpu::{Op, Reduce, op};
    Some(match op(name)? {
        Op::ReadFirstLane => CallKind::Comm(Comm::ReadFirstLane),
        Op::ReadLane => CallKind::Comm(Comm::ReadLane),
        Op::Ballot => CallKind::Comm(Comm::Ballot),
        Op::Icmp => CallKind::Comm(Comm::AmdIcmp),
        Op::Fcmp => CallKind::Comm(Comm::AmdFcmp),
        Op::IfBreak => CallKind::Comm(Comm::IfBreak),
        Op::Permlane16 { cross, var } => CallKind::Comm(Comm::Permlane16 { cross, var }),
        Op::Permlane64 => CallKind::Comm(Comm::Permlane64),
        Op::Bpermute => CallKind::Comm(Comm::Bpermute),
        Op::InverseBallot => CallKind::InverseBallot,
        Op::Identity => CallKind::Identity,
        Op::MbcntLo => CallKind::MbcntLo,
        Op::MbcntHi => CallKind::MbcntHi,
        Op::WaveSize => CallKind::WaveSize,
        Op::WaveReduce(r) => CallKind::Comm(Comm::Reduce(match r {
            Reduce::Add => Red::Add,
            Reduce::Min => Red::Min,
            Reduce::Max => Red::Max,
            Reduce::UMin => Red::UMin,
            Reduce::UMax => Red::UMax,
            Reduce::And => Red::And,
            Reduce::Or => Red::Or,
            Reduce::Xor => Red::Xor,
        })),
        Op::Barrier => CallKind::Comm(Comm::Barrier(0)),
    })
}

/// Whether the simulator computes the result of a call of `name` from the operands and the
/// communicating set alone (other convergent calls get a value that names the call site, which
/// differs between programs): the readers and votes, masks, reductions, shuffles and
/// `permlane64`.
pub fn result_is_semantic(name: &str) -> bool {
    matches!(
        classify_callee(name, true, Target::Generic),
        CallKind::Comm(
            Comm::ReadFirstLane
                | Comm::ReadLane
                | Comm::Ballot
                | Comm::AmdIcmp
                | Comm::AmdFcmp
                | Comm::Reduce(_)
                | Comm::Permlane64
                | Comm::NvBallot
                | Comm::NvAny
                | Comm::NvAll
                | Comm::NvUni
                | Comm::NvShfl(_)
                | Comm::SgBroadcastFirst
                | Comm::SgShuffle
        )
    )
}

/// `llvm.amdgcn.readfirstlane.i32` -> `llvm.amdgcn.readfirstlane`: drops trailing type suffixes.
pub(crate) fn strip_type_suffix(name: &str) -> &str {
    let mut s = name;
    while let Some((head, last)) = s.rsplit_once('.') {
        let is_ty = last.starts_with('i')
            && last[1..].chars().all(|c| c.is_ascii_digit())
            && last.len() > 1
            || matches!(
                last,
                "f16" | "f32" | "f64" | "bf16" | "p0" | "p1" | "p3" | "p5"
            )
            || (last.starts_with('v')
                && last.len() > 1
                && last[1..2].chars().all(|c| c.is_ascii_digit()));
        if !is_ty {
            break;
        }
        s = head;
    }
    s
}

/// The callee name of call instruction `i` (for reports).
pub fn callee_name(p: &Program<'_>, i: InstId) -> String {
    p.callee_name(i.0 as usize)
}

/// The callee name of call instruction `i` of `f`.
pub fn callee_name_of(m: &Module, f: &Function, i: InstId) -> String {
    let inst = &f.insts[i.0 as usize];
    if !inst.op.is_call_like() {
        return String::new();
    }
    match f.calls[inst.aux as usize].callee {
        Value::Func(fid) => sym(m, m.functions[fid.0 as usize].name).to_string(),
        _ => "<indirect>".to_string(),
    }
}
