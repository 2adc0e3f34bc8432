/* Cast's conversions (convert.h): the reference's rules (fastbits/_cast_py.py), element by
   element.  Every step is defined C: a float becomes an integer only once it is known to be in
   the integer's range, and the float formats are encoded from the bits of a double. */
#include "convert.h"
#include "cpu.h"
#include "numbers.h"

#include <string.h>

#define BLOCK 256 /* elements of a row that go through the intermediate at a time (2 KiB) */

/* --------------------------------------------------------------------------
   Reading: a source element as the exact intermediate */

static FB_ALWAYS_INLINE int bit_length(uint64_t m) { /* m > 0 */
#if defined(__GNUC__) || defined(__clang__)
    return 64 - __builtin_clzll(m);
#else
    int n = 0;
    while (m) m >>= 1, n++;
    return n;
#endif
}

/* An integer's magnitude as a double: exact up to 2**53, beyond rounded to 53 bits to odd (the
   lowest kept bit set when any dropped bit was), so that one more rounding is exact. */
static FB_ALWAYS_INLINE double odd_value(uint64_t m) {
    int shift;
    uint64_t kept;
    if (m <= (uint64_t)1 << 53) return (double)m;
    shift = bit_length(m) - 53;
    kept = m >> shift | ((m & (((uint64_t)1 << shift) - 1)) != 0);
    return (double)kept * double_of((uint64_t)(1023 + shift) << 52); /* exact: a power of two */
}

