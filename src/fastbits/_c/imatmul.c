/* MatMulInteger's product, a block of C at a time (imatmul.h).

   The block's columns of B, less their zero points, are packed a chunk of FB_IMATMUL_DEPTH rows
   at a time into a panel of int16 pairs: for each pair of rows (2q, 2q + 1) and each column j,
   (B[2q][j], B[2q + 1][j]) side by side (an odd last row pairs with 0), the columns padded with
   zeros to a multiple of TILE_COLS.  A's rows come as int16 with an even number of columns (the
   caller pads with a 0), so A[i][2q] and A[i][2q + 1] are one 32-bit pair too.  Then each tile
   of TILE_ROWS rows by TILE_COLS columns of sums stays in registers while q runs over the
   panel: sums[i][j] += A[i][2q] * B[2q][j] + A[i][2q + 1] * B[2q + 1][j], which AVX2's vpmaddwd
   computes for 8 columns at once (each product at most 255 * 255, the pair's sum at most
   2 * 255 * 255: exact in an int32; the sums wrap in 32 bits, which _mm256_add_epi32 defines).
   The baseline does the same in C on uint32, where wrapping is defined too. */
#include "imatmul.h"
#include "cpu.h"

#include <math.h>
#include <string.h>

#if FB_HAVE_AVX2
#include <immintrin.h>
#endif

enum { TILE_ROWS = 4, TILE_COLS = 16 };

/* The pair A[i][2q], A[i][2q + 1] as one 32-bit word, as it lies in memory. */
static inline int32_t a_pair(const int16_t *row, fb_ssize q) {
    int32_t v;
    memcpy(&v, row + 2 * q, sizeof v);
    return v;
}

/* Rows [r0, r1) of B's columns [n0, n0 + cols), less their zero points, into ``panel`` as pairs
   of rows, ``width`` columns a pair (width >= cols; the rest zero): two rows at a time, which
   GCC vectorizes into widening and interleaving steps. */
FB_DISPATCHED_VOID(pack_panel, (const fb_imatmul *p, int16_t *panel, fb_ssize r0, fb_ssize r1, fb_ssize n0,
                                fb_ssize cols, fb_ssize width),
                   (p, panel, r0, r1, n0, cols, width)) {
    const int16_t *zb = p->zb + n0;
    fb_ssize r, j;
    for (r = r0; r < r1; r += 2) {
        const char *b0 = p->b + r * p->ldb + n0;
        const char *b1 = r + 1 < r1 ? b0 + p->ldb : NULL;
        int16_t *o = panel + (r - r0) / 2 * width * 2;
        if (p->b_signed) {
            const int8_t *x = (const int8_t *)b0, *y = (const int8_t *)(b1 ? b1 : b0);
            for (j = 0; j < cols; j++) {
                o[2 * j] = (int16_t)(x[j] - zb[j]);
                o[2 * j + 1] = (int16_t)(y[j] - zb[j]);
            }
        } else {
            const uint8_t *x = (const uint8_t *)b0, *y = (const uint8_t *)(b1 ? b1 : b0);
            for (j = 0; j < cols; j++) {
                o[2 * j] = (int16_t)(x[j] - zb[j]);
                o[2 * j + 1] = (int16_t)(y[j] - zb[j]);
            }
        }
        if (!b1)  /* an odd last row pairs with 0 */
            for (j = 0; j < cols; j++) o[2 * j + 1] = 0;
        for (j = 2 * cols; j < 2 * width; j++) o[j] = 0;
    }
}

/* sums (rows x TILE_COLS at stride FB_IMATMUL_COLS, rows <= TILE_ROWS) += the products of the
   rows' pairs q in [0, pairs) (row i's at a[i * lda]) by the panel's TILE_COLS columns at
   ``panel`` (a pair of rows every ``width`` columns). */
