"""The operators' types: what each call returns, as mypy --strict and pyright's strict mode read
it (never executed)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt
from typing_extensions import assert_type

import fastbits
from fastbits import DataType

i8: npt.NDArray[np.int8] = np.zeros(4, np.int8)
u32: npt.NDArray[np.uint32] = np.zeros(4, np.uint32)
f32: npt.NDArray[np.float32] = np.zeros(4, np.float32)
f16: npt.NDArray[np.float16] = np.zeros(4, np.float16)
out_i8: npt.NDArray[np.int8] = np.empty(4, np.int8)
# scalars declared, not inferred: some numpy stubs type a scalar's constructor loosely
six: np.uint32 = np.uint32(6)
zero_i8: np.int8 = np.int8(0)
zero_f16: np.float16 = np.float16(0)
scale: np.float32 = np.float32(0.5)

# the integer operators: the operands' dtype, a Python int or a numpy scalar beside an array
assert_type(fastbits.bitwise_and(i8, i8), npt.NDArray[np.int8])
assert_type(fastbits.bitwise_or(u32, 7), npt.NDArray[np.uint32])
assert_type(fastbits.bitwise_xor(255, u32), npt.NDArray[np.uint32])
assert_type(fastbits.bitwise_and(u32, six), npt.NDArray[np.uint32])
assert_type(fastbits.bitwise_not(i8), npt.NDArray[np.int8])
assert_type(fastbits.bitwise_not(i8, order="F"), npt.NDArray[np.int8])
assert_type(fastbits.bitshift(u32, u32, "LEFT"), npt.NDArray[np.uint32])
assert_type(fastbits.bitshift(i8, 2, "right"), npt.NDArray[np.int8])
assert_type(fastbits.bitshift(i8, 2, "right", order=None), npt.NDArray[np.int8])
# out: the result is out
assert_type(fastbits.bitwise_and(i8, i8, out=out_i8), npt.NDArray[np.int8])
assert_type(fastbits.bitwise_not(i8, out=out_i8), npt.NDArray[np.int8])
assert_type(fastbits.bitshift(i8, i8, "LEFT", out=out_i8, order="k"), npt.NDArray[np.int8])
# array-likes the types cannot follow: some integer array
assert_type(fastbits.bitwise_and([1, 2], [3, 4]), npt.NDArray[np.integer[Any]])
assert_type(fastbits.bitwise_not([1, 2]), npt.NDArray[np.integer[Any]])

# BitCast and Cast: numpy's own types by ONNX name, numpy name, DataType, code or scalar type
assert_type(fastbits.bitcast(f32, "INT32"), npt.NDArray[np.int32])
assert_type(fastbits.bitcast(f32, "uint32", copy=True), npt.NDArray[np.uint32])
assert_type(fastbits.bitcast(f32, DataType.INT32), npt.NDArray[np.int32])
assert_type(fastbits.bitcast(f32, 6), npt.NDArray[np.int32])
assert_type(fastbits.bitcast(f32, np.int32), npt.NDArray[np.int32])
assert_type(fastbits.bitcast(f32, np.dtype(np.uint32)), npt.NDArray[np.uint32])
assert_type(fastbits.bitcast(np.zeros(2, np.int64), "COMPLEX64"), npt.NDArray[np.complex64])
assert_type(fastbits.bitcast(f16, "bfloat16"), npt.NDArray[Any])
assert_type(fastbits.cast(i8, "FLOAT"), npt.NDArray[np.float32])
assert_type(fastbits.cast(i8, "float"), npt.NDArray[np.float32])
assert_type(fastbits.cast(i8, "float64"), npt.NDArray[np.float64])
assert_type(fastbits.cast(i8, "DOUBLE", saturate=False, round_mode="nearest"), npt.NDArray[np.float64])
assert_type(fastbits.cast(i8, DataType.FLOAT16, saturate=1), npt.NDArray[np.float16])
assert_type(fastbits.cast(i8, np.uint8, order="C"), npt.NDArray[np.uint8])
assert_type(fastbits.cast(f32, "FLOAT8E4M3FN"), npt.NDArray[Any])
f8: npt.NDArray[Any] = fastbits.cast(f32, ml_dtypes.float8_e4m3fn)  # ml_dtypes' types are Any to mypy
assert_type(fastbits.cast(f32, "INT8", out=out_i8), npt.NDArray[np.int8])
assert_type(fastbits.cast_like(f32, i8), npt.NDArray[np.int8])
assert_type(fastbits.cast_like(f32, zero_f16), npt.NDArray[np.float16])
assert_type(fastbits.cast_like(f32, i8, out=out_i8), npt.NDArray[np.int8])

# QuantizeLinear: the zero point's type, else uint8; DequantizeLinear: the scale's type
assert_type(fastbits.quantize_linear(f32, scale), npt.NDArray[np.uint8])
assert_type(fastbits.quantize_linear(f32, scale, zero_i8), npt.NDArray[np.int8])
assert_type(fastbits.quantize_linear(f32, scale, i8, axis=0, block_size=0, saturate=True), npt.NDArray[np.int8])
assert_type(fastbits.quantize_linear(f32, scale, output_dtype="INT4"), npt.NDArray[Any])
assert_type(fastbits.dequantize_linear(i8, scale), npt.NDArray[np.float32])
assert_type(fastbits.dequantize_linear(i8, f16, i8, axis=np.int64(0)), npt.NDArray[np.float16])
assert_type(fastbits.dequantize_linear(i8, scale, output_dtype="FLOAT16"), npt.NDArray[Any])

# DynamicQuantizeLinear: y, scale, zero point; MatMulInteger: int32
assert_type(fastbits.dynamic_quantize_linear(f32),
            tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32], npt.NDArray[np.uint8]])
assert_type(fastbits.matmul_integer(i8, i8), npt.NDArray[np.int32])
assert_type(fastbits.matmul_integer(i8, i8, zero_i8, None), npt.NDArray[np.int32])
# QLinearMatMul: the result zero point's type
assert_type(fastbits.qlinear_matmul(i8, scale, zero_i8, i8, scale, zero_i8, scale, zero_i8), npt.NDArray[np.int8])

# the packed layout
int4 = np.zeros(3, ml_dtypes.int4)
assert_type(fastbits.pack(int4), npt.NDArray[np.uint8])
assert_type(fastbits.unpack(b"\xe1\x07", "int4", (3,)), npt.NDArray[Any])
assert_type(fastbits.unpack(bytearray(2), DataType.INT4, [3]), npt.NDArray[Any])
assert_type(fastbits.unpack(memoryview(b"\x00"), 21, range(2)), npt.NDArray[Any])
assert_type(fastbits.unpack(np.zeros(2, np.uint8), ml_dtypes.int4, (np.int64(3),)), npt.NDArray[Any])
