"""DynamicQuantizeLinear-11, MatMulInteger-10 and QLinearMatMul-21 against an exact statement of
their texts (tests/support.py: dynamic_quantize_exact in Fractions, matmul_integer_exact in Python
ints, qlinear_matmul_exact in both), on both paths: the texts' examples, ranges that include or exclude 0, NaN, the infinities, empty
and all-zero inputs; products of every shape numpy.matmul takes, per-tensor, per-row and
per-column zero points, every pair of types, layouts the kernels copy, blocks of the kernels'
size and sums past int32; QLinearMatMul's scales per tensor, row and column, ties and near ties,
scales that are not finite or 0, every float 8 type in and out, NaN and infinite operands; and
the errors."""

from __future__ import annotations

import numpy as np
import pytest

import fastbits
from fastbits import spec
from support import NAN, dynamic_quantize_exact, exact_values, matmul_integer_exact, qlinear_matmul_exact, requantize_exact, same_cast_result

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



# --------------------------------------------------------------------------
# QLinearMatMul

F8_TYPES = ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz"]


def check_qlinear(ops, a, sa, za, b, sb, zb, ys, yz, spread=None):
    """The path's result equals the exact statement's (2-D operands; ``spread`` the scales and
    zero points of a and b as (M, 1) and (1, N), when the call gives them 1-D)."""
    got = ops.qlinear_matmul(a, sa, za, b, sb, zb, ys, yz)
    if spread:
        sa, za, sb, zb = spread
    expected = qlinear_matmul_exact(a, sa, za, b, sb, zb, ys, yz)
    assert got.dtype == np.asarray(yz).dtype and got.flags.c_contiguous
    assert got.shape == (a.shape[0], b.shape[1])
    values = exact_values(got)
    flat = [v for row in expected for v in row]
    assert all(same_cast_result(g, e) for g, e in zip(values, flat)), [
        (i, g, e) for i, (g, e) in enumerate(zip(values, flat)) if not same_cast_result(g, e)][:5]
    return got


QLINEAR_TEXT_A = np.array([[208, 236, 0, 238], [3, 214, 255, 29]])
QLINEAR_TEXT_B = np.array([[152, 51, 244], [60, 26, 255], [0, 127, 246], [127, 254, 247]])


@pytest.mark.parametrize("quant", [U8, I8])
@pytest.mark.parametrize("scale_type", [np.float32, np.float16])
@pytest.mark.parametrize("batched", [False, True])
def test_qlinear_text_examples(ops, quant, scale_type, batched):
    """onnx's node tests of QLinearMatMul (2-D and 3-D, uint8 and int8, float32 and float16 scales)."""
    shift = 127 if quant == I8 else 0
    a, b = (QLINEAR_TEXT_A - shift).astype(quant), (QLINEAR_TEXT_B - shift).astype(quant)
    if batched:
        a, b = np.stack([a, a]), np.stack([b, b])
    args = (a, np.array([0.0066], scale_type), np.array([113 - shift], quant), b, np.array([0.00705], scale_type),
            np.array([114 - shift], quant), np.array([0.0107], scale_type), np.array([118 - shift], quant))
    expected = [[41, -12, -9], [1, -75, -128]] if quant == I8 else [[168, 115, 255], [1, 66, 151]]
    got = ops.qlinear_matmul(*args)
    assert got.dtype == quant
    assert got.tolist() == ([expected, expected] if batched else expected)


