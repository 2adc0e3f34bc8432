"""ONNX Cast and CastLike, the readable reference: every value of every non-string type into
every other, as Cast-28's doc and onnx's pages on the narrow types state it.  The compiled
``cast`` looks one-byte sources up in tables of their 256 results, which this module computes.

A value goes through one exact intermediate: a float64 for a float source (every value of
every ONNX float type is a float64) and for an integer source that fits in 53 bits; the
integer itself, as int64 or uint64, for the rest.  From there each kind of target has one
rule, written once:

* a float format (:data:`fastbits.spec.FLOAT_FORMATS`): round to nearest, ties to even, on
  the exact value, then the format's own rule for what is out of range, infinite, NaN or a
  zero (:func:`_to_float_codes`); float64 and float32 by numpy, which rounds the same way;
* FLOAT8E8M0 (powers of two): the ``round_mode`` and ``saturate`` of Cast's table
  (:func:`_to_e8m0_codes`);
* an integer from a float: toward zero for the 8- to 64-bit types, to nearest even for the
  4- and 2-bit ones (int4.md, int2.md); what the spec leaves undefined is decided once
  (:doc:`cast`): NaN gives 0; infinities and values out of range saturate to an 8- to 64-bit
  type's range; a 4- or 2-bit type keeps the low bits of the rounded value ("rounding and
  truncating", as onnx's stored node tests expect), and 0 for NaN and the infinities;
* an integer from an integer: the low bits, read in the target's two's complement (Cast's
  "discard higher bits and reinterpret");
* bool: zero (and -0) is False, everything else True; False and True are 0 and 1.

A large integer (beyond 2**53) going to a float is first rounded to 53 bits *to odd* (its
lowest bit set when any bit below was), which makes the one rounding to the narrower target
exact: a value beside a tie of the target never becomes the tie.  No element goes through
Python: every step is a numpy operation over the whole array.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import spec
from ._runtime_py import allocate
from .spec import CAST, CAST_LIKE, DataType

__all__ = ["cast", "cast_like"]

_FLOATS = frozenset(spec.FLOAT_FORMATS) | {DataType.FLOAT8E8M0}
_SMALL_INTS = {code: span for code, span in spec.INTEGER_RANGES.items() if code in spec.SUBBYTE_TYPES}
_EXACT_INT = 2**53  # every integer of magnitude up to this is a float64


# --------------------------------------------------------------------------
# the exact intermediate


def _values(x: np.ndarray, src: DataType) -> np.ndarray:
    """The values of ``x`` (of type ``src``): float64 for floats and bools, int64 or uint64
    for integers."""
    if src == DataType.BOOL:
        return x.astype(np.float64)
    if src in _FLOATS:
        return x.astype(np.float64)  # exact: ml_dtypes decodes the narrow formats exactly
    if src == DataType.UINT64:
        return x.astype(np.uint64)
    return x.astype(np.int64)


def _to_odd_float64(v: np.ndarray) -> np.ndarray:
    """Integers (int64 or uint64) as float64, those beyond 2**53 rounded to 53 bits to odd."""
    if v.dtype == np.uint64:
        negative = np.zeros(v.shape, bool)
        magnitude = v
    else:
        negative = v < 0
        bits = v.view(np.uint64)
        magnitude = np.where(negative, ~bits + np.uint64(1), bits)  # |v|, -2**63 included
    result = magnitude.astype(np.float64)
    big = magnitude > np.uint64(_EXACT_INT)
    if big.any():
        m = magnitude[big]
        bits = np.floor(np.log2(m.astype(np.float64))).astype(np.int64) + 1  # may be one too many
        bits -= (m >> (bits - 1).astype(np.uint64)) == 0
        shift = (bits - 53).astype(np.uint64)
        kept = m >> shift
        sticky = (m & ((np.uint64(1) << shift) - np.uint64(1))) != 0
        result[big] = np.ldexp((kept | sticky.astype(np.uint64)).astype(np.float64), shift.astype(np.int32))
    return np.where(negative, -result, result)


def _as_float64(v: np.ndarray) -> np.ndarray:
    """The exact intermediate as a float64 a float target can round once."""
    return v if v.dtype == np.float64 else _to_odd_float64(v)


# --------------------------------------------------------------------------
# float targets


def _to_float_codes(v: np.ndarray, fmt: spec.FloatFormat, saturate: bool) -> np.ndarray:
    """The codes (uint64) of the float64 values ``v`` in format ``fmt``: round to nearest even,
    then the rules of Cast's tables (float 8), float4.md and float6.md."""
    sign = np.signbit(v)
    nan = np.isnan(v)
    inf = np.isinf(v)
    a = np.where(nan | inf, 0.0, np.abs(v))
    # the quantum of the binade each value falls in (subnormals share the smallest one)
    exponent = np.maximum(np.frexp(a)[1] - 1, fmt.min_exponent)
    quantum = (exponent - fmt.mbits).astype(np.int32)  # ldexp's exponents: C ints everywhere
    rounded = np.ldexp(np.rint(np.ldexp(a, -quantum)), quantum)  # exact: rint is ties-to-even
    over = rounded > fmt.max
    # the code of a finite rounded value within range
    e2 = np.frexp(rounded)[1] - 1
    normal = (rounded != 0) & (e2 >= fmt.min_exponent)
    field = np.where(normal, e2 + fmt.bias, 0).astype(np.int64)
    scale = (np.where(normal, e2, fmt.min_exponent) - fmt.mbits).astype(np.int32)
    mantissa = np.ldexp(rounded, -scale).astype(np.int64) - np.where(normal, 1 << fmt.mbits, 0)
    codes = (field << fmt.mbits | np.where(over, 0, mantissa)).astype(np.uint64)
    # then what is out of range, infinite or NaN

    top = 1 << (fmt.ebits + fmt.mbits)  # the sign bit
    largest = _largest_code(fmt)
    saturating = fmt.special is None or (fmt.saturable and saturate)
    if fmt.special is None:  # float4, float6: NaN to the largest value, infinities saturate
        codes = np.where(nan, largest, np.where(inf | over, largest, codes))
        sign = sign & ~nan
    elif saturating:  # the float 8 types with saturate: out of range and infinities to the largest
        codes = np.where(inf | over, largest, codes)
        codes = np.where(nan, _nan_code(fmt), codes)
    else:  # IEEE types (infinity), and the float 8 types with saturate=False
        overflow = _inf_code(fmt) if fmt.special == "ieee" else _nan_code(fmt)
        codes = np.where(inf | over, overflow, codes)
        codes = np.where(nan, _nan_code(fmt), codes)
    keep_sign = sign & ~((codes == 0) & (not fmt.signed_zero))
    codes = codes | np.where(keep_sign, np.uint64(top), np.uint64(0))
    if fmt.special == "uz":  # one NaN, the code of -0, whatever the sign
        codes = np.where(nan | ((inf | over) & (not saturating)), np.uint64(top), codes)
    return codes


