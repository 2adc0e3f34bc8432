/* Elementwise loops over one row: every bitwise operation at every integer width, with
   AVX2 and baseline versions (cpu.h) for the contiguous cases and streaming stores for large results.

   A row is n elements with byte strides of any sign (0: one value repeated).  The output may be
   exactly one of the inputs (the same pointer and stride) but must not overlap them otherwise:
   the caller copies such an input first. */
#ifndef FASTBITS_LOOPS_H
#define FASTBITS_LOOPS_H

#include "platform.h"

typedef enum {
    FB_OP_AND = 0, /* a & b */
    FB_OP_OR = 1,  /* a | b */
    FB_OP_XOR = 2, /* a ^ b */
    FB_OP_SHL = 3, /* a << b; 0 when b is negative or at least the bit width */
    FB_OP_SHR = 4, /* a >> b, logical; 0 when b is out of range */
    FB_OP_SAR = 5, /* a >> b, arithmetic (sign-extending); b out of range gives 0, or -1 for a < 0 */
    FB_OP_NOT = 6, /* ~a (unary: b is ignored) */
    FB_OP_COPY = 7, /* a, byte-swapped or masked as BitCast's copy needs (unary) */
    FB_OP_LOOKUP = 8, /* table[a]: a byte in, an element of ``width`` bytes out (unary; Cast from a
                         type of 8 bits or fewer, whose 256 results the table holds) */
    FB_OP_CONVERT = 9, /* a Cast of ``in_width`` bytes into ``width`` bytes, as the fb_cast that
                         ``table`` points to says (unary; convert.h) */
    FB_OP_QUANT = 10  /* QuantizeLinear or DequantizeLinear of ``in_width`` bytes into ``width``
                         bytes, each element with its scale and zero point (an fb_qparam of
                         ``b_width`` bytes) from b, as the fb_quant that ``table`` points to
                         says (quant.h) */
} fb_op;

/* What one row computes.  The engine (engine.h) reads only the widths, the stream flag and
   whether the op is unary; the rest is the loops' own. */
typedef struct {
    int op;       /* an fb_op */
    int width;    /* bytes per element of the output: 1, 2, 4 or 8 (FB_OP_COPY: any itemsize) */
    int in_width; /* bytes per element of each input (the same as width but for Cast's ops) */
    int b_width;  /* bytes per element of the second input where they differ from in_width (the
                     parameters of FB_OP_QUANT), else 0 */
    int swap;     /* FB_OP_COPY, FB_OP_CONVERT: the input's byte-swap unit (2, 4 or 8; a complex
                     swaps each half), or 0 */
    int mask;     /* FB_OP_COPY: keep only these bits of each byte (sub-byte types), or 0 */
    int stream;   /* the whole result is large: write long contiguous runs around the cache */
    /* A table the op reads, or NULL.  FB_OP_COPY of sub-byte types whose bits are not the low
       bits of the byte: 256 bytes each byte goes through (fastbits.spec.subbyte_bits), in
       place of ``mask``.  FB_OP_LOOKUP: 256 elements of ``width`` bytes, native order.
       FB_OP_CONVERT: an fb_cast (convert.h). */
    const void *table;
} fb_kernel;

/* 1 for the ops that read one input. */
static inline int fb_op_unary(int op) {
    return op == FB_OP_NOT || op == FB_OP_COPY || op == FB_OP_LOOKUP || op == FB_OP_CONVERT;
}

/* Bytes per element of input 1 or 2. */
static inline int fb_kernel_in_width(const fb_kernel *k, int input) {
    return input == 2 && k->b_width ? k->b_width : k->in_width;
}

/* The bytes of work of n elements, for the grain rule: those of the wider side. */
static inline fb_ssize fb_kernel_work(const fb_kernel *k, fb_ssize n) {
    return n * (k->in_width > k->width ? k->in_width : k->width);
}

/* o[i] = a[i] op b[i] for 0 <= i < n; so, sa, sb are byte strides. */
void fb_row(const fb_kernel *k, char *o, const char *a, const char *b, fb_ssize n,
            fb_ssize so, fb_ssize sa, fb_ssize sb);

/* fb_row over ``count`` rows, row r at o + r * o_step, a + r * a_step, b + r * b_step: one call
   for the rows of a tile. */
void fb_rows(const fb_kernel *k, fb_ssize count, char *o, fb_ssize o_step, const char *a,
             fb_ssize a_step, const char *b, fb_ssize b_step, fb_ssize n, fb_ssize so, fb_ssize sa,
             fb_ssize sb);

#endif /* FASTBITS_LOOPS_H */
