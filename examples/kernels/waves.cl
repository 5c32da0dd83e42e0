// Work-group shapes the uniformity refinements of LLVM main decide (docs/precise-mode.md): known
// work-group sizes make wave ids and row ids uniform, and a generic pointer that is a global one
// reads memory every thread sees alike.
#include "gpu.h"

#if defined(__AMDGCN__)
#define ROW_ID() ((uint)__builtin_amdgcn_workitem_id_y())
#else
#define ROW_ID() ((uint)__nvvm_read_ptx_sreg_tid_y())
#endif

// Generic (OpenCL 2.0) pointers: inlined with a global pointer, the loads go through an
// addrspacecast of it.
static int sum_span(const int *p, int n) {
    int s = 0;
    for (int k = 0; k < n; ++k)
        s += p[k];
    return s;
}

// A 64 x 4 tile: each row of 64 work-items is one wave (wave64), so the row id, everything
// computed from it, and the loop over the row's span are uniform per wave.
__attribute__((reqd_work_group_size(64, 4, 1)))
kernel void tile_rows(global const int *in, global int *out, int width) {
    uint x = LANE_ID();
    uint y = ROW_ID();
    int row_sum = sum_span(in + y * width, width);
    int first = in[y * width];
    if (first > 0)
        row_sum -= first;
    out[y * width + x] = in[y * width + x] * row_sum;
}

// 128 x 2 work-items: two waves per row. The wave id (x / 64), the first lane's index
// (x & ~63) and `x | 63` are the same in every lane of a wave; the per-wave loop and branch on
// them are uniform.
__attribute__((reqd_work_group_size(128, 2, 1)))
kernel void wave_blocks(global const int *in, global int *out, int n) {
    uint x = LANE_ID();
    uint y = ROW_ID();
    uint wave = x / 64;
    uint first_lane = x & ~63u;
    uint last_lane = x | 63u;
    int acc = 0;
    for (uint k = first_lane; k <= last_lane && k < (uint)n; ++k)
        acc += in[k];
    if (wave == 0)
        acc = -acc;
    out[(y * 2 + wave) * 64 + (x & 63u)] = acc;
}

// No required size: the same expressions stay divergent (a wave may hold the end of one row and
// the start of the next).
kernel void wave_blocks_any_size(global const int *in, global int *out) {
    uint x = LANE_ID();
    uint wave = x / 64;
    out[x] = in[wave];
}

// Every work-item sums the same span of a table through a generic pointer (OpenCL 2.0): after
// inlining, the loads go through an addrspacecast of the global pointer at uniform addresses,
// so the sum is uniform (NVPTX: LLVM 22 counts every generic load as a divergence source).
kernel void scale_by_table(global const int *table, global int *out, int k) {
    uint x = LANE_ID();
    int s = sum_span(table, k);
    out[x] = out[x] * s;
}
