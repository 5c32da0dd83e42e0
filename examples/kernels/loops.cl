// Loops whose trip counts depend on the thread: divergent exits and temporal divergence.
#include "gpu.h"

// The exit depends on the data each thread reads: a divergent cycle exit. `i` is uniform inside
// the loop but its value after the loop differs per thread (temporal divergence).
kernel void find_first(global const int *lists, int n, int key, global int *out) {
    uint tid = LANE_ID();
    int i = 0;
    for (; i < n; ++i) {
        if (lists[tid * n + i] == key)
            break;
    }
    out[tid] = i;
}

// A uniform loop (trip count from an argument) around a divergent one.
kernel void nested(global float *a, int rows, int cols) {
    uint tid = LANE_ID();
    for (int r = 0; r < rows; ++r) {
        float acc = 0.0f;
        for (uint c = 0; c <= tid && c < (uint)cols; ++c)
            acc += a[r * cols + c];
        a[r * cols + tid] = acc;
    }
}

// A do-while whose condition mixes uniform and divergent values.
kernel void collatz(global uint *steps, uint limit) {
    uint x = LANE_ID() + 1;
    uint s = 0;
    do {
        x = (x & 1) ? 3 * x + 1 : x / 2;
        ++s;
    } while (x != 1 && s < limit);
    steps[LANE_ID()] = s;
}
