"""ONNX's data types: their codes, bit widths and the numpy / ml_dtypes dtypes that hold them.

ml_dtypes is imported only when a call needs one of its types (:func:`numpy_dtype`), and its
dtypes are recognised once it has been imported (:func:`datatype_of`).
"""

from __future__ import annotations

import enum
import functools
import sys
from typing import Any, NamedTuple

import numpy as np

__all__ = ["DataType", "ML_TYPES", "TYPES", "TypeInfo", "bit_width", "datatype_of", "numpy_dtype", "order_unit",
           "type_string"]


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


def order_unit(dtype: np.dtype) -> int:
    """The bytes ``dtype`` orders as one number (BitCast's byte order rule): its itemsize, or
    a complex part's."""
    return dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize
