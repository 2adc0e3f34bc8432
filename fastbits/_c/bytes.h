/* Byte-level moves: copies of rows at any stride and itemsize, byte swaps, sub-byte masks and
   byte maps, prefetches.  BitCast's copies are made of these, and the broadcast engine uses them
   to gather strided operands into contiguous scratch. */
#ifndef FASTBITS_BYTES_H
#define FASTBITS_BYTES_H

#include "platform.h"

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

/* o[i] = byte_map[a[i]] for n bytes at byte strides so and sa: a 256-entry table each byte goes
   through (BitCast's copies of sub-byte types whose bits are not the low bits of the byte). */
void fb_map_row(char *o, fb_ssize so, const char *a, fb_ssize sa, fb_ssize n, const uint8_t *byte_map);

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
