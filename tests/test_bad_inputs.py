"""The bad-input catalogue: every class of wrong input and the error it gets, on every path.

README.md's "Bad-input catalogue" table lists the same rows, by the same names.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import fastbits
from fastbits import (
    AllocationError,
    ArgumentTypeError,
    ArgumentValueError,
    BitWidthError,
    BroadcastError,
    TypeConstraintError,
    UnknownDataTypeError,
)

I32 = np.arange(6, dtype=np.int32).reshape(2, 3)
U8 = np.arange(6, dtype=np.uint8).reshape(2, 3)
READ_ONLY = np.zeros((2, 3), np.int32)
READ_ONLY.flags.writeable = False
HUGE_COLUMN = np.broadcast_to(np.zeros(1, np.int8), (2**40, 1))
HUGE_ROW = np.broadcast_to(np.zeros(1, np.int8), (1, 2**40))

# name, call (ops -> result), error class, pattern the message must match
CATALOGUE = [
    ("wrong dtype: float into BitwiseAnd", lambda o: o.bitwise_and(I32.astype(np.float32), I32.astype(np.float32)),
     TypeConstraintError, r"^BitwiseAnd: input 'A' has dtype float32 \(tensor\(float\)\), which is not in T; expected one of tensor\(int16\)"),
    ("mixed dtypes: int32 & int64", lambda o: o.bitwise_and(I32, I32.astype(np.int64)),
     TypeConstraintError, r"^BitwiseAnd: inputs 'A' and 'B' must have the same type T, but 'A' is tensor\(int32\) and 'B' is tensor\(int64\)"),
    ("bool into BitwiseAnd", lambda o: o.bitwise_and(np.ones(3, bool), np.ones(3, bool)),
     TypeConstraintError, r"^BitwiseAnd: input 'A' has dtype bool \(tensor\(bool\)\)"),
    ("float into BitwiseNot", lambda o: o.bitwise_not(I32.astype(np.float32)),
     TypeConstraintError, r"^BitwiseNot: input 'X' has dtype float32 \(tensor\(float\)\), which is not in T; expected one of tensor\(int16\)"),
    ("mixed dtypes into BitShift: uint8 by uint32", lambda o: o.bitshift(U8, U8.astype(np.uint32), "LEFT"),
     TypeConstraintError, r"^BitShift: inputs 'X' and 'Y' must have the same type T, but 'X' is tensor\(uint8\) and 'Y' is tensor\(uint32\)"),
    ("bad BitShift direction", lambda o: o.bitshift(U8, U8, "UP"),
     ArgumentValueError, r"^BitShift: attribute 'direction' is 'UP'; expected 'LEFT' or 'RIGHT' \(in any case\)"),
    ("BitShift direction missing", lambda o: o.bitshift(U8, U8, None),
     ArgumentValueError, r"^BitShift: attribute 'direction' is None; expected 'LEFT' or 'RIGHT'"),
    ("negative Python int amount for an unsigned type", lambda o: o.bitshift(U8, -1, "RIGHT"),
     ArgumentValueError, r"^BitShift: input 'Y' is the Python int -1, outside the range \[0, 255\] of the other input's type tensor\(uint8\)"),
    ("Python bool operand", lambda o: o.bitwise_and(I32, True),
     TypeConstraintError, r"^BitwiseAnd: input 'B' has dtype bool"),
    ("float Python operand", lambda o: o.bitwise_and(I32, 1.5),
     TypeConstraintError, r"^BitwiseAnd: input 'B' has dtype float64 \(tensor\(double\)\)"),
    ("string array into BitwiseAnd", lambda o: o.bitwise_and(np.array(["a"]), np.array(["b"])),
     TypeConstraintError, rf"^BitwiseAnd: input 'A' has dtype {np.dtype('U1').str} \(tensor\(string\)\)"),
    ("string array into BitCast", lambda o: o.bitcast(np.array(["ab"]), "int64"),
     TypeConstraintError, rf"^BitCast: input 'input' has dtype {np.dtype('U2').str} \(tensor\(string\)\), which is not in T1"),
    ("object array into BitCast", lambda o: o.bitcast(np.array([1, "a"], object), "int64"),
     TypeConstraintError, r"^BitCast: input 'input' has dtype object \(tensor\(string\)\)"),
    ("non-ONNX dtype into BitCast (float128)", lambda o: o.bitcast(np.zeros(2, np.longdouble), "int64"),
     TypeConstraintError, r"^BitCast: input 'input' has dtype float128 \(no ONNX type\)"),
    ("6-bit float into BitCast", lambda o: o.bitcast(np.zeros(2, ml_dtypes.float6_e2m3fn), "uint8"),
     TypeConstraintError, r"^BitCast: input 'input' has dtype float6_e2m3fn \(tensor\(float6e2m3\)\), which is not in T1"),
    ("non-array input (object)", lambda o: o.bitwise_and(object(), I32),
     ArgumentTypeError, r"^BitwiseAnd: input 'A' \(object\) cannot be read as a numeric array"),
    ("non-array input (dict) into BitCast", lambda o: o.bitcast({"a": 1}, "int32"),
     ArgumentTypeError, r"^BitCast: input 'input' \(dict\) cannot be read as a numeric array"),
    ("ragged nested list", lambda o: o.bitwise_and([[1], [1, 2]], I32),
     ArgumentTypeError, r"^BitwiseAnd: input 'A' cannot be read as an array"),
    ("two Python ints", lambda o: o.bitwise_and(12, 10),
     TypeConstraintError, r"^BitwiseAnd: inputs 'A' and 'B' are both Python ints"),
    ("Python int out of range", lambda o: o.bitwise_and(I32.astype(np.uint8), 256),
     ArgumentValueError, r"^BitwiseAnd: input 'B' is the Python int 256, outside the range \[0, 255\]"),
    ("incompatible shapes", lambda o: o.bitwise_and(I32, np.zeros((3, 2), np.int32)),
     BroadcastError, r"^BitwiseAnd: inputs 'A' with shape \(2, 3\) and 'B' with shape \(3, 2\) do not broadcast"),
    ("out of wrong shape", lambda o: o.bitwise_and(I32, I32, out=np.zeros(6, np.int32)),
     BroadcastError, r"^BitwiseAnd: 'out' has shape \(6,\) but the result has shape \(2, 3\)"),
    ("out of wrong dtype", lambda o: o.bitwise_and(I32, I32, out=np.zeros((2, 3), np.int64)),
     TypeConstraintError, r"^BitwiseAnd: 'out' has dtype int64 \(tensor\(int64\)\) but the result is tensor\(int32\)"),
    ("read-only out", lambda o: o.bitwise_and(I32, I32, out=READ_ONLY),
     ArgumentValueError, r"^BitwiseAnd: 'out' is read-only"),
    ("out not an array", lambda o: o.bitwise_and(I32, I32, out=[0] * 6),
     ArgumentTypeError, r"^BitwiseAnd: 'out' must be a numpy.ndarray"),
    ("unknown to (code 29)", lambda o: o.bitcast(I32, 29),
     UnknownDataTypeError, r"^BitCast: attribute 'to' = 29 is not an ONNX data type code"),
    ("unknown to (name)", lambda o: o.bitcast(I32, "float128"),
     UnknownDataTypeError, r"^BitCast: attribute 'to' = 'float128' names no ONNX data type"),
    ("to of the wrong kind", lambda o: o.bitcast(I32, None),
     ArgumentTypeError, r"^BitCast: attribute 'to' is required"),
    ("to = STRING", lambda o: o.bitcast(I32, 8),
     TypeConstraintError, r"^BitCast: attribute 'to' = STRING \(8\) is not in T2"),
    ("to = UNDEFINED", lambda o: o.bitcast(I32, 0),
     TypeConstraintError, r"^BitCast: attribute 'to' = UNDEFINED \(0\) is not in T2"),
    ("width mismatch", lambda o: o.bitcast(I32, "int64"),
     BitWidthError, r"^BitCast: input 'input' is tensor\(int32\) \(32 bits\) but 'to' is tensor\(int64\) \(64 bits\)"),
    ("sub-byte width mismatch (int4 -> uint8)", lambda o: o.bitcast(np.zeros(2, ml_dtypes.int4), "uint8"),
     BitWidthError, r"^BitCast: input 'input' is tensor\(int4\) \(4 bits\) but 'to' is tensor\(uint8\) \(8 bits\)"),
    ("copy not a bool", lambda o: o.bitcast(I32, "float", copy="no"),
     ArgumentTypeError, r"^BitCast: 'copy' must be True or False"),
    ("huge broadcast that cannot be allocated", lambda o: o.bitwise_and(HUGE_COLUMN, HUGE_ROW),
     AllocationError, r"^BitwiseAnd: the result of shape \(1099511627776, 1099511627776\) and type tensor\(int8\) .* cannot be allocated"),
    ("huge result that cannot be allocated", lambda o: o.bitwise_and(HUGE_COLUMN, np.int8(1)),
     AllocationError, r"^BitwiseAnd: the result of shape \(1099511627776, 1\) .* cannot be allocated"),
    ("thread count not positive", lambda o: o.set_num_threads(0),
     ArgumentValueError, r"^set_num_threads: 'n' must be a positive int"),
]


@pytest.mark.parametrize("name, call, error, pattern", CATALOGUE, ids=[row[0] for row in CATALOGUE])
def test_bad_input(ops, name, call, error, pattern):
    with pytest.raises(error, match=pattern) as info:
        call(ops)
    assert isinstance(info.value, fastbits.FastbitsError)
    assert isinstance(info.value, (TypeError, ValueError))
