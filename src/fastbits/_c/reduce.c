/* Reductions (reduce.h).  The range keeps LANES running minima and maxima, one per lane of a
   vector, and per lane the last NaN seen (a float, so that every lane's step is a float compare
   and select, which GCC turns into vector compares and blends; an int flag keeps it scalar):
   min and max are exact whatever their order.  Compiled for AVX2 and the baseline
   (FB_DISPATCHED, cpu.h). */
#include "reduce.h"
#include "cpu.h"

#include <math.h>

enum { LANES = 16 };

FB_DISPATCHED_VOID(range_f32, (const float *x, fb_ssize n, float *low, float *high), (x, n, low, high)) {
    float lo[LANES], hi[LANES], bad[LANES];
    fb_ssize i = 0, l;
    float a, b;
    int seen = 0;
    for (l = 0; l < LANES; l++) {
        lo[l] = hi[l] = x[0];
        bad[l] = 0.0f;
    }
    for (; i + LANES <= n; i += LANES)
        for (l = 0; l < LANES; l++) {
            const float v = x[i + l];
            lo[l] = v < lo[l] ? v : lo[l];
            hi[l] = v > hi[l] ? v : hi[l];
            bad[l] = v != v ? v : bad[l];
        }
    a = lo[0];
    b = hi[0];
    for (l = 0; l < LANES; l++) {
        a = lo[l] < a ? lo[l] : a;
        b = hi[l] > b ? hi[l] : b;
        seen |= bad[l] != bad[l];
    }
    for (; i < n; i++) {
        a = x[i] < a ? x[i] : a;
        b = x[i] > b ? x[i] : b;
        seen |= x[i] != x[i];
    }
    if (seen || a != a) a = b = (float)NAN;  /* x[0] itself may be the NaN */
    *low = a;
    *high = b;
}

void fb_range_f32(const float *x, fb_ssize n, float *low, float *high) { range_f32(x, n, low, high); }
