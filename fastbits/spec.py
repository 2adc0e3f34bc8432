"""What ONNX allows: the one place that encodes ONNX's types and the two operators' rules.

Both implementations (the pure-Python module and the compiled one) take every
check from here, so they cannot disagree on what is allowed.  The module holds

* :class:`DataType`, every ``TensorProto.DataType`` code of onnx 1.23 (0 to 28),
  with each type's ONNX bit width and its numpy / ml_dtypes dtype (ml_dtypes is
  imported only when a call needs one of its types: :func:`numpy_dtype`);
* the type-constraint sets of BitwiseAnd-18 (``T``) and BitCast-26 (``T1``,
  ``T2``) and the operators' since-versions;
* the resolution of arguments: a BitCast ``to``, BitwiseAnd operands (Python
  ints included), multidirectional broadcasting and ``out=`` arrays.

Every ``check_*``/``resolve_*`` function either returns or raises one of the
errors of :mod:`fastbits.errors` with a message that names the operator, the
input and what was expected.
"""

from __future__ import annotations

import enum
import functools
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .errors import (
    AllocationError,
    ArgumentTypeError,
    ArgumentValueError,
    BitWidthError,
    BroadcastError,
    TypeConstraintError,
    UnknownDataTypeError,
)

__all__ = [
    "BITCAST",
    "BITCAST_T1",
    "BITCAST_T2",
    "BITSHIFT",
    "BITSHIFT_11_T",
    "BITSHIFT_T",
    "BITWISE_AND",
    "BITWISE_AND_T",
    "BITWISE_NOT",
    "BITWISE_OR",
    "BITWISE_XOR",
    "DIRECTIONS",
    "DataType",
    "INPUT_NAMES",
    "INTEGER_T",
    "ML_TYPES",
    "PACK",
    "REQUIRED",
    "SIGNATURES",
    "SINCE_VERSION",
    "SUBBYTE_TYPES",
    "TYPE_CONSTRAINT",
    "TypeInfo",
    "UNPACK",
    "allocate",
    "as_array",
    "bit_width",
    "bitcast_allowed",
    "broadcast_shape",
    "call_error",
    "check_bitcast",
    "check_bitcast_to",
    "check_bitshift_version",
    "check_copy",
    "check_direction",
    "check_num_threads",
    "check_operand",
    "check_operands",
    "check_out",
    "check_pack",
    "check_unpack",
    "datatype_of",
    "describe_dtype",
    "numpy_dtype",
    "out_of_memory",
    "packed_size",
    "public_function",
    "resolve_to",
    "subbyte_bits",
    "subbyte_byte_map",
    "type_string",
]

BITWISE_AND = "BitwiseAnd"
BITWISE_OR = "BitwiseOr"
BITWISE_XOR = "BitwiseXor"
BITWISE_NOT = "BitwiseNot"
BITSHIFT = "BitShift"
BITCAST = "BitCast"

#: The opset version in which each operator, as fastbits implements it, appeared.  BitShift is
#: BitShift-28 (signed types, out-of-range amounts defined); BitShift-11, its unsigned subset,
#: serves opsets 11 to 27 (:func:`check_bitshift_version`).
SINCE_VERSION = {
    BITWISE_AND: 18,
    BITWISE_OR: 18,
    BITWISE_XOR: 18,
    BITWISE_NOT: 18,
    BITSHIFT: 28,
    BITCAST: 26,
}

#: The ONNX names of each integer operator's inputs, as messages name them.
INPUT_NAMES = {
    BITWISE_AND: ("A", "B"),
    BITWISE_OR: ("A", "B"),
    BITWISE_XOR: ("A", "B"),
    BITWISE_NOT: ("X",),
    BITSHIFT: ("X", "Y"),
}

#: BitShift's ``direction`` attribute: its two values.
DIRECTIONS = ("LEFT", "RIGHT")


