//! AMDGPU intrinsics: what each computes for the lanes of a wave that execute it together, the
//! one table the uniformity analysis (which intrinsics are divergence sources, which are always
//! uniform) and the simulator (which it executes as a value of each lane's own) both read.
//!
//! - [`is_source_intrinsic`]: the families LLVM's AMDGPU backend lists as divergence sources
//!   (thread and lane ids, per-lane hardware state, cross-lane movements whose result depends on
//!   the lane, atomics' old values, matrix fragments, control-flow masks);
//! - [`is_always_uniform_intrinsic`]: the families whose result is the same in every lane of the
//!   converged group (`readfirstlane`, `readlane`, `ballot`, the comparison masks, …);
//! - [`computes`]: the fact behind both, including per-lane families LLVM does not list as
//!   sources (the older `atomic.inc`/`dec`, every global/flat/buffer atomic operation, the
//!   transposing loads under their old names). The analysis's llvm mode reproduces LLVM's list;
//!   precise mode and the simulator use the fact.

/// What an AMDGPU intrinsic computes for the converged lanes that execute it together.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Computes {
    /// A value of each lane's own (differs between lanes even for equal operands).
    PerLane,
    /// The same value in every lane of the group, whatever the operands.
    GroupUniform,
}

/// The fact for intrinsic `name` (full name, possibly type-mangled): `None` for the intrinsics
/// whose result is a function of their operands (or that the table does not know).
pub fn computes(name: &str) -> Option<Computes> {
    if is_always_uniform_intrinsic(name) {
        return Some(Computes::GroupUniform);
    }
    if lookup(name, is_source_intrinsic) || lookup(name, is_per_lane_family) {
        return Some(Computes::PerLane);
    }
    None
}

/// The AMDGPU intrinsics whose operation the simulator executes with a model of its own (the
/// rest it executes from [`computes`]): what each one *is*, named only here.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `readfirstlane`: the operand of the lowest active lane.
    ReadFirstLane,
    /// `readlane`: the operand of the lane the second operand names.
    ReadLane,
    /// `ballot`: the mask of the active lanes whose condition holds.
    Ballot,
    /// `icmp`: the mask of the active lanes whose integer comparison holds.
    Icmp,
    /// `fcmp`: the mask of the active lanes whose floating-point comparison holds.
    Fcmp,
    /// `if.break`: the loop's exit mask accumulated over the active lanes.
    IfBreak,
    /// `permlane16` / `permlanex16` (`cross`), with a lane select per 16-lane row from the scalar
    /// operands, or from each lane's own operand (`var`, gfx12).
    Permlane16 {
        /// Reads the other row of the pair (`permlanex16`).
        cross: bool,
        /// The selects are per-lane operands (`.var`).
        var: bool,
    },
    /// `permlane64`: the operand of the lane in the other half of the wave.
    Permlane64,
    /// `ds.bpermute`: the operand of the lane each lane's byte address names.
    Bpermute,
    /// `inverse.ballot`: the lane's own bit of a mask.
    InverseBallot,
    /// `wwm`, `strict.wwm`, `wqm`, `set.inactive`: the operand itself (they change how the
    /// inactive lanes are computed, not the active lanes' values).
    Identity,
    /// `mbcnt.lo`: the set bits of the mask below the lane (lanes 0-31).
    MbcntLo,
    /// `mbcnt.hi`: the set bits of the mask below the lane (lanes 32-63), plus the operand.
    MbcntHi,
    /// `wavefrontsize`: the wave size.
    WaveSize,
    /// `wave.reduce.OP`: a reduction over the active lanes.
    WaveReduce(Reduce),
    /// `s.barrier`: a work-group barrier.
    Barrier,
}

/// The operation of a `wave.reduce.OP` ([`Op::WaveReduce`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// `add`, `fadd`.
    Add,
    /// `min`, `smin`, `fmin`.
    Min,
    /// `max`, `smax`, `fmax`.
    Max,
    /// `umin`.
    UMin,
    /// `umax`.
    UMax,
    /// `and`.
    And,
    /// `or`.
    Or,
    /// `xor`.
    Xor,
}

