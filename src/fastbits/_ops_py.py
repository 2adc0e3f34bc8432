"""The pure-Python implementation: the readable reference for fastbits' semantics.

Everything here runs on numpy and ml_dtypes.  The compiled module
(``_ops_c.pyx``) must give exactly the same results and errors; the tests
compare the two.  Every check comes from :mod:`fastbits.spec`.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from . import spec
from ._runtime_py import allocate
from .spec import BITCAST, BITCAST_T1, BITSHIFT, BITWISE_AND, BITWISE_NOT, BITWISE_OR, BITWISE_XOR

__all__ = [
    "bitcast",
    "bitshift",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
]


def _result(op: str, operands: tuple[np.ndarray, ...], code: spec.DataType, out: Any, order: str) -> np.ndarray:
    """A new result array of the operands' broadcast shape, laid out for ``order`` as numpy
    lays out a ufunc's result, or the checked ``out``."""
    shape = operands[0].shape if len(operands) == 1 else spec.broadcast_shape(op, *(x.shape for x in operands))
    if out is None:
        return allocate(op, shape, spec.numpy_dtype(code), operands, order)
    return spec.check_out(op, out, shape, code)


def _binary(op: str, ufunc: np.ufunc, a: Any, b: Any, out: Any, order: Any) -> np.ndarray:
    order = spec.check_order(op, order)
    a, b, code = spec.check_operands(op, a, b)
    out = _result(op, (a, b), code, out, order)
    # numpy reads either byte order and any strides, and copies an input
    # first when it overlaps ``out`` in a way a single pass would corrupt.
    ufunc(a, b, out=out)
    return out


_BINARY_DOC = """ONNX {op}-18: elementwise ``a {symbol} b`` with multidirectional broadcasting.

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
    order : {{"K", "C", "F", "A"}}, default "K"
        The memory layout of a new result, as numpy's ufuncs take it: "K"
        the layout the operands share (broadcast axes aside), C order where
        they share none; "C" or "F" that order; "A" F order where every
        input is F-contiguous, else C (the docs' "The operators" page, "The
        layout of a result").  In any case; ignored with ``out``.

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new array of the broadcast shape in native
        byte order, laid out as ``order`` says.
        A dask array instead, computed block by block, when an input is
        one (the docs' "Scaling out" page).

    Raises
    ------
    TypeConstraintError
        An operand outside T (bool, float, strings...), operands of two
        different types, or an ``out`` of another type.
    BroadcastError
        Shapes that do not broadcast, or an ``out`` of another shape.
    ArgumentValueError
        A Python int outside the other operand's range, a read-only ``out``,
        or an ``order`` other than K, C, F and A.
    ArgumentTypeError
        An ``out`` that is not a numpy array, or any ``out`` with a dask
        input; an ``order`` that is not a str.
    AllocationError
        A result too large to allocate.

    Examples
    --------
    >>> import numpy as np, fastbits
    >>> fastbits.{name}(np.array([12, 10], np.uint8), np.uint8(6))
    {example}
    """


@spec.public_function
def bitwise_and(a: Any, b: Any, /, *, out: np.ndarray | None = None, order: str = "K") -> np.ndarray:
    return _binary(BITWISE_AND, np.bitwise_and, a, b, out, order)


@spec.public_function
def bitwise_or(a: Any, b: Any, /, *, out: np.ndarray | None = None, order: str = "K") -> np.ndarray:
    return _binary(BITWISE_OR, np.bitwise_or, a, b, out, order)


@spec.public_function
def bitwise_xor(a: Any, b: Any, /, *, out: np.ndarray | None = None, order: str = "K") -> np.ndarray:
    return _binary(BITWISE_XOR, np.bitwise_xor, a, b, out, order)

# The three share one text: the operator, its symbol and an example differ.
bitwise_and.__doc__ = _BINARY_DOC.format(
    op=BITWISE_AND, symbol="&", name="bitwise_and", example="array([4, 2], dtype=uint8)"
)
bitwise_or.__doc__ = _BINARY_DOC.format(
    op=BITWISE_OR, symbol="|", name="bitwise_or", example="array([14, 14], dtype=uint8)"
)
bitwise_xor.__doc__ = _BINARY_DOC.format(
    op=BITWISE_XOR, symbol="^", name="bitwise_xor", example="array([10, 12], dtype=uint8)"
)


