//! NVPTX intrinsics: what each is and computes for the threads of a warp that execute it
//! together, the one table the uniformity analysis and the simulator both read.
//!
//! - [`lookup`] names the intrinsic ([`Nvvm`]): a special register (the thread's ids, its CTA's
//!   ids and sizes, the lane masks, the warp size), a warp vote, a shuffle, a reduction, a CTA
//!   barrier, the active mask;
//! - [`Nvvm::computes`] says whether its result is a value of each thread's own or the same in
//!   every converged thread ([`Computes`], the fact the AMDGPU table gives too);
//! - [`is_id_intrinsic`]: the registers that identify the executing thread.
//!
//! NVPTX's divergence model makes every call a divergence source ("Convergence And Uniformity",
//! *Divergence*: the target names its sources), so the analysis reads the table only to say that
//! a source is an id (its explanations' `thread-id-intrinsic` rule); the simulator executes each
//! entry (`converge_sim`'s callee classification). `crates/sim/tests/intrinsic_table.rs` checks
//! both against the facts here.

pub use super::amdgpu::Computes;

/// An NVPTX intrinsic the table knows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Nvvm {
    /// `llvm.nvvm.read.ptx.sreg.*`: a special register.
    Sreg(Sreg),
    /// `llvm.nvvm.vote.{all,any,uni,ballot}[.sync]`: a vote of the warp's participating threads.
    Vote(Vote),
    /// `llvm.nvvm.shfl.sync.{idx,up,down,bfly}.*`: each thread reads a value of another lane.
    Shuffle(Shuffle),
    /// `llvm.nvvm.redux.sync.OP*`: a reduction over the participating threads.
    Redux(Redux),
    /// A CTA barrier (`barrier0`, `bar.sync`, `barrier.sync[.cnt]`, `barrier[.n]`), or
    /// `barrier0`'s reducing forms (`.and`, `.or`, `.popc`).
    Barrier(Barrier),
    /// `llvm.nvvm.activemask`: the mask of the warp's active threads.
    ActiveMask,
}

/// A special register.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sreg {
    /// `tid.x/y/z`: the thread's id in its CTA, per dimension (0, 1, 2).
    Tid(u8),
    /// `ctaid.x/y/z`: the CTA's id in the grid.
    CtaId(u8),
    /// `ntid.x/y/z`: the CTA's size.
    NTid(u8),
    /// `nctaid.x/y/z`: the grid's size in CTAs.
    NCtaId(u8),
    /// `laneid`: the thread's lane in its warp.
    LaneId,
    /// `warpid`: the warp slot the thread runs in (volatile: it may change during execution, so
    /// threads need not agree on it).
    WarpId,
    /// `lanemask.eq/le/lt/ge/gt`: masks of the lanes relative to the thread's own.
    LaneMask,
    /// `warpsize`: threads per warp.
    WarpSize,
}

/// Which vote.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Vote {
    /// Every participating thread's predicate is true.
    All,
    /// Some participating thread's predicate is true.
    Any,
    /// The participating threads' predicates are all equal.
    Uni,
    /// The mask of the participating threads whose predicate is true.
    Ballot,
}

/// Which lane a shuffle reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Shuffle {
    /// The lane given by the operand.
    Idx,
    /// The lane `delta` below.
    Up,
    /// The lane `delta` above.
    Down,
    /// The lane whose id is the thread's xor the operand.
    Bfly,
}

/// A reduction's operator.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Redux {
    /// `add` (and `fadd`).
    Add,
    /// Signed `min` (`smin`, `fmin`).
    Min,
    /// Signed `max` (`smax`, `fmax`).
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

/// Which barrier.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Barrier {
    /// Waits for the CTA; no result.
    Plain,
    /// `barrier0.and`: whether every thread's operand is non-zero.
    And,
    /// `barrier0.or`: whether some thread's operand is non-zero.
    Or,
    /// `barrier0.popc`: how many threads' operands are non-zero.
    Popc,
}

