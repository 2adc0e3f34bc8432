/* QuantizeLinear and DequantizeLinear (quant.h). */
#include "quant.h"
#include "cpu.h"
#include "numbers.h"

#include <math.h>
#include <stddef.h>
#include <string.h>
#if FB_HAVE_AVX2
#include <immintrin.h>
#endif

/* --------------------------------------------------------------------------
   DequantizeLinear */

/* A one-byte integer's value: the low xbits bits of its byte, sign-extended for a signed type
   (as ml_dtypes reads its 4- and 2-bit types). */
static FB_ALWAYS_INLINE float dq_small(uint8_t b, int is_signed, int xbits) {
    const int shift = 32 - xbits;
    const uint32_t up = (uint32_t)b << shift;
    return is_signed ? (float)((int32_t)up >> shift) : (float)(up >> shift);
}

static FB_ALWAYS_INLINE float dq_input(const fb_quant *q, const char *x) {
    switch (q->x) {
    case FB_NUM_FORMAT: return q->value[*(const uint8_t *)x];
    case FB_NUM_I8: return dq_small(*(const uint8_t *)x, 1, q->xbits);
    case FB_NUM_U8: return dq_small(*(const uint8_t *)x, 0, q->xbits);
    case FB_NUM_I16: {
        int16_t v;
        memcpy(&v, x, sizeof v);
        return (float)v;
    }
    default: {
        uint16_t v;
        memcpy(&v, x, sizeof v);
        return (float)v;
    }
    }
}

/* One row of DequantizeLinear: (x - zero) is exact in a float; into float32, the float product
   is IEEE's correctly rounded one; into a format, the double product is exact and encoded once. */
#define DQ_ROW(STORE)                                                                        \
    do {                                                                                         \
        if (sp == 0) {                                                                           \
            fb_qparam c;                                                                         \
            memcpy(&c, p, sizeof c);                                                             \
            for (i = 0; i < n; i++) {                                                            \
                const float v = dq_input(q, x + i * sx) - c.zero;                                \
                STORE(o + i * so, v, c.scale);                                                   \
            }                                                                                    \
        } else {                                                                                 \
            for (i = 0; i < n; i++) {                                                            \
                fb_qparam c;                                                                     \
                float v;                                                                         \
                memcpy(&c, p + i * sp, sizeof c);                                                \
                v = dq_input(q, x + i * sx) - c.zero;                                            \
                STORE(o + i * so, v, c.scale);                                                   \
            }                                                                                    \
        }                                                                                        \
    } while (0)

/* A NaN as the positive quiet NaN: float units differ in the NaN an operation gives (its sign,
   which operand's payload), and a result must not depend on the host.  On the bits, so that
   the loops stay vectorizable. */
