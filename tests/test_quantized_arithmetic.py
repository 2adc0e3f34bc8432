"""DynamicQuantizeLinear-11 and MatMulInteger-10 against an exact statement of their texts
(tests/support.py: dynamic_quantize_exact in Fractions, matmul_integer_exact in Python ints), on
both paths: the texts' examples, ranges that include or exclude 0, NaN, the infinities, empty
and all-zero inputs; products of every shape numpy.matmul takes, per-tensor, per-row and
per-column zero points, every pair of types, layouts the kernels copy, blocks of the kernels'
size and sums past int32; and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import fastbits
from fastbits import spec
from support import NAN, dynamic_quantize_exact, exact_values, matmul_integer_exact

# --------------------------------------------------------------------------
# DynamicQuantizeLinear


def check_dynamic(ops, x):
    """The path's result for float32 ``x`` is the text's, element for element."""
    y, scale, zero = ops.dynamic_quantize_linear(x)
    expected_y, expected_scale, expected_zero = dynamic_quantize_exact(exact_values(np.asarray(x, np.float32)))
    assert y.dtype == np.uint8 and y.shape == np.shape(x) and y.flags.c_contiguous
    assert scale.dtype == np.float32 and scale.shape == ()
    assert zero.dtype == np.uint8 and zero.shape == ()
    (got_scale,) = exact_values(scale)
    if expected_scale[1] == NAN:
        assert got_scale[1] == NAN
    else:
        assert got_scale == expected_scale
    assert int(zero) == expected_zero
    assert y.reshape(-1).tolist() == expected_y


# The text's examples (onnx's node tests): [y, scale, zero point] for each x.
TEXT_EXAMPLES = [
    ([0, 2, -3, -2.5, 1.34, 0.5], [153, 255, 0, 26, 221, 179], 0.0196078438, 153),
    ([-1.0, -2.1, -1.3, -2.5, -3.34, -4.0], [191, 121, 172, 96, 42, 0], 0.0156862754, 255),
    ([1, 2.1, 1.3, 2.5, 3.34, 4.0, 1.5, 2.6, 3.9, 4.0, 3.0, 2.345], [64, 134, 83, 159, 213, 255, 96, 166, 249, 255,
                                                                     191, 149], 0.0156862754, 0),
]


@pytest.mark.parametrize("x, y, scale, zero", TEXT_EXAMPLES)
def test_dynamic_text_examples(ops, x, y, scale, zero):
    got_y, got_scale, got_zero = ops.dynamic_quantize_linear(np.array(x, np.float32))
    assert got_y.tolist() == y
    assert got_scale == np.float32(scale)
    assert got_zero == zero
    check_dynamic(ops, np.array(x, np.float32))


F = np.float32
DYNAMIC_CASES = {
    "positive": F([0.5, 3, 7.25, 1e-3]),
    "negative": F([-0.5, -3, -7.25, -1e-3]),
    "mixed": F([-1.5, 0.2, 3.75, -0.01, 0]),
    "ties": F([-1, 0, 1, 254, 255]) / F(2),
    "zeros": F([0, -0.0, 0]),
    "empty": F([]),
    "one": F([42]),
    "nan": F([1, np.nan, -2]),
    "inf": F([1, np.inf, -2]),
    "minus inf": F([1, -np.inf, -2]),
    "both inf": F([np.inf, -np.inf]),
    "huge range": F([3e38, -3e38, 1]),  # max - min overflows float32: an infinite scale
    "subnormal": F([1e-44, -3e-45, 0]),  # a scale that rounds to 0
    "largest": F([np.finfo(np.float32).max, 0]),
    "2-d": F([[1, -2, 3], [-4, 5, -6]]),
}


@pytest.mark.parametrize("case", sorted(DYNAMIC_CASES))
def test_dynamic_exact(ops, case):
    with np.errstate(all="ignore"):
        check_dynamic(ops, DYNAMIC_CASES[case])


@pytest.mark.parametrize("seed", range(4))
def test_dynamic_random(ops, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((7, 33)) * 10.0 ** rng.integers(-6, 6)).astype(np.float32)
    x += [0, 3, -5][seed % 3] * abs(x).max()  # ranges that hold 0, that are all above it, all below
    check_dynamic(ops, x)


@pytest.mark.parametrize("where", [0, 15, 16, 37, 998, 999])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, -7.5, 9.25])
def test_dynamic_range_anywhere(ops, where, value):
    """The range finds a NaN, an infinity or the extreme wherever it is: the first element, a
    lane of the kernel's vectors, the tail past the last whole vector."""
    x = np.random.default_rng(where).uniform(-1, 1, 1000).astype(np.float32)
    x[where] = value
    check_dynamic(ops, x)


