"""QuantizeLinear-28 and DequantizeLinear-28 against an exact statement of their texts
(tests/support.py: dequantize_exact, quantize_exact, in Fractions and Python ints), on both
paths: every code of every one-byte and sub-byte input of DequantizeLinear under scales that
underflow, overflow, are negative, zero or NaN, into each result type, with and without zero
points; QuantizeLinear around the ties of every target, with each precision and scale type,
saturate on and off; the granularities (per tensor, per axis, blocked) against a loop that finds
each element's scale itself, in odd layouts; the paths against each other; and the errors."""

from __future__ import annotations

import functools
import re
from fractions import Fraction

import numpy as np
import pytest

import fastbits
from fastbits import DataType, spec
from support import (
    COMPILED, FLOAT_SPECS, INT_RANGES, NAN, PURE, dequantize_exact, exact_of_bits, exact_values, quantize_exact,
    quantize_precision, random_tensor,
)

D = DataType
FLOAT8 = [D.FLOAT8E4M3FN, D.FLOAT8E4M3FNUZ, D.FLOAT8E5M2, D.FLOAT8E5M2FNUZ]
#: DequantizeLinear-28's T1, T2 and T3.
DQ_X = [D.INT8, D.UINT8, D.INT16, D.UINT16, D.INT32, *FLOAT8, D.UINT4, D.INT4, D.FLOAT4E2M1, D.UINT2, D.INT2,
        D.FLOAT6E2M3, D.FLOAT6E3M2]
DQ_SCALE = [D.FLOAT, D.FLOAT16, D.BFLOAT16, D.FLOAT8E8M0]
DQ_Y = [D.FLOAT, D.FLOAT16, D.BFLOAT16]
#: QuantizeLinear-28's T1, T2 and T3, and its precisions.
QL_X = [D.FLOAT, D.FLOAT16, D.BFLOAT16, D.INT32]
QL_SCALE = [D.FLOAT, D.FLOAT16, D.BFLOAT16, D.INT32, D.FLOAT8E8M0]
QL_INT_Y = [D.INT8, D.UINT8, D.INT16, D.UINT16, D.UINT4, D.INT4, D.UINT2, D.INT2]
QL_FLOAT_Y = [*FLOAT8, D.FLOAT4E2M1, D.FLOAT6E2M3, D.FLOAT6E3M2]
QL_Y = QL_INT_Y + QL_FLOAT_Y
PRECISIONS = [D.FLOAT, D.FLOAT16, D.BFLOAT16, D.INT32]

#: The oracle, once per distinct element (both paths and repeated values share it).
dq_element = functools.cache(dequantize_exact)
ql_element = functools.cache(quantize_exact)


def name(code) -> str:
    return "None" if code is None else D(code).name


def dtype_of(code) -> np.dtype:
    return spec.numpy_dtype(code)


def from_codes(codes, code) -> np.ndarray:
    """The elements of type ``code`` whose codes (bit patterns) are ``codes``."""
    width = spec.bit_width(code)
    return np.array(codes, np.uint8 if width <= 8 else np.uint16).view(dtype_of(code))


def of_type(values, code) -> np.ndarray:
    """``values`` (Python numbers) in type ``code``: ints as they are, floats rounded by numpy /
    ml_dtypes; the tests read back what the array holds, whatever the rounding."""
    if code in INT_RANGES:
        return np.array(values, np.int64).astype(dtype_of(code))
    with np.errstate(over="ignore", invalid="ignore"):
        return np.array(values, np.float64).astype(dtype_of(code))


def every_code(code) -> np.ndarray:
    return from_codes(np.arange(1 << spec.bit_width(code)), code)


def zero_point_codes(code, count, seed=0) -> np.ndarray:
    """``count`` zero points of type ``code``: the codes 0, the top bit alone (-0, or a type's
    lowest or middle value), 1, all ones, then random ones."""
    width = spec.bit_width(code)
    if width > 8:
        low, high = INT_RANGES[code]
        base = [0, low, high, 1, -1 if low else 2]
        rng = np.random.default_rng(seed)
        return of_type((base + rng.integers(low, high, count, endpoint=True).tolist())[:count], code)
    rng = np.random.default_rng(seed)
    codes = [0, 1 << (width - 1), 1, (1 << width) - 1] + rng.integers(0, 1 << width, count).tolist()
    return from_codes(codes[:count], code)


# --------------------------------------------------------------------------
# the oracle, element by element, each finding its own scale


def _per_tensor(scale_shape, block) -> bool:
    return len(scale_shape) == 0 or (tuple(scale_shape) == (1,) and block == 0)


