/* Byte-level moves: copies of rows at any stride and itemsize, byte swaps, sub-byte masks and
   byte maps, prefetches.  BitCast's copies are made of these, and the broadcast engine uses them
   to gather strided operands into contiguous scratch. */
#ifndef FASTBITS_BYTES_H
#define FASTBITS_BYTES_H

#include "platform.h"

/* Byte swaps; compilers turn them into bswap instructions. */
static inline uint16_t fb_bswap16(uint16_t x) { return (uint16_t)((x >> 8) | (x << 8)); }
static inline uint32_t fb_bswap32(uint32_t x) {
    return ((x & 0xff000000u) >> 24) | ((x & 0x00ff0000u) >> 8) | ((x & 0x0000ff00u) << 8)
         | ((x & 0x000000ffu) << 24);
}
static inline uint64_t fb_bswap64(uint64_t x) {
    return ((uint64_t)fb_bswap32((uint32_t)x) << 32) | (uint64_t)fb_bswap32((uint32_t)(x >> 32));
}

/* o[i] = a[i] for n items of ``itemsize`` bytes at byte strides so and sa (unaligned-safe).
   swap: 0, or the byte-swap unit (2, 4, 8; an item larger than the unit swaps each unit).
   mask: 0, or the bits of each byte to keep (itemsize 1). */
void fb_copy_row(char *o, fb_ssize so, const char *a, fb_ssize sa, fb_ssize n, fb_ssize itemsize,
                 int swap, int mask);

/* dst[i * cols + j] = src[i * row_stride + j * col_stride] for a tile of rows x cols items of
   ``width`` bytes, dst C-contiguous: the broadcast engine's gather of a transposed input, each
   column read along the input's own (short) row stride. */
void fb_gather_tile(char *dst, const char *src, fb_ssize rows, fb_ssize cols, fb_ssize row_stride,
                    fb_ssize col_stride, fb_ssize width);

/* dst[i * row_stride + j * col_stride] = the j-th item of row i of src, rows ``pitch`` bytes
   apart, for a tile of rows x cols items of ``width`` bytes: the engine's scatter of a tile
   computed in scratch into a transposed output, each column written along the output's own
   (short) row stride. */
void fb_scatter_tile(char *dst, const char *src, fb_ssize pitch, fb_ssize rows, fb_ssize cols, fb_ssize row_stride,
                     fb_ssize col_stride, fb_ssize width);

/* o[i] = byte_map[a[i]] for n bytes at byte strides so and sa: a 256-entry table each byte goes
   through (BitCast's copies of sub-byte types whose bits are not the low bits of the byte). */
void fb_map_row(char *o, fb_ssize so, const char *a, fb_ssize sa, fb_ssize n, const uint8_t *byte_map);

/* o[i] = table[a[i]] for n bytes a at byte stride sa, into elements of ``width`` bytes (1, 2,
   4 or 8) at byte stride so: ``table`` holds 256 of them. */
void fb_lookup_row(char *o, fb_ssize so, const char *a, fb_ssize sa, fb_ssize n, int width, const void *table);

/* Byte maps 16 bytes at a time.  A map that depends only on the low nibble of a byte and on
   whether its high nibble is zero (every sub-byte map ml_dtypes gives: a type reads a value from
   the low bits, or also looks at whether any high bit is set) "splits" into two 16-entry tables,
   which a byte shuffle looks up 16 bytes at a time (pshufb on x86-64, tbl on aarch64) where
   GCC's vector extensions give one (FB_SHUFFLE 1); any other map, and other compilers, look up
   one byte at a time.  Inline, for the packing loops (pack.c) as for the copies (bytes.c). */
#if defined(__GNUC__) && !defined(__clang__)
#define FB_SHUFFLE 1
#include <string.h>
typedef uint8_t fb_v16 __attribute__((vector_size(16)));

/* 1 when ``map`` splits: map[16 * h + l] == map[16 + l] for every high nibble h >= 1. */
static inline int fb_map_splits(const uint8_t *map) {
    int h;
    for (h = 2; h < 16; h++)
        if (memcmp(map + 16 * h, map + 16, 16) != 0) return 0;
    return 1;
}

/* map[x[i]] for the 16 bytes of x, a map that splits: t0 = map[0..15], t1 = map[16..31]. */
static inline fb_v16 fb_map16(fb_v16 x, fb_v16 t0, fb_v16 t1) {
    const fb_v16 low = {15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15};
    const fb_v16 nibble = x & low;
    const fb_v16 high = (fb_v16)(x > low);
    return (__builtin_shuffle(t0, nibble) & ~high) | (__builtin_shuffle(t1, nibble) & high);
}
#else
#define FB_SHUFFLE 0
#endif

/* Ask for the cache lines of ``ncols`` columns of ``nbytes`` bytes each, ``col_stride`` apart,
   read along ``line_stride`` (a transposed tile the engine will gather next). */
void fb_prefetch_tile(const char *p, fb_ssize line_stride, fb_ssize ncols, fb_ssize col_stride,
                      fb_ssize nbytes);

/* Streaming stores: write ``nbytes`` (a multiple of 64) from 64-byte aligned ``src`` to 16-byte
   aligned ``dst`` around the cache.  Only where FB_STREAM is 1. */
#if defined(__SSE2__) || defined(_M_X64)
#define FB_STREAM 1
#else
#define FB_STREAM 0
#endif
void fb_stream_store(char *dst, const char *src, fb_ssize nbytes);
void fb_stream_fence(void);

#endif /* FASTBITS_BYTES_H */