@spec.public_function
def bitwise_not(x: Any, /, *, out: np.ndarray | None = None, order: str = "K") -> np.ndarray:
    """ONNX BitwiseNot-18: elementwise ``~x``, every bit flipped.

    Parameters
    ----------
    x : array_like
        An array of int8, int16, int32, int64, uint8, uint16, uint32 or
        uint64, in either byte order, any strides, read-only or not.
    out : numpy.ndarray, optional
        Where to write the result: exactly the shape and type of ``x``
        (either byte order, any strides), writeable.  It may be, or overlap,
        ``x``.
    order : {"K", "C", "F", "A"}, default "K"
        As for :func:`bitwise_and`: "K" gives a new result the layout of
        ``x``.

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new array in native byte order, laid out as
        ``order`` says.
        A dask array instead, computed block by block, when an input is
        one (the docs' "Scaling out" page).

    Raises
    ------
    TypeConstraintError
        ``x`` outside T (bool, float, strings...), or an ``out`` of another type.
    BroadcastError
        An ``out`` of another shape.
    ArgumentTypeError, ArgumentValueError
        ``x`` not readable as an array; a read-only ``out``.

    Examples
    --------
    >>> import numpy as np, fastbits
    >>> fastbits.bitwise_not(np.array([0, 5, -1], np.int8))
    array([-1, -6,  0], dtype=int8)
    """
    order = spec.check_order(BITWISE_NOT, order)
    x, code = spec.check_operand(BITWISE_NOT, x)
    out = _result(BITWISE_NOT, (x,), code, out, order)
    np.invert(x, out=out)
    return out


@spec.public_function
def bitshift(x: Any, y: Any, direction: str, /, *, out: np.ndarray | None = None, order: str = "K") -> np.ndarray:
    """ONNX BitShift-28: shift the bits of ``x`` by ``y`` places, to the left or right.

    Parameters
    ----------
    x, y : array_like
        The values and the shift amounts: integer arrays of the same dtype
        (int8 ... int64, uint8 ... uint64), either byte order, any strides,
        broadcast together.  One of them may be a Python int, which takes the
        other's dtype and must fit in it.
    direction : str
        ``"LEFT"`` or ``"RIGHT"`` (ONNX's attribute values), in any case.
    out : numpy.ndarray, optional
        As for :func:`bitwise_and`.
    order : {"K", "C", "F", "A"}, default "K"
        As for :func:`bitwise_and`.

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new array of the broadcast shape in native
        byte order, laid out as ``order`` says.
        A dask array instead, computed block by block, when an input is
        one (the docs' "Scaling out" page).

    Notes
    -----
    A right shift of a signed type is arithmetic (the sign bit fills the
    vacated bits); a left shift drops the bits moved past the top.  An amount
    that is negative or at least the bit width gives 0, or -1 for a right
    shift of a negative ``x``: what the sign extension alone produces.  (C
    leaves such shifts undefined; BitShift-28 defines them, and so does
    fastbits, without ever evaluating one.)

    Raises
    ------
    ArgumentValueError
        ``direction`` other than LEFT or RIGHT, a Python int out of range,
        a read-only ``out``.
    TypeConstraintError, BroadcastError, AllocationError
        As for :func:`bitwise_and`.

    Examples
    --------
    >>> import numpy as np, fastbits
    >>> fastbits.bitshift(np.array([16, 4, 1], np.uint8), np.array([1, 2, 3], np.uint8), "RIGHT")
    array([8, 1, 0], dtype=uint8)
    >>> fastbits.bitshift(np.array([-16, 16], np.int8), np.array([2, 9], np.int8), "right")
    array([-4,  0], dtype=int8)
    """
    direction = spec.check_direction(direction)
    order = spec.check_order(BITSHIFT, order)
    x, y, code = spec.check_operands(BITSHIFT, x, y)
    out = _result(BITSHIFT, (x, y), code, out, order)
    dtype = spec.numpy_dtype(code)  # native byte order: values, not bytes, from here on
    unsigned = np.dtype(f"u{dtype.itemsize}")
    x, y = np.broadcast_arrays(x.astype(dtype), y.astype(dtype))
    in_range = (y >= 0) & (y < spec.bit_width(code))
    amount = np.where(in_range, y, np.zeros((), dtype)).astype(unsigned)
    if direction == "LEFT":
        # in the unsigned type: the bits moved past the top (sign bit included) are dropped
        shifted = np.left_shift(x.view(unsigned), amount).view(dtype)
        fill = np.zeros((), dtype)
    else:
        # numpy's right shift is arithmetic for signed types, logical for unsigned ones
        shifted = np.right_shift(x, amount.astype(dtype))
        # out of range: the sign extension alone (-1 for a negative signed x, else 0)
        bits = spec.bit_width(code)
        fill = np.right_shift(x, np.array(bits - 1, dtype)) if dtype.kind == "i" else np.zeros((), dtype)
    out[...] = np.where(in_range, shifted, fill)
    return out


