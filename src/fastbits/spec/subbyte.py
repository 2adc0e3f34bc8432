"""The sub-byte types: the bits of an element, and ONNX's packed layout (pack and unpack).

The sub-byte types are the ONNX types narrower than a byte: int4, uint4 and float4e2m1 (4
bits), int2 and uint2 (2 bits), float6e2m3 and float6e3m2 (6 bits).  Each has ONNX's packed
layout (:func:`packed_size`).  BitCast-26 takes those of them in its T1 (the IR-13 types): not
the 6-bit floats, which came with IR version 14.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import ArgumentTypeError, ArgumentValueError, BitWidthError, TypeConstraintError, UnknownDataTypeError
from .bitcast import resolve_to
from .messages import describe_dtype
from .elementwise import as_array
from .operators import BITCAST
from .types import DERIVED, TYPES, DataType, datatype_of, numpy_dtype, type_string

__all__ = ["PACK", "SUBBYTE_TYPES", "UNPACK", "check_pack", "check_unpack", "packed_size", "subbyte_bits", "subbyte_byte_map"]


PACK = "pack"
UNPACK = "unpack"

#: The sub-byte types, those of ONNX's packed layout: int4, uint4 and float4e2m1 (4 bits),
#: int2 and uint2 (2 bits), float6e2m3 and float6e3m2 (6 bits).  BitCast takes the first five
#: (its T1 has no 6-bit type): its sub-byte pairs are those of T1 among these.
SUBBYTE_TYPES: frozenset[DataType] = DERIVED.subbyte_types
_SUBBYTE_NAMES = ", ".join(
    type_string(t) for t in sorted(SUBBYTE_TYPES, key=lambda t: (-TYPES[t].bits, t.name))
)


def _check_subbyte(code: DataType) -> DataType:
    code = DataType(code)
    if code not in SUBBYTE_TYPES:
        raise TypeConstraintError(
            f"subbyte_bits: {type_string(code)} is not a sub-byte type; expected one of {_SUBBYTE_NAMES}"
        )
    return code


@functools.cache
def subbyte_bits(code: DataType) -> np.ndarray:
    """The bits of an element of sub-byte type ``code`` held in each byte 0..255.

    ml_dtypes holds one element per byte and reads a value from the whole byte: int4, uint4,
    int2 and uint2 from its low bits, float4e2m1, float6e2m3 and float6e3m2 as negative when
    any high bit is set.  The bits of an element are the 4, 2 or 6 bits of the value ml_dtypes
    reads from its byte.  They are found here from ml_dtypes itself: the bytes 0 .. 2**bits - 1
    read as 2**bits distinct values (the bytes ml_dtypes writes, each the bits of its value),
    and every byte reads as one of them (the sign of a zero included).

    Returns a read-only uint8 array of 256: entry ``b`` is the bits of byte ``b``, which is
    also the byte ml_dtypes and ONNX store them as.
    """
    code = _check_subbyte(code)
    width = TYPES[code].bits
    every = np.arange(256, dtype=np.uint8).view(numpy_dtype(code))
    # a value's identity: its float32 bits (exact for these types; -0.0 is not +0.0)
    read = every.astype(np.float32).view(np.uint32).tolist()
    canonical = {value: bits for bits, value in enumerate(read[: 1 << width])}
    if len(canonical) != 1 << width or any(value not in canonical for value in read):
        raise RuntimeError(
            f"ml_dtypes {sys.modules['ml_dtypes'].__version__} reads {TYPES[code].name} bytes in a way fastbits "
            f"does not know: the bytes 0..{(1 << width) - 1} do not hold every value once"
        )
    table = np.array([canonical[value] for value in read], dtype=np.uint8)
    table.flags.writeable = False
    return table


@functools.cache
def subbyte_byte_map(src: DataType, dst: DataType) -> np.ndarray | None:
    """How BitCast from sub-byte type ``src`` to ``dst`` (of the same width) keeps the bits.

    None when ``dst`` reads every byte as the value of the bits ``src`` reads from it: the
    bytes can stay as they are (a view).  Otherwise the 256-entry byte map of a normalizing
    copy: each byte becomes its bits as ``src`` reads them (:func:`subbyte_bits`), stored as
    ``dst`` stores them.  int4, uint4, int2 and uint2 read the low bits of a byte, float4e2m1
    also its high bits: a view between float4e2m1 and int4 or uint4 could change values.
    """
    src_bits, dst_bits = subbyte_bits(src), subbyte_bits(dst)
    if TYPES[DataType(src)].bits != TYPES[DataType(dst)].bits:
        raise BitWidthError(f"{BITCAST}: {type_string(src)} and {type_string(dst)} have different widths")
    return None if np.array_equal(src_bits, dst_bits) else src_bits


def packed_size(code: DataType, count: int) -> int:
    """Bytes that ``count`` elements of sub-byte type ``code`` take packed: ceil(count * bits / 8).

    Two nibbles or four crumbs to a byte; four 6-bit elements to 3 bytes.
    """
    return (count * TYPES[DataType(code)].bits + 7) // 8


def check_pack(x: Any) -> tuple[np.ndarray, DataType]:
    """``pack``'s input: an array of a sub-byte type (any shape and layout); it and its type."""
    x = as_array(PACK, x, "x", SUBBYTE_TYPES)
    code = datatype_of(x.dtype)
    if code not in SUBBYTE_TYPES:
        raise TypeConstraintError(
            f"{PACK}: input 'x' has dtype {describe_dtype(x.dtype)}, which is not a sub-byte "
            f"type; expected one of {_SUBBYTE_NAMES}"
        )
    return x, code


