"""The bad-input catalogue, as data: every class of wrong input and the error it gets.

Each row is ``(name, call, error class, pattern)``: ``call`` takes the operators' module
(``fastbits``, ``fastbits._ops_py`` or ``fastbits._ops_c``; for :data:`PACKING_CATALOGUE` the
packing modules) and raises, and the message must match ``pattern``.  tests/test_bad_inputs.py
runs every row on both paths; the docs' errors page runs each through fastbits for the error
and the message it shows (docs/_ext/generated_pages.py).  It lives in the package, beside
:mod:`fastbits._examples`, so that the docs build needs neither pytest nor hypothesis.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

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
     TypeConstraintError, r"^BitwiseAnd: input 'A' has dtype float32 \(tensor\(float\)\), which is not in T; expected one of "
     r"tensor\(int8\), tensor\(int16\), tensor\(int32\), tensor\(int64\), tensor\(uint8\), tensor\(uint16\), tensor\(uint32\), tensor\(uint64\)$"),
    ("mixed dtypes: int32 & int64", lambda o: o.bitwise_and(I32, I32.astype(np.int64)),
     TypeConstraintError, r"^BitwiseAnd: inputs 'A' and 'B' must have the same type T, but 'A' is tensor\(int32\) and 'B' is tensor\(int64\)"),
    ("bool into BitwiseAnd", lambda o: o.bitwise_and(np.ones(3, bool), np.ones(3, bool)),
     TypeConstraintError, r"^BitwiseAnd: input 'A' has dtype bool \(tensor\(bool\)\)"),
    ("float into BitwiseNot", lambda o: o.bitwise_not(I32.astype(np.float32)),
     TypeConstraintError, r"^BitwiseNot: input 'X' has dtype float32 \(tensor\(float\)\), which is not in T; expected one of "
     r"tensor\(int8\), tensor\(int16\), tensor\(int32\), tensor\(int64\), tensor\(uint8\), tensor\(uint16\), tensor\(uint32\), tensor\(uint64\)$"),
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
     TypeConstraintError, r"^BitCast: input 'input' has dtype float6_e2m3fn \(tensor\(float6e2m3\)\), which is not in T1: "
     r"BitCast-26's T1 and T2 are the tensor types of IR version 13, and the 6-bit floats came with IR version 14 "
     r"\(onnx 1\.23\); expected one of "),
    ("6-bit float as BitCast's to", lambda o: o.bitcast(U8, "FLOAT6E3M2"),
     TypeConstraintError, r"^BitCast: attribute 'to' = FLOAT6E3M2 \(28\) is not in T2: BitCast-26's T1 and T2 are the "
     r"tensor types of IR version 13"),
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
    ("thread count not an int", lambda o: o.set_num_threads("two"),
     ArgumentTypeError, r"^set_num_threads: 'n' must be a positive int, not str 'two'$"),
    ("thread count not an int in set_config", lambda o: fastbits.set_config(num_threads="two"),
     ArgumentTypeError, r"^set_config: 'num_threads' must be a positive int, not str 'two'$"),
    ("Cast to a type that does not exist", lambda o: o.cast(I32, "FLOAT9"),
     UnknownDataTypeError, r"^Cast: attribute 'to' = 'FLOAT9' names no ONNX data type; expected an ONNX name"),
    ("CastLike to a string type", lambda o: o.cast_like(I32, np.array(["a"])),
     TypeConstraintError, r"^CastLike: input 'target_type' is dtype <U1 \(tensor\(string\)\), which fastbits does not "
     r"cast"),
    ("QuantizeLinear: a scale the length of no axis", lambda o: o.quantize_linear(
        np.zeros((4, 6), np.float32), np.ones(5, np.float32), np.int8(0), axis=1),
     ArgumentValueError, r"^QuantizeLinear: input 'y_scale' has shape \(5,\); expected one scale \(shape \(\) or "
     r"\(1,\)\), or one per element of axis 1 \(shape \(6,\)\), or a 'block_size' for blocked quantization$"),
    ("DequantizeLinear: a zero point of another type", lambda o: o.dequantize_linear(
        np.zeros(3, np.int8), np.float32(1), np.uint8(0)),
     TypeConstraintError, r"^DequantizeLinear: input 'x_zero_point' is tensor\(uint8\) and input 'x' tensor\(int8\); "
     r"they must be of one type \(T1\)$"),
    ("DynamicQuantizeLinear: float64 input", lambda o: o.dynamic_quantize_linear(np.zeros(3)),
     TypeConstraintError, r"^DynamicQuantizeLinear: input 'x' has dtype float64 \(tensor\(double\)\), which is not "
     r"among its types; expected one of tensor\(float\)$"),
    ("MatMulInteger: operands that do not multiply", lambda o: o.matmul_integer(U8, U8),
     ArgumentValueError, r"^MatMulInteger: inputs 'A' of shape \(2, 3\) and 'B' of shape \(2, 3\) do not multiply: "
     r"A's last axis has 3 elements, B's second to last axis 2$"),
    ("MatMulInteger: a zero point of no row", lambda o: o.matmul_integer(U8, U8.T, np.zeros(3, np.uint8)),
     ArgumentValueError, r"^MatMulInteger: input 'a_zero_point' has shape \(3,\); expected one zero point "
     r"\(shape \(\) or \(1,\)\), or one per row of 'A' \(shape \(2,\) or \(2, 1\)\)$"),
    ("QLinearMatMul: a scale and its zero point of two shapes", lambda o: o.qlinear_matmul(
        U8, np.ones(2, np.float32), np.uint8(0), U8.T, np.float32(1), np.uint8(0), np.float32(1), np.uint8(0)),
     ArgumentValueError, r"^QLinearMatMul: inputs 'a_scale' and 'a_zero_point' have shapes \(2,\) and \(\); a scale "
     r"and its zero point must have one shape$"),
    ("QLinearMatMul: a result scale per column", lambda o: o.qlinear_matmul(
        U8, np.float32(1), np.uint8(0), U8.T, np.float32(1), np.uint8(0), np.ones(2, np.float32), np.uint8(0)),
     ArgumentValueError, r"^QLinearMatMul: input 'y_scale' has shape \(2,\); expected one value \(shape \(\) or "
     r"\(1,\)\): the result is quantized per tensor$"),
    ("thread count past the cap", lambda o: fastbits.set_num_threads(10**6),
     ArgumentValueError, r"^set_num_threads: 'n' must be a positive int of at most 256 \(the caller and 255 helpers: "
     r"the most one call uses\), not 1000000$"),
    ("thread count past the cap in config_context", lambda o: fastbits.config_context(num_threads=2**70).__enter__(),
     ArgumentValueError, r"^config_context: 'num_threads' must be a positive int of at most 256 .*, not 1180591620717411303424$"),
    ("task_threads past the cap", lambda o: fastbits.set_config(task_threads=10**9),
     ArgumentValueError, r"^set_config: 'task_threads' must be a positive int of at most 256 .*, not 1000000000$"),
    ("spin_time past its bound", lambda o: fastbits.set_config(spin_time=1e9),
     ArgumentValueError, r"^set_config: 'spin_time' must be at most 1 second, not 1000000000.0$"),
    ("positional-only argument by keyword", lambda o: o.bitshift(U8, 1, direction="LEFT"),
     ArgumentTypeError, r"^bitshift: 'direction' is positional-only, not a keyword; "
     r"expected bitshift\(x, y, direction, /, \*, out=None, order='K'\)$"),
    ("positional-only arguments by keyword", lambda o: o.bitwise_and(a=I32, b=I32),
     ArgumentTypeError, r"^bitwise_and: 'a', 'b' are positional-only, not keywords; "
     r"expected bitwise_and\(a, b, /, \*, out=None, order='K'\)$"),
    ("argument missing", lambda o: o.bitcast(I32),
     ArgumentTypeError, r"^bitcast: missing 'to'; expected bitcast\(x, to, /, \*, copy=False\)$"),
    ("too many arguments", lambda o: o.bitcast(I32, "float", True),
     ArgumentTypeError, r"^bitcast: 3 positional arguments given, 2 taken; expected bitcast\(x, to, /, \*, copy=False\)$"),
    ("unexpected keyword argument", lambda o: o.bitwise_not(I32, where=True),
     ArgumentTypeError, r"^bitwise_not: unexpected keyword argument 'where'; expected bitwise_not\(x, /, \*, out=None, order='K'\)$"),
    ("argument to get_num_threads", lambda o: o.get_num_threads(2),
     ArgumentTypeError, r"^get_num_threads: 1 positional argument given, 0 taken; expected get_num_threads\(\)$"),
]

#: The same for pack and unpack (the ``packing`` modules).
PACKING_CATALOGUE = [
    ("pack: not a sub-byte type", lambda p: p.pack(U8),
     TypeConstraintError, r"^pack: input 'x' has dtype uint8 \(tensor\(uint8\)\), which is not a sub-byte type"),
    ("pack: positional-only argument by keyword", lambda p: p.pack(x=np.zeros(2, ml_dtypes.int4)),
     ArgumentTypeError, r"^pack: 'x' is positional-only, not a keyword; expected pack\(x, /\)$"),
    ("unpack: shape not a sequence", lambda p: p.unpack(b"\x00", "int4", 2),
     ArgumentTypeError, r"^unpack: argument 'shape' must be a sequence of ints \(a tuple, a list\), not int 2$"),
    ("unpack: shape of floats", lambda p: p.unpack(b"\x00", "int4", [2.0]),
     ArgumentTypeError, r"^unpack: argument 'shape' must be a sequence of ints \(a tuple, a list\), but \(2.0,\) holds float 2.0$"),
    ("unpack: data of the wrong length", lambda p: p.unpack(b"\x00", "int4", [3]),
     ArgumentValueError, r"^unpack: input 'data' has 1 bytes, but shape \(3,\) of tensor\(int4\) packs into 2 bytes"),
    ("unpack: 6-bit data of the wrong length", lambda p: p.unpack(bytes(3), "FLOAT6E2M3", [5]),
     ArgumentValueError, r"^unpack: input 'data' has 3 bytes, but shape \(5,\) of tensor\(float6e2m3\) packs into 4 bytes"),
    ("unpack: argument missing", lambda p: p.unpack(b"\x00", "int4"),
     ArgumentTypeError, r"^unpack: missing 'shape'; expected unpack\(data, to, shape, /\)$"),
    ("unpack: positional-only argument by keyword", lambda p: p.unpack(b"\x00", "int4", shape=(2,)),
     ArgumentTypeError, r"^unpack: 'shape' is positional-only, not a keyword; expected unpack\(data, to, shape, /\)$"),
    ("unpack: result too large to allocate", lambda p: p.unpack(np.broadcast_to(np.zeros(1, np.uint8), (2**61,)), "int4", (2**62,)),
     AllocationError, r"^unpack: the result of shape \(4611686018427387904,\) and type tensor\(int4\) .* cannot be allocated"),
]
