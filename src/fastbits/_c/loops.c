/* Elementwise loops (see loops.h for the contract).

   Each operation is one expression of x (from a) and y (from b) on the unsigned integer type T
   of the element width; DEFINE_BINARY turns it into the row loops, and NOT is XOR with all
   ones.  The layouts that occur most (contiguous, one value repeated, in place, every second
   element, reversed) get loops whose strides the compiler knows, so that it vectorizes each,
   compiled for AVX2 and the baseline where the platform allows (FB_DISPATCHED, cpu.h); a table
   indexed by the inputs' stride classes picks them, and any other layout takes a plain strided
   loop.  A large contiguous result is written with streaming stores (see STREAM_FUSED and
   STREAM_CHUNKED below). */
#include "loops.h"
#include "cpu.h"

#include "bytes.h"
#include "convert.h"
#include "quant.h"

#include <string.h>

#define CHUNK_BYTES 4096 /* computed in L1, then streamed out */
/* A Cast's input in the other byte order, swapped into L1 this many bytes at a time: each
   chunk's conversion ends its streaming stores with a fence.  4M '>f4' into float16 over the
   native input's time, medians of 25 interleaved calls, 2 threads (1 thread): chunks of 4 KiB
   1.94x (1.63x), 16 KiB 1.69x (1.49x). */
#define SWAP_CHUNK_BYTES 16384

/* The operations, on x and y of the unsigned type T of W bits (S: the signed type).  A shift
   amount is read as unsigned, so that a negative amount of a signed type is out of range too,
   and no C shift by W bits or more is ever evaluated. */
#define EXPR_AND(T, S, W) ((T)(x & y))
#define EXPR_OR(T, S, W) ((T)(x | y))
#define EXPR_XOR(T, S, W) ((T)(x ^ y))
#define EXPR_SHL(T, S, W) ((T)(y < (W) ? (T)(x << y) : (T)0))
#define EXPR_SHR(T, S, W) ((T)(y < (W) ? (T)(x >> y) : (T)0))
#define EXPR_SAR(T, S, W) ((T)((S)x >> (y < (W) ? y : (T)((W)-1))))

/* A row of n elements of w bytes into o streams its stores when the whole result is large (the
   kernel's stream flag), the row is at least two chunks long, and o is element-aligned: the
   streaming loops go to a 16-byte boundary an element at a time. */
static inline int row_streams(int stream, const void *o, fb_ssize n, fb_ssize w) {
    return stream && FB_STREAM && n >= 2 * CHUNK_BYTES / w && ((uintptr_t)o % (uintptr_t)w) == 0;
}

/* The class of an input's byte stride s (elements of w bytes), which indexes the layouts'
   table: 0 one value repeated, 1 contiguous, 2 every second element, 3 reversed, -1 another.
   Classes 2 and 3, measured against the plain strided loop that would take them otherwise
   (fresh results, one thread): every second element, 2.4x on 64K int32 (a[::2] & b[::2]),
   6x with a scalar (a[::2] ^ 7), 10x on 64K uint8; reversed, 3.7x on 64K int32 (a[::-1] & b
   and a[::-1] & b[::-1]), 3.2x for reversed rows of (1024, 1024) int32, 13x on 64K uint8. */
static inline int stride_class(fb_ssize s, fb_ssize w) {
    return s == w ? 1 : s == 0 ? 0 : s == 2 * w ? 2 : s == -w ? 3 : -1;
}
#define CLASS_STEP(C) ((C) == 3 ? -1 : (C)) /* a class's stride in elements */

typedef void (*layout_fn)(void *o, const void *a, const void *b, fb_ssize n);

/* A contiguous output, inputs at the strides da and db (in elements), constants in each loop
   below so that each layout is vectorized on its own.  An input of stride 0 is read once,
   before the loop, so that the stores to o cannot change it; no other is read before it (a row
   may be empty). */
