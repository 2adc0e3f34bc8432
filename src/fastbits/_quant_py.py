"""ONNX QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and MatMulInteger, the readable
reference: the operators' formulas computed exactly and rounded once, as the texts' precision
rules read (:doc:`quantize`).

* DequantizeLinear, ``y = (x - x_zero_point) * x_scale``: the difference and the product are
  exact, and the product is rounded once to the result's type ("the output type determines the
  precision of the multiplication").  Every value of x's types is an integer times a power of
  two (its type's smallest quantum), every scale a 24-bit integer times one: the product is an
  integer of at most 57 bits times a power of two, rounded to 53 bits *to odd* as a float64
  and then once to the result's type, which makes that one rounding exact.
* QuantizeLinear, ``y = saturate((x / y_scale) + y_zero_point)``: ``x`` and the scale are
  rounded to the precision (the scale's type, or ``precision``), the quotient is rounded to it
  (IEEE's division, correctly rounded), then to an integer half to even and saturated to an
  integer type's range, or, for a float target, added to the zero point exactly and cast by
  Cast's rules (``saturate`` for the float 8 types).

* DynamicQuantizeLinear: its scale and zero point by the text's formulas in float32
  arithmetic (:func:`fastbits.spec.dynamic_parameters`), then QuantizeLinear of x by them into uint8.
* MatMulInteger: numpy.matmul of the operands less their zero points, in int64 (exact: each
  product is at most 255 * 255), each sum then taken modulo 2**32 as an int32.
* QLinearMatMul: MatMulInteger's sums (float 8 operands: their exact sums, as Python ints), each
  times its scales and divided by the result's in Fractions, rounded once: half to even into an
  integer type, to the nearest float 8 value by Cast's rules (saturating) into a float 8 type.

Where the texts are silent fastbits decides once (:doc:`quantize`): a NaN quotient counts as 0
into an integer type; a FLOAT8E8M0 scale with no ``precision`` divides in float32;
DynamicQuantizeLinear of all zeros has the scale 1; MatMulInteger's sums wrap modulo 2**32, and
so do QLinearMatMul's of two integer operands; a QLinearMatMul result of zero is +0.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from typing import Any

import numpy as np

from . import _cast_py, spec
from .spec import DataType, Quantization

__all__ = ["dequantize", "dequantize_linear", "dynamic_quantize_linear", "matmul_integer", "qlinear_matmul",
           "qlinear_product", "quantize", "quantize_linear"]

#: The integer types DequantizeLinear reads (the rest of its inputs are float types).
INTEGER_INPUTS = frozenset(spec.INTEGER_RANGES)


def spread(a: np.ndarray, shape: tuple[int, ...], q: Quantization) -> np.ndarray:
    """A scale-shaped array ``a`` as an array that broadcasts to the input's ``shape``: each
    element's own scale (or zero point)."""
    if q.kind == "tensor":
        return a.reshape(())
    if q.kind == "axis":
        return a.reshape([-1 if d == q.axis else 1 for d in range(len(shape))])
    return np.take(a, np.arange(shape[q.axis]) // q.block, axis=q.axis)


def _positive_nan(v: np.ndarray) -> np.ndarray:
    """Every NaN as the positive quiet NaN: float units differ in the NaN an operation gives
    (its sign, which operand's payload), and a result must not depend on the host."""
    return np.where(np.isnan(v), np.nan, v)


def _fresh(y: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The result: a new C-contiguous array of ``shape`` holding ``y`` (broadcast)."""
    out = np.empty(shape, y.dtype)
    out[...] = y
    return out


def _values(a: np.ndarray) -> np.ndarray:
    """The elements' values as float64 (exact for every type these operators take)."""
    return a.astype(np.float64)


def _cast(v: np.ndarray, dst: DataType, saturate: bool = True) -> np.ndarray:
    """float64 values ``v`` rounded once to ``dst`` by Cast's rules."""
    return _cast_py._convert(v, DataType.DOUBLE, dst, saturate, "up")


# --------------------------------------------------------------------------
# DequantizeLinear


def _quantum(code: DataType) -> int:
    """The exponent of the smallest quantum of x's type: its values times 2**-quantum are
    integers (0 for the integer types)."""
    if code in INTEGER_INPUTS:
        return 0
    fmt = spec.FLOAT_FORMATS[code]
    return fmt.min_exponent - fmt.mbits


def dequantize(x: np.ndarray, scale: np.ndarray, zero: np.ndarray | None, q: Quantization) -> np.ndarray:
    """DequantizeLinear of a checked call (:func:`fastbits.spec.check_dequantize`); NaN and the
    infinities are values here, as in Cast: numpy's warnings of them are off."""
    with np.errstate(all="ignore"):
        s = spread(_values(scale), x.shape, q)
        xv = _values(x)
        zv = 0.0 if zero is None else spread(_values(zero), x.shape, q)
        naive = (xv - zv) * s  # right where an operand is not finite, and for every zero's sign
        shift = _quantum(q.x)
        d = np.ldexp(np.where(np.isfinite(xv), xv, 0.0), -shift).astype(np.int64)
        if zero is not None:
            d = d - np.ldexp(np.where(np.isfinite(zv), zv, 0.0), -shift).astype(np.int64)
        mantissa, exponent = np.frexp(np.where(np.isfinite(s), s, 0.0))
        m = np.ldexp(mantissa, 24).astype(np.int64)  # every scale has at most 24 significant bits
        product = np.broadcast_to(d * m, x.shape)  # exact: |d| < 2**33, |m| < 2**24
        exact = np.ldexp(_cast_py._to_odd_float64(product), (exponent - 24 + shift).astype(np.int32))
        finite = np.isfinite(naive) & (product != 0)
        y = _cast(_positive_nan(np.where(finite, exact, naive)), q.y)
    return _fresh(y, x.shape)


@spec.public_function
def dequantize_linear(x: Any, x_scale: Any, x_zero_point: Any = None, /, *, axis: int = 1, block_size: int = 0,
                      output_dtype: Any = None) -> np.ndarray:
    """ONNX DequantizeLinear (versions 10 to 28): ``(x - x_zero_point) * x_scale``, exactly,
    rounded once to the result's type.

    Parameters
    ----------
    x : array_like
        The quantized values: int8, uint8, int16, uint16, int32, a float 8 type, int4, uint4,
        int2, uint2, float4e2m1 or a float 6 type (ml_dtypes' types, one value per byte).
    x_scale : array_like
        float32, float16, bfloat16 or float8e8m0: one scale (shape ``()`` or ``(1,)``), one per
        element of ``axis`` (1-D), or one per block of ``block_size`` elements along ``axis``
        (the input's rank; that axis ``ceil(x.shape[axis] / block_size)`` long).
    x_zero_point : array_like, optional
        The scale's shape, ``x``'s type; 0 when left out.  It applies to every type, the float
        ones included.
    axis : int, optional
        The axis of per-axis and blocked scales; negative counts from the back.
    block_size : int, optional
        Elements per block (blocked scales), or 0.
    output_dtype : int, DataType, dtype or str, optional
        float32, float16 or bfloat16; by default the scale's type (which a float8e8m0 scale
        cannot be: give it).

    Returns
    -------
    numpy.ndarray
        A new C-contiguous array of ``x``'s shape.

    Raises
    ------
    TypeConstraintError
        A type the operator does not take, or a zero point of another type than ``x``.
    ArgumentValueError
        A scale or zero point whose shape does not fit ``axis`` and ``block_size``.

    Examples
    --------
    >>> import numpy as np, fastbits
    >>> fastbits.dequantize_linear(np.array([0, 3, 255], np.uint8), np.float32(0.5), np.uint8(3))
    array([ -1.5,   0. , 126. ], dtype=float32)
    >>> fastbits.dequantize_linear(np.array([2049], np.int16), np.float16(1.5)).astype(np.float32)
    array([3074.], dtype=float32)
    """
    x, scale, zero, q = spec.check_dequantize(x, x_scale, x_zero_point, axis, block_size, output_dtype)
    return dequantize(x, scale, zero, q)


# --------------------------------------------------------------------------
# QuantizeLinear


def _in_precision(v: np.ndarray, p: DataType) -> np.ndarray:
    """float64 values rounded to the precision ``p``: a float type, or INT32 (an integer, half
    to even, which has no -0; NaN and the infinities stay, and the range is not int32's: the
    division is exact, and its result saturates into the target's range in the end)."""
    if p == DataType.INT32:
        return np.rint(v) + 0.0  # -0 + 0 is +0
    return _values(_cast(v, p))


def _integer_quotient(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a / b`` for integers (float64, infinities and NaN among them), rounded half to even to
    an integer exactly; a division by zero is an infinity of ``a``'s sign, 0/0 NaN."""
    shape = a.shape
    a, b = np.atleast_1d(a), np.atleast_1d(b)  # a 0-d call: np.nonzero takes no 0-d arrays
    with np.errstate(all="ignore"):
        q = a / b  # right where an operand is not finite or b is 0
    small = np.isfinite(q) & (np.abs(a) < 2.0**62) & (np.abs(b) < 2.0**62) & (b != 0)
    num = np.where(small, a, 0).astype(np.int64)
    den = np.where(small, b, 1).astype(np.int64)
    sign = np.where((num < 0) != (den < 0), -1, 1)
    whole, rest = np.divmod(np.abs(num), np.abs(den))
    twice = 2 * rest
    up = (twice > np.abs(den)) | ((twice == np.abs(den)) & (whole % 2 == 1))
    q = np.where(small, sign * (whole + up), q)
    for i in zip(*np.nonzero(~small & np.isfinite(a) & np.isfinite(b) & (b != 0))):  # beyond 2**62: Python ints
        a_i, b_i = int(a[i]), int(b[i])
        whole_i, rest_i = divmod(abs(a_i), abs(b_i))
        up_i = 2 * rest_i > abs(b_i) or (2 * rest_i == abs(b_i) and whole_i % 2 == 1)
        q[i] = float((whole_i + up_i) * (-1 if (a_i < 0) != (b_i < 0) else 1))
    return q.reshape(shape)


def _odd_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a + b`` (float64) rounded to 53 bits to odd: the exact sum's one rounding to a narrower
    type is then the float64's (Knuth's two-sum gives the sum's rounding error)."""
    with np.errstate(all="ignore"):
        s = a + b
        bb = s - a
        err = (a - (s - bb)) + (b - bb)
    inexact = np.isfinite(s) & (err != 0)
    even = (s.view(np.uint64) & np.uint64(1)) == 0
    return np.where(inexact & even, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)


def quantize(x: np.ndarray, scale: np.ndarray, zero: np.ndarray | None, q: Quantization) -> np.ndarray:
    """QuantizeLinear of a checked call (:func:`fastbits.spec.check_quantize`); NaN and the
    infinities are values here, as in Cast: numpy's warnings of them are off."""
    with np.errstate(all="ignore"):
        xp = _in_precision(_values(x), q.precision)
        sp = spread(_in_precision(_values(scale), q.precision), x.shape, q)
        if q.precision == DataType.INT32:
            quotient = _integer_quotient(np.broadcast_to(xp, x.shape), np.broadcast_to(sp, x.shape))
        else:  # float64's quotient, rounded once more: exact (53 >= 2 * 24 + 2)
            quotient = _in_precision(xp / sp, q.precision)
        quotient = _positive_nan(quotient)
        zv = 0.0 if zero is None else spread(_values(zero), x.shape, q)
        if q.y in spec.QUANTIZED_RANGES:
            low, high = spec.QUANTIZED_RANGES[q.y]
            whole = np.where(np.isnan(quotient), 0.0, np.rint(quotient))  # NaN counts as 0
            y = _cast(np.clip(whole + zv, low, high), q.y)  # in range: Cast only stores it
        else:
            value = quotient if zero is None else _odd_sum(np.broadcast_to(quotient, x.shape),
                                                           np.broadcast_to(zv, x.shape))
            y = _cast(value, q.y, q.saturate)
        return _fresh(y, x.shape)


@spec.public_function
def quantize_linear(x: Any, y_scale: Any, y_zero_point: Any = None, /, *, axis: int = 1, block_size: int = 0,
                    output_dtype: Any = None, saturate: Any = True, precision: Any = None) -> np.ndarray:
    """ONNX QuantizeLinear (versions 10 to 28): ``saturate(x / y_scale + y_zero_point)``.

    Parameters
    ----------
    x : array_like
        float32, float16, bfloat16 or int32.
    y_scale : array_like
        float32, float16, bfloat16, int32 or float8e8m0, shaped as
        :func:`dequantize_linear`'s ``x_scale`` is.
    y_zero_point : array_like, optional
        The scale's shape and the result's type: int8, uint8, int16, uint16, int4, uint4, int2,
        uint2, a float 8 type, float4e2m1 or a float 6 type.  0 when left out.
    axis, block_size : int, optional
        As :func:`dequantize_linear`'s.
    output_dtype : int, DataType, dtype or str, optional
        The result's type; by default the zero point's, else uint8.
    saturate : bool, optional
        For the float 8 results: out of range to the largest value (True) or to infinity or
        NaN (False), as Cast's tables say.  float4 and float6 always saturate.
    precision : int, DataType, dtype or str, optional
        The type the division is rounded to: float32, float16, bfloat16 or int32; by default
        the scale's type (float32 for a float8e8m0 scale).

    Returns
    -------
    numpy.ndarray
        A new C-contiguous array of ``x``'s shape.

    Notes
    -----
    ``x`` and the scale are rounded to the precision, and so is their quotient; an integer
    result is that quotient rounded half to even, plus the zero point, saturated to the type's
    range (a NaN quotient counts as 0); a float result is the quotient plus the zero point cast
    by Cast's rules.

    Examples
    --------
    >>> import numpy as np, fastbits
    >>> fastbits.quantize_linear(np.array([-1.0, 0.25, 0.75, 300.0], np.float32), np.float32(0.5), np.uint8(3))
    array([  1,   3,   5, 255], dtype=uint8)
    >>> y = fastbits.quantize_linear(np.array([1.0, 1000.0], np.float32), np.float32(1.0), output_dtype="FLOAT8E4M3FN")
    >>> y.astype(np.float32)
    array([  1., 448.], dtype=float32)
    """
    x, scale, zero, q = spec.check_quantize(x, y_scale, y_zero_point, axis, block_size, output_dtype, saturate,
                                            precision)
    return quantize(x, scale, zero, q)


# --------------------------------------------------------------------------
# DynamicQuantizeLinear

#: DynamicQuantizeLinear's call of QuantizeLinear: float32 into uint8 by one scale.
DYNAMIC = Quantization(DataType.FLOAT, DataType.FLOAT, DataType.UINT8, DataType.FLOAT, "tensor", 0, 0, True)


@spec.public_function
def dynamic_quantize_linear(x: Any, /) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ONNX DynamicQuantizeLinear (version 11): x's scale and zero point from its range, and x
    quantized by them into uint8.

    Parameters
    ----------
    x : array_like
        float32.

    Returns
    -------
    y : numpy.ndarray
        uint8, a new C-contiguous array of ``x``'s shape: ``saturate(round(x / y_scale) +
        y_zero_point)``, as :func:`quantize_linear` computes it.
    y_scale : numpy.ndarray
        float32, 0-d: ``(maximum(0, max(x)) - minimum(0, min(x))) / 255`` in float32; 1 where x
        is all zeros.
    y_zero_point : numpy.ndarray
        uint8, 0-d: ``round(saturate(0 - min(x) / y_scale))``, half to even.

    Notes
    -----
    A NaN in x makes the scale NaN; the zero point and every element of y are then 0 (a NaN
    quotient counts as 0, as in :func:`quantize_linear`).  onnx's reference gives a zero point of
    255 there, and onnxruntime's depends on where the NaN is.

    Examples
    --------
    >>> import numpy as np, fastbits
    >>> y, scale, zero = fastbits.dynamic_quantize_linear(np.array([0, 2, -3, -2.5, 1.34, 0.5], np.float32))
    >>> y, scale, zero
    (array([153, 255,   0,  26, 221, 179], dtype=uint8), array(0.01960784, dtype=float32), array(153, dtype=uint8))
    """
    x = spec.check_dynamic_quantize(x)
    scale, zero = spec.dynamic_parameters(x)
    return quantize(x, scale, zero, DYNAMIC), scale, zero


# --------------------------------------------------------------------------
# MatMulInteger


@spec.public_function
def matmul_integer(a: Any, b: Any, a_zero_point: Any = None, b_zero_point: Any = None, /) -> np.ndarray:
    """ONNX MatMulInteger (version 10): ``(a - a_zero_point) @ (b - b_zero_point)`` into int32,
    as numpy.matmul multiplies, each sum exact.

    Parameters
    ----------
    a, b : array_like
        int8 or uint8, each of one axis or more (numpy.matmul's shapes: a 1-D operand is a
        vector, leading axes are a batch and broadcast).
    a_zero_point : array_like, optional
        ``a``'s type: one (shape ``()`` or ``(1,)``), or one per row of ``a`` (shape ``(M,)``,
        or ``(..., M, 1)`` of ``a``'s rank).  0 when left out.
    b_zero_point : array_like, optional
        ``b``'s type: one, or one per column of ``b`` (shape ``(N,)``, or ``(..., 1, N)``).

    Returns
    -------
    numpy.ndarray
        int32, a new C-contiguous array of numpy.matmul's result shape.

    Notes
    -----
    Each product is exact (at most 255 * 255); each sum is exact modulo 2**32, stored as a
    two's complement int32: the sum itself wherever it fits in an int32 (always where ``a``
    has at most 33,025 columns), a wrapped one beyond, the same on every host.

    Examples
    --------
    >>> import numpy as np, fastbits
    >>> a = np.array([[11, 7, 3], [10, 6, 2], [9, 5, 1], [8, 4, 0]], np.uint8)
    >>> b = np.array([[1, 4], [2, 5], [3, 6]], np.uint8)
    >>> fastbits.matmul_integer(a, b, np.uint8(12), np.uint8(0))
    array([[ -38,  -83],
           [ -44,  -98],
           [ -50, -113],
           [ -56, -128]], dtype=int32)
    """
    a, b, za, zb, shape = spec.check_matmul_integer(a, b, a_zero_point, b_zero_point)
    av = a.astype(np.int64) - (0 if za is None else za.astype(np.int64))
    bv = b.astype(np.int64) - (0 if zb is None else zb.astype(np.int64))
    return _fresh(_int32_sums(av, bv), shape)


def _int32_sums(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """numpy.matmul of int64 arrays of 8-bit operands less their zero points, each sum exact
    (|sum| <= k * 255**2 < 2**63) and then taken modulo 2**32 as a two's complement int32."""
    return np.asarray(np.matmul(a, b)).astype(np.uint32).view(np.int32)


# --------------------------------------------------------------------------
# QLinearMatMul

#: Columns of ``a`` whose products :func:`_exact_matmul` sums in int64 at a time.
_DEPTH = 2**26


def _fixed_point(x: np.ndarray, zero: np.ndarray) -> tuple[np.ndarray, int, np.ndarray | None]:
    """``x - zero`` exactly: int64 integers times ``2**exponent`` (0 for the integer types, the
    smallest quantum of a float 8 type), and the float64 differences where one is NaN or
    infinite (None where none is)."""
    code = spec.datatype_of(x.dtype)
    if code in INTEGER_INPUTS:
        return x.astype(np.int64) - zero.astype(np.int64), 0, None
    exponent = _quantum(code)
    with np.errstate(all="ignore"):
        v = _values(x) - _values(zero)  # exact: the difference of two float 8 values has at most 35 bits
    finite = np.isfinite(v)
    fixed = np.ldexp(np.where(finite, v, 0.0), -exponent).astype(np.int64)
    return fixed, exponent, None if finite.all() else v


def _exact_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """numpy.matmul of int64 arrays (2-D or more, each element below 2**35 in magnitude), each sum
    exact: an object array of Python ints.  Each element is split into 18-bit halves, whose
    products' sums fit in an int64 for :data:`_DEPTH` columns of ``a`` at a time."""
    total = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]), object)
    for k in range(0, a.shape[-1], _DEPTH):
        pa, pb = a[..., k:k + _DEPTH], b[..., k:k + _DEPTH, :]
        high_a, low_a, high_b, low_b = pa >> 18, pa & (2**18 - 1), pb >> 18, pb & (2**18 - 1)
        total = (total + (np.matmul(high_a, high_b).astype(object) << 36)
                 + ((np.matmul(high_a, low_b) + np.matmul(low_a, high_b)).astype(object) << 18)
                 + np.matmul(low_a, low_b).astype(object))
    return total