@pytest.mark.parametrize("ta, tb, ty", [(U8, I8, U8), (I8, I8, I8), (U8, U8, I8), (I8, U8, U8)])
@pytest.mark.parametrize("scales", ["tensor", "rows and columns"])
def test_qlinear_integers(ops, ta, tb, ty, scales):
    rng = np.random.default_rng(17)
    m, k, n = 9, 70, 11
    a, b = random_of(rng, ta, (m, k)), random_of(rng, tb, (k, n))
    ys, yz = np.float32(rng.uniform(0.5, 2)), random_of(rng, ty, ())
    if scales == "tensor":
        check_qlinear(ops, a, np.float32(0.01), random_of(rng, ta, ()), b, np.float32(0.02),
                      random_of(rng, tb, (1,)), ys, yz)
    else:
        sa, za = rng.uniform(1e-3, 1e-2, m).astype(np.float32), random_of(rng, ta, (m,))
        sb, zb = rng.uniform(1e-3, 1e-2, n).astype(np.float32), random_of(rng, tb, (n,))
        check_qlinear(ops, a, sa, za, b, sb, zb, ys, yz,
                      spread=(sa.reshape(m, 1), za.reshape(m, 1), sb.reshape(1, n), zb.reshape(1, n)))


@pytest.mark.parametrize("scale_type", [np.float32, np.float16, "bfloat16"])
def test_qlinear_ties(ops, scale_type):
    """Scales whose quotient makes many sums exact ties (half to even decides), and scales whose
    quotient a float32 cannot hold (the exact value decides, not its rounding)."""
    import ml_dtypes

    dtype = ml_dtypes.bfloat16 if scale_type == "bfloat16" else scale_type
    rng = np.random.default_rng(5)
    a, b = random_of(rng, U8, (6, 30)), random_of(rng, I8, (30, 13))
    for sa, sb, ys in ((0.125, 0.25, 1.0), (0.375, 1.0, 3.0), (0.1, 0.3, 0.03), (1 / 3, 3.0, 2.0),
                       (0.0066, 0.00705, 0.0107), (2.0**-20, 2.0**-20, 2.0**-45)):
        check_qlinear(ops, a, np.array(sa, dtype), np.uint8(128), b, np.array(sb, dtype), np.int8(0),
                      np.array(ys, dtype), np.uint8(100))


def test_qlinear_near_tie_against_onnx():
    """A sum whose exact quotient lies just past a tie (-71.5000018), where onnx's reference,
    which rounds the scales' quotient to float32 first, lands on the other side: fastbits gives
    the exact statement's -72, onnx's -71 (docs/quantize.md)."""
    onnx_op = pytest.importorskip("onnx.reference.ops.op_qlinear_matmul").QLinearMatMul
    sa, sb, ys = (np.float32(float.fromhex(h)) for h in ("0x1.cb469ep-5", "0x1.8756c4p-4", "-0x1.93d19ep-5"))
    a = np.array([[127] * 5 + [23]], I8)  # a sum of 658
    b = np.ones((6, 1), I8)
    args = (a, sa, np.int8(0), b, sb, np.int8(0), ys, np.int8(0))
    assert qlinear_matmul_exact(*args) == [[-72]]
    assert fastbits.qlinear_matmul(*args).tolist() == [[-72]]
    assert onnx_op._run(None, *args)[0].tolist() == [[-71]]


@pytest.mark.parametrize("y_scale", [0.0107, -3.0, 2.0**-30])
def test_qlinear_near_ties(ops, y_scale):
    """Each row's scale puts its quotient within a float32's rounding of a tie, on either side
    or on it: the kernel's estimate is too close to call, and the exact comparison decides."""
    rng = np.random.default_rng(21)
    m = 600
    a = rng.integers(-128, 128, (m, 1)).astype(I8)
    a[a == 0] = 1
    ties = rng.integers(-120, 120, m) + 0.5
    ys = np.float32(y_scale)
    sa = (ties * float(ys) / a[:, 0].astype(np.float64)).astype(np.float32)
    sa[::7] = np.float32(float(ys) / 2)  # exact ties: 0.5 * (odd or even) sums
    check_qlinear(ops, a, sa, np.zeros(m, I8), np.ones((1, 1), I8), np.float32(1), np.int8(0), ys, np.int8(0),
                  spread=(sa.reshape(m, 1), np.zeros((m, 1), I8), np.float32(1), np.int8(0)))