#define DEFINE_STEP(NAME, T, S, W, EXPR)                                                          \
    static FB_ALWAYS_INLINE void NAME##_step(T *o, const T *a, const T *b, fb_ssize n,            \
                                             fb_ssize da, fb_ssize db) {                          \
        const T a0 = da ? (T)0 : *a, b0 = db ? (T)0 : *b;                                         \
        fb_ssize i;                                                                               \
        for (i = 0; i < n; i++) {                                                                 \
            const T x = da ? a[i * da] : a0, y = db ? b[i * db] : b0;                             \
            o[i] = EXPR(T, S, W);                                                                 \
        }                                                                                         \
    }

/* The loop NAME_SUFFIX of inputs A and B (a and b; o for an input the output is, in place) in
   the stride classes CA and CB. */
#define LAYOUT(NAME, T, SUFFIX, A, B, CA, CB)                                                     \
    FB_DISPATCHED_VOID(NAME##_##SUFFIX, (void *po, const void *pa, const void *pb, fb_ssize n),     \
                       (po, pa, pb, n)) {                                                         \
        T *o = (T *)po;                                                                           \
        const T *a = (const T *)pa, *b = (const T *)pb;                                           \
        (void)a, (void)b;                                                                         \
        NAME##_step(o, A, B, n, CLASS_STEP(CA), CLASS_STEP(CB));                                  \
    }

/* One row: the loop of its layout (strides in bytes, of any sign); an output that is an input
   run in place, never streamed; a large contiguous result streamed (NAME##_stream, below). */
