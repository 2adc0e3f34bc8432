/* Byte-level moves (see bytes.h for the contract). */
#include "bytes.h"
#include "cpu.h"

#include <string.h>

#if FB_STREAM
#include <emmintrin.h>
#endif

/* Loads and stores through memcpy: any alignment, no aliasing assumptions; compilers turn them
   into plain moves. */
#define SWAP_ONE(BITS, q, p)                                                                      \
    do {                                                                                          \
        uint##BITS##_t v_;                                                                        \
        memcpy(&v_, (p), BITS / 8);                                                               \
        v_ = fb_bswap##BITS(v_);                                                                  \
        memcpy((q), &v_, BITS / 8);                                                               \
    } while (0)

#define MOVE_ONE(BITS, q, p)                                                                      \
    do {                                                                                          \
        uint##BITS##_t v_;                                                                        \
        memcpy(&v_, (p), BITS / 8);                                                               \
        memcpy((q), &v_, BITS / 8);                                                               \
    } while (0)

/* Contiguous byte swaps, n items of ``itemsize`` bytes in ``unit``-byte units. */
FB_DISPATCHED_VOID(swap_contiguous, (char *o, const char *a, fb_ssize n, fb_ssize itemsize, int unit),
                   (o, a, n, itemsize, unit)) {
    fb_ssize i, m = n * (itemsize / unit);
    if (unit == 2) {
        for (i = 0; i < m; i++) SWAP_ONE(16, o + 2 * i, a + 2 * i);
    } else if (unit == 4) {
        for (i = 0; i < m; i++) SWAP_ONE(32, o + 4 * i, a + 4 * i);
    } else {
        for (i = 0; i < m; i++) SWAP_ONE(64, o + 8 * i, a + 8 * i);
    }
}

/* o[i] = a[i] & mask, contiguous bytes. */
FB_DISPATCHED_VOID(mask_contiguous, (uint8_t *o, const uint8_t *a, uint8_t mask, fb_ssize n),
                   (o, a, mask, n)) {
    fb_ssize i;
    for (i = 0; i < n; i++) o[i] = (uint8_t)(a[i] & mask);
}

/* o[i] = map[a[i]] for a map that splits (bytes.h): map[0..15] below 16, map[16..31] from 16 up. */
#if FB_SHUFFLE
FB_DISPATCHED_VOID(map_split_contiguous, (uint8_t *o, const uint8_t *a, fb_ssize n, const uint8_t *map),
                   (o, a, n, map)) {
    fb_v16 t0, t1, x;
    fb_ssize i;
    memcpy(&t0, map, 16);
    memcpy(&t1, map + 16, 16);
    for (i = 0; i + 16 <= n; i += 16) {
        memcpy(&x, a + i, 16);
        x = fb_map16(x, t0, t1);
        memcpy(o + i, &x, 16);
    }
    for (; i < n; i++) o[i] = map[a[i]];
}
#endif

void fb_map_row(char *o, fb_ssize so, const char *a, fb_ssize sa, fb_ssize n, const uint8_t *byte_map) {
    fb_ssize i;
#if FB_SHUFFLE
    if (so == 1 && sa == 1 && n >= 64 && fb_map_splits(byte_map)) {
        map_split_contiguous((uint8_t *)o, (const uint8_t *)a, n, byte_map);
        return;
    }
#endif
    for (i = 0; i < n; i++) *(uint8_t *)(o + i * so) = byte_map[*(const uint8_t *)(a + i * sa)];
}