static FB_ALWAYS_INLINE double i64_value(int64_t v) {
    const double d = odd_value(v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
    return v < 0 ? -d : d;
}

/* v[i] = source element i, for m elements at byte stride sa; a contiguous row gets a loop of its
   own, which the compiler vectorizes. */
#define READ(T, EXPR)                                                                            \
    do {                                                                                         \
        if (sa == (fb_ssize)sizeof(T))                                                           \
            for (i = 0; i < m; i++) {                                                            \
                T x;                                                                             \
                memcpy(&x, a + i * (fb_ssize)sizeof(T), sizeof(T));                              \
                v[i] = EXPR;                                                                     \
            }                                                                                    \
        else                                                                                     \
            for (i = 0; i < m; i++) {                                                            \
                T x;                                                                             \
                memcpy(&x, a + i * sa, sizeof(T));                                               \
                v[i] = EXPR;                                                                     \
            }                                                                                    \
    } while (0)

static FB_ALWAYS_INLINE void read_doubles(int src, double *v, const char *a, fb_ssize sa, fb_ssize m) {
    fb_ssize i;
    switch (src) {
    case FB_NUM_I8: READ(int8_t, (double)x); break;
    case FB_NUM_I16: READ(int16_t, (double)x); break;
    case FB_NUM_I32: READ(int32_t, (double)x); break;
    case FB_NUM_I64: READ(int64_t, i64_value(x)); break;
    case FB_NUM_U8: case FB_NUM_BOOL: READ(uint8_t, (double)x); break;
    case FB_NUM_U16: READ(uint16_t, (double)x); break;
    case FB_NUM_U32: READ(uint32_t, (double)x); break;
    case FB_NUM_U64: READ(uint64_t, odd_value(x)); break;
    case FB_NUM_F16: READ(uint16_t, f16_value(x)); break;
    case FB_NUM_BF16: READ(uint16_t, bf16_value(x)); break;
    case FB_NUM_F32: READ(float, (double)x); break;
    default: READ(double, x); break;
    }
}

/* An integer source's value, two's complement in 64 bits. */
static FB_ALWAYS_INLINE void read_integers(int src, uint64_t *v, const char *a, fb_ssize sa, fb_ssize m) {
    fb_ssize i;
    switch (src) {
    case FB_NUM_I8: READ(int8_t, (uint64_t)(int64_t)x); break;
    case FB_NUM_I16: READ(int16_t, (uint64_t)(int64_t)x); break;
    case FB_NUM_I32: READ(int32_t, (uint64_t)(int64_t)x); break;
    case FB_NUM_U8: case FB_NUM_BOOL: READ(uint8_t, (uint64_t)x); break;
    case FB_NUM_U16: READ(uint16_t, (uint64_t)x); break;
    case FB_NUM_U32: READ(uint32_t, (uint64_t)x); break;
    default: READ(uint64_t, x); break; /* I64, U64 */
    }
}

/* --------------------------------------------------------------------------
   Writing: the intermediate as a target element */

#define WRITE(T, EXPR)                                                                           \
    do {                                                                                         \
        if (so == (fb_ssize)sizeof(T))                                                           \
            for (i = 0; i < m; i++) {                                                            \
                const T y = (T)(EXPR);                                                           \
                memcpy(o + i * (fb_ssize)sizeof(T), &y, sizeof(T));                              \
            }                                                                                    \
        else                                                                                     \
            for (i = 0; i < m; i++) {                                                            \
                const T y = (T)(EXPR);                                                           \
                memcpy(o + i * so, &y, sizeof(T));                                               \
            }                                                                                    \
    } while (0)

/* Toward zero, into [low, high]; NaN 0; below low, low; at or above high + 1 (a power of two,
   exact as a double), high.  Only an in-range value is converted. */
static FB_ALWAYS_INLINE int64_t toward_zero(double x, double low, double above, int64_t low_i, int64_t high_i) {
    if (x != x) return 0;
    if (x < low) return low_i;
    if (x >= above) return high_i;
    return (int64_t)x;
}

static FB_ALWAYS_INLINE uint64_t toward_zero_u64(double x) {
    if (!(x >= 0)) return 0; /* NaN and the negatives: -0.5 is 0 toward zero too */
    if (x >= 0x1p64) return UINT64_MAX;
    return (uint64_t)x;
}

/* To nearest even, then the low bits (int4.md's "rounding and truncating"); NaN and the
   infinities 0.  Beyond 2**62 every double is a multiple of 2**10: its low bits are 0. */
static FB_ALWAYS_INLINE uint8_t small_of(double x, uint8_t mask) {
    const double a = double_of(bits_of(x) & 0x7FFFFFFFFFFFFFFFu);
    uint64_t n;
    if (!(a < 0x1p62)) return 0;
    n = (uint64_t)(a < 0x1p52 ? (a + 0x1p52) - 0x1p52 : a); /* the sum rounds ties to even */
    return (uint8_t)((x < 0 ? 0 - n : n) & mask);
}

/* small_of() for a float, from its bits, without a branch (so that compilers vectorize it):
   below 2**23 the add of 2**23 rounds |x| to an integer, which the sum's mantissa holds (2**23
   itself as 0, the same low bits); from 2**23 to 2**27 |x| is an integer whose low bits are its
   mantissa's, shifted by at most 3; from 2**27 on (infinities and NaN too) they are 0.  The
   magnitudes are compared as bits, which order them (NaN above the infinities). */
static FB_ALWAYS_INLINE uint8_t small_of_float(uint32_t w, uint8_t mask) {
    const uint32_t bits = w & 0x7FFFFFFFu;
    const uint32_t below = bits_of_float(float_of(bits) + 0x1p23f) & 0x7FFFFFu;
    const uint32_t above = (0x800000u | (bits & 0x7FFFFFu)) << (((bits >> 23) - 150) & 3);
    /* as masks, not a choice: GCC keeps a choice between a float sum and something else a branch */
    const uint32_t is_below = 0u - (uint32_t)(bits < 0x4B000000u);               /* 2**23 */
    const uint32_t is_above = 0u - (uint32_t)(bits - 0x4B000000u < 0x2000000u); /* to 2**27 */
    const uint32_t n = (below & is_below) | (above & is_above);
    const uint32_t negative = 0u - (w >> 31);
    return (uint8_t)(((n ^ negative) - negative) & mask);
}

static FB_ALWAYS_INLINE void write_doubles(const fb_cast *c, const format_t *f, char *o, fb_ssize so,
                                           const double *v, fb_ssize m) {
    fb_ssize i;
    const uint8_t mask = (uint8_t)((1u << c->bits) - 1);
    switch (c->dst) {
    case FB_NUM_I8: WRITE(int8_t, toward_zero(v[i], -0x1p7, 0x1p7, INT8_MIN, INT8_MAX)); break;
    case FB_NUM_I16: WRITE(int16_t, toward_zero(v[i], -0x1p15, 0x1p15, INT16_MIN, INT16_MAX)); break;
    case FB_NUM_I32: WRITE(int32_t, toward_zero(v[i], -0x1p31, 0x1p31, INT32_MIN, INT32_MAX)); break;
    case FB_NUM_I64: WRITE(int64_t, toward_zero(v[i], -0x1p63, 0x1p63, INT64_MIN, INT64_MAX)); break;
    case FB_NUM_U8: WRITE(uint8_t, toward_zero(v[i], 0, 0x1p8, 0, UINT8_MAX)); break;
    case FB_NUM_U16: WRITE(uint16_t, toward_zero(v[i], 0, 0x1p16, 0, UINT16_MAX)); break;
    case FB_NUM_U32: WRITE(uint32_t, toward_zero(v[i], 0, 0x1p32, 0, UINT32_MAX)); break;
    case FB_NUM_U64: WRITE(uint64_t, toward_zero_u64(v[i])); break;
    case FB_NUM_F32: WRITE(float, v[i]); break; /* to nearest even, out of range to infinity */
    case FB_NUM_F64: WRITE(double, v[i]); break;
    case FB_NUM_BOOL: WRITE(uint8_t, v[i] != 0); break; /* NaN is True */
    case FB_NUM_SMALL: WRITE(uint8_t, small_of(v[i], mask)); break;
    case FB_NUM_E8M0: {
        e8m0_t e;
        e8m0_init(c, &e);
        WRITE(uint8_t, e8m0_of(v[i], &e));
        break;
    }
    default: /* FB_NUM_FORMAT */
        if (c->ebits + c->mbits + 1 > 8) WRITE(uint16_t, encode(v[i], f));
        else WRITE(uint8_t, encode(v[i], f));
        break;
    }
}

/* An integer into an integer: its low bits, read in the target's two's complement. */
static FB_ALWAYS_INLINE void write_integers(const fb_cast *c, char *o, fb_ssize so, const uint64_t *v, fb_ssize m) {
    fb_ssize i;
    switch (c->dst) {
    case FB_NUM_I8: case FB_NUM_U8: WRITE(uint8_t, v[i]); break;
    case FB_NUM_I16: case FB_NUM_U16: WRITE(uint16_t, v[i]); break;
    case FB_NUM_I32: case FB_NUM_U32: WRITE(uint32_t, v[i]); break;
    case FB_NUM_BOOL: WRITE(uint8_t, v[i] != 0); break;
    case FB_NUM_SMALL: WRITE(uint8_t, v[i] & ((1u << c->bits) - 1)); break;
    default: WRITE(uint64_t, v[i]); break; /* I64, U64 */
    }
}

/* --------------------------------------------------------------------------
   Loops of their own: one pass, no intermediate */

#define DIRECT(S, D, EXPR)                                                                       \
    do {                                                                                         \
        fb_ssize i;                                                                              \
        if (so == (fb_ssize)sizeof(D) && sa == (fb_ssize)sizeof(S))                              \
            for (i = 0; i < n; i++) {                                                            \
                S x;                                                                             \
                D y;                                                                             \
                memcpy(&x, a + i * (fb_ssize)sizeof(S), sizeof(S));                              \
                y = (D)(EXPR);                                                                   \
                memcpy(o + i * (fb_ssize)sizeof(D), &y, sizeof(D));                              \
            }                                                                                    \
        else                                                                                     \
            for (i = 0; i < n; i++) {                                                            \
                S x;                                                                             \
                D y;                                                                             \
                memcpy(&x, a + i * sa, sizeof(S));                                               \
                y = (D)(EXPR);                                                                   \
                memcpy(o + i * so, &y, sizeof(D));                                               \
            }                                                                                    \
        return 1;                                                                                \
    } while (0)

static FB_ALWAYS_INLINE int direct(const fb_cast *c, char *o, fb_ssize so, const char *a, fb_ssize sa, fb_ssize n) {
    const int src = c->src, dst = c->dst;
    if (src == FB_NUM_F32 && dst == FB_NUM_SMALL) {
        const uint8_t mask = (uint8_t)((1u << c->bits) - 1);
        DIRECT(uint32_t, uint8_t, small_of_float(x, mask));
    }
    if (src == FB_NUM_F32 && dst == FB_NUM_FORMAT && c->ebits == 8 && c->mbits == 7) DIRECT(uint32_t, uint16_t, bf16_of(x));
    if (src == FB_NUM_F32 && dst == FB_NUM_FORMAT) { /* the others: a float holds their binades */
        format_t f;
        format_of(c, &f);
        if (c->ebits + c->mbits + 1 > 8) DIRECT(uint32_t, uint16_t, encode32(x, &f));
        DIRECT(uint32_t, uint8_t, encode32(x, &f));
    }
    if (src == FB_NUM_F32 && dst == FB_NUM_E8M0) {
        e8m0_t r;
        uint32_t t;
        e8m0_init(c, &r);
        t = (uint32_t)(r.threshold >> 29);
        DIRECT(uint32_t, uint8_t, e8m0_of32(x, t, r.high, r.low));
    }
    if (src == FB_NUM_F64 && dst == FB_NUM_F32) DIRECT(double, float, x);
    if (src == FB_NUM_F32 && dst == FB_NUM_F64) DIRECT(float, double, x);
    if (src == FB_NUM_I64 && dst == FB_NUM_F64) DIRECT(int64_t, double, x);   /* one rounding */
    if (src == FB_NUM_U64 && dst == FB_NUM_F64) DIRECT(uint64_t, double, x);
    if ((src == FB_NUM_I64 || src == FB_NUM_U64) && (dst == FB_NUM_I32 || dst == FB_NUM_U32)) DIRECT(uint64_t, uint32_t, x);
    if ((src == FB_NUM_I32 || src == FB_NUM_U32) && (dst == FB_NUM_I64 || dst == FB_NUM_U64))
        DIRECT(uint32_t, uint64_t, src == FB_NUM_I32 ? (uint64_t)(int64_t)(int32_t)x : (uint64_t)x);
    return 0;
}

/* --------------------------------------------------------------------------
   A row */

static FB_ALWAYS_INLINE int integer(int num) {
    return num <= FB_NUM_U64 || num == FB_NUM_BOOL;
}

/* One row, in an AVX2 and a baseline version (cpu.h). */
FB_DISPATCHED_VOID(convert_row, (const fb_cast *c, char *o, fb_ssize so, const char *a, fb_ssize sa,
                                  fb_ssize n), (c, o, so, a, sa, n)) {
    format_t f;
    fb_ssize start, m;
    if (direct(c, o, so, a, sa, n)) return;
    if (integer(c->src) && (integer(c->dst) || c->dst == FB_NUM_SMALL)) {
        uint64_t v[BLOCK];
        for (start = 0; start < n; start += m) {
            m = n - start < BLOCK ? n - start : BLOCK;
            read_integers(c->src, v, a + start * sa, sa, m);
            write_integers(c, o + start * so, so, v, m);
        }
        return;
    }
    if (c->dst == FB_NUM_FORMAT) format_of(c, &f);
    else memset(&f, 0, sizeof f);
    {
        double v[BLOCK];
        for (start = 0; start < n; start += m) {
            m = n - start < BLOCK ? n - start : BLOCK;
            read_doubles(c->src, v, a + start * sa, sa, m);
            write_doubles(c, &f, o + start * so, so, v, m);
        }
    }
}

/* --------------------------------------------------------------------------
   F16C: binary16 <-> float in one instruction per 8 values, on contiguous rows, where the CPU
   has it (cpu.h).  Both directions are exact: vcvtps2ph rounds to nearest even (the immediate,
   whatever MXCSR says) and keeps subnormals, vcvtph2ps is exact and quiets a signaling NaN as
   the portable route through a double does.  One difference is mended: vcvtps2ph keeps a NaN's
   top payload bits, where encode() makes every NaN the quiet NaN of its sign (0x7E00). */

#if FB_HAVE_AVX2
#include <immintrin.h>
#define FB_TARGET_F16C __attribute__((target("avx,f16c")))

FB_TARGET_F16C static FB_ALWAYS_INLINE __m128i halves_of(__m256 x) {
    const __m128i h = _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT);
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q));
    const __m128i nan16 = _mm_packs_epi32(_mm256_castsi256_si128(nan), _mm256_extractf128_si256(nan, 1));
    return _mm_andnot_si128(_mm_and_si128(nan16, _mm_set1_epi16(0x01FF)), h); /* payload cleared */
}