#define DEFINE_BINARY(NAME, T, S, W, EXPR)                                                        \
    DEFINE_STEP(NAME, T, S, W, EXPR)                                                              \
    LAYOUT(NAME, T, 01, a, b, 0, 1) LAYOUT(NAME, T, 03, a, b, 0, 3) LAYOUT(NAME, T, 10, a, b, 1, 0) \
    LAYOUT(NAME, T, 11, a, b, 1, 1) LAYOUT(NAME, T, 12, a, b, 1, 2) LAYOUT(NAME, T, 13, a, b, 1, 3) \
    LAYOUT(NAME, T, 20, a, b, 2, 0) LAYOUT(NAME, T, 21, a, b, 2, 1) LAYOUT(NAME, T, 22, a, b, 2, 2) \
    LAYOUT(NAME, T, 30, a, b, 3, 0) LAYOUT(NAME, T, 31, a, b, 3, 1) LAYOUT(NAME, T, 33, a, b, 3, 3) \
    LAYOUT(NAME, T, o0, o, b, 1, 0) LAYOUT(NAME, T, o1, o, b, 1, 1)                               \
    LAYOUT(NAME, T, 0o, a, o, 0, 1) LAYOUT(NAME, T, 1o, a, o, 1, 1)                               \
    static void NAME##_strided(char *o, const char *a, const char *b, fb_ssize n, fb_ssize so,    \
                               fb_ssize sa, fb_ssize sb) {                                        \
        fb_ssize i;                                                                               \
        for (i = 0; i < n; i++) {                                                                 \
            const T x = *(const T *)(a + i * sa), y = *(const T *)(b + i * sb);                   \
            *(T *)(o + i * so) = EXPR(T, S, W);                                                   \
        }                                                                                         \
    }                                                                                             \
    /* contiguous output, inputs by kind: 0 both contiguous, 1 b one value, 2 a one value */      \
    static void NAME##_contiguous(T *o, const T *a, const T *b, fb_ssize n, int kind) {           \
        if (kind == 0) NAME##_11(o, a, b, n);                                                     \
        else if (kind == 1) NAME##_10(o, a, b, n);                                                \
        else NAME##_01(o, a, b, n);                                                               \
    }                                                                                             \
    static void NAME##_stream(T *o, const T *a, const T *b, fb_ssize n, int kind); /* below */    \
    static void NAME##_row(int stream, char *o, const char *a, const char *b, fb_ssize n,         \
                           fb_ssize so, fb_ssize sa, fb_ssize sb) {                               \
        static const layout_fn layouts[4][4] = { /* [class of sa][class of sb] */                 \
            {NULL, NAME##_01, NULL, NAME##_03}, {NAME##_10, NAME##_11, NAME##_12, NAME##_13},    \
            {NAME##_20, NAME##_21, NAME##_22, NULL}, {NAME##_30, NAME##_31, NULL, NAME##_33}};   \
        const fb_ssize w = (fb_ssize)sizeof(T);                                                   \
        const int ca = stride_class(sa, w), cb = stride_class(sb, w);                             \
        if (so != w || ca < 0 || cb < 0 || layouts[ca][cb] == NULL)                               \
            NAME##_strided(o, a, b, n, so, sa, sb);                                               \
        else if (o == a && ca == 1 && cb <= 1)                                                    \
            (cb ? NAME##_o1 : NAME##_o0)(o, a, b, n);                                             \
        else if (o == b && cb == 1 && ca <= 1)                                                    \
            (ca ? NAME##_1o : NAME##_0o)(o, a, b, n);                                             \
        else if (ca <= 1 && cb <= 1 && row_streams(stream, o, n, w))                              \
            NAME##_stream((T *)o, (const T *)a, (const T *)b, n, ca == cb ? 0 : ca ? 1 : 2);      \
        else                                                                                      \
            layouts[ca][cb](o, a, b, n);                                                          \
    }

/* NOT is XOR with all ones: one value for every element. */
#define DEFINE_NOT(NAME, T, S, W, XOR)                                                            \
    static void NAME##_row(int stream, char *o, const char *a, const char *b, fb_ssize n,         \
                           fb_ssize so, fb_ssize sa, fb_ssize sb) {                               \
        static const T ones = (T)~(T)0;                                                           \
        (void)b, (void)sb;                                                                        \
        XOR##W##_row(stream, o, a, (const char *)&ones, n, so, sa, 0);                            \
    }

/* Every operation at every width. */
#define DEFINE_WIDTHS(DEFINE, OP, EXPR)                                                           \
    DEFINE(OP##8, uint8_t, int8_t, 8, EXPR)                                                       \
    DEFINE(OP##16, uint16_t, int16_t, 16, EXPR)                                                   \
    DEFINE(OP##32, uint32_t, int32_t, 32, EXPR)                                                   \
    DEFINE(OP##64, uint64_t, int64_t, 64, EXPR)

DEFINE_WIDTHS(DEFINE_BINARY, and, EXPR_AND)
DEFINE_WIDTHS(DEFINE_BINARY, or, EXPR_OR)
DEFINE_WIDTHS(DEFINE_BINARY, xor, EXPR_XOR)
DEFINE_WIDTHS(DEFINE_BINARY, shl, EXPR_SHL)
DEFINE_WIDTHS(DEFINE_BINARY, shr, EXPR_SHR)
DEFINE_WIDTHS(DEFINE_BINARY, sar, EXPR_SAR)
DEFINE_WIDTHS(DEFINE_NOT, not, xor)

/* Streaming stores for a large contiguous result (NAME##_stream, kind as NAME##_contiguous).

   AND, OR and XOR are the same on 16-byte vectors at every width: their results go from
   registers straight to memory, 64 bytes a step (STREAM_FUSED), with no other traffic than the
   inputs' reads and the output's writes.  The shifts are computed a chunk at a time into an L1
   buffer by their vectorized loops and streamed out from there (STREAM_CHUNKED), except those
   of 32- and 64-bit elements where the CPU has AVX2, which stream from registers too
   (shift_row_avx2 below). */

/* Elements up to o's first 16-byte boundary (o is element-aligned), at most n. */
#define HEAD_ELEMS(T, o, n)                                                                       \
    ((fb_ssize)(((16 - ((uintptr_t)(o)&15)) & 15) / sizeof(T)) < (n)                             \
         ? (fb_ssize)(((16 - ((uintptr_t)(o)&15)) & 15) / sizeof(T))                              \
         : (n))

#if FB_STREAM
#include <emmintrin.h>

#define LOADU(p) _mm_loadu_si128((const __m128i *)(p))

/* x OP y on 16-byte vectors, for the ops that are the same at every width. */
static FB_ALWAYS_INLINE __m128i vector_op(int op, __m128i x, __m128i y) {
    switch (op) {
    case FB_OP_AND: return _mm_and_si128(x, y);
    case FB_OP_OR: return _mm_or_si128(x, y);
    default: return _mm_xor_si128(x, y); /* FB_OP_XOR */
    }
}

/* o = a OP b over nbytes (a multiple of 64) into 16-byte aligned o, four vectors a step, each
   loaded and stored once; kind 1: b is one 16-byte vector repeated, kind 2: a is.  Inlined with
   constant op and kind: one plain loop each. */
static FB_ALWAYS_INLINE void fused_lines(int op, int kind, char *o, const char *a, const char *b,
                                         fb_ssize nbytes) {
    const __m128i va = kind == 2 ? LOADU(a) : _mm_setzero_si128();
    const __m128i vb = kind == 1 ? LOADU(b) : _mm_setzero_si128();
    fb_ssize i;
    int j;
    for (i = 0; i < nbytes; i += 64) {
        __m128i r[4];
        for (j = 0; j < 4; j++)
            r[j] = vector_op(op, kind == 2 ? va : LOADU(a + i + 16 * j), kind == 1 ? vb : LOADU(b + i + 16 * j));
        for (j = 0; j < 4; j++) _mm_stream_si128((__m128i *)(o + i + 16 * j), r[j]);
    }
}

#define DEFINE_FUSED_BYTES(NAME, OP)                                                              \
    /* Dispatched: the AVX2 version's VEX loads fold into the op (vpand x, [mem]), one         \
       instruction fewer a vector than SSE2's movdqu + pand. */                                  \
    FB_DISPATCHED_VOID(NAME##_stream_bytes, (char *o, const char *a, const char *b, fb_ssize nbytes, \
                                             int kind), (o, a, b, nbytes, kind)) {                \
        if (kind == 0) fused_lines(OP, 0, o, a, b, nbytes);                                       \
        else if (kind == 1) fused_lines(OP, 1, o, a, b, nbytes);                                  \
        else fused_lines(OP, 2, o, a, b, nbytes);                                                 \
    }

DEFINE_FUSED_BYTES(and, FB_OP_AND)
DEFINE_FUSED_BYTES(or, FB_OP_OR)
DEFINE_FUSED_BYTES(xor, FB_OP_XOR)

#define STREAM_FUSED(NAME, T, S, W, OP)                                                           \
    static void NAME##_stream(T *o, const T *a, const T *b, fb_ssize n, int kind) {               \
        const fb_ssize da = kind == 2 ? 0 : 1, db = kind == 1 ? 0 : 1;                            \
        const fb_ssize per_step = 64 / (fb_ssize)sizeof(T);                                       \
        FB_ALIGNED(16) T repeated[16 / sizeof(T)];                                                \
        fb_ssize i = HEAD_ELEMS(T, o, n), k, body;                                                \
        NAME##_contiguous(o, a, b, i, kind);                                                      \
        body = (n - i) / per_step * per_step;                                                     \
        if (kind != 0)                                                                            \
            for (k = 0; k < (fb_ssize)(16 / sizeof(T)); k++) repeated[k] = kind == 1 ? *b : *a;   \
        OP##_stream_bytes((char *)(o + i), kind == 2 ? (const char *)repeated : (const char *)(a + i), \
                          kind == 1 ? (const char *)repeated : (const char *)(b + i),             \
                          body * (fb_ssize)sizeof(T), kind);                                      \
        i += body;                                                                                \
        NAME##_contiguous(o + i, a + i * da, b + i * db, n - i, kind);                            \
        fb_stream_fence();                                                                        \
    }

/* A contiguous copy of nbytes with streaming stores (BitCast's large copies, a share of one at a
   time): o = a | 0, the OR loop with a zero vector, its head and tail by memcpy.  glibc's memcpy
   streams only copies of about the cache's size and more, so a share copied by it would be
   stored through the cache, each result line read before it is written; and where it streams,
   this loop is faster still (docs/design.md). */
static void stream_copy(char *o, const char *a, fb_ssize nbytes) {
    FB_ALIGNED(16) static const char zero[16] = {0};
    const fb_ssize head = HEAD_ELEMS(char, o, nbytes);
    fb_ssize body;
    memcpy(o, a, (size_t)head);
    body = (nbytes - head) / 64 * 64;
    or_stream_bytes(o + head, a + head, zero, body, 1);
    memcpy(o + head + body, a + head + body, (size_t)(nbytes - head - body));
    fb_stream_fence();
}
#else
#define STREAM_FUSED(NAME, T, S, W, OP) STREAM_CHUNKED(NAME, T, S, W, OP)
#endif

/* The whole chunks of CHUNK_BYTES, then the rest through the same buffer: its whole 64-byte
   lines streamed, the last bytes stored. */
#define STREAM_CHUNKED(NAME, T, S, W, OP)                                                         \
    static void NAME##_stream(T *o, const T *a, const T *b, fb_ssize n, int kind) {               \
        FB_ALIGNED(64) T buffer[CHUNK_BYTES / sizeof(T)];                                         \
        const fb_ssize chunk = CHUNK_BYTES / (fb_ssize)sizeof(T);                                 \
        const fb_ssize da = kind == 2 ? 0 : 1, db = kind == 1 ? 0 : 1;                            \
        fb_ssize i = HEAD_ELEMS(T, o, n), rest, lines;                                            \
        NAME##_contiguous(o, a, b, i, kind);                                                      \
        for (; i < n; i += chunk) {                                                               \
            rest = n - i < chunk ? n - i : chunk;                                                 \
            NAME##_contiguous(buffer, a + i * da, b + i * db, rest, kind);                        \
            lines = rest * (fb_ssize)sizeof(T) & ~(fb_ssize)63;                                   \
            fb_stream_store((char *)(o + i), (const char *)buffer, lines);                        \
            memcpy((char *)(o + i) + lines, (const char *)buffer + lines,                         \
                   (size_t)(rest * (fb_ssize)sizeof(T) - lines));                                 \
        }                                                                                         \
        fb_stream_fence();                                                                        \
    }

DEFINE_WIDTHS(STREAM_FUSED, and, and)
DEFINE_WIDTHS(STREAM_FUSED, or, or)
DEFINE_WIDTHS(STREAM_FUSED, xor, xor)
DEFINE_WIDTHS(STREAM_CHUNKED, shl, _)
DEFINE_WIDTHS(STREAM_CHUNKED, shr, _)
DEFINE_WIDTHS(STREAM_CHUNKED, sar, _)

/* AVX2's variable shifts read each amount as unsigned and give BitShift-28's result for any of
   them: vpsllv and vpsrlv 0 past the width, vpsrav the sign; so do the shifts by a count
   register (vpsll, vpsrl, vpsra with an xmm count).  So one instruction shifts a vector, where
   the portable loops above (whose C must not shift by the width or more) cost a compare and a
   blend more; GCC cannot know that the instruction already gives the wanted result.  AVX2
   shifts 32- and 64-bit elements by vectors of amounts, but not 8- or 16-bit ones, and has no
   64-bit arithmetic shift: x >> y for x < 0 is ~(~x >>> y), which a large y turns into -1. */
#if FB_HAVE_AVX2
#include <immintrin.h>
#define FB_AVX2 __attribute__((target("avx2")))
#define LOAD256(p) _mm256_loadu_si256((const __m256i *)(p))
#define LOAD128(p) _mm_loadu_si128((const __m128i *)(p))

/* NAME's shift of x by each lane of y (on 32- and 16-byte vectors: v256, v128), or by the one
   amount in the low 64 bits of c (c128). */
#define SHIFTS(NAME, V, C)                                                                        \
    FB_AVX2 static inline __m256i NAME##_v256(__m256i x, __m256i y) { return _mm256_##V(x, y); }  \
    FB_AVX2 static inline __m128i NAME##_v128(__m128i x, __m128i y) { return _mm_##V(x, y); }     \
    FB_AVX2 static inline __m128i NAME##_c128(__m128i x, __m128i c) { return _mm_##C(x, c); }
SHIFTS(shl32, sllv_epi32, sll_epi32) SHIFTS(shr32, srlv_epi32, srl_epi32) SHIFTS(sar32, srav_epi32, sra_epi32)
SHIFTS(shl64, sllv_epi64, sll_epi64) SHIFTS(shr64, srlv_epi64, srl_epi64)
FB_AVX2 static inline __m256i sar64_v256(__m256i x, __m256i y) {
    const __m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), x); /* all ones where x < 0 */
    return _mm256_xor_si256(_mm256_srlv_epi64(_mm256_xor_si256(x, sign), y), sign);
}
FB_AVX2 static inline __m128i sar64_v128(__m128i x, __m128i y) {
    const __m128i sign = _mm_cmpgt_epi64(_mm_setzero_si128(), x);
    return _mm_xor_si128(_mm_srlv_epi64(_mm_xor_si128(x, sign), y), sign);
}
FB_AVX2 static inline __m128i sar64_c128(__m128i x, __m128i c) {
    const __m128i sign = _mm_cmpgt_epi64(_mm_setzero_si128(), x);
    return _mm_xor_si128(_mm_srl_epi64(_mm_xor_si128(x, sign), c), sign);
}

/* The row loops of kind ``kind`` (as NAME##_contiguous), inlined with a constant kind: one plain
   loop each.  In cache (NAME##_avx2, kinds 0 and 2), o[i] = a[i] SHIFT b[i] on 32-byte vectors
   for the whole vectors of the n elements, returning how many it did.  Into a result streamed
   around the cache (NAME##_avx2_stream), on 16-byte vectors four to a 64-byte line as the fused
   loops above, the head up to a 16-byte boundary and the tail by the portable loops; one amount
   for all shifts by a count register. */
#define DEFINE_SHIFT_AVX2(NAME, T)                                                                \
    FB_AVX2 static FB_ALWAYS_INLINE fb_ssize NAME##_lines(int kind, int stream, T *o, const T *a, \
                                                          const T *b, fb_ssize i, fb_ssize n) {   \
        const fb_ssize per = 16 / (fb_ssize)sizeof(T);                                            \
        const T a0 = kind == 2 ? *a : (T)0; /* the one value or amount, read where there is one */ \
        const __m128i x = sizeof(T) == 8 ? _mm_set1_epi64x((long long)a0) : _mm_set1_epi32((int)a0); \
        const __m128i count = _mm_cvtsi64_si128(kind == 1 ? (long long)(uint64_t)*b : 0);        \
        const __m256i x2 = _mm256_broadcastsi128_si256(x);                                        \
        __m128i r[4];                                                                             \
        int j;                                                                                    \
        if (!stream) {                                                                            \
            for (; i + 2 * per <= n; i += 2 * per)                                                \
                _mm256_storeu_si256((__m256i *)(o + i),                                           \
                                    NAME##_v256(kind == 2 ? x2 : LOAD256(a + i), LOAD256(b + i))); \
            return i;                                                                             \
        }                                                                                         \
        for (; i + 4 * per <= n; i += 4 * per) {                                                  \
            for (j = 0; j < 4; j++) {                                                             \
                const __m128i va = kind == 2 ? x : LOAD128(a + i + j * per);                      \
                r[j] = kind == 1 ? NAME##_c128(va, count) : NAME##_v128(va, LOAD128(b + i + j * per)); \
            }                                                                                     \
            for (j = 0; j < 4; j++) _mm_stream_si128((__m128i *)(o + i + j * per), r[j]);        \
        }                                                                                         \
        return i;                                                                                 \
    }                                                                                             \
    FB_AVX2 static fb_ssize NAME##_avx2(char *o, const char *a, const char *b, fb_ssize n, int kind) { \
        if (kind == 0) return NAME##_lines(0, 0, (T *)o, (const T *)a, (const T *)b, 0, n);      \
        return NAME##_lines(2, 0, (T *)o, (const T *)a, (const T *)b, 0, n);                     \
    }                                                                                             \
    FB_AVX2 static fb_ssize NAME##_avx2_stream(char *po, const char *pa, const char *pb, fb_ssize n, \
                                               int kind) {                                        \
        T *o = (T *)po;                                                                           \
        const T *a = (const T *)pa, *b = (const T *)pb;                                           \
        const fb_ssize da = kind == 2 ? 0 : 1, db = kind == 1 ? 0 : 1;                            \
        fb_ssize i = HEAD_ELEMS(T, o, n);                                                         \
        NAME##_contiguous(o, a, b, i, kind);                                                      \
        if (kind == 0) i = NAME##_lines(0, 1, o, a, b, i, n);                                     \
        else if (kind == 1) i = NAME##_lines(1, 1, o, a, b, i, n);                                \
        else i = NAME##_lines(2, 1, o, a, b, i, n);                                               \
        NAME##_contiguous(o + i, a + i * da, b + i * db, n - i, kind);                            \
        _mm_sfence();                                                                             \
        return n;                                                                                 \
    }

