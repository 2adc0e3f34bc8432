# fastbits' public Cython API: the bitwise kernels on typed memoryviews, for other Cython code.
#
#     from fastbits.kernels cimport bitwise_and
#
#     cdef const uint32_t[::1] a = ..., b = ...
#     cdef uint32_t[::1] out = ...
#     with nogil:
#         if bitwise_and(a, b, out) != 0:
#             ...  # lengths that do not match
#
# Each function runs on the calling thread, without the GIL, allocates nothing and raises
# nothing: it returns 0, or -1 (and writes nothing) when the lengths do not match.  ``b`` (and
# ``y``) may have length 1, a value applied to every element; otherwise every input has the
# length of ``out``.  ``out`` may be one of the inputs; it must not overlap them otherwise.
# The operations are ONNX's: the shifts follow BitShift-28 (an amount that is negative or at
# least the bit width gives 0, or -1 for a right shift of a negative signed value; a right
# shift of a signed type is arithmetic).  The functions are fused over the eight integer types;
# all arguments of one call have the same type.

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

ctypedef fused integer:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t

cdef int bitwise_and(const integer[::1] a, const integer[::1] b, integer[::1] out) noexcept nogil
cdef int bitwise_or(const integer[::1] a, const integer[::1] b, integer[::1] out) noexcept nogil
cdef int bitwise_xor(const integer[::1] a, const integer[::1] b, integer[::1] out) noexcept nogil
cdef int bitwise_not(const integer[::1] x, integer[::1] out) noexcept nogil
cdef int bitshift_left(const integer[::1] x, const integer[::1] y, integer[::1] out) noexcept nogil
cdef int bitshift_right(const integer[::1] x, const integer[::1] y, integer[::1] out) noexcept nogil
