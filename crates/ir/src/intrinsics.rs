//! Facts about LLVM intrinsics that do not depend on a declaration's attributes: which target
//! intrinsics LLVM's intrinsic table marks `convergent`, the base name of a type-mangled
//! intrinsic, what AMDGPU's intrinsics compute ([`amdgpu`]: per-lane or group-uniform, read by
//! the uniformity analysis and the simulator alike), NVPTX's id registers ([`nvptx`]), and what
//! the work-item ids range over (a
//! kernel's required work-group size, the ids of a linear work-item). LLVM applies an intrinsic's table attributes whatever the file's declaration says,
//! so every layer that needs "is this call convergent" (the token verifier, the simulator) reads
//! the same table here.

pub mod amdgpu;
pub mod nvptx;

use crate::{ConstKind, Function, Metadata, Module, Value};

/// A kernel's required work-group size (`!reqd_work_group_size !{i32 X, i32 Y, i32 Z}`, what
/// OpenCL's `reqd_work_group_size` attribute becomes): what the work-item-id intrinsics range
/// over. The analysis's target models derive the largest id per dimension from it, the simulator
/// the ids of each lane.
pub fn reqd_work_group_size(m: &Module, f: &Function) -> Option<[u64; 3]> {
    let &(_, md) = f.md_attachments[f.md.range()]
        .iter()
        .find(|(k, _)| m.strings.resolve(*k).trim_start_matches('!') == "reqd_work_group_size")?;
    let ops = m.md_operands(md);
    if ops.len() != 3 {
        return None;
    }
    let mut out = [0u64; 3];
    for (d, &o) in ops.iter().enumerate() {
        let mut o = o;
        for _ in 0..64 {
            match m.md(o) {
                Metadata::Node(n) => o = *n,
                _ => break,
            }
        }
        let Metadata::Value(_, Value::Const(c)) = m.md(o) else {
            return None;
        };
        let ConstKind::Int { value, .. } = m.consts[c.0 as usize].kind else {
            return None;
        };
        out[d] = value as u64;
    }
    Some(out)
}

/// The local ids `[x, y, z]` of the work-item with linear id `linear` (x fastest, as work-items
/// are packed into waves: "lanes of a wave are consecutive linear ids") in a work-group of
/// `size` (each at least 1).
pub fn local_ids(linear: u64, size: [u64; 3]) -> [u64; 3] {
    let [x, y, _] = size.map(|s| s.max(1));
    [linear % x, (linear / x) % y, linear / (x * y)]
}

/// `llvm.read_register` (type-mangled: `llvm.read_register.i32`): the value of the named
/// register (its metadata operand, `!{!"v0"}`). Whether it differs between lanes depends on the
/// register ([`amdgpu::is_per_lane_register`]).
pub const READ_REGISTER: &str = "llvm.read_register";

/// Whether `name` (possibly type-mangled) is [`READ_REGISTER`].
pub fn is_read_register(name: &str) -> bool {
    name.strip_prefix(READ_REGISTER)
        .is_some_and(|r| r.is_empty() || r.strip_prefix('.').is_some_and(is_type_suffix))
}

/// The three convergence control intrinsics ("Convergent Operation Semantics", §Convergence
/// Control Intrinsics): what each one is, named only here.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConvergenceControl {
    /// `llvm.experimental.convergence.entry`: the token of the function's entry.
    Entry,
    /// `llvm.experimental.convergence.anchor`: a token that any implementation may choose.
    Anchor,
    /// `llvm.experimental.convergence.loop`: the heart of a cycle.
    Loop,
}

impl ConvergenceControl {
    /// All three, in the order the document introduces them.
    pub const ALL: [ConvergenceControl; 3] = [
        ConvergenceControl::Entry,
        ConvergenceControl::Anchor,
        ConvergenceControl::Loop,
    ];