def _non_finite(a: np.ndarray, special_a: np.ndarray | None, b: np.ndarray, special_b: np.ndarray | None
                ) -> np.ndarray:
    """Where a product's sum is NaN or infinite by IEEE's rules (inf * 0 and inf - inf are NaN),
    that value; 0 elsewhere.  Each finite operand counts as its sign: the sum of those is finite,
    and the non-finite ones decide alone.  numpy's einsum multiplies every pair, where BLAS
    may skip a zero."""
    signs_a = np.sign(a).astype(np.float64) if special_a is None else np.where(
        np.isfinite(special_a), np.sign(special_a), special_a)
    signs_b = np.sign(b).astype(np.float64) if special_b is None else np.where(
        np.isfinite(special_b), np.sign(special_b), special_b)
    with np.errstate(all="ignore"):
        sums = np.einsum("...ik,...kj->...ij", signs_a, signs_b)
    return np.where(np.isfinite(sums), 0.0, sums)


def _odd(r: Fraction) -> float:
    """``r`` rounded to a float64 to odd: its one rounding to a narrower type is then ``r``'s
    (53 bits are at least 2 more than a float 8 type has); beyond float64's range, its largest
    value, which rounding to odd gives."""
    try:
        f = float(r)  # correctly rounded
    except OverflowError:
        return math.copysign(sys.float_info.max, r)
    if Fraction(f) != r and not int(np.float64(f).view(np.int64)) & 1:
        f = math.nextafter(f, math.inf if r > f else -math.inf)
    return f