DEFINE_SHIFT_AVX2(shl32, uint32_t)
DEFINE_SHIFT_AVX2(shr32, uint32_t)
DEFINE_SHIFT_AVX2(sar32, uint32_t)
DEFINE_SHIFT_AVX2(shl64, uint64_t)
DEFINE_SHIFT_AVX2(shr64, uint64_t)
DEFINE_SHIFT_AVX2(sar64, uint64_t)

typedef fb_ssize (*shift_fn)(char *o, const char *a, const char *b, fb_ssize n, int kind);

/* [streamed][op - FB_OP_SHL][width 4, 8] */
static const shift_fn shifts_avx2[2][3][2] = {
    {{shl32_avx2, shl64_avx2}, {shr32_avx2, shr64_avx2}, {sar32_avx2, sar64_avx2}},
    {{shl32_avx2_stream, shl64_avx2_stream}, {shr32_avx2_stream, shr64_avx2_stream},
     {sar32_avx2_stream, sar64_avx2_stream}}};

/* The elements of a row the AVX2 shifts did (0 where they do not apply): a contiguous output,
   each input contiguous or one value.  A streamed result takes them whole; in cache, one amount
   for all takes the portable loop (a shift by one count per vector: no compare there). */
static fb_ssize shift_row_avx2(const fb_kernel *k, char *o, const char *a, const char *b, fb_ssize n,
                               fb_ssize so, fb_ssize sa, fb_ssize sb) {
    const fb_ssize w = k->width;
    int kind, streamed;
    if (k->op < FB_OP_SHL || k->op > FB_OP_SAR || w < 4 || so != w || !fb_cpu_avx2)
        return 0;
    if (sa == w && sb == w) kind = 0;
    else if (sa == w && sb == 0) kind = 1;
    else if (sa == 0 && sb == w) kind = 2;
    else return 0;
    streamed = row_streams(k->stream, o, n, w) && o != a && o != b;
    if (kind == 1 && !streamed) return 0;
    return shifts_avx2[streamed][k->op - FB_OP_SHL][w == 8](o, a, b, n, kind);
}
#else
static fb_ssize shift_row_avx2(const fb_kernel *k, char *o, const char *a, const char *b, fb_ssize n,
                               fb_ssize so, fb_ssize sa, fb_ssize sb) {
    (void)k, (void)o, (void)a, (void)b, (void)n, (void)so, (void)sa, (void)sb;
    return 0;
}
#endif