    /// The intrinsic's full name.
    pub const fn name(self) -> &'static str {
        match self {
            ConvergenceControl::Entry => "llvm.experimental.convergence.entry",
            ConvergenceControl::Anchor => "llvm.experimental.convergence.anchor",
            ConvergenceControl::Loop => "llvm.experimental.convergence.loop",
        }
    }

    /// Which one `name` is (exact name: they are not overloaded).
    pub fn of(name: &str) -> Option<ConvergenceControl> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Whether `name` starts like a convergence control intrinsic (`llvm.experimental.convergence.`,
/// including misspelled or future ones, which the verifier and the printer treat as the family).
pub fn is_convergence_family(name: &str) -> bool {
    name.starts_with("llvm.experimental.convergence.")
}

/// Target intrinsics LLVM's intrinsic table marks `convergent` (measured, see the file's header).
const CONVERGENT_INTRINSICS: &str = include_str!("convergent_intrinsics.txt");

/// Whether a mangled suffix (`i32`, `v4f32.p1`, …, without the leading dot) is made of type
/// components only.
pub fn is_type_suffix(s: &str) -> bool {
    s.split('.').all(|c| {
        let b = c.as_bytes();
        !c.is_empty()
            && (matches!(c, "bf16" | "f80" | "f128" | "ppcf128" | "isVoid" | "x86amx")
                || (matches!(b[0], b'i' | b'f' | b'v' | b'p' | b'a')
                    && b.len() > 1
                    && b[1].is_ascii_digit())
                || c.starts_with("nxv")
                || c.starts_with("s_")
                || c.starts_with("sl_")
                || c.starts_with("tx"))
    })
}

/// Whether `name` (possibly with a type-mangling suffix) is a convergent target intrinsic. The
/// three convergence-control intrinsics are not in the table (callers treat them separately).
pub fn is_convergent_intrinsic(name: &str) -> bool {
    if !name.starts_with("llvm.") {
        return false;
    }
    CONVERGENT_INTRINSICS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .any(|base| {
            name == base
                || name
                    .strip_prefix(base)
                    .and_then(|r| r.strip_prefix('.'))
                    .is_some_and(is_type_suffix)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_ids_pack_x_first() {
        assert_eq!(local_ids(0, [4, 2, 1]), [0, 0, 0]);
        assert_eq!(local_ids(5, [4, 2, 1]), [1, 1, 0]);
        assert_eq!(local_ids(9, [4, 2, 2]), [1, 0, 1]);
        // A 65 x 2 group: the second wave of 64 lanes holds x = 64 and then x = 0.. of row 1.
        assert_eq!(local_ids(64, [65, 2, 1]), [64, 0, 0]);
        assert_eq!(local_ids(65, [65, 2, 1]), [0, 1, 0]);
    }

    #[test]
    fn convergent_intrinsics_by_mangled_name() {
        assert!(is_convergent_intrinsic("llvm.amdgcn.readfirstlane.i32"));
        assert!(is_convergent_intrinsic("llvm.amdgcn.readfirstlane"));
        assert!(is_convergent_intrinsic("llvm.nvvm.shfl.sync.idx.i32"));
        assert!(is_convergent_intrinsic("llvm.amdgcn.ballot.i64"));
        assert!(is_convergent_intrinsic("llvm.nvvm.barrier0"));
        assert!(is_convergent_intrinsic("llvm.amdgcn.s.barrier"));
        assert!(!is_convergent_intrinsic("llvm.amdgcn.workitem.id.x"));
        assert!(!is_convergent_intrinsic("llvm.amdgcn.readfirstlanex"));
        assert!(!is_convergent_intrinsic("f"));
    }

    #[test]
    fn read_register_and_convergence_control_names() {
        assert!(is_read_register("llvm.read_register.i32"));
        assert!(is_read_register("llvm.read_register"));
        assert!(!is_read_register("llvm.read_registers.i32"));
        assert!(!is_read_register("llvm.read_register.x"));
        for c in ConvergenceControl::ALL {
            assert_eq!(ConvergenceControl::of(c.name()), Some(c));
            assert!(is_convergence_family(c.name()));
        }
        assert_eq!(
            ConvergenceControl::of("llvm.experimental.convergence.loops"),
            None
        );
    }
}
