"""Property tests (hypothesis) on every path: results equal numpy's, bit for bit.

Random dtypes, shapes up to 6 dimensions, broadcasts, zero-size and 0-d shapes,
negative / zero / odd strides, transposes, byte orders, read-only inputs and
``out=`` (fresh, strided, aliasing or overlapping an input); every BitCast pair.
The "default" profile is quick; ``HYPOTHESIS_PROFILE=long`` runs thousands of cases.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fastbits import spec

from support import INT_DTYPES, SAME_WIDTH_PAIRS, and_operands, bits, laid_out


@given(data=st.data())
def test_bitwise_and_equals_numpy(ops, data):
    a, b, shape = data.draw(and_operands())
    expected = np.bitwise_and(a, b)
    result = ops.bitwise_and(a, b)
    assert result.shape == shape == expected.shape
    assert result.dtype == expected.dtype.newbyteorder("=") and result.dtype.isnative
    assert result.flags.c_contiguous
    np.testing.assert_array_equal(result, expected)


@given(data=st.data())
def test_bitwise_and_out_equals_numpy(ops, data):
    a, b, shape = data.draw(and_operands())
    expected = np.bitwise_and(a, b)
    kind = data.draw(st.sampled_from(["strided", "big-endian", "alias", "overlap"]))
    if kind in ("strided", "big-endian"):
        dtype = a.dtype.newbyteorder(">" if kind == "big-endian" else "=")
        out = data.draw(laid_out(shape, dtype, fill=lambda s, seed: np.zeros(s, dtype)))
        if not out.flags.writeable or 0 in out.strides and out.size > 1:
            out = np.zeros(shape, dtype)
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
        expected = np.bitwise_and(a.copy(), b)
    returned = ops.bitwise_and(a, b, out=out)
    assert returned is out
    np.testing.assert_array_equal(out, expected)


@given(data=st.data())
def test_bitcast_equals_reference(ops, data):
    src, dst = data.draw(st.sampled_from(SAME_WIDTH_PAIRS))
    dtype = spec.numpy_dtype(src)
    shape = data.draw(st.lists(st.integers(0, 4), min_size=0, max_size=6).map(tuple))
    x = data.draw(laid_out(shape, dtype))
    copy = data.draw(st.booleans())
    result = ops.bitcast(x, dst, copy=copy)
    # the reference: the value's little-endian bytes, read as the target type
    native = np.ascontiguousarray(x.astype(x.dtype.newbyteorder("<")) if x.dtype.kind in "iufc" else x)
    raw = native.view(np.uint8).reshape(shape + (dtype.itemsize,))
    if copy and spec.bit_width(dst) < 8:
        raw = raw & ((1 << spec.bit_width(dst)) - 1)
    assert result.dtype == spec.numpy_dtype(dst) and result.shape == x.shape
    assert bits(result) == raw.tobytes()
    if copy or not x.dtype.isnative:
        assert not np.shares_memory(result, x) and result.flags.c_contiguous
    else:
        assert result.size == 0 or np.shares_memory(result, x)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda t: np.dtype(t).str[1:])  # i1 ... u8
@given(data=st.data())
def test_bitwise_and_python_int(ops, dtype, data):
    info = np.iinfo(dtype)
    value = data.draw(st.integers(int(info.min) - 2, int(info.max) + 2))
    x = data.draw(laid_out(data.draw(st.lists(st.integers(0, 4), max_size=3).map(tuple)), dtype))
    if info.min <= value <= info.max:
        expected = np.bitwise_and(x, np.asarray(value, dtype))
        np.testing.assert_array_equal(ops.bitwise_and(x, value), expected)
        np.testing.assert_array_equal(ops.bitwise_and(value, x), expected)
    else:
        with pytest.raises(ValueError, match="outside the range"):
            ops.bitwise_and(x, value)