def scale_position(index, scale_shape, axis, block) -> int:
    """The flat (C order) position in the scale of the element at ``index`` of the input."""
    if _per_tensor(scale_shape, block):
        return 0
    if block == 0:
        return index[axis]
    at = index[:axis] + (index[axis] // block,) + index[axis + 1:]
    flat = 0
    for i, n in zip(at, scale_shape):
        flat = flat * n + i
    return flat


def element_inputs(x, scale, zero, axis=1, block=0):
    """``(x value, scale value, zero point value or None)`` of each element of ``x``, C order."""
    x, scale = np.asarray(x), np.asarray(scale)
    xs, ss = exact_values(x), exact_values(scale)
    zs = None if zero is None else exact_values(np.asarray(zero))
    axis = axis % x.ndim if x.ndim else 0
    out = []
    for flat, index in enumerate(np.ndindex(x.shape)):
        k = scale_position(index, scale.shape, axis, block)
        out.append((xs[flat], ss[k], None if zs is None else zs[k]))
    return out


def _contents(*arrays) -> tuple:
    """What identifies the values of ``arrays`` (None stays None)."""
    return tuple(None if a is None else (np.asarray(a).dtype, np.shape(a), np.ascontiguousarray(a).tobytes())
                 for a in arrays)


_EXPECTED: dict = {}  # the oracle's answer for a call's inputs: the two paths (and repeated calls) share it


def _expected(key, x, scale, zero, axis, block, element):
    """``(inputs, expected)`` for a call, once per distinct call: ``element(x, scale, zero)``
    of each element's inputs."""
    if key not in _EXPECTED:
        inputs = element_inputs(x, scale, zero, axis, block)
        _EXPECTED[key] = inputs, [element(v, s, z) for v, s, z in inputs]
    return _EXPECTED[key]


def dq_expected(x, scale, zero, dst, axis=1, block=0):
    key = ("dq", _contents(x, scale, zero), dst, axis, block)
    return _expected(key, x, scale, zero, axis, block, lambda v, s, z: dq_element(v, z, s, dst))


def ql_expected(x, scale, zero, precision, dst, saturate=True, axis=1, block=0):
    key = ("ql", _contents(x, scale, zero), precision, dst, saturate, axis, block)
    return _expected(key, x, scale, zero, axis, block,
                     lambda v, s, z: ql_element(v, s, z, precision, dst, saturate))


_WANTED: dict = {}


def _wanted(expected: list, dst) -> np.ndarray:
    """``expected`` as an array to compare with: int64, or float64 (each value exact)."""
    key = id(expected)
    if key not in _WANTED:
        _WANTED[key] = (expected, np.array(expected, np.int64) if dst in INT_RANGES else
                        np.array([as_float(v) for v in expected], np.float64))
    return _WANTED[key][1]


@functools.cache
def as_float(value) -> float:
    """An exact (sign, Fraction | NAN | "inf") of a type that float64 holds, as a float64."""
    sign, q = value
    if q == NAN:
        return float("nan")
    f = float("inf") if q == "inf" else float(q)
    assert q == "inf" or Fraction(f) == q, value
    return -f if sign else f


def show(value) -> str:
    if isinstance(value, int) or value is None:
        return repr(value)
    sign, q = value
    return ("-" if sign else "+") + (str(q) if q in (NAN, "inf") else f"{q} (~{float(q):.6g})")


def check_result(got, x_shape, dst, inputs, expected, context) -> None:
    """``got`` is a new native ndarray of ``x_shape`` and type ``dst`` holding ``expected``: NaN
    where NaN (of any sign), else each value with its sign of zero."""
    assert isinstance(got, np.ndarray), context
    assert got.dtype == dtype_of(dst) and got.dtype.isnative, (context, got.dtype)
    assert got.shape == tuple(x_shape), (context, got.shape)
    want = _wanted(expected, dst)
    if dst in INT_RANGES:
        bad = np.flatnonzero(got.astype(np.int64).reshape(-1) != want).tolist()
    else:
        flat = got.astype(np.float64).reshape(-1)
        ok = (np.isnan(flat) & np.isnan(want)) | ((flat == want) & (np.signbit(flat) == np.signbit(want)))
        bad = np.flatnonzero(~ok).tolist()
    if bad:
        shown = got.astype(np.int64).reshape(-1).tolist() if dst in INT_RANGES else exact_values(got)
        rows = [f"  x={show(inputs[i][0])} scale={show(inputs[i][1])} zp={show(inputs[i][2])}: "
                f"expected {show(expected[i])}, got {show(shown[i])}" for i in bad[:12]]
        raise AssertionError(f"{context}: {len(bad)} of {len(expected)} elements differ\n" + "\n".join(rows))


def run_dq(ops, x, scale, zero=None, output_dtype=None, axis=1, block=0, context=""):
    """Call DequantizeLinear and hold the result to the oracle."""
    dst = output_dtype or spec.datatype_of(np.asarray(scale).dtype)
    args = (x, scale) if zero is None else (x, scale, zero)
    got = ops.dequantize_linear(*args, axis=axis, block_size=block, output_dtype=output_dtype)
    inputs, expected = dq_expected(x, scale, zero, D(dst), axis, block)
    check_result(got, np.shape(x), D(dst), inputs, expected,
                 f"DequantizeLinear {context} output_dtype={name(output_dtype)} axis={axis} block={block}")
    return got


def run_ql(ops, x, scale, zero=None, output_dtype=None, saturate=True, precision=None, axis=1, block=0,
           context=""):
    """Call QuantizeLinear and hold the result to the oracle."""
    if output_dtype:
        dst = D(output_dtype)
    elif zero is not None:
        dst = spec.datatype_of(np.asarray(zero).dtype)
    else:
        dst = D.UINT8
    p = quantize_precision(spec.datatype_of(np.asarray(scale).dtype), precision)
    args = (x, scale) if zero is None else (x, scale, zero)
    got = ops.quantize_linear(*args, axis=axis, block_size=block, output_dtype=output_dtype, saturate=saturate,
                              precision=precision)
    inputs, expected = ql_expected(x, scale, zero, p, dst, saturate, axis, block)
    check_result(got, np.shape(x), dst, inputs, expected,
                 f"QuantizeLinear {context} -> {dst.name} precision={name(precision)} (P={p.name}) "
                 f"saturate={saturate} axis={axis} block={block}")
    return got


# --------------------------------------------------------------------------
# the oracle on its own: the cases the semantics spell out


def test_the_oracle_states_the_spelled_out_cases():
    f16 = D.FLOAT16
    assert dequantize_exact(2049, None, (0, Fraction(3, 2)), f16) == (0, Fraction(3074))  # the issue's example
    assert dequantize_exact(0, None, (1, Fraction(3, 2)), D.FLOAT) == (1, 0)  # 0 * negative scale: -0
    assert dequantize_exact((1, Fraction(0)), (0, Fraction(0)), (0, Fraction(1)), D.FLOAT) == (1, 0)
    assert dequantize_exact((0, Fraction(0)), (0, Fraction(0)), (0, Fraction(1)), D.FLOAT) == (0, 0)
    assert dequantize_exact((0, "inf"), None, (0, Fraction(0)), D.FLOAT)[1] == NAN
    assert dequantize_exact(1000, None, (0, Fraction(100)), f16) == (0, "inf")
    # QuantizeLinear: ties to even, +inf to the top of int8 (the text, not onnx's reference), NaN as 0
    assert [quantize_exact((0, Fraction(k, 2)), (0, Fraction(1)), None, D.FLOAT, D.INT8) for k in (1, 3, 5)] \
        == [0, 2, 2]
    assert quantize_exact((0, "inf"), (0, Fraction(1)), None, D.FLOAT, D.INT8) == 127
    assert quantize_exact((0, NAN), (0, Fraction(1)), 7, D.FLOAT, D.INT8) == 7
    assert quantize_exact((0, Fraction(1)), (0, Fraction(0)), None, D.FLOAT, D.UINT8) == 255
    # float16 precision rounds x first: 2049 -> 2048
    assert quantize_exact((0, Fraction(2049)), (0, Fraction(1)), None, D.FLOAT16, D.INT16) == 2048
    # INT32 precision rounds x and the scale half to even, then the quotient
    assert quantize_exact((0, Fraction(5, 2)), (0, Fraction(5, 2)), None, D.INT32, D.INT8) == 1
    assert quantize_exact(7, 2, None, D.INT32, D.INT8) == 4 and quantize_exact(5, 2, None, D.INT32, D.INT8) == 2
    assert quantize_exact(5, 0, None, D.INT32, D.INT8) == 127 and quantize_exact(0, 0, 3, D.INT32, D.INT8) == 3
    # a float target: q + zero point exactly, then Cast's rounding and saturation
    assert quantize_exact((0, Fraction(1000)), (0, Fraction(1)), None, D.FLOAT, D.FLOAT8E4M3FN) == (0, 448)
    assert quantize_exact((0, Fraction(1000)), (0, Fraction(1)), None, D.FLOAT, D.FLOAT8E4M3FN, False)[1] == NAN
    assert quantize_exact((0, NAN), (0, Fraction(1)), None, D.FLOAT, D.FLOAT4E2M1) == (0, 6)


# --------------------------------------------------------------------------
# DequantizeLinear: every code of the narrow inputs, values of the wide ones


#: Scales of each type (floats; FLOAT8E8M0 as codes): 1, negative, ±0, ones that give subnormal
#: results, ones that overflow float16 (and float32), inexact ones, and inf / NaN.
DQ_SCALES = {
    D.FLOAT: [1.0, -1.5, 0.0, -0.0, 2.0**-140, 3e38, 1000.0, 1 / 3, 0.7, float("inf"), float("nan")],
    D.FLOAT16: [1.5, -0.25, 0.0, 2.0**-24, 65504.0, -(2.0**-14), 0.1, float("inf"), float("nan")],
    D.BFLOAT16: [1.5, -3.0, 2.0**-133, 3e38, -0.0, 1 / 3, 0.0, 2.0**100],
    D.FLOAT8E8M0: [0, 1, 100, 127, 128, 140, 254, 255],  # 2**-127, 2**-126, 2**-27, 1, 2, 2**13, 2**127, NaN
}


def dq_scales(code) -> np.ndarray:
    values = DQ_SCALES[code]
    return from_codes(values, code) if code == D.FLOAT8E8M0 else of_type(values, code)


def dq_inputs(code, seed=0) -> np.ndarray:
    """Every code of a type of 8 bits or fewer; for the wider integers, their extremes, small
    values and random ones."""
    if spec.bit_width(code) <= 8:
        return every_code(code)
    low, high = INT_RANGES[code]
    edges = [low, low + 1, high - 1, high, 0, 1, -1, 2, 2049, -2049, 3, 4097, 1 << 24 | 1, -(1 << 24) - 3]
    edges = [v for v in edges if low <= v <= high]
    rng = np.random.default_rng(seed)
    return of_type(edges + rng.integers(low, high, 150, endpoint=True).tolist(), code)


@pytest.mark.parametrize("scale_type", DQ_SCALE, ids=name)
@pytest.mark.parametrize("x_type", DQ_X, ids=name)
def test_dequantize_every_code_every_scale_every_result(ops, x_type, scale_type):
    """Per axis (axis 1): column j of x holds every code (or the wide ints' values) under scale j,
    with zero point j of x's type; each result type, and the scale's own (no output_dtype)."""
    codes = dq_inputs(x_type, seed=int(x_type))
    scales = dq_scales(scale_type)
    x = np.repeat(codes[:, None], len(scales), axis=1)
    zero = zero_point_codes(x_type, len(scales), seed=int(x_type) * 31 + int(scale_type))
    outputs = DQ_Y if scale_type == D.FLOAT8E8M0 else [None, *DQ_Y]
    for output_dtype in outputs:
        for zp in (None, zero):
            run_dq(ops, x, scales, zp, output_dtype, axis=1,
                   context=f"x {x_type.name}, scale {scale_type.name}, zp {'given' if zp is not None else 'none'}")


def _near_ties(scale=1 / 3) -> np.ndarray:
    """int32 values x whose exact product with the float32 ``scale`` has 54 to 56 bits and
    lies just above or just below a tie of float32's rounding, by less than its 4 lowest bits:
    a product cut or rounded to nearest at 53 bits, or rounded to odd without those bits or
    toward the wrong side, rounds it the wrong way.  (No such x exists for float16 and bfloat16
    results: the 2**45 and more below their ties would have to be zeros but for the last 4
    bits.)"""
    m = Fraction(float(np.float32(scale))).numerator  # the scale's odd significand
    assert m % 2 == 1
    kept = 24  # float32's significant bits
    values = []
    for bits in (54, 55, 56):
        mod = 1 << (bits - kept)
        for extra in (1, 2, 3, 15, -1, -2, -3, -15):
            # the d below 2**31 whose product's low bits are the tie's plus extra
            for d in range((mod // 2 + extra) * pow(m, -1, mod) % mod, 2**31, mod):
                if (d * m).bit_length() == bits:
                    assert (d * m) % mod == mod // 2 + extra
                    values += [d, -d]
    assert len(values) >= 6
    return np.array(values, np.int32)


@pytest.mark.parametrize("output_dtype", DQ_Y, ids=name)
def test_dequantize_int32_per_tensor_every_scale(ops, output_dtype):
    """int32 with one scale for the whole input (contiguous, and every second element), each
    float32 scale of DQ_SCALES, a zero point at either end of int32 or none: products past
    2**53, which a double alone would round twice, subnormal and overflowing results, signs of
    zero, each rounded once from the exact product."""
    ties = np.concatenate([_near_ties(1 / 3), _near_ties(0.7)])
    x = np.concatenate([ties, dq_inputs(D.INT32, seed=3), ties])  # in vectors and in the tail
    pairs = np.stack([x, x[::-1]], axis=1)
    for s in DQ_SCALES[D.FLOAT]:
        scale = np.array(s, np.float32)
        for zero in (None, np.int32(-(2**31)), np.int32(2**31 - 1), np.int32(7)):
            for layout, values in (("contiguous", x), ("strided", pairs[:, 1])):
                run_dq(ops, values, scale, zero, output_dtype, axis=0,
                       context=f"{layout}, scale {s}, zp {None if zero is None else int(zero)}")


def test_dequantize_the_issues_example(ops):
    got = ops.dequantize_linear(np.array([2049], np.int16), np.array(1.5, np.float16))
    assert got.dtype == np.float16 and got.tolist() == [3074.0]
    got = ops.dequantize_linear(np.array([2049], np.int16), np.array(1.5, np.float16), output_dtype=D.FLOAT)
    assert got.dtype == np.float32 and got.tolist() == [3073.5]


def test_dequantize_signs_of_zero(ops):
    """(x - zp) is an IEEE subtraction, the product's sign the XOR of the signs."""
    f8 = D.FLOAT8E4M3FN
    x = of_type([0.0, -0.0, -0.0, 0.0, 1.0, 1.0], f8)
    zp = of_type([0.0, 0.0, -0.0, -0.0, 1.0, 1.0], f8)
    for s, signs in ((1.0, [0, 1, 0, 0, 0, 0]), (-2.0, [1, 0, 1, 1, 1, 1])):
        for i in range(len(x)):
            got = ops.dequantize_linear(x[i:i + 1], np.array(s, np.float32), zp[i:i + 1].reshape(()))
            assert got.tolist() == [0.0] and int(np.signbit(got[0])) == signs[i], (x[i], zp[i], s)
    got = ops.dequantize_linear(np.array([0, 5, 0], np.int8), np.array(-1.5, np.float32),
                                np.array(0, np.int8))
    assert np.signbit(got).tolist() == [True, True, True]
    got = ops.dequantize_linear(np.array([0, 3], np.uint8), np.array(-0.0, np.float32), np.array(3, np.uint8))
    assert np.signbit(got).tolist() == [False, True]  # (0 - 3) * -0 = +0, (3 - 3) * -0 = -0


# --------------------------------------------------------------------------
# QuantizeLinear: around every tie of every target


def target_quotients(dst) -> list[Fraction]:
    """Quotients x / scale worth testing for ``dst``: an integer type's ties k + 1/2 and its
    integers around its ends and 0 (every one for the 2- and 4-bit types); a float type's
    values and the midpoints between neighbours (past the largest too), each with its negative."""
    if dst in INT_RANGES:
        low, high = INT_RANGES[dst]
        if high < 16:
            ks = range(low - 3, high + 3)
        else:
            ks = sorted({*range(low - 3, low + 4), *range(-4, 5), *range(high - 3, high + 4),
                         *np.random.default_rng(int(dst)).integers(low, high, 8).tolist()})
        return [Fraction(k) + h for k in ks for h in (0, Fraction(1, 2))]
    ebits, mbits, _, largest, _ = FLOAT_SPECS[dst]
    positive = []
    step = 1 if ebits + mbits < 7 else 3
    for code in range(0, 1 << (ebits + mbits), step):
        low, high = exact_of_bits(code, dst)[1], exact_of_bits(code + 1, dst)[1]
        if low in (NAN, "inf") or low > largest:
            continue
        if high in (NAN, "inf") or high > largest or code + 1 == 1 << (ebits + mbits):
            high = largest + (largest - exact_of_bits(code - 1, dst)[1])
        positive += [low, (low + high) / 2]
    positive += [largest * 2, largest * 1000]
    return positive + [-q for q in positive if q]


def _beside(x: np.ndarray) -> np.ndarray:
    """Each float of ``x`` with its neighbours one code down and one up in magnitude (finite
    nonzero ones; the others stay as they are), in x's own type; each integer with the ones one
    below and above."""
    if x.dtype.kind in "iu":
        wide = x.astype(np.int64)
        info = np.iinfo(x.dtype)
        return np.concatenate([x, np.clip(wide - 1, info.min, info.max).astype(x.dtype),
                               np.clip(wide + 1, info.min, info.max).astype(x.dtype)])
    raw = x.view({2: np.uint16, 4: np.uint32}[x.dtype.itemsize])
    top = np.array(1 << (8 * x.dtype.itemsize - 1), raw.dtype)
    moves = np.isfinite(x.astype(np.float64)) & ((raw & (top - 1)) != 0)
    up = np.where(moves, raw + moves, raw)
    down = np.where(moves, raw - moves, raw)
    return np.concatenate([x, up.view(x.dtype), down.view(x.dtype)])


def special_inputs(code) -> list:
    """Zeros, infinities, NaN, the largest and smallest magnitudes of a QuantizeLinear input."""
    if code == D.INT32:
        return [0, 1, -1, 2**31 - 1, -(2**31), 2**24 + 1, -(2**24 + 1), 1000003]
    ebits, mbits, bias, largest, _ = FLOAT_SPECS[code]
    tiny = float(Fraction(2) ** (1 - bias - mbits))
    return [0.0, -0.0, float("inf"), float("-inf"), float("nan"), float(largest), -float(largest), tiny, -tiny,
            1e4, -1e4, 2.0**20 + 3, 1e30]


#: QuantizeLinear's scales in test_quantize_around_every_tie: in x's own type (the division's
#: precision is x's), exact and inexact quotients, a negative one.
QL_TIE_SCALES = {"float": [1.0, 0.5, 3.0, -0.25], "int": [1, 2, 3, -4]}


def tie_inputs(x_type, scales, dst) -> np.ndarray:
    """x of shape (n, len(scales)): row i holds quotient i of ``dst`` times each scale (in x's
    type), then the values beside each, then the specials."""
    quotients = target_quotients(dst)
    columns = []
    for s in scales:
        values = [q * Fraction(s) for q in quotients]
        if x_type == D.INT32:
            column = of_type([min(max(round(v), -(2**31)), 2**31 - 1) for v in values], x_type)
        else:
            column = of_type([float(v) for v in values], x_type)
        columns.append(np.concatenate([_beside(column), of_type(special_inputs(x_type), x_type)]))
    return np.stack(columns, axis=1)


def target_zero_points(dst, count=4) -> np.ndarray:
    if dst in INT_RANGES:
        low, high = INT_RANGES[dst]
        return of_type(([0, min(3, high), high, low] * count)[:count], dst)
    return of_type(([0.0, 1.5, -0.0, -2.0] * count)[:count], dst)


@pytest.mark.parametrize("x_type", QL_X, ids=name)
@pytest.mark.parametrize("dst", QL_Y, ids=name)
def test_quantize_around_every_tie(ops, dst, x_type):
    """Per axis: the ties of ``dst`` (and the values beside them, and the specials) times each
    scale; without a zero point, and with one per column; saturate on and off for float 8."""
    scales = of_type(QL_TIE_SCALES["int" if x_type == D.INT32 else "float"], x_type)
    x = tie_inputs(x_type, scales.tolist(), dst)
    zero = target_zero_points(dst, len(scales))
    for saturate in (True, False) if dst in FLOAT8 else (True,):
        run_ql(ops, x, scales, None, dst, saturate, context=f"x {x_type.name}, no zp")
        run_ql(ops, x, scales, zero, None, saturate, context=f"x {x_type.name}, zp")


def test_quantize_signs_of_zero(ops):
    """A float target: without a zero point the quotient is cast as it is (-0 stays -0, as Cast
    keeps it); with one, q + zp follows IEEE's signs ((-0) + (+0) = +0, (-0) + (-0) = -0) and a
    tiny negative sum rounds to -0; an INT32 precision quotient of 0 is an integer, +0."""
    f8 = D.FLOAT8E4M3FN
    x = np.array([-0.0, 0.0, -1e-30, 1e-30], np.float32)
    one, minus = np.array(1.0, np.float32), np.array(-1.0, np.float32)
    signs = lambda got: np.signbit(got.astype(np.float32)).tolist()  # noqa: E731
    assert signs(run_ql(ops, x, one, None, f8)) == [True, False, True, False]
    assert signs(run_ql(ops, x, minus, None, f8)) == [False, True, False, True]
    assert signs(run_ql(ops, x, one, of_type(0.0, f8))) == [False, False, True, False]  # -1e-30 + 0 < 0
    assert signs(run_ql(ops, x, one, of_type(-0.0, f8))) == [True, False, True, False]
    assert signs(run_ql(ops, x, one, None, f8, precision=D.INT32)) == [False, False, False, False]
    assert signs(run_ql(ops, x, one, None, D.FLOAT4E2M1)) == [True, False, True, False]
    assert signs(run_ql(ops, x, one, None, D.FLOAT6E2M3)) == [False, False, False, False]  # float6: no -0


@pytest.mark.parametrize("dst", QL_FLOAT_Y + [D.INT4, D.UINT8], ids=name)
def test_quantize_specials_with_special_zero_points(ops, dst):
    """NaN, infinite and extreme zero points of the float targets (and integer ones at the ends)."""
    if dst in INT_RANGES:
        low, high = INT_RANGES[dst]
        zero = of_type([low, high, 0, 1], dst)
    else:
        codes = [0x7F, 0xFF, 0x7C, 0xFC] if dst in FLOAT8 else [(1 << spec.bit_width(dst)) - 1, 1, 2, 3]
        zero = from_codes(codes, dst)  # NaN, -NaN / inf / the largest, ...
    x = np.repeat(of_type(special_inputs(D.FLOAT) + [0.5, -0.5, 2.5, 100.0], D.FLOAT)[:, None], 4, axis=1)
    for saturate in (True, False):
        run_ql(ops, x, of_type([1.0, 0.75, -2.0, 1e-30], D.FLOAT), zero, None, saturate)


@pytest.mark.parametrize("dst", [D.FLOAT4E2M1, D.FLOAT6E2M3, D.FLOAT6E3M2, D.INT8, D.UINT2], ids=name)
def test_saturate_false_changes_nothing_outside_float8(ops, dst):
    x = of_type([1e9, -1e9, float("inf"), float("-inf"), float("nan"), 7.0, -30.0, 0.25], D.FLOAT)
    scale = np.array(1.0, np.float32)
    on = run_ql(ops, x, scale, None, dst, True)
    off = run_ql(ops, x, scale, None, dst, False)
    assert on.tobytes() == off.tobytes()


# --------------------------------------------------------------------------
# QuantizeLinear: each precision with each scale type


#: Inputs whose rounding to the precision matters: 2049 (float16: 2048), 1 + 2**-9 (bfloat16),
#: ties, values that overflow or underflow float16, large ones within int32.
PRECISION_INPUTS = {
    "float": [2049.0, -2049.0, 2.5, 3.5, -2.5, 0.5, 1.5, 0.3, 1 + 2.0**-9, 1 + 2.0**-8 + 2.0**-9, 1e5, -7e4,
              1e-8, 6e-8, 100.25, 33.0, 65519.0, 65520.0, 1e9, 16777217.0, 0.0, -0.0, float("inf"),
              float("-inf"), float("nan"), 7.0, -11.0],
    "int": [2049, -2049, 5, -5, 7, 16777217, -16777217, 65520, 100000, 2**31 - 1, -(2**31), 0, 3, 1, -1, 255, 33],
}
PRECISION_SCALES = {
    D.FLOAT: [0.1, 3.0, 1 / 3, 2.5, -1.5, 1e-5, 0.0],
    D.FLOAT16: [0.1, 3.0, 2.5, 1e-5, -0.5, 0.0],
    D.BFLOAT16: [0.1, 3.0, 2.5, 1 / 3, -0.5, 2.0**-130],
    D.INT32: [1, 2, 3, -5, 0, 7],
    D.FLOAT8E8M0: [127, 126, 130, 100, 150, 0, 254, 255],  # 1, 1/2, 8, 2**-27, 2**23, 2**-127, 2**127, NaN
}


@pytest.mark.parametrize("scale_type", QL_SCALE, ids=name)
@pytest.mark.parametrize("x_type", QL_X, ids=name)
def test_quantize_each_precision_with_each_scale_type(ops, x_type, scale_type):
    """Per axis, each scale of ``scale_type`` on every input; precision not given (the scale's
    type; FLOAT for FLOAT8E8M0) and each of FLOAT, FLOAT16, BFLOAT16 and INT32, into an integer,
    a 4-bit and a float 8 target."""
    values = PRECISION_INPUTS["int" if x_type == D.INT32 else "float"]
    s = PRECISION_SCALES[scale_type]
    scales = from_codes(s, scale_type) if scale_type == D.FLOAT8E8M0 else of_type(s, scale_type)
    x = np.repeat(of_type(values, x_type)[:, None], len(scales), axis=1)
    if x_type == D.BFLOAT16:  # INT32 precision of an input past int32's range is not stated: keep within it
        assert np.all(np.abs(x.astype(np.float64)[np.isfinite(x.astype(np.float64))]) < 2**31)
    for precision in (None, *PRECISIONS):
        for dst, zero in ((D.INT16, of_type([-3] * len(scales), D.INT16)), (D.UINT4, None),
                          (D.FLOAT8E4M3FN, None)):
            run_ql(ops, x, scales, zero, dst, precision=precision,
                   context=f"x {x_type.name}, scale {scale_type.name}")


@pytest.mark.parametrize("x_type", [D.FLOAT, D.INT32], ids=name)
def test_quantize_int32_precision_at_its_ends(ops, x_type):
    """int32 precision where the quotient leaves 64-bit integers or has no integer: inputs at and
    past 2**62 and up to float32's largest, the infinities and NaN, over int32 scales at
    int32's ends and whose bits are a float's NaN, and 0; float scales rounded to int32 (0.4 to
    0, 2.5 to 2), past its range, infinite and NaN; per tensor and per axis, into int8, uint16
    and float 8 types with and without saturation, contiguous and every second element."""
    if x_type == D.FLOAT:
        values = [2.0**62, -(2.0**62), 2.0**62 * (1 - 2.0**-24), 1e30, -3e38, 3.4e38, float("inf"), float("-inf"),
                  float("nan"), 0.0, -0.0, 2.5, -3.5, 1e9, 16777216.0]
    else:
        values = [2**31 - 1, -(2**31), 7, -7, 0, 3, -3, 2**30 + 1, 100000]
    x = of_type(values, x_type)
    int_scales = [3, -7, 2**31 - 1, -(2**31), 2139095041, -1, 0, 1, -2]  # 2139095041 and -1: NaN bits as floats
    float_scales = [3e9, float("inf"), float("nan"), 0.4, 2.5, -1e-9, -3.5, 7.0]
    for scales, precision in ((of_type(int_scales, D.INT32), None), (of_type(float_scales, D.FLOAT), D.INT32)):
        grid = np.repeat(x[:, None], len(scales), axis=1)
        for dst, zero, saturate in ((D.INT8, np.int8(-3), True), (D.UINT16, None, True),
                                    (D.FLOAT8E4M3FN, None, False), (D.FLOAT8E5M2, None, False),
                                    (D.FLOAT8E5M2, None, True)):
            for layout, values_ in (("contiguous", grid), ("strided", np.repeat(grid, 2, axis=0)[::2])):
                run_ql(ops, values_, scales, None if zero is None else np.full(len(scales), zero), dst,
                       saturate=saturate, precision=precision, axis=1, context=f"{layout}, x {x_type.name}")
            for scale in scales:  # per tensor
                run_ql(ops, x, scale, zero, dst, saturate=saturate, precision=precision, axis=0,
                       context=f"per tensor, x {x_type.name}")


@pytest.mark.compiled
@pytest.mark.skipif(COMPILED is None, reason="the compiled path is not built")
@pytest.mark.parametrize("x_type", [D.FLOAT16, D.BFLOAT16], ids=name)
def test_quantize_every_value_in_its_own_precision(x_type):
    """Every float16 (bfloat16) value, per tensor, with a scale of its type (so in its
    precision): the compiled loop over a contiguous row, and over every second element, equals
    the reference bit for bit for each scale of PRECISION_SCALES (subnormal, zero, negative),
    into an integer with a zero point, a 4-bit integer and a float 8 type."""
    x = every_code(x_type)
    for s in PRECISION_SCALES[x_type]:
        scale = of_type(s, x_type)
        for dst, zero in ((D.INT8, np.int8(-3)), (D.UINT4, None), (D.FLOAT8E4M3FN, None), (D.INT16, np.int16(100))):
            args = (scale,) if zero is None else (scale, zero)
            for values in (x, np.repeat(x, 2)[::2]):
                got = COMPILED.quantize_linear(values, *args, output_dtype=dst)
                want = PURE.quantize_linear(values, *args, output_dtype=dst)
                assert _same_bits_any_nan(got, want), (x_type.name, s, dst.name, values.strides)


def test_quantize_defaults_and_the_texts_rows(ops):
    """No zero point and no output_dtype: uint8; the saturation ranges of the text; +inf into
    int8 is 127 (the text's saturation; onnx's reference gives -128)."""
    x = np.array([-1.0, 0.0, 1.4, 2.5, 3.5, 300.0, np.inf, -np.inf, np.nan], np.float32)
    got = ops.quantize_linear(x, np.array(1.0, np.float32))
    assert got.dtype == np.uint8 and got.tolist() == [0, 0, 1, 2, 4, 255, 255, 0, 0]
    got = ops.quantize_linear(x, np.array(1.0, np.float32), np.array(-1, np.int8))
    assert got.tolist() == [-2, -1, 0, 1, 3, 127, 127, -128, -1]
    got = ops.quantize_linear(x, np.array(0.5, np.float32), output_dtype=D.INT2)
    assert got.dtype == dtype_of(D.INT2) and got.astype(np.int8).tolist() == [-2, 0, 1, 1, 1, 1, 1, -2, 0]
    big = np.array([1e6, -1e6], np.float32)
    for dst, expected in ((D.UINT16, [65535, 0]), (D.INT16, [32767, -32768]), (D.UINT4, [15, 0]),
                          (D.INT4, [7, -8]), (D.UINT2, [3, 0]), (D.INT2, [1, -2])):
        got = ops.quantize_linear(big, np.array(1.0, np.float32), output_dtype=dst)
        assert got.astype(np.int64).tolist() == expected, dst.name


# --------------------------------------------------------------------------
# granularity: per tensor, per axis, blocked; layouts


#: (x shape, scale shape, axis, block size): per tensor (0-d and (1,) scales), per axis on
#: each axis (negative ones too), blocked with blocks that divide the axis and ones that do
#: not (the last block partial), one block wider than the axis, blocks of 1, a 0-d and an
#: empty input.
GRANULARITIES = [
    ((4, 6, 5), (), 1, 0),
    ((4, 6, 5), (1,), 1, 0),
    ((4, 6, 5), (1,), -1, 0),
    ((4, 6, 5), (4,), 0, 0),
    ((4, 6, 5), (6,), 1, 0),
    ((4, 6, 5), (5,), -1, 0),
    ((4, 6, 5), (6,), -2, 0),
    ((4, 6, 5), (4,), -3, 0),
    ((4, 6, 5), (4, 3, 5), 1, 2),
    ((4, 6, 5), (4, 2, 5), 1, 4),
    ((4, 6, 5), (4, 6, 2), -1, 3),
    ((4, 6, 5), (2, 6, 5), 0, 3),
    ((4, 6, 5), (1, 6, 5), 0, 4),
    ((4, 6, 5), (1, 6, 5), 0, 9),
    ((4, 6, 5), (4, 6, 5), 2, 1),
    ((7,), (3,), 0, 3),
    ((7,), (2,), -1, 5),
    ((9, 2), (9,), 0, 0),
    ((), (), 1, 0),
    ((), (1,), 0, 0),
    ((0, 3), (3,), 1, 0),
    ((3, 0), (2, 0), 0, 2),
]
LAYOUTS = ["c", "fortran", "reversed", "strided", "transposed", "swapped"]


def laid(array: np.ndarray, layout: str) -> np.ndarray:
    """``array``'s values in another memory layout (a view where it can be one)."""
    a = np.asarray(array)
    if a.ndim == 0 or a.size == 0:
        return a.copy()
    if layout == "fortran":
        return np.asfortranarray(a)
    if layout == "reversed":
        flip = tuple(slice(None, None, -1) for _ in a.shape)
        return a[flip].copy()[flip]
    if layout == "strided":
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
        wide[..., 1::2] = a
        return wide[..., 1::2]
    if layout == "transposed":
        return np.ascontiguousarray(a.T).T
    if layout == "swapped" and a.dtype.itemsize > 1 and a.dtype.kind in "iuf":
        return a.astype(a.dtype.newbyteorder("S"))
    return a.copy()


def _random_floats(shape, code, rng, low=-4.0, high=4.0) -> np.ndarray:
    return of_type(rng.uniform(low, high, shape).round(3) * 10.0 ** rng.integers(-2, 3, shape), code)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", GRANULARITIES, ids=lambda c: f"{c[0]}-{c[1]}-axis{c[2]}-B{c[3]}")
def test_granularity_against_each_elements_own_scale(ops, case, layout):
    x_shape, scale_shape, axis, block = case
    rng = np.random.default_rng(abs(hash(case)) % 2**32)
    # DequantizeLinear: int16 and float8 inputs, float32 / bfloat16 scales
    x = laid(of_type(rng.integers(-300, 300, x_shape), D.INT16), layout)
    scale = laid(_random_floats(scale_shape, D.FLOAT, rng), layout)
    zero = laid(of_type(rng.integers(-50, 50, scale_shape), D.INT16), layout)
    run_dq(ops, x, scale, zero, None, axis, block, context=f"{layout} int16")
    x8 = laid(random_tensor(D.FLOAT8E5M2, x_shape, seed=rng), layout)
    scale16 = laid(_random_floats(scale_shape, D.BFLOAT16, rng), layout)
    run_dq(ops, x8, scale16, None, D.FLOAT16, axis, block, context=f"{layout} float8e5m2")
    zero4 = random_tensor(D.UINT4, scale_shape, seed=rng)
    run_dq(ops, random_tensor(D.UINT4, x_shape, seed=rng), scale, zero4, None, axis, block, context="uint4")
    # QuantizeLinear: float32 / float16 inputs, int8 and float8 / int4 targets
    xf = laid(_random_floats(x_shape, D.FLOAT, rng, -300.0, 300.0), layout)
    zq = laid(of_type(rng.integers(-20, 20, scale_shape), D.INT8), layout)
    run_ql(ops, xf, scale, zq, None, axis=axis, block=block, context=f"{layout} float -> int8")
    xh = laid(_random_floats(x_shape, D.FLOAT16, rng), layout)
    scale_h = laid(np.abs(_random_floats(scale_shape, D.FLOAT16, rng)), layout)
    run_ql(ops, xh, scale_h, None, D.FLOAT8E4M3FN, axis=axis, block=block, context=f"{layout} float16 -> f8")
    run_ql(ops, xh, scale_h, random_tensor(D.INT4, scale_shape, seed=rng), axis=axis, block=block,
           context=f"{layout} float16 -> int4")


def test_results_are_new_native_arrays_of_the_inputs_shape(ops):
    x = np.arange(24, dtype=">i2").reshape(2, 3, 4)[:, ::-1]
    scale = np.array([1.5, 2.0, -1.0], ">f4")
    got = run_dq(ops, x, scale, None, None, axis=1)
    assert got.dtype == np.float32 and got.dtype.isnative and not np.shares_memory(got, x)
    xf = (np.arange(24, dtype=">f4").reshape(4, 6) / 3).T
    got = run_ql(ops, xf, np.array([0.5, 0.25, 1.0, 2.0], ">f4"), np.array([1, 2, 3, 4], np.uint8), axis=1)
    assert got.dtype == np.uint8 and not np.shares_memory(got, xf)
    scalar = ops.quantize_linear(np.array(2.5, np.float32), np.array(1.0, np.float32))
    assert isinstance(scalar, np.ndarray) and scalar.shape == () and scalar.dtype == np.uint8 and scalar == 2
    scalar = ops.dequantize_linear(np.array(7, np.uint8), np.array(0.5, np.float32), np.array(3, np.uint8))
    assert isinstance(scalar, np.ndarray) and scalar.shape == () and scalar == 2.0


@pytest.mark.compiled
@pytest.mark.skipif(COMPILED is None, reason="the compiled path is not built")
def test_compiled_kernels_take_other_precisions_and_layouts(monkeypatch):
    """QuantizeLinear in float16, bfloat16 and int32 precision, DequantizeLinear of int32 and of
    float8e5m2 less a zero point, and a byte-swapped or unaligned input (on a native, aligned
    copy) run the kernels on the compiled path: with the reference made to fail, each call
    still succeeds, and a swapped or unaligned input gives the native input's result."""
    from fastbits import _quant_py

    xf = np.arange(-40, 40, dtype=np.float32).reshape(8, 10) / 3
    xi = np.arange(-40, 40, dtype=np.int16).reshape(8, 10)
    scale, axis_scale = np.float32(0.5), np.linspace(0.25, 2.0, 10).astype(np.float32)
    bf16 = spec.numpy_dtype(D.BFLOAT16)
    calls = [("quantize_linear", xf, (scale, np.int8(3)), {}),
             ("quantize_linear", xf, (axis_scale, np.zeros(10, np.uint8)), {"axis": 1}),
             ("quantize_linear", xf, (np.float16(0.3),), {}),
             ("quantize_linear", xf.astype(bf16), (axis_scale.astype(bf16), np.zeros(10, np.int8)), {"axis": 1}),
             ("quantize_linear", xf, (axis_scale,), {"axis": 1, "precision": D.FLOAT16, "output_dtype": D.INT4}),
             ("quantize_linear", xf, (scale,), {"precision": D.BFLOAT16, "output_dtype": D.FLOAT8E4M3FN}),
             ("quantize_linear", xf * 1000, (np.int32(-7), np.int16(5)), {}),
             ("quantize_linear", xi.astype(np.int32) * 99, (np.arange(1, 11, dtype=np.int32) * 3,), {"axis": 1}),
             ("quantize_linear", xf, (axis_scale * 4,), {"axis": 1, "precision": D.INT32, "output_dtype": D.INT4}),
             ("dequantize_linear", xi, (scale, np.int16(-2)), {}),
             ("dequantize_linear", xi.astype(np.int32) * 2**24, (axis_scale, np.full(10, -2**31 + 5, np.int32)),
              {"axis": 1}),
             ("dequantize_linear", xf.astype(spec.numpy_dtype(D.FLOAT8E5M2)),
              (np.float16(0.3), np.array(1.5, spec.numpy_dtype(D.FLOAT8E5M2))), {}),
             ("dequantize_linear", xi, (np.linspace(0.25, 2.0, 40).astype(np.float32).reshape(8, 5), None),
              {"axis": 1, "block_size": 2})]

    def reference(*args):
        raise AssertionError("the reference ran a call the kernels take")

    monkeypatch.setattr(_quant_py, "quantize", reference)
    monkeypatch.setattr(_quant_py, "dequantize", reference)
    for name, x, args, kw in calls:
        want = getattr(COMPILED, name)(x, *args, **kw)
        unaligned = np.frombuffer(b"\0" + x.tobytes(), x.dtype, offset=1).reshape(x.shape)
        for variant in (x.astype(x.dtype.newbyteorder()), unaligned):
            got = getattr(COMPILED, name)(variant, *args, **kw)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (name, variant.dtype, kw)


@pytest.mark.parametrize("spelling", [1, D.FLOAT, np.float32, np.dtype(np.float32), "FLOAT", "float"],
                         ids=repr)
def test_output_dtype_spellings(ops, spelling):
    x = np.array([3, -2], np.int8)
    got = ops.dequantize_linear(x, np.array(0.5, np.float16), output_dtype=spelling)
    assert got.dtype == np.float32 and got.tolist() == [1.5, -1.0]
    assert ops.dequantize_linear(x, np.array(0.5, np.float16), output_dtype=0).dtype == np.float16
    assert ops.dequantize_linear(x, np.array(0.5, np.float16), output_dtype=None).dtype == np.float16


@pytest.mark.parametrize("spelling", [3, D.INT8, np.int8, "INT8", "int8"], ids=repr)
def test_quantize_output_dtype_spellings(ops, spelling):
    x = np.array([3.0, -2.0], np.float32)
    got = ops.quantize_linear(x, np.array(0.5, np.float32), output_dtype=spelling)
    assert got.dtype == np.int8 and got.tolist() == [6, -4]
    assert ops.quantize_linear(x, np.array(0.5, np.float32), output_dtype=0).dtype == np.uint8
    got = ops.quantize_linear(x, np.array(0.5, np.float32), np.array(1, np.int8), output_dtype=spelling)
    assert got.tolist() == [7, -3]


@pytest.mark.parametrize("spelling", [D.FLOAT16, 10, "FLOAT16", np.float16], ids=repr)
def test_precision_spellings(ops, spelling):
    x = np.array([2049.0, 2051.0], np.float32)  # float16: 2048, 2052
    got = ops.quantize_linear(x, np.array(1.0, np.float32), output_dtype=D.INT16, precision=spelling)
    assert got.tolist() == [2048, 2052]
    got = ops.quantize_linear(x, np.array(1.0, np.float32), output_dtype=D.INT16, precision=0)
    assert got.tolist() == [2049, 2051]


# --------------------------------------------------------------------------
# the paths against each other


def _same_bits_any_nan(a: np.ndarray, b: np.ndarray) -> bool:
    """Same dtype, shape and bits, a NaN matching any NaN."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "iu" or spec.datatype_of(a.dtype) in INT_RANGES:
        return a.tobytes() == b.tobytes()
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    nan = np.isnan(fa)
    return bool(np.array_equal(nan, np.isnan(fb)) and np.array_equal(
        a.view(np.uint8 if a.dtype.itemsize == 1 else f"u{a.dtype.itemsize}")[~nan],
        b.view(np.uint8 if b.dtype.itemsize == 1 else f"u{b.dtype.itemsize}")[~nan]))


PAIRS = [(x, s, y) for x in DQ_X for s, y in ((D.FLOAT, None), (D.FLOAT16, D.BFLOAT16), (D.FLOAT8E8M0, D.FLOAT16))]
QL_COMBINATIONS = [(x, s, y) for x in QL_X for s in QL_SCALE for y in QL_Y]
#: (x shape, scale shape, axis, block size): small ones for every pair of types, and large ones
#: (a sample of the pairs) for the compiled loops to split among threads.
SMALL = [((37, 13), (), 1, 0), ((37, 13), (13,), 1, 0), ((40, 9), (40,), 0, 0), ((8, 15, 3), (8, 2, 3), 1, 8)]
# LARGE: blocks along the rows, one scale, a scale per column, and blocks along axis 0 of a
# K x N weight (onnxruntime's MatMulNBitsQuantizer's layout: a scale per element of each row)
LARGE = [((300, 257), (300, 33), 1, 8), ((70001,), (1,), 0, 0), ((257, 300), (300,), -1, 0),
         ((256, 300), (8, 300), 0, 32)]


def _compare_paths(rng, x_shape, scale_shape, axis, block, dq_pairs, ql_combinations):
    for x_type, s_type, y in dq_pairs:
        x = random_tensor(x_type, x_shape, seed=rng)
        s = random_tensor(s_type, scale_shape, seed=rng)
        z = random_tensor(x_type, scale_shape, seed=rng) if rng.random() < 0.5 else None
        args = (x, s) if z is None else (x, s, z)
        kw = dict(axis=axis, block_size=block, output_dtype=y)
        a, b = PURE.dequantize_linear(*args, **kw), COMPILED.dequantize_linear(*args, **kw)
        assert _same_bits_any_nan(a, b), ("DequantizeLinear", x_type.name, s_type.name, name(y), x_shape, scale_shape, axis, block)
    for x_type, s_type, dst in ql_combinations:
        x = random_tensor(x_type, x_shape, seed=rng)
        s = random_tensor(s_type, scale_shape, seed=rng)
        z = random_tensor(dst, scale_shape, seed=rng) if rng.random() < 0.5 else None
        precision = [None, *PRECISIONS][rng.integers(0, 5)]
        saturate = bool(rng.integers(0, 2))
        args = (x, s) if z is None else (x, s, z)
        kw = dict(axis=axis, block_size=block, output_dtype=dst, saturate=saturate, precision=precision)
        a, b = PURE.quantize_linear(*args, **kw), COMPILED.quantize_linear(*args, **kw)
        assert _same_bits_any_nan(a, b), ("QuantizeLinear", x_type.name, s_type.name, dst.name, name(precision), saturate,
                             x_shape, scale_shape, axis, block)


@pytest.mark.compiled
@pytest.mark.skipif(COMPILED is None, reason="the compiled path is not built")
@pytest.mark.parametrize("seed", range(2))
def test_paths_agree_on_random_arrays(seed):
    """Random bits (NaN payloads, infinities, huge and tiny values) in every type, each
    granularity; every pair of types on small arrays, a sample of them on large ones."""
    rng = np.random.default_rng(seed)
    for x_shape, scale_shape, axis, block in SMALL:
        _compare_paths(rng, x_shape, scale_shape, axis, block, PAIRS, QL_COMBINATIONS)
    for x_shape, scale_shape, axis, block in LARGE:
        dq = [PAIRS[i] for i in rng.choice(len(PAIRS), 8, replace=False)]
        ql = [QL_COMBINATIONS[i] for i in rng.choice(len(QL_COMBINATIONS), 12, replace=False)]
        _compare_paths(rng, x_shape, scale_shape, axis, block, dq, ql)


def _outcome(function, *args, **kwargs):
    """A call's result, or its error's class and message."""
    try:
        return function(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the class is the outcome
        return (type(exc), str(exc))


def _same_outcome(a, b) -> bool:
    return _same_bits_any_nan(a, b) if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) else a == b


def _scale_shapes(x_shape):
    """Scale shapes around each granularity of ``x_shape``: the right ones and near misses."""
    shapes = {(), (1,), (2,), (1, 1)}
    for d, n in enumerate(x_shape):
        shapes |= {(n,), (n + 1,)}
        for block in (1, 2, 3):
            blocks = -(-n // block)
            shapes |= {x_shape[:d] + (blocks,) + x_shape[d + 1:], x_shape[:d] + (blocks + 1,) + x_shape[d + 1:]}
    return sorted(shapes)


@pytest.mark.compiled
@pytest.mark.skipif(COMPILED is None, reason="the compiled path is not built")
def test_the_fast_path_takes_what_the_spec_takes():
    """Every (input shape, scale shape, axis, block size, zero point) near each granularity: the
    compiled path, called twice (the first call records the types, the second takes the fast
    path where it can), gives the pure path's result bit for bit, or its error word for word."""
    rng = np.random.default_rng(7)
    for x_shape in [(), (4,), (3, 4), (2, 3, 5)]:
        xq = rng.standard_normal(x_shape).astype(np.float32) * 8
        xd = rng.integers(-128, 128, x_shape).astype(np.int8)
        for scale_shape in _scale_shapes(x_shape):
            scale = (rng.random(scale_shape) + 0.25).astype(np.float32)
            zeros = [None, rng.integers(-5, 5, scale_shape).astype(np.int8), np.int8(3)]
            for axis in range(-len(x_shape) - 1, len(x_shape) + 1):
                for block in (0, 1, 2, 3, -1):
                    for zero in zeros:
                        args = (scale,) if zero is None else (scale, zero)
                        kw = dict(axis=axis, block_size=block)
                        for function, x in (("quantize_linear", xq), ("dequantize_linear", xd)):
                            expected = _outcome(getattr(PURE, function), x, *args, **kw)
                            for _ in range(2):
                                got = _outcome(getattr(COMPILED, function), x, *args, **kw)
                                assert _same_outcome(got, expected), (function, x_shape, scale_shape, axis, block,
                                                                      None if zero is None else zero.shape)


@pytest.mark.compiled
@pytest.mark.skipif(COMPILED is None, reason="the compiled path is not built")
@pytest.mark.parametrize("zero_type", [None, D.INT8, D.UINT8, D.INT16, D.UINT16, D.INT4, D.UINT4, D.INT2, D.UINT2])
def test_the_fast_path_equals_the_reference(zero_type):
    """The calls the fast path takes (a float32 scale as an array or a numpy scalar, an integer
    zero point of every width, or none), around its one-row limit (64 elements) and in layouts it
    hands to the engine (strided, transposed), per tensor, per axis and blocked, equal the
    pure path's bit for bit."""
    rng = np.random.default_rng(int(zero_type or 0))
    low, high = (0, 255) if zero_type is None else INT_RANGES[zero_type]
    zdtype = None if zero_type is None else spec.numpy_dtype(zero_type)
    for n in (1, 63, 64, 65, 300):
        for layout in ("contiguous", "strided", "transposed"):
            x2 = rng.standard_normal((n, 4)).astype(np.float32) * 40
            xd2 = rng.integers(low, high + 1, (n, 4)).astype(zdtype or np.uint8)
            if layout == "strided":
                x2, xd2 = np.repeat(x2, 2, axis=1)[:, ::2], np.repeat(xd2, 2, axis=1)[:, ::2]
            elif layout == "transposed":
                x2, xd2 = np.ascontiguousarray(x2.T).T, np.ascontiguousarray(xd2.T).T
            cases = [((), 1, 0), ((4,), 1, 0), ((n,), 0, 0), ((n, 2), 1, 2), ((-(-n // 3), 4), 0, 3)]
            for scale_shape, axis, block in cases:
                scale = (rng.random(scale_shape) + 0.1).astype(np.float32)
                scales = [scale, np.float32(scale)] if scale_shape == () else [scale]
                zero = None if zdtype is None else rng.integers(low, high + 1, scale_shape).astype(zdtype)
                zeros = [zero] if zero is None or scale_shape else [zero, zero[()]]
                for s in scales:
                    for z in zeros:
                        args = (s,) if z is None else (s, z)
                        kw = dict(axis=axis, block_size=block)
                        for _ in range(2):
                            for function, x in (("quantize_linear", x2), ("dequantize_linear", xd2)):
                                a = getattr(PURE, function)(x, *args, **kw)
                                b = getattr(COMPILED, function)(x, *args, **kw)
                                assert _same_bits_any_nan(a, b), (function, n, layout, scale_shape, axis, block,
                                                                  type(s).__name__, type(z).__name__)


@pytest.mark.compiled
@pytest.mark.skipif(COMPILED is None, reason="the compiled path is not built")
@pytest.mark.parametrize("dst", QL_FLOAT_Y, ids=name)
def test_quantize_into_a_float_format_by_scales_per_element(dst):
    """QuantizeLinear of float32 rows into a one-byte float format with a scale per element
    (blocks along axis 0, a scale per column) or one per row, and zero points that are all +0
    or -0 (none, zeros, negative zeros, both), or not: the compiled loop equals the reference
    bit for bit, specials, signs of zero and saturation included."""
    rng = np.random.default_rng(int(dst))
    x = (rng.standard_normal((64, 40)) * 10.0 ** rng.integers(-3, 4, (64, 40))).astype(np.float32)
    x.flat[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e30, -1e-30]
    dtype = spec.numpy_dtype(dst)
    for scale_shape, axis, block in (((16, 40), 0, 4), ((40,), 1, 0), ((64, 5), 1, 8), ((), 1, 0)):
        scale = (rng.random(scale_shape) + 0.05).astype(np.float32)
        zeros = [None, np.zeros(scale_shape, dtype), np.full(scale_shape, -0.0, np.float32).astype(dtype)]
        mixed = np.where(rng.random(scale_shape) < 0.5, -0.0, 0.0).astype(np.float32).astype(dtype)
        nonzero = np.array(zeros[1], copy=True)
        nonzero.flat[-1] = dtype.type(1.0)
        for zero in [*zeros, mixed, nonzero]:
            for saturate in (True, False):
                args = (x, scale) if zero is None else (x, scale, zero)
                kw = dict(axis=axis, block_size=block, saturate=saturate, output_dtype=None if zero is not None else dst)
                a, b = PURE.quantize_linear(*args, **kw), COMPILED.quantize_linear(*args, **kw)
                assert a.dtype == b.dtype == dtype and a.tobytes() == b.tobytes(), (
                    scale_shape, axis, None if zero is None else zero.ravel()[:3], saturate)


@pytest.mark.filterwarnings("error")
def test_signaling_nans_are_nans_without_a_warning(ops):
    """A signaling NaN (random bits hold them) is a NaN like any other: no RuntimeWarning
    (an error under -W error), the result of a NaN."""
    snan32 = np.array([0x7F800001, 0xFFA00000, 0x3F800000], np.uint32).view(np.float32)
    snan16 = np.array([0x7C01, 0xFD00, 0x3C00], np.uint16).view(np.float16)
    run_dq(ops, np.array([1, 2, 3], np.int8), snan32, None, None, axis=0)
    run_dq(ops, np.array([1, 2, 3], np.int8), snan16, None, D.FLOAT, axis=0)
    for x in (snan32, snan16):
        for precision in (None, *PRECISIONS):
            run_ql(ops, x, np.array(1.0, np.float32), np.array(5, np.uint8), precision=precision)
            run_ql(ops, x, np.array(1.0, np.float32), None, D.FLOAT8E4M3FN, precision=precision)
        run_ql(ops, np.array([1.0, 2.0, 3.0], np.float32), x, np.array([5, 6, 7], np.uint8), axis=0)


# --------------------------------------------------------------------------
# errors


def _f32(values):
    return np.array(values, np.float32)


X23 = np.zeros((2, 3), np.int8)
F23 = np.zeros((2, 3), np.float32)
S3 = _f32([1, 2, 3])

DQ_ERRORS = [
    # (args, kwargs, error, what the message names besides the operator)
    ((X23, S3, np.zeros(3, np.uint8)), {}, fastbits.TypeConstraintError, "x_zero_point"),
    ((F23, S3), {}, fastbits.TypeConstraintError, "'x'"),
    ((np.zeros(3, np.int64), S3), {}, fastbits.TypeConstraintError, "'x'"),
    ((X23, np.array([1, 2, 3], np.int32)), {}, fastbits.TypeConstraintError, "x_scale"),
    ((X23, np.ones(3, np.float64)), {}, fastbits.TypeConstraintError, "x_scale"),
    ((X23, from_codes([127, 127, 127], D.FLOAT8E8M0)), {}, fastbits.TypeConstraintError, "output_dtype"),
    ((X23, S3), {"output_dtype": D.INT8}, fastbits.TypeConstraintError, "output_dtype"),
    ((X23, S3), {"output_dtype": D.DOUBLE}, fastbits.TypeConstraintError, "output_dtype"),
    ((X23, S3), {"output_dtype": D.FLOAT8E8M0}, fastbits.TypeConstraintError, "output_dtype"),
    ((X23, _f32([1, 2])), {}, fastbits.ArgumentValueError, "x_scale"),
    ((X23, _f32([1, 2, 3, 4])), {"axis": 1}, fastbits.ArgumentValueError, "x_scale"),
    ((X23, np.ones((2, 3), np.float32)), {}, fastbits.ArgumentValueError, "x_scale"),
    ((X23, S3, np.zeros(2, np.int8)), {}, fastbits.ArgumentValueError, "x_zero_point"),
    ((X23, S3, np.zeros((3, 1), np.int8)), {}, fastbits.ArgumentValueError, "x_zero_point"),
    ((X23, S3), {"axis": 2}, fastbits.ArgumentValueError, "axis"),
    ((X23, S3), {"axis": -3}, fastbits.ArgumentValueError, "axis"),
    ((X23, np.ones((2, 2), np.float32)), {"block_size": -1}, fastbits.ArgumentValueError, "block_size"),
    ((X23, np.array(1.0, np.float32)), {"block_size": 2}, fastbits.ArgumentValueError, "block_size"),
    ((X23, _f32([1.0])), {"block_size": 2}, fastbits.ArgumentValueError, "x_scale"),  # (1,): blocked, not per tensor
    ((X23, np.ones((2, 1), np.float32)), {"block_size": 2}, fastbits.ArgumentValueError, "x_scale"),
    ((X23, np.ones((2, 3), np.float32)), {"block_size": 2}, fastbits.ArgumentValueError, "x_scale"),
    ((X23, np.ones((2, 2), np.float32)), {"block_size": 2, "axis": 0}, fastbits.ArgumentValueError, "x_scale"),
    ((X23, S3), {"axis": 1.0}, fastbits.ArgumentTypeError, "axis"),
    ((X23, S3), {"axis": "1"}, fastbits.ArgumentTypeError, "axis"),
    ((X23, np.ones((2, 2), np.float32)), {"block_size": 2.0}, fastbits.ArgumentTypeError, "block_size"),
]

QL_ERRORS = [
    # a scale that fits no granularity is named before a zero point of another shape
    ((np.zeros((4, 6), np.float32), _f32([1] * 5), np.int8(0)), {"axis": 1}, fastbits.ArgumentValueError,
     "'y_scale' has shape (5,); expected one scale (shape () or (1,)), or one per element of axis 1"),
    ((F23, S3, np.zeros(3, np.float32)), {}, fastbits.TypeConstraintError, "y_zero_point"),
    ((F23, S3, np.zeros(3, np.int32)), {}, fastbits.TypeConstraintError, "y_zero_point"),
    ((F23, S3, np.zeros(3, np.int8)), {"output_dtype": D.UINT8}, fastbits.TypeConstraintError, "output_dtype"),
    ((F23, S3, np.zeros(3, np.int8)), {"output_dtype": "INT4"}, fastbits.TypeConstraintError, "output_dtype"),
    ((F23, S3), {"output_dtype": D.FLOAT}, fastbits.TypeConstraintError, "output_dtype"),
    ((F23, S3), {"output_dtype": D.INT32}, fastbits.TypeConstraintError, "output_dtype"),
    ((F23, S3), {"output_dtype": D.FLOAT8E8M0}, fastbits.TypeConstraintError, "output_dtype"),
    ((F23, S3), {"precision": D.FLOAT8E8M0}, fastbits.TypeConstraintError, "precision"),
    ((F23, S3), {"precision": D.INT8}, fastbits.TypeConstraintError, "precision"),
    ((F23, S3), {"precision": D.DOUBLE}, fastbits.TypeConstraintError, "precision"),
    ((X23, S3), {}, fastbits.TypeConstraintError, "'x'"),
    ((F23.astype(np.float64), S3), {}, fastbits.TypeConstraintError, "'x'"),
    ((F23, np.ones(3, np.float64)), {}, fastbits.TypeConstraintError, "y_scale"),
    ((F23, np.ones(3, np.int8)), {}, fastbits.TypeConstraintError, "y_scale"),
    ((F23, _f32([1, 2])), {}, fastbits.ArgumentValueError, "y_scale"),
    ((F23, S3, np.zeros(2, np.uint8)), {}, fastbits.ArgumentValueError, "y_zero_point"),
    ((F23, S3), {"axis": 2}, fastbits.ArgumentValueError, "axis"),
    ((F23, S3), {"axis": -3}, fastbits.ArgumentValueError, "axis"),
    ((F23, np.ones((2, 2), np.float32)), {"block_size": -2}, fastbits.ArgumentValueError, "block_size"),
    ((F23, np.array(1.0, np.float32)), {"block_size": 3}, fastbits.ArgumentValueError, "block_size"),
    ((F23, np.ones((2, 1), np.float32)), {"block_size": 2}, fastbits.ArgumentValueError, "y_scale"),
    ((F23, S3), {"saturate": 2}, fastbits.ArgumentValueError, "saturate"),
    ((F23, S3), {"saturate": "yes"}, fastbits.ArgumentTypeError, "saturate"),
    ((F23, S3), {"axis": None}, fastbits.ArgumentTypeError, "axis"),
    ((F23, np.ones((2, 2), np.float32)), {"block_size": "2"}, fastbits.ArgumentTypeError, "block_size"),
]


def _message(op: str, what: str) -> str:
    return rf"(?s)(?<![A-Za-z]){op}\b.*{re.escape(what)}"


@pytest.mark.parametrize("args, kwargs, error, what", DQ_ERRORS,
                         ids=[f"{i}-{e[3]}" for i, e in enumerate(DQ_ERRORS)])
def test_dequantize_errors_name_the_operator_and_the_argument(ops, args, kwargs, error, what):
    with pytest.raises(error, match=_message("DequantizeLinear", what)):
        ops.dequantize_linear(*args, **kwargs)
    with pytest.raises(error, match=_message("DequantizeLinear", what)):
        fastbits.dequantize_linear(*args, **kwargs)


@pytest.mark.parametrize("args, kwargs, error, what", QL_ERRORS,
                         ids=[f"{i}-{e[3]}" for i, e in enumerate(QL_ERRORS)])
def test_quantize_errors_name_the_operator_and_the_argument(ops, args, kwargs, error, what):
    with pytest.raises(error, match=_message("QuantizeLinear", what)):
        ops.quantize_linear(*args, **kwargs)
    with pytest.raises(error, match=_message("QuantizeLinear", what)):
        fastbits.quantize_linear(*args, **kwargs)


def test_error_classes_are_the_builtin_ones():
    assert issubclass(fastbits.ArgumentValueError, ValueError)
    assert issubclass(fastbits.TypeConstraintError, TypeError)


def test_the_public_functions_are_the_ones_documented():
    for function in (fastbits.quantize_linear, fastbits.dequantize_linear):
        assert callable(function)
    got = fastbits.dequantize_linear(np.array([4], np.uint8), np.array(0.5, np.float32), np.array(2, np.uint8))
    assert got.tolist() == [1.0]
    got = fastbits.quantize_linear(np.array([1.0], np.float32), np.array(0.5, np.float32), np.array(2, np.uint8))
    assert got.tolist() == [4]


def test_int32_precision_of_a_0d_input(ops):
    """A 0-d input in INT32 precision (found by the fuzz harness): the exact quotient, half to
    even, of a value beyond 2**62 too."""
    assert ops.quantize_linear(np.float32(7), np.int32(2), np.int8(0)).tolist() == 4
    assert ops.quantize_linear(np.float32(3e30), np.int32(7), np.int8(0)).tolist() == 127
    assert ops.quantize_linear(np.float32(-21), np.float32(6.0), np.int8(0), precision="INT32").tolist() == -4
