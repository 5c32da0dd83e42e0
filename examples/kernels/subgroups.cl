// Subgroup (wave/warp) operations and a work-group reduction.
#include "gpu.h"

#ifdef cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
// A sub-group reduction in divergent control flow: only the active lanes take part.
// (AMDGPU only: clang does not offer cl_khr_subgroups for NVPTX.)
kernel void subgroup_sum(global const int *in, global int *out) {
    uint t = LANE_ID();
    int v = in[t];
    int s = 0;
    if (v > 0)
        s = sub_group_reduce_add(v);
    out[t] = s + (int)get_sub_group_local_id();
}
#endif

// Target wave/warp intrinsics: a butterfly sum over 32 lanes, a broadcast of the first lane
// (uniform whatever its input), and a vote, inside a loop that exits on the vote.
kernel void warp_ops(global int *data, int rounds) {
    uint t = LANE_ID();
    int v = data[t];
    for (int r = 0; r < rounds; ++r) {
        for (int m = 16; m > 0; m /= 2)
            v += XOR_SHUFFLE(v, m);
        int first = BROADCAST_FIRST(v);
        if (ALL_LANES(v > first))
            break;
        v -= first;
    }
    data[t] = v;
}

// A classic tree reduction in local memory: the loop is uniform, the `if` inside is divergent,
// and the barrier is reached by all threads.
kernel void reduce(global const float *in, global float *out, local float *scratch) {
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = n / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = scratch[0];
}
