// Thread ids through the target's own builtins, so that clang emits the target intrinsics
// (llvm.amdgcn.workitem.id.x, llvm.nvvm.read.ptx.sreg.tid.x) that the uniformity analyses know,
// next to kernels that use OpenCL's get_local_id (an external call for both targets here, since
// no device library is linked).
#if defined(__AMDGCN__)
#define LANE_ID() ((uint)__builtin_amdgcn_workitem_id_x())
#define BLOCK_BARRIER() __builtin_amdgcn_s_barrier()
// The first active lane's value (always uniform) and a vote over the active lanes.
#define BROADCAST_FIRST(v) __builtin_amdgcn_readfirstlane(v)
#define ALL_LANES(p) (__builtin_amdgcn_ballot_w64(p) == __builtin_amdgcn_read_exec())
#define XOR_SHUFFLE(v, m) __builtin_amdgcn_ds_bpermute((int)((LANE_ID() ^ (m)) << 2), (v))
#elif defined(__NVPTX__)
#define LANE_ID() ((uint)__nvvm_read_ptx_sreg_tid_x())
#define BLOCK_BARRIER() __nvvm_bar_sync(0)
// The *_sync builtins need PTX 6.0: the tests compile with -march=sm_70 and +ptx70.
#define BROADCAST_FIRST(v) __nvvm_shfl_sync_idx_i32(0xffffffffu, (v), 0, 31)
#define ALL_LANES(p) __nvvm_vote_all_sync(0xffffffffu, (p))
#define XOR_SHUFFLE(v, m) __nvvm_shfl_sync_bfly_i32(0xffffffffu, (v), (m), 31)
#else
#error "compile for amdgcn or nvptx"
#endif