impl Nvvm {
    /// What the intrinsic computes for the converged threads that execute it together; `None`
    /// when it has no result (a plain barrier).
    pub fn computes(self) -> Option<Computes> {
        Some(match self {
            Nvvm::Sreg(Sreg::Tid(_) | Sreg::LaneId | Sreg::WarpId | Sreg::LaneMask) => {
                Computes::PerLane
            }
            Nvvm::Sreg(Sreg::CtaId(_) | Sreg::NTid(_) | Sreg::NCtaId(_) | Sreg::WarpSize) => {
                Computes::GroupUniform
            }
            // A value of another lane: per lane unless every lane holds the same.
            Nvvm::Shuffle(_) => Computes::PerLane,
            Nvvm::Vote(_) | Nvvm::Redux(_) | Nvvm::ActiveMask => Computes::GroupUniform,
            Nvvm::Barrier(Barrier::Plain) => return None,
            Nvvm::Barrier(_) => Computes::GroupUniform,
        })
    }
}

/// The table's entry for intrinsic `name` (full name, type suffixes allowed where LLVM mangles).
pub fn lookup(name: &str) -> Option<Nvvm> {
    let n = name.strip_prefix("llvm.nvvm.")?;
    if let Some(r) = n.strip_prefix("read.ptx.sreg.") {
        return sreg(r).map(Nvvm::Sreg);
    }
    if let Some(r) = n.strip_prefix("vote.") {
        let v = match r.split('.').next()? {
            "all" => Vote::All,
            "any" => Vote::Any,
            "uni" => Vote::Uni,
            "ballot" => Vote::Ballot,
            _ => return None,
        };
        return Some(Nvvm::Vote(v));
    }
    if let Some(r) = n.strip_prefix("shfl.sync.") {
        let s = match r.split('.').next()? {
            "idx" => Shuffle::Idx,
            "up" => Shuffle::Up,
            "down" => Shuffle::Down,
            "bfly" => Shuffle::Bfly,
            _ => return None,
        };
        return Some(Nvvm::Shuffle(s));
    }
    if let Some(r) = n.strip_prefix("redux.sync.") {
        let op = match r.split('.').next()? {
            "add" | "fadd" => Redux::Add,
            "min" | "smin" | "fmin" => Redux::Min,
            "max" | "smax" | "fmax" => Redux::Max,
            "umin" => Redux::UMin,
            "umax" => Redux::UMax,
            "and" => Redux::And,
            "or" => Redux::Or,
            "xor" => Redux::Xor,
            _ => return None,
        };
        return Some(Nvvm::Redux(op));
    }
    Some(match n {
        "barrier0" | "bar.sync" | "barrier.sync" | "barrier.sync.cnt" | "barrier" | "barrier.n" => {
            Nvvm::Barrier(Barrier::Plain)
        }
        "barrier0.and" => Nvvm::Barrier(Barrier::And),
        "barrier0.or" => Nvvm::Barrier(Barrier::Or),
        "barrier0.popc" => Nvvm::Barrier(Barrier::Popc),
        "activemask" => Nvvm::ActiveMask,
        _ => return None,
    })
}

fn sreg(r: &str) -> Option<Sreg> {
    let dim = |d: &str| -> Option<u8> {
        Some(match d {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            _ => return None,
        })
    };
    if let Some((reg, d)) = r.split_once('.') {
        return match reg {
            "tid" => dim(d).map(Sreg::Tid),
            "ctaid" => dim(d).map(Sreg::CtaId),
            "ntid" => dim(d).map(Sreg::NTid),
            "nctaid" => dim(d).map(Sreg::NCtaId),
            "lanemask" => matches!(d, "eq" | "le" | "lt" | "ge" | "gt").then_some(Sreg::LaneMask),
            _ => None,
        };
    }
    Some(match r {
        "laneid" => Sreg::LaneId,
        "warpid" => Sreg::WarpId,
        "warpsize" => Sreg::WarpSize,
        _ => return None,
    })
}

/// Whether `name` reads any of NVPTX's special registers (`llvm.nvvm.read.ptx.sreg.*`), including
/// the ones the table does not model (clocks, timers, SM ids): LLVM gives their declarations one
/// attribute set.
pub fn is_special_register(name: &str) -> bool {
    name.starts_with("llvm.nvvm.read.ptx.sreg.")
}

