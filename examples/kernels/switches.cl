// Switches on a divergent and on a uniform value.
#include "gpu.h"

kernel void classify(global const int *in, global int *out, int mode) {
    uint t = LANE_ID();
    int v = in[t];
    int r;
    switch (v & 3) {          // divergent switch: joins after it are divergent
    case 0: r = v; break;
    case 1: r = -v; break;
    case 2: r = v * v; break;
    default: r = 0; break;
    }
    switch (mode) {           // uniform switch
    case 0: out[t] = r; break;
    case 1: out[t] = r + 1; break;
    default: out[t] = r - 1; break;
    }
}
