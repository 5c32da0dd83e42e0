// Early returns: some threads leave the kernel, the others go on.
#include "gpu.h"

kernel void clamp_tail(global int *data, uint n, int lo, int hi) {
    uint t = LANE_ID();
    if (t >= n)
        return;
    int v = data[t];
    if (v < lo) {
        data[t] = lo;
        return;
    }
    if (v > hi)
        v = hi;
    data[t] = v * 2;
}

// A search loop with a return from inside the loop.
kernel void contains(global const int *hay, int n, int needle, global int *flag) {
    uint t = LANE_ID();
    for (int i = (int)t; i < n; i += 64) {
        if (hay[i] == needle) {
            flag[t] = 1;
            return;
        }
    }
    flag[t] = 0;
}
