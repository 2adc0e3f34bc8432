/* The numbers the conversions share (convert.c, quant.c): floats from their bits and back, the
   values of binary16 and bfloat16, and the encoding of a double or a float into a float format
   (fb_cast's), all as inline functions. */
#ifndef FASTBITS_NUMBERS_H
#define FASTBITS_NUMBERS_H

#include "convert.h"

#include <string.h>

/* A float from its bits and back (memcpy: a move, for the compiler). */
static FB_ALWAYS_INLINE double double_of(uint64_t b) { double x; memcpy(&x, &b, sizeof x); return x; }
static FB_ALWAYS_INLINE uint64_t bits_of(double x) { uint64_t b; memcpy(&b, &x, sizeof b); return b; }
static FB_ALWAYS_INLINE float float_of(uint32_t b) { float x; memcpy(&x, &b, sizeof x); return x; }
static FB_ALWAYS_INLINE uint32_t bits_of_float(float x) { uint32_t b; memcpy(&b, &x, sizeof b); return b; }

/* binary16, exactly; a NaN keeps its payload in the double's top mantissa bits (as numpy's). */
static FB_ALWAYS_INLINE double f16_value(uint16_t h) {
    const uint64_t sign = (uint64_t)(h >> 15) << 63;
    const int e = (h >> 10) & 31;
    const uint64_t m = h & 1023u;
    if (e == 0) return double_of(sign | bits_of((double)m * 0x1p-24)); /* zero, subnormal */
    if (e == 31) return double_of(sign | 0x7FF0000000000000u | m << 42);
    return double_of(sign | (uint64_t)(e - 15 + 1023) << 52 | m << 42);
}

static FB_ALWAYS_INLINE double bf16_value(uint16_t h) { return (double)float_of((uint32_t)h << 16); }

/* A float format's constants, from fb_cast's parameters. */
typedef struct {
    int mbits, emin, emax; /* the smallest normal and the largest finite exponents, biased as a double's */
    int emin32, emax32;    /* the same, biased as a float's */
    int signed_zero;
    uint32_t top, largest; /* the sign bit; the largest finite code */
    /* what NaN and what is out of range become, and whether the input's sign is added to it */
    uint32_t nan_code, over_code;
    int nan_signed, over_signed;
} format_t;

static inline void format_of(const fb_cast *c, format_t *f) {
    const int all = (1 << c->ebits) - 1;
    const uint32_t mantissas = (1u << c->mbits) - 1;
    const int top_field = c->special == FB_SPECIAL_IEEE ? all - 1 : all;
    const int sat = c->special == FB_SPECIAL_NONE || c->saturate;
    const uint32_t inf = (uint32_t)all << c->mbits;
    uint32_t nan;
    f->mbits = c->mbits;
    f->emin = 1023 + 1 - c->bias;
    f->emax = 1023 + top_field - c->bias;
    f->emin32 = f->emin - 1023 + 127;
    f->emax32 = f->emax - 1023 + 127;
    f->signed_zero = c->signed_zero;
    f->top = 1u << (c->ebits + c->mbits);
    f->largest = (uint32_t)top_field << c->mbits | (c->special == FB_SPECIAL_FN ? mantissas - 1 : mantissas);
    nan = c->special == FB_SPECIAL_IEEE ? inf | 1u << (c->mbits - 1) : c->special == FB_SPECIAL_FN ? f->top - 1 : f->top;
    f->nan_code = c->special == FB_SPECIAL_NONE ? f->largest : nan;
    f->nan_signed = c->special == FB_SPECIAL_IEEE || c->special == FB_SPECIAL_FN;
    f->over_code = sat ? f->largest : c->special == FB_SPECIAL_IEEE ? inf : nan;
    f->over_signed = sat || c->special != FB_SPECIAL_UZ;
}

/* The code of x in format f: round to nearest even, then the format's rules for out of range,
   infinite, NaN and zero (the reference's _to_float_codes).  Adding 2**(E + 52 - mbits), E the
   exponent of x's binade in the format (the smallest normal one for its subnormals), leaves the
   double one ulp of exactly the format's quantum there: the sum rounds x as the format does,
   and the count of its ulps above that power of two is x's code within the binade. */
static FB_ALWAYS_INLINE uint32_t encode(double x, const format_t *f) {
    const uint64_t w = bits_of(x);
    const uint32_t sign = w >> 63 ? f->top : 0;
    const uint64_t a = w & 0x7FFFFFFFFFFFFFFFu;
    const int e = (int)(a >> 52);
    if (a > 0x7FF0000000000000u) return f->nan_code | (f->nan_signed ? sign : 0); /* NaN */
    if (e <= f->emax) {
        const int binade = e < f->emin ? f->emin : e;
        const double magic = double_of((uint64_t)(binade + 52 - f->mbits) << 52);
        const uint32_t code = ((uint32_t)(binade - f->emin) << f->mbits)
                            + (uint32_t)(bits_of(double_of(a) + magic) - bits_of(magic));
        if (code <= f->largest) return code == 0 && !f->signed_zero ? 0 : code | sign;
    }
    return f->over_code | (f->over_signed ? sign : 0); /* beyond the largest finite value, infinities too */
}