void fb_copy_row(char *o, fb_ssize so, const char *a, fb_ssize sa, fb_ssize n, fb_ssize itemsize,
                 int swap, int mask) {
    fb_ssize i, h;
    if (mask) {
        const uint8_t m = (uint8_t)mask;
        if (so == 1 && sa == 1) {
            mask_contiguous((uint8_t *)o, (const uint8_t *)a, m, n);
        } else {
            for (i = 0; i < n; i++) *(uint8_t *)(o + i * so) = (uint8_t)(*(const uint8_t *)(a + i * sa) & m);
        }
        return;
    }
    if (swap == 0) {
        if (so == itemsize && sa == itemsize) {
            memcpy(o, a, (size_t)(n * itemsize));
            return;
        }
        switch (itemsize) {
        case 1: for (i = 0; i < n; i++) o[i * so] = a[i * sa]; return;
        case 2: for (i = 0; i < n; i++) MOVE_ONE(16, o + i * so, a + i * sa); return;
        case 4: for (i = 0; i < n; i++) MOVE_ONE(32, o + i * so, a + i * sa); return;
        case 8: for (i = 0; i < n; i++) MOVE_ONE(64, o + i * so, a + i * sa); return;
        default: for (i = 0; i < n; i++) memcpy(o + i * so, a + i * sa, (size_t)itemsize); return;
        }
    }
    if (so == itemsize && sa == itemsize) {
        swap_contiguous(o, a, n, itemsize, swap);
        return;
    }
    if (itemsize == swap) {
        switch (swap) {
        case 2: for (i = 0; i < n; i++) SWAP_ONE(16, o + i * so, a + i * sa); return;
        case 4: for (i = 0; i < n; i++) SWAP_ONE(32, o + i * so, a + i * sa); return;
        default: for (i = 0; i < n; i++) SWAP_ONE(64, o + i * so, a + i * sa); return;
        }
    }
    for (i = 0; i < n; i++) {
        const char *p = a + i * sa;
        char *q = o + i * so;
        for (h = 0; h < itemsize; h += swap) {
            if (swap == 2) SWAP_ONE(16, q + h, p + h);
            else if (swap == 4) SWAP_ONE(32, q + h, p + h);
            else SWAP_ONE(64, q + h, p + h);
        }
    }
}

#define GATHER(BITS)                                                                              \
    for (j = 0; j < cols; j++)                                                                    \
        for (i = 0; i < rows; i++)                                                                \
            MOVE_ONE(BITS, dst + (i * cols + j) * (BITS / 8), src + i * row_stride + j * col_stride)

void fb_gather_tile(char *dst, const char *src, fb_ssize rows, fb_ssize cols, fb_ssize row_stride,
                    fb_ssize col_stride, fb_ssize width) {
    fb_ssize i, j;
    switch (width) {
    case 1: GATHER(8); return;
    case 2: GATHER(16); return;
    case 4: GATHER(32); return;
    case 8: GATHER(64); return;
    default:
        for (j = 0; j < cols; j++)
            for (i = 0; i < rows; i++)
                memcpy(dst + (i * cols + j) * width, src + i * row_stride + j * col_stride, (size_t)width);
    }
}

#if FB_STREAM
/* The n x n items of ``width`` bytes at src (n = 16 / width: rows of one vector, ``src_stride``
   apart) transposed to dst (rows ``dst_stride`` apart): log2(n) rounds of interleaving row p
   with row p + n/2 leave column j in vector j. */
static FB_ALWAYS_INLINE void transpose_block(char *dst, fb_ssize dst_stride, const char *src, fb_ssize src_stride,
                                             int width) {
    const int n = 16 / width;
    __m128i a[16], b[16];
    int p, round;
    for (p = 0; p < n; p++) a[p] = _mm_loadu_si128((const __m128i *)(const void *)(src + p * src_stride));
    for (round = 1; round < n; round *= 2) {
        for (p = 0; p < n / 2; p++) {
            switch (width) {
            case 1: b[2 * p] = _mm_unpacklo_epi8(a[p], a[p + n / 2]); b[2 * p + 1] = _mm_unpackhi_epi8(a[p], a[p + n / 2]); break;
            case 2: b[2 * p] = _mm_unpacklo_epi16(a[p], a[p + n / 2]); b[2 * p + 1] = _mm_unpackhi_epi16(a[p], a[p + n / 2]); break;
            case 4: b[2 * p] = _mm_unpacklo_epi32(a[p], a[p + n / 2]); b[2 * p + 1] = _mm_unpackhi_epi32(a[p], a[p + n / 2]); break;
            default: b[2 * p] = _mm_unpacklo_epi64(a[p], a[p + n / 2]); b[2 * p + 1] = _mm_unpackhi_epi64(a[p], a[p + n / 2]);
            }
        }
        for (p = 0; p < n; p++) a[p] = b[p];
    }
    for (p = 0; p < n; p++) _mm_storeu_si128((__m128i *)(void *)(dst + p * dst_stride), a[p]);
}

/* fb_scatter_tile's columns, n items each, in transposed blocks of n x n (the caller's checks:
   ``width`` 1, 2, 4 or 8, each column contiguous, rows a multiple of n); the last columns
   item by item. */