static FB_ALWAYS_INLINE uint32_t canonical(float y) {
    const uint32_t w = bits_of_float(y);
    return (w & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC00000u : w;
}

#define STORE_F32(at, v, s)                                                                      \
    do {                                                                                         \
        const uint32_t y_ = canonical((v) * (s));                                                \
        memcpy((at), &y_, sizeof y_);                                                            \
    } while (0)

#define STORE_FORMAT(at, v, s)                                                                   \
    do {                                                                                         \
        const double r_ = (double)(v) * (double)(s);                                             \
        const uint16_t y_ = (uint16_t)encode(r_ == r_ ? r_ : (double)float_of(0x7FC00000u), &f);  \
        memcpy((at), &y_, sizeof y_);                                                            \
    } while (0)

/* x - zero point of an ``exact`` call (quant.h), in a double: exact. */
static FB_ALWAYS_INLINE double dq_difference(const fb_quant *q, const char *x, float zero) {
    if (q->x == FB_NUM_I32) {
        int32_t v, z;
        memcpy(&v, x, sizeof v);
        memcpy(&z, &zero, sizeof z); /* the zero point's own bits */
        return (double)v - (double)z;
    }
    return (double)dq_input(q, x) - (double)zero;
}

/* d * s rounded to odd in a double (its last bit set where the product is not exact): the
   nearest double, moved one step toward the exact product where the step makes it odd. */
static FB_ALWAYS_INLINE double dq_odd_product(double d, float s) {
    const double r = d * (double)s;
    const double e = fma(d, (double)s, -r); /* the exact product is r + e */
    const uint64_t w = bits_of(r);
    if (e == 0 || !isfinite(r) || (w & 1)) return r;
    return double_of((e > 0) == (r > 0) ? w + 1 : w - 1);
}

/* A finite float32 scale as sign * m * 2**e, m an integer below 2**24, with the powers of two
   dq_i32_product multiplies by. */
typedef struct {
    uint64_t m, sign; /* sign: a double's sign bit */
    uint64_t p0, p4;  /* the bits of 2**e and 2**(e + 4) */
} dq_scale_t;

/* 0 where s is not finite (the caller then takes dq_odd_product). */
static FB_ALWAYS_INLINE int dq_scale_of(float s, dq_scale_t *t) {
    const uint32_t w = bits_of_float(s), field = w >> 23 & 0xFFu;
    const int e = field ? (int)field - 150 : -149;
    if (field == 0xFFu) return 0;
    t->m = field ? (w & 0x7FFFFFu) | 0x800000u : w & 0x7FFFFFu;
    t->sign = (uint64_t)(w >> 31) << 63;
    t->p0 = (uint64_t)(e + 1023) << 52;
    t->p4 = (uint64_t)(e + 4 + 1023) << 52;
    return 1;
}

/* (x - z) * s for an int32 x and zero point z and a finite scale, rounded to odd with 49 bits
   or more, in integer arithmetic (where dq_odd_product needs fma) and without a branch, so
   that compilers vectorize it: |x - z| < 2**32 times m is an integer below 2**56; from 2**52
   on its 4 low bits fold into a sticky last bit; below 2**52 it is a double's fraction field
   (the add of 2**52), and its product with the power of two is exact.  Rounding to odd with
   at least 2 bits more than the result's (24) then rounds as the exact product does. */
static FB_ALWAYS_INLINE double dq_i32_product(int32_t v, int32_t z, const dq_scale_t *t) {
    const int64_t d = (int64_t)v - (int64_t)z;
    const uint64_t neg = (uint64_t)(d >> 63); /* all ones where d < 0 */
    const uint64_t k = (uint64_t)(uint32_t)(((uint64_t)d ^ neg) - neg) * t->m;
    const uint64_t wide = 0 - (uint64_t)(k >= (uint64_t)1 << 52);         /* all ones from 2**52 on */
    const uint64_t kept = (k & ~wide) | ((k >> 4 | (uint64_t)((k & 15) != 0)) & wide);
    const double r = (double_of(kept | 0x4330000000000000u) - 0x1p52) * double_of((t->p0 & ~wide) | (t->p4 & wide));
    return double_of(bits_of(r) ^ ((neg << 63) ^ t->sign)); /* the product's sign, zeros too */
}

/* An int32 element and its zero point (the zero point's own bits stand in fb_qparam's). */
static FB_ALWAYS_INLINE double dq_i32(const char *x, float zero, const dq_scale_t *t) {
    int32_t v, z;
    memcpy(&v, x, sizeof v);
    memcpy(&z, &zero, sizeof z);
    return dq_i32_product(v, z, t);
}

/* A DequantizeLinear result from its product rounded to odd: float32 (a NaN as canonical()),
   or a format's code. */
#define DQ_STORE_ODD(at, r)                                                                      \
    do {                                                                                         \
        if (q->y == FB_NUM_F32) {                                                                \
            const uint32_t y_ = canonical((float)(r));                                           \
            memcpy((at), &y_, sizeof y_);                                                        \
        } else {                                                                                 \
            const uint16_t y_ = (uint16_t)encode((r) == (r) ? (r) : (double)float_of(0x7FC00000u), &f); \
            memcpy((at), &y_, sizeof y_);                                                        \
        }                                                                                        \
    } while (0)

/* A contiguous int32 row into float32 with one finite scale, 4 elements at a time by AVX2 and
   FMA (the AVX2 level, cpu.h), dq_odd_product's rule in vectors: x - z exact in a double, its
   product with the scale rounded to nearest and the rounding error by fma; where the error is
   not 0 and the product's last bit even, a step of one in its bits toward the exact product
   makes it the product rounded to odd, which vcvtpd2ps rounds once, as the exact product.
   Returns the elements done. */
#if FB_HAVE_AVX2
__attribute__((target("avx2,fma"))) static fb_ssize dq_i32_vectors(char *o, const char *x, int32_t z, float s,
                                                                  fb_ssize n) {
    const __m256d zd = _mm256_set1_pd((double)z), sd = _mm256_set1_pd((double)s);
    const __m256i one = _mm256_set1_epi64x(1), none = _mm256_setzero_si256();
    fb_ssize i;
    for (i = 0; i + 4 <= n; i += 4) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(x + 4 * i));
        const __m256d d = _mm256_sub_pd(_mm256_cvtepi32_pd(v), zd);
        const __m256d r = _mm256_mul_pd(d, sd);
        const __m256d e = _mm256_fmsub_pd(d, sd, r); /* the exact product is r + e */
        const __m256i w = _mm256_castpd_si256(r);
        const __m256i inexact = _mm256_castpd_si256(_mm256_cmp_pd(e, _mm256_setzero_pd(), _CMP_NEQ_OQ));
        const __m256i even = _mm256_cmpeq_epi64(_mm256_and_si256(w, one), none);
        /* all ones where the signs differ: the exact product is nearer 0, the step -1 */
        const __m256i down = _mm256_cmpgt_epi64(none, _mm256_xor_si256(w, _mm256_castpd_si256(e)));
        const __m256i step = _mm256_and_si256(_mm256_and_si256(inexact, even), _mm256_or_si256(down, one));
        const __m128 y = _mm256_cvtpd_ps(_mm256_castsi256_pd(_mm256_add_epi64(w, step)));
        _mm_storeu_ps((float *)(void *)(o + 4 * i), y);
    }
    return i;
}
#endif

