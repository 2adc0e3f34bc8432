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
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from fastbits import spec
from fastbits.spec import BITCAST_T1, BITCAST_T2

INT_DTYPES = ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]


def _random_bytes(shape, itemsize, seed):
    count = int(np.prod(shape, dtype=np.int64)) * itemsize
    return np.random.default_rng(seed).integers(0, 256, size=count, dtype=np.uint8)


@st.composite
def laid_out(draw, shape, dtype, fill=None):
    """An array of ``shape`` and ``dtype`` with a random memory layout and random bits."""
    dtype = np.dtype(dtype)
    ndim = len(shape)
    steps = [draw(st.sampled_from([1, 1, 2, -1, -2, 3])) for _ in shape]
    zero_stride = [draw(st.booleans()) and draw(st.booleans()) for _ in shape]  # ~25%
    order = draw(st.permutations(range(ndim))) if ndim else []
    base_shape = [1 if z else max(size, 1) * abs(step) for size, step, z in zip(shape, steps, zero_stride)]
    permuted = [base_shape[i] for i in order]
    seed = draw(st.integers(0, 2**32 - 1))
    base = _random_bytes(permuted, dtype.itemsize, seed).view(dtype).reshape(permuted) if fill is None else fill(permuted, seed)
    base = base.transpose(np.argsort(order)) if ndim else base
    index = tuple(
        slice(None) if z else slice(None, None, step)
        for step, z in zip(steps, zero_stride)
    )
    view = base[index] if ndim else base[...]
    view = view[tuple(slice(0, size) for size in shape)] if ndim else view
    view = np.broadcast_to(view, shape) if any(zero_stride) else view
    if view.shape != tuple(shape):  # a size-0 axis with a zero stride: fall back to a plain array
        view = np.zeros(shape, dtype)
    if draw(st.booleans()) and dtype.itemsize > 1 and dtype.kind in "iufc":
        view = view.astype(dtype.newbyteorder(">"))
    if draw(st.booleans()) and view.flags.writeable:
        view = view.view()
        view.flags.writeable = False
    return view


@st.composite
def and_operands(draw):
    dtype = np.dtype(draw(st.sampled_from(INT_DTYPES)))
    shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=6, min_side=0, max_side=5))
    a = draw(laid_out(shapes.input_shapes[0], dtype))
    b = draw(laid_out(shapes.input_shapes[1], dtype))
    return a, b, shapes.result_shape


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


PAIRS = sorted((s, d) for s in BITCAST_T1 for d in BITCAST_T2 if spec.bit_width(s) == spec.bit_width(d))


@given(data=st.data())
def test_bitcast_equals_reference(ops, data):
    src, dst = data.draw(st.sampled_from(PAIRS))
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
    assert np.ascontiguousarray(result).view(np.uint8).tobytes() == raw.tobytes()
    if copy or not x.dtype.isnative:
        assert not np.shares_memory(result, x) and result.flags.c_contiguous
    else:
        assert result.size == 0 or np.shares_memory(result, x)


@pytest.mark.parametrize("dtype", INT_DTYPES)
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