def _largest_code(fmt: spec.FloatFormat) -> np.uint64:
    """The code of the format's largest finite value."""
    mantissas = (1 << fmt.mbits) - 1
    if fmt.special == "ieee":
        return np.uint64(((1 << fmt.ebits) - 2) << fmt.mbits | mantissas)
    if fmt.special == "fn":  # the all-ones code is NaN
        return np.uint64(((1 << fmt.ebits) - 1) << fmt.mbits | (mantissas - 1))
    return np.uint64(((1 << fmt.ebits) - 1) << fmt.mbits | mantissas)


def _inf_code(fmt: spec.FloatFormat) -> np.uint64:
    return np.uint64(((1 << fmt.ebits) - 1) << fmt.mbits)


def _nan_code(fmt: spec.FloatFormat) -> np.uint64:
    if fmt.special == "ieee":  # a quiet NaN: the mantissa's top bit
        return np.uint64(((1 << fmt.ebits) - 1) << fmt.mbits | 1 << (fmt.mbits - 1))
    if fmt.special == "fn":
        return np.uint64((1 << (fmt.ebits + fmt.mbits)) - 1)
    return np.uint64(1 << (fmt.ebits + fmt.mbits))  # uz: the code of -0


def _to_e8m0_codes(v: np.ndarray, saturate: bool, round_mode: str) -> np.ndarray:
    """FLOAT8E8M0 codes (uint64) of the float64 values ``v``: 2**(code - 127), 255 NaN.

    Cast's table tests the value itself: beyond 2**127 (infinity too) and below 2**-127 (zero
    too), ``saturate`` gives the nearer end, else NaN, whatever ``round_mode``.  Inside, the
    exponent k of a value rounds as ``round_mode`` says (``up``: the power of two at or above
    it; ``down``: at or below; ``nearest``: the nearer, a tie (1.5 * 2**k) up), which stays
    inside.  The spec leaves negative values and -0 unspecified: fastbits reads them by
    magnitude (the sign bit has nowhere to go), so -0 is 0 and -4 is 4.
    """
    nan = np.isnan(v)
    a = np.where(nan, 1.0, np.abs(v))
    low, high = a < 2.0**-127, a > 2.0**127  # zero and infinity among them
    mantissa, exponent = np.frexp(np.where(low | high, 1.0, a))  # a = mantissa * 2**exponent, mantissa in [0.5, 1)
    k = exponent - 1  # a = (2 * mantissa) * 2**k
    if round_mode == "up":
        k = k + (mantissa > 0.5)
    elif round_mode == "nearest":
        k = k + (mantissa >= 0.75)
    if saturate:
        codes = np.where(low, 0, np.where(high, 254, k + 127)).astype(np.uint64)
    else:
        codes = np.where(low | high, 255, k + 127).astype(np.uint64)
    return np.where(nan, np.uint64(255), codes)