/// The overloaded intrinsics of [`Op`] (looked up through their type mangling), by name after
/// `llvm.amdgcn.`.
const OPS: &[(&str, Op)] = &[
    ("readfirstlane", Op::ReadFirstLane),
    ("readlane", Op::ReadLane),
    ("ballot", Op::Ballot),
    ("icmp", Op::Icmp),
    ("fcmp", Op::Fcmp),
    ("if.break", Op::IfBreak),
    ("permlane64", Op::Permlane64),
    (
        "permlane16",
        Op::Permlane16 {
            cross: false,
            var: false,
        },
    ),
    (
        "permlanex16",
        Op::Permlane16 {
            cross: true,
            var: false,
        },
    ),
    (
        "permlane16.var",
        Op::Permlane16 {
            cross: false,
            var: true,
        },
    ),
    (
        "permlanex16.var",
        Op::Permlane16 {
            cross: true,
            var: true,
        },
    ),
    ("inverse.ballot", Op::InverseBallot),
    ("wwm", Op::Identity),
    ("strict.wwm", Op::Identity),
    ("wqm", Op::Identity),
    ("set.inactive", Op::Identity),
];

/// The intrinsics of [`Op`] that are not overloaded: only their exact name is theirs.
const FIXED_OPS: &[(&str, Op)] = &[
    ("mbcnt.lo", Op::MbcntLo),
    ("mbcnt.hi", Op::MbcntHi),
    ("wavefrontsize", Op::WaveSize),
    ("ds.bpermute", Op::Bpermute),
    ("s.barrier", Op::Barrier),
];

/// What intrinsic `name` (full, possibly type-mangled) is, for the ones of [`Op`].
pub fn op(name: &str) -> Option<Op> {
    let n = name.strip_prefix("llvm.amdgcn.")?;
    if let Some(&(_, o)) = FIXED_OPS.iter().find(|(f, _)| *f == n) {
        return Some(o);
    }
    find(name, |n| {
        let n = n.strip_prefix("llvm.amdgcn.")?;
        if let Some(&(_, o)) = OPS.iter().find(|(f, _)| *f == n) {
            return Some(o);
        }
        Some(Op::WaveReduce(match n.strip_prefix("wave.reduce.")? {
            "add" | "fadd" => Reduce::Add,
            "min" | "smin" | "fmin" => Reduce::Min,
            "max" | "smax" | "fmax" => Reduce::Max,
            "umin" => Reduce::UMin,
            "umax" => Reduce::UMax,
            "and" => Reduce::And,
            "or" => Reduce::Or,
            "xor" => Reduce::Xor,
            _ => return None,
        }))
    })
}

/// Names of every intrinsic of [`Op`] (unmangled), for the cross-checks.
pub fn op_names() -> impl Iterator<Item = (String, Op)> {
    OPS.iter()
        .chain(FIXED_OPS)
        .map(|&(n, o)| (format!("llvm.amdgcn.{n}"), o))
}

/// Whether `name` (full, possibly type-mangled) is always uniform: LLVM's AMDGPU
/// `isAlwaysUniform` intrinsics.
pub fn is_always_uniform_intrinsic(name: &str) -> bool {
    name.strip_prefix("llvm.amdgcn.")
        .is_some_and(|n| lookup(n, |n| ALWAYS_UNIFORM.contains(&n)))
}

/// Whether `name` (full, possibly type-mangled) returns the executing thread's own id: a
/// work-item id in its work-group (`workitem.id.x/y/z`, R600's `read.tidig.x/y/z`) or its lane
/// in the wave (`mbcnt.lo/hi`, counting the set mask bits below the lane). Every one is a
/// divergence source ([`is_source_intrinsic`]); the explanations name this rule apart from the
/// other per-lane sources.
pub fn is_id_intrinsic(name: &str) -> bool {
    lookup(name, |n| {
        if let Some(r) = n.strip_prefix("llvm.r600.read.tidig.") {
            return matches!(r, "x" | "y" | "z");
        }
        n.strip_prefix("llvm.amdgcn.")
            .is_some_and(|n| IDS.contains(&n))
    })
}