def _requantized(total: int, special: float, exponent: int, a_scale: float, b_scale: float, y_scale: float,
                 zero: float, low: int | None, high: int | None) -> float:
    """One result, as a float64: ``x / y_scale`` for ``x = total * 2**exponent * a_scale *
    b_scale`` (or the non-finite ``special``), rounded half to even plus the zero point and
    saturated to ``[low, high]``, or, for a float 8 result (``low`` None), plus the zero point
    and rounded to odd (:func:`_odd`) for Cast."""
    if special == 0 and all(map(math.isfinite, (a_scale, b_scale, y_scale, zero))) and y_scale != 0:
        r = Fraction(total) * Fraction(2) ** exponent * Fraction(a_scale) * Fraction(b_scale) / Fraction(y_scale)
        if low is None:
            return _odd(r + Fraction(zero))
        return float(min(max(round(r) + int(zero), low), high))  # round: half to even
    # IEEE's arithmetic where a value is not finite (a float 8 zero point may be NaN) or y_scale is 0
    x = (np.float64(special) if special != 0 else np.float64(float(total) * 2.0**exponent)) * a_scale * b_scale
    q = x / np.float64(y_scale)
    if low is None:
        return float(q + zero)
    whole = 0.0 if np.isnan(q) else np.rint(q)  # NaN counts as 0
    return float(np.clip(whole + zero, low, high))