static fb_ssize dq_i32_row(char *o, const char *x, int32_t z, float s, fb_ssize n) {
#if FB_HAVE_AVX2
    if (fb_cpu_avx2) return dq_i32_vectors(o, x, z, s, n);
#endif
    (void)o, (void)x, (void)z, (void)s, (void)n;
    return 0;
}

/* One row of an ``exact`` DequantizeLinear, into float32 or a format. */
static FB_ALWAYS_INLINE void dequantize_exact(const fb_quant *q, char *o, fb_ssize so, const char *x, fb_ssize sx,
                                              const char *p, fb_ssize sp, fb_ssize n) {
    fb_ssize i;
    format_t f = {0};
    dq_scale_t t;
    if (q->y != FB_NUM_F32) format_of(&q->format, &f);
    if (q->x == FB_NUM_I32 && sp == 0 && q->y == FB_NUM_F32 && sx == 4 && so == 4) {
        /* contiguous, one scale: its parts once, by vectors (dq_i32_row) or in a loop compilers
           vectorize */
        fb_qparam c;
        memcpy(&c, p, sizeof c);
        if (dq_scale_of(c.scale, &t)) {
            int32_t z;
            memcpy(&z, &c.zero, sizeof z);
            for (i = dq_i32_row(o, x, z, c.scale, n); i < n; i++) {
                int32_t v;
                const float y = (float)dq_i32_product((memcpy(&v, x + 4 * i, sizeof v), v), z, &t);
                memcpy(o + 4 * i, &y, sizeof y); /* never NaN: the scale is finite */
            }
            return;
        }
    }
    for (i = 0; i < n; i++) {
        fb_qparam c;
        double r;
        memcpy(&c, p + i * sp, sizeof c);
        if (q->x == FB_NUM_I32 && dq_scale_of(c.scale, &t)) {
            DQ_STORE_ODD(o + i * so, dq_i32(x + i * sx, c.zero, &t));
            continue;
        }
        r = dq_odd_product(dq_difference(q, x + i * sx, c.zero), c.scale);
        DQ_STORE_ODD(o + i * so, r);
    }
}

