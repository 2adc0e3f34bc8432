/* MatMulInteger's product: C = (A - a_zero_point) (B - b_zero_point) of 8-bit integers, each
   sum exact modulo 2**32 and stored as a two's complement int32 (the exact sum itself whenever
   it fits in an int32, as the operator's text asks; a wrapped one, the same on every host, when
   it does not).

   The caller gives A with its zero points already subtracted (int16, one row per row of C, of
   k columns rounded up to an even number with a 0) and B as it is, int8 or uint8, with one
   int16 zero point per column.  Each product
   (a - za)(b - zb) is at most 255 * 255 in magnitude and exact in an int32; the sums are
   accumulated in uint32, whose wrap is defined, so no input reaches undefined behaviour. */
#ifndef FASTBITS_IMATMUL_H
#define FASTBITS_IMATMUL_H

#include "platform.h"

/* Rows and columns of C one block computes: its sums (FB_IMATMUL_ROWS x FB_IMATMUL_COLS
   uint32, 32 KiB) stay in cache while k runs over B's rows, FB_IMATMUL_DEPTH rows of B (a panel
   of 32 KiB) at a time; both live on the stack of the thread that runs the block. */
#define FB_IMATMUL_ROWS 32
#define FB_IMATMUL_COLS 256
#define FB_IMATMUL_DEPTH 64

typedef struct {
    const int16_t *a; /* m rows: A - a_zero_point, row i at a + i * lda (lda even, >= k, 0 past k) */
    const char *b;    /* k rows of n bytes (int8 or uint8), row r at b + r * ldb */
    const int16_t *zb; /* n zero points of B, one per column */
    int32_t *c;       /* m rows of n, row i at c + i * ldc */
    fb_ssize m, k, n, lda, ldb, ldc;
    int b_signed;     /* B is int8 (else uint8) */
} fb_imatmul;

/* Rows [m0, m1) and columns [n0, n1) of C, a block of at most FB_IMATMUL_ROWS rows and
   FB_IMATMUL_COLS columns. */
void fb_imatmul_block(const fb_imatmul *p, fb_ssize m0, fb_ssize m1, fb_ssize n0, fb_ssize n1);

/* QLinearMatMul's last step: y[i] = saturate(round(s[i] * p[i * p_step] / y_scale) + zero) for
   i < count, into [low, high] (an 8-bit integer type's range; y holds its bytes), rounded half
   to even from the exact quotient.  p is a_scale * b_scale, exact in a double (two scales of at
   most 24 significant bits); where p or y_scale is not finite, or y_scale is 0, the quotient is
   IEEE's, and a NaN one counts as 0. */
void fb_requantize(const int32_t *s, const double *p, fb_ssize p_step, fb_ssize count, double y_scale, int zero,
                   int low, int high, uint8_t *y);

#endif /* FASTBITS_IMATMUL_H */