# --------------------------------------------------------------------------
# integer and bool targets


def _to_integers(v: np.ndarray, src: DataType, dst: DataType) -> np.ndarray:
    """The values of ``v`` (the exact intermediate) as integers of type ``dst``."""
    if v.dtype == np.float64 and src != DataType.BOOL:
        return _float_to_integers(v, dst)
    if dst in _SMALL_INTS:  # the low bits, in the target's two's complement
        low, high = _SMALL_INTS[dst]
        span = high - low + 1
        bits = (v.astype(np.int64) if v.dtype != np.uint64 else v).astype(np.uint64) & np.uint64(span - 1)
        return (bits.astype(np.int64) - np.where(bits > np.uint64(high), span, 0)).astype(np.int8)
    return v.astype(spec.numpy_dtype(dst))  # numpy keeps the low bits


def _float_to_integers(v: np.ndarray, dst: DataType) -> np.ndarray:
    """Floats as integers of type ``dst``: toward zero (8 to 64 bits) or to nearest even (4 and
    2 bits); NaN 0; the rest saturated to an 8- to 64-bit type's range, or its low bits in a 4-
    or 2-bit type (onnx's stored node tests: 8.0 into int4 is -8), 0 for the infinities."""
    if dst in _SMALL_INTS:
        low, high = _SMALL_INTS[dst]
        span = high - low + 1
        bits = np.fmod(np.rint(v), span)  # exact (fmod never rounds); NaN for NaN and infinities
        bits = np.where(np.isfinite(bits), bits, 0.0)
        bits = np.where(bits < 0, bits + span, bits)
        return (bits - np.where(bits > high, span, 0)).astype(np.int8)
    info = np.iinfo(spec.numpy_dtype(dst))
    low, high, dtype = int(info.min), int(info.max), info.dtype
    whole = np.where(np.isnan(v), 0.0, np.trunc(v))
    below, above = whole < low, whole >= float(high) + 1  # float(high) + 1 is a power of two
    safe = np.where(below | above, 0.0, whole).astype(dtype)
    return np.where(below, dtype.type(low), np.where(above, dtype.type(high), safe))


# --------------------------------------------------------------------------
# the operator


def _convert(x: np.ndarray, src: DataType, dst: DataType, saturate: bool, round_mode: str) -> np.ndarray:
    """``x`` (of type ``src``) cast to ``dst``: a new array of ``x``'s shape."""
    target = spec.numpy_dtype(dst).newbyteorder("=")
    if src == dst:
        return x.astype(target)
    v = _values(x, src)
    if dst == DataType.BOOL:
        return v != 0
    if dst == DataType.DOUBLE:
        return v.astype(target)  # numpy rounds an integer to nearest even, once
    if dst == DataType.FLOAT:
        return _as_float64(v).astype(target)  # to nearest even; out of range to infinity
    if dst == DataType.FLOAT8E8M0:
        return _to_e8m0_codes(_as_float64(v), saturate, round_mode).astype(np.uint8).view(target)
    if dst in spec.FLOAT_FORMATS:
        codes = _to_float_codes(_as_float64(v), spec.FLOAT_FORMATS[dst], saturate)
        return codes.astype(np.uint16 if target.itemsize == 2 else np.uint8).view(target)
    result = _to_integers(v, src, dst)
    if dst in _SMALL_INTS:
        return (result.view(np.uint8) & np.uint8((1 << spec.bit_width(dst)) - 1)).view(target)
    return result.astype(target)


def run(op: str, x: Any, to: Any, saturate: Any, round_mode: Any, out: Any, order: Any,
        convert: Callable[..., np.ndarray] | None = None) -> np.ndarray:
    """Cast (``to``: a type) or CastLike (``to``: an array of the target type), each call's
    checks, ``out`` and ``order`` as the reference's.  The values are converted by
    :func:`_convert`, or by ``convert`` (the compiled path's C conversions), which takes
    :func:`_convert`'s parameters and ``into``, the array the result goes into (``out``, a
    fresh array of the order asked for, or None for a C-contiguous one), and returns ``into``
    written or a new array."""
    if op == CAST_LIKE:
        to = spec.as_array(op, to, "target_type", spec.CAST_T).dtype
    order = spec.check_order(op, order)
    saturate = spec.check_saturate(op, saturate)
    round_mode = spec.check_round_mode(op, round_mode)
    x = spec.as_array(op, x, "input", spec.CAST_T)
    src, dst = spec.check_cast(op, x.dtype, to)
    target = spec.numpy_dtype(dst).newbyteorder("=")
    into = None
    if out is not None:
        into = spec.check_out(op, out, x.shape, dst)
    elif not (order == "C" or (order != "F" and x.flags.c_contiguous)):  # another layout than C's
        into = allocate(op, x.shape, target, (x,), order)
    with np.errstate(all="ignore"):  # overflow to infinity is the rule, not an accident
        if convert is None:
            result = _convert(x, src, dst, saturate, round_mode)
        else:
            result = convert(x, src, dst, saturate, round_mode, into)
    if result is into:
        return result
    if into is None:
        if result.flags.c_contiguous:
            return result  # already laid out as allocate would lay it out: no second copy
        into = allocate(op, x.shape, target, (x,), order)
    into[...] = result  # by value: out may be in either byte order
    return into


