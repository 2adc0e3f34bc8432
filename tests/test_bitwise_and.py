"""BitwiseAnd-18 on every path: types, broadcasting, operands, out=, errors."""

from __future__ import annotations

import numpy as np
import pytest

import fastbits

from support import BROADCAST_SHAPES, INT_DTYPES, NON_CONTIGUOUS_VIEWS, OUTSIDE_T, random_ints


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_every_integer_type_full_range(ops, dtype):
    a, b = random_ints((7, 33), dtype, 1), random_ints((7, 33), dtype, 2)
    info = np.iinfo(dtype)
    a[0, :3] = [info.min, info.max, -1 if info.min else info.max]
    result = ops.bitwise_and(a, b)
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result, a & b)


@pytest.mark.parametrize("shape_a, shape_b", BROADCAST_SHAPES)
def test_broadcasting(ops, shape_a, shape_b):
    a, b = random_ints(shape_a, np.int32, 3), random_ints(shape_b, np.int32, 4)
    for x, y in ((a, b), (b, a)):
        result = ops.bitwise_and(x, y)
        expected = np.bitwise_and(x, y)
        assert result.shape == expected.shape
        assert result.dtype == np.int32
        np.testing.assert_array_equal(result, expected)


def test_result_is_new_c_contiguous_native(ops):
    a = random_ints((40, 30), np.int16).T  # Fortran-ordered input
    b = random_ints((40, 30), np.int16, 7).T
    result = ops.bitwise_and(a, b)
    assert result.flags.c_contiguous
    assert result.flags.writeable and result.flags.owndata
    assert not np.shares_memory(result, a) and not np.shares_memory(result, b)
    np.testing.assert_array_equal(result, a & b)


def test_zero_d_result_is_an_array(ops):
    result = ops.bitwise_and(np.array(12, np.uint8), np.array(10, np.uint8))
    assert isinstance(result, np.ndarray) and result.shape == () and result == 8


@pytest.mark.parametrize("view", NON_CONTIGUOUS_VIEWS.values(), ids=list(NON_CONTIGUOUS_VIEWS))
def test_non_contiguous_inputs(ops, view):
    base = random_ints((24, 24), np.int32, 5)
    x = view(base)
    y = random_ints(x.shape, np.int32, 6)
    np.testing.assert_array_equal(ops.bitwise_and(x, y), x & y)
    np.testing.assert_array_equal(ops.bitwise_and(y, x), y & x)


def test_read_only_inputs(ops):
    a, b = random_ints((9, 9), np.uint16), random_ints((9,), np.uint16, 1)
    a.flags.writeable = False
    b.flags.writeable = False
    np.testing.assert_array_equal(ops.bitwise_and(a, b), a & b)


@pytest.mark.parametrize("dtype", ["i2", "u4", "i8", "u8"])
def test_non_native_byte_order(ops, dtype):
    a_native = random_ints((5, 8), np.dtype(dtype), 1)
    b_native = random_ints((8,), np.dtype(dtype), 2)
    swapped = np.dtype(dtype).newbyteorder("S")  # '>' on a little-endian host, '<' on a big-endian one
    swapped_a, swapped_b = a_native.astype(swapped), b_native.astype(swapped)
    expected = a_native & b_native
    for a, b in ((swapped_a, swapped_b), (swapped_a, b_native), (a_native, swapped_b)):
        result = ops.bitwise_and(a, b)
        assert result.dtype == np.dtype(dtype) and result.dtype.isnative
        np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_python_int_takes_the_other_type(ops, dtype):
    a = random_ints((11,), dtype)
    info = np.iinfo(dtype)
    for value in (info.min, info.max, 0, 0x55 if info.min == 0 else -0x55):
        for result, expected in (
            (ops.bitwise_and(a, value), a & np.asarray(value, dtype)),
            (ops.bitwise_and(value, a), np.asarray(value, dtype) & a),
        ):
            assert result.dtype == np.dtype(dtype)
            np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_python_int_out_of_range(ops, dtype):
    info = np.iinfo(dtype)
    a = np.zeros(3, dtype)
    for value in (info.max + 1, info.min - 1):
        with pytest.raises(fastbits.ArgumentValueError, match=rf"BitwiseAnd: input 'B'.*{value}.*{np.dtype(dtype).name}"):
            ops.bitwise_and(a, value)
        with pytest.raises(ValueError, match=r"BitwiseAnd: input 'A'"):
            ops.bitwise_and(value, a)