/// Whether `name` (full, possibly type-mangled) is `llvm.amdgcn.addrspacecast.nonnull`, the
/// intrinsic form of `addrspacecast` (an address cast that may assume a non-null source): what it
/// computes depends on the address spaces, as for the instruction.
pub fn is_addrspacecast_intrinsic(name: &str) -> bool {
    lookup(name, |n| n == "llvm.amdgcn.addrspacecast.nonnull")
}

/// `llvm.amdgcn.workitem.id.x`, the work-item id in dimension x (the lane's position in its wave
/// when the x dimension fills whole waves).
pub const WORKITEM_ID_X: &str = "llvm.amdgcn.workitem.id.x";

/// What an AMDGPU work-item query returns: the ids of the executing work-item and its
/// work-group, and the kernel's pointers to its dispatch packet and implicit arguments. The
/// simulator answers them; the work-item ids are divergence sources ([`is_source_intrinsic`]),
/// the rest are the same for every work-item of a dispatch (work-group ids for the work-items of
/// one group).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WorkItem {
    /// `workitem.id.x/y/z`: the work-item's id in its work-group, in dimension 0, 1, 2.
    LocalId(u8),
    /// `workgroup.id.x/y/z`: the work-group's id, in dimension 0, 1, 2.
    GroupId(u8),
    /// `dispatch.ptr`: the kernel dispatch packet (constant memory).
    DispatchPtr,
    /// `implicitarg.ptr`: the implicit kernel arguments (constant memory).
    ImplicitArgPtr,
}

/// The work-item queries by name after `llvm.amdgcn.` (none is overloaded).
const WORK_ITEMS: &[(&str, WorkItem)] = &[
    ("workitem.id.x", WorkItem::LocalId(0)),
    ("workitem.id.y", WorkItem::LocalId(1)),
    ("workitem.id.z", WorkItem::LocalId(2)),
    ("workgroup.id.x", WorkItem::GroupId(0)),
    ("workgroup.id.y", WorkItem::GroupId(1)),
    ("workgroup.id.z", WorkItem::GroupId(2)),
    ("dispatch.ptr", WorkItem::DispatchPtr),
    ("implicitarg.ptr", WorkItem::ImplicitArgPtr),
];

/// What work-item query `name` (a full intrinsic name) is.
pub fn work_item(name: &str) -> Option<WorkItem> {
    let n = name.strip_prefix("llvm.amdgcn.")?;
    WORK_ITEMS.iter().find(|(w, _)| *w == n).map(|&(_, q)| q)
}

/// Every work-item query with its full name, for the cross-checks.
pub fn work_item_names() -> impl Iterator<Item = (String, WorkItem)> {
    WORK_ITEMS
        .iter()
        .map(|&(n, q)| (format!("llvm.amdgcn.{n}"), q))
}

/// The dimension (0, 1, 2 for x, y, z) of work-item id intrinsic `name` (`workitem.id.x/y/z`).
pub fn workitem_id_dim(name: &str) -> Option<usize> {
    match work_item(name)? {
        WorkItem::LocalId(d) => Some(d as usize),
        _ => None,
    }
}

/// Whether AMDGPU register `reg` (as `llvm.read_register` names it in its metadata string) holds
/// a value of each lane's own: the vector registers (`v0`, `v[0:1]`) and the accumulation
/// registers (`a0`), not `vcc` (a wave-wide mask in scalar registers) nor the scalar registers
/// (`s0`, `exec`, `m0`, …). A read of an `i1` from any register is per-lane too (a lane's bit of
/// a mask): see [`crate::intrinsics::READ_REGISTER`].
pub fn is_per_lane_register(reg: &str) -> bool {
    (reg.starts_with('v') || reg.starts_with('a')) && !reg.starts_with("vcc")
}

/// Whether `name` (full, possibly type-mangled) is `permlane16` or `permlanex16` with its lane
/// selects in scalar operands (not the `.var` forms): each lane reads `src0` of the lane the
/// selects name in its row, so the result is a value of each lane's own unless the selects
/// and operands make every lane read the same value.
pub fn is_scalar_select_permlane16(name: &str) -> bool {
    matches!(op(name), Some(Op::Permlane16 { var: false, .. }))
}

/// Whether `name` is one of gfx12's transposing global loads (`global.load.tr.b64`/`.b128` and
/// the overloaded `global.load.tr.<type>` of newer LLVM): each lane reads a different element.
pub fn is_transposing_load(name: &str) -> bool {
    name.starts_with("llvm.amdgcn.global.load.tr.")
}

