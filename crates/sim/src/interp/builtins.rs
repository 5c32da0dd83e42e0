//! Work-item queries: the OpenCL builtins (`get_local_id`, `get_global_id`, `get_group_id`, the
//! sizes, sub-groups; also the Itanium-mangled spellings clang emits, `_Z12get_local_idj`), NVVM
//! special registers (`tid`, `ctaid`, `ntid`, `nctaid`) and AMDGPU work-item and work-group ids,
//! dispatch pointer and implicit kernel arguments. They are answered for the threads of one wave
//! (`Options::wave`) of work-group `Options::group_id` of `Options::num_groups`: with the
//! kernel's `!reqd_work_group_size` the lanes' local ids are their linear ids unpacked x first
//! (`converge_ir::intrinsics::local_ids`), otherwise the work-group is one row of N threads in x.

use super::*;

#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Query {
    LocalId,
    GlobalId,
    GroupId,
    LocalSize,
    GlobalSize,
    NumGroups,
    WorkDim,
    GlobalOffset,
    SubGroupLocalId,
    SubGroupSize,
    MaxSubGroupSize,
    NumSubGroups,
    SubGroupId,
    DispatchPtr,
    ImplicitArgPtr,
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct WorkItem {
    pub(crate) q: Query,
    /// The dimension; `None`: the call's first operand (OpenCL's `uint dimindx`).
    pub(crate) dim: Option<u8>,
}

/// An OpenCL builtin name, plain or Itanium-mangled (`_Z<len><name><parameter types>`).
fn opencl_name(name: &str) -> &str {
    let Some(rest) = name.strip_prefix("_Z") else {
        return name;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let Ok(len) = rest[..digits].parse::<usize>() else {
        return name;
    };
    rest.get(digits..digits + len).unwrap_or(name)
}

pub(crate) fn classify(name: &str) -> Option<WorkItem> {
    use Query::*;
    if name.starts_with("llvm.nvvm.") {
        // The special registers, as the one NVPTX table names them.
        use converge_ir::intrinsics::nvptx::{Nvvm, Sreg, lookup};
        let (q, d) = match lookup(name)? {
            Nvvm::Sreg(Sreg::Tid(d)) => (LocalId, d),
            Nvvm::Sreg(Sreg::CtaId(d)) => (GroupId, d),
            Nvvm::Sreg(Sreg::NTid(d)) => (LocalSize, d),
            Nvvm::Sreg(Sreg::NCtaId(d)) => (NumGroups, d),
            _ => return None,
        };
        return Some(WorkItem { q, dim: Some(d) });
    }
    if name.starts_with("llvm.amdgcn.") {
        // The work-item queries, as the one AMDGPU table names them.
        use converge_ir::intrinsics::amdgpu::{WorkItem as W, work_item};
        let (q, d) = match work_item(name)? {
            W::LocalId(d) => (LocalId, d),
            W::GroupId(d) => (GroupId, d),
            W::DispatchPtr => (DispatchPtr, 0),
            W::ImplicitArgPtr => (ImplicitArgPtr, 0),
        };
        return Some(WorkItem { q, dim: Some(d) });
    }
    let q = match opencl_name(name) {
        "get_local_id" | "get_local_linear_id" => LocalId,
        "get_global_id" | "get_global_linear_id" => GlobalId,
        "get_group_id" => GroupId,
        "get_local_size" | "get_enqueued_local_size" => LocalSize,
        "get_global_size" => GlobalSize,
        "get_num_groups" => NumGroups,
        "get_work_dim" => WorkDim,
        "get_global_offset" => GlobalOffset,
        "get_sub_group_local_id" => SubGroupLocalId,
        "get_sub_group_size" => SubGroupSize,
        "get_max_sub_group_size" => MaxSubGroupSize,
        "get_num_sub_groups" | "get_enqueued_num_sub_groups" => NumSubGroups,
        "get_sub_group_id" => SubGroupId,
        _ => return None,
    };
    let takes_dim = matches!(
        q,
        LocalId | GlobalId | GroupId | LocalSize | GlobalSize | NumGroups | GlobalOffset
    ) && !name.contains("linear");
    Some(WorkItem {
        q,
        dim: if takes_dim { None } else { Some(0) },
    })
}

/// The answer of query `q` in dimension `dim` for thread `tid`, as an integer of `w` bits (or a
/// pointer); `shape` is the kernel's required work-group size, if it has one.
pub(crate) fn answer(
    q: Query,
    dim: u128,
    tid: u32,
    o: &Options,
    w: u32,
    shape: Option<[u64; 3]>,
) -> Val {
    use Query::*;
    let n = o.threads as u128;
    let wave = o.target.wave_size() as u128;
    let x = dim == 0;
    let linear = o.wave as u64 * wave as u64 + tid as u64;
    let (ids, size): ([u128; 3], [u128; 3]) = match shape {
        Some(s) => (
            converge_ir::intrinsics::local_ids(linear, s).map(u128::from),
            s.map(|v| v.max(1) as u128),
        ),
        None => ([linear as u128, 0, 0], [n, 1, 1]),
    };
    let d = (dim as usize).min(2);
    let v: u128 = match q {
        LocalId => ids[d] * (dim < 3) as u128,
        GlobalId => ids[d] + x as u128 * o.group_id as u128 * size[0],
        GroupId => x as u128 * o.group_id as u128,
        LocalSize => size[d],
        GlobalSize => {
            if x {
                size[0] * o.num_groups as u128
            } else {
                size[d]
            }
        }
        NumGroups => {
            if x {
                o.num_groups as u128
            } else {
                1
            }
        }
        WorkDim => 1,
        GlobalOffset => 0,
        SubGroupLocalId => tid as u128 % wave,
        SubGroupSize => wave.min(n - (tid as u128 / wave) * wave),
        MaxSubGroupSize => wave,
        NumSubGroups => n.div_ceil(wave),
        SubGroupId => tid as u128 / wave,
        DispatchPtr => return Val::P(memory::DISPATCH_ADDR),
        ImplicitArgPtr => return Val::P(memory::IMPLICIT_ADDR),
    };
    Val::I(v & mask(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let c = |n: &str| classify(n).map(|w| (w.q, w.dim));
        assert_eq!(c("_Z12get_local_idj"), Some((Query::LocalId, None)));
        assert_eq!(c("get_global_id"), Some((Query::GlobalId, None)));
        assert_eq!(c("_Z12get_work_dimv"), Some((Query::WorkDim, Some(0))));
        assert_eq!(
            c("llvm.nvvm.read.ptx.sreg.ctaid.x"),
            Some((Query::GroupId, Some(0)))
        );
        assert_eq!(
            c("llvm.amdgcn.workitem.id.y"),
            Some((Query::LocalId, Some(1)))
        );
        assert_eq!(c("llvm.nvvm.read.ptx.sreg.laneid"), None);
        assert_eq!(c("_Z12get_local_idjj"), Some((Query::LocalId, None)));
        assert_eq!(c("_Z3fooj"), None);
        assert_eq!(c("_Z99x"), None);
    }
}
