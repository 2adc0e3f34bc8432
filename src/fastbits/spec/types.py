"""ONNX's data types: one table of every fact about each (:data:`TYPES`), and the tables derived from it.

ml_dtypes is imported only when a call needs one of its types (:func:`numpy_dtype`), and its
dtypes are recognised once it has been imported (:func:`datatype_of`).
"""

from __future__ import annotations

import enum
import functools
import sys
from typing import Any, NamedTuple

import numpy as np

__all__ = ["DERIVED", "DataType", "Derived", "FLOAT_FORMATS", "FloatFormat", "INTEGER_RANGES", "KINDS", "ML_TYPES",
           "TYPES", "TypeInfo", "bit_width", "derive", "datatype_of", "numpy_dtype", "order_unit", "type_string"]


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


class FloatFormat(NamedTuple):
    """A binary float format as Cast writes it: ``ebits`` exponent and ``mbits`` mantissa bits
    after a sign bit, the exponent ``bias``, and what the codes beyond its finite values mean.
    onnx's pages on the narrow types (float8, float4, float6) give the bits, biases and maxima."""

    ebits: int
    mbits: int
    bias: int
    #: ``"ieee"``: the largest exponent holds the infinities and the NaNs; ``"fn"``: only NaN,
    #: the all-ones code of either sign (E4M3FN); ``"uz"``: one NaN, the code of -0 (the FNUZ
    #: types); ``None``: neither (float4, float6), where NaN and infinities saturate.
    special: str | None
    #: The largest finite value.
    max: float
    #: The format takes ``saturate``: the float 8 types (out of range and infinities go to
    #: the largest value, or to infinity or NaN with ``saturate=False``).
    saturable: bool = False
    #: A zero result keeps its sign.  The FNUZ types have no -0; float6.md casts -0 to 0.
    signed_zero: bool = True

    @property
    def min_exponent(self) -> int:
        """The exponent of the smallest normal value (subnormals share it)."""
        return 1 - self.bias


def _ieee(ebits: int, mbits: int) -> FloatFormat:
    bias = (1 << (ebits - 1)) - 1
    return FloatFormat(ebits, mbits, bias, "ieee", float((2 - 2.0**-mbits) * 2.0**bias))


#: The kinds of type: what a value of it is.
KINDS = ("integer", "float", "power of two", "bool", "complex", "string")


class TypeInfo(NamedTuple):
    """Everything fastbits knows of one ONNX data type: the one table the others derive from
    (:func:`derive`), the C side's included."""

    #: Width of one element in ONNX, in bits (None: no fixed width).
    bits: int | None
    #: The name of the numpy / ml_dtypes type that holds one element (one per byte for
    #: sub-byte types, as ``onnx.numpy_helper.to_array`` gives them), or None.
    name: str | None
    #: One of :data:`KINDS` (None: UNDEFINED).
    kind: str | None = None
    #: The type is ml_dtypes' (:func:`numpy_dtype` imports ml_dtypes for it).
    ml: bool = False
    #: An integer type's values are signed (two's complement).
    signed: bool = False
    #: A float type's format (the kind "float"): what Cast rounds to.
    format: FloatFormat | None = None
    #: The C conversions' number type (``fb_num`` in ``_c/numbers.h``, by its lower-case
    #: suffix): the types C reads as numbers ("f16": a float16, read natively, written by the
    #: format encoder), "small" for the 4- and 2-bit integers, "e8m0" for FLOAT8E8M0's powers
    #: of two (written by their own rule); None where C reads a table of a one-byte type's 256
    #: values and writes it by the format encoder.
    c_number: str | None = None
    #: The version of Cast from which the type is in its T1 and T2 (CastLike's too, from
    #: CastLike-15); None: Cast does not take it.
    cast_since: int | None = None

    @property
    def range(self) -> tuple[int, int] | None:
        """An integer type's smallest and largest value; None for the other kinds."""
        if self.kind != "integer" or self.bits is None:
            return None
        if self.signed:
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1


def _int(bits: int, signed: bool, since: int = 6) -> TypeInfo:
    name = f"{'' if signed else 'u'}int{bits}"
    c_number = "small" if bits < 8 else f"{'i' if signed else 'u'}{bits}"
    return TypeInfo(bits, name, "integer", ml=bits < 8, signed=signed, c_number=c_number, cast_since=since)


def _narrow_float(name: str, fmt: FloatFormat, since: int, bits: int = 8) -> TypeInfo:
    """One of ml_dtypes' floats of 8 bits or fewer."""
    return TypeInfo(bits, name, "float", ml=True, format=fmt, cast_since=since)