@spec.public_function
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
        but for non-native byte order, for the sub-byte pairs whose
        target reads a byte otherwise, float4e2m1 <-> int4/uint4, and on a
        big-endian host for complex64 <-> a 64-bit type, which need a
        copy).  True: always a new array, laid out as ``numpy.copy(x)``
        lays out its copy (the layout of ``x``, ``order="K"``).

    Returns
    -------
    numpy.ndarray
        Same shape as ``x``, dtype of ``to`` in native byte order.  A
        sub-byte element keeps its bits: the 4 or 2 bits of the value its
        byte reads as (:func:`fastbits.spec.subbyte_bits`).  A view keeps the
        bytes as they are; a copy holds those bits, the high bits zero.
        A dask array instead, computed block by block, when an input is
        one (the docs' "Scaling out" page).

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
    src, dst = spec.check_bitcast(x.dtype, to)
    target = spec.numpy_dtype(dst)
    if src in spec.SUBBYTE_TYPES:
        # The bits of each element are those of the value its byte reads as: a view keeps the
        # bytes where the target reads every byte as the value of those bits; otherwise, and
        # for a copy, each byte becomes its bits.
        if not copy and spec.subbyte_byte_map(src, dst) is None:
            return x.view(target)
        raw = np.asarray(x).view(np.uint8)
        bits = np.empty_like(raw)  # the layout of x, as numpy.copy(x) has it
        np.take(spec.subbyte_bits(src), raw, out=bits)
        return bits.view(target)
    big_host = sys.byteorder == "big"
    if x.dtype.isnative and not (big_host and spec.order_unit(x.dtype) != spec.order_unit(target)):
        # The native bytes read as ``to`` give what little-endian bytes would.
        if not copy:
            return x.view(target)
        # Copy raw bytes (void items copy as memcpy), so that no bit pattern,
        # NaN payloads and bool bytes other than 0/1 included, is touched.
        raw = np.array(x.view(np.dtype((np.void, x.dtype.itemsize))), order="K", copy=True)
        return raw.view(target)
    # ONNX reads tensor bytes as little endian: the bytes of each value (of each
    # part of a complex value) put in little-endian order, then read as ``to``
    # in little-endian order and put in native order.  Only multi-byte builtin
    # types get here: non-native input, or on a big-endian host complex64
    # <-> a 64-bit type.  At least one of the swaps copies.
    raw = np.ascontiguousarray(x).reshape(-1).view(np.uint8)
    if x.dtype.byteorder == ">" or big_host and x.dtype.byteorder == "=":
        raw = raw.view(f"u{spec.order_unit(x.dtype)}").byteswap().view(np.uint8)
    if big_host:
        raw = raw.view(f"u{spec.order_unit(target)}").byteswap().view(np.uint8)
    result = np.empty_like(x, dtype=target)  # the layout of x, as numpy.copy(x) has it
    result[...] = raw.view(target).reshape(x.shape)  # of one dtype: the bytes, copied
    return result