def check_unpack(data: Any, to: Any, shape: Any) -> tuple[np.ndarray, DataType, tuple[int, ...]]:
    """``unpack``'s arguments: the packed bytes as a 1-D uint8 array, the type, the shape.

    ``data`` is bytes, a bytearray, a 1-D memoryview of bytes or a 1-D uint8 array (any
    strides); ``to`` is read as BitCast reads it (:func:`resolve_to`) and must be a sub-byte
    type; ``shape`` is a sequence (a tuple, a list, a range) of non-negative ints; ``data`` must hold exactly the
    :func:`packed_size` of that many elements.
    """
    array = _packed_bytes(data)
    code = _unpack_to(to)
    dims = _unpack_shape(shape)
    count = 1
    for size in dims:
        count *= size
    expected = packed_size(code, count)
    if array.size != expected:
        raise ArgumentValueError(
            f"{UNPACK}: input 'data' has {array.size} bytes, but shape {dims} of "
            f"{type_string(code)} packs into {expected} bytes ({count} elements of "
            f"{TYPES[code].bits} bits, padded to a whole byte); expected exactly {expected} bytes"
        )
    return array, code, dims


def _packed_bytes(data: Any) -> np.ndarray:
    kinds = "bytes, a bytearray, a memoryview of bytes or a uint8 numpy array"
    if isinstance(data, np.ndarray):
        if data.dtype != np.uint8:
            raise TypeConstraintError(
                f"{UNPACK}: input 'data' has dtype {describe_dtype(data.dtype)}; expected packed "
                f"bytes: {kinds}"
            )
        array = data
    elif isinstance(data, (bytes, bytearray)):
        array = np.frombuffer(data, dtype=np.uint8)
    elif isinstance(data, memoryview):
        if data.itemsize != 1 or data.format.lstrip("@=<>!") not in ("B", "b", "c"):
            raise TypeConstraintError(
                f"{UNPACK}: input 'data' is a memoryview of format {data.format!r} (itemsize "
                f"{data.itemsize}); expected packed bytes: {kinds}"
            )
        array = np.asarray(data)
        array = array.view(np.uint8) if array.dtype != np.uint8 else array
    else:
        raise ArgumentTypeError(f"{UNPACK}: input 'data' must be {kinds}, not {type(data).__name__}")
    if array.ndim != 1:
        raise ArgumentValueError(
            f"{UNPACK}: input 'data' has shape {array.shape}; expected the packed bytes as one "
            f"dimension"
        )
    return array


def _unpack_to(to: Any) -> DataType:
    try:
        code = resolve_to(to)
    except UnknownDataTypeError:
        raise UnknownDataTypeError(
            f"{UNPACK}: argument 'to' = {to!r} names no ONNX data type; expected a sub-byte "
            f"type: {_SUBBYTE_NAMES}"
        ) from None
    except ArgumentTypeError:
        raise ArgumentTypeError(
            f"{UNPACK}: argument 'to' must be an ONNX data type (an int code, a DataType, a "
            f"dtype or a name), not {type(to).__name__} {to!r}"
        ) from None
    if code not in SUBBYTE_TYPES:
        raise TypeConstraintError(
            f"{UNPACK}: argument 'to' = {code.name} ({int(code)}) is not a sub-byte type; "
            f"expected one of {_SUBBYTE_NAMES}"
        )
    return code


def _unpack_shape(shape: Any) -> tuple[int, ...]:
    """``shape``: any sequence of ints (a tuple, a list, a range), as numpy takes a shape."""
    if not isinstance(shape, Sequence) or isinstance(shape, (str, bytes, bytearray)):
        raise ArgumentTypeError(
            f"{UNPACK}: argument 'shape' must be a sequence of ints (a tuple, a list), not "
            f"{type(shape).__name__} {shape!r}"
        )
    for size in shape:
        if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)):
            raise ArgumentTypeError(
                f"{UNPACK}: argument 'shape' must be a sequence of ints (a tuple, a list), but "
                f"{tuple(shape)!r} holds {type(size).__name__} {size!r}"
            )
    dims = tuple(int(size) for size in shape)
    if any(size < 0 for size in dims):
        raise ArgumentValueError(f"{UNPACK}: argument 'shape' {dims} has a negative size")
    try:  # too many axes, or sizes that overflow beside a zero: numpy's own limits
        np.empty(dims if 0 in dims else (0,) * len(dims), dtype=np.uint8)
    except ValueError as exc:
        raise ArgumentValueError(f"{UNPACK}: argument 'shape' {dims} is not an array shape: {exc}") from None
    return dims