class DataType(enum.IntEnum):
    """ONNX ``TensorProto.DataType``: the codes and names of onnx 1.23."""

    UNDEFINED = 0
    FLOAT = 1
    UINT8 = 2
    INT8 = 3
    UINT16 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    STRING = 8
    BOOL = 9
    FLOAT16 = 10
    DOUBLE = 11
    UINT32 = 12
    UINT64 = 13
    COMPLEX64 = 14
    COMPLEX128 = 15
    BFLOAT16 = 16
    FLOAT8E4M3FN = 17
    FLOAT8E4M3FNUZ = 18
    FLOAT8E5M2 = 19
    FLOAT8E5M2FNUZ = 20
    UINT4 = 21
    INT4 = 22
    FLOAT4E2M1 = 23
    FLOAT8E8M0 = 24
    UINT2 = 25
    INT2 = 26
    FLOAT6E2M3 = 27
    FLOAT6E3M2 = 28


class TypeInfo(NamedTuple):
    """What fastbits knows of one ONNX data type."""

    #: Width of one element in ONNX, in bits (None: no fixed width).
    bits: int | None
    #: The name of the numpy / ml_dtypes type that holds one element (one per byte for
    #: sub-byte types, as ``onnx.numpy_helper.to_array`` gives them), or None.
    name: str | None
    #: The type is ml_dtypes' (:func:`numpy_dtype` imports ml_dtypes for it).
    ml: bool = False


_D = DataType
TYPES: dict[DataType, TypeInfo] = {
    _D.UNDEFINED: TypeInfo(None, None),
    _D.FLOAT: TypeInfo(32, "float32"),
    _D.UINT8: TypeInfo(8, "uint8"),
    _D.INT8: TypeInfo(8, "int8"),
    _D.UINT16: TypeInfo(16, "uint16"),
    _D.INT16: TypeInfo(16, "int16"),
    _D.INT32: TypeInfo(32, "int32"),
    _D.INT64: TypeInfo(64, "int64"),
    _D.STRING: TypeInfo(None, "object"),
    _D.BOOL: TypeInfo(8, "bool"),
    _D.FLOAT16: TypeInfo(16, "float16"),
    _D.DOUBLE: TypeInfo(64, "float64"),
    _D.UINT32: TypeInfo(32, "uint32"),
    _D.UINT64: TypeInfo(64, "uint64"),
    _D.COMPLEX64: TypeInfo(64, "complex64"),
    _D.COMPLEX128: TypeInfo(128, "complex128"),
    _D.BFLOAT16: TypeInfo(16, "bfloat16", ml=True),
    _D.FLOAT8E4M3FN: TypeInfo(8, "float8_e4m3fn", ml=True),
    _D.FLOAT8E4M3FNUZ: TypeInfo(8, "float8_e4m3fnuz", ml=True),
    _D.FLOAT8E5M2: TypeInfo(8, "float8_e5m2", ml=True),
    _D.FLOAT8E5M2FNUZ: TypeInfo(8, "float8_e5m2fnuz", ml=True),
    _D.UINT4: TypeInfo(4, "uint4", ml=True),
    _D.INT4: TypeInfo(4, "int4", ml=True),
    _D.FLOAT4E2M1: TypeInfo(4, "float4_e2m1fn", ml=True),
    _D.FLOAT8E8M0: TypeInfo(8, "float8_e8m0fnu", ml=True),
    _D.UINT2: TypeInfo(2, "uint2", ml=True),
    _D.INT2: TypeInfo(2, "int2", ml=True),
    _D.FLOAT6E2M3: TypeInfo(6, "float6_e2m3fn", ml=True),
    _D.FLOAT6E3M2: TypeInfo(6, "float6_e3m2fn", ml=True),
}
del _D

#: The eight integer types: type constraint ``T`` of BitwiseAnd-18, BitwiseOr-18,
#: BitwiseXor-18, BitwiseNot-18 and BitShift-28.
INTEGER_T: frozenset[DataType] = frozenset(
    {
        DataType.INT8,
        DataType.INT16,
        DataType.INT32,
        DataType.INT64,
        DataType.UINT8,
        DataType.UINT16,
        DataType.UINT32,
        DataType.UINT64,
    }
)
BITWISE_AND_T = INTEGER_T
BITSHIFT_T = INTEGER_T
#: BitShift-11's ``T``: the unsigned integer types only.
BITSHIFT_11_T: frozenset[DataType] = frozenset(
    {DataType.UINT8, DataType.UINT16, DataType.UINT32, DataType.UINT64}
)
#: Each integer operator's ``T``.
TYPE_CONSTRAINT: dict[str, frozenset[DataType]] = {
    BITWISE_AND: INTEGER_T,
    BITWISE_OR: INTEGER_T,
    BITWISE_XOR: INTEGER_T,
    BITWISE_NOT: INTEGER_T,
    BITSHIFT: BITSHIFT_T,
}

