"""Every example ``python -m fastbits`` checks, as data: one table of every operator.

* every example of the two operator specs (BitwiseAnd-18, BitCast-26);
* ONNX's node tests of BitwiseOr, BitwiseXor, BitwiseNot (opset 18) and BitShift (its 28
  node tests as BitShift-28, the 8 of unsigned types as BitShift-11 too), under their names;
* a pack / unpack round trip of each sub-byte type (the 6-bit floats too) against the bytes
  ONNX stores it as;
* Cast into each family of targets, the examples and table rows of Cast-28's doc and of onnx's
  pages on the narrow types (int4.md, float4.md, float6.md);
* QuantizeLinear and DequantizeLinear: onnx's node tests of the narrow types, one example of
  each granularity, and the cases where fastbits follows the text rather than onnx's reference;
* DynamicQuantizeLinear, MatMulInteger and QLinearMatMul: onnx's node tests, a per-row zero point
  of MatMulInteger, which the text allows and onnx's reference reads as per column, and a
  QLinearMatMul result just past a tie, where onnx's reference rounds the scales' quotient first.

The tests run each one under its own name.  BitCast, BitShift and pack examples carry
their inputs and outputs as literals.  The Bitwise examples draw their inputs as onnx's
``create_random_int`` does (``np.random.seed(1)`` before each input, values in the
int32-clipped range of the type) and expect numpy's function, which is what the spec's
and the node tests' code computes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import spec
from .spec import (BITCAST, BITSHIFT, BITWISE_AND, BITWISE_NOT, BITWISE_OR, BITWISE_XOR, CAST, DEQUANTIZE,
                   DYNAMIC_QUANTIZE, MATMUL_INTEGER, QLINEAR_MATMUL, QUANTIZE)

#: The round trip of a sub-byte type: ``pack``, then ``unpack`` back.
PACK_UNPACK = "pack/unpack"
#: The function of each operator, by its name in fastbits.
FUNCTIONS = {
    BITWISE_AND: "bitwise_and",
    BITWISE_OR: "bitwise_or",
    BITWISE_XOR: "bitwise_xor",
    BITWISE_NOT: "bitwise_not",
    BITSHIFT: "bitshift",
    BITCAST: "bitcast",
    CAST: "cast",
    QUANTIZE: "quantize_linear",
    DEQUANTIZE: "dequantize_linear",
    DYNAMIC_QUANTIZE: "dynamic_quantize_linear",
    MATMUL_INTEGER: "matmul_integer",
    QLINEAR_MATMUL: "qlinear_matmul",
    PACK_UNPACK: "pack",
}


@dataclass(frozen=True)
class Example:
    """One named example: an operator, its inputs and attributes, and the expected output."""

    name: str
    op: str
    inputs: tuple[np.ndarray, ...]
    expected: np.ndarray  # the first output (of an operator of several, DynamicQuantizeLinear's y)
    attributes: dict[str, Any] = field(default_factory=dict)
    #: The operator's version the example runs as, when it matters (BitShift-11 or -28).
    version: int | None = None
    #: The outputs after the first, of an operator that has several.
    more: tuple[np.ndarray, ...] = ()

    @property
    def outputs(self) -> tuple[np.ndarray, ...]:
        """Every expected output."""
        return (self.expected, *self.more)

    @property
    def group(self) -> str:
        """The operator as the table names it: ``BitwiseAnd``, ``BitShift-11``..."""
        return self.op if self.version is None else f"{self.op}-{self.version}"

    def run(self, kernels: Any) -> np.ndarray:
        """Run the example through ``kernels`` (``fastbits``, or a module with the operator's
        function); return the output."""
        function: Callable[..., Any] = getattr(kernels, FUNCTIONS[self.op])
        if self.op in (QUANTIZE, DEQUANTIZE):  # keyword-only attributes
            return function(*self.inputs, **self.attributes)
        if self.op == DYNAMIC_QUANTIZE:  # y first, then the scale and the zero point
            y, *more = function(*self.inputs)
            if not all(self._same(got, want) for got, want in zip(more, self.more, strict=True)):
                raise ValueError(f"the scale and zero point: got {more!r}")
            return y
        result = function(*self.inputs, *self.attributes.values())
        if self.op == BITSHIFT:
            spec.check_bitshift_version(self.version, spec.datatype_of(result.dtype))
        return result

    def failure(self, kernels: Any) -> str | None:
        """Run the example; None when it passes, else what went wrong.

        The output must match (:meth:`matches`); a BitCast output must cast back to the
        input bit for bit, and packed bytes must unpack to the input's elements.
        """
        result = self.run(kernels)
        if not self.matches(result):
            return f"got {result!r}"
        back = None
        if self.op == BITCAST:
            back = kernels.bitcast(result, self.inputs[0].dtype)
        elif self.op == PACK_UNPACK:
            back = kernels.unpack(result, self.inputs[0].dtype, self.inputs[0].shape)
        if back is not None and (back.dtype != self.inputs[0].dtype or back.tobytes() != self.inputs[0].tobytes()):
            return f"back: got {back!r}"
        return None

    def matches(self, result: np.ndarray) -> bool:
        """True when ``result`` has the expected dtype and shape and equals it.

        Integers must be equal exactly; floats as printed in the spec (which
        shows up to 8 decimals) to a relative 1e-8.
        """
        return self._same(result, self.expected)

    def _same(self, result: np.ndarray, expected: np.ndarray) -> bool:
        if result.dtype != expected.dtype or result.shape != expected.shape:
            return False
        if self.op in (CAST, QUANTIZE, DEQUANTIZE, DYNAMIC_QUANTIZE):  # bit for bit: a zero's sign, a NaN's code
            return result.tobytes() == expected.tobytes()
        if expected.dtype.kind == "f":
            return bool(np.allclose(result, expected, rtol=1e-8, atol=0.0))
        return bool(np.array_equal(result, expected))


def create_random_int(shape: tuple[int, ...], dtype: type, seed: int = 1) -> np.ndarray:
    """The inputs of onnx's ``create_random_int`` (onnx/numpy_helper.py), reproduced."""
    info = np.iinfo(dtype)
    start = max(info.min, np.iinfo(np.int32).min)
    end = min(info.max, np.iinfo(np.int32).max)
    return np.random.RandomState(seed).randint(start, end, size=shape).astype(dtype)