_D = DataType
#: Every ONNX data type's facts, by code.  A new type is one member of :class:`DataType` and
#: one entry here (and, past code 28, ``NUM_CODES`` in ``_common.pxd``: docs/design.md).
TYPES: dict[DataType, TypeInfo] = {
    _D.UNDEFINED: TypeInfo(None, None),
    _D.FLOAT: TypeInfo(32, "float32", "float", format=_ieee(8, 23), c_number="f32", cast_since=6),
    _D.UINT8: _int(8, False),
    _D.INT8: _int(8, True),
    _D.UINT16: _int(16, False),
    _D.INT16: _int(16, True),
    _D.INT32: _int(32, True),
    _D.INT64: _int(64, True),
    _D.STRING: TypeInfo(None, "object", "string"),
    _D.BOOL: TypeInfo(8, "bool", "bool", c_number="bool", cast_since=6),
    _D.FLOAT16: TypeInfo(16, "float16", "float", format=_ieee(5, 10), c_number="f16", cast_since=6),
    _D.DOUBLE: TypeInfo(64, "float64", "float", format=_ieee(11, 52), c_number="f64", cast_since=6),
    _D.UINT32: _int(32, False),
    _D.UINT64: _int(64, False),
    _D.COMPLEX64: TypeInfo(64, "complex64", "complex"),
    _D.COMPLEX128: TypeInfo(128, "complex128", "complex"),
    _D.BFLOAT16: TypeInfo(16, "bfloat16", "float", ml=True, format=_ieee(8, 7), c_number="bf16", cast_since=13),
    _D.FLOAT8E4M3FN: _narrow_float("float8_e4m3fn", FloatFormat(4, 3, 7, "fn", 448.0, saturable=True), 19),
    _D.FLOAT8E4M3FNUZ: _narrow_float("float8_e4m3fnuz",
                               FloatFormat(4, 3, 8, "uz", 240.0, saturable=True, signed_zero=False), 19),
    _D.FLOAT8E5M2: _narrow_float("float8_e5m2", FloatFormat(5, 2, 15, "ieee", 57344.0, saturable=True), 19),
    _D.FLOAT8E5M2FNUZ: _narrow_float("float8_e5m2fnuz",
                               FloatFormat(5, 2, 16, "uz", 57344.0, saturable=True, signed_zero=False), 19),
    _D.UINT4: _int(4, False, since=21),
    _D.INT4: _int(4, True, since=21),
    _D.FLOAT4E2M1: _narrow_float("float4_e2m1fn", FloatFormat(2, 1, 1, None, 6.0), 23, bits=4),
    # E8M0: powers of two 2**-127 ... 2**127 and NaN, no format Cast rounds to (_cast_py)
    _D.FLOAT8E8M0: TypeInfo(8, "float8_e8m0fnu", "power of two", ml=True, c_number="e8m0", cast_since=24),
    _D.UINT2: _int(2, False, since=25),
    _D.INT2: _int(2, True, since=25),
    _D.FLOAT6E2M3: _narrow_float("float6_e2m3fn", FloatFormat(2, 3, 1, None, 7.5, signed_zero=False), 28, bits=6),
    _D.FLOAT6E3M2: _narrow_float("float6_e3m2fn", FloatFormat(3, 2, 3, None, 28.0, signed_zero=False), 28, bits=6),
}
del _D


class Derived(NamedTuple):
    """The tables every other module reads, each derived from :data:`TYPES` (:func:`derive`)."""

    #: The types held by ml_dtypes' types: bfloat16, the 8-, 6-, 4- and 2-bit types.
    ml_types: frozenset[DataType]
    #: Each integer type's range (:attr:`TypeInfo.range`).
    integer_ranges: dict[DataType, tuple[int, int]]
    #: Each float type's format: every float Cast writes but FLOAT8E8M0 (powers of two).
    float_formats: dict[DataType, FloatFormat]
    #: The types of ONNX's packed layout (fewer than 8 bits).
    subbyte_types: frozenset[DataType]
    #: The types Cast takes, and the version of Cast each arrived in.
    cast_since: dict[DataType, int]


def derive(table: dict[Any, TypeInfo]) -> Derived:
    """The derived tables of a type table: :data:`TYPES`, or a test's table with a type more."""
    return Derived(
        ml_types=frozenset(code for code, info in table.items() if info.ml),
        integer_ranges={code: info.range for code, info in table.items() if info.range is not None},
        float_formats={code: info.format for code, info in table.items() if info.format is not None},
        subbyte_types=frozenset(code for code, info in table.items() if info.bits is not None and info.bits < 8),
        cast_since={code: info.cast_since for code, info in table.items() if info.cast_since is not None},
    )


DERIVED = derive(TYPES)
#: The types held by ml_dtypes' types: bfloat16, the 8-, 6-, 4- and 2-bit types.
ML_TYPES: frozenset[DataType] = DERIVED.ml_types
#: Each integer type's smallest and largest value: the eight of numpy and the 4- and 2-bit ones.
INTEGER_RANGES: dict[DataType, tuple[int, int]] = DERIVED.integer_ranges
#: Every float format Cast writes but FLOAT8E8M0, whose codes are powers of two (see
#: ``fastbits._cast_py``).
FLOAT_FORMATS: dict[DataType, FloatFormat] = DERIVED.float_formats


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


def order_unit(dtype: np.dtype) -> int:
    """The bytes ``dtype`` orders as one number (BitCast's byte order rule): its itemsize, or
    a complex part's."""
    return dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize
