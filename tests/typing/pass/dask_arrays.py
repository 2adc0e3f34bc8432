"""A dask array in, a dask array out (never executed; checked where dask is installed)."""

from __future__ import annotations

import dask.array as da
import numpy as np
import numpy.typing as npt
from typing_extensions import assert_type

import fastbits


def lazy(x: da.Array, i8: npt.NDArray[np.int8], f32: npt.NDArray[np.float32]) -> None:
    assert_type(fastbits.bitwise_and(x, x), da.Array)
    assert_type(fastbits.bitwise_or(i8, x), da.Array)
    assert_type(fastbits.bitwise_not(x), da.Array)
    assert_type(fastbits.bitshift(x, 1, "LEFT"), da.Array)
    assert_type(fastbits.bitcast(x, "INT8", copy=True), da.Array)
    assert_type(fastbits.cast(x, "FLOAT"), da.Array)
    assert_type(fastbits.cast_like(x, i8), da.Array)
    assert_type(fastbits.quantize_linear(x, np.float32(1)), da.Array)
    assert_type(fastbits.quantize_linear(f32, x), da.Array)
    assert_type(fastbits.dequantize_linear(i8, np.float32(1), x), da.Array)
    assert_type(fastbits.dynamic_quantize_linear(x), tuple[da.Array, da.Array, da.Array])
    assert_type(fastbits.matmul_integer(x, i8), da.Array)
    assert_type(fastbits.matmul_integer(i8, x, i8), da.Array)
    assert_type(fastbits.qlinear_matmul(x, np.float32(1), i8, i8, np.float32(1), i8, np.float32(1), i8), da.Array)
    assert_type(fastbits.pack(x), da.Array)
    assert_type(fastbits.unpack(x, "int4", (4,)), da.Array)