@pytest.mark.parametrize("bits", [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFAAAAAA])
def test_dynamic_nan_scale_is_one_nan(ops, bits):
    """Whatever NaN x holds (a sign, a payload, signaling or quiet), the scale is the positive
    quiet NaN: a result must not depend on which NaN a host's min kept."""
    x = np.array([1.0, 0.0, -2.0, 5.0] * 10, np.float32)
    x.view(np.uint32)[17] = bits
    _, scale, zero = ops.dynamic_quantize_linear(x)
    assert scale.view(np.uint32) == 0x7FC00000 and zero == 0


def test_dynamic_threads_agree(ops):
    """One thread or the process's, over 4M elements (shares of the range): the same results."""
    x = np.random.default_rng(4).standard_normal(1 << 22).astype(np.float32)
    x[3_000_017] = 40.0
    x[123] = -35.0
    with fastbits.config_context(num_threads=1):
        one = ops.dynamic_quantize_linear(x)
    for got, want in zip(ops.dynamic_quantize_linear(x), one):
        np.testing.assert_array_equal(got, want)
    assert one[1] == np.float32(75.0) / np.float32(255)


def test_dynamic_layouts(ops):
    """Any layout and byte order is read by value; the result is C-contiguous."""
    x = np.random.default_rng(1).standard_normal((6, 10)).astype(np.float32)
    expected = ops.dynamic_quantize_linear(x)
    for view in (x.T, x[::-2, 1::3], np.asfortranarray(x), x.astype(">f4")):
        got = ops.dynamic_quantize_linear(view)
        assert got[0].flags.c_contiguous
        np.testing.assert_array_equal(got[0], ops.dynamic_quantize_linear(np.ascontiguousarray(view, np.float32))[0])
    assert [a.tolist() for a in ops.dynamic_quantize_linear(x.astype(">f4"))] == [a.tolist() for a in expected]


@pytest.mark.parametrize("x, error, text", [
    (np.zeros(3, np.float16), fastbits.TypeConstraintError, "input 'x' has dtype float16"),
    (np.zeros(3, np.float64), fastbits.TypeConstraintError, "input 'x' has dtype float64"),
    ([1, 2], fastbits.TypeConstraintError, "input 'x' has dtype int64"),
    ("text", fastbits.TypeConstraintError, "DynamicQuantizeLinear"),
    ([object()], fastbits.ArgumentTypeError, "input 'x'"),
])
def test_dynamic_errors(ops, x, error, text):
    with pytest.raises(error, match="^DynamicQuantizeLinear: ") as info:
        ops.dynamic_quantize_linear(x)
    assert text in str(info.value)


# --------------------------------------------------------------------------
# MatMulInteger

I8, U8 = np.int8, np.uint8


def random_of(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape, dtype=dtype)


def check_matmul(ops, a, b, za=None, zb=None, za_spread=None, zb_spread=None):
    """The path's product equals the Python ints' (zero points spread by the test itself:
    ``za_spread`` and ``zb_spread``, else as given)."""
    got = ops.matmul_integer(a, b, za, zb)
    expected = matmul_integer_exact(a, b, 0 if za is None else (za if za_spread is None else za_spread),
                                    0 if zb is None else (zb if zb_spread is None else zb_spread))
    assert got.dtype == np.int32 and got.flags.c_contiguous
    assert got.shape == np.shape(expected)
    assert got.tolist() == np.asarray(expected).tolist()
    return got


