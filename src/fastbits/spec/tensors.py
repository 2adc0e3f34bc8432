"""How a TensorProto stores each type's values (onnx.proto), for :mod:`fastbits.onnx_tensors`.

``raw_data`` holds every type but string as little-endian bytes, the 4-, 2- and 6-bit types in
the packed layout (:mod:`.subbyte`).  The typed fields hold them as onnx.proto says, and
:data:`FIELDS` writes it down: the field, how many entries a tensor of n values has, and the
range of each entry (where onnx.proto stores bits, the bits as an unsigned number; where it
stores values, the type's range).  onnx's own reader takes any entry and keeps its low bits;
fastbits refuses one out of range, for a model file is untrusted input.
"""

from __future__ import annotations

from typing import NamedTuple

from .types import DataType

__all__ = ["FIELDS", "Field"]


class Field(NamedTuple):
    """Where a type's values are in a TensorProto without raw_data."""

    name: str          # the repeated field
    per_entry: int     # values an entry holds: 1; 2 (4-bit types, packed bytes); 4 (2-bit)
    low: int | None    # each entry's range, or None for the float fields
    high: int | None


_BITS16 = Field("int32_data", 1, 0, 0xFFFF)
_BITS8 = Field("int32_data", 1, 0, 0xFF)

#: onnx.proto's storage of each type but string, when a tensor has no raw_data.
FIELDS: dict[DataType, Field] = {
    DataType.FLOAT: Field("float_data", 1, None, None),
    DataType.DOUBLE: Field("double_data", 1, None, None),
    DataType.COMPLEX64: Field("float_data", 1, None, None),     # two entries a value
    DataType.COMPLEX128: Field("double_data", 1, None, None),
    DataType.INT64: Field("int64_data", 1, -(2**63), 2**63 - 1),
    DataType.UINT64: Field("uint64_data", 1, 0, 2**64 - 1),
    DataType.UINT32: Field("uint64_data", 1, 0, 2**32 - 1),
    DataType.INT32: Field("int32_data", 1, -(2**31), 2**31 - 1),
    DataType.INT16: Field("int32_data", 1, -(2**15), 2**15 - 1),
    DataType.INT8: Field("int32_data", 1, -(2**7), 2**7 - 1),
    DataType.UINT16: _BITS16,
    DataType.UINT8: _BITS8,
    DataType.BOOL: Field("int32_data", 1, 0, 1),
    # the bits of the 16- and 8-bit floats
    DataType.FLOAT16: _BITS16,
    DataType.BFLOAT16: _BITS16,
    DataType.FLOAT8E4M3FN: _BITS8,
    DataType.FLOAT8E4M3FNUZ: _BITS8,
    DataType.FLOAT8E5M2: _BITS8,
    DataType.FLOAT8E5M2FNUZ: _BITS8,
    DataType.FLOAT8E8M0: _BITS8,
    # the sub-byte types: packed bytes (4 and 2 bits), one value an entry (6 bits)
    DataType.INT4: Field("int32_data", 2, 0, 0xFF),
    DataType.UINT4: Field("int32_data", 2, 0, 0xFF),
    DataType.FLOAT4E2M1: Field("int32_data", 2, 0, 0xFF),
    DataType.INT2: Field("int32_data", 4, 0, 0xFF),
    DataType.UINT2: Field("int32_data", 4, 0, 0xFF),
    DataType.FLOAT6E2M3: Field("int32_data", 1, 0, 0x3F),
    DataType.FLOAT6E3M2: Field("int32_data", 1, 0, 0x3F),
}