def qlinear_product(call: spec.QLinearMatMulCall) -> np.ndarray:
    """QLinearMatMul of a checked call (:func:`fastbits.spec.check_qlinear_matmul`)."""
    a = call.a if call.a.ndim >= 2 else call.a.reshape(1, -1)
    b = call.b if call.b.ndim >= 2 else call.b.reshape(-1, 1)
    fixed_a, exponent_a, special_a = _fixed_point(a, call.a_zero)
    fixed_b, exponent_b, special_b = _fixed_point(b, call.b_zero)
    if exponent_a == exponent_b == 0:  # two integer types: MatMulInteger's sums, modulo 2**32
        total = _int32_sums(fixed_a, fixed_b).astype(object)
    else:
        total = _exact_matmul(fixed_a, fixed_b)
    special = (np.zeros(total.shape) if special_a is None and special_b is None
               else _non_finite(fixed_a, special_a, fixed_b, special_b))
    y = spec.datatype_of(call.y_zero.dtype)
    low, high = spec.QUANTIZED_RANGES.get(y, (None, None))
    with np.errstate(all="ignore"):
        values = np.frompyfunc(_requantized, 9, 1)(
            total, special, exponent_a + exponent_b, _values(call.a_scale), _values(call.b_scale),
            _values(call.y_scale), _values(call.y_zero), low, high)
    y_values = _cast(np.asarray(values, np.float64), y)  # in range for an integer type: Cast only stores it
    return _fresh(y_values.reshape(call.shape), call.shape)