/// Whether `name` (full, possibly type-mangled) is the structurizer's `if` or `else`: a pair of
/// the lane's own condition and (element 1) the wave's saved execution mask, the same in every
/// lane.
pub fn is_if_else(name: &str) -> bool {
    lookup(name, |n| n == "llvm.amdgcn.if" || n == "llvm.amdgcn.else")
}

/// Whether `name` is one of the `s.*` scalar operations: the hardware computes one value per
/// wave (in a scalar register), whatever the lanes' operands.
pub fn is_scalar_op(name: &str) -> bool {
    name.starts_with("llvm.amdgcn.s.")
}

/// The thread and lane ids among [`SOURCES`].
const IDS: &[&str] = &[
    "workitem.id.x",
    "workitem.id.y",
    "workitem.id.z",
    "mbcnt.lo",
    "mbcnt.hi",
];

/// Per-lane families beyond LLVM's source list: atomics return each lane's old value, the
/// transposing loads read a different element per lane.
fn is_per_lane_family(name: &str) -> bool {
    let Some(n) = name.strip_prefix("llvm.amdgcn.") else {
        return false;
    };
    const PREFIXES: &[&str] = &[
        "atomic.",
        "global.atomic.",
        "flat.atomic.",
        "raw.buffer.atomic.",
        "raw.ptr.buffer.atomic.",
        "struct.buffer.atomic.",
        "struct.ptr.buffer.atomic.",
        "image.atomic.",
        "global.load.tr",
        "mbcnt",
        "interp.",
    ];
    PREFIXES.iter().any(|p| n.starts_with(p)) && n != "if.break"
}

/// Sample names of every family the table knows, for the cross-checks (one per entry).
pub fn sample_names() -> Vec<(String, Computes)> {
    let mut v: Vec<(String, Computes)> = SOURCES
        .iter()
        .map(|n| (format!("llvm.amdgcn.{n}"), Computes::PerLane))
        .collect();
    v.extend(
        ALWAYS_UNIFORM
            .iter()
            .map(|n| (format!("llvm.amdgcn.{n}"), Computes::GroupUniform)),
    );
    v.extend(
        FP_ATOMICS
            .iter()
            .map(|n| (format!("llvm.amdgcn.global.atomic.{n}"), Computes::PerLane)),
    );
    v.extend(BUFFER_ATOMICS.iter().map(|n| {
        (
            format!("llvm.amdgcn.raw.buffer.atomic.{n}"),
            Computes::PerLane,
        )
    }));
    v
}

const SOURCES: &[&str] = &[
    "workitem.id.x",
    "workitem.id.y",
    "workitem.id.z",
    "mbcnt.lo",
    "mbcnt.hi",
    "ps.live",
    "live.mask",
    "inverse.ballot",
    "writelane",
    "mov.dpp",
    "mov.dpp8",
    "update.dpp",
    "permlane16",
    "permlanex16",
    "permlane16.var",
    "permlanex16.var",
    "ds.swizzle",
    "ds.ordered.add",
    "ds.ordered.swap",
    "interp.mov",
    "interp.p1",
    "interp.p2",
    "interp.p1.f16",
    "interp.p2.f16",
    "lds.param.load",
    "lds.direct.load",
    "if",
    "else",
    "loop",
    "atomic.cond.sub.u32",
    "global.atomic.csub",
    "global.atomic.ordered.add.b64",
    "global.load.tr.b64",
    "global.load.tr.b128",
];

const FP_ATOMICS: &[&str] = &[
    "fadd",
    "fadd.v2bf16",
    "fmin",
    "fmax",
    "fmin.num",
    "fmax.num",
];

const BUFFER_ATOMICS: &[&str] = &[
    "add",
    "and",
    "cmpswap",
    "cond.sub.u32",
    "dec",
    "fadd",
    "fmax",
    "fmin",
    "inc",
    "or",
    "smax",
    "smin",
    "sub",
    "swap",
    "umax",
    "umin",
    "xor",
];

