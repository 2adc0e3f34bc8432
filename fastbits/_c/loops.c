/* Elementwise loops (see loops.h for the contract).

   Each operation is one expression of x (from a) and y (from b) on the unsigned integer type T
   of the element width; DEFINE_BINARY and DEFINE_UNARY turn it into the row loops.  The layouts
   that occur most (contiguous, one value repeated, in place, every second element, reversed)
   get loops whose strides the compiler knows, so that it vectorizes each, cloned for AVX-512F,
   AVX2 and the baseline where the platform allows (FB_CLONES); any other layout takes a plain
   strided loop.  A large contiguous result is computed a chunk at a time into a buffer that
   stays in L1 and written out with streaming stores, so that every operation streams alike. */
#include "loops.h"

#include "bytes.h"

#define CHUNK_BYTES 4096 /* computed in L1, then streamed out */

/* The operations, on x and y of the unsigned type T of W bits (S: the signed type).  A shift
   amount is read as unsigned, so that a negative amount of a signed type is out of range too,
   and no C shift by W bits or more is ever evaluated. */
#define EXPR_AND(T, S, W) ((T)(x & y))
#define EXPR_OR(T, S, W) ((T)(x | y))
#define EXPR_XOR(T, S, W) ((T)(x ^ y))
#define EXPR_SHL(T, S, W) ((T)(y < (W) ? (T)(x << y) : (T)0))
#define EXPR_SHR(T, S, W) ((T)(y < (W) ? (T)(x >> y) : (T)0))
#define EXPR_SAR(T, S, W) ((T)((S)x >> (y < (W) ? y : (T)((W)-1))))
#define EXPR_NOT(T, S, W) ((T)~x)

/* Where the output is contiguous: da and db are the inputs' strides in elements, constants at
   each call below, so that each layout is vectorized on its own. */