#: BitCast-26, ``T1`` (input) and ``T2`` (output): every type but string.
#: UNDEFINED and the 6-bit floats are not tensor types of BitCast-26 either.
BITCAST_T1: frozenset[DataType] = frozenset(DataType) - {
    DataType.UNDEFINED,
    DataType.STRING,
    DataType.FLOAT6E2M3,
    DataType.FLOAT6E3M2,
}
BITCAST_T2: frozenset[DataType] = BITCAST_T1

#: The types held by ml_dtypes' types: bfloat16, the 8-, 6-, 4- and 2-bit types.
ML_TYPES: frozenset[DataType] = frozenset(code for code, info in TYPES.items() if info.ml)

# Native-byte-order dtype -> DataType.  numpy dtypes compare equal (and hash
# alike) across aliases such as 'l' and 'q', so one entry serves both.  ml_dtypes'
# dtypes join once ml_dtypes is imported (_add_ml_dtypes).
_BY_DTYPE: dict[np.dtype, DataType] = {
    np.dtype(info.name): code
    for code, info in TYPES.items()
    if info.name is not None and not info.ml and code is not DataType.STRING
}
# Lower-case numpy-style names ("float8_e4m3fn", "float32") -> DataType.
_BY_NUMPY_NAME: dict[str, DataType] = {
    info.name: code for code, info in TYPES.items() if info.name is not None and code is not DataType.STRING
}
_ml_dtypes_added = False


def type_string(code: DataType) -> str:
    """The ONNX type string of ``code``, as schemas spell it: ``tensor(float)``."""
    return f"tensor({DataType(code).name.lower()})"


def bit_width(code: DataType) -> int | None:
    """ONNX width of one element of ``code`` in bits (bool: 8, int4: 4)."""
    return TYPES[DataType(code)].bits


@functools.cache  # one dtype object per code: the compiled tables point at it
def numpy_dtype(code: DataType) -> np.dtype | None:
    """The numpy / ml_dtypes dtype that holds elements of ``code``; None for UNDEFINED, or for
    a type the installed ml_dtypes lacks.  Imports ml_dtypes for one of its types."""
    info = TYPES[DataType(code)]
    if not info.ml:
        return None if info.name is None else np.dtype(info.name)
    import ml_dtypes

    scalar_type = getattr(ml_dtypes, info.name, None)
    return None if scalar_type is None else np.dtype(scalar_type)


def _add_ml_dtypes() -> bool:
    """Put ml_dtypes' dtypes in ``_BY_DTYPE`` once ml_dtypes is imported (an array of one of
    its types cannot exist before); True when they are in."""
    global _ml_dtypes_added
    if not _ml_dtypes_added and "ml_dtypes" in sys.modules:
        for code in ML_TYPES:
            dtype = numpy_dtype(code)
            if dtype is not None:
                _BY_DTYPE[dtype] = code
        _ml_dtypes_added = True
    return _ml_dtypes_added


def datatype_of(dtype: Any) -> DataType | None:
    """The ONNX data type of a numpy dtype, byte order aside; None if it has none.

    Numpy strings (``'<U'``, ``'S'``) and object arrays are ONNX STRING.
    """
    dtype = np.dtype(dtype)
    if dtype.kind in "OUST":
        return DataType.STRING
    if not dtype.isnative:
        dtype = dtype.newbyteorder("=")
    code = _BY_DTYPE.get(dtype)
    if code is None and _add_ml_dtypes():
        code = _BY_DTYPE.get(dtype)
    return code