@spec.public_function
def cast(x: Any, to: Any, /, *, saturate: Any = True, round_mode: str = "up", out: np.ndarray | None = None,
         order: str = "K") -> np.ndarray:
    """ONNX Cast (Cast-6 to Cast-28): the elements of ``x`` as type ``to``.

    Parameters
    ----------
    x : array_like
        An array of any of the 27 non-string ONNX types (numpy's, and ml_dtypes' for bfloat16,
        the float 8, float 6 and float 4 types and the 4- and 2-bit integers), in either byte
        order, any strides, read-only or not.
    to : int, DataType, dtype or str
        The target type, as :func:`fastbits.bitcast` takes it: an ONNX code (``1``,
        ``TensorProto.FLOAT``), a :class:`~fastbits.DataType`, a dtype or a name
        (``"FLOAT8E4M3FN"``, ``"float8_e4m3fn"``).
    saturate : bool, optional
        For the float 8 targets and FLOAT8E8M0: out-of-range values and infinities become the
        largest value (True, the default) or infinity or NaN (False), as Cast's tables say;
        into FLOAT8E8M0, a value beyond 2**127 or below 2**-127 (zero too) becomes the nearer
        end (True) or NaN (False), whatever ``round_mode``.
    round_mode : {"up", "down", "nearest"}, optional
        For FLOAT8E8M0 targets: the power of two at or above a value, at or below it, or the
        nearer one (a tie up).
    out : numpy.ndarray, optional
        Where to write the result: ``x``'s shape and ``to``'s type, writeable.
    order : {"K", "C", "F", "A"}, optional
        The layout of a fresh result, as numpy's ``astype`` lays it out (``"K"``: ``x``'s).

    Returns
    -------
    numpy.ndarray
        ``x``'s values as ``to``: native byte order, one value per byte for the narrow types.

    Raises
    ------
    TypeConstraintError
        ``x`` or ``to`` is a string or complex type: fastbits leaves strings to onnx, and
        complex is not among Cast's types.
    UnknownDataTypeError
        ``to`` names no ONNX type.
    ArgumentTypeError, ArgumentValueError
        A ``saturate``, ``round_mode``, ``order`` or ``out`` that is not one of the above.

    Notes
    -----
    Floats round to nearest, ties to even; integers take the low bits of a wider integer;
    floats become 8- to 64-bit integers by truncation toward zero, and 4- and 2-bit integers
    by rounding to nearest even.  Where the spec leaves a result undefined (NaN, infinities
    and out-of-range floats into integers; negative values and -0 into FLOAT8E8M0) fastbits
    gives one result on every host: the docs' "Cast and CastLike" page lists them beside
    what others do.

    Examples
    --------
    >>> import numpy as np, fastbits
    >>> fastbits.cast(np.array([1.5, 2.5, -2.5, 100.0], np.float32), "INT4").astype(np.int8)
    array([ 2,  2, -2,  4], dtype=int8)
    >>> fastbits.cast(np.array([500.0, np.inf], np.float32), "FLOAT8E4M3FN").astype(np.float32)
    array([448., 448.], dtype=float32)
    >>> fastbits.cast(np.array([200], np.int16), np.int8)
    array([-56], dtype=int8)
    """
    return run(CAST, x, to, saturate, round_mode, out, order)


@spec.public_function
def cast_like(x: Any, target_type: Any, /, *, saturate: Any = True, round_mode: str = "up",
              out: np.ndarray | None = None, order: str = "K") -> np.ndarray:
    """ONNX CastLike (CastLike-15 to CastLike-25): :func:`cast` to the type of ``target_type``.

    ``target_type`` is an array (only its dtype is read) of one of the types :func:`cast`
    takes; the other arguments are :func:`cast`'s.

    >>> import numpy as np, fastbits
    >>> fastbits.cast_like(np.array([2.5, 3.5]), np.zeros(0, np.int8))
    array([2, 3], dtype=int8)
    """
    return run(CAST_LIKE, x, target_type, saturate, round_mode, out, order)
