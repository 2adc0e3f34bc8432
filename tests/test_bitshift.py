"""BitShift-28 on every path: what only BitShift has. Every (value, amount) pair of the
8-bit types, sampled wider types, amounts out of range (negative, the bit width and more),
Python int amounts at the edges, ``direction``.

The reference is ``support.bitshift_reference``, written from the ONNX text on Python
ints; ``test_onnx_text_examples`` holds hand-worked values besides.  Broadcasting,
layouts, out= and the errors BitShift shares with BitwiseOr and Xor are in
``test_bitwise_ops.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import fastbits

from support import INT_DTYPES, bitshift_reference, random_ints, shift_amounts

DIRECTIONS = ["LEFT", "RIGHT"]
WIDE_DTYPES = [t for t in INT_DTYPES if np.dtype(t).itemsize > 1]


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_every_8bit_pair(ops, dtype, direction):
    """All 256 x 256 (value, amount) pairs, the amount broadcast along one axis."""
    every = np.arange(256, dtype=np.uint8).view(dtype)
    x, y = every[:, None], every[None, :]
    result = ops.bitshift(x, y, direction)
    assert result.shape == (256, 256) and result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result, bitshift_reference(x, y, direction))


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("dtype", WIDE_DTYPES)
def test_wider_types_sampled(ops, dtype, direction):
    """Values at the edges and random, against every amount from -1 to W+1 and the edges."""
    info = np.iinfo(dtype)
    width = np.dtype(dtype).itemsize * 8
    specials = [0, 1, 2, 3, info.max, info.max - 1, info.max >> 1, (info.max >> 1) + 1]
    if info.min:
        specials += [-1, -2, info.min, info.min + 1, info.min >> 1]
    x = np.concatenate([np.array(specials, dtype), random_ints(40, dtype, width)])
    amounts = [a for a in range(-1 if info.min else 0, width + 2)] + [2 * width, info.max, info.max - 1]
    if info.min:
        amounts += [-width, -(width + 1), info.min, info.min + 1]
    y = np.array(amounts, dtype)
    result = ops.bitshift(x[:, None], y[None, :], direction)
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result, bitshift_reference(x[:, None], y[None, :], direction))
    # the same pairs elementwise (both operands contiguous), into a fresh result and in place
    xs, ys = (np.ascontiguousarray(v).ravel() for v in np.broadcast_arrays(x[:, None], y[None, :]))
    expected = bitshift_reference(xs, ys, direction)
    np.testing.assert_array_equal(ops.bitshift(xs, ys, direction), expected)
    into_x, into_y = xs.copy(), ys.copy()
    assert ops.bitshift(into_x, ys, direction, out=into_x) is into_x
    assert ops.bitshift(xs, into_y, direction, out=into_y) is into_y
    np.testing.assert_array_equal(into_x, expected)
    np.testing.assert_array_equal(into_y, expected)
    # random amounts, mostly in range, elementwise
    x = random_ints(500, dtype, 1)
    y = shift_amounts(500, dtype, 2)
    np.testing.assert_array_equal(ops.bitshift(x, y, direction), bitshift_reference(x, y, direction))


# (dtype, x, y, direction, expected), each worked by hand from the BitShift-28 text
EXAMPLES = [
    (np.uint8, [16, 4, 1], [1, 2, 3], "RIGHT", [8, 1, 0]),       # the spec's own example
    (np.uint8, [16, 4, 1], [1, 2, 3], "LEFT", [32, 16, 8]),      # the spec's own example
    (np.uint8, [255, 255, 255, 1], [7, 8, 255, 7], "RIGHT", [1, 0, 0, 0]),
    (np.uint8, [255, 255, 255, 1], [7, 8, 255, 7], "LEFT", [128, 0, 0, 128]),
    (np.int8, [-16, 16, -16, -1, -128], [2, 9, 9, 7, 7], "RIGHT", [-4, 0, -1, -1, -1]),
    (np.int8, [1, 64, -1, -1, 127], [7, 1, 8, 7, 1], "LEFT", [-128, -128, 0, -128, -2]),
    (np.int8, [5, -5, 5, -5], [-1, -1, -128, -128], "RIGHT", [0, -1, 0, -1]),
    (np.int8, [5, -5, 5, -5], [-1, -1, -128, 127], "LEFT", [0, 0, 0, 0]),
    (np.int16, [-32768, -32768, 32767], [15, 16, 15], "RIGHT", [-1, -1, 0]),
    (np.int32, [1, 1, 3], [31, 32, 31], "LEFT", [-(2**31), 0, -(2**31)]),
    (np.uint32, [2**32 - 1, 2**32 - 1], [31, 32], "RIGHT", [1, 0]),
    (np.int64, [-(2**63), -(2**63), 2**63 - 1, -3], [63, 64, 64, 1], "RIGHT", [-1, -1, 0, -2]),
    (np.int64, [1, 1, -1], [63, 64, -1], "LEFT", [-(2**63), 0, 0]),
    (np.uint64, [1, 2**63 + 1, 1000, 255], [64, 63, 64, 65], "LEFT", [0, 2**63, 0, 0]),
    (np.uint64, [1000, 255, 1, 42, 2**63], [64, 64, 64, 64, 63], "RIGHT", [0, 0, 0, 0, 1]),
    (np.int8, -16, 9, "RIGHT", -1),  # 0-d
    (np.uint16, [[1], [0x8000]], [0, 15, 16], "LEFT", [[1, 0x8000, 0], [0x8000, 0, 0]]),  # broadcast
]


@pytest.mark.parametrize("dtype, x, y, direction, expected", EXAMPLES)
def test_onnx_text_examples(ops, dtype, x, y, direction, expected):
    result = ops.bitshift(np.array(x, dtype), np.array(y, dtype), direction)
    assert result.dtype == np.dtype(dtype)
    assert result.tolist() == expected
    assert bitshift_reference(np.array(x, dtype), np.array(y, dtype), direction).tolist() == expected


# --------------------------------------------------------------------------- Python ints


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_python_int_amount(ops, direction, dtype):
    """A Python int amount takes x's type: ``bitshift(x, 3, "LEFT")``; the edges included."""
    x = random_ints((3, 11), dtype, 7)
    info = np.iinfo(dtype)
    width = np.dtype(dtype).itemsize * 8
    for amount in {0, 1, width - 1, width, width + 1, int(info.max), int(info.min), -1 if info.min else 0}:
        result = ops.bitshift(x, amount, direction)
        assert result.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(result, bitshift_reference(x, np.asarray(amount, dtype), direction))


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_python_int_value(ops, direction, dtype):
    y = shift_amounts((13,), dtype, 8)
    info = np.iinfo(dtype)
    for value in {1, int(info.max), int(info.min), -1 if info.min else 0}:
        result = ops.bitshift(value, y, direction)
        assert result.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(result, bitshift_reference(np.asarray(value, dtype), y, direction))


