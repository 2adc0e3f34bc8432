"""Every example of the two operator specs (BitwiseAnd-18, BitCast-26), as data.

``python -m fastbits`` runs them through the active path, and the tests run
each one under its own name.  BitCast examples carry the inputs and outputs
printed in the spec; BitwiseAnd examples draw their inputs as onnx's
``create_random_int`` does (``np.random.seed(1)`` before each input, values
in the int32-clipped range of the type) and expect ``np.bitwise_and``, which
is what the spec's code computes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .spec import BITCAST, BITWISE_AND


@dataclass(frozen=True)
class Example:
    """One named example: an operator, its inputs and attributes, and the expected output."""

    name: str
    op: str
    inputs: tuple[np.ndarray, ...]
    expected: np.ndarray
    attributes: dict[str, Any] = field(default_factory=dict)

    def run(self, bitwise_and: Callable[..., np.ndarray], bitcast: Callable[..., np.ndarray]) -> np.ndarray:
        """Run the example through the given kernels; return their output."""
        if self.op == BITWISE_AND:
            return bitwise_and(*self.inputs)
        return bitcast(*self.inputs, self.attributes["to"])

    def matches(self, result: np.ndarray) -> bool:
        """True when ``result`` has the expected dtype and shape and equals it.

        Integers must be equal exactly; floats as printed in the spec (which
        shows up to 8 decimals) to a relative 1e-8.
        """
        if result.dtype != self.expected.dtype or result.shape != self.expected.shape:
            return False
        if self.expected.dtype.kind == "f":
            return bool(np.allclose(result, self.expected, rtol=1e-8, atol=0.0))
        return bool(np.array_equal(result, self.expected))


def create_random_int(shape: tuple[int, ...], dtype: type, seed: int = 1) -> np.ndarray:
    """The inputs of onnx's ``create_random_int`` (onnx/numpy_helper.py), reproduced."""
    info = np.iinfo(dtype)
    start = max(info.min, np.iinfo(np.int32).min)
    end = min(info.max, np.iinfo(np.int32).max)
    return np.random.RandomState(seed).randint(start, end, size=shape).astype(dtype)


def _bitwise_and(name: str, shape_x: tuple[int, ...], shape_y: tuple[int, ...], dtype: type) -> Example:
    x = create_random_int(shape_x, dtype)
    y = create_random_int(shape_y, dtype)
    return Example(name, BITWISE_AND, (x, y), np.bitwise_and(x, y))


def _bitcast(name: str, x: Any, x_dtype: str, to: int, y: Any, y_dtype: str) -> Example:
    return Example(name, BITCAST, (np.array(x, dtype=x_dtype),), np.array(y, dtype=y_dtype), {"to": to})


EXAMPLES: tuple[Example, ...] = (
    # BitwiseAnd-18
    _bitwise_and("test_bitwise_and_i32_2d", (3, 4), (3, 4), np.int32),
    _bitwise_and("test_bitwise_and_i16_3d", (3, 4, 5), (3, 4, 5), np.int16),
    _bitwise_and("test_bitwise_and_ui64_bcast_3v1d", (3, 4, 5), (5,), np.uint64),
    _bitwise_and("test_bitwise_and_ui8_bcast_4v3d", (3, 4, 5, 6), (4, 5, 6), np.uint8),
    # BitCast-26
    _bitcast(
        "test_bitcast_2d_float32_to_int32",
        [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32", 6,
        [[1065353216, 1073741824, 1077936128], [1082130432, 1084227584, 1086324736]], "int32",
    ),
    _bitcast(
        "test_bitcast_bool_to_uint8",
        [True, False, True, False], "bool", 2, [1, 0, 1, 0], "uint8",
    ),
    _bitcast(
        "test_bitcast_float32_to_int32",
        [1.0, -2.5, 3.75], "float32", 6, [1065353216, -1071644672, 1081081856], "int32",
    ),
    _bitcast(
        "test_bitcast_float64_to_int64",
        [1.0, -2.5, 3.75], "float64", 7,
        [4607182418800017408, -4610560118520545280, 4615626668101337088], "int64",
    ),
    _bitcast(
        "test_bitcast_int32_to_float32",
        [1065353216, -1071644672, 1081081856], "int32", 1, [1.0, -2.5, 3.75], "float32",
    ),
    _bitcast(
        "test_bitcast_int64_to_float64",
        [4607182418800017408, -4611686018427387904, 4614256656552045184], "int64", 11,
        [1.0, -2.0, 3.14159265], "float64",
    ),
    _bitcast(
        "test_bitcast_int8_to_uint8",
        [-1, -128, 127, 0], "int8", 2, [255, 128, 127, 0], "uint8",
    ),
    _bitcast(
        "test_bitcast_scalar_float32_to_int32",
        1.0, "float32", 6, 1065353216, "int32",
    ),
    _bitcast(
        "test_bitcast_uint32_to_int32",
        [4294967295, 2147483648, 2147483647], "uint32", 6,
        [-1, -2147483648, 2147483647], "int32",
    ),
    _bitcast(
        "test_cc_bitcast_double_to_int64",
        [[0.0, 1.0], [-1.0, 3.14]], "float64", 7,
        [[0, 4607182418800017408], [-4616189618054758400, 4614253070214989087]], "int64",
    ),
    _bitcast(
        "test_cc_bitcast_float_to_int32",
        [0.0, 1.0, -1.0], "float32", 6, [0, 1065353216, -1082130432], "int32",
    ),
    _bitcast(
        "test_cc_bitcast_int32_to_float",
        [0, 1065353216, -1082130432], "int32", 1, [0.0, 1.0, -1.0], "float32",
    ),
    _bitcast(
        "test_cc_bitcast_uint16_to_int16",
        [0, 15360, 16384, 48128], "uint16", 5, [0, 15360, 16384, -17408], "int16",
    ),
    _bitcast(
        "test_cc_bitcast_uint8_to_int8",
        [[76, 180, 137, 31], [33, 128, 195, 17], [98, 158, 141, 62]], "uint8", 3,
        [[76, -76, -119, 31], [33, -128, -61, 17], [98, -98, -115, 62]], "int8",
    ),
)