typedef void (*row_fn)(int stream, char *o, const char *a, const char *b, fb_ssize n,
                       fb_ssize so, fb_ssize sa, fb_ssize sb);

#define WIDTH_ROWS(OP) {OP##8_row, OP##16_row, OP##32_row, OP##64_row}

/* [op][log2 width: 1, 2, 4 or 8 bytes]; FB_OP_COPY is not here (fb_copy_row) */
static const row_fn rows[FB_OP_COPY][4] = {
    WIDTH_ROWS(and), WIDTH_ROWS(or), WIDTH_ROWS(xor), WIDTH_ROWS(shl),
    WIDTH_ROWS(shr), WIDTH_ROWS(sar), WIDTH_ROWS(not),
};

/* A Cast's row; an input in the other byte order is swapped SWAP_CHUNK_BYTES at a time into a
   buffer the conversion then reads, so the values cross memory once. */
static void convert_row(const fb_kernel *k, char *o, fb_ssize so, const char *a, fb_ssize sa, fb_ssize n) {
    const fb_cast *c = (const fb_cast *)k->table;
    const int stream = k->stream && n >= 2 * CHUNK_BYTES / k->width;
    FB_ALIGNED(64) char swapped[SWAP_CHUNK_BYTES];
    const fb_ssize chunk = SWAP_CHUNK_BYTES / k->in_width;
    fb_ssize start, m;
    if (!k->swap) {
        fb_convert_row(stream, c, o, so, a, sa, n);
        return;
    }
    for (start = 0; start < n; start += m) {
        m = n - start < chunk ? n - start : chunk;
        fb_copy_row(swapped, k->in_width, a + start * sa, sa, m, k->in_width, k->swap, 0);
        fb_convert_row(stream, c, o + start * so, so, swapped, k->in_width, m);
    }
}