def describe_dtype(dtype: np.dtype) -> str:
    """``'int32 (tensor(int32))'``, or ``'float128 (no ONNX type)'``."""
    code = datatype_of(dtype)
    onnx_name = "no ONNX type" if code is None else type_string(code)
    plain = dtype.isnative and (dtype.kind not in "USTV" or code is not None and dtype.kind == "V")
    shown = dtype.name if plain or dtype.kind == "O" else dtype.str
    return f"{shown} ({onnx_name})"


def _kind(code: DataType) -> int:
    """The group of ``code`` in a list of types: floats, narrow floats, ints, uints, the rest."""
    name = code.name
    if name in ("BFLOAT16", "FLOAT16", "FLOAT", "DOUBLE"):
        return 0
    for kind, prefix in enumerate(("FLOAT", "INT", "UINT"), start=1):
        if name.startswith(prefix):
            return kind
    return 4


@functools.cache  # the compiled module's import builds a hundred such messages
def _allowed(types: frozenset[DataType]) -> str:
    """The types of a constraint, for the end of a message.

    BitwiseAnd's ``T`` (or part of it) on one line, in ONNX's order: the signed types, then
    the unsigned ones, narrowest first.  Larger sets (BitCast's 25-type ``T1`` and ``T2``)
    grouped: floats; 8-, 6- and 4-bit floats; signed ints; unsigned ints; the rest.
    Narrowest first within a group, a line per group after the first.
    """
    if types <= INTEGER_T:
        return ", ".join(type_string(t) for t in sorted(types, key=lambda t: (t.name.startswith("U"), TYPES[t].bits)))
    groups: dict[int, list[str]] = {}
    for code in sorted(types, key=lambda t: (TYPES[t].bits or 0, t.name)):
        groups.setdefault(_kind(code), []).append(type_string(code))
    lines = [
        textwrap.fill(
            ", ".join(group), width=96, initial_indent="    ", subsequent_indent="    ",
            break_long_words=False, break_on_hyphens=False,
        )
        for _, group in sorted(groups.items())
    ]
    return ",\n".join(lines).lstrip()


def _code_ranges(codes: list[int]) -> str:
    """``[1, 2, 3, 5]`` -> ``'1..3, 5'``."""
    runs: list[list[int]] = []
    for code in sorted(codes):
        if runs and code == runs[-1][1] + 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return ", ".join(str(a) if a == b else f"{a}..{b}" for a, b in runs)


# --------------------------------------------------------------------------
# BitCast


def resolve_to(to: Any) -> DataType:
    """Resolve BitCast's ``to`` into a :class:`DataType`, T2 or not.

    ``to`` may be an ONNX code (``6``, ``TensorProto.INT32``), a
    :class:`DataType`, a numpy / ml_dtypes dtype or scalar type, or a name:
    ONNX style first (``"FLOAT"`` is 32 bits, ``"tensor(float)"`` too), then
    numpy style (``"float8_e4m3fn"``, ``"f4"``), case-insensitive.  Raises
    :class:`UnknownDataTypeError` when ``to`` names no ONNX type and
    :class:`ArgumentTypeError` when it is of no such kind.
    """
    if isinstance(to, DataType):
        return to
    if isinstance(to, (bool, np.bool_)):
        raise ArgumentTypeError(
            f"{BITCAST}: attribute 'to' must be an ONNX data type (an int code, a "
            f"DataType, a dtype or a name), not the bool {to!r}"
        )
    if isinstance(to, (int, np.integer)):
        try:
            return DataType(int(to))
        except ValueError:
            *others, last = [f"{int(t)} {t.name}" for t in sorted(set(DataType) - BITCAST_T2)]
            raise UnknownDataTypeError(
                f"{BITCAST}: attribute 'to' = {int(to)} is not an ONNX data type code; "
                f"expected one of {_code_ranges(list(BITCAST_T2))} (the TensorProto.DataType "
                f"codes of T2; {', '.join(others)} and {last} are codes too, but not of T2)"
            ) from None
    if isinstance(to, str):
        return _resolve_name(to)
    try:
        dtype = np.dtype(to)
    except TypeError:
        raise ArgumentTypeError(
            f"{BITCAST}: attribute 'to' must be an ONNX data type (an int code, a "
            f"DataType, a dtype or a name), not {type(to).__name__} {to!r}"
        ) from None
    if to is None:
        raise ArgumentTypeError(
            f"{BITCAST}: attribute 'to' is required: an ONNX data type (an int code, a "
            f"DataType, a dtype or a name), not None"
        )
    code = datatype_of(dtype)
    if code is None:
        raise UnknownDataTypeError(
            f"{BITCAST}: attribute 'to' = dtype {dtype} has no ONNX data type; "
            f"expected one of {_allowed(BITCAST_T2)}"
        )
    return code


