"""ONNX's packed layout of the sub-byte types, in numpy: the reference for ``_packing_c``.

ONNX stores int4, uint4 and float4e2m1 two to a byte, int2 and uint2 four to a byte, and
float6e2m3 and float6e3m2 four to three bytes: element 0 in the lowest bits, least significant
bit first, the last byte padded with zero bits.  That is TensorProto's ``raw_data`` and
onnxruntime's ``Int4x2`` in memory; ml_dtypes holds one element per byte.  The bits of an
element are the 4, 2 or 6 bits of the value its byte reads as
(:func:`fastbits.spec.subbyte_bits`), as BitCast keeps them for the types it takes.  Every check
comes from :mod:`fastbits.spec`, so the compiled module raises the same errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import spec
from ._runtime_py import allocate

__all__ = ["pack", "unpack"]


@spec.public_function
def pack(x: Any, /) -> np.ndarray:
    """Pack a sub-byte array into ONNX's layout: two nibbles or four crumbs to a byte, four
    6-bit elements to three bytes.

    Parameters
    ----------
    x : numpy.ndarray
        An array of int4, uint4, float4_e2m1fn, int2, uint2, float6_e2m3fn or float6_e3m2fn
        (ml_dtypes, one element per byte), of any shape and memory layout.

    Returns
    -------
    numpy.ndarray
        A new 1-D uint8 array of ``ceil(x.size * bits / 8)`` bytes: the elements in C order,
        element 0 in the lowest bits of byte 0 (a 6-bit element may run on into the next byte:
        ``b0 = v0 | v1 << 6``, ``b1 = v1 >> 2 | v2 << 4``, ``b2 = v2 >> 4 | v3 << 2``), the bits
        after the last element zero.  Each element's bits are those of the value its byte reads
        as, as BitCast keeps them (a float4e2m1, float6e2m3 or float6e3m2 byte with a high bit
        set reads as negative).  For arrays whose bytes hold only those bits (all that ml_dtypes
        and ``onnx.numpy_helper.to_array`` make) these are the bytes of
        ``onnx.numpy_helper.from_array(x).raw_data``.  A dask array instead,
        computed block by block, when ``x`` is one (the docs' "Scaling out" page: its chunks must hold
        whole bytes, or whole 3-byte groups of 6-bit elements).

    Raises
    ------
    TypeConstraintError
        ``x`` is not of a sub-byte type.
    ArgumentTypeError
        ``x`` cannot be read as an array, or the call does not fit the signature.
    ArgumentValueError
        ``x`` is a dask array split along another axis than the first, or whose chunks do not
        hold whole bytes or groups (the message says how to rechunk).

    Examples
    --------
    >>> import ml_dtypes, numpy as np, fastbits
    >>> fastbits.pack(np.array([1, -2, 7], ml_dtypes.int4))
    array([225,   7], dtype=uint8)
    """
    x, code = spec.check_pack(x)
    bits = spec.bit_width(code)
    values = np.take(spec.subbyte_bits(code), np.asarray(x).view(np.uint8).reshape(-1))  # C order
    if bits == 6:
        return _pack6(values)
    per = 8 // bits  # elements to a byte, element k of a byte at bit k * bits
    padded = np.zeros(spec.packed_size(code, values.size) * per, dtype=np.uint8)
    padded[: values.size] = values
    packed = padded[0::per].copy()
    for k in range(1, per):
        packed |= padded[k::per] << np.uint8(k * bits)
    return packed


@spec.public_function
def unpack(data: Any, to: Any, shape: Any, /) -> np.ndarray:
    """Unpack ONNX's packed layout into a sub-byte array, one element per byte.

    Parameters
    ----------
    data : bytes, bytearray, memoryview or numpy.ndarray
        The packed bytes (a 1-D uint8 array or buffer), as :func:`pack` writes them and
        TensorProto's ``raw_data`` holds them.
    to : int, DataType, dtype or str
        The element type, read as :func:`fastbits.bitcast` reads its ``to``: INT4, UINT4,
        FLOAT4E2M1, INT2, UINT2, FLOAT6E2M3 or FLOAT6E3M2 (``22``, ``"int4"``,
        ``ml_dtypes.int4``, ``27``, ``"float6e2m3"``, ``ml_dtypes.float6_e2m3fn``...).
    shape : sequence of int
        The shape of the result: a tuple, a list or a range of non-negative ints.

    Returns
    -------
    numpy.ndarray
        A new C-contiguous array of ``shape`` and the ml_dtypes type of ``to``: each element's
        bits in the low bits of its byte, the high bits zero.  The padding bits of the last
        byte are ignored.  A dask array instead, computed block by block, when ``data`` is one
        (the docs' "Scaling out" page).

    Raises
    ------
    TypeConstraintError
        ``to`` is not a sub-byte type; ``data`` is an array or memoryview of another type.
    UnknownDataTypeError
        ``to`` names no ONNX type.
    ArgumentValueError
        ``data`` does not hold exactly ``ceil(prod(shape) * bits / 8)`` bytes (the message
        names both sizes), ``data`` is not one-dimensional, or ``shape`` has a negative size.
    ArgumentTypeError
        ``data`` is not bytes, a buffer or an array, ``shape`` is not a sequence of ints, or
        the call does not fit the signature (a count, a keyword).

    Examples
    --------
    >>> import fastbits
    >>> values = fastbits.unpack(bytes([225, 7]), "int4", (3,))
    >>> values.dtype.name, values.tolist()
    ('int4', [1, -2, 7])
    """
    array, code, shape = spec.check_unpack(data, to, shape)
    bits = spec.bit_width(code)
    result = allocate(spec.UNPACK, shape, spec.numpy_dtype(code))
    # the bits of each element are the byte ml_dtypes stores it as (spec.subbyte_bits)
    elements = result.reshape(-1).view(np.uint8)
    if bits == 6:
        elements[...] = _unpack6(array, elements.size)
        return result
    per = 8 // bits
    for k in range(per):  # element i: bits (i % per) * bits of byte i // per
        part = elements[k::per]
        part[...] = (array[: part.size] >> np.uint8(k * bits)) & np.uint8((1 << bits) - 1)
    return result


def _pack6(values: np.ndarray) -> np.ndarray:
    """The 6-bit layout of ``values`` (each below 64): groups of four elements v0..v3 in three
    bytes, least significant bit first, the last group's missing elements zero and the bytes
    after the last element's cut off (``ceil(n * 6 / 8)`` bytes in all)."""
    groups = np.zeros((-(-values.size // 4), 4), dtype=np.uint8)
    groups.reshape(-1)[: values.size] = values
    v0, v1, v2, v3 = groups.T
    packed = np.empty((groups.shape[0], 3), dtype=np.uint8)
    packed[:, 0] = v0 | v1 << np.uint8(6)  # uint8 shifts drop the bits moved past bit 7
    packed[:, 1] = v1 >> np.uint8(2) | v2 << np.uint8(4)
    packed[:, 2] = v2 >> np.uint8(4) | v3 << np.uint8(2)
    return packed.reshape(-1)[: (values.size * 6 + 7) // 8]


def _unpack6(data: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` 6-bit elements of the packed bytes ``data``, one per byte: the inverse of
    :func:`_pack6`, the padding bits of the last byte not read into any element."""
    padded = np.zeros(-(-count // 4) * 3, dtype=np.uint8)
    padded[: data.size] = data
    b0, b1, b2 = padded.reshape(-1, 3).T
    low6, low4, low2 = np.uint8(0x3F), np.uint8(0x0F), np.uint8(0x03)
    groups = np.empty((b0.size, 4), dtype=np.uint8)
    groups[:, 0] = b0 & low6
    groups[:, 1] = b0 >> np.uint8(6) | (b1 & low4) << np.uint8(2)
    groups[:, 2] = b1 >> np.uint8(4) | (b2 & low2) << np.uint8(4)
    groups[:, 3] = b2 >> np.uint8(2)
    return groups.reshape(-1)[:count]