def test_matmul_text_example(ops):
    """onnx's node test of MatMulInteger (the operator's example)."""
    a = np.array([[11, 7, 3], [10, 6, 2], [9, 5, 1], [8, 4, 0]], U8)
    b = np.array([[1, 4], [2, 5], [3, 6]], U8)
    y = ops.matmul_integer(a, b, np.array(12, U8), np.array(0, U8))
    assert y.tolist() == [[-38, -83], [-44, -98], [-50, -113], [-56, -128]]


@pytest.mark.parametrize("ta, tb", [(U8, I8), (I8, I8), (U8, U8), (I8, U8)])
@pytest.mark.parametrize("zeros", ["none", "tensor", "rows and columns"])
def test_matmul_types_and_zero_points(ops, ta, tb, zeros):
    rng = np.random.default_rng(7)
    m, k, n = 37, 300, 270  # two blocks of rows and of columns in the kernels, k past 256
    a, b = random_of(rng, ta, (m, k)), random_of(rng, tb, (k, n))
    if zeros == "none":
        check_matmul(ops, a, b)
    elif zeros == "tensor":
        check_matmul(ops, a, b, random_of(rng, ta, ()), random_of(rng, tb, (1,)))
    else:
        za, zb = random_of(rng, ta, (m,)), random_of(rng, tb, (n,))
        check_matmul(ops, a, b, za, zb, za_spread=za.reshape(m, 1))