/* An int16 or uint16 element i of a contiguous row, by memcpy (the row need not be aligned). */
static FB_ALWAYS_INLINE float dq_i16(const char *x, fb_ssize i) {
    int16_t v;
    memcpy(&v, x + 2 * i, sizeof v);
    return (float)v;
}

static FB_ALWAYS_INLINE float dq_u16(const char *x, fb_ssize i) {
    uint16_t v;
    memcpy(&v, x + 2 * i, sizeof v);
    return (float)v;
}

/* A contiguous row of an integer type into float32, with one scale (per tensor, or blocks along
   the row) or a scale per element (per axis, or blocks along an outer axis, as quantizers lay
   out a K x N weight): ELEMENT(i) is element i's value.  Loops the compiler vectorizes. */
#define DQ_F32_CONTIGUOUS(ELEMENT)                                                               \
    do {                                                                                         \
        uint32_t *out_bits = (uint32_t *)(void *)o;                                              \
        if (sp == 0) {                                                                           \
            fb_qparam c;                                                                         \
            memcpy(&c, p, sizeof c);                                                             \
            for (i = 0; i < n; i++) out_bits[i] = canonical((ELEMENT(i) - c.zero) * c.scale);    \
        } else {                                                                                 \
            const fb_qparam *c = (const fb_qparam *)(const void *)p;                             \
            for (i = 0; i < n; i++) out_bits[i] = canonical((ELEMENT(i) - c[i].zero) * c[i].scale); \
        }                                                                                        \
    } while (0)
#define DQ_I8(i) dq_small(in[i], 1, xbits)
#define DQ_U8(i) dq_small(in[i], 0, xbits)
#define DQ_I16(i) dq_i16(x, i)
#define DQ_U16(i) dq_u16(x, i)

static FB_ALWAYS_INLINE void dequantize(const fb_quant *q, char *o, fb_ssize so, const char *x, fb_ssize sx,
                                        const char *p, fb_ssize sp, fb_ssize n) {
    fb_ssize i;
    if (q->exact) {
        dequantize_exact(q, o, so, x, sx, p, sp, n);
        return;
    }
    if (q->y == FB_NUM_F32) {
        if (so == 4 && (sp == 0 || sp == (fb_ssize)sizeof(fb_qparam))) {
            const uint8_t *in = (const uint8_t *)x;
            const int xbits = q->xbits;
            if (q->x == FB_NUM_I8 && sx == 1) {
                DQ_F32_CONTIGUOUS(DQ_I8);
                return;
            }
            if (q->x == FB_NUM_U8 && sx == 1) {
                DQ_F32_CONTIGUOUS(DQ_U8);
                return;
            }
            if (q->x == FB_NUM_I16 && sx == 2) {
                DQ_F32_CONTIGUOUS(DQ_I16);
                return;
            }
            if (q->x == FB_NUM_U16 && sx == 2) {
                DQ_F32_CONTIGUOUS(DQ_U16);
                return;
            }
        }
        DQ_ROW(STORE_F32);
    } else {
        format_t f;
        format_of(&q->format, &f);
        DQ_ROW(STORE_FORMAT);
    }
}

/* --------------------------------------------------------------------------
   QuantizeLinear */

/* A float16 as a float, without a branch: a normal one's bits moved into a float's, times
   2**112; a subnormal one its integer significand times 2**-24; the infinities and NaNs
   (payload kept) by their bits.  No step makes or reads a subnormal float. */
static FB_ALWAYS_INLINE float ql_f16(const char *x) {
    uint16_t h;
    uint32_t em, normal, special;
    memcpy(&h, x, sizeof h);
    em = (uint32_t)(h & 0x7FFFu) << 13;
    normal = 0u - (uint32_t)(em >= 0x00800000u);
    special = 0u - (uint32_t)(em >= 0x0F800000u); /* infinity or NaN */
    return float_of((uint32_t)(h & 0x8000u) << 16 | ((em | 0x7F800000u) & special) |
                    (bits_of_float(float_of((em & normal) | (0x00800000u & ~normal)) * 0x1p112f) & normal & ~special) |
                    (bits_of_float((float)(h & 0x3FFu) * 0x1p-24f) & ~normal));
}