@spec.public_function
def qlinear_matmul(a: Any, a_scale: Any, a_zero_point: Any, b: Any, b_scale: Any, b_zero_point: Any, y_scale: Any,
                   y_zero_point: Any, /) -> np.ndarray:
    """ONNX QLinearMatMul (versions 10 and 21): ``saturate(x / y_scale + y_zero_point)`` for ``x``
    the product of the dequantized operands, ``((a - a_zero_point) * a_scale) @ ((b -
    b_zero_point) * b_scale)``, as numpy.matmul multiplies.

    Parameters
    ----------
    a, b : array_like
        int8, uint8 or a float 8 type, each of one axis or more (numpy.matmul's shapes).
    a_scale, a_zero_point : array_like
        One shape: one value (shape ``()`` or ``(1,)``), or one per row of ``a`` (``(M,)``, or
        ``(..., M, 1)`` of ``a``'s rank).  The scale float32, float16 or bfloat16; the zero point
        of ``a``'s type.
    b_scale, b_zero_point : array_like
        One value, or one per column of ``b`` (``(N,)``, or ``(..., 1, N)``); the scale of
        ``a_scale``'s type, the zero point of ``b``'s.
    y_scale, y_zero_point : array_like
        One value each: the scale of ``a_scale``'s type; the zero point of the result's type
        (int8, uint8 or a float 8 type).

    Returns
    -------
    numpy.ndarray
        ``y_zero_point``'s type, a new C-contiguous array of numpy.matmul's result shape.

    Notes
    -----
    Each result is computed exactly and rounded once.  The sums of two integer operands are
    MatMulInteger's, exact modulo 2**32 ("accumulation may overflow if and only if in 32
    bits"); a float 8 operand's are exact.  ``x / y_scale`` is exact too: an integer result is
    it rounded half to even, plus the zero point, saturated to the type's range (NaN counts as
    0); a float 8 result is it plus the zero point, rounded to nearest even by Cast's rules,
    saturating.  A result of zero is +0.  onnx's reference and onnxruntime round the scales'
    quotient to float32 first, which differs from this near a tie (:doc:`quantize`).

    Examples
    --------
    >>> import numpy as np, fastbits
    >>> a = np.array([[208, 236, 0, 238], [3, 214, 255, 29]], np.uint8)
    >>> b = np.array([[152, 51, 244], [60, 26, 255], [0, 127, 246], [127, 254, 247]], np.uint8)
    >>> fastbits.qlinear_matmul(a, np.float32(0.0066), np.uint8(113), b, np.float32(0.00705), np.uint8(114),
    ...                         np.float32(0.0107), np.uint8(118))
    array([[168, 115, 255],
           [  1,  66, 151]], dtype=uint8)
    """
    return qlinear_product(spec.check_qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                                                     y_zero_point))
