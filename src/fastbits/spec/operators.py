"""The operators fastbits implements: their names, since-versions, inputs and type constraints."""

from __future__ import annotations

from .types import DataType

__all__ = [
    "BITCAST", "BITCAST_T1", "BITCAST_T2", "BITSHIFT", "BITSHIFT_11_T", "BITSHIFT_T", "BITWISE_AND",
    "BITWISE_AND_T", "BITWISE_NOT", "BITWISE_OR", "BITWISE_XOR", "DIRECTIONS", "INPUT_NAMES", "INTEGER_T",
    "SINCE_VERSION", "TYPE_CONSTRAINT",
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
