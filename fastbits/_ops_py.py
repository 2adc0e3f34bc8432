"""The pure-Python implementation: the readable reference for fastbits' semantics.

Everything here runs on numpy and ml_dtypes.  The compiled module
(``_ops_c.pyx``) must give exactly the same results and errors; the tests
compare the two.  Every check comes from :mod:`fastbits.spec`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import spec
from ._runtime_py import get_num_threads, set_num_threads
from .spec import BITCAST, BITCAST_T1, BITWISE_AND

__all__ = ["bitcast", "bitwise_and", "get_num_threads", "set_num_threads"]


def bitwise_and(a: Any, b: Any, /, *, out: np.ndarray | None = None) -> np.ndarray:
    """ONNX BitwiseAnd-18: elementwise ``a & b`` with multidirectional broadcasting.

    Parameters
    ----------
    a, b : array_like
        Integer arrays of the same dtype: int8, int16, int32, int64, uint8,
        uint16, uint32 or uint64, in either byte order, any strides, read-only
        or not.  One of them may be a Python int, which takes the other's
        dtype and must fit in it.
    out : numpy.ndarray, optional
        Where to write the result: exactly the broadcast shape and the
        operands' type (either byte order, any strides), writeable.  It may
        be, or overlap, ``a`` or ``b``.

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array of the broadcast
        shape in native byte order.

    Raises
    ------
    TypeConstraintError
        An operand outside T (bool, float, strings...), operands of two
        different types, or an ``out`` of another type.
    BroadcastError
        Shapes that do not broadcast, or an ``out`` of another shape.
    ArgumentValueError
        A Python int outside the other operand's range, or a read-only ``out``.
    AllocationError
        A result too large to allocate.

    Examples
    --------
    >>> import numpy as np, fastbits
    >>> fastbits.bitwise_and(np.array([12, 10], np.uint8), np.uint8(6))
    array([4, 2], dtype=uint8)
    """
    a, b, code = spec.check_bitwise_and(a, b)
    shape = spec.broadcast_shape(BITWISE_AND, a.shape, b.shape)
    if out is None:
        out = spec.allocate(BITWISE_AND, shape, spec.numpy_dtype(code))
    else:
        spec.check_out(BITWISE_AND, out, shape, code)
    # numpy reads either byte order and any strides, and copies an input
    # first when it overlaps ``out`` in a way a single pass would corrupt.
    np.bitwise_and(a, b, out=out)
    return out


def bitcast(x: Any, to: Any, /, *, copy: bool = False) -> np.ndarray:
    """ONNX BitCast-26: reinterpret the bits of ``x`` as type ``to``.

    Parameters
    ----------
    x : array_like
        Any of BitCast's 25 types (T1), sub-byte types as ml_dtypes arrays
        with one value per byte.  Non-native byte order is read by value.
    to : int, DataType, dtype or str
        The target type (T2): an ONNX code (``6``, ``TensorProto.INT32``),
        a :class:`fastbits.DataType`, a numpy / ml_dtypes dtype or scalar
        type, or a name, ONNX style first (``"FLOAT"`` is 32-bit) then numpy
        style (``"float8_e4m3fn"``), case-insensitive.  Its ONNX bit width
        must equal that of ``x``'s type.
    copy : bool, default False
        False: return a view of ``x`` whenever the bits allow it (always,
        but for non-native byte order, which needs a copy).  True: always a
        new C-contiguous array.

    Returns
    -------
    numpy.ndarray
        Same shape as ``x``, dtype of ``to`` in native byte order.  A copy of
        a sub-byte type keeps only the low 2 or 4 bits of each byte; a view
        keeps the bytes as they are.

    Raises
    ------
    TypeConstraintError
        ``x`` outside T1 (strings, float6...), or ``to`` outside T2 (STRING,
        UNDEFINED, float6).
    BitWidthError
        The ONNX bit widths differ (int4 -> uint8, int4 -> int2).
    UnknownDataTypeError
        ``to`` names no ONNX type (29, -1, "float128").

    Examples
    --------
    >>> import numpy as np, fastbits
    >>> fastbits.bitcast(np.array([1.0, -2.5], np.float32), "INT32")
    array([ 1065353216, -1071644672], dtype=int32)
    """
    copy = spec.check_copy(BITCAST, copy)
    x = spec.as_array(BITCAST, x, "input", BITCAST_T1)
    _, dst = spec.check_bitcast(x.dtype, to)
    target = spec.numpy_dtype(dst)
    if not x.dtype.isnative:
        # ONNX reads tensor bytes as little endian: take the values into native
        # order first (only multi-byte builtin types can be non-native).
        x = x.astype(x.dtype.newbyteorder("="), order="C")
        copy = False  # already a fresh array
    if not copy:
        return x.view(target)
    # Copy raw bytes (void items copy as memcpy), so that no bit pattern,
    # NaN payloads and bool bytes other than 0/1 included, is touched.
    raw = np.array(x.view(np.dtype((np.void, x.dtype.itemsize))), order="C", copy=True)
    result = raw.view(target)
    bits = spec.bit_width(dst)
    if bits < 8:
        as_bytes = result.view(np.uint8)
        np.bitwise_and(as_bytes, np.uint8((1 << bits) - 1), out=as_bytes)
    return result
