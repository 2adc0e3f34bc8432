"""Property tests (hypothesis) on every path: results equal numpy's, bit for bit.

BitwiseAnd, Or, Xor and Not against numpy, BitShift (both directions) against
``support.bitshift_reference``: random dtypes, shapes up to 6 dimensions, broadcasts,
zero-size and 0-d shapes, negative / zero / odd strides, transposes, byte orders,
read-only inputs and ``out=`` (fresh, strided, aliasing or overlapping an input),
Python int operands; every BitCast pair.
The "default" profile is quick; ``HYPOTHESIS_PROFILE=long`` runs thousands of cases.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastbits
from fastbits import spec

from support import (
    BINARY_OPS, INT_DTYPES, SAME_WIDTH_PAIRS, binary_operands, bitcast_reorders, copy_layout, expected_layout,
    laid_out, layout_of, onnx_bytes, reference, run_op, unary_operand,
)


def _draw_out(data, shape, dtype):
    """A writeable ``out`` of ``shape`` with a random layout, native or big-endian."""
    kind = data.draw(st.sampled_from(["strided", "big-endian"]))
    dtype = dtype.newbyteorder(">" if kind == "big-endian" else "=")
    out = data.draw(laid_out(shape, dtype, fill=lambda s, seed: np.zeros(s, dtype)))
    if not out.flags.writeable or 0 in out.strides and out.size > 1:
        out = np.zeros(shape, dtype)
    return out


@pytest.mark.parametrize("op", BINARY_OPS)
@given(data=st.data())
def test_binary_op_equals_reference(ops, op, data):
    a, b, shape = data.draw(binary_operands(shift=op.startswith("bitshift")))
    expected = reference(op, a, b)
    result = run_op(ops, op, a, b)
    assert result.shape == shape == expected.shape
    assert result.dtype == expected.dtype.newbyteorder("=") and result.dtype.isnative
    assert layout_of(result) == expected_layout(a, b)
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("op", BINARY_OPS)
@given(data=st.data())
def test_binary_op_out_equals_reference(ops, op, data):
    a, b, shape = data.draw(binary_operands(shift=op.startswith("bitshift")))
    expected = reference(op, a, b)
    kind = data.draw(st.sampled_from(["strided", "big-endian", "alias", "overlap"]))
    if kind in ("strided", "big-endian"):
        out = _draw_out(data, shape, a.dtype)
    elif kind == "alias":
        candidates = [x for x in (a, b) if x.shape == shape and x.flags.writeable and 0 not in x.strides]
        if not candidates:
            return
        out = data.draw(st.sampled_from(candidates))
    else:
        # out and a share one buffer, shifted by a few elements
        if a.shape != shape or a.ndim == 0 or a.size == 0:
            return
        count = a.size
        shift = data.draw(st.integers(-3, 3))
        buffer = np.random.default_rng(0).integers(0, 100, size=count + 6).astype(a.dtype.newbyteorder("="))
        a = buffer[3 : 3 + count].reshape(shape)
        out = buffer[3 + shift : 3 + shift + count].reshape(shape)
        expected = reference(op, a.copy(), b)
    returned = run_op(ops, op, a, b, out=out)
    assert returned is out
    np.testing.assert_array_equal(out, expected)


@given(data=st.data())
def test_bitwise_not_equals_numpy(ops, data):
    x = data.draw(unary_operand())
    expected = np.invert(x)
    result = ops.bitwise_not(x)
    assert result.shape == x.shape and result.dtype == x.dtype.newbyteorder("=")
    assert layout_of(result) == expected_layout(x) and not np.shares_memory(result, x)
    np.testing.assert_array_equal(result, expected)


@given(data=st.data())
def test_bitwise_not_out_equals_numpy(ops, data):
    x = data.draw(unary_operand())
    expected = np.invert(x)
    kind = data.draw(st.sampled_from(["laid out", "in place", "overlap"]))
    if kind == "laid out":
        out = _draw_out(data, x.shape, x.dtype)
    elif kind == "in place" and x.flags.writeable and (0 not in x.strides or x.size <= 1):
        out = x
    elif x.ndim and x.size:
        # out and x share one buffer, shifted by a few elements
        shift = data.draw(st.integers(-3, 3))
        buffer = np.random.default_rng(1).integers(0, 100, size=x.size + 6).astype(x.dtype.newbyteorder("="))
        x = buffer[3 : 3 + x.size].reshape(x.shape)
        out = buffer[3 + shift : 3 + shift + x.size].reshape(x.shape)
        expected = np.invert(x)
    else:
        return
    assert ops.bitwise_not(x, out=out) is out
    np.testing.assert_array_equal(out, expected)


@given(data=st.data())
def test_bitcast_equals_reference(ops, data):
    src, dst = data.draw(st.sampled_from(SAME_WIDTH_PAIRS))
    dtype = spec.numpy_dtype(src)
    shape = data.draw(st.lists(st.integers(0, 4), min_size=0, max_size=6).map(tuple))
    x = data.draw(laid_out(shape, dtype))
    copy = data.draw(st.booleans())
    result = ops.bitcast(x, dst, copy=copy)
    # the reference: the value's bytes as ONNX reads them (little endian), read as the target
    raw = np.frombuffer(onnx_bytes(x), np.uint8)
    # a sub-byte copy (and a view the target would read otherwise) holds each element's bits
    normalized = spec.bit_width(dst) < 8 and (copy or spec.subbyte_byte_map(src, dst) is not None)
    if normalized:
        raw = spec.subbyte_bits(src)[raw]
    assert result.dtype == spec.numpy_dtype(dst) and result.shape == x.shape
    assert onnx_bytes(result) == raw.tobytes()
    if copy or bitcast_reorders(x, dst) or normalized:
        assert not np.shares_memory(result, x) and layout_of(result) == copy_layout(x, result.dtype)
    else:
        assert result.size == 0 or np.shares_memory(result, x)


@pytest.mark.parametrize("op", BINARY_OPS)
@given(data=st.data())
def test_binary_op_python_int(ops, op, data):
    dtype = data.draw(st.sampled_from(INT_DTYPES))
    info = np.iinfo(dtype)
    value = data.draw(st.integers(int(info.min) - 2, int(info.max) + 2) | st.integers(-2, 66))
    x = data.draw(laid_out(data.draw(st.lists(st.integers(0, 4), max_size=3).map(tuple)), dtype))
    if info.min <= value <= info.max:
        scalar = np.asarray(value, dtype)
        np.testing.assert_array_equal(run_op(ops, op, x, value), reference(op, x, scalar))
        np.testing.assert_array_equal(run_op(ops, op, value, x), reference(op, scalar, x))
    else:
        with pytest.raises(fastbits.ArgumentValueError, match="outside the range"):
            run_op(ops, op, x, value)
        with pytest.raises(fastbits.ArgumentValueError, match="outside the range"):
            run_op(ops, op, value, x)