_NUMPY = {BITWISE_AND: np.bitwise_and, BITWISE_OR: np.bitwise_or, BITWISE_XOR: np.bitwise_xor}


def _bitwise(op: str, name: str, shape_x: tuple[int, ...], shape_y: tuple[int, ...], dtype: type) -> Example:
    x = create_random_int(shape_x, dtype)
    y = create_random_int(shape_y, dtype)
    return Example(name, op, (x, y), _NUMPY[op](x, y))


def _bitwise_not(name: str, shape: tuple[int, ...], dtype: type) -> Example:
    x = create_random_int(shape, dtype)
    return Example(name, BITWISE_NOT, (x,), np.bitwise_not(x))


def _bitcast(name: str, x: Any, x_dtype: str, to: int, y: Any, y_dtype: str) -> Example:
    return Example(name, BITCAST, (np.array(x, dtype=x_dtype),), np.array(y, dtype=y_dtype), {"to": to})


def _bitshift(name: str, dtype: str, x: list[int], y: list[int], direction: str, z: list[int]) -> tuple[Example, ...]:
    """The node test as BitShift-28, and as BitShift-11 too for an unsigned type."""
    inputs = (np.array(x, dtype), np.array(y, dtype))
    versions = (11, 28) if np.dtype(dtype).kind == "u" else (28,)
    return tuple(
        Example(name, BITSHIFT, inputs, np.array(z, dtype), {"direction": direction}, version)
        for version in versions
    )


def _pack(code: spec.DataType, values: list[float], packed: list[int]) -> Example:
    """``values`` of sub-byte type ``code`` pack into the bytes ``packed`` (the bytes
    ``onnx.numpy_helper.from_array`` puts in ``raw_data``) and unpack back."""
    x = np.array(values, spec.numpy_dtype(code))
    return Example(f"{code.name.lower()}_round_trip", PACK_UNPACK, (x,), np.array(packed, np.uint8))