static FB_ALWAYS_INLINE float ql_bf16(const char *x) {
    uint16_t h;
    memcpy(&h, x, sizeof h);
    return float_of((uint32_t)h << 16);
}

static FB_ALWAYS_INLINE float ql_input(const fb_quant *q, const char *x) {
    switch (q->x) {
    case FB_NUM_F16: return ql_f16(x);
    case FB_NUM_BF16: return ql_bf16(x);
    case FB_NUM_I32: {
        int32_t v;
        memcpy(&v, x, sizeof v);
        return (float)v; /* to nearest even: float32 is the precision */
    }
    default: {
        float v;
        memcpy(&v, x, sizeof v);
        return v;
    }
    }
}

/* The input's exact value (every value of the input types is a double). */
static FB_ALWAYS_INLINE double ql_exact(const fb_quant *q, const char *x) {
    if (q->x == FB_NUM_I32) {
        int32_t v;
        memcpy(&v, x, sizeof v);
        return (double)v;
    }
    return (double)ql_input(q, x);
}

/* A double rounded once to the precision's format pf (float16 or bfloat16), beyond its largest
   finite value to infinity, as a float (those values are floats exactly): encode()'s add of a
   power of two whose ulp is the format's quantum in v's binade, without making the code. */
static FB_ALWAYS_INLINE float ql_round(const format_t *pf, double v) {
    const uint64_t w = bits_of(v), sign = w & 0x8000000000000000u, a = w ^ sign;
    const uint64_t low = (uint64_t)pf->emin << 52, high = (uint64_t)(pf->emax + 1) << 52;
    const uint64_t binade = (a < low ? low : a > high ? high : a) & 0x7FF0000000000000u; /* a finite magic */
    const double magic = double_of(binade + ((uint64_t)(52 - pf->mbits) << 52));
    const uint64_t r = bits_of((double_of(a) + magic) - magic);
    const uint64_t nan = 0 - (uint64_t)(a > 0x7FF0000000000000u), over = 0 - (uint64_t)(r >= high);
    return (float)double_of(sign | (a & nan) | (~nan & ((0x7FF0000000000000u & over) | (r & ~over)))); /* NaN kept */
}

/* A scale in the call's precision: itself in float32, else rounded to the precision. */
static FB_ALWAYS_INLINE float ql_scale(const fb_quant *q, const format_t *pf, float scale) {
    return q->precision == FB_NUM_F32 ? scale : ql_round(pf, (double)scale);
}

/* x / scale in the call's precision, the scale already in it (ql_scale): float32's division,
   or x rounded to the precision, the quotient in a double rounded to it once more (quant.h). */
static FB_ALWAYS_INLINE float ql_quotient(const fb_quant *q, const format_t *pf, const char *x, float scale) {
    double v;
    if (q->precision == FB_NUM_F32) return ql_input(q, x) / scale;
    v = q->x == q->precision ? (double)ql_input(q, x) : (double)ql_round(pf, ql_exact(q, x)); /* already in it */
    return ql_round(pf, v / (double)scale);
}

/* x / s in int32 precision: ``a``, x rounded half to even to an integer (in a double: a float
   input's range is not int32's), over the int32 scale s, rounded half to even exactly (in
   64-bit integers below 2**62; from there on |a / s| > 2**31); a division by 0 is an infinity
   of a's sign, 0 / 0 NaN; NaN and the infinities stay.  As a float, a finite quotient beyond
   2**17 as +-2**17: no result's range or zero point, and no float format's largest value, can
   tell them apart (ql_integer clamps there too). */
static FB_ALWAYS_INLINE float ql_int_quotient(double a, int32_t s) {
    double v;
    if (a != a) return float_of(0x7FC00000u);
    if (s == 0) return a == 0 ? float_of(0x7FC00000u) : a > 0 ? HUGE_VALF : -HUGE_VALF;
    if (!(fabs(a) < 0x1p62)) {
        v = a / (double)s; /* an infinity, or beyond 2**31 */
    } else {
        const uint64_t n = (uint64_t)fabs(a), d = (uint64_t)(s < 0 ? -(int64_t)s : (int64_t)s);
        const uint64_t whole = n / d, rest = n % d;
        const uint64_t q = whole + (uint64_t)(2 * rest > d || (2 * rest == d && (whole & 1)));
        v = (a < 0) != (s < 0) && q != 0 ? -(double)q : (double)q; /* 0 has no sign here */
    }
    return (float)(v > 0x1p17 && v < HUGE_VAL ? 0x1p17 : v < -0x1p17 && v > -HUGE_VAL ? -0x1p17 : v);
}

