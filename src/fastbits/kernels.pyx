# cython: language_level=3
"""fastbits' public Cython API (declared in ``kernels.pxd``): typed-memoryview kernels.

Python code has :func:`fastbits.bitwise_and` and its siblings, which take any array, broadcast
and use the thread team.  This module is for Cython code that already holds contiguous typed
memoryviews and wants the same loops on its own thread: ``from fastbits.kernels cimport
bitwise_and``.  Acquiring a typed memoryview costs about as much as a whole small call of the
Python entry points, so those do not go through these: they take raw pointers after C-level
checks (docs/design.md).  The loops (``fastbits/_c/loops.c``) are compiled once, into
:mod:`fastbits._runtime`; a call here reaches them through its ``row``, one indirect call.
"""

from ._clib cimport FB_OP_AND, FB_OP_NOT, FB_OP_OR, FB_OP_SAR, FB_OP_SHL, FB_OP_SHR, FB_OP_XOR, fb_kernel
from ._runtime cimport row


cdef inline int _apply(int op, const integer[::1] a, const integer[::1] b, integer[::1] out) noexcept nogil:
    """out = a op b over the whole length; -1 when the lengths do not match."""
    cdef Py_ssize_t n = out.shape[0]
    cdef int width = sizeof(integer)
    cdef fb_kernel k = fb_kernel(op=op, width=width, in_width=width, b_width=0, swap=0, mask=0, stream=0, table=NULL)
    if a.shape[0] != n or (b.shape[0] != n and b.shape[0] != 1):
        return -1
    if n == 0:
        return 0
    row(&k, <char*>&out[0], <const char*>&a[0], <const char*>&b[0], n, width, width,
            width if b.shape[0] == n else 0)
    return 0


cdef int bitwise_and(const integer[::1] a, const integer[::1] b, integer[::1] out) noexcept nogil:
    return _apply(FB_OP_AND, a, b, out)


cdef int bitwise_or(const integer[::1] a, const integer[::1] b, integer[::1] out) noexcept nogil:
    return _apply(FB_OP_OR, a, b, out)


cdef int bitwise_xor(const integer[::1] a, const integer[::1] b, integer[::1] out) noexcept nogil:
    return _apply(FB_OP_XOR, a, b, out)


cdef int bitwise_not(const integer[::1] x, integer[::1] out) noexcept nogil:
    return _apply(FB_OP_NOT, x, x, out)


cdef int bitshift_left(const integer[::1] x, const integer[::1] y, integer[::1] out) noexcept nogil:
    return _apply(FB_OP_SHL, x, y, out)


cdef int bitshift_right(const integer[::1] x, const integer[::1] y, integer[::1] out) noexcept nogil:
    if integer is int8_t or integer is int16_t or integer is int32_t or integer is int64_t:
        return _apply(FB_OP_SAR, x, y, out)  # a signed type: arithmetic
    return _apply(FB_OP_SHR, x, y, out)
