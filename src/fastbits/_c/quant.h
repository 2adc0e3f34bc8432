/* QuantizeLinear and DequantizeLinear row by row (FB_OP_QUANT): the rules of fastbits._quant_py,
   the readable reference, in C for the calls models make.

   Each element comes with its scale and zero point as floats (an fb_qparam, which the engine
   reads as the kernel's second input: a scale-shaped array, broadcast), so that no array of
   the input's size is made.  The kernels take only the calls where float arithmetic is exact
   as the reference states it (the caller sends the others to the reference):

   * DequantizeLinear of a one-byte type (a float type's values in a table) or of int16 or uint16:
     x - zero point is exact in a float, and so is its product with the scale in a double; a
     float32 result is the float product, correctly rounded by IEEE 754; a float16 or bfloat16
     one the double product, encoded once.  Of int32, or of a float 8 type of 5 exponent bits
     with a zero point (``exact``): x - zero point is exact in a double (33 significant bits at
     most), its product with the scale is rounded to odd (for int32 in 64-bit integers, where
     |x - zero point| times the scale's 24-bit significand is exact, or, on a contiguous row with
     one scale where the CPU has AVX2 and FMA, as for the float 8 types: in a double, by the
     product's rounding error from fma), and that is rounded once into the result,
     which is the exact product's rounding (the odd rounding keeps 2 bits more than any
     result's).
   * QuantizeLinear of a float32, float16, bfloat16 or int32 input in float32 precision: x
     rounded to a float, IEEE's float division; in float16 or bfloat16 precision: x and the
     scale each rounded once to the precision, their quotient in a double (53 bits hold a
     quotient of two 11-bit values closely enough that its rounding to the precision is the
     exact quotient's) rounded once more, a block of quotients at a time (a contiguous row in
     the precision's own type in a loop compilers vectorize); in int32 precision: x rounded
     half to even to an integer, divided by the int32 scale in 64-bit integers, the quotient
     rounded half to even exactly.  Then to an integer half to even and saturated, or, for a
     float format, the quotient plus the zero point encoded by Cast's rules. */
#ifndef FASTBITS_QUANT_H
#define FASTBITS_QUANT_H

#include "convert.h"

typedef enum { FB_DEQUANTIZE = 0, FB_QUANTIZE = 1 } fb_quant_kind;

/* One element's parameters.  A missing zero point is -0 for QuantizeLinear (x / s + -0 is the
   quotient itself, -0 included) and +0 for DequantizeLinear (x - +0 is x, -0 included). */
typedef struct {
    float scale;
    float zero;
} fb_qparam;

typedef struct {
    int kind;  /* fb_quant_kind */
    /* DequantizeLinear whose x - zero point needs a double (the header's ``exact``): int32 (its
       zero point's 32 bits then stand in fb_qparam's ``zero``), or a float 8 type of 5 exponent
       bits with a zero point */
    int exact;
    /* The input, an fb_num: DequantizeLinear FB_NUM_I8 or FB_NUM_U8 (the low ``xbits`` bits
       of a byte: int8, uint8 and the 4- and 2-bit integers), FB_NUM_FORMAT (a one-byte float
       type: its value is value[code]), FB_NUM_I16, FB_NUM_U16 or FB_NUM_I32; QuantizeLinear FB_NUM_F32,
       FB_NUM_F16, FB_NUM_BF16 or FB_NUM_I32. */
    int x;
    int xbits;
    /* The result, an fb_num: DequantizeLinear FB_NUM_F32 or FB_NUM_FORMAT (float16, bfloat16);
       QuantizeLinear FB_NUM_I8, FB_NUM_U8, FB_NUM_I16, FB_NUM_U16, FB_NUM_SMALL (format.bits
       low bits of a byte) or FB_NUM_FORMAT (a float 8, 6 or 4 type). */
    int y;
    int low, high;     /* QuantizeLinear into an integer: its range */
    fb_cast format;    /* FB_NUM_FORMAT and FB_NUM_SMALL results: the target's parameters */
    /* QuantizeLinear's precision: FB_NUM_F32, FB_NUM_F16 or FB_NUM_BF16 with their format
       (overflow to infinity) in ``precision_format``, or FB_NUM_I32 (the scale an int32 whose
       32 bits stand in fb_qparam's ``scale``) */
    int precision;
    fb_cast precision_format;
    float value[256];  /* DequantizeLinear of a one-byte type: each code's value */
} fb_quant;

/* o[i] = the operator of x[i] with the parameters p[i], for n elements at byte strides so, sx
   and sp (p's stride 0: one scale for the row). */
void fb_quant_row(const fb_quant *q, char *o, fb_ssize so, const char *x, fb_ssize sx, const char *p, fb_ssize sp,
                  fb_ssize n);

#endif /* FASTBITS_QUANT_H */
