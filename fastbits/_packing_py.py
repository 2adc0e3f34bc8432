"""ONNX's packed layout of the sub-byte types, in numpy: the reference for ``_packing_c``.

ONNX stores int4, uint4 and float4e2m1 two to a byte and int2 and uint2 four to a byte: element
0 in the lowest bits, the last byte padded with zero bits.  That is TensorProto's ``raw_data``
and onnxruntime's ``Int4x2`` in memory; ml_dtypes holds one element per byte.  The bits of an
element are the 4 or 2 bits of the value its byte reads as (:func:`fastbits.spec.subbyte_bits`),
as BitCast keeps them.  Every check comes from :mod:`fastbits.spec`, so the compiled module
raises the same errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import spec
from ._runtime_py import allocate

__all__ = ["pack", "unpack"]


@spec.public_function
def pack(x: Any, /) -> np.ndarray:
    """Pack a sub-byte array into ONNX's layout: two nibbles or four crumbs to a byte.

    Parameters
    ----------
    x : numpy.ndarray
        An array of int4, uint4, float4_e2m1fn, int2 or uint2 (ml_dtypes, one element per
        byte), of any shape and memory layout.

    Returns
    -------
    numpy.ndarray
        A new 1-D uint8 array of ``ceil(x.size * bits / 8)`` bytes: the elements in C order,
        element 0 in the lowest bits of byte 0, the bits after the last element zero.  Each
        element's bits are those of the value its byte reads as, as BitCast keeps them (a
        float4e2m1 byte with a high bit set reads as negative).  For arrays whose bytes hold
        only those bits (all that ml_dtypes and ``onnx.numpy_helper.to_array`` make) these are
        the bytes of ``onnx.numpy_helper.from_array(x).raw_data``.  A dask array instead,
        computed block by block, when ``x`` is one (:doc:`scaling-out`: its chunks must hold
        whole bytes).

    Raises
    ------
    TypeConstraintError
        ``x`` is not of a sub-byte type.
    ArgumentTypeError
        ``x`` cannot be read as an array, or the call does not fit the signature.
    ArgumentValueError
        ``x`` is a dask array split along another axis than the first, or whose chunks do not
        hold whole bytes (the message says how to rechunk).

    Examples
    --------
    >>> import ml_dtypes, numpy as np, fastbits
    >>> fastbits.pack(np.array([1, -2, 7], ml_dtypes.int4))
    array([225,   7], dtype=uint8)
    """
    x, code = spec.check_pack(x)
    bits = spec.bit_width(code)
    per = 8 // bits  # elements to a byte, element k of a byte at bit k * bits
    values = np.take(spec.subbyte_bits(code), np.asarray(x).view(np.uint8).reshape(-1))  # C order
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
        FLOAT4E2M1, INT2 or UINT2 (``22``, ``"int4"``, ``ml_dtypes.int4``...).
    shape : sequence of int
        The shape of the result: a tuple, a list or a range of non-negative ints.

    Returns
    -------
    numpy.ndarray
        A new C-contiguous array of ``shape`` and the ml_dtypes type of ``to``: each element's
        bits in the low bits of its byte, the high bits zero.  The padding bits of the last
        byte are ignored.  A dask array instead, computed block by block, when ``data`` is one
        (:doc:`scaling-out`).

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
    per = 8 // bits
    for k in range(per):  # element i: bits (i % per) * bits of byte i // per
        part = elements[k::per]
        part[...] = (array[: part.size] >> np.uint8(k * bits)) & np.uint8((1 << bits) - 1)
    return result