const ALWAYS_UNIFORM: &[&str] = &[
    "readfirstlane",
    "readlane",
    "icmp",
    "fcmp",
    "ballot",
    "if.break",
    // Newer than LLVM 19.
    "s.mov.from.global",
    "s.swap.to.global",
];

/// Whether LLVM's AMDGPU backend (`AMDGPU::isIntrinsicSourceOfDivergence` with the rules the
/// model adds for 19/22) lists intrinsic `name` (full, possibly type-mangled after lookup) as a
/// divergence source: every family here computes a value of each lane's own.
pub fn is_source_intrinsic(name: &str) -> bool {
    if let Some(r) = name.strip_prefix("llvm.r600.read.tidig.") {
        return matches!(r, "x" | "y" | "z");
    }
    let Some(n) = name.strip_prefix("llvm.amdgcn.") else {
        return false;
    };
    if SOURCES.contains(&n) {
        return true;
    }
    // Newer than LLVM 19 (ray-tracing stack and shader work-reordering intrinsics).
    if n.starts_with("swc.") || (n.starts_with("rts.") && n != "rts.trace.ray.nonblock") {
        return true;
    }
    if let Some(op) = n
        .strip_prefix("global.atomic.")
        .or_else(|| n.strip_prefix("flat.atomic."))
    {
        return FP_ATOMICS.contains(&op);
    }
    for p in ["raw.", "raw.ptr.", "struct.", "struct.ptr."] {
        if let Some(op) = n
            .strip_prefix(p)
            .and_then(|r| r.strip_prefix("buffer.atomic."))
        {
            return BUFFER_ATOMICS.contains(&op);
        }
    }
    n.starts_with("image.atomic.")
        || n.starts_with("mfma.")
        || n.starts_with("smfmac.")
        || n.starts_with("wmma.")
        || n.starts_with("swmmac.")
}

/// Is `c` one component of an overloaded intrinsic's type mangling (`i32`, `f16`, `v2i32`, `p1`,
/// `nxv4f32`, `a4i8`, `s_struct`, `isVoid`, …)?
pub(crate) fn is_type_component(c: &str) -> bool {
    let digits_after = |p: &str| {
        c.strip_prefix(p)
            .is_some_and(|r| !r.is_empty() && r.bytes().next().unwrap().is_ascii_digit())
    };
    digits_after("i")
        || digits_after("f")
        || digits_after("v")
        || digits_after("p")
        || digits_after("a")
        || c.starts_with("nxv")
        || c.starts_with("s_")
        || c.starts_with("sl_")
        || matches!(
            c,
            "bf16" | "isVoid" | "ppcf128" | "x86mmx" | "x86amx" | "f80" | "Metadata"
        )
}

/// Looks `name` up with `pred`, first as written, then with trailing type-mangling components of
/// an overloaded intrinsic removed one at a time (`llvm.amdgcn.readfirstlane.i32` → `…readfirstlane`).
pub fn lookup(name: &str, pred: impl Fn(&str) -> bool) -> bool {
    find(name, |n| pred(n).then_some(())).is_some()
}

/// Like [`lookup`], with the first answer of `f` on `name` and its type-mangling prefixes.
pub fn find<T>(name: &str, f: impl Fn(&str) -> Option<T>) -> Option<T> {
    let mut n = name;
    loop {
        if let Some(t) = f(n) {
            return Some(t);
        }
        match n.rsplit_once('.') {
            Some((head, last)) if is_type_component(last) => n = head,
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_per_lane_sources() {
        for n in IDS {
            let name = format!("llvm.amdgcn.{n}");
            assert!(is_id_intrinsic(&name), "{name}");
            assert!(is_source_intrinsic(&name), "{name}");
            assert_eq!(computes(&name), Some(Computes::PerLane), "{name}");
        }
        assert!(is_id_intrinsic("llvm.r600.read.tidig.y"));
        assert!(is_source_intrinsic("llvm.r600.read.tidig.y"));
        // Other per-lane sources and the group-uniform ids are not thread ids.
        assert!(!is_id_intrinsic("llvm.amdgcn.mov.dpp.i32"));
        assert!(!is_id_intrinsic("llvm.amdgcn.workgroup.id.x"));
        assert!(!is_id_intrinsic("llvm.amdgcn.readfirstlane.i32"));
    }
}