static FB_ALWAYS_INLINE void one_row(const fb_kernel *k, char *o, const char *a, const char *b,
                                     fb_ssize n, fb_ssize so, fb_ssize sa, fb_ssize sb) {
    fb_ssize done;
    if (k->op == FB_OP_LOOKUP) {
        fb_lookup_row(o, so, a, sa, n, k->width, k->table);
        return;
    }
    if (k->op == FB_OP_CONVERT) {
        convert_row(k, o, so, a, sa, n);
        return;
    }
    if (k->op == FB_OP_QUANT) {
        fb_quant_row((const fb_quant *)k->table, o, so, a, sa, b, sb, n);
        return;
    }
    if (k->op == FB_OP_COPY) {
        if (k->table) fb_map_row(o, so, a, sa, n, (const uint8_t *)k->table);
#if FB_STREAM
        else if (!k->swap && !k->mask && so == k->width && sa == k->width &&
                 row_streams(k->stream, o, n, k->width))
            stream_copy(o, a, n * k->width);
#endif
        else fb_copy_row(o, so, a, sa, n, k->width, k->swap, k->mask);
        return;
    }
    done = shift_row_avx2(k, o, a, b, n, so, sa, sb);
    if (done < n)
        rows[k->op][k->width == 8 ? 3 : k->width >> 1](k->stream, o + done * so, a + done * sa,
                                                       b + done * sb, n - done, so, sa, sb);
}

void fb_row(const fb_kernel *k, char *o, const char *a, const char *b, fb_ssize n,
            fb_ssize so, fb_ssize sa, fb_ssize sb) {
    one_row(k, o, a, b, n, so, sa, sb);
}

void fb_rows(const fb_kernel *k, fb_ssize count, char *o, fb_ssize o_step, const char *a,
             fb_ssize a_step, const char *b, fb_ssize b_step, fb_ssize n, fb_ssize so, fb_ssize sa,
             fb_ssize sb) {
    fb_ssize r;
    for (r = 0; r < count; r++) one_row(k, o + r * o_step, a + r * a_step, b + r * b_step, n, so, sa, sb);
}
