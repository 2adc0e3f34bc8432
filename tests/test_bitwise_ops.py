"""BitwiseAnd-18, BitwiseOr-18, BitwiseXor-18, BitShift-28 (both directions) and BitwiseNot-18
on every path: every integer type, broadcasting, layouts, byte orders, Python int operands,
out=, the errors.

And, Or, Xor and Not are held against numpy, BitShift against ``support.bitshift_reference``;
what only BitShift has (out-of-range amounts, ``direction``) is in ``test_bitshift.py``.  The
last section holds the conventions the family shares, shown on BitwiseAnd.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import fastbits
from fastbits import spec

from support import (
    BROADCAST_SHAPES, INT_DTYPES, NON_CONTIGUOUS_VIEWS, OUTSIDE_T, copy_layout, expected_layout, layout_of,
    random_ints, reference, run_op, shift_amounts,
)

OPS = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitshift_left", "bitshift_right"]
ONNX_NAME = {"bitwise_and": "BitwiseAnd", "bitwise_or": "BitwiseOr", "bitwise_xor": "BitwiseXor", "bitshift_left": "BitShift",
             "bitshift_right": "BitShift", "bitwise_not": "BitwiseNot"}


def _names(op):
    """The operator's ONNX name and its inputs' names, as messages give them."""
    onnx_name = ONNX_NAME[op]
    return onnx_name, spec.INPUT_NAMES[onnx_name]


def _operands(op, shape_a, shape_b, dtype, seed=0):
    """Random values and, for BitShift, amounts mostly in range."""
    second = shift_amounts if op.startswith("bitshift") else random_ints
    return random_ints(shape_a, dtype, seed), second(shape_b, dtype, seed + 1)


# --------------------------------------------------------------------------- results


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_every_integer_type_full_range(ops, op, dtype):
    a, b = _operands(op, (7, 33), (7, 33), dtype, 1)
    info = np.iinfo(dtype)
    a[0, :4] = [info.min, info.max, info.min, info.max]
    if not op.startswith("bitshift"):
        b[0, :4] = [info.max, info.min, info.min, info.max]
    result = run_op(ops, op, a, b)
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result, reference(op, a, b))


@pytest.mark.parametrize("shape_a, shape_b", BROADCAST_SHAPES)
@pytest.mark.parametrize("op", OPS)
def test_broadcasting(ops, op, shape_a, shape_b):
    for x_shape, y_shape in ((shape_a, shape_b), (shape_b, shape_a)):
        x, y = _operands(op, x_shape, y_shape, np.int16, 3)
        result = run_op(ops, op, x, y)
        expected = reference(op, x, y)
        assert isinstance(result, np.ndarray)
        assert result.shape == expected.shape and result.dtype == np.int16
        assert layout_of(result) == expected_layout(x, y) and result.flags.owndata
        np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("view", NON_CONTIGUOUS_VIEWS.values(), ids=list(NON_CONTIGUOUS_VIEWS))
@pytest.mark.parametrize("op", OPS)
def test_non_contiguous_and_read_only_inputs(ops, op, view):
    x, y = (view(array) for array in _operands(op, (24, 24), (24, 24), np.uint64, 5))
    expected = reference(op, x, y)
    np.testing.assert_array_equal(run_op(ops, op, x, y), expected)
    np.testing.assert_array_equal(run_op(ops, op, x, np.ascontiguousarray(y)), expected)
    np.testing.assert_array_equal(run_op(ops, op, np.ascontiguousarray(x), y), expected)
    read_only_x, read_only_y = x.view(), y.view()
    read_only_x.flags.writeable = read_only_y.flags.writeable = False
    np.testing.assert_array_equal(run_op(ops, op, read_only_x, read_only_y), expected)


@pytest.mark.parametrize("dtype", ["i2", "u2", "u4", "i8", "u8"])
@pytest.mark.parametrize("op", OPS)
def test_non_native_byte_order(ops, op, dtype):
    a_native, b_native = _operands(op, (5, 8), (8,), np.dtype(dtype), 1)
    expected = reference(op, a_native, b_native)
    swapped = np.dtype(dtype).newbyteorder("S")  # '>' on a little-endian host, '<' on a big-endian one
    swapped_a, swapped_b = a_native.astype(swapped), b_native.astype(swapped)
    for a, b in ((swapped_a, swapped_b), (swapped_a, b_native), (a_native, swapped_b)):
        result = run_op(ops, op, a, b)
        assert result.dtype == np.dtype(dtype) and result.dtype.isnative
        np.testing.assert_array_equal(result, expected)


def test_examples(ops):
    a, b = np.array([12, 10], np.uint8), np.uint8(6)
    assert ops.bitwise_or(a, b).tolist() == [14, 14]
    assert ops.bitwise_xor(a, b).tolist() == [10, 12]
    assert ops.bitwise_not(a).tolist() == [243, 245]
    assert ops.bitwise_or(np.int8(-128), np.int8(127)).tolist() == -1
    assert ops.bitwise_xor(np.array([-1], np.int64), np.array([2**62], np.int64)).tolist() == [-(2**62) - 1]


# --------------------------------------------------------------------------- Python ints


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_python_int_takes_the_other_type(ops, op, dtype):
    a = random_ints((11,), dtype)
    info = np.iinfo(dtype)
    for value in {int(info.min), int(info.max), 0, 3, 0x55 if info.min == 0 else -0x55}:
        scalar = np.asarray(value, dtype)
        for result, expected in (
            (run_op(ops, op, a, value), reference(op, a, scalar)),
            (run_op(ops, op, value, a), reference(op, scalar, a)),
        ):
            assert result.dtype == np.dtype(dtype)
            np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_python_int_out_of_range(ops, op, dtype):
    onnx_name, (name_a, name_b) = _names(op)
    info = np.iinfo(dtype)
    a = np.zeros(3, dtype)
    for value in (int(info.max) + 1, int(info.min) - 1, 2**64, -(2**64)):
        pattern = rf"^{onnx_name}: input '{name_b}' is the Python int {value}, outside the range \[{info.min}, {info.max}\]"
        with pytest.raises(fastbits.ArgumentValueError, match=pattern):
            run_op(ops, op, a, value)
        with pytest.raises(fastbits.ArgumentValueError, match=rf"^{onnx_name}: input '{name_a}' is the Python int {value}"):
            run_op(ops, op, value, a)


@pytest.mark.parametrize("op", OPS)
def test_two_python_ints(ops, op):
    onnx_name, (name_a, name_b) = _names(op)
    with pytest.raises(fastbits.TypeConstraintError, match=rf"^{onnx_name}: inputs '{name_a}' and '{name_b}' are both Python ints"):
        run_op(ops, op, 12, 10)


@pytest.mark.parametrize("op", OPS)
def test_python_int_and_big_endian_array(ops, op):
    a = np.array([0x1234, -1], ">i2")
    result = run_op(ops, op, a, 5)
    assert result.dtype == np.dtype("=i2")
    np.testing.assert_array_equal(result, reference(op, a.astype("=i2"), np.int16(5)))


# --------------------------------------------------------------------------- out=


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_out_kinds(ops, op, dtype):
    a, b = _operands(op, (6, 10), (10,), dtype, 1)
    expected = reference(op, a, b)
    holder = np.zeros((12, 20), dtype)
    outs = [np.empty((6, 10), dtype), holder[::2, ::-2], np.zeros((6, 10), dtype)[::-1, ::-1],
            np.zeros((6, 10), dtype, order="F"), np.zeros((6, 10), np.dtype(dtype).newbyteorder("S"))]
    for out in outs:
        assert run_op(ops, op, a, b, out=out) is out
        np.testing.assert_array_equal(out, expected)
    assert not holder[1::2].any() and not holder[::2, ::2].any()  # nothing written outside the view


@pytest.mark.parametrize("which", ["a", "b", "both"])
@pytest.mark.parametrize("op", OPS)
def test_out_is_an_input(ops, op, which):
    a, b = _operands(op, (50, 8), (50, 8), np.int32, 1)
    if which == "both":
        a = b
    expected = reference(op, a, b)
    target = b if which == "b" else a
    assert run_op(ops, op, a, b, out=target) is target
    np.testing.assert_array_equal(target, expected)


@pytest.mark.parametrize("op", OPS)
def test_out_is_a_broadcast_input(ops, op):
    a, b = _operands(op, (50, 8), (8,), np.uint16, 1)
    expected = reference(op, a, b)
    assert run_op(ops, op, a, b, out=a) is a  # b, one row, over every row of out
    np.testing.assert_array_equal(a, expected)
    a, b = _operands(op, (8,), (50, 8), np.uint16, 3)
    row = b[3]
    expected = reference(op, row.copy(), b)
    run_op(ops, op, row, b, out=b)  # a is a row of out
    np.testing.assert_array_equal(b, expected)


@pytest.mark.parametrize("shift", [1, -1, 3, -5])
@pytest.mark.parametrize("op", OPS)
def test_out_overlaps_an_input(ops, op, shift):
    for side in (0, 1):
        buffer, other = _operands(op, (300,), (200,), np.int64, 9)
        if side:
            other, buffer = _operands(op, (200,), (300,), np.int64, 11)
        operands = [buffer[50:250], other][:: 1 if side == 0 else -1]
        expected = reference(op, *[x.copy() for x in operands])
        out = buffer[50 + shift : 250 + shift]
        run_op(ops, op, *operands, out=out)
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("op", OPS)
def test_out_reversed_view_of_input(ops, op):
    a, b = _operands(op, (64,), (64,), np.int8, 3)
    expected = reference(op, a[::-1], b)
    run_op(ops, op, a[::-1], b, out=a)
    np.testing.assert_array_equal(a, expected)


@pytest.mark.parametrize("op", OPS)
def test_zero_size_and_zero_d(ops, op):
    a = np.empty((0, 3), np.int8)
    assert run_op(ops, op, a, np.int8(1)).shape == (0, 3)
    out = np.empty((0, 3), np.int8)
    assert run_op(ops, op, a, a, out=out) is out
    x, y = np.array(12, np.uint8), np.array(3, np.uint8)
    result = run_op(ops, op, x, y)
    assert isinstance(result, np.ndarray) and result.shape == () and result.dtype == np.uint8
    assert result == reference(op, x, y)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("a, b, name, shown", OUTSIDE_T)
@pytest.mark.parametrize("op", OPS)
def test_types_outside_t(ops, op, a, b, name, shown):
    onnx_name, names = _names(op)
    with pytest.raises(fastbits.TypeConstraintError) as info:
        run_op(ops, op, a, b)
    message = str(info.value)
    assert message.startswith(f"{onnx_name}: input '{names['AB'.index(name)]}' has dtype ")
    assert re.search(shown, message)
    assert "tensor(int8)" in message and "tensor(uint64)" in message  # the allowed set: all eight


@pytest.mark.parametrize("t1, t2", [(np.int32, np.int64), (np.uint8, np.int8), (np.uint32, np.uint8)])
@pytest.mark.parametrize("op", OPS)
def test_mixed_types_are_not_promoted(ops, op, t1, t2):
    onnx_name, (name_a, name_b) = _names(op)
    pattern = (rf"^{onnx_name}: inputs '{name_a}' and '{name_b}' must have the same type T, but '{name_a}' is "
               rf"tensor\({np.dtype(t1).name}\) and '{name_b}' is tensor\({np.dtype(t2).name}\)")
    with pytest.raises(fastbits.TypeConstraintError, match=pattern):
        run_op(ops, op, np.zeros(2, t1), np.zeros(2, t2))


@pytest.mark.parametrize("op", OPS)
def test_shape_and_out_errors(ops, op):
    onnx_name, (name_a, name_b) = _names(op)
    a = np.zeros((2, 3), np.int32)
    pattern = rf"^{onnx_name}: inputs '{name_a}' with shape \(2, 3\) and '{name_b}' with shape \(3, 2\) do not broadcast"
    with pytest.raises(fastbits.BroadcastError, match=pattern):
        run_op(ops, op, a, np.zeros((3, 2), np.int32))
    with pytest.raises(fastbits.BroadcastError, match=rf"^{onnx_name}: 'out' has shape \(3, 2\)"):
        run_op(ops, op, a, a, out=np.zeros((3, 2), np.int32))
    with pytest.raises(fastbits.TypeConstraintError, match=rf"^{onnx_name}: 'out' has dtype uint32"):
        run_op(ops, op, a, a, out=np.zeros((2, 3), np.uint32))
    read_only = np.zeros((2, 3), np.int32)
    read_only.flags.writeable = False
    with pytest.raises(fastbits.ArgumentValueError, match=rf"^{onnx_name}: 'out' is read-only"):
        run_op(ops, op, a, a, out=read_only)
    with pytest.raises(fastbits.ArgumentTypeError, match=rf"^{onnx_name}: 'out' must be a numpy.ndarray"):
        run_op(ops, op, a, a, out=[[0] * 3] * 2)
    with pytest.raises(fastbits.ArgumentTypeError, match=rf"^{onnx_name}: input '{name_b}' \(object\) cannot be read as a numeric array"):
        run_op(ops, op, a, object())
    with pytest.raises(fastbits.ArgumentTypeError, match=rf"^{onnx_name}: input '{name_a}' cannot be read as an array"):
        run_op(ops, op, [[1], [1, 2]], a)


def test_out_is_keyword_only_and_inputs_positional_only(ops):
    a = np.zeros(2, np.int8)
    for call in (
        lambda: ops.bitwise_or(a, a, a),
        lambda: ops.bitwise_xor(a=a, b=a),
        lambda: ops.bitwise_not(a, a),
        lambda: ops.bitwise_not(x=a),
        lambda: ops.bitshift(a, a, "LEFT", a),
        lambda: ops.bitshift(a, a),
        lambda: ops.bitshift(a, a, direction="LEFT"),
    ):
        with pytest.raises(TypeError):
            call()


# --------------------------------------------------------------------------- Not


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_not_every_integer_type(ops, dtype):
    x = random_ints((7, 33), dtype, 1)
    info = np.iinfo(dtype)
    x[0, :3] = [info.min, info.max, 0]
    result = ops.bitwise_not(x)
    assert result.dtype == np.dtype(dtype) and result.flags.c_contiguous  # as x is
    np.testing.assert_array_equal(result, np.invert(x))
    assert result[0, :3].tolist() == [info.max, info.min, -1 if info.min else info.max]


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (1,), (5,), (1000, 3), (2, 3, 1, 4, 1, 2, 3)])
def test_not_shapes(ops, shape):
    x = random_ints(shape, np.int32, 3)
    result = ops.bitwise_not(x)
    assert isinstance(result, np.ndarray) and result.shape == shape and result.dtype == np.int32
    assert result.flags.owndata and not np.shares_memory(result, x)
    np.testing.assert_array_equal(result, np.invert(x))


@pytest.mark.parametrize("view", NON_CONTIGUOUS_VIEWS.values(), ids=list(NON_CONTIGUOUS_VIEWS))
def test_not_layouts(ops, view):
    x = view(random_ints((24, 24), np.int16, 5))
    np.testing.assert_array_equal(ops.bitwise_not(x), np.invert(x))
    read_only = x.view()
    read_only.flags.writeable = False
    np.testing.assert_array_equal(ops.bitwise_not(read_only), np.invert(x))
    result = ops.bitwise_not(x.astype(">i2"))
    assert result.dtype == np.dtype("=i2")
    np.testing.assert_array_equal(result, np.invert(x))


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_not_out(ops, dtype):
    x = random_ints((6, 10), dtype, 1)
    expected = np.invert(x)
    holder = np.zeros((12, 20), dtype)
    for out in (np.empty((6, 10), dtype), holder[::2, ::-2], np.zeros((6, 10), np.dtype(dtype).newbyteorder("S")),
                np.zeros((6, 10), dtype)[::-1], np.zeros((6, 10), dtype, order="F")):
        assert ops.bitwise_not(x, out=out) is out
        np.testing.assert_array_equal(out, expected)
    assert not holder[1::2].any()


def test_not_in_place_and_overlapping(ops):
    x = random_ints((40, 9), np.int8, 2)
    expected = np.invert(x)
    assert ops.bitwise_not(x, out=x) is x
    np.testing.assert_array_equal(x, expected)
    x = random_ints((64,), np.int64, 3)
    expected = np.invert(x[::-1])
    ops.bitwise_not(x[::-1], out=x)
    np.testing.assert_array_equal(x, expected)
    for shift in (1, -1, 3, -5):
        buffer = random_ints((300,), np.uint32, 9)
        expected = np.invert(buffer[50:250])
        out = buffer[50 + shift : 250 + shift]
        ops.bitwise_not(buffer[50:250], out=out)
        np.testing.assert_array_equal(out, expected)


def test_not_array_likes(ops):
    """Read with numpy.asarray, as BitwiseAnd reads them: a list of Python ints is int64."""
    result = ops.bitwise_not([0, 5, -1])
    assert result.dtype == np.int64 and result.tolist() == [-1, -6, 0]


@pytest.mark.parametrize("a, b, name, shown", [row for row in OUTSIDE_T if row[2] == "A"])
def test_not_types_outside_t(ops, a, b, name, shown):
    with pytest.raises(fastbits.TypeConstraintError) as info:
        ops.bitwise_not(a)
    message = str(info.value)
    assert message.startswith("BitwiseNot: input 'X' has dtype ")
    assert re.search(shown, message)
    assert "tensor(int8)" in message and "tensor(uint64)" in message


def test_not_bad_inputs(ops):
    x = np.zeros((2, 3), np.int32)
    with pytest.raises(fastbits.BroadcastError, match=r"^BitwiseNot: 'out' has shape \(3, 2\) but the result has shape \(2, 3\)"):
        ops.bitwise_not(x, out=np.zeros((3, 2), np.int32))
    with pytest.raises(fastbits.TypeConstraintError, match=r"^BitwiseNot: 'out' has dtype int64"):
        ops.bitwise_not(x, out=np.zeros((2, 3), np.int64))
    read_only = np.zeros((2, 3), np.int32)
    read_only.flags.writeable = False
    with pytest.raises(fastbits.ArgumentValueError, match=r"^BitwiseNot: 'out' is read-only"):
        ops.bitwise_not(x, out=read_only)
    with pytest.raises(fastbits.ArgumentTypeError, match=r"^BitwiseNot: 'out' must be a numpy.ndarray"):
        ops.bitwise_not(x, out=[[0] * 3] * 2)
    with pytest.raises(fastbits.ArgumentTypeError, match=r"^BitwiseNot: input 'X' cannot be read as an array"):
        ops.bitwise_not([[1], [1, 2]])
    with pytest.raises(fastbits.ArgumentTypeError, match=r"^BitwiseNot: input 'X' \(object\) cannot be read as a numeric array"):
        ops.bitwise_not(object())


# --------------------------------------------------------------------------- shown on BitwiseAnd


def test_result_is_new_native_in_the_inputs_layout(ops):
    a = random_ints((40, 30), np.int16).T  # Fortran-ordered inputs: a Fortran-ordered result
    b = random_ints((40, 30), np.int16, 7).T
    result = ops.bitwise_and(a, b)
    assert result.flags.f_contiguous and result.dtype.isnative
    assert ops.bitwise_and(a, b, order="C").flags.c_contiguous
    assert result.flags.writeable and result.flags.owndata
    assert not np.shares_memory(result, a) and not np.shares_memory(result, b)
    np.testing.assert_array_equal(result, a & b)


def test_zero_d_result_is_an_array(ops):
    result = ops.bitwise_and(np.array(12, np.uint8), np.array(10, np.uint8))
    assert isinstance(result, np.ndarray) and result.shape == () and result == 8


def test_numpy_scalar_operand_keeps_its_type(ops):
    a = random_ints((4,), np.uint8)
    np.testing.assert_array_equal(ops.bitwise_and(a, np.uint8(0x0F)), a & 0x0F)
    with pytest.raises(fastbits.TypeConstraintError, match="tensor\\(int64\\)"):
        ops.bitwise_and(a, np.int64(3))


def test_array_likes(ops):
    a = np.array([6, 5, 4], np.int64)
    np.testing.assert_array_equal(ops.bitwise_and(a, [3, 3, 3]), [2, 1, 0])
    with pytest.raises(fastbits.TypeConstraintError, match="'B' is tensor\\(int64\\)"):
        ops.bitwise_and(a.astype(np.int32), [3, 3, 3])  # a list is int64: no promotion


def test_out_strided_and_big_endian(ops):
    a, b = random_ints((6, 10), np.int32, 1), random_ints((6, 10), np.int32, 2)
    holder = np.zeros((12, 20), np.int32)
    out = holder[::2, ::-2]
    assert ops.bitwise_and(a, b, out=out) is out
    np.testing.assert_array_equal(out, a & b)
    assert not holder[1::2].any()  # nothing written outside the view
    big = np.zeros((6, 10), ">i4")
    ops.bitwise_and(a, b, out=big)
    np.testing.assert_array_equal(big, a & b)


@pytest.mark.parametrize("shape_a, shape_b", [((3,), (4,)), ((2, 3), (3, 2)), ((0,), (2,)), ((5, 4, 3), (5, 3))])
def test_incompatible_shapes(ops, shape_a, shape_b):
    with pytest.raises(fastbits.BroadcastError) as info:
        ops.bitwise_and(np.zeros(shape_a, np.int32), np.zeros(shape_b, np.int32))
    assert str(shape_a) in str(info.value) and str(shape_b) in str(info.value)
    assert str(info.value).startswith("BitwiseAnd: ")


def test_out_errors(ops):
    a = np.zeros((2, 3), np.int32)
    with pytest.raises(fastbits.BroadcastError, match=r"'out' has shape \(3, 2\)"):
        ops.bitwise_and(a, a, out=np.zeros((3, 2), np.int32))
    with pytest.raises(fastbits.BroadcastError, match=r"'out' has shape \(1, 2, 3\)"):
        ops.bitwise_and(a, a, out=np.zeros((1, 2, 3), np.int32))
    with pytest.raises(fastbits.TypeConstraintError, match=r"'out' has dtype int64"):
        ops.bitwise_and(a, a, out=np.zeros((2, 3), np.int64))
    with pytest.raises(fastbits.TypeConstraintError, match=r"'out' has dtype uint32"):
        ops.bitwise_and(a, a, out=np.zeros((2, 3), np.uint32))
    read_only = np.zeros((2, 3), np.int32)
    read_only.flags.writeable = False
    with pytest.raises(fastbits.ArgumentValueError, match="'out' is read-only"):
        ops.bitwise_and(a, a, out=read_only)
    with pytest.raises(fastbits.ArgumentTypeError, match="'out' must be a numpy.ndarray"):
        ops.bitwise_and(a, a, out=[[0, 0, 0], [0, 0, 0]])


def test_ragged_input(ops):
    with pytest.raises(fastbits.ArgumentTypeError, match="input 'A' cannot be read as an array"):
        ops.bitwise_and([[1], [1, 2]], np.zeros(2, np.int64))


def test_huge_but_empty_broadcast(ops):
    # sizes whose product overflows, times a zero-size axis: an empty result, not an error
    huge = np.broadcast_to(np.zeros(1, np.int8), (2**40, 1, 1))
    empty = np.zeros((1, 2**22, 0), np.int8)
    result = ops.bitwise_and(huge, empty)
    assert result.shape == (2**40, 2**22, 0) and result.dtype == np.int8