def _cast(name: str, x: list[float], x_dtype: str, to: spec.DataType, y: list[float]) -> Example:
    """Cast of ``x`` to ``to``: ``y``, values ``to`` holds exactly (its bits from ml_dtypes)."""
    return Example(name, CAST, (np.array(x, x_dtype),), np.array(y, np.float64).astype(spec.numpy_dtype(to)),
                   {"to": int(to)})


def _quant(op: str, name: str, inputs: tuple[Any, ...], expected: Any, y_dtype: Any, **attributes: Any) -> Example:
    """QuantizeLinear or DequantizeLinear of ``inputs`` (arrays): ``expected``, values the
    result's type holds exactly."""
    y = np.array(expected, np.float64).astype(spec.numpy_dtype(spec.resolve_to(y_dtype)))
    return Example(name, op, tuple(np.asarray(x) for x in inputs), y, attributes)


def _narrow(values: list[float], code: spec.DataType) -> np.ndarray:
    return np.array(values, np.float64).astype(spec.numpy_dtype(code))


_BLOCKED_X = np.array([[6.0, 12.0, 50.0, 5.0], [-8.0, -7.0, 3.5, 1.0]], np.float32)


EXAMPLES: tuple[Example, ...] = (
    # BitwiseAnd-18
    _bitwise(BITWISE_AND, "test_bitwise_and_i32_2d", (3, 4), (3, 4), np.int32),
    _bitwise(BITWISE_AND, "test_bitwise_and_i16_3d", (3, 4, 5), (3, 4, 5), np.int16),
    _bitwise(BITWISE_AND, "test_bitwise_and_ui64_bcast_3v1d", (3, 4, 5), (5,), np.uint64),
    _bitwise(BITWISE_AND, "test_bitwise_and_ui8_bcast_4v3d", (3, 4, 5, 6), (4, 5, 6), np.uint8),
    # BitwiseOr-18, BitwiseXor-18, BitwiseNot-18: ONNX's node tests
    _bitwise(BITWISE_OR, "test_bitwise_or_i32_2d", (3, 4), (3, 4), np.int32),
    _bitwise(BITWISE_OR, "test_bitwise_or_i16_4d", (3, 4, 5, 6), (3, 4, 5, 6), np.int8),  # int8, as named
    _bitwise(BITWISE_OR, "test_bitwise_or_ui64_bcast_3v1d", (3, 4, 5), (5,), np.uint64),
    _bitwise(BITWISE_OR, "test_bitwise_or_ui8_bcast_4v3d", (3, 4, 5, 6), (4, 5, 6), np.uint8),
    _bitwise(BITWISE_XOR, "test_bitwise_xor_i32_2d", (3, 4), (3, 4), np.int32),
    _bitwise(BITWISE_XOR, "test_bitwise_xor_i16_3d", (3, 4, 5), (3, 4, 5), np.int16),
    _bitwise(BITWISE_XOR, "test_bitwise_xor_ui64_bcast_3v1d", (3, 4, 5), (5,), np.uint64),
    _bitwise(BITWISE_XOR, "test_bitwise_xor_ui8_bcast_4v3d", (3, 4, 5, 6), (4, 5, 6), np.uint8),
    _bitwise_not("test_bitwise_not_2d", (3, 4), np.int32),
    _bitwise_not("test_bitwise_not_3d", (3, 4, 5), np.uint16),
    _bitwise_not("test_bitwise_not_4d", (3, 4, 5, 6), np.uint8),
    # BitShift-28 and BitShift-11: ONNX's node tests
    *_bitshift("test_bitshift_right_uint8", "uint8", [16, 4, 1], [1, 2, 3], "RIGHT", [8, 1, 0]),
    *_bitshift("test_bitshift_right_uint16", "uint16", [16, 4, 1], [1, 2, 3], "RIGHT", [8, 1, 0]),
    *_bitshift("test_bitshift_right_uint32", "uint32", [16, 4, 1], [1, 2, 3], "RIGHT", [8, 1, 0]),
    *_bitshift("test_bitshift_right_uint64", "uint64", [16, 4, 1], [1, 2, 3], "RIGHT", [8, 1, 0]),
    *_bitshift("test_bitshift_left_uint8", "uint8", [16, 4, 1], [1, 2, 3], "LEFT", [32, 16, 8]),
    *_bitshift("test_bitshift_left_uint16", "uint16", [16, 4, 1], [1, 2, 3], "LEFT", [32, 16, 8]),
    *_bitshift("test_bitshift_left_uint32", "uint32", [16, 4, 1], [1, 2, 3], "LEFT", [32, 16, 8]),
    *_bitshift("test_bitshift_left_uint64", "uint64", [16, 4, 1], [1, 2, 3], "LEFT", [32, 16, 8]),
    *_bitshift("test_bitshift_right_int8", "int8", [16, 4, 1], [1, 2, 3], "RIGHT", [8, 1, 0]),
    *_bitshift("test_bitshift_right_int16", "int16", [16, 4, 1], [1, 2, 3], "RIGHT", [8, 1, 0]),
    *_bitshift("test_bitshift_right_int32", "int32", [16, 4, 1], [1, 2, 3], "RIGHT", [8, 1, 0]),
    *_bitshift("test_bitshift_right_int64", "int64", [16, 4, 1], [1, 2, 3], "RIGHT", [8, 1, 0]),
    *_bitshift("test_bitshift_left_int8", "int8", [16, 4, 1], [1, 2, 3], "LEFT", [32, 16, 8]),
    *_bitshift("test_bitshift_left_int16", "int16", [16, 4, 1], [1, 2, 3], "LEFT", [32, 16, 8]),
    *_bitshift("test_bitshift_left_int32", "int32", [16, 4, 1], [1, 2, 3], "LEFT", [32, 16, 8]),
    *_bitshift("test_bitshift_left_int64", "int64", [16, 4, 1], [1, 2, 3], "LEFT", [32, 16, 8]),
    *_bitshift("test_bitshift_right_int8_negative_input", "int8", [-8, -1, -128], [1, 1, 1], "RIGHT", [-4, -1, -64]),
    *_bitshift("test_bitshift_right_int32_negative_input", "int32", [-8, -1, -2147483648], [1, 1, 1], "RIGHT",
               [-4, -1, -1073741824]),
    *_bitshift("test_bitshift_left_int8_overflow", "int8", [64, 1, -64], [1, 7, 1], "LEFT", [-128, -128, -128]),
    *_bitshift("test_bitshift_left_int32_overflow", "int32", [1073741824, 1, -1073741824], [1, 31, 1], "LEFT",
               [-2147483648, -2147483648, -2147483648]),
    *_bitshift("test_bitshift_right_int8_shift_ge_width", "int8", [-8, 4, -1], [8, 9, 127], "RIGHT", [-1, 0, -1]),
    *_bitshift("test_bitshift_left_int8_shift_ge_width", "int8", [-8, 4, -1], [8, 9, 127], "LEFT", [0, 0, 0]),
    *_bitshift("test_bitshift_right_int32_shift_ge_width", "int32", [-8, 4, -1], [32, 33, 100], "RIGHT", [-1, 0, -1]),
    *_bitshift("test_bitshift_left_int32_shift_ge_width", "int32", [-8, 4, -1], [32, 33, 100], "LEFT", [0, 0, 0]),
    *_bitshift("test_bitshift_right_int8_negative_shift", "int8", [-8, 4, -1], [-1, -8, -16], "RIGHT", [-1, 0, -1]),
    *_bitshift("test_bitshift_left_int8_negative_shift", "int8", [-8, 4, -1], [-1, -8, -16], "LEFT", [0, 0, 0]),
    *_bitshift("test_bitshift_right_int32_negative_shift", "int32", [-8, 4, -1], [-1, -32, -64], "RIGHT", [-1, 0, -1]),
    *_bitshift("test_bitshift_left_int32_negative_shift", "int32", [-8, 4, -1], [-1, -32, -64], "LEFT", [0, 0, 0]),
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
    # ONNX's packed layout: every value of each sub-byte type, and an odd count (padding)
    _pack(spec.DataType.INT4, [-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 5],
          [152, 186, 220, 254, 16, 50, 84, 118, 5]),
    _pack(spec.DataType.UINT4, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 9],
          [16, 50, 84, 118, 152, 186, 220, 254, 9]),
    _pack(spec.DataType.FLOAT4E2M1,
          [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0, 3.0],
          [16, 50, 84, 118, 152, 186, 220, 254, 5]),
    _pack(spec.DataType.INT2, [-2, -1, 0, 1, 1, 0, -1], [78, 49]),
    _pack(spec.DataType.UINT2, [0, 1, 2, 3, 3, 2, 1], [228, 27]),
    # four 6-bit elements to three bytes: zeros, the smallest subnormal, one, the largest, each
    # signed, and a last group of one element (e2m3) or two (e3m2)
    _pack(spec.DataType.FLOAT6E2M3, [0.0, 0.125, 1.0, 7.5, -0.0, -0.875, -1.5, -7.5, 3.25],
          [64, 128, 124, 224, 201, 254, 21]),
    _pack(spec.DataType.FLOAT6E3M2, [0.0, 0.0625, 1.0, 28.0, -0.0, -0.1875, -3.5, -28.0, 0.25, 5.0],
          [64, 192, 124, 224, 56, 255, 68, 5]),
    # Cast: one example of each family of targets, from the texts
    _cast("int4.md: to nearest, ties to even", [1.5, 2.5, 3.5, -1.5, -2.5], "float32", spec.DataType.INT4,
          [2, 2, 4, -2, -2]),
    _cast("Cast: 200 (int16) is -56 (int8)", [200], "int16", spec.DataType.INT8, [-56]),
    _cast("Cast: float 8, saturated", [500.0, float("inf"), float("-inf"), 0.5, -0.0], "float32",
          spec.DataType.FLOAT8E4M3FN, [448.0, 448.0, -448.0, 0.5, -0.0]),
    _cast("float4.md: saturated, NaN to 6", [float("nan"), 7.0, -7.0, 2.5, -0.0], "float32",
          spec.DataType.FLOAT4E2M1, [6.0, 6.0, -6.0, 2.0, -0.0]),
    _cast("float6.md: E2M3", [25.0, -0.0, float("inf"), float("nan")], "float32", spec.DataType.FLOAT6E2M3,
          [7.5, 0.0, 7.5, 7.5]),
    _cast("float6.md: E3M2", [25.0, -0.0, float("inf"), float("nan")], "float32", spec.DataType.FLOAT6E3M2,
          [24.0, 0.0, 28.0, 28.0]),
    _cast("Cast: FLOAT8E8M0, saturate, up", [float("inf"), 3.0, 0.0], "float32", spec.DataType.FLOAT8E8M0,
          [2.0**127, 4.0, 2.0**-127]),
    _cast("Cast: float to float16, ties to even", [1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 1e5], "float64",
          spec.DataType.FLOAT16, [1.0, 1.0 + 2.0**-9, float("inf")]),
    # QuantizeLinear and DequantizeLinear: onnx's node tests, one example of each granularity
    _quant(DEQUANTIZE, "test_dequantizelinear", (np.array([0, 3, 128, 255], np.uint8), np.float32(2),
                                                 np.uint8(128)), [-256, -250, 0, 254], "float32"),
    _quant(DEQUANTIZE, "test_dequantizelinear_int4",
           (_narrow([0, 1, 7, -4, -8], spec.DataType.INT4), np.float32(2), _narrow([1], spec.DataType.INT4)),
           [-2, 0, 12, -10, -18], "float32", axis=0),
    _quant(QUANTIZE, "test_quantizelinear", (np.array([0, 2, 3, 1000, -254, -1000], np.float32), np.float32(2),
                                             np.uint8(128)), [128, 129, 130, 255, 1, 0], "uint8"),
    _quant(QUANTIZE, "per axis, saturated to uint8",
           (np.array([[-162, 10], [-100, 232], [-20, -50]], np.float32).reshape(1, 3, 2, 1),
            np.array([2, 4, 5], np.float32), np.array([84, 24, 196], np.uint8)),
           np.array([[3, 89], [-1, 82], [192, 186]]).clip(0, 255).reshape(1, 3, 2, 1), "uint8"),
    _quant(QUANTIZE, "blocked, a short last block",
           (_BLOCKED_X, np.array([[2.0, 0.5], [1.0, 4.0]], np.float32), _narrow([[1, 0], [-1, 2]], spec.DataType.INT4)),
           [[4, 7, 7, 7], [-8, -8, 3, 2]], "INT4", axis=1, block_size=3),
    _quant(QUANTIZE, "into float8e4m3fn, saturated", (np.array([0.0, 1.0, 2.0, 100000.0, 200.0], np.float32),
                                                    np.float32(2)), [0.0, 0.5, 1.0, 448.0, 96.0],
           "FLOAT8E4M3FN", output_dtype="FLOAT8E4M3FN"),
    # where fastbits follows the text, not onnx's reference
    _quant(DEQUANTIZE, "one rounding: int16 2049 x 1.5 into float16", (np.array([2049], np.int16), np.float16(1.5)),
           [3074.0], "float16"),
    _quant(QUANTIZE, "saturated: +inf into int8 is 127, NaN counts as 0",
           (np.array([np.inf, -np.inf, np.nan, 2.5], np.float32), np.float32(1), np.int8(3)), [127, -128, 3, 5], "int8"),
    # DynamicQuantizeLinear and MatMulInteger: onnx's node tests
    *(Example(name, DYNAMIC_QUANTIZE, (np.array(x, np.float32),), np.array(y, np.uint8), {}, None,
              (np.array(scale, np.float32), np.array(zero, np.uint8)))
      for name, x, y, scale, zero in (
          ("test_dynamicquantizelinear", [0, 2, -3, -2.5, 1.34, 0.5], [153, 255, 0, 26, 221, 179],
           np.float32(5) / np.float32(255), 153),
          ("test_dynamicquantizelinear_max_adjusted", [-1.0, -2.1, -1.3, -2.5, -3.34, -4.0],
           [191, 121, 172, 96, 42, 0], np.float32(4) / np.float32(255), 255),
          ("test_dynamicquantizelinear_min_adjusted",
           [[1, 2.1, 1.3, 2.5], [3.34, 4.0, 1.5, 2.6], [3.9, 4.0, 3.0, 2.345]],
           [[64, 134, 83, 159], [213, 255, 96, 166], [249, 255, 191, 149]], np.float32(4) / np.float32(255), 0))),
    Example("test_matmulinteger", MATMUL_INTEGER,
            (np.array([[11, 7, 3], [10, 6, 2], [9, 5, 1], [8, 4, 0]], np.uint8), np.array([[1, 4], [2, 5], [3, 6]], np.uint8),
             np.array([12], np.uint8), np.array([0], np.uint8)),
            np.array([[-38, -83], [-44, -98], [-50, -113], [-56, -128]], np.int32)),
    Example("MatMulInteger: a zero point per row of A", MATMUL_INTEGER,
            (np.array([[1, 2], [3, 4], [5, 6]], np.uint8), np.array([[1, 0], [0, 1]], np.uint8),
             np.array([1, 2, 3], np.uint8)),
            np.array([[0, 1], [1, 2], [2, 3]], np.int32)),
    # QLinearMatMul: onnx's node test, and a sum of 658 whose exact quotient is -71.5000018
    Example("test_qlinearmatmul_2D_uint8_float32", QLINEAR_MATMUL,
            (np.array([[208, 236, 0, 238], [3, 214, 255, 29]], np.uint8), np.array([0.0066], np.float32),
             np.array([113], np.uint8),
             np.array([[152, 51, 244], [60, 26, 255], [0, 127, 246], [127, 254, 247]], np.uint8),
             np.array([0.00705], np.float32), np.array([114], np.uint8), np.array([0.0107], np.float32),
             np.array([118], np.uint8)),
            np.array([[168, 115, 255], [1, 66, 151]], np.uint8)),
    Example("QLinearMatMul: the exact quotient rounded once (onnx's reference gives -71)", QLINEAR_MATMUL,
            (np.array([[127, 127, 127, 127, 127, 23]], np.int8), np.float32(float.fromhex("0x1.cb469ep-5")),
             np.int8(0), np.ones((6, 1), np.int8), np.float32(float.fromhex("0x1.8756c4p-4")), np.int8(0),
             np.float32(float.fromhex("-0x1.93d19ep-5")), np.int8(0)),
            np.array([[-72]], np.int8)),
)
