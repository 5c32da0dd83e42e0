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
    let red = |s: &str| -> Option<Red> {
        Some(match s {
            "add" | "fadd" => Red::Add,
            "min" | "smin" | "fmin" => Red::Min,
            "max" | "smax" | "fmax" => Red::Max,
            "umin" => Red::UMin,
            "umax" => Red::UMax,
            "and" => Red::And,
            "or" => Red::Or,
            "xor" => Red::Xor,
            _ => return None,
        })
    };
    if let Some(w) = builtins::classify(name) {
        return WorkItem(w);
    }
    if let Some(k) = nvptx(name) {
        return k;
    }
    if let Some(b) = barrier(name) {
        return Comm(self::Comm::Barrier(b));
    }
    match name {
        "llvm.experimental.convergence.entry" => return TokEntry,
        "llvm.experimental.convergence.anchor" => return TokAnchor,
        "llvm.experimental.convergence.loop" => return TokLoop,
        "getSubgroupLocalInvocationId" => return LaneId,
        "llvm.amdgcn.mbcnt.lo" => return MbcntLo,
        "llvm.amdgcn.mbcnt.hi" => return MbcntHi,
        "llvm.amdgcn.wavefrontsize" => return WaveSize,
        "llvm.amdgcn.readfirstlane" | "subgroupBroadcastFirst" => {
            return Comm(if name.starts_with("llvm") {
                self::Comm::ReadFirstLane
            } else {
                self::Comm::SgBroadcastFirst
            });
        }
        "llvm.amdgcn.readlane" => return Comm(self::Comm::ReadLane),
        "llvm.amdgcn.if.break" => return Comm(self::Comm::IfBreak),
        "llvm.amdgcn.permlane64" => return Comm(self::Comm::Permlane64),
        "llvm.amdgcn.ds.bpermute" => return Comm(self::Comm::Bpermute),
        "subgroupBallot" => return Comm(self::Comm::Ballot),
        "subgroupAdd" => return Comm(self::Comm::Reduce(Red::Add)),
        "subgroupShuffle" => return Comm(self::Comm::SgShuffle),
        "llvm.amdgcn.inverse.ballot" => return InverseBallot,
        "llvm.amdgcn.wwm"
        | "llvm.amdgcn.strict.wwm"
        | "llvm.amdgcn.wqm"
        | "llvm.amdgcn.set.inactive" => {
            return Identity;
        }
        _ => {}
    }
    let base = strip_type_suffix(name);
    // `llvm.amdgcn.if.break.i64.i64`: the mangled name, not a per-thread `llvm.amdgcn.if*`.
    if base == "llvm.amdgcn.if.break" {
        return Comm(self::Comm::IfBreak);
    }
    if base == "llvm.amdgcn.readfirstlane" {
        return Comm(self::Comm::ReadFirstLane);
    }
    if base == "llvm.amdgcn.readlane" {
        return Comm(self::Comm::ReadLane);
    }
    if base == "llvm.amdgcn.ballot" {
        return Comm(self::Comm::Ballot);
    }
    if base == "llvm.amdgcn.icmp" {
        return Comm(self::Comm::AmdIcmp);
    }
    if base == "llvm.amdgcn.fcmp" {
        return Comm(self::Comm::AmdFcmp);
    }
    if base == "llvm.amdgcn.permlane64" {
        return Comm(self::Comm::Permlane64);
    }
    for (n, cross, var) in [
        ("llvm.amdgcn.permlane16", false, false),
        ("llvm.amdgcn.permlanex16", true, false),
        ("llvm.amdgcn.permlane16.var", false, true),
        ("llvm.amdgcn.permlanex16.var", true, true),
    ] {
        if base == n {
            return Comm(self::Comm::Permlane16 { cross, var });
        }
    }
    if base == "llvm.amdgcn.inverse.ballot" {
        return InverseBallot;
    }
    if matches!(
        base,
        "llvm.amdgcn.wwm"
            | "llvm.amdgcn.strict.wwm"
            | "llvm.amdgcn.wqm"
            | "llvm.amdgcn.set.inactive"
    ) {
        return Identity;
    }
    if let Some(r) = base.strip_prefix("llvm.amdgcn.wave.reduce.").and_then(red) {
        return Comm(self::Comm::Reduce(r));
    }
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

/// Work-group barriers: 0 plain, 1 `and`, 2 `or`, 3 `popc` (NVVM's reducing `barrier0`).
fn barrier(name: &str) -> Option<u8> {
    Some(match name {
        "llvm.amdgcn.s.barrier"
        | "barrier"
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
