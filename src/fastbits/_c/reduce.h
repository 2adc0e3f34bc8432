/* Reductions: the least and greatest of n float32s (DynamicQuantizeLinear's range of x).

   Each is exact: a float's min or max is one of its operands, in any order of comparison.  A
   NaN anywhere makes both NaN (IEEE 754-2019's minimum and maximum, numpy's min and max); a -0
   and a +0 compare equal, so either may come back for a range of zeros (DynamicQuantizeLinear's
   scale and zero point are the same for both). */
#ifndef FASTBITS_REDUCE_H
#define FASTBITS_REDUCE_H

#include "platform.h"

/* *low and *high: the least and greatest of x[0..n) (n >= 1), or both NaN where one is. */
void fb_range_f32(const float *x, fb_ssize n, float *low, float *high);

#endif /* FASTBITS_REDUCE_H */
