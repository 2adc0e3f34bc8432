/* Cast's conversions between numbers of different types (FB_OP_CONVERT), row by row: the
   rules of fastbits._cast_py, the readable reference, written in C for the sources wider than
   a byte (one-byte sources are looked up in tables of their 256 results, FB_OP_LOOKUP).

   FLOAT8E8M0 is written by its own rule (e8m0_of, numbers.h), not the format encoder: its codes
   are powers of two, chosen by a round mode.

   Each element goes through one exact intermediate, as in the reference: a double for a float
   source, and for an integer source bound for a float (beyond 2**53 first rounded to 53 bits
   to odd, so that the one rounding to the target is exact); the integer itself, as 64 bits, for
   an integer bound for an integer.  Rows go through the intermediate a block at a time; the
   pairs models cast most (float64 -> float32, float32 -> bfloat16, between integers) have
   loops of their own, which compilers vectorize. */
#ifndef FASTBITS_CONVERT_H
#define FASTBITS_CONVERT_H

#include "platform.h"

/* The numbers a row reads or writes in a machine type of its own (native byte order). */
typedef enum {
    FB_NUM_I8, FB_NUM_I16, FB_NUM_I32, FB_NUM_I64,
    FB_NUM_U8, FB_NUM_U16, FB_NUM_U32, FB_NUM_U64,
    FB_NUM_F32, FB_NUM_F64, FB_NUM_BOOL,
    FB_NUM_F16,    /* a source only: IEEE binary16 (as a target, a format below) */
    FB_NUM_BF16,   /* a source only: bfloat16 */
    FB_NUM_FORMAT, /* a target only: the float format of fb_cast's fields (codes of 1 or 2 bytes) */
    FB_NUM_SMALL,  /* a target only: an integer of ``bits`` bits (2 or 4), one per byte */
    FB_NUM_E8M0    /* a target only: FLOAT8E8M0, the power of two ``round_mode`` picks */
} fb_num;

/* What a format does with the codes beyond its finite values (fastbits.spec.FloatFormat). */
typedef enum {
    FB_SPECIAL_IEEE = 0, /* the top exponent holds the infinities and the NaNs */
    FB_SPECIAL_FN = 1,   /* only NaN, the all-ones code of either sign (E4M3FN) */
    FB_SPECIAL_UZ = 2,   /* one NaN, the code of -0 (the FNUZ types); no -0 */
    FB_SPECIAL_NONE = 3  /* neither (float4, float6): NaN and the infinities saturate */
} fb_special;

/* One cast: a source, a target and, for a format or a small integer, its parameters.  Filled by
   the caller; a kernel's ``table`` points to it. */
typedef struct {
    int src;         /* fb_num */
    int dst;         /* fb_num */
    /* FB_NUM_FORMAT */
    int ebits, mbits, bias;
    int special;     /* fb_special */
    int saturate;    /* out of range and the infinities go to the largest finite value */
    int signed_zero; /* a zero result keeps its sign */
    /* FB_NUM_SMALL: its low ``bits`` bits, whatever its sign */
    int bits;
    /* FB_NUM_E8M0 (and ``saturate``): 0 up, 1 down, 2 nearest (Cast's round_mode) */
    int round_mode;
} fb_cast;

/* o[i] = a[i] cast as ``c`` says, for n elements at byte strides so and sa (native order, any
   alignment); ``stream``: the result is large enough to be written around the cache, where
   the row's loop can (the engine's rule, loops.h). */
void fb_convert_row(int stream, const fb_cast *c, char *o, fb_ssize so, const char *a, fb_ssize sa, fb_ssize n);

#endif /* FASTBITS_CONVERT_H */
