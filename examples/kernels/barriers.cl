// Barriers in convergent control flow, and a barrier-separated local-memory exchange.
#include "gpu.h"

kernel void transpose_tile(global const float *in, global float *out, int width) {
    local float tile[16][17];
    uint lx = get_local_id(0), ly = get_local_id(1);
    uint gx = get_group_id(0) * 16 + lx, gy = get_group_id(1) * 16 + ly;
    tile[ly][lx] = in[gy * width + gx];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint ox = get_group_id(1) * 16 + lx, oy = get_group_id(0) * 16 + ly;
    out[oy * width + ox] = tile[lx][ly];
}

// The barrier sits in a loop whose trip count is uniform, so every thread reaches each barrier.
kernel void smooth(global float *data, local float *scratch, int iters) {
    uint t = LANE_ID();
    for (int k = 0; k < iters; ++k) {
        scratch[t] = data[t];
        BLOCK_BARRIER();
        float left = t > 0 ? scratch[t - 1] : scratch[t];
        data[t] = 0.5f * (left + scratch[t]);
        BLOCK_BARRIER();
    }
}
