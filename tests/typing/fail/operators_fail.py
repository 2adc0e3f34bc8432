"""Calls the operators' types refuse (never executed): a marked line ends in the start of mypy's error."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

import fastbits

i8: npt.NDArray[np.int8] = np.zeros(4, np.int8)
u32: npt.NDArray[np.uint32] = np.zeros(4, np.uint32)
f32: npt.NDArray[np.float32] = np.zeros(4, np.float32)

fastbits.bitshift(u32, u32)  # E: No overload variant of "__call__" of "BitShiftOperator"
fastbits.bitshift(u32, u32, "UP")  # E: No overload variant of "__call__" of "BitShiftOperator"
fastbits.bitwise_and(i8, i8, out=3)  # E: No overload variant of "__call__" of "BinaryOperator"
fastbits.bitwise_not(i8, out=[0, 0, 0, 0])  # E: No overload variant of "__call__" of "UnaryOperator"
fastbits.bitwise_or(i8, i8, order="X")  # E: No overload variant of "__call__" of "BinaryOperator"
fastbits.bitwise_xor(i8)  # E: No overload variant of "__call__" of "BinaryOperator"
x: int = fastbits.bitwise_not(i8)  # E: Incompatible types in assignment (expression has type "ndarray[
y: npt.NDArray[np.int8] = fastbits.bitcast(f32, "INT32")  # E: Incompatible types in assignment
fastbits.bitcast(f32, "INT32", copy="yes")  # E: No overload variant of "__call__" of "BitCastOperator"
fastbits.cast(f32)  # E: No overload variant of "__call__" of "CastOperator"
fastbits.cast(f32, "INT8", round_mode="upward")  # E: No overload variant of "__call__" of "CastOperator"
fastbits.cast(f32, "INT8", saturate=2)  # E: No overload variant of "__call__" of "CastOperator"
fastbits.quantize_linear(f32, f32, axis="0")  # E: No overload variant of "__call__" of "QuantizeOperator"
fastbits.matmul_integer(i8, i8, axis=1)  # E: No overload variant of "__call__" of "MatMulIntegerOperator"
fastbits.qlinear_matmul(i8, f32, i8, i8)  # E: No overload variant of "__call__" of "QLinearMatMulOperator"
fastbits.unpack(b"\xe1\x07", "int4", 3)  # E: No overload variant of "__call__" of "UnpackFunction"
fastbits.unpack(b"\xe1\x07", "int4", "3")  # E: Argument 3 to "__call__" of "UnpackFunction" has incompatible type "str"
fastbits.unpack([225, 7], "int4", (3,))  # E: No overload variant of "__call__" of "UnpackFunction"
