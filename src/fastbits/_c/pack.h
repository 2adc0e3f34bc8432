/* ONNX's packed layout of the sub-byte types, and back.

   ONNX stores int4, uint4 and float4e2m1 two to a byte, int2 and uint2 four to a byte, and
   float6e2m3 and float6e3m2 four to 3 bytes: element 0 in the lowest bits, least significant
   bit first (a 6-bit element may span two bytes), the output trimmed to the bytes that hold the
   elements, the last byte padded with zero bits (TensorProto's raw_data, onnxruntime's
   Int4x2).  The unpacked side is ml_dtypes' layout: one element per byte, its
   bits in the low bits of the byte.  The bits of an element are those of the value its byte
   reads as (fastbits.spec.subbyte_bits): here the low ``bits`` bits of each byte, so a caller
   whose type reads a byte otherwise (float4e2m1 or a 6-bit float with a high bit set) maps the
   bytes first.  Both sides are contiguous; elements of ``bits`` 4, 2 or 6. */
#ifndef FASTBITS_PACK_H
#define FASTBITS_PACK_H

#include "platform.h"

/* Bytes that ``n`` elements of ``bits`` bits take packed: ceil(n * bits / 8).  8 elements take
   ``bits`` whole bytes at every width: a caller splits the work at multiples of 8 elements. */
fb_ssize fb_packed_size(fb_ssize n, int bits);

/* Pack the low ``bits`` bits of the n bytes at ``a`` into fb_packed_size(n, bits) bytes at
   ``o``; the bits of the last byte past the n-th element are zero. */
void fb_pack(uint8_t *o, const uint8_t *a, fb_ssize n, int bits);

/* fb_pack of the bytes map[a[i]]: for a type whose bits are not the low bits of its byte
   (float4e2m1 and the 6-bit floats, whose ml_dtypes byte may have a high bit set), ``map``
   being its 256-entry table of bits (fastbits.spec.subbyte_bits).  A chunk whose bytes are all
   below 2**bits, where the map keeps those (its elements are their own bits), is packed as
   fb_pack does.  Otherwise, where the map splits (bytes.h) and the elements are of 4 bits, 16
   bytes are mapped by byte shuffles and packed into 8 per step; else the bytes are mapped a
   chunk at a time, then packed. */
void fb_pack_mapped(uint8_t *o, const uint8_t *a, fb_ssize n, int bits, const uint8_t *map);

/* Unpack n elements of ``bits`` bits from the fb_packed_size(n, bits) bytes at ``a`` into the
   n bytes at ``o``: each element's bits in the low bits of its byte, the high bits zero.  The
   padding bits of the last byte are not read into any element. */
void fb_unpack(uint8_t *o, const uint8_t *a, fb_ssize n, int bits);

#endif /* FASTBITS_PACK_H */
