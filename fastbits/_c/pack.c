/* ONNX's packed layout (see pack.h for the contract).

   Each loop moves the elements of one packed byte as one 16- or 32-bit word, read or written
   little endian (the first element in the low byte; swapped where the host is big endian,
   le16/le32), and folds or spreads
   them with one mask and a shift or two (fewer operations than one shift and mask per
   element: 40 % faster for crumbs), so that GCC vectorizes it into a few word operations and
   one narrowing or widening step, cloned for AVX-512F, AVX2 and the baseline where the
   platform allows (FB_CLONES). */
#include "pack.h"

#include <string.h>

#include "bytes.h"

/* A word of memory in little-endian order: as it is on a little-endian host, swapped on a
   big-endian one (and back: each is its own inverse). */
#if FB_BIG_ENDIAN
#define le16(v) fb_bswap16(v)
#define le32(v) fb_bswap32(v)
#else
#define le16(v) (v)
#define le32(v) (v)
#endif

fb_ssize fb_packed_size(fb_ssize n, int bits) { return (n / 8) * bits + ((n % 8) * bits + 7) / 8; }

/* o[i] = the low nibbles of a[2i] (low) and a[2i+1] (high), for m whole output bytes. */
FB_CLONES static void pack4(uint8_t *o, const uint8_t *a, fb_ssize m) {
    fb_ssize i;
    uint16_t v;
    for (i = 0; i < m; i++) {
        memcpy(&v, a + 2 * i, 2);
        v = le16(v) & 0x0F0F;
        o[i] = (uint8_t)(v | (v >> 4));
    }
}

/* o[i] = the low crumbs of a[4i] .. a[4i+3], lowest first, for m whole output bytes. */
FB_CLONES static void pack2(uint8_t *o, const uint8_t *a, fb_ssize m) {
    fb_ssize i;
    uint32_t v;
    for (i = 0; i < m; i++) {
        memcpy(&v, a + 4 * i, 4);
        v = le32(v) & 0x03030303u;
        v |= v >> 6;
        v |= v >> 12;
        o[i] = (uint8_t)v;
    }
}

/* The inverse of pack4 for m whole input bytes (2m output bytes). */
FB_CLONES static void unpack4(uint8_t *o, const uint8_t *a, fb_ssize m) {
    fb_ssize i;
    uint16_t v;
    for (i = 0; i < m; i++) {
        v = a[i];
        v = le16((uint16_t)((v | (v << 4)) & 0x0F0F));
        memcpy(o + 2 * i, &v, 2);
    }
}

/* The inverse of pack2 for m whole input bytes (4m output bytes). */
FB_CLONES static void unpack2(uint8_t *o, const uint8_t *a, fb_ssize m) {
    fb_ssize i;
    uint32_t v;
    for (i = 0; i < m; i++) {
        v = a[i];
        v = (v | (v << 12)) & 0x000F000Fu;
        v = le32((v | (v << 6)) & 0x03030303u);
        memcpy(o + 4 * i, &v, 4);
    }
}

void fb_pack(uint8_t *o, const uint8_t *a, fb_ssize n, int bits) {
    const int per = 8 / bits;
    const unsigned mask = (1u << bits) - 1u;
    const fb_ssize whole = n / per;
    fb_ssize i;
    unsigned last = 0;
    if (bits == 4) pack4(o, a, whole);
    else pack2(o, a, whole);
    if (whole * per == n) return;
    for (i = whole * per; i < n; i++) last |= (a[i] & mask) << ((i - whole * per) * bits);
    o[whole] = (uint8_t)last; /* the padding bits stay zero */
}

#if FB_SHUFFLE
/* pack4 of map[a[j]] for m whole output bytes, a map that splits: each step maps 16 bytes and
   folds each pair into the byte of its 16-bit lane that holds the first code, the even one
   (the second code shifted next to the first: down by 4 where that byte is the low one, up by 12
   on a big-endian host where it is the high one), then keeps the even bytes. */
FB_CLONES static void map_pack4(uint8_t *o, const uint8_t *a, fb_ssize m, const uint8_t *map) {
    typedef uint16_t v8u16 __attribute__((vector_size(16)));
    const fb_v16 codes = {15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15};
    const fb_v16 even = {0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12, 14};
    fb_v16 t0, t1, x;
    v8u16 w;
    fb_ssize i;
    memcpy(&t0, map, 16);
    memcpy(&t1, map + 16, 16);
    for (i = 0; i + 8 <= m; i += 8) {
        memcpy(&x, a + 2 * i, 16);
        w = (v8u16)(fb_map16(x, t0, t1) & codes);
#if FB_BIG_ENDIAN
        w |= w << 12; /* the first code is the high byte of the lane: the second joins it there */
#else
        w |= w >> 4;
#endif
        x = __builtin_shuffle((fb_v16)w, even);
        memcpy(o + i, &x, 8);
    }
    for (; i < m; i++) o[i] = (uint8_t)((map[a[2 * i]] & 15) | (map[a[2 * i + 1]] & 15) << 4);
}
#endif

/* The OR of the n bytes at a. */
FB_CLONES static unsigned or_bytes(const uint8_t *a, fb_ssize n) {
    fb_ssize i;
    uint8_t acc = 0;
    for (i = 0; i < n; i++) acc |= a[i];
    return acc;
}

void fb_pack_mapped(uint8_t *o, const uint8_t *a, fb_ssize n, int bits, const uint8_t *map) {
    enum { CHUNK = 4096 }; /* elements at a time, a multiple of 8 */
    uint8_t buf[CHUNK];
    const unsigned values = 1u << bits;
    unsigned v, kept = 1;
    fb_ssize e, i, m;
#if FB_SHUFFLE
    const int splits = bits == 4 && fb_map_splits(map);
#endif
    for (v = 0; v < values; v++) kept &= map[v] == v;
    for (e = 0; e < n; e += m) {
        m = n - e < CHUNK ? n - e : CHUNK;
        /* A chunk of bytes that are their own bits (ml_dtypes' own results are) packs as it is,
           where the map keeps those bytes: one OR over the chunk, in L1 for the packing. */
        if (kept && or_bytes(a + e, m) < values) {
            fb_pack(o + e / 8 * bits, a + e, m, bits);
            continue;
        }
#if FB_SHUFFLE
        if (splits) {
            map_pack4(o + e / 2, a + e, m / 2, map);
            if (m % 2) o[(e + m) / 2] = (uint8_t)(map[a[e + m - 1]] & 15); /* the padding bits stay zero */
            continue;
        }
#endif
        for (i = 0; i < m; i++) buf[i] = map[a[e + i]];
        fb_pack(o + e / 8 * bits, buf, m, bits);
    }
}

void fb_unpack(uint8_t *o, const uint8_t *a, fb_ssize n, int bits) {
    const int per = 8 / bits;
    const unsigned mask = (1u << bits) - 1u;
    const fb_ssize whole = n / per;
    fb_ssize i;
    if (bits == 4) unpack4(o, a, whole);
    else unpack2(o, a, whole);
    for (i = whole * per; i < n; i++) o[i] = (uint8_t)((a[whole] >> ((i - whole * per) * bits)) & mask);
}
