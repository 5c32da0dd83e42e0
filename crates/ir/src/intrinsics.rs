//! Facts about LLVM intrinsics that do not depend on a declaration's attributes: which target
//! intrinsics LLVM's intrinsic table marks `convergent`, and the base name of a type-mangled
//! intrinsic. LLVM applies an intrinsic's table attributes whatever the file's declaration says,
//! so every layer that needs "is this call convergent" (the token verifier, the simulator) reads
//! the same table here.

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
}