static FB_ALWAYS_INLINE void scatter_blocks(char *dst, const char *src, fb_ssize pitch, fb_ssize rows, fb_ssize cols,
                                            fb_ssize col_stride, int width) {
    const int n = 16 / width;
    fb_ssize i, j;
    for (j = 0; j + n <= cols; j += n)
        for (i = 0; i < rows; i += n)
            transpose_block(dst + i * width + j * col_stride, col_stride, src + i * pitch + j * width, pitch, width);
    for (; j < cols; j++)
        for (i = 0; i < rows; i++) memcpy(dst + i * width + j * col_stride, src + i * pitch + j * width, (size_t)width);
}
#endif

#define SCATTER(BITS)                                                                             \
    for (j = 0; j < cols; j++)                                                                    \
        for (i = 0; i < rows; i++)                                                                \
            MOVE_ONE(BITS, dst + i * row_stride + j * col_stride, src + i * pitch + j * (BITS / 8))

void fb_scatter_tile(char *dst, const char *src, fb_ssize pitch, fb_ssize rows, fb_ssize cols, fb_ssize row_stride,
                     fb_ssize col_stride, fb_ssize width) {
    fb_ssize i, j;
#if FB_STREAM
    if ((width == 1 || width == 2 || width == 4 || width == 8) && row_stride == width && rows % (16 / width) == 0) {
        switch (width) { /* a constant width each: the rounds unrolled */
        case 1: scatter_blocks(dst, src, pitch, rows, cols, col_stride, 1); return;
        case 2: scatter_blocks(dst, src, pitch, rows, cols, col_stride, 2); return;
        case 4: scatter_blocks(dst, src, pitch, rows, cols, col_stride, 4); return;
        default: scatter_blocks(dst, src, pitch, rows, cols, col_stride, 8); return;
        }
    }
#endif
    switch (width) {
    case 1: SCATTER(8); return;
    case 2: SCATTER(16); return;
    case 4: SCATTER(32); return;
    case 8: SCATTER(64); return;
    default:
        for (j = 0; j < cols; j++)
            for (i = 0; i < rows; i++)
                memcpy(dst + i * row_stride + j * col_stride, src + i * pitch + j * width, (size_t)width);
    }
}

void fb_prefetch_tile(const char *p, fb_ssize line_stride, fb_ssize ncols, fb_ssize col_stride,
                      fb_ssize nbytes) {
    fb_ssize j, l;
    const fb_ssize dir = line_stride > 0 ? 1 : -1;
    for (j = 0; j < ncols; j++)
        for (l = 0; l < nbytes; l += 64) FB_PREFETCH(p + j * col_stride + l * dir);
}

#if FB_STREAM
void fb_stream_store(char *dst, const char *src, fb_ssize nbytes) {
    fb_ssize i;
    for (i = 0; i < nbytes; i += 16)
        _mm_stream_si128((__m128i *)(dst + i), _mm_load_si128((const __m128i *)(src + i)));
}
void fb_stream_fence(void) { _mm_sfence(); }
#else
void fb_stream_store(char *dst, const char *src, fb_ssize nbytes) { memcpy(dst, src, (size_t)nbytes); }
void fb_stream_fence(void) {}
#endif


/* One loop per width; a contiguous row gets one with constant strides, which the compiler
   unrolls.  memcpy of a constant size is a plain load and store. */
#define LOOKUP(T)                                                                                 \
    do {                                                                                          \
        const T *t = (const T *)table;                                                            \
        fb_ssize i;                                                                               \
        if (so == (fb_ssize)sizeof(T) && sa == 1) {                                               \
            for (i = 0; i < n; i++) memcpy(o + i * (fb_ssize)sizeof(T), &t[(uint8_t)a[i]], sizeof(T)); \
        } else {                                                                                  \
            for (i = 0; i < n; i++) memcpy(o + i * so, &t[*(const uint8_t *)(a + i * sa)], sizeof(T)); \
        }                                                                                         \
    } while (0)

void fb_lookup_row(char *o, fb_ssize so, const char *a, fb_ssize sa, fb_ssize n, int width, const void *table) {
    switch (width) {
    case 1: fb_map_row(o, so, a, sa, n, (const uint8_t *)table); break; /* its vectorized byte map */
    case 2: LOOKUP(uint16_t); break;
    case 4: LOOKUP(uint32_t); break;
    default: LOOKUP(uint64_t); break;
    }
}