/// Whether `name` reads a special register that identifies the executing thread: its id in its
/// CTA (`sreg.tid.x/y/z`) or its lane in the warp (`sreg.laneid`), which differ between the
/// threads of a warp, the lane masks derived from the lane (`sreg.lanemask.eq/le/lt/ge/gt`), or
/// the id of its warp (`sreg.warpid`: the same for a warp's lanes, and volatile: which warp slot
/// a thread runs in may change during execution).
pub fn is_id_intrinsic(name: &str) -> bool {
    matches!(
        lookup(name),
        Some(Nvvm::Sreg(
            Sreg::Tid(_) | Sreg::LaneId | Sreg::WarpId | Sreg::LaneMask
        ))
    )
}

/// One name of every entry of the table, with its entry, for the cross-checks.
pub fn sample_names() -> Vec<(String, Nvvm)> {
    let mut names: Vec<String> = Vec::new();
    for d in ["x", "y", "z"] {
        for r in ["tid", "ctaid", "ntid", "nctaid"] {
            names.push(format!("llvm.nvvm.read.ptx.sreg.{r}.{d}"));
        }
    }
    for r in [
        "laneid",
        "warpid",
        "warpsize",
        "lanemask.eq",
        "lanemask.le",
        "lanemask.lt",
        "lanemask.ge",
        "lanemask.gt",
    ] {
        names.push(format!("llvm.nvvm.read.ptx.sreg.{r}"));
    }
    for v in ["all", "any", "uni", "ballot"] {
        names.push(format!("llvm.nvvm.vote.{v}.sync"));
    }
    for s in ["idx", "up", "down", "bfly"] {
        names.push(format!("llvm.nvvm.shfl.sync.{s}.i32"));
    }
    for op in ["add", "min", "max", "umin", "umax", "and", "or", "xor"] {
        names.push(format!("llvm.nvvm.redux.sync.{op}"));
    }
    for b in [
        "barrier0",
        "bar.sync",
        "barrier.sync",
        "barrier0.and",
        "barrier0.or",
        "barrier0.popc",
    ] {
        names.push(format!("llvm.nvvm.{b}"));
    }
    names.push("llvm.nvvm.activemask".to_string());
    names
        .into_iter()
        .map(|n| {
            let e = lookup(&n).unwrap_or_else(|| panic!("{n} not in the table"));
            (n, e)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_registers() {
        assert!(is_id_intrinsic("llvm.nvvm.read.ptx.sreg.tid.x"));
        assert!(is_id_intrinsic("llvm.nvvm.read.ptx.sreg.laneid"));
        assert!(is_id_intrinsic("llvm.nvvm.read.ptx.sreg.lanemask.lt"));
        assert!(is_id_intrinsic("llvm.nvvm.read.ptx.sreg.warpid"));
        // The CTA's id and the sizes are the same in every thread of a CTA.
        assert!(!is_id_intrinsic("llvm.nvvm.read.ptx.sreg.ctaid.x"));
        assert!(!is_id_intrinsic("llvm.nvvm.read.ptx.sreg.ntid.x"));
        assert!(!is_id_intrinsic("llvm.nvvm.read.ptx.sreg.warpsize"));
        assert!(!is_id_intrinsic("llvm.nvvm.read.ptx.sreg.tid.w"));
        assert!(!is_id_intrinsic("llvm.nvvm.read.ptx.sreg.lanemask.ne"));
    }

    #[test]
    fn families() {
        assert_eq!(
            lookup("llvm.nvvm.shfl.sync.bfly.f32"),
            Some(Nvvm::Shuffle(Shuffle::Bfly))
        );
        assert_eq!(
            lookup("llvm.nvvm.vote.ballot"),
            Some(Nvvm::Vote(Vote::Ballot))
        );
        assert_eq!(
            lookup("llvm.nvvm.redux.sync.fmin.abs"),
            Some(Nvvm::Redux(Redux::Min))
        );
        assert_eq!(lookup("llvm.nvvm.shfl.sync.sideways.i32"), None);
        assert_eq!(lookup("llvm.amdgcn.workitem.id.x"), None);
    }
}