static inline void tile_base(uint32_t *sums, const int16_t *a, fb_ssize lda, fb_ssize rows, const int16_t *panel,
                             fb_ssize width, fb_ssize pairs) {
    fb_ssize i, j, q;
    for (i = 0; i < rows; i++) {
        uint32_t acc[TILE_COLS];
        memcpy(acc, sums + i * FB_IMATMUL_COLS, sizeof acc);
        for (q = 0; q < pairs; q++) {
            const int32_t a0 = a[i * lda + 2 * q], a1 = a[i * lda + 2 * q + 1];
            const int16_t *b = panel + q * width * 2;
            for (j = 0; j < TILE_COLS; j++) acc[j] += (uint32_t)(a0 * b[2 * j] + a1 * b[2 * j + 1]);
        }
        memcpy(sums + i * FB_IMATMUL_COLS, acc, sizeof acc);
    }
}

#if FB_HAVE_AVX2
/* tile_base with vpmaddwd, ROWS rows (a constant, so the sums stay in registers). */
#define TILE_AVX2(ROWS)                                                                                  \
    FB_TARGET_AVX2 static void tile_avx2_##ROWS(uint32_t *sums, const int16_t *a, fb_ssize lda,         \
                                                const int16_t *panel, fb_ssize width, fb_ssize pairs) { \
        __m256i lo[ROWS], hi[ROWS];                                                                      \
        fb_ssize i, q;                                                                                   \
        for (i = 0; i < ROWS; i++) {                                                                     \
            lo[i] = _mm256_loadu_si256((const __m256i *)(sums + i * FB_IMATMUL_COLS));                  \
            hi[i] = _mm256_loadu_si256((const __m256i *)(sums + i * FB_IMATMUL_COLS + 8));              \
        }                                                                                                \
        for (q = 0; q < pairs; q++) {                                                                    \
            const __m256i b0 = _mm256_loadu_si256((const __m256i *)(panel + q * width * 2));            \
            const __m256i b1 = _mm256_loadu_si256((const __m256i *)(panel + q * width * 2 + 16));       \
            for (i = 0; i < ROWS; i++) {                                                                 \
                const __m256i pair = _mm256_set1_epi32(a_pair(a + i * lda, q));                          \
                lo[i] = _mm256_add_epi32(lo[i], _mm256_madd_epi16(b0, pair));                            \
                hi[i] = _mm256_add_epi32(hi[i], _mm256_madd_epi16(b1, pair));                            \
            }                                                                                            \
        }                                                                                                \
        for (i = 0; i < ROWS; i++) {                                                                     \
            _mm256_storeu_si256((__m256i *)(sums + i * FB_IMATMUL_COLS), lo[i]);                        \
            _mm256_storeu_si256((__m256i *)(sums + i * FB_IMATMUL_COLS + 8), hi[i]);                    \
        }                                                                                                \
    }
TILE_AVX2(4)
TILE_AVX2(1)
#endif

/* Every tile of the block's rows (rows of ``a``) by the panel's ``width`` columns. */
static void tiles(uint32_t *sums, const int16_t *a, fb_ssize lda, fb_ssize rows, const int16_t *panel, fb_ssize width,
                  fb_ssize pairs) {
    fb_ssize i, j;
    for (j = 0; j < width; j += TILE_COLS) {
        for (i = 0; i < rows; i += TILE_ROWS) {
            const fb_ssize n = rows - i < TILE_ROWS ? rows - i : TILE_ROWS;
            uint32_t *s = sums + i * FB_IMATMUL_COLS + j;
            const int16_t *ai = a + i * lda, *pj = panel + 2 * j;
#if FB_HAVE_AVX2
            if (fb_cpu_avx2) {
                if (n == TILE_ROWS) {
                    tile_avx2_4(s, ai, lda, pj, width, pairs);
                } else {
                    fb_ssize r;
                    for (r = 0; r < n; r++) tile_avx2_1(s + r * FB_IMATMUL_COLS, ai + r * lda, lda, pj, width, pairs);
                }
                continue;
            }
#endif
            tile_base(s, ai, lda, n, pj, width, pairs);
        }
    }
}

