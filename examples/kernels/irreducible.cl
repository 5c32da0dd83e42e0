// Control flow that structured loops cannot express: a state machine written with goto whose
// cycle has two entries (irreducible), entered on a thread-dependent branch, so the cycle is
// entered on diverged paths; and a loop with several exits, one of them divergent.
#include "gpu.h"

kernel void two_entry_cycle(global int *data, int n) {
    uint t = LANE_ID();
    int x = data[t];
    int steps = 0;
    if (x & 1)
        goto odd;           // one entry of the cycle
even:                       // the other entry
    x = x / 2;
    if (++steps > n)
        goto done;
odd:
    x = 3 * x + 1;
    if (x > 1 && steps < n)
        goto even;
done:
    data[t] = steps;
}

// A uniform trip count, an early exit on data (divergent), and a `continue`.
kernel void scan_until(global const int *in, global int *out, int n, int stop) {
    uint t = LANE_ID();
    int acc = 0;
    int i = 0;
    while (i < n) {
        int v = in[i * 64 + (int)t];
        ++i;
        if (v == 0)
            continue;
        if (v == stop)
            break;
        acc += v;
    }
    out[t] = acc + i;
}