def _resolve_name(name: str) -> DataType:
    key = name.strip()
    if key.lower().startswith("tensor(") and key.endswith(")"):
        key = key[len("tensor(") : -1]
    if key.upper() in DataType.__members__:
        return DataType[key.upper()]
    code = _BY_NUMPY_NAME.get(key.lower())
    if code is not None:
        return code
    try:
        dtype = np.dtype(key)
    except TypeError:
        dtype = None
    code = None if dtype is None else datatype_of(dtype)
    if code is None:
        raise UnknownDataTypeError(
            f"{BITCAST}: attribute 'to' = {name!r} names no ONNX data type; expected "
            f"an ONNX name such as 'INT32' or 'FLOAT8E4M3FN' or a numpy name such as "
            f"'int32' or 'float8_e4m3fn'. T2 is {_allowed(BITCAST_T2)}"
        )
    return code


def check_bitcast(dtype: np.dtype, to: Any) -> tuple[DataType, DataType]:
    """Check BitCast's input dtype and ``to``; return their two ONNX types.

    The input must be in T1, ``to`` in T2 and their ONNX bit widths equal
    (int4 and float4e2m1: 4 bits; int2: 2 bits; bool: 8 bits), whatever
    numpy's itemsize says.
    """
    src = datatype_of(dtype)
    if src is None or src not in BITCAST_T1:
        raise TypeConstraintError(
            f"{BITCAST}: input 'input' has dtype {describe_dtype(dtype)}, which is not "
            f"in T1; expected one of {_allowed(BITCAST_T1)}"
        )
    return src, check_bitcast_to(src, to)


def bitcast_allowed(src: DataType, dst: DataType) -> bool:
    """BitCast-26 takes an input of type ``src`` (in T1) to ``dst``: ``dst`` is in T2 and of the
    same ONNX bit width."""
    return dst in BITCAST_T2 and TYPES[src].bits == TYPES[dst].bits


def check_bitcast_to(src: DataType, to: Any) -> DataType:
    """Check BitCast's ``to`` for an input of type ``src`` (in T1); return its ONNX type."""
    dst = resolve_to(to)
    if bitcast_allowed(src, dst):
        return dst
    if dst not in BITCAST_T2:
        raise TypeConstraintError(
            f"{BITCAST}: attribute 'to' = {dst.name} ({int(dst)}) is not in T2; "
            f"expected one of {_allowed(BITCAST_T2)}"
        )
    same = sorted(t for t in BITCAST_T2 if bitcast_allowed(src, t))
    raise BitWidthError(
        f"{BITCAST}: input 'input' is {type_string(src)} ({TYPES[src].bits} bits) but "
        f"'to' is {type_string(dst)} ({TYPES[dst].bits} bits); the widths must be "
        f"equal, so 'to' must be one of {', '.join(type_string(t) for t in same)}"
    )


# --------------------------------------------------------------------------
# Sub-byte types: the bits of an element, and ONNX's packed layout

PACK = "pack"
UNPACK = "unpack"

#: The sub-byte types: int4, uint4 and float4e2m1 (4 bits), int2 and uint2 (2 bits).
SUBBYTE_TYPES: frozenset[DataType] = frozenset(
    code for code in BITCAST_T1 if TYPES[code].bits is not None and TYPES[code].bits < 8
)
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
    int2 and uint2 from its low bits, float4e2m1 as negative when any high bit is set.  The
    bits of an element are the 4 or 2 bits of the value ml_dtypes reads from its byte.  They
    are found here from ml_dtypes itself: the bytes 0 .. 2**bits - 1 read as 2**bits distinct
    values (the bytes ml_dtypes writes, each the bits of its value), and every byte reads as
    one of them (the sign of a zero included).

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
    """Bytes that ``count`` elements of sub-byte type ``code`` take packed: ceil(count * bits / 8)."""
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


