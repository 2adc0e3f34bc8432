/* MatMulInteger's product, a block of C at a time (imatmul.h).  For each row r of B, the
   block's columns of it minus their zero points are widened once to int16, then added, times
   A's element (i, r), to each row i's sums: a loop of int32 multiplies and adds over
   contiguous columns, which GCC vectorizes, compiled for AVX2 and the baseline
   (FB_DISPATCHED, cpu.h). */
#include "imatmul.h"
#include "cpu.h"

/* The int32 whose two's complement bits are v's (a conversion C defines for every v). */
static inline int32_t two_complement(uint32_t v) {
    return v <= INT32_MAX ? (int32_t)v : (int32_t)(v - (uint32_t)INT32_MAX - 1u) + INT32_MIN;
}

FB_DISPATCHED_VOID(imatmul_block, (const fb_imatmul *p, fb_ssize m0, fb_ssize m1, fb_ssize n0, fb_ssize n1),
                   (p, m0, m1, n0, n1)) {
    FB_ALIGNED(64) uint32_t sums[FB_IMATMUL_ROWS][FB_IMATMUL_COLS];
    FB_ALIGNED(64) int16_t row[FB_IMATMUL_COLS];
    const fb_ssize rows = m1 - m0, cols = n1 - n0;
    const int16_t *zb = p->zb + n0;
    fb_ssize i, j, r;
    for (i = 0; i < rows; i++)
        for (j = 0; j < cols; j++) sums[i][j] = 0;
    for (r = 0; r < p->k; r++) {
        const char *b = p->b + r * p->ldb + n0;
        if (p->b_signed) {
            for (j = 0; j < cols; j++) row[j] = (int16_t)(((const int8_t *)b)[j] - zb[j]);
        } else {
            for (j = 0; j < cols; j++) row[j] = (int16_t)(((const uint8_t *)b)[j] - zb[j]);
        }
        for (i = 0; i < rows; i++) {
            const int32_t a = p->a[(m0 + i) * p->lda + r];
            uint32_t *s = sums[i];
            if (a == 0) continue;
            for (j = 0; j < cols; j++) s[j] += (uint32_t)(a * (int32_t)row[j]);
        }
    }
    for (i = 0; i < rows; i++) {
        int32_t *c = p->c + (m0 + i) * p->ldc + n0;
        for (j = 0; j < cols; j++) c[j] = two_complement(sums[i][j]);
    }
}

void fb_imatmul_block(const fb_imatmul *p, fb_ssize m0, fb_ssize m1, fb_ssize n0, fb_ssize n1) {
    imatmul_block(p, m0, m1, n0, n1);
}