/* Elements ``start`` on of a contiguous row, 8 at a time, streamed around the cache where
   ``stream`` (o + start aligned for it); returns where the whole vectors end. */
FB_TARGET_F16C static fb_ssize halves_of_floats(int stream, char *o, const char *a, fb_ssize start, fb_ssize n) {
    fb_ssize i;
    for (i = start; i + 8 <= n; i += 8) {
        const __m128i h = halves_of(_mm256_loadu_ps((const float *)(a + 4 * i)));
        if (stream) _mm_stream_si128((__m128i *)(o + 2 * i), h);
        else _mm_storeu_si128((__m128i *)(o + 2 * i), h);
    }
    return i;
}

FB_TARGET_F16C static fb_ssize floats_of_halves(int stream, char *o, const char *a, fb_ssize start, fb_ssize n) {
    fb_ssize i;
    for (i = start; i + 8 <= n; i += 8) {
        const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + 2 * i)));
        if (stream) _mm256_stream_ps((float *)(o + 4 * i), f);
        else _mm256_storeu_ps((float *)(o + 4 * i), f);
    }
    return i;
}

/* The row by F16C where it applies (1 if done): the elements before o's first vector boundary
   (where it streams) and after the last whole vector by the portable loop. */
static int f16c_row(int stream, const fb_cast *c, char *o, fb_ssize so, const char *a, fb_ssize sa, fb_ssize n) {
    const int narrow = c->src == FB_NUM_F32 && c->dst == FB_NUM_FORMAT && c->ebits == 5 && c->mbits == 10 &&
                       c->special == FB_SPECIAL_IEEE && !c->saturate && so == 2 && sa == 4;
    const int widen = c->src == FB_NUM_F16 && c->dst == FB_NUM_F32 && so == 4 && sa == 2;
    const uintptr_t vector = narrow ? 16 : 32; /* the bytes a streaming store writes */
    fb_ssize start = 0, end;
    if (!fb_cpu.f16c || !(narrow || widen)) return 0;
    stream = stream && (uintptr_t)o % (uintptr_t)so == 0;
    if (stream) {
        start = (fb_ssize)((vector - (uintptr_t)o % vector) % vector) / so;
        if (start > n) start = n;
        convert_row(c, o, so, a, sa, start);
    }
    end = narrow ? halves_of_floats(stream, o, a, start, n) : floats_of_halves(stream, o, a, start, n);
    if (stream) _mm_sfence();
    convert_row(c, o + end * so, so, a + end * sa, sa, n - end);
    return 1;
}
#else
static int f16c_row(int stream, const fb_cast *c, char *o, fb_ssize so, const char *a, fb_ssize sa, fb_ssize n) {
    (void)stream, (void)c, (void)o, (void)so, (void)a, (void)sa, (void)n;
    return 0;
}
#endif

void fb_convert_row(int stream, const fb_cast *c, char *o, fb_ssize so, const char *a, fb_ssize sa, fb_ssize n) {
    if (!f16c_row(stream, c, o, so, a, sa, n)) convert_row(c, o, so, a, sa, n);
}