# --------------------------------------------------------------------------
# The integer operators: BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot, BitShift


def as_array(op: str, value: Any, name: str, allowed: frozenset[DataType]) -> np.ndarray:
    """``value`` as an ndarray (:func:`numpy.asarray` for array-likes), or a clear error."""
    if isinstance(value, np.ndarray):
        return value
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise ArgumentTypeError(
            f"{op}: input '{name}' cannot be read as an array ({exc}); "
            f"expected a numpy array of one of {_allowed(allowed)}"
        ) from None
    if array.dtype.kind == "O":
        raise ArgumentTypeError(
            f"{op}: input '{name}' ({type(value).__name__}) cannot be read as a numeric array; "
            f"expected a numpy array of one of {_allowed(allowed)}"
        )
    return array


def _int_operand(op: str, value: int, name: str, dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise ArgumentValueError(
            f"{op}: input '{name}' is the Python int {value}, outside the "
            f"range [{info.min}, {info.max}] of the other input's type "
            f"{type_string(datatype_of(dtype))}"
        )
    return np.asarray(value, dtype=dtype.newbyteorder("="))


def _is_python_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_operands(op: str, a: Any, b: Any) -> tuple[np.ndarray, np.ndarray, DataType]:
    """Check and convert the two operands of a binary integer operator (BitwiseAnd,
    BitwiseOr, BitwiseXor, BitShift); return them as arrays and their type.

    Both must have the same type in the operator's T.  A Python int takes the other
    operand's type (as numpy's NEP 50 does) and must fit in it.  Array-likes are read with
    :func:`numpy.asarray`; nothing is promoted.
    """
    allowed = TYPE_CONSTRAINT[op]
    name_a, name_b = INPUT_NAMES[op]
    if _is_python_int(a) and _is_python_int(b):
        raise TypeConstraintError(
            f"{op}: inputs '{name_a}' and '{name_b}' are both Python ints, so T is unknown; "
            f"expected at least one array of one of {_allowed(allowed)}"
        )
    if _is_python_int(a):
        b = as_array(op, b, name_b, allowed)
        code = _operand_types(op, (name_b, b), (name_b, b))
        return _int_operand(op, a, name_a, b.dtype), b, code
    if _is_python_int(b):
        a = as_array(op, a, name_a, allowed)
        code = _operand_types(op, (name_a, a), (name_a, a))
        return a, _int_operand(op, b, name_b, a.dtype), code
    a = as_array(op, a, name_a, allowed)
    b = as_array(op, b, name_b, allowed)
    return a, b, _operand_types(op, (name_a, a), (name_b, b))


def check_operand(op: str, x: Any) -> tuple[np.ndarray, DataType]:
    """Check and convert the operand of a unary integer operator (BitwiseNot)."""
    (name,) = INPUT_NAMES[op]
    x = as_array(op, x, name, TYPE_CONSTRAINT[op])
    return x, _operand_types(op, (name, x), (name, x))


def _operand_types(op: str, *operands: tuple[str, np.ndarray]) -> DataType:
    allowed = TYPE_CONSTRAINT[op]
    codes = []
    for name, array in operands:
        code = datatype_of(array.dtype)
        if code not in allowed:
            raise TypeConstraintError(
                f"{op}: input '{name}' has dtype {describe_dtype(array.dtype)}, "
                f"which is not in T; expected one of {_allowed(allowed)}"
            )
        codes.append(code)
    (name_a, _), (name_b, _) = operands
    if codes[0] != codes[1]:
        raise TypeConstraintError(
            f"{op}: inputs '{name_a}' and '{name_b}' must have the same type T, but '{name_a}' is "
            f"{type_string(codes[0])} and '{name_b}' is {type_string(codes[1])}; fastbits "
            f"does not promote (cast one of them first)"
        )
    return codes[0]


def check_direction(direction: Any) -> str:
    """BitShift's ``direction``: ``"LEFT"`` or ``"RIGHT"``, in any case; returned upper-case."""
    if isinstance(direction, bytes):  # onnx attributes may arrive as bytes
        try:
            direction = direction.decode("ascii")
        except UnicodeDecodeError:
            pass
    if isinstance(direction, str) and direction.strip().upper() in DIRECTIONS:
        return direction.strip().upper()
    raise ArgumentValueError(
        f"{BITSHIFT}: attribute 'direction' is {direction!r}; expected 'LEFT' or 'RIGHT' "
        f"(in any case)"
    )


def check_bitshift_version(version: int, code: DataType) -> None:
    """BitShift-11 (opsets 11 to 27) takes only unsigned types; BitShift-28 all eight."""
    if version < SINCE_VERSION[BITSHIFT] and code not in BITSHIFT_11_T:
        raise TypeConstraintError(
            f"{BITSHIFT}: input 'X' is {type_string(code)}, which BitShift-{version} does not "
            f"take (its T is {_allowed(BITSHIFT_11_T)}); signed types need BitShift-28 "
            f"(opset 28 or later)"
        )


def broadcast_shape(op: str, shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> tuple[int, ...]:
    """The multidirectional (numpy-style) broadcast of two shapes.

    Shapes are aligned at their last axis; two sizes agree when they are
    equal or one of them is 1.
    """
    names = INPUT_NAMES.get(op, ("A", "B"))
    ndim = max(len(shape_a), len(shape_b))
    padded_a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    padded_b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    result = []
    for size_a, size_b in zip(padded_a, padded_b):
        if size_a == size_b or size_b == 1:
            result.append(size_a)
        elif size_a == 1:
            result.append(size_b)
        else:
            raise BroadcastError(
                f"{op}: inputs '{names[0]}' with shape {tuple(shape_a)} and '{names[1]}' with shape "
                f"{tuple(shape_b)} do not broadcast (multidirectional broadcasting "
                f"needs each pair of trailing sizes to be equal or 1)"
            )
    return tuple(result)


def check_out(op: str, out: Any, shape: tuple[int, ...], code: DataType) -> np.ndarray:
    """Check an ``out=`` array: an ndarray of exactly ``shape`` and type ``code``, writeable.

    Any strides and either byte order are accepted.
    """
    if not isinstance(out, np.ndarray):
        raise ArgumentTypeError(
            f"{op}: 'out' must be a numpy.ndarray of shape {shape} and type "
            f"{type_string(code)}, not {type(out).__name__}"
        )
    if datatype_of(out.dtype) != code:
        raise TypeConstraintError(
            f"{op}: 'out' has dtype {describe_dtype(out.dtype)} but the result is "
            f"{type_string(code)}; expected an 'out' of that type"
        )
    if out.shape != tuple(shape):
        raise BroadcastError(
            f"{op}: 'out' has shape {out.shape} but the result has shape "
            f"{tuple(shape)}; expected exactly that shape"
        )
    if not out.flags.writeable:
        raise ArgumentValueError(f"{op}: 'out' is read-only; expected a writeable array")
    return out


def check_copy(op: str, copy: Any) -> bool:
    """``copy`` must be a bool (numpy bools too)."""
    if not isinstance(copy, (bool, np.bool_)):
        raise ArgumentTypeError(f"{op}: 'copy' must be True or False, not {copy!r}")
    return bool(copy)

def check_num_threads(n: Any, where: str = "set_num_threads: 'n'") -> int:
    """A thread count (``set_num_threads``, ``set_config(num_threads=...)``): a positive int.

    Not an int: :class:`ArgumentTypeError`; an int below 1: :class:`ArgumentValueError`.
    """
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise ArgumentTypeError(f"{where} must be a positive int, not {type(n).__name__} {n!r}")
    if n < 1:
        raise ArgumentValueError(f"{where} must be a positive int, not {n!r}")
    return int(n)


# --------------------------------------------------------------------------
# The public functions' arguments: one wording of a wrong call on both paths


class _Required:
    def __repr__(self) -> str:
        return "<required>"


#: The default the compiled functions give a positional parameter the caller must pass: they
#: check the count themselves (:func:`call_error`), where Cython's own message would differ
#: from Python's.
REQUIRED: Any = _Required()

#: Each public function's positional-only parameters and keyword-only ones (with defaults).
SIGNATURES: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "bitwise_and": (("a", "b"), {"out": None}),
    "bitwise_or": (("a", "b"), {"out": None}),
    "bitwise_xor": (("a", "b"), {"out": None}),
    "bitwise_not": (("x",), {"out": None}),
    "bitshift": (("x", "y", "direction"), {"out": None}),
    "bitcast": (("x", "to"), {"copy": False}),
    "pack": (("x",), {}),
    "unpack": (("data", "to", "shape"), {}),
    "get_num_threads": ((), {}),
    "set_num_threads": (("n",), {}),
}


def _signature(function: str) -> str:
    """``'bitshift(x, y, direction, /, *, out=None)'``."""
    names, options = SIGNATURES[function]
    parts = [*names, "/"] if names else []
    if options:
        parts += ["*", *(f"{name}={default!r}" for name, default in options.items())]
    return f"{function}({', '.join(parts)})"


def _names(names: Any) -> str:
    return ", ".join(repr(name) for name in names)


def call_error(function: str, args: tuple[Any, ...], keywords: dict[str, Any]) -> ArgumentTypeError:
    """The error of a call of ``function`` (a key of :data:`SIGNATURES`) that does not fit its
    signature: ``args`` the positional arguments (:data:`REQUIRED` where none was given),
    ``keywords`` the keyword arguments it does not take.  Both paths raise it."""
    names, _ = SIGNATURES[function]
    given = [arg for arg in args if arg is not REQUIRED]
    misplaced = [name for name in keywords if name in names]
    if misplaced:
        what = f"{_names(misplaced)} {'is' if len(misplaced) == 1 else 'are'} positional-only, not " + (
            "a keyword" if len(misplaced) == 1 else "keywords")
    elif keywords:
        what = f"unexpected keyword argument{'s' if len(keywords) > 1 else ''} {_names(keywords)}"
    elif len(given) < len(names):
        what = f"missing {_names(names[len(given):])}"
    else:
        what = f"{len(given)} positional argument{'s' if len(given) != 1 else ''} given, {len(names)} taken"
    return ArgumentTypeError(f"{function}: {what}; expected {_signature(function)}")


def out_of_memory(op: str, what: str, exc: BaseException) -> AllocationError:
    """The error of an array beside the result (a copy, a temporary) numpy could not allocate."""
    return AllocationError(f"{op}: {what} cannot be allocated ({exc})")


#: The operator a public function's errors name.
_OPERATORS = {
    "bitwise_and": BITWISE_AND,
    "bitwise_or": BITWISE_OR,
    "bitwise_xor": BITWISE_XOR,
    "bitwise_not": BITWISE_NOT,
    "bitshift": BITSHIFT,
    "bitcast": BITCAST,
}


def public_function(function: Any) -> Any:
    """A public function of the pure path, as the compiled path's behaves: a call that does not
    fit :data:`SIGNATURES` gets :func:`call_error`, word for word, and a MemoryError of numpy's
    is an :class:`AllocationError`."""
    name = function.__name__
    names, options = SIGNATURES[name]

    @functools.wraps(function)
    def checked(*args: Any, **keywords: Any) -> Any:
        if len(args) != len(names) or not keywords.keys() <= options.keys():
            unexpected = {key: value for key, value in keywords.items() if key not in options}
            raise call_error(name, args, unexpected)
        try:
            return function(*args, **keywords)
        except MemoryError as exc:
            if isinstance(exc, AllocationError):
                raise
            raise out_of_memory(_OPERATORS.get(name, name), "an array it works in", exc) from None

    return checked


def allocate(op: str, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A new C-contiguous result array, or :class:`AllocationError` when it cannot exist.

    A broadcast of stride-0 views can ask for more elements than memory (or
    than the address space) holds; numpy raises MemoryError or ValueError.
    """
    try:
        return np.empty(shape, dtype=dtype)
    except (MemoryError, ValueError):
        count = 1
        for size in shape:
            count *= size
        raise AllocationError(
            f"{op}: the result of shape {tuple(shape)} and type {type_string(datatype_of(dtype))} "
            f"needs {count * dtype.itemsize} bytes, which cannot be allocated"
        ) from None
