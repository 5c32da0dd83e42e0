//! NVPTX intrinsics: the special registers that hold the executing thread's own ids. NVPTX's
//! divergence model makes every call a divergence source ("Convergence And Uniformity",
//! *Divergence*: the target names its sources), so the analysis needs no intrinsic table; the
//! explanations use this one to say that a source is an id, not only a call.

/// Whether `name` reads a special register that identifies the executing thread: its id in its
/// CTA (`sreg.tid.x/y/z`) or its lane in the warp (`sreg.laneid`), which differ between the
/// threads of a warp, the lane masks derived from the lane (`sreg.lanemask.eq/le/lt/ge/gt`), or
/// the id of its warp (`sreg.warpid`: the same for a warp's lanes, and volatile: which warp slot
/// a thread runs in may change during execution).
pub fn is_id_intrinsic(name: &str) -> bool {
    let Some(r) = name.strip_prefix("llvm.nvvm.read.ptx.sreg.") else {
        return false;
    };
    matches!(r, "tid.x" | "tid.y" | "tid.z" | "laneid" | "warpid")
        || r.strip_prefix("lanemask.")
            .is_some_and(|m| matches!(m, "eq" | "le" | "lt" | "ge" | "gt"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_registers() {
        assert!(is_id_intrinsic("llvm.nvvm.read.ptx.sreg.tid.x"));
        assert!(is_id_intrinsic("llvm.nvvm.read.ptx.sreg.laneid"));
        assert!(is_id_intrinsic("llvm.nvvm.read.ptx.sreg.lanemask.lt"));
        // The CTA's id and the sizes are the same in every thread of a CTA.
        assert!(!is_id_intrinsic("llvm.nvvm.read.ptx.sreg.ctaid.x"));
        assert!(!is_id_intrinsic("llvm.nvvm.read.ptx.sreg.ntid.x"));
        assert!(!is_id_intrinsic("llvm.nvvm.read.ptx.sreg.warpsize"));
    }
}