/* encode() for a float's bits w, in float arithmetic, without a branch (so that compilers
   vectorize it): every value goes through the same steps and selects its result at the end.
   The binade is clamped into the format's, so that the magic number stays finite; what lies
   beyond is out of range anyway.  For formats whose binades a float holds (all but bfloat16,
   whose quantum at its largest binade would be 2**(127 + 16)). */
static FB_ALWAYS_INLINE uint32_t encode32(uint32_t w, const format_t *f) {
    const uint32_t sign = (w >> 31) * f->top;
    const uint32_t a = w & 0x7FFFFFFFu;
    const int e = (int)(a >> 23);
    const int binade = e < f->emin32 ? f->emin32 : e > f->emax32 ? f->emax32 : e;
    const float magic = float_of((uint32_t)(binade + 23 - f->mbits) << 23);
    const uint32_t code = ((uint32_t)(binade - f->emin32) << f->mbits)
                        + (bits_of_float(float_of(a) + magic) - bits_of_float(magic));
    const uint32_t finite = code == 0 && !f->signed_zero ? 0 : code | sign;
    const uint32_t over = f->over_code | (f->over_signed ? sign : 0);
    const uint32_t nan = f->nan_code | (f->nan_signed ? sign : 0);
    return a > 0x7F800000u ? nan : (e > f->emax32 || code > f->largest) ? over : finite;
}

/* FLOAT8E8M0's rule (the reference's _to_e8m0_codes), from fb_cast's saturate and round_mode.
   Cast's table tests x itself: beyond 2**127 (infinity too) the code ``high``, below 2**-127
   (zero too) ``low``: the nearer end where saturating, else NaN (0xFF), in every round mode.
   Inside, x goes to the power of two at or below it (its binade's code), plus one where its
   bits below that power of two exceed the threshold: ``up`` where they are not 0, ``nearest``
   where they are half or more (1.5 times the power of two: a tie goes up), ``down`` never;
   never past an end, since x lies between them. */
typedef struct {
    uint64_t threshold; /* of a double's 52 fraction bits; a float's 23 are its top ones */
    uint8_t high, low;
} e8m0_t;

static inline void e8m0_init(const fb_cast *c, e8m0_t *r) {
    const uint64_t all = ((uint64_t)1 << 52) - 1;
    r->threshold = c->round_mode == 0 ? 0 : c->round_mode == 2 ? all >> 1 : all;
    r->high = c->saturate ? 0xFE : 0xFF;
    r->low = c->saturate ? 0x00 : 0xFF;
}

/* The code of x, by magnitude.  Inside, a double is normal: its exponent field less 1023 - 127
   is its binade's code. */
static FB_ALWAYS_INLINE uint8_t e8m0_of(double x, const e8m0_t *r) {
    const uint64_t a = bits_of(x) & 0x7FFFFFFFFFFFFFFFu;
    const uint64_t code = (a >> 52) - (1023 - 127) + ((a & 0xFFFFFFFFFFFFFu) > r->threshold);
    return a > 0x7FF0000000000000u ? 0xFF : a > (uint64_t)(1023 + 127) << 52 ? r->high
         : a < (uint64_t)(1023 - 127) << 52 ? r->low : (uint8_t)code;
}

/* e8m0_of() for a float's bits w, without a branch (so that compilers vectorize it); t, the
   threshold of its 23 fraction bits.  Inside, a normal float's exponent field is its binade's
   code; a subnormal one (2**-127 up to 2**-126) has code 0, and its bits below its top one,
   shifted up, are its fraction. */
static FB_ALWAYS_INLINE uint8_t e8m0_of32(uint32_t w, uint32_t t, uint8_t high, uint8_t low) {
    const uint32_t a = w & 0x7FFFFFFFu;
    const uint32_t normal = a >= 0x00800000u;
    const uint32_t fraction = (normal ? a : a << 1) & 0x7FFFFFu;
    const uint32_t code = (normal ? a >> 23 : 0) + (fraction > t);
    return a > 0x7F800000u ? 0xFF : a > 0x7F000000u ? high : a < 0x00400000u ? low : (uint8_t)code;
}

/* bfloat16 from a float's bits: to nearest even by an add that carries into the kept half; a
   NaN is the quiet NaN of its sign. */
static FB_ALWAYS_INLINE uint16_t bf16_of(uint32_t w) {
    if ((w & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)(w >> 16 & 0x8000u) | 0x7FC0u;
    return (uint16_t)((w + 0x7FFFu + (w >> 16 & 1u)) >> 16);
}

#endif /* FASTBITS_NUMBERS_H */