def test_python_int_and_big_endian_array(ops):
    a = np.array([0x1234, -1], ">i2")
    np.testing.assert_array_equal(ops.bitwise_and(a, 0xFF), [0x34, 0xFF])


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


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_out_contiguous(ops, dtype):
    a, b = random_ints((6, 10), dtype, 1), random_ints((10,), dtype, 2)
    out = np.empty((6, 10), dtype)
    assert ops.bitwise_and(a, b, out=out) is out
    np.testing.assert_array_equal(out, a & b)


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


@pytest.mark.parametrize("which", ["a", "b"])
def test_out_is_an_input(ops, which):
    a, b = random_ints((50, 8), np.uint32, 1), random_ints((50, 8), np.uint32, 2)
    expected = a & b
    target = a if which == "a" else b
    assert ops.bitwise_and(a, b, out=target) is target
    np.testing.assert_array_equal(target, expected)


def test_out_is_a_broadcast_input(ops):
    a, b = random_ints((50, 8), np.uint32, 1), random_ints((8,), np.uint32, 2)
    expected = a & b
    assert ops.bitwise_and(b, a, out=a) is a
    np.testing.assert_array_equal(a, expected)


@pytest.mark.parametrize("shift", [1, -1, 3, -5])
def test_out_overlaps_an_input(ops, shift):
    buffer = random_ints((300,), np.int64, 9)
    other = random_ints((200,), np.int64, 10)
    a = buffer[50:250]
    out = buffer[50 + shift : 250 + shift]
    expected = a & other
    ops.bitwise_and(a, other, out=out)
    np.testing.assert_array_equal(out, expected)


def test_out_reversed_view_of_input(ops):
    a = random_ints((64,), np.int16, 3)
    b = random_ints((64,), np.int16, 4)
    expected = a[::-1] & b
    ops.bitwise_and(a[::-1], b, out=a)
    np.testing.assert_array_equal(a, expected)


def test_zero_size(ops):
    a = np.empty((0, 3), np.int8)
    assert ops.bitwise_and(a, np.int8(1)).shape == (0, 3)
    out = np.empty((0, 3), np.int8)
    assert ops.bitwise_and(a, a, out=out) is out


# ----------------------------------------------------------------------- errors


@pytest.mark.parametrize("a, b, name, shown", OUTSIDE_T)
def test_types_outside_t(ops, a, b, name, shown):
    with pytest.raises(fastbits.TypeConstraintError) as info:
        ops.bitwise_and(a, b)
    message = str(info.value)
    assert message.startswith("BitwiseAnd: ")
    assert f"'{name}'" in message
    assert pytest.importorskip("re").search(shown, message)
    assert "tensor(int8)" in message and "tensor(uint64)" in message  # the allowed set


@pytest.mark.parametrize("t1, t2", [(np.int32, np.int64), (np.uint8, np.int8), (np.uint32, np.int32)])
def test_mixed_types_are_not_promoted(ops, t1, t2):
    with pytest.raises(fastbits.TypeConstraintError, match="same type T"):
        ops.bitwise_and(np.zeros(2, t1), np.zeros(2, t2))


def test_two_python_ints(ops):
    with pytest.raises(fastbits.TypeConstraintError, match="both Python ints"):
        ops.bitwise_and(3, 5)


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


def test_out_is_keyword_only_and_inputs_positional_only(ops):
    a = np.zeros(2, np.int8)
    with pytest.raises(TypeError):
        ops.bitwise_and(a, a, np.zeros(2, np.int8))
    with pytest.raises(TypeError):
        ops.bitwise_and(a=a, b=a)


def test_ragged_input(ops):
    with pytest.raises(fastbits.ArgumentTypeError, match="input 'A' cannot be read as an array"):
        ops.bitwise_and([[1], [1, 2]], np.zeros(2, np.int64))


def test_huge_but_empty_broadcast(ops):
    # sizes whose product overflows, times a zero-size axis: an empty result, not an error
    huge = np.broadcast_to(np.zeros(1, np.int8), (2**40, 1, 1))
    empty = np.zeros((1, 2**22, 0), np.int8)
    result = ops.bitwise_and(huge, empty)
    assert result.shape == (2**40, 2**22, 0) and result.dtype == np.int8