void fb_imatmul_block(const fb_imatmul *p, fb_ssize m0, fb_ssize m1, fb_ssize n0, fb_ssize n1) {
    FB_ALIGNED(64) uint32_t sums[FB_IMATMUL_ROWS * FB_IMATMUL_COLS];
    FB_ALIGNED(64) int16_t panel[FB_IMATMUL_DEPTH * FB_IMATMUL_COLS];
    const fb_ssize rows = m1 - m0, cols = n1 - n0;
    const fb_ssize width = (cols + TILE_COLS - 1) / TILE_COLS * TILE_COLS;
    fb_ssize i, r0;
    memset(sums, 0, sizeof sums);
    for (r0 = 0; r0 < p->k; r0 += FB_IMATMUL_DEPTH) {
        const fb_ssize r1 = p->k - r0 < FB_IMATMUL_DEPTH ? p->k : r0 + FB_IMATMUL_DEPTH;
        pack_panel(p, panel, r0, r1, n0, cols, width);
        tiles(sums, p->a + m0 * p->lda + r0, p->lda, rows, panel, width, (r1 - r0 + 1) / 2);
    }
    for (i = 0; i < rows; i++)  /* the sums' bits are their int32s' (two's complement), as Cast writes */
        memcpy(p->c + (m0 + i) * p->ldc + n0, sums + i * FB_IMATMUL_COLS, (size_t)cols * sizeof *sums);
}

/* The integer nearest s * p / y, ties to even, for finite p and y, y != 0, where that quotient is
   below 2**20 in magnitude.  q, its rounding in two steps, is within 2**-52 |q| <= 2**-32 of
   it, so q's nearest integer c is the answer unless q is within 2**-30 of a tie h = c +- 1/2;
   there the sign of s * p - h * y decides, exactly: fma gives the product's rounding error lo
   (s * p = hi + lo), h * y is exact (22 and 24 bits), and hi - h * y is exact where the two are
   within a factor of 2 (Sterbenz), and else far larger than lo, with the right sign. */
static double nearest(int32_t s, double p, double y, double q) {
    double c = nearbyint(q), h, hi, lo, d;
    if (fabs(fabs(q - c) - 0.5) > 0x1p-30)
        return c;
    h = q >= c ? c + 0.5 : c - 0.5;
    hi = (double)s * p;
    lo = fma((double)s, p, -hi);
    d = (hi - h * y) + lo;  /* the sign of s * p - h * y */
    if (y < 0)
        d = -d;             /* now the sign of s * p / y - h */
    if (d == 0)             /* a tie: the even one of c and the other */
        return fmod(c, 2.0) == 0 ? c : (h > c ? c + 1 : c - 1);
    if (h > c)
        return d > 0 ? c + 1 : c;
    return d < 0 ? c - 1 : c;
}

void fb_requantize(const int32_t *s, const double *p, fb_ssize p_step, fb_ssize count, double y_scale, int zero,
                   int low, int high, uint8_t *y) {
    fb_ssize i;
    for (i = 0; i < count; i++) {
        double pi = p[i * p_step], q = (double)s[i] * pi / y_scale, v;
        int r;
        if (isnan(q))
            v = 0;  /* NaN counts as 0 (0 / 0, 0 * inf) */
        else if (!(fabs(q) < 0x1p20))
            v = q;  /* saturates */
        else if (!isfinite(pi) || !isfinite(y_scale) || y_scale == 0)
            v = nearbyint(q);  /* IEEE's quotient: 0 here */
        else
            v = nearest(s[i], pi, y_scale, q);
        v += zero;
        r = v < low ? low : v > high ? high : (int)v;
        y[i] = (uint8_t)r;  /* modulo 2**8 (C's rule): an int8's two's complement byte */
    }
}