/* A quotient as an integer result: NaN counts as 0; |q| clamped to 2**17 (which changes
   nothing: every zero point and range lies within 2**16); to nearest even by the add of
   1.5 * 2**23; then the zero point, saturated.  On the bits, with masks for the choices, so that
   compilers vectorize it (a float choice in the loop stays a branch). */
static FB_ALWAYS_INLINE int32_t ql_integer(float quotient, int32_t zero, int32_t low, int32_t high) {
    const uint32_t w = bits_of_float(quotient);
    const uint32_t a = w & 0x7FFFFFFFu;
    const uint32_t number = 0u - (uint32_t)(a <= 0x7F800000u);                 /* all ones unless NaN */
    const uint32_t m = ((a < 0x48000000u ? a : 0x48000000u) | (w & 0x80000000u)) & number;
    const float v = (float_of(m) + 0x1.8p23f) - 0x1.8p23f;
    int32_t t = (int32_t)v + zero;
    t = t < low ? low : t;
    return t > high ? high : t;
}

/* A zero point as an int32.  The caller's zero point is an integer of the result's type (the
   spec's checks see to that), which converts exactly; anything else, NaN included, is clamped
   first, so that the conversion is defined wherever this function is called. */
static FB_ALWAYS_INLINE int32_t ql_zero(float zero) {
    return zero >= -131072.0f && zero <= 131072.0f ? (int32_t)zero : zero > 0 ? 131072 : zero < 0 ? -131072 : 0;
}

/* A quotient as a float format's code: plus the zero point (exact in a double up to what the
   format's rounding cannot see), encoded by Cast's rules; a missing zero point (-0) adds
   nothing, and the float encoder takes the quotient as it is. */
static FB_ALWAYS_INLINE uint32_t ql_format(float quotient, float zero, const format_t *f) {
    double v;
    if (bits_of_float(zero) == 0x80000000u) return encode32(canonical(quotient), f);
    v = (double)float_of(canonical(quotient)) + (double)zero;
    return encode(v == v ? v : (double)float_of(0x7FC00000u), f);
}

/* The zero points of a row's parameters (one, or n at stride sp) are all +0 or -0. */
static FB_ALWAYS_INLINE int zeros_only(const char *p, fb_ssize sp, fb_ssize n) {
    fb_ssize i;
    for (i = 0; i < (sp == 0 ? 1 : n); i++) {
        fb_qparam c;
        memcpy(&c, p + i * sp, sizeof c);
        if (bits_of_float(c.zero) & 0x7FFFFFFFu) return 0;
    }
    return 1;
}

/* The quotients of m elements at stride sx by one scale (in the precision): for a contiguous
   input already in the precision, a loop compilers vectorize. */
static FB_ALWAYS_INLINE void ql_quotients(const fb_quant *q, const format_t *pf, float *qt, const char *x, fb_ssize sx,
                                          float scale, fb_ssize m) {
    fb_ssize j;
    if (sx == 2 && q->x == q->precision && q->x == FB_NUM_F16)
        for (j = 0; j < m; j++) qt[j] = ql_round(pf, (double)ql_f16(x + 2 * j) / (double)scale);
    else if (sx == 2 && q->x == q->precision && q->x == FB_NUM_BF16)
        for (j = 0; j < m; j++) qt[j] = ql_round(pf, (double)ql_bf16(x + 2 * j) / (double)scale);
    else
        for (j = 0; j < m; j++) qt[j] = ql_quotient(q, pf, x + j * sx, scale);
}

/* The quotients of m elements in int32 precision (one scale, or one each at stride sp): a
   function of its own, compiled once, where QL_ROW expands once per result type. */