#define DEFINE_BINARY(NAME, T, S, W, EXPR)                                                        \
    static inline void NAME##_step(T *o, const T *a, const T *b, fb_ssize n, fb_ssize da,         \
                                   fb_ssize db) {                                                 \
        fb_ssize i;                                                                               \
        for (i = 0; i < n; i++) {                                                                 \
            const T x = a[i * da], y = b[i * db];                                                 \
            o[i] = EXPR(T, S, W);                                                                 \
        }                                                                                         \
    }                                                                                             \
    FB_CLONES static void NAME##_vv(T *o, const T *a, const T *b, fb_ssize n) {                   \
        NAME##_step(o, a, b, n, 1, 1);                                                            \
    }                                                                                             \
    FB_CLONES static void NAME##_vs(T *o, const T *a, T y, fb_ssize n) {                          \
        fb_ssize i;                                                                               \
        for (i = 0; i < n; i++) {                                                                 \
            const T x = a[i];                                                                     \
            o[i] = EXPR(T, S, W);                                                                 \
        }                                                                                         \
    }                                                                                             \
    FB_CLONES static void NAME##_sv(T *o, T x, const T *b, fb_ssize n) {                          \
        fb_ssize i;                                                                               \
        for (i = 0; i < n; i++) {                                                                 \
            const T y = b[i];                                                                     \
            o[i] = EXPR(T, S, W);                                                                 \
        }                                                                                         \
    }                                                                                             \
    /* in place: the output is the first input (o == a) or the second (o == b) */                \
    FB_CLONES static void NAME##_into_a(T *o, const T *b, fb_ssize db, fb_ssize n) {              \
        fb_ssize i;                                                                               \
        for (i = 0; i < n; i++) {                                                                 \
            const T x = o[i], y = b[i * db];                                                      \
            o[i] = EXPR(T, S, W);                                                                 \
        }                                                                                         \
    }                                                                                             \
    FB_CLONES static void NAME##_into_b(T *o, const T *a, fb_ssize da, fb_ssize n) {              \
        fb_ssize i;                                                                               \
        for (i = 0; i < n; i++) {                                                                 \
            const T x = a[i * da], y = o[i];                                                      \
            o[i] = EXPR(T, S, W);                                                                 \
        }                                                                                         \
    }                                                                                             \
    FB_CLONES static void NAME##_v_v2(T *o, const T *a, const T *b, fb_ssize n) {                 \
        NAME##_step(o, a, b, n, 1, 2);                                                            \
    }                                                                                             \
    FB_CLONES static void NAME##_v2_v(T *o, const T *a, const T *b, fb_ssize n) {                 \
        NAME##_step(o, a, b, n, 2, 1);                                                            \
    }                                                                                             \
    FB_CLONES static void NAME##_v2_v2(T *o, const T *a, const T *b, fb_ssize n) {                \
        NAME##_step(o, a, b, n, 2, 2);                                                            \
    }                                                                                             \
    FB_CLONES static void NAME##_r_v(T *o, const T *a, const T *b, fb_ssize n) {                  \
        NAME##_step(o, a, b, n, -1, 1);                                                           \
    }                                                                                             \
    FB_CLONES static void NAME##_v_r(T *o, const T *a, const T *b, fb_ssize n) {                  \
        NAME##_step(o, a, b, n, 1, -1);                                                           \
    }                                                                                             \
    FB_CLONES static void NAME##_r_r(T *o, const T *a, const T *b, fb_ssize n) {                  \
        NAME##_step(o, a, b, n, -1, -1);                                                          \
    }                                                                                             \
    FB_CLONES static void NAME##_r_s(T *o, const T *a, T y, fb_ssize n) {                         \
        fb_ssize i;                                                                               \
        for (i = 0; i < n; i++) {                                                                 \
            const T x = a[-i];                                                                    \
            o[i] = EXPR(T, S, W);                                                                 \
        }                                                                                         \
    }                                                                                             \
    FB_CLONES static void NAME##_s_r(T *o, T x, const T *b, fb_ssize n) {                         \
        fb_ssize i;                                                                               \
        for (i = 0; i < n; i++) {                                                                 \
            const T y = b[-i];                                                                    \
            o[i] = EXPR(T, S, W);                                                                 \
        }                                                                                         \
    }                                                                                             \
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
        if (kind == 0) NAME##_vv(o, a, b, n);                                                     \
        else if (kind == 1) NAME##_vs(o, a, *b, n);                                               \
        else NAME##_sv(o, *a, b, n);                                                              \
    }                                                                                             \
    static void NAME##_stream(T *o, const T *a, const T *b, fb_ssize n, int kind) {               \
        FB_ALIGNED(64) T buffer[CHUNK_BYTES / sizeof(T)];                                         \
        const fb_ssize chunk = CHUNK_BYTES / (fb_ssize)sizeof(T);                                 \
        const fb_ssize da = kind == 2 ? 0 : 1, db = kind == 1 ? 0 : 1;                            \
        fb_ssize i = (fb_ssize)(((16 - ((uintptr_t)o & 15)) & 15) / sizeof(T));                   \
        if (i > n) i = n;                                                                         \
        NAME##_contiguous(o, a, b, i, kind); /* up to the first 16-byte boundary */               \
        for (; i + chunk <= n; i += chunk) {                                                      \
            NAME##_contiguous(buffer, a + i * da, b + i * db, chunk, kind);                       \
            fb_stream_store((char *)(o + i), (const char *)buffer, CHUNK_BYTES);                  \
        }                                                                                         \
        NAME##_contiguous(o + i, a + i * da, b + i * db, n - i, kind);                            \
        fb_stream_fence();                                                                        \
    }                                                                                             \
    static void NAME##_row(int stream, char *po, const char *pa, const char *pb, fb_ssize n,      \
                           fb_ssize so, fb_ssize sa, fb_ssize sb) {                               \
        const fb_ssize w = (fb_ssize)sizeof(T);                                                   \
        T *o = (T *)po;                                                                           \
        const T *a = (const T *)pa, *b = (const T *)pb;                                           \
        /* streaming stores need an element-aligned output that no input is */                   \
        stream = stream && FB_STREAM && n >= 2 * CHUNK_BYTES / w && ((uintptr_t)o % w) == 0;      \
        if (so == w) {                                                                            \
            if (sa == w) {                                                                        \
                if (sb == w) {                                                                    \
                    if (o == a) NAME##_into_a(o, b, 1, n);                                        \
                    else if (o == b) NAME##_into_b(o, a, 1, n);                                   \
                    else if (stream) NAME##_stream(o, a, b, n, 0);                                \
                    else NAME##_vv(o, a, b, n);                                                   \
                    return;                                                                       \
                }                                                                                 \
                if (sb == 0) {                                                                    \
                    if (o == a) NAME##_into_a(o, b, 0, n);                                        \
                    else if (stream) NAME##_stream(o, a, b, n, 1);                                \
                    else NAME##_vs(o, a, *b, n);                                                  \
                    return;                                                                       \
                }                                                                                 \
                if (sb == 2 * w) { NAME##_v_v2(o, a, b, n); return; }                             \
                if (sb == -w) { NAME##_v_r(o, a, b, n); return; }                                 \
            } else if (sa == 0) {                                                                 \
                if (sb == w) {                                                                    \
                    if (o == b) NAME##_into_b(o, a, 0, n);                                        \
                    else if (stream) NAME##_stream(o, a, b, n, 2);                                \
                    else NAME##_sv(o, *a, b, n);                                                  \
                    return;                                                                       \
                }                                                                                 \
                if (sb == 0) { NAME##_step(o, a, b, n, 0, 0); return; }                           \
                if (sb == -w) { NAME##_s_r(o, *a, b, n); return; }                                \
            } else if (sa == 2 * w) {                                                             \
                if (sb == w) { NAME##_v2_v(o, a, b, n); return; }                                 \
                if (sb == 2 * w) { NAME##_v2_v2(o, a, b, n); return; }                            \
            } else if (sa == -w) {                                                                \
                if (sb == w) { NAME##_r_v(o, a, b, n); return; }                                  \
                if (sb == 0) { NAME##_r_s(o, a, *b, n); return; }                                 \
                if (sb == -w) { NAME##_r_r(o, a, b, n); return; }                                 \
            }                                                                                     \
        }                                                                                         \
        NAME##_strided(po, pa, pb, n, so, sa, sb);                                                \
    }

#define DEFINE_UNARY(NAME, T, S, W, EXPR)                                                         \
    static inline void NAME##_step(T *o, const T *a, fb_ssize n, fb_ssize da) {                   \
        fb_ssize i;                                                                               \
        for (i = 0; i < n; i++) {                                                                 \
            const T x = a[i * da];                                                                \
            o[i] = EXPR(T, S, W);                                                                 \
        }                                                                                         \
    }                                                                                             \
    FB_CLONES static void NAME##_v(T *o, const T *a, fb_ssize n) { NAME##_step(o, a, n, 1); }     \
    FB_CLONES static void NAME##_v2(T *o, const T *a, fb_ssize n) { NAME##_step(o, a, n, 2); }    \
    FB_CLONES static void NAME##_r(T *o, const T *a, fb_ssize n) { NAME##_step(o, a, n, -1); }    \
    FB_CLONES static void NAME##_into(T *o, fb_ssize n) {                                         \
        fb_ssize i;                                                                               \
        for (i = 0; i < n; i++) {                                                                 \
            const T x = o[i];                                                                     \
            o[i] = EXPR(T, S, W);                                                                 \
        }                                                                                         \
    }                                                                                             \
    static void NAME##_stream(T *o, const T *a, fb_ssize n) {                                     \
        FB_ALIGNED(64) T buffer[CHUNK_BYTES / sizeof(T)];                                         \
        const fb_ssize chunk = CHUNK_BYTES / (fb_ssize)sizeof(T);                                 \
        fb_ssize i = (fb_ssize)(((16 - ((uintptr_t)o & 15)) & 15) / sizeof(T));                   \
        if (i > n) i = n;                                                                         \
        NAME##_v(o, a, i);                                                                        \
        for (; i + chunk <= n; i += chunk) {                                                      \
            NAME##_v(buffer, a + i, chunk);                                                       \
            fb_stream_store((char *)(o + i), (const char *)buffer, CHUNK_BYTES);                  \
        }                                                                                         \
        NAME##_v(o + i, a + i, n - i);                                                            \
        fb_stream_fence();                                                                        \
    }                                                                                             \
    static void NAME##_row(int stream, char *po, const char *pa, const char *pb, fb_ssize n,      \
                           fb_ssize so, fb_ssize sa, fb_ssize sb) {                               \
        const fb_ssize w = (fb_ssize)sizeof(T);                                                   \
        fb_ssize i;                                                                               \
        T *o = (T *)po;                                                                           \
        const T *a = (const T *)pa;                                                               \
        (void)pb;                                                                                 \
        (void)sb;                                                                                 \
        stream = stream && FB_STREAM && n >= 2 * CHUNK_BYTES / w && ((uintptr_t)o % w) == 0;      \
        if (so == w) {                                                                            \
            if (sa == w) {                                                                        \
                if (o == a) NAME##_into(o, n);                                                    \
                else if (stream) NAME##_stream(o, a, n);                                          \
                else NAME##_v(o, a, n);                                                           \
                return;                                                                           \
            }                                                                                     \
            if (sa == 0) { NAME##_step(o, a, n, 0); return; }                                     \
            if (sa == 2 * w) { NAME##_v2(o, a, n); return; }                                      \
            if (sa == -w) { NAME##_r(o, a, n); return; }                                          \
        }                                                                                         \
        for (i = 0; i < n; i++) {                                                                 \
            const T x = *(const T *)(pa + i * sa);                                                \
            *(T *)(po + i * so) = EXPR(T, S, W);                                                  \
        }                                                                                         \
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
DEFINE_WIDTHS(DEFINE_UNARY, not, EXPR_NOT)

typedef void (*row_fn)(int stream, char *o, const char *a, const char *b, fb_ssize n,
                       fb_ssize so, fb_ssize sa, fb_ssize sb);

#define WIDTH_ROWS(OP) {OP##8_row, OP##16_row, OP##32_row, OP##64_row}

/* [op][log2 width]; FB_OP_COPY is not here (fb_copy_row) */
static const row_fn rows[FB_OP_COPY][4] = {
    WIDTH_ROWS(and), WIDTH_ROWS(or), WIDTH_ROWS(xor), WIDTH_ROWS(shl),
    WIDTH_ROWS(shr), WIDTH_ROWS(sar), WIDTH_ROWS(not),
};

static int width_index(int width) {
    switch (width) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    default: return -1;
    }
}

int fb_op_unary(int op) { return op == FB_OP_NOT || op == FB_OP_COPY; }

int fb_op_supported(int op, int width) {
    if (op == FB_OP_COPY) return width > 0;
    return op >= 0 && op < FB_OP_COPY && width_index(width) >= 0;
}

void fb_row(const fb_kernel *k, char *o, const char *a, const char *b, fb_ssize n,
            fb_ssize so, fb_ssize sa, fb_ssize sb) {
    if (k->op == FB_OP_COPY) {
        if (k->byte_map) fb_map_row(o, so, a, sa, n, k->byte_map);
        else fb_copy_row(o, so, a, sa, n, k->width, k->swap, k->mask);
        return;
    }
    rows[k->op][width_index(k->width)](k->stream, o, a, b, n, so, sa, sb);
}

#if FB_STREAM
#include <emmintrin.h>
void fb_stream_probe(char *o, const char *a, const char *b, fb_ssize nbytes) {
    fb_ssize i = (fb_ssize)((16 - ((uintptr_t)o & 15)) & 15);
    if (i > nbytes) i = nbytes;
    xor8_vv((uint8_t *)o, (const uint8_t *)a, (const uint8_t *)b, i);
    for (; i + 64 <= nbytes; i += 64) {
        __m128i x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(a + i)), _mm_loadu_si128((const __m128i *)(b + i)));
        __m128i x1 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(a + i + 16)), _mm_loadu_si128((const __m128i *)(b + i + 16)));
        __m128i x2 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(a + i + 32)), _mm_loadu_si128((const __m128i *)(b + i + 32)));
        __m128i x3 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(a + i + 48)), _mm_loadu_si128((const __m128i *)(b + i + 48)));
        _mm_stream_si128((__m128i *)(o + i), x0);
        _mm_stream_si128((__m128i *)(o + i + 16), x1);
        _mm_stream_si128((__m128i *)(o + i + 32), x2);
        _mm_stream_si128((__m128i *)(o + i + 48), x3);
    }
    _mm_sfence();
    xor8_vv((uint8_t *)(o + i), (const uint8_t *)(a + i), (const uint8_t *)(b + i), nbytes - i);
}
#else
void fb_stream_probe(char *o, const char *a, const char *b, fb_ssize nbytes) {
    xor8_vv((uint8_t *)o, (const uint8_t *)a, (const uint8_t *)b, nbytes);
}
#endif
