/* ONNX's packed layout (see pack.h for the contract).

   Each loop moves the elements of one packed unit (a byte of nibbles or crumbs, a 3-byte group
   of four 6-bit elements) as one 16- or 32-bit word, read or written little endian (the first
   element in the low byte; swapped where the host is big endian, le16/le32), and folds or
   spreads them with one mask and a shift or two per step (fewer operations than one shift and
   mask per element: 40 % faster for crumbs), so that GCC vectorizes it into a few word
   operations and one narrowing or widening step, compiled for AVX2 and the baseline
   where the platform allows (FB_DISPATCHED, cpu.h). */
#include "pack.h"
#include "cpu.h"

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
FB_DISPATCHED_VOID(pack4, (uint8_t *o, const uint8_t *a, fb_ssize m),
                   (o, a, m)) {
    fb_ssize i;
    uint16_t v;
    for (i = 0; i < m; i++) {
        memcpy(&v, a + 2 * i, 2);
        v = le16(v) & 0x0F0F;
        o[i] = (uint8_t)(v | (v >> 4));
    }
}

/* o[i] = the low crumbs of a[4i] .. a[4i+3], lowest first, for m whole output bytes. */
FB_DISPATCHED_VOID(pack2, (uint8_t *o, const uint8_t *a, fb_ssize m),
                   (o, a, m)) {
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
FB_DISPATCHED_VOID(unpack4, (uint8_t *o, const uint8_t *a, fb_ssize m),
                   (o, a, m)) {
    fb_ssize i;
    uint16_t v;
    for (i = 0; i < m; i++) {
        v = a[i];
        v = le16((uint16_t)((v | (v << 4)) & 0x0F0F));
        memcpy(o + 2 * i, &v, 2);
    }
}

/* The inverse of pack2 for m whole input bytes (4m output bytes). */
FB_DISPATCHED_VOID(unpack2, (uint8_t *o, const uint8_t *a, fb_ssize m),
                   (o, a, m)) {
    fb_ssize i;
    uint32_t v;
    for (i = 0; i < m; i++) {
        v = a[i];
        v = (v | (v << 12)) & 0x000F000Fu;
        v = le32((v | (v << 6)) & 0x03030303u);
        memcpy(o + 4 * i, &v, 4);
    }
}

/* Four 6-bit elements in the low bits of the bytes of v, as one little-endian word (the first
   in the low byte), folded into the 24 low bits: two 12-bit pairs (at bits 0 and 16), then one
   group.  For a word and for a vector of words alike (GCC's vector extensions apply a scalar to
   every lane). */
#define FOLD6(v)                                                        \
    do {                                                                \
        (v) &= 0x3F3F3F3Fu;                                             \
        (v) = ((v) & 0x003F003Fu) | (((v) >> 2) & 0x0FC00FC0u);         \
        (v) = ((v) & 0x00000FFFu) | (((v) >> 4) & 0x00FFF000u);         \
    } while (0)

/* The inverse: the 24 low bits of v spread into four bytes, each element in the low 6 bits. */
#define SPREAD6(v)                                                      \
    do {                                                                \
        (v) = ((v) & 0x00000FFFu) | (((v) << 4) & 0x0FFF0000u);         \
        (v) = ((v) & 0x003F003Fu) | (((v) << 2) & 0x3F003F00u);         \
    } while (0)

#if FB_SHUFFLE && !FB_BIG_ENDIAN
/* Eight groups a step, as a vector of eight 32-bit lanes (each a group's little-endian word) in
   two 16-byte halves of four groups: one byte shuffle within each half moves its groups between
   their 12 packed bytes and its 16 lanes' bytes (GCC's vectorizer makes a slower run of permutes
   of the stride-3 bytes; a shuffle within halves is one instruction with AVX2).  Little-endian
   hosts only. */
#define GROUPS_PER_STEP 8
typedef uint8_t fb_v32 __attribute__((vector_size(32)));
typedef uint32_t fb_v8u32 __attribute__((vector_size(32)));
#endif

/* o[3i .. 3i+2] = the low 6 bits of a[4i] .. a[4i+3], lowest first, for m whole groups.  A
   vector step writes each half's 12 bytes as 16 (the next half, step or word overwrites the
   other 4), so the steps stop 4 bytes short of the end of ``o``: nothing past it is written. */
FB_DISPATCHED_VOID(pack6, (uint8_t *o, const uint8_t *a, fb_ssize m),
                   (o, a, m)) {
    fb_ssize i = 0;
    uint32_t v;
#ifdef GROUPS_PER_STEP
    const fb_v32 packed = {0,  1,  2,  4,  5,  6,  8,  9,  10, 12, 13, 14, 3,  7,  11, 15,
                           16, 17, 18, 20, 21, 22, 24, 25, 26, 28, 29, 30, 19, 23, 27, 31};
    fb_v8u32 w;
    fb_v32 x;
    for (; 3 * (i + GROUPS_PER_STEP) + 4 <= 3 * m; i += GROUPS_PER_STEP) {
        memcpy(&w, a + 4 * i, 32);
        FOLD6(w);
        x = __builtin_shuffle((fb_v32)w, packed);
        memcpy(o + 3 * i, &x, 16);
        memcpy(o + 3 * i + 12, (const uint8_t *)&x + 16, 16);
    }
#endif
    for (; i < m; i++) {
        memcpy(&v, a + 4 * i, 4);
        v = le32(v);
        FOLD6(v);
        o[3 * i] = (uint8_t)v;
        o[3 * i + 1] = (uint8_t)(v >> 8);
        o[3 * i + 2] = (uint8_t)(v >> 16);
    }
}

/* Group i of the 3 bytes at a + 3i into the 4 bytes at o + 4i. */
static FB_ALWAYS_INLINE void unpack6_group(uint8_t *o, const uint8_t *a, fb_ssize i) {
    uint32_t v = (uint32_t)a[3 * i] | (uint32_t)a[3 * i + 1] << 8 | (uint32_t)a[3 * i + 2] << 16;
    SPREAD6(v);
    v = le32(v);
    memcpy(o + 4 * i, &v, 4);
}

/* The inverse of pack6 for m whole groups (3m input bytes, 4m output bytes).  A vector step
   reads 32 bytes from 4 before its 24, so that each half holds its 12 (the first half at 4, the
   second at 0): the steps start at the third group and stop 4 bytes short of the end of ``a``. */
FB_DISPATCHED_VOID(unpack6, (uint8_t *o, const uint8_t *a, fb_ssize m),
                   (o, a, m)) {
    fb_ssize i = 0;
#ifdef GROUPS_PER_STEP
    /* each lane's 4th byte is a copy of its 3rd, which SPREAD6 does not read */
    const fb_v32 lanes = {4,  5,  6,  6,  7,  8,  9,  9,  10, 11, 12, 12, 13, 14, 15, 15,
                          16, 17, 18, 18, 19, 20, 21, 21, 22, 23, 24, 24, 25, 26, 27, 27};
    fb_v32 x;
    fb_v8u32 w;
    for (; i < m && i < 2; i++) unpack6_group(o, a, i);
    for (; 3 * (i + GROUPS_PER_STEP) + 4 <= 3 * m; i += GROUPS_PER_STEP) {
        memcpy(&x, a + 3 * i - 4, 32);
        w = (fb_v8u32)__builtin_shuffle(x, lanes);
        SPREAD6(w);
        memcpy(o + 4 * i, &w, 32);
    }
#endif
    for (; i < m; i++) unpack6_group(o, a, i);
}

/* A unit of each width (4, 2, 6 bits): its elements and bytes. */
#define UNIT_ELEMS(bits) ((bits) == 6 ? 4 : 8 / (bits))
#define UNIT_BYTES(bits) ((bits) == 6 ? 3 : 1)

/* The whole units, then the last k elements in the ceil(k * bits / 8) bytes that hold them, the
   bits past them zero. */
void fb_pack(uint8_t *o, const uint8_t *a, fb_ssize n, int bits) {
    const fb_ssize whole = n / UNIT_ELEMS(bits), k = n - whole * UNIT_ELEMS(bits);
    fb_ssize i;
    uint32_t last = 0;
    if (bits == 4) pack4(o, a, whole);
    else if (bits == 2) pack2(o, a, whole);
    else pack6(o, a, whole);
    for (i = 0; i < k; i++) last |= (uint32_t)(a[n - k + i] & ((1u << bits) - 1u)) << (bits * i);
    for (i = 0; i < (k * bits + 7) / 8; i++) o[whole * UNIT_BYTES(bits) + i] = (uint8_t)(last >> (8 * i));
}

#if FB_SHUFFLE
/* pack4 of map[a[j]] for m whole output bytes, a map that splits: each step maps 16 bytes and
   folds each pair into the byte of its 16-bit lane that holds the first code, the even one
   (the second code shifted next to the first: down by 4 where that byte is the low one, up by 12
   on a big-endian host where it is the high one), then keeps the even bytes. */
FB_DISPATCHED_VOID(map_pack4, (uint8_t *o, const uint8_t *a, fb_ssize m, const uint8_t *map),
                   (o, a, m, map)) {
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
FB_DISPATCHED(unsigned, or_bytes, (const uint8_t *a, fb_ssize n), (a, n)) {
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
    const fb_ssize whole = n / UNIT_ELEMS(bits), k = n - whole * UNIT_ELEMS(bits);
    fb_ssize i;
    uint32_t last = 0;
    if (bits == 4) unpack4(o, a, whole);
    else if (bits == 2) unpack2(o, a, whole);
    else unpack6(o, a, whole);
    for (i = 0; i < (k * bits + 7) / 8; i++) last |= (uint32_t)a[whole * UNIT_BYTES(bits) + i] << (8 * i);
    for (i = 0; i < k; i++) o[n - k + i] = (uint8_t)((last >> (bits * i)) & ((1u << bits) - 1u));
}