# --------------------------------------------------------------------------- direction


@pytest.mark.parametrize("spelling", ["left", "Left", "lEfT", "right", "Right", " RIGHT ", b"LEFT", b"right"])
def test_direction_in_any_case(ops, spelling):
    x = np.array([-16, 16, 1], np.int8)
    y = np.array([2, 9, 7], np.int8)
    canonical = (spelling.decode() if isinstance(spelling, bytes) else spelling).strip().upper()
    np.testing.assert_array_equal(ops.bitshift(x, y, spelling), bitshift_reference(x, y, canonical))


@pytest.mark.parametrize("direction", ["UP", "", "L", "LEFTT", "LEFT RIGHT", "gauche", None, 1, 0, True, b"UP", b"\xff", ["LEFT"]])
def test_bad_direction(ops, direction):
    x = np.array([1, 2], np.uint8)
    with pytest.raises(fastbits.ArgumentValueError) as info:
        ops.bitshift(x, x, direction)
    message = str(info.value)
    assert message.startswith("BitShift: attribute 'direction' is ")
    assert "expected 'LEFT' or 'RIGHT'" in message
    if not isinstance(direction, bytes):  # bytes are shown decoded when they are ASCII
        assert repr(direction) in message


def test_list_amounts_are_int64(ops):
    """A list is read by numpy.asarray: int64, so it shifts int64 values only."""
    np.testing.assert_array_equal(ops.bitshift(np.array([1, 1], np.int64), [3, 64], "LEFT"), [8, 0])
    with pytest.raises(fastbits.TypeConstraintError, match="'Y' is tensor\\(int64\\)"):
        ops.bitshift(np.array([1, 1], np.uint8), [3, 4], "LEFT")