def test_qlinear_within_the_estimates_error_of_a_tie(ops):
    """Quotients within 2**-44 of a tie but not on it, where the kernel's float64 estimate (two
    roundings of a sum of 30 bits times a scale of 24) cannot tell the side and its exact
    comparison must.  Built, not found: a sum s and a scale A * 2**-24 whose product is
    (2n + 1) Y 2**23 + r for a small r, and y_scale = Y / 2; b_scale is 1/2."""
    from fractions import Fraction

    rng = np.random.default_rng(13)
    cases = 0
    while cases < 4:
        a_int = int(rng.integers(2**23, 2**24)) | 1
        r = int(rng.choice([-2, -1, 1, 2]))
        s = r * pow(a_int, -1, 2**23) % 2**23 + 2**23 * int(rng.integers(2**6, 2**7))  # s * A = r mod 2**23
        n_y = (s * a_int - r) // 2**23
        divisors = [d for d in range(129, 256, 2) if n_y % d == 0 and 2**23 <= n_y // d < 2**24]
        if not divisors:
            continue
        y = n_y // divisors[0]
        q = Fraction(s * a_int, 2**25) / Fraction(y, 2)
        assert 0 < abs(q - Fraction(divisors[0], 2)) < Fraction(1, 2**44)
        cases += 1
        k, rest = divmod(s, 127 * 127)
        a = np.full((1, k + 1), 127, I8)
        b = np.full((k + 1, 1), 127, I8)
        b[k, 0], a[0, k] = 1, 0
        a[0, k] = 0
        tail = np.array([[rest // 127, rest % 127]], I8)  # rest = 127 * (rest // 127) + rest % 127
        a = np.concatenate([a, tail], axis=1)
        b = np.concatenate([b, np.array([[127], [1]], I8)])
        check_qlinear(ops, a, np.float32(a_int * 2.0**-24), np.int8(0), b, np.float32(0.5), np.int8(0),
                      np.float32(y / 2), np.int8(0))


@pytest.mark.parametrize("case", ["zero y_scale", "inf y_scale", "nan a_scale", "inf b_scale", "negative"])
def test_qlinear_scales_not_finite_or_zero(ops, case):
    rng = np.random.default_rng(3)
    a, b = random_of(rng, I8, (4, 6)), random_of(rng, I8, (6, 5))
    a[0] = 0  # a zero sum: 0 / 0 and 0 * inf are NaN, which counts as 0
    sa, sb, ys = np.float32(0.5), np.float32(0.25), np.float32(0.125)
    if case == "zero y_scale":
        ys = np.float32(0)
    elif case == "inf y_scale":
        ys = np.float32(np.inf)
    elif case == "nan a_scale":
        sa = np.float32(np.nan)
    elif case == "inf b_scale":
        sb = np.float32(-np.inf)
    else:
        sa, ys = np.float32(-0.5), np.float32(-0.0625)
    with np.errstate(all="ignore"):
        check_qlinear(ops, a, sa, np.int8(0), b, sb, np.int8(3), ys, np.uint8(7))


@pytest.mark.parametrize("dtype_name", F8_TYPES)
def test_qlinear_float8(ops, dtype_name):
    """float 8 operands and results: the exact sums, rounded once (saturating), NaN and the
    infinities by IEEE's rules, a nonzero zero point."""
    import ml_dtypes

    f8 = getattr(ml_dtypes, dtype_name)
    rng = np.random.default_rng(len(dtype_name))
    bits_a, bits_b = rng.integers(0, 256, (5, 9), dtype=np.uint8), rng.integers(0, 256, (9, 4), dtype=np.uint8)
    a, b = bits_a.view(f8), bits_b.view(f8)
    if "e5m2" in dtype_name:
        a[0, :] = np.array(1, f8)  # a row without specials
    else:
        a[0, :] = np.array(0.5, f8)
    zero = np.array(0.25, f8)
    with np.errstate(all="ignore"):
        for ys, yz in ((np.float32(1.0), np.zeros((), f8)), (np.float32(2.0**-6), np.array(-0.5, f8)),
                       (np.float32(3.0), np.int8(-3)), (np.float32(0.01), np.uint8(9))):
            check_qlinear(ops, a, np.float32(0.5), zero, b, np.float32(1.5), np.zeros((), f8), ys, yz)


def test_qlinear_mixed_types(ops):
    """T1, T2 and T3 are free of each other: an integer operand with a float 8 one, into either."""
    import ml_dtypes

    rng = np.random.default_rng(9)
    a = random_of(rng, U8, (4, 7))
    b = rng.integers(0, 0x7F, (7, 3), dtype=np.uint8).view(ml_dtypes.float8_e4m3fn)  # positive, finite
    for yz in (np.uint8(3), np.zeros((), ml_dtypes.float8_e5m2)):
        check_qlinear(ops, a, np.float32(0.02), np.uint8(128), b, np.float32(0.5), np.zeros((), b.dtype),
                      np.float32(0.3), yz)


def test_qlinear_float8_exact_sums():
    """e5m2 products are beyond a float64's 53 bits: the sums are exact, not float64's."""
    import ml_dtypes

    f8 = ml_dtypes.float8_e5m2
    a = np.array([[57344.0, 2.0**-16, -57344.0]], f8)
    b = np.array([[57344.0], [2.0**-16], [57344.0]], f8)
    got = fastbits.qlinear_matmul(a, np.float32(1), np.zeros((), f8), b, np.float32(1), np.zeros((), f8),
                                  np.float32(2.0**-40), np.zeros((), f8))
    assert got.astype(np.float32).tolist() == [[2.0**-32 * 2.0**40]]  # 2**-32 survives: 256


@pytest.mark.parametrize("sa, sb", SHAPES)
def test_qlinear_shapes(ops, sa, sb):
    """numpy.matmul's shapes: the result is MatMulInteger's sums, each requantized."""
    rng = np.random.default_rng(len(sa) * 10 + len(sb))
    a, b = random_of(rng, U8, sa), random_of(rng, I8, sb)
    scales = [np.float32(0.05), np.float32(0.01), np.float32(0.1)]
    got = ops.qlinear_matmul(a, scales[0], np.uint8(128), b, scales[1], np.int8(-3), scales[2], np.int8(1))
    (ea,), (eb,), (ey,) = (exact_values(np.asarray(v)) for v in scales)
    expected = np.vectorize(lambda s: requantize_exact(int(s), ea, eb, ey, 1, spec.DataType.INT8), otypes=[object])(
        matmul_integer_exact(a, b, 128, -3))
    assert got.shape == np.shape(expected) and got.dtype == I8 and got.flags.c_contiguous
    assert got.tolist() == np.asarray(expected).tolist()


def test_qlinear_batched_scales(ops):
    """N-D scales and zero points: (..., M, 1) for a, (..., 1, N) for b, each pair of one shape."""
    rng = np.random.default_rng(4)
    a, b = random_of(rng, I8, (2, 3, 5)), random_of(rng, U8, (5, 4))
    sa, za = rng.uniform(0.01, 0.1, (2, 3, 1)).astype(np.float32), random_of(rng, I8, (2, 3, 1))
    got = ops.qlinear_matmul(a, sa, za, b, np.float32(0.02), np.uint8(7), np.float32(0.05), np.uint8(2))
    for i in range(2):
        expected = qlinear_matmul_exact(a[i], sa[i], za[i], b, np.float32(0.02), np.uint8(7), np.float32(0.05),
                                        np.uint8(2))
        assert got[i].tolist() == expected


def test_qlinear_layouts(ops):
    """Transposed, strided and reversed operands."""
    rng = np.random.default_rng(8)
    a, b = random_of(rng, U8, (12, 30)), random_of(rng, I8, (45, 20))
    for va, vb in ((a[:, ::2], b[::-3, 1:]), (np.asfortranarray(a[:, :15]), np.asfortranarray(b[:15]))):
        check_qlinear(ops, va, np.float32(0.03), np.uint8(100), vb, np.float32(0.07), np.int8(2), np.float32(0.2),
                      np.uint8(128))


def test_qlinear_sums_past_int32(ops):
    """Two integer operands: the sums are MatMulInteger's, modulo 2**32, as the text allows."""
    k = 40_000
    a = np.full((1, k), 255, U8)
    b = np.full((k, 1), 255, U8)
    got = ops.qlinear_matmul(a, np.float32(1), np.uint8(0), b, np.float32(1), np.uint8(0), np.float32(2.0**20),
                             np.int8(0))
    wrapped = (255 * 255 * k + 2**31) % 2**32 - 2**31  # -1693967296
    assert got.tolist() == [[max(-128, min(127, round(wrapped / 2**20)))]]


@pytest.mark.parametrize("args, error, text", [
    ((np.zeros((2, 3), np.int16),), fastbits.TypeConstraintError, "input 'a' has dtype int16"),
    ((np.zeros((2, 3), I8), np.float64(1)), fastbits.TypeConstraintError, "input 'a_scale' has dtype float64"),
    ((np.zeros((2, 3), I8), np.float32(1), np.uint8(0)), fastbits.TypeConstraintError,
     "input 'a_zero_point' is tensor(uint8) and input 'a' tensor(int8)"),
    ((np.zeros((2, 3), I8), np.float32([1, 2]), np.int8(0)), fastbits.ArgumentValueError,
     "inputs 'a_scale' and 'a_zero_point' have shapes (2,) and ()"),
    ((np.zeros((2, 3), I8), np.float32(1), np.int8(0), np.zeros((4, 2), I8)), fastbits.ArgumentValueError,
     "do not multiply"),
    ((np.zeros((2, 3), I8), np.float32(1), np.int8(0), np.zeros((3, 2), I8), np.float16(1)),
     fastbits.TypeConstraintError, "input 'b_scale' is tensor(float16) and input 'a_scale' tensor(float)"),
    ((np.zeros((2, 3), I8), np.float32(1), np.int8(0), np.zeros((3, 2), I8), np.float32([1, 2, 3])),
     fastbits.ArgumentValueError, "input 'b_scale' has shape (3,)"),
    ((np.zeros((2, 3), I8), np.float32(1), np.int8(0), np.zeros((3, 2), I8), np.float32(1), np.int8(0),
      np.float32([1, 2])), fastbits.ArgumentValueError, "input 'y_scale' has shape (2,)"),
    ((np.zeros((2, 3), I8), np.float32(1), np.int8(0), np.zeros((3, 2), I8), np.float32(1), np.int8(0),
      np.float32(1), np.int16(0)), fastbits.TypeConstraintError, "input 'y_zero_point' has dtype int16"),
])
def test_qlinear_errors(ops, args, error, text):
    defaults = (np.zeros((2, 3), I8), np.float32(1), np.int8(0), np.zeros((3, 2), I8), np.float32(1), np.int8(0),
                np.float32(1), np.int8(0))
    with pytest.raises(error, match="^QLinearMatMul: ") as info:
        ops.qlinear_matmul(*args, *defaults[len(args):])
    assert text in str(info.value)


def test_qlinear_version_types():
    spec.check_qlinear_matmul_version(10, spec.DataType.INT8, spec.DataType.UINT8, spec.DataType.INT8,
                                      spec.DataType.FLOAT)
    with pytest.raises(fastbits.TypeConstraintError, match="the scales is tensor.float16., which QLinearMatMul-10"):
        spec.check_qlinear_matmul_version(10, spec.DataType.INT8, spec.DataType.INT8, spec.DataType.INT8,
                                          spec.DataType.FLOAT16)
    with pytest.raises(fastbits.TypeConstraintError, match="input 'b' is tensor.float8e4m3fn."):
        spec.check_qlinear_matmul_version(20, spec.DataType.INT8, spec.DataType.FLOAT8E4M3FN, spec.DataType.INT8,
                                          spec.DataType.FLOAT)
    spec.check_qlinear_matmul_version(21, spec.DataType.FLOAT8E5M2, spec.DataType.FLOAT8E4M3FN,
                                      spec.DataType.UINT8, spec.DataType.BFLOAT16)