static void ql_int_quotients(const fb_quant *q, float *qt, const char *x, fb_ssize sx, const char *p, fb_ssize sp,
                             fb_ssize m) {
    fb_ssize j;
    for (j = 0; j < m; j++) {
        int32_t s; /* the scale's own bits (quant.h) */
        memcpy(&s, p + j * sp + offsetof(fb_qparam, scale), sizeof s);
        qt[j] = ql_int_quotient(rint(ql_exact(q, x + j * sx)), s);
    }
}

/* A row of QuantizeLinear into type T, EXPR the result of the quotient qt and the parameters
   c: the quotients of a block first, then their results, so that each loop is short enough
   for the processor to run several elements at once (one element's steps depend on each
   other; the quotient's division and roundings are long).  Where each element has its
   parameters, the results' loop reads them again: a loop that took the zero points from
   either the row or an array ran half as fast (GCC no longer vectorized it). */
#define QL_BLOCK 256
#define QL_ROW(T, EXPR)                                                                          \
    do {                                                                                         \
        float qts_[QL_BLOCK];                                                                    \
        fb_ssize start_, m_, j_;                                                                 \
        fb_qparam c;                                                                             \
        float s_ = 0; /* the row's scale, in the precision once */                              \
        memcpy(&c, p, sizeof c);                                                                 \
        if (sp == 0 && q->precision != FB_NUM_I32) s_ = ql_scale(q, &pf, c.scale);               \
        for (start_ = 0; start_ < n; start_ += m_) {                                             \
            const char *xs_ = x + start_ * sx, *ps_ = p + start_ * sp;                           \
            char *os_ = o + start_ * so;                                                         \
            m_ = n - start_ < QL_BLOCK ? n - start_ : QL_BLOCK;                                  \
            if (q->precision == FB_NUM_I32) {                                                    \
                ql_int_quotients(q, qts_, xs_, sx, ps_, sp, m_);                                 \
            } else if (sp == 0) {                                                                \
                ql_quotients(q, &pf, qts_, xs_, sx, s_, m_);                                     \
            } else {                                                                             \
                for (j_ = 0; j_ < m_; j_++) {                                                    \
                    memcpy(&c, ps_ + j_ * sp, sizeof c);                                         \
                    qts_[j_] = ql_quotient(q, &pf, xs_ + j_ * sx, ql_scale(q, &pf, c.scale));    \
                }                                                                                \
            }                                                                                    \
            for (j_ = 0; j_ < m_; j_++) {                                                        \
                const float qt = qts_[j_];                                                       \
                T y;                                                                             \
                if (sp != 0) memcpy(&c, ps_ + j_ * sp, sizeof c);                                \
                y = (T)(EXPR);                                                                   \
                memcpy(os_ + j_ * so, &y, sizeof y);                                             \
            }                                                                                    \
        }                                                                                        \
    } while (0)

/* o[i] = x[i] / its scale as an integer of type T (its low bits MASK) of the float32 row ``in``:
   one scale for the row (sp 0) or one per element. */
#define QL_CONTIGUOUS(T, MASK)                                                                   \
    do {                                                                                         \
        const T mask_ = (T)(MASK);                                                               \
        if (sp == 0) {                                                                           \
            fb_qparam c;                                                                         \
            int32_t zero;                                                                        \
            memcpy(&c, p, sizeof c);                                                             \
            zero = ql_zero(c.zero);                                                              \
            for (i = 0; i < n; i++) {                                                            \
                const T y = (T)((T)ql_integer(in[i] / c.scale, zero, low, high) & mask_);        \
                memcpy(o + i * (fb_ssize)sizeof(T), &y, sizeof y);                               \
            }                                                                                    \
        } else {                                                                                 \
            const fb_qparam *c = (const fb_qparam *)(const void *)p;                             \
            for (i = 0; i < n; i++) {                                                            \
                const T y = (T)((T)ql_integer(in[i] / c[i].scale, ql_zero(c[i].zero), low, high) & mask_); \
                memcpy(o + i * (fb_ssize)sizeof(T), &y, sizeof y);                               \
            }                                                                                    \
        }                                                                                        \
    } while (0)

