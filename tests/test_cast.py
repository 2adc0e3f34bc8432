"""Cast and CastLike against an exact statement of the spec (tests/support.py: cast_exact, in
Fractions), on both paths: every code of every type of 16 bits or fewer, the midpoints between
neighbouring values of every float target and the values beside them, the saturation rows,
FLOAT8E8M0's three modes, integers from floats and from integers, every ordered pair on values
both types hold, the texts' own examples, layouts, ``out=`` and the errors."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import fastbits
from fastbits import DataType, _cast_py, spec
from support import COMPILED, FLOAT_SPECS, INT_RANGES, NAN, cast_exact, exact_of_bits, exact_values, same_cast_result

CAST_TYPES = sorted(spec.CAST_T)
NARROW = [t for t in CAST_TYPES if spec.bit_width(t) <= 16]
FLOAT_TARGETS = sorted(FLOAT_SPECS) + [DataType.FLOAT8E8M0]


def dtype_of(code):
    return spec.numpy_dtype(code)


def every_code(code) -> np.ndarray:
    """Every value of a type of 16 bits or fewer, once each (its canonical codes)."""
    if code == DataType.BOOL:
        return np.array([False, True])
    width = spec.bit_width(code)
    return np.arange(1 << width, dtype=np.uint16 if width > 8 else np.uint8).view(dtype_of(code))


def check(ops, x: np.ndarray, dst, saturate=True, round_mode="up"):
    got = ops.cast(x, dst, saturate=saturate, round_mode=round_mode)
    assert got.dtype == dtype_of(dst) and got.shape == x.shape
    for value, result in zip(exact_values(x), exact_values(got)):
        expected = cast_exact(value, dst, saturate, round_mode)
        assert same_cast_result(result, expected), (spec.type_string(spec.datatype_of(x.dtype)), dst.name, value,
                                                     result, expected, saturate, round_mode)


# --------------------------------------------------------------------------
# upcasts: every code of every narrow type, exactly


@functools.cache
def _exact_codes(src) -> tuple[np.ndarray, np.ndarray]:
    """Every value of ``src`` (:func:`every_code`) exactly, as float64 (each is one) and its
    sign, from the exact statement (tests/support.py)."""
    exact = [(int(v < 0), Fraction(abs(int(v)))) if isinstance(v, (bool, int)) else v
             for v in exact_values(every_code(src))]
    floats = [np.nan if q == NAN else np.inf if q == "inf" else float(q) for _, q in exact]
    assert all(q in (NAN, "inf") or Fraction(f) == q for f, (_, q) in zip(floats, exact))  # each exact
    return np.array(floats) * np.where([s for s, _ in exact], -1.0, 1.0), np.array([s for s, _ in exact], bool)


@pytest.mark.parametrize("src", NARROW, ids=lambda t: t.name)
@pytest.mark.parametrize("dst", [DataType.FLOAT, DataType.DOUBLE], ids=lambda t: t.name)
def test_every_code_of_every_narrow_type_casts_exactly(ops, src, dst):
    expected, negative = _exact_codes(src)
    got = ops.cast(every_code(src), dst)
    assert got.dtype == dtype_of(dst)
    got = got.astype(np.float64)  # exact
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan], expected[~nan]) and np.array_equal(np.signbit(got), negative)


# --------------------------------------------------------------------------
# float targets: the midpoints between neighbours, and the values beside them


def _neighbours_and_midpoints(dst) -> np.ndarray:
    """float64 values around every tie of ``dst``'s positive finite values (around 2**10 of them,
    spread over the binades, for the 16- and 32-bit types): each value, the midpoint between it
    and the next (the largest value's with the next binade included), and the float64s just
    beside each midpoint; and their negatives."""
    ebits, mbits, bias, largest, _ = FLOAT_SPECS[dst]
    positive = 1 << (ebits + mbits)
    step = max(1, positive >> 10)
    values, mids = [], []
    for code in range(0, positive, step):
        low, high = exact_of_bits(code, dst)[1], exact_of_bits(code + 1, dst)[1]
        if low in (NAN, "inf"):
            continue
        if high in (NAN, "inf") or high > largest or code + 1 == positive:  # past the largest value
            high = largest + (largest - exact_of_bits(code - 1, dst)[1])
        values.append(float(low))
        mids.append(float((low + high) / 2))
    around = [np.nextafter(m, d) for m in mids for d in (-np.inf, np.inf)]
    sample = np.array(values + mids + around, np.float64)
    return np.concatenate([sample, -sample])


@pytest.mark.parametrize("dst", sorted(set(FLOAT_SPECS) - {DataType.DOUBLE}), ids=lambda t: t.name)
@pytest.mark.parametrize("saturate", [True, False])
def test_ties_round_to_even_and_their_neighbours_round_to_nearest(ops, dst, saturate):
    x = _neighbours_and_midpoints(dst)
    check(ops, x, dst, saturate)
    if dst != DataType.FLOAT:
        with np.errstate(over="ignore"):
            check(ops, x.astype(np.float32), dst, saturate)  # float32 rounds some first: exact from there


@pytest.mark.parametrize("dst", FLOAT_TARGETS, ids=lambda t: t.name)
@pytest.mark.parametrize("saturate", [True, False])
def test_specials_subnormals_and_random_floats(ops, dst, saturate):
    rng = np.random.default_rng(int(dst))
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 5e-324, -5e-324, 1e-45, 1e308, -1e308, 2.0**-127,
               2.0**-126, 2.0**-128, 2.0**127, 2.0**128, 1.5 * 2.0**127, 65504.0, 65520.0, 448.0, 464.0, 480.0,
               240.0, 248.0, 57344.0, 61440.0, 6.0, 7.0, 7.5, 7.75, 28.0, 30.0, 0.25, 0.0625, 0.03125]
    wide = rng.standard_normal(500) * 10.0 ** rng.integers(-45, 40, 500)
    x = np.concatenate([np.array(special), wide])
    for mode in ("up", "down", "nearest"):
        check(ops, x, dst, saturate, mode)
        if dst != DataType.FLOAT8E8M0:
            break


# --------------------------------------------------------------------------
# the texts' tables and examples, row by row


def _f32(values):
    return np.array(values, np.float32)


def _read(result) -> list:
    return [v if isinstance(v, (bool, int)) else (-1) ** v[0] * v[1] if v[1] not in (NAN, "inf") else v
            for v in exact_values(result)]


def test_float8_tables_of_the_cast_doc(ops):
    """Cast-28's two tables: 0, -0, NaN, +-Inf and out of range, each float 8 type, saturate on
    and off (the Cast doc: Inf into the FNUZ types saturates, where float8.md says NaN)."""
    x = _f32([0.0, -0.0, np.inf, -np.inf, 1e6, -1e6])
    maxima = {DataType.FLOAT8E4M3FN: 448, DataType.FLOAT8E4M3FNUZ: 240, DataType.FLOAT8E5M2: 57344,
              DataType.FLOAT8E5M2FNUZ: 57344}
    for dst, top in maxima.items():
        signed_zero = dst in (DataType.FLOAT8E4M3FN, DataType.FLOAT8E5M2)
        got = exact_values(ops.cast(x, dst))
        assert got == [(0, 0), (int(signed_zero), 0), (0, top), (1, top), (0, top), (1, top)], dst.name
        got = exact_values(ops.cast(x, dst, saturate=False))
        assert got[:2] == [(0, 0), (int(signed_zero), 0)]
        if dst == DataType.FLOAT8E5M2:
            assert got[2:] == [(0, "inf"), (1, "inf"), (0, "inf"), (1, "inf")]
        elif dst == DataType.FLOAT8E4M3FN:
            assert got[2:] == [(0, NAN), (1, NAN), (0, NAN), (1, NAN)]  # -Inf -> -NaN
        else:
            assert got[2:] == [(1, NAN)] * 4  # the one NaN, the code of -0
    nan = ops.cast(_f32([np.nan, -np.nan]), DataType.FLOAT8E4M3FNUZ, saturate=False).view(np.uint8)
    assert nan.tolist() == [0x80, 0x80]


def test_float4_table(ops):
    got = _read(ops.cast(_f32([6.0, -6.0, 0.0, -0.0, 7.0, -7.0, np.inf, -np.inf, np.nan, 2.5, 5.0]),
                         DataType.FLOAT4E2M1))
    assert got[:2] == [6, -6] and exact_values(ops.cast(_f32([0.0, -0.0]), DataType.FLOAT4E2M1)) == [(0, 0), (1, 0)]
    assert got[4:] == [6, -6, 6, -6, 6, 2, 4]  # 2.5 and 5.0: ties to even


def test_float6_examples(ops):
    """float6.md's downcast examples: 25, -0, inf and nan into both float6 types."""
    x = _f32([25.0, -0.0, np.inf, np.nan])
    assert exact_values(ops.cast(x, DataType.FLOAT6E2M3)) == [(0, Fraction(15, 2)), (0, 0), (0, Fraction(15, 2)),
                                                              (0, Fraction(15, 2))]
    assert exact_values(ops.cast(x, DataType.FLOAT6E3M2)) == [(0, 24), (0, 0), (0, 28), (0, 28)]


def test_e8m0_table_of_the_cast_doc(ops):
    """Cast's FLOAT8E8M0 table: saturate + up, and non-saturate + nearest, whose rows test x
    itself (``x > E8M0_MAX``): a value just beyond 2**127, or just below 2**-127, is NaN
    without saturation though the nearest power of two is an end. Where the table is silent
    (up and down without saturation) the same test of x: the mode only rounds inside."""
    beyond, below = 2.0**127 * (1 + 2.0**-23), 2.0**-127 - 2.0**-149  # the floats beside the ends
    x = _f32([0.0, np.nan, np.inf, 2.0**127 * 1.5, 2.0**-130, beyond, below])
    low, high = (0, Fraction(2) ** -127), (0, Fraction(2) ** 127)
    up = exact_values(ops.cast(x, DataType.FLOAT8E8M0))
    assert up == [low, (0, NAN), high, high, low, high, low]
    for mode in ("nearest", "up", "down"):
        assert exact_values(ops.cast(x, DataType.FLOAT8E8M0, saturate=False, round_mode=mode)) == [(0, NAN)] * 7
        assert exact_values(ops.cast(x, DataType.FLOAT8E8M0, round_mode=mode)) == [low, (0, NAN), high, high, low,
                                                                                   high, low]
    ends = _f32([2.0**127, 2.0**-127])  # the ends themselves are inside
    for mode in ("nearest", "up", "down"):
        assert exact_values(ops.cast(ends, DataType.FLOAT8E8M0, saturate=False, round_mode=mode)) == [high, low]


@pytest.mark.parametrize("mode, expected", [
    ("up", [1, 2, 2, 2, 4, 4]), ("down", [1, 1, 1, 1, 2, 2]), ("nearest", [1, 1, 2, 2, 2, 4])])
def test_e8m0_round_modes(ops, mode, expected):
    x = _f32([1.0, 1.25, 1.5, 1.75, 2.5, 3.0])
    assert [v[1] for v in exact_values(ops.cast(x, DataType.FLOAT8E8M0, round_mode=mode))] == expected


def test_int4_and_int2_round_half_to_even(ops):
    x = _f32([1.5, 2.5, 3.5, -1.5, -2.5, 0.5, -0.5])
    assert _read(ops.cast(x, DataType.INT4)) == [2, 2, 4, -2, -2, 0, 0]
    assert _read(ops.cast(x, DataType.INT2)) == [-2, -2, 0, -2, -2, 0, 0]  # 2 and 4: their low bits
    assert _read(ops.cast(x, DataType.UINT2)) == [2, 2, 0, 2, 2, 0, 0]


def test_int4_and_int2_keep_the_low_bits_out_of_range(ops):
    """"Rounding and truncating" (int4.md): the low bits of the rounded value, as onnx's stored
    test_cast_FLOAT_to_INT4 and _INT2 data expect; 0 for NaN and the infinities, which are the
    limit of the low bits of ever larger floats (all 0 from 2**27 in float32)."""
    x = _f32([-9.0, 8.0, 15.0, 8.5, 9.5, -8.5, 100.0, 2**24 + 4, 2**27, 3e38, np.inf, -np.inf, np.nan, 7.5])
    assert _read(ops.cast(x, DataType.INT4)) == [7, -8, -1, -8, -6, -8, 4, 4, 0, 0, 0, 0, 0, -8]
    assert _read(ops.cast(x, DataType.UINT4)) == [7, 8, 15, 8, 10, 8, 4, 4, 0, 0, 0, 0, 0, 8]
    assert _read(ops.cast(_f32([-3.0, 2.0, 3.0, 1.4]), DataType.INT2)) == [1, -2, -1, 1]
    assert _read(ops.cast(_f32([-3.0, -1.0, 4.0, 5.0]), DataType.UINT2)) == [1, 3, 0, 1]
    big = np.array([2.0**53 + 2, -(2.0**60) - 2**8, 1e308], np.float64)  # fmod is exact there too
    assert _read(ops.cast(big, DataType.INT4)) == [2, 0, 0]


def test_fixed_point_discards_the_higher_bits(ops):
    """Cast's doc: 200 (int16) -> -56 (int8); the same rule into the 4- and 2-bit types."""
    assert ops.cast(np.array([200], np.int16), DataType.INT8).tolist() == [-56]
    assert _read(ops.cast(np.array([200, -9, 17], np.int16), DataType.INT4)) == [-8, 7, 1]
    assert _read(ops.cast(np.array([2**64 - 1], np.uint64), DataType.INT2)) == [-1]


def test_floats_into_integers_truncate_and_saturate(ops):
    """Toward zero into the 8- to 64-bit types; NaN 0, infinities and out of range saturated
    (fastbits' choice where the spec says "undefined")."""
    x = np.array([3.9, -3.9, np.nan, np.inf, -np.inf, 1e300, -1e300, 2.0**63, -(2.0**63), 2.0**64])
    assert ops.cast(x, DataType.INT8).tolist() == [3, -3, 0, 127, -128, 127, -128, 127, -128, 127]
    assert ops.cast(x, DataType.UINT8).tolist() == [3, 0, 0, 255, 0, 255, 0, 255, 0, 255]
    assert ops.cast(x, DataType.INT64).tolist() == [3, -3, 0, 2**63 - 1, -(2**63), 2**63 - 1, -(2**63), 2**63 - 1,
                                                     -(2**63), 2**63 - 1]
    assert ops.cast(x, DataType.UINT64).tolist() == [3, 0, 0, 2**64 - 1, 0, 2**64 - 1, 0, 2**63, 0, 2**64 - 1]


def test_bool_both_ways(ops):
    x = np.array([0.0, -0.0, 0.5, np.nan, -np.inf])
    assert ops.cast(x, DataType.BOOL).tolist() == [False, False, True, True, True]
    assert ops.cast(np.array([0, -3], np.int8), DataType.BOOL).tolist() == [False, True]
    for dst in CAST_TYPES:
        got = exact_values(ops.cast(np.array([False, True]), dst))
        assert [same_cast_result(g, cast_exact(v, dst)) for g, v in zip(got, [False, True])] == [True, True], dst.name


def test_large_integers_round_once(ops):
    """An int64 beyond 2**53 rounds to bfloat16 and float32 once: through float64 it would hit
    a tie of the target first and round to even, the wrong way."""
    x = np.array([2**60 + 2**52 + 1, -(2**60 + 2**52 + 1), 2**63 - 1, -(2**63), 2**24 + 1, 2**53 + 3], np.int64)
    for dst in (DataType.BFLOAT16, DataType.FLOAT, DataType.DOUBLE, DataType.FLOAT16, DataType.FLOAT8E5M2):
        check(ops, x, dst)
    check(ops, np.array([2**64 - 1, 2**63 + 2**39 + 1], np.uint64), DataType.FLOAT)
    assert ops.cast(x[:1], DataType.BFLOAT16).astype(np.float64).tolist() == [2.0**60 + 2.0**53]


# --------------------------------------------------------------------------
# every ordered pair


def _common_values(src, dst) -> list:
    """Values both types hold exactly: 0, 1, and more where both have them."""
    candidates = [0, 1, 2, 3, -1, -2, 4, 6, 7, 0.5, -0.5, 1.5, 0.25, 100, -100, 127, 255, 448, 57344]
    return [v for v in candidates if _holds(src, v) and _holds(dst, v)]


def _holds(code, v) -> bool:
    if code == DataType.BOOL:
        return v in (0, 1)
    if code in INT_RANGES:
        low, high = INT_RANGES[code]
        return float(v).is_integer() and low <= v <= high
    if code == DataType.FLOAT8E8M0:
        return v > 0 and Fraction(v).numerator & (Fraction(v).numerator - 1) == 0 and Fraction(v).denominator in (1, 2, 4)
    return cast_exact((int(v < 0), abs(Fraction(v))), code) == (int(v < 0), abs(Fraction(v)))


@pytest.mark.parametrize("src", CAST_TYPES, ids=lambda t: t.name)
def test_every_ordered_pair_keeps_the_values_both_types_hold(ops, src):
    for dst in CAST_TYPES:
        values = _common_values(src, dst)
        x = np.array(values, np.float64).astype(dtype_of(src)) if values else np.zeros(0, dtype_of(src))
        got = ops.cast(x, dst)
        assert got.dtype == dtype_of(dst)
        assert np.array_equal(got.astype(np.float64), np.array(values, np.float64)), (src.name, dst.name)


# --------------------------------------------------------------------------
# layouts, out=, order, and CastLike


def test_layouts_byte_orders_and_out(ops):
    base = np.arange(-12.0, 12.0).reshape(4, 6) / 4
    for x in (base, base.T, base[::-1, ::2], base.astype(">f8"), np.float32(2.5), np.zeros((0, 3))):
        expected = np.array([cast_exact(v, DataType.INT8) for v in exact_values(np.asarray(x))], np.int8)
        got = ops.cast(x, DataType.INT8)
        assert got.shape == np.shape(x) and got.dtype.isnative and got.reshape(-1).tolist() == expected.tolist()
    read_only = base.copy()
    read_only.flags.writeable = False
    assert ops.cast(read_only, "FLOAT16").dtype == np.float16
    out = np.empty((6, 4), ">i2")
    assert ops.cast(base.T, DataType.INT16, out=out) is out and out.tolist() == base.T.astype(np.int16).tolist()
    assert ops.cast(base.T, DataType.INT8).flags.f_contiguous  # "K": the input's layout
    assert ops.cast(base.T, DataType.INT8, order="C").flags.c_contiguous
    assert ops.cast(base, DataType.INT8, order="F").flags.f_contiguous
    assert ops.cast(base, DataType.INT8, order="A").flags.c_contiguous


#: The sources and targets of the layout tests: C conversions both ways, and a one-byte source,
#: which looks its results up in a table built at its first call.
_LAYOUT_PAIRS = [(DataType.FLOAT, DataType.FLOAT8E4M3FN), (DataType.FLOAT, DataType.FLOAT16),
                 (DataType.FLOAT8E4M3FN, DataType.FLOAT),
                 (DataType.DOUBLE, DataType.BFLOAT16), (DataType.FLOAT16, DataType.INT4),
                 (DataType.INT32, DataType.FLOAT8E5M2FNUZ), (DataType.BFLOAT16, DataType.UINT8),
                 (DataType.INT64, DataType.FLOAT), (DataType.FLOAT, DataType.INT32), (DataType.INT16, DataType.FLOAT16)]


def _layout_calls(ops, x: np.ndarray, dst):
    """A cast of ``x`` with ``out=`` (native, byte-swapped, strided, over ``x`` itself where
    the widths agree), each order, a byte-swapped input and CastLike with ``out=``: each
    call's result, by name."""
    target = dtype_of(dst)
    native, swapped = np.empty(x.shape, target), np.empty(x.shape, target.newbyteorder())
    calls = {"out native": ops.cast(x, dst, out=native), "out swapped": ops.cast(x, dst, out=swapped),
             "byte-swapped input": ops.cast(x.astype(x.dtype.newbyteorder()), dst),
             "cast_like out": ops.cast_like(x, np.zeros(1, target), out=np.empty(x.shape, target))}
    for order in "CFA":
        calls[f"order {order}"] = ops.cast(x, dst, order=order)
    strided = np.empty((x.shape[0], 2 * x.shape[1]), target)[:, ::2]
    calls["out strided"] = ops.cast(x, dst, out=strided)
    if x.dtype.itemsize == target.itemsize:  # out over x itself: the input is read before it is written
        both = x.copy()
        calls["out over x"] = ops.cast(both, dst, out=both.view(target))
    return calls


@pytest.mark.parametrize(("src", "dst"), _LAYOUT_PAIRS, ids=lambda t: t.name)
def test_out_order_and_byte_order_give_the_fresh_results(ops, src, dst):
    """Every layout of a call gives the values of a fresh cast (itself exact: the tests above)
    in the layout asked for, random bits in the source included (NaN payloads, infinities)."""
    rng = np.random.default_rng(int(src) * 32 + int(dst))
    width = dtype_of(src).itemsize
    x = rng.integers(0, 256, (5, 7, width), np.uint8).view(dtype_of(src)).reshape(5, 7)[:, ::-2].T
    expected = ops.cast(np.ascontiguousarray(x), dst)
    for name, got in _layout_calls(ops, x, dst).items():
        same = got.astype(dtype_of(dst)).tobytes() == expected.tobytes()  # bit for bit, C order
        assert got.shape == x.shape and same, (name, src.name, dst.name)
    assert ops.cast(x, dst, order="F").flags.f_contiguous and ops.cast(x, dst, order="C").flags.c_contiguous


#: Narrowing casts into results of a MiB and more, whose transposed layouts the compiled engine
#: writes through scratch tiles: results of 1, 2 and 4 bytes (pairs the reference converts in
#: whole-array steps, so that the test stays quick on the pure path and under emulation).
_LARGE_LAYOUT_PAIRS = [(DataType.INT32, DataType.INT8), (DataType.INT64, DataType.INT16),
                       (DataType.DOUBLE, DataType.FLOAT)]


@pytest.mark.parametrize(("src", "dst"), _LARGE_LAYOUT_PAIRS, ids=lambda t: t.name)
def test_large_transposed_layouts_give_the_fresh_results(ops, src, dst):
    """Results laid out across the input's rows (order "F" from a C-order input, "C" from a
    transposed one, ``out=`` transposed, in 2-D and in 3-D with an outer axis; rows and columns
    not multiples of 16): the values of a fresh cast, bit for bit, in the layout asked for."""
    rng = np.random.default_rng(int(src) * 32 + int(dst))
    target, width = dtype_of(dst), dtype_of(src).itemsize
    rows = lambda n: -(-n // target.itemsize)  # noqa: E731  (just over a MiB of results, at each width)
    for shape in ((rows(1030), 1037), (3, rows(600), 601)):
        x = rng.integers(0, 256, (*shape[:-1], shape[-1] * width), np.uint8).view(dtype_of(src))
        expected = ops.cast(x, dst).tobytes()
        inner_swapped = (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2)
        calls = {"order F": ops.cast(x, dst, order="F"),
                 "order C of .T": ops.cast(x.T, dst, order="C").T,
                 "out F": ops.cast(x, dst, out=np.empty(shape, target, order="F")),
                 "out inner axes swapped": ops.cast(
                     x, dst, out=np.empty(tuple(shape[d] for d in inner_swapped), target).transpose(inner_swapped))}
        assert calls["order F"].flags.f_contiguous
        for name, got in calls.items():
            assert got.shape == shape and got.tobytes() == expected, (name, shape, src.name, dst.name)


@pytest.mark.compiled
@pytest.mark.skipif(COMPILED is None, reason="the compiled path is not built")
def test_compiled_orders_are_laid_out_by_the_engine(monkeypatch):
    """A fresh result in every order, spelled in either case, is laid out by the compiled path
    itself: with the reference's checks and layout (``_cast_py.run``) made to fail, each call
    succeeds, in the layout the order asks for."""
    x = np.arange(-20, 20, dtype=np.float32).reshape(8, 5)
    expected = COMPILED.cast(x, DataType.FLOAT16)

    def reference(*args):
        raise AssertionError("the reference laid out a call the compiled path takes")

    monkeypatch.setattr(_cast_py, "run", reference)
    for source in (x, np.asfortranarray(x)):
        for order in "CFAKcfak":
            got = COMPILED.cast(source, DataType.FLOAT16, order=order)
            f_order = order in "Ff" or (order in "AaKk" and source.flags.f_contiguous)
            assert (got.flags.f_contiguous if f_order else got.flags.c_contiguous), (order, got.strides)
            assert np.array_equal(got, expected), order


@pytest.mark.compiled
@pytest.mark.skipif(COMPILED is None, reason="the compiled path is not built")
@pytest.mark.parametrize(("src", "dst"), _LAYOUT_PAIRS, ids=lambda t: t.name)
def test_compiled_layouts_run_the_c_conversions(monkeypatch, src, dst):
    """``out=``, an order and a byte-swapped input run the C conversions on the compiled path:
    with the reference's conversion made to fail, every such call still succeeds."""
    x = np.arange(-20, 20, dtype=np.int8).astype(dtype_of(src)).reshape(8, 5)
    COMPILED.cast(x, dst)  # a one-byte source's table, built by the reference

    def reference(*args):
        raise AssertionError("the reference converted a call the C conversions take")

    monkeypatch.setattr(_cast_py, "_convert", reference)
    _layout_calls(COMPILED, x, dst)
    if x.dtype.itemsize > 1:  # FLOAT8E8M0 too, from a wider source (a one-byte one's table is built above)
        for mode in ("up", "down", "nearest"):
            COMPILED.cast(x, DataType.FLOAT8E8M0, round_mode=mode, out=np.empty(x.shape, ml_dtypes.float8_e8m0fnu))
            COMPILED.cast(x, DataType.FLOAT8E8M0, saturate=False, round_mode=mode)


def _float16_rounding_cases() -> np.ndarray:
    """float32 values with every sign, exponent and top 10 mantissa bits (2**19 patterns), each
    with the low 13 bits that decide float16's rounding: none, the lowest, just below half,
    half, just above, all; every NaN payload's top bits among them."""
    top = np.arange(1 << 19, dtype=np.uint32) << 13
    low = np.array([0, 1, 0xFFF, 0x1000, 0x1001, 0x1FFF], np.uint32)
    return (top[:, None] | low).ravel().view(np.float32)


def test_float32_and_float16_both_ways_bit_for_bit(ops):
    """float32 -> float16 on every rounding case and float16 -> float32 on every value equal
    the reference bit for bit, at every length of a vector's tail and any alignment (the
    compiled path converts contiguous rows with F16C where the CPU has it). A NaN into float16
    is the quiet NaN of its sign; a float16 NaN keeps its payload, quieted."""
    x = _float16_rounding_cases()
    expected = _cast_py.cast(x, DataType.FLOAT16).view(np.uint16)
    assert np.array_equal(ops.cast(x, DataType.FLOAT16).view(np.uint16), expected)
    with fastbits.config_context(stream_threshold=0):  # the result written around the cache
        assert np.array_equal(ops.cast(x[1:], DataType.FLOAT16).view(np.uint16), expected[1:])
        out = np.empty(len(x) + 1, np.float16)[1:]  # 2 bytes past a vector's boundary
        assert ops.cast(x, DataType.FLOAT16, out=out) is out and np.array_equal(out.view(np.uint16), expected)
    nan = np.isnan(x)
    assert np.array_equal(expected[nan], np.where(np.signbit(x[nan]), 0xFE00, 0x7E00))
    h = every_code(DataType.FLOAT16)
    bits = h.view(np.uint16).astype(np.uint32)
    wide = _cast_py.cast(h, DataType.FLOAT).view(np.uint32)
    assert np.array_equal(ops.cast(h, DataType.FLOAT).view(np.uint32), wide)
    with fastbits.config_context(stream_threshold=0):
        assert np.array_equal(ops.cast(np.tile(h, 3)[1:], DataType.FLOAT).view(np.uint32), np.tile(wide, 3)[1:])
    h_nan = np.isnan(h)
    assert np.array_equal(wide[h_nan], (bits[h_nan] & 0x8000) << 16 | 0x7FC00000 | (bits[h_nan] & 0x3FF) << 13)
    buffer = np.zeros(4 * 64 + 4, np.uint8)
    for offset in (0, 1, 2, 4):
        for n in range(18):
            for src, dst, values in ((DataType.FLOAT, DataType.FLOAT16, x[-n:] if n else x[:0]),
                                     (DataType.FLOAT16, DataType.FLOAT, h[-n:] if n else h[:0])):
                unaligned = buffer[offset:offset + values.nbytes].view(values.dtype)
                unaligned[...] = values
                got = ops.cast(unaligned, dst)
                assert got.tobytes() == _cast_py.cast(values, dst).tobytes(), (src.name, offset, n)


def test_cast_like_takes_the_target_type(ops):
    x = np.array([2.5, 3.5, -0.0])
    assert ops.cast_like(x, np.zeros(3, np.int8)).tolist() == [2, 3, 0]
    assert ops.cast_like(x, np.zeros(0, ml_dtypes.int4)).astype(np.int8).tolist() == [2, 4, 0]
    with pytest.raises(fastbits.TypeConstraintError, match="CastLike: .*fastbits leaves strings to onnx"):
        ops.cast_like(x, np.array(["a"]))


@pytest.mark.parametrize("target, dtype", [
    (np.float16(0), np.float16),                  # a numpy scalar
    (ml_dtypes.float8_e4m3fn(1), ml_dtypes.float8_e4m3fn),  # one of ml_dtypes'
    (np.zeros((), np.uint8), np.uint8),           # a 0-d array
    (np.zeros(2, ">i2"), np.int16),               # big-endian: its type, in native order
    ([1, 2], np.int64),                           # array-likes: the type numpy reads them as
    (3, np.int64),
    (2.5, np.float64),
])
def test_cast_like_reads_the_type_of_any_target(ops, target, dtype):
    """CastLike's target is read as an array is, whatever it is (twice: a compiled call after the
    first may take another path), and the result is the reference's."""
    x = np.array([2.5, 3.5, -7.25], np.float32)
    for _ in range(2):
        got = ops.cast_like(x, target)
        assert got.dtype == np.dtype(dtype)
        assert got.tobytes() == _cast_py.cast(x, np.dtype(dtype)).tobytes()


# --------------------------------------------------------------------------
# errors


@pytest.mark.parametrize("x, to, kwargs, error, message", [
    (np.array(["1"]), "INT8", {}, fastbits.TypeConstraintError, "Cast: input 'input' .*leaves strings to onnx"),
    (np.array([1.0]), "STRING", {}, fastbits.TypeConstraintError, "Cast: attribute 'to' .*leaves strings to onnx"),
    (np.array([1j]), "INT8", {}, fastbits.TypeConstraintError, "Cast's types have no complex"),
    (np.array([1.0]), "COMPLEX64", {}, fastbits.TypeConstraintError, "Cast's types have no complex"),
    (np.array([1.0]), 99, {}, fastbits.UnknownDataTypeError, "Cast: attribute 'to' = 99"),
    (np.array([1.0]), "int3", {}, fastbits.UnknownDataTypeError, "Cast: attribute 'to' = 'int3'"),
    (np.array([1.0]), "INT8", {"round_mode": "sideways"}, fastbits.ArgumentValueError, "'round_mode'"),
    (np.array([1.0]), "INT8", {"round_mode": 1}, fastbits.ArgumentTypeError, "'round_mode'"),
    (np.array([1.0]), "INT8", {"saturate": 2}, fastbits.ArgumentValueError, "'saturate' must be 1 or 0"),
    (np.array([1.0]), "INT8", {"saturate": "yes"}, fastbits.ArgumentTypeError, "'saturate'"),
    (np.array([1.0]), "INT8", {"out": np.empty(1, np.int16)}, fastbits.TypeConstraintError, "'out'"),
    (np.array([1.0]), "INT8", {"order": "Z"}, fastbits.ArgumentValueError, "order"),
])
def test_errors_name_cast_and_what_is_wrong(ops, x, to, kwargs, error, message):
    with pytest.raises(error, match=message):
        ops.cast(x, to, **kwargs)


def test_a_call_that_does_not_fit_the_signature(ops):
    with pytest.raises(fastbits.ArgumentTypeError, match=r"cast: missing 'to'; expected cast\(x, to, /, \*"):
        ops.cast(np.zeros(1))
    with pytest.raises(fastbits.ArgumentTypeError, match="unexpected keyword argument 'copy'"):
        ops.cast(np.zeros(1), "INT8", copy=True)


def test_round_mode_and_saturate_take_onnx_spellings(ops):
    x = _f32([1.25])
    assert ops.cast(x, DataType.FLOAT8E8M0, round_mode=" DOWN ").astype(np.float32).tolist() == [1.0]
    assert np.isnan(ops.cast(_f32([1e6]), DataType.FLOAT8E4M3FN, saturate=0).astype(np.float32)[0])


def test_every_pair_is_covered():
    assert len(CAST_TYPES) == 25 and len(list(itertools.product(CAST_TYPES, CAST_TYPES))) == 625