SHAPES = [
    ((5,), (5,)),
    ((5,), (5, 3)),
    ((4, 5), (5,)),
    ((1, 5), (5, 1)),
    ((2, 3, 4), (4, 6)),
    ((3, 4), (2, 4, 6)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((0, 4), (4, 3)),
    ((3, 0), (0, 2)),
    ((3, 4), (4, 0)),
    ((2, 0, 3, 4), (4, 2)),
]


@pytest.mark.parametrize("sa, sb", SHAPES)
def test_matmul_shapes(ops, sa, sb):
    """numpy.matmul's shapes: vectors, batches that broadcast, empty axes (k = 0: sums of 0)."""
    rng = np.random.default_rng(len(sa) * 10 + len(sb))
    a, b = random_of(rng, U8, sa), random_of(rng, I8, sb)
    check_matmul(ops, a, b, np.uint8(128), np.int8(-3))


def test_matmul_batched_zero_points(ops):
    """N-D zero points: one per row of each matrix of A, (..., M, 1); one per column, (..., 1, N)."""
    rng = np.random.default_rng(3)
    a, b = random_of(rng, I8, (2, 3, 5, 40)), random_of(rng, U8, (3, 40, 6))
    za, zb = random_of(rng, I8, (2, 1, 5, 1)), random_of(rng, U8, (3, 1, 6))
    check_matmul(ops, a, b, za, zb)
    za1 = random_of(rng, I8, (5,))
    check_matmul(ops, a, b, za1, None, za_spread=za1.reshape(5, 1))


def test_matmul_layouts(ops):
    """Transposed, strided and reversed operands."""
    rng = np.random.default_rng(5)
    a, b = random_of(rng, U8, (40, 70)), random_of(rng, I8, (105, 300))
    for va, vb in ((a[:, ::2], b[::-3, 1:]), (np.asfortranarray(a), np.asfortranarray(b[:70])),
                   (a[::-1, :35], b[10:45, ::-1]), (a[:, :35], b[:70:2].T.copy().T)):
        check_matmul(ops, va, vb, np.uint8(3), np.int8(-7))


def test_matmul_sums_past_int32(ops):
    """The largest products, k past 33,025: the exact sum modulo 2**32, as an int32."""
    k = 40_000
    a = np.zeros((2, k), U8)
    a[1] = 255
    b = np.full((k, 3), 255, U8)
    za, zb = np.array([255, 0], U8), np.array([0, 0, 255], U8)
    y = check_matmul(ops, a, b, za, zb, za_spread=za.reshape(2, 1))
    assert y[0, 0] == (-255 * 255 * k + 2**31) % 2**32 - 2**31  # wrapped: |sum| > 2**31
    assert y[1, 2] == 0


def test_matmul_agrees_with_onnx_reference():
    """onnx's reference on a per-tensor call (its per-row subtraction is another matter: the
    text's rows, not onnx's columns, docs/quantize.md)."""
    onnx_matmul = pytest.importorskip("onnx.reference.ops.op_matmul_integer").MatMulInteger
    rng = np.random.default_rng(11)
    a, b = random_of(rng, U8, (6, 50)), random_of(rng, I8, (50, 7))
    (expected,) = onnx_matmul._run(None, a, b, np.uint8(9), np.int8(-1))
    np.testing.assert_array_equal(fastbits.matmul_integer(a, b, np.uint8(9), np.int8(-1)), expected)


@pytest.mark.parametrize("args, error, text", [
    ((np.zeros((2, 3), np.int16), np.zeros((3, 2), I8)), fastbits.TypeConstraintError, "input 'A' has dtype int16"),
    ((np.zeros((2, 3), I8), np.zeros((3, 2), np.float32)), fastbits.TypeConstraintError, "input 'B' has dtype"),
    ((np.zeros((2, 3), I8), np.zeros((4, 2), I8)), fastbits.ArgumentValueError, "do not multiply"),
    ((np.zeros((2, 3), I8), np.zeros((), I8)), fastbits.ArgumentValueError, "input 'B' is a scalar"),
    ((np.zeros((2, 2, 3), I8), np.zeros((3, 3, 2), I8)), fastbits.ArgumentValueError, "do not broadcast"),
    ((np.zeros((2, 3), I8), np.zeros((3, 2), I8), np.zeros((), U8)), fastbits.TypeConstraintError,
     "input 'a_zero_point' is tensor(uint8) and input 'A' tensor(int8)"),
    ((np.zeros((2, 3), I8), np.zeros((3, 2), I8), np.zeros(3, I8)), fastbits.ArgumentValueError,
     "input 'a_zero_point' has shape (3,)"),
    ((np.zeros((2, 3), I8), np.zeros((3, 2), I8), None, np.zeros((3, 1), I8)), fastbits.ArgumentValueError,
     "input 'b_zero_point' has shape (3, 1)"),
    ((np.zeros(3, I8), np.zeros((3, 2), I8), np.zeros(2, I8)), fastbits.ArgumentValueError, "'A' is 1-D"),
    (([[1, 2]], np.zeros((2, 2), I8)), fastbits.TypeConstraintError, "input 'A' has dtype int64"),
])
def test_matmul_errors(ops, args, error, text):
    with pytest.raises(error, match="^MatMulInteger: ") as info:
        ops.matmul_integer(*args)
    assert text in str(info.value)


def test_matmul_threads_agree(ops):
    """One thread or the process's: the same bytes (the blocks are independent)."""
    rng = np.random.default_rng(2)
    a, b = random_of(rng, U8, (64, 512)), random_of(rng, I8, (512, 1024))
    with fastbits.config_context(num_threads=1):
        one = ops.matmul_integer(a, b, np.uint8(1), np.int8(2))
    np.testing.assert_array_equal(ops.matmul_integer(a, b, np.uint8(1), np.int8(2)), one)


def test_names_in_spec():
    assert spec.FUNCTIONS["matmul_integer"].operator == spec.MATMUL_INTEGER == "MatMulInteger"
    assert spec.FUNCTIONS["dynamic_quantize_linear"].operator == spec.DYNAMIC_QUANTIZE == "DynamicQuantizeLinear"