static FB_ALWAYS_INLINE void quantize(const fb_quant *q, char *o, fb_ssize so, const char *x, fb_ssize sx,
                                      const char *p, fb_ssize sp, fb_ssize n) {
    fb_ssize i;
    const int32_t low = q->low, high = q->high;
    const int f32 = q->precision == FB_NUM_F32;
    format_t pf = {0}; /* the precision's format, where it is not float32 */
    if (q->precision == FB_NUM_F16 || q->precision == FB_NUM_BF16) format_of(&q->precision_format, &pf);
    if (q->y == FB_NUM_FORMAT) {
        format_t f;
        format_of(&q->format, &f);
        /* the contiguous float32 rows into a one-byte format, with one scale or one per element,
           whose zero points are all +0 or -0 (none given, or zeros: a float 8 model's): the sum
           in float is the double sum of ql_format (x + -0 is x, -0 + +0 is +0), in a loop the
           compiler vectorizes */
        if (f32 && q->x == FB_NUM_F32 && (sp == 0 || sp == (fb_ssize)sizeof(fb_qparam)) && sx == 4 && so == 1
            && q->format.ebits + q->format.mbits < 8 && zeros_only(p, sp, n)) {
            const float *in = (const float *)(const void *)x;
            if (sp == 0) {
                fb_qparam c;
                memcpy(&c, p, sizeof c);
                for (i = 0; i < n; i++) ((uint8_t *)o)[i] = (uint8_t)encode32(canonical(in[i] / c.scale + c.zero), &f);
            } else {
                const fb_qparam *c = (const fb_qparam *)(const void *)p;
                for (i = 0; i < n; i++)
                    ((uint8_t *)o)[i] = (uint8_t)encode32(canonical(in[i] / c[i].scale + c[i].zero), &f);
            }
            return;
        }
        if (q->format.ebits + q->format.mbits + 1 > 8) QL_ROW(uint16_t, ql_format(qt, c.zero, &f));
        else QL_ROW(uint8_t, ql_format(qt, c.zero, &f));
        return;
    }
    /* the contiguous float32 rows into an integer, with one scale or one per element: loops the
       compiler vectorizes */
    if (f32 && q->x == FB_NUM_F32 && (sp == 0 || sp == (fb_ssize)sizeof(fb_qparam)) && sx == 4
        && so == (q->y == FB_NUM_I16 || q->y == FB_NUM_U16 ? 2 : 1)) {
        const float *in = (const float *)(const void *)x;
        if (so == 2) QL_CONTIGUOUS(uint16_t, 0xFFFFu);
        else QL_CONTIGUOUS(uint8_t, q->y == FB_NUM_SMALL ? (1u << q->format.bits) - 1 : 0xFFu);
        return;
    }
    switch (q->y) {
    case FB_NUM_I16: case FB_NUM_U16: QL_ROW(uint16_t, ql_integer(qt, ql_zero(c.zero), low, high)); break;
    case FB_NUM_SMALL: {
        const uint8_t mask = (uint8_t)((1u << q->format.bits) - 1);
        QL_ROW(uint8_t, (uint8_t)ql_integer(qt, ql_zero(c.zero), low, high) & mask);
        break;
    }
    default: QL_ROW(uint8_t, ql_integer(qt, ql_zero(c.zero), low, high)); break; /* I8, U8 */
    }
}

/* One row, in an AVX2 and a baseline version (cpu.h). */
FB_DISPATCHED_VOID(quant_row, (const fb_quant *q, char *o, fb_ssize so, const char *x, fb_ssize sx,
                                const char *p, fb_ssize sp, fb_ssize n), (q, o, so, x, sx, p, sp, n)) {
    if (q->kind == FB_DEQUANTIZE) dequantize(q, o, so, x, sx, p, sp, n);
    else quantize(q, o, so, x, sx, p, sp, n);
}

void fb_quant_row(const fb_quant *q, char *o, fb_ssize so, const char *x, fb_ssize sx, const char *p, fb_ssize sp,
                  fb_ssize n) {
    quant_row(q, o, so, x, sx, p, sp, n);
}
