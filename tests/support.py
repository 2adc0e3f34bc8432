"""What the tests share: the dtype lists, the random arrays and layouts, the bit-equality checks.

One module, so that no test file keeps a copy of its own.  Test files import it
as ``from support import ...``: pytest puts ``tests/`` first on ``sys.path``
when it imports ``conftest.py`` from there (the default "prepend" import mode;
``tests/`` is not a package), also when tox runs ``pytest /path/to/tests``
from an empty directory against the installed package.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from fastbits import spec

# --------------------------------------------------------------------------
# dtypes

#: BitwiseAnd-18's T, as numpy scalar types (pytest ids: int8 ... uint64).
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]

#: BitCast-26's T1 and T2, as ONNX ``DataType`` codes in code order (25 each).
T1_TYPES = sorted(spec.BITCAST_T1)
T2_TYPES = sorted(spec.BITCAST_T2)

#: Every (source, target) pair of BitCast types, allowed or not (625).
ALL_PAIRS = list(itertools.product(T1_TYPES, T2_TYPES))

#: The pairs BitCast accepts: the same ONNX bit width (sorted).
SAME_WIDTH_PAIRS = [(src, dst) for src, dst in ALL_PAIRS if spec.bit_width(src) == spec.bit_width(dst)]


# --------------------------------------------------------------------------
# random arrays (numpy rng); ``seed`` is a seed or a ``np.random.Generator`` to draw from


def random_ints(shape, dtype, seed=0):
    """Integers of ``dtype`` over its whole range, both ends included."""
    info = np.iinfo(dtype)
    return np.random.default_rng(seed).integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def random_bits(shape, dtype, seed=0):
    """An array of ``shape`` and ``dtype`` whose bytes are random: any bit pattern, NaN payloads included."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.random.default_rng(seed).integers(0, 256, size=count, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def random_tensor(code, shape=(5, 7), seed=0, canonical=True):
    """``random_bits`` of ONNX type ``code``; ``canonical``: sub-byte types with only
    their low bits set, as ONNX stores them."""
    x = random_bits(shape, spec.numpy_dtype(code), seed)
    bits = spec.bit_width(code)
    if canonical and bits < 8:
        raw = x.view(np.uint8)
        raw &= (1 << bits) - 1
    return x


# --------------------------------------------------------------------------
# layouts: hypothesis strategies


@st.composite
def laid_out(draw, shape, dtype, fill=None):
    """An array of ``shape`` and ``dtype`` with a random memory layout and random bits:
    steps of 1, 2, 3 or negative, zero strides (~25% of axes), a permuted memory order,
    big-endian (half the time, for multi-byte numeric types), read-only (half the time).
    ``fill(shape, seed)`` makes the base array instead of random bits."""
    dtype = np.dtype(dtype)
    ndim = len(shape)
    steps = [draw(st.sampled_from([1, 1, 2, -1, -2, 3])) for _ in shape]
    zero_stride = [draw(st.booleans()) and draw(st.booleans()) for _ in shape]  # ~25%
    order = draw(st.permutations(range(ndim))) if ndim else []
    base_shape = [1 if z else max(size, 1) * abs(step) for size, step, z in zip(shape, steps, zero_stride)]
    permuted = [base_shape[i] for i in order]
    seed = draw(st.integers(0, 2**32 - 1))
    base = random_bits(permuted, dtype, seed) if fill is None else fill(permuted, seed)
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
    """``(a, b, result_shape)``: BitwiseAnd operands of one integer dtype, mutually
    broadcastable shapes of up to 6 dimensions (sides 0 to 5), each ``laid_out``."""
    dtype = np.dtype(draw(st.sampled_from(INT_DTYPES)))
    shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=6, min_side=0, max_side=5))
    a = draw(laid_out(shapes.input_shapes[0], dtype))
    b = draw(laid_out(shapes.input_shapes[1], dtype))
    return a, b, shapes.result_shape


@st.composite
def operand_pair(draw):
    """``(dtype, [a, b])``: two operands of one integer dtype with broadcastable shapes
    (up to 4 dimensions, one side sometimes 0, 40 or 130) in ``draw_layout`` layouts."""
    dtype = np.dtype(draw(st.sampled_from(INT_DTYPES)))
    nd = draw(st.integers(0, 4))
    shape = draw(st.lists(st.integers(1, 7), min_size=nd, max_size=nd))
    if draw(st.booleans()) and nd:
        shape[draw(st.integers(0, nd - 1))] = draw(st.sampled_from([0, 40, 130]))
    shape_a, shape_b = list(shape), list(shape)
    for i in range(nd):
        pick = draw(st.integers(0, 3))
        if pick == 1:
            shape_a[i] = 1
        elif pick == 2:
            shape_b[i] = 1
    shape_b = shape_b[draw(st.integers(0, nd)) :]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return dtype, [draw_layout(draw, rng, dtype, tuple(s)) for s in (shape_a, shape_b)]


# --------------------------------------------------------------------------
# layouts: numpy rng


def draw_layout(draw, rng, dtype, shape):
    """Integers of ``dtype`` from ``rng`` in a layout that ``draw`` picks: C, Fortran,
    reversed, step 2, a broadcast row, byte-swapped, transposed or read-only."""
    kind = draw(st.sampled_from(["c", "f", "neg", "step", "bcast", "swap", "transposed", "readonly"]))
    if kind == "step" and shape:
        base = random_ints(shape[:-1] + (2 * shape[-1],), dtype, rng)
        return base[..., ::2]
    if kind == "neg" and shape:
        base = random_ints(shape, dtype, rng)
        return base[tuple(slice(None, None, -1) for _ in shape)]
    if kind == "bcast" and shape:
        row = random_ints(shape[-1:], dtype, rng)
        return np.broadcast_to(row, shape)
    if kind == "transposed" and len(shape) >= 2:
        base = random_ints(shape[::-1], dtype, rng)
        return base.T
    x = random_ints(shape, dtype, rng)
    if kind == "f":
        return np.asfortranarray(x)
    if kind == "swap":
        return x.astype(x.dtype.newbyteorder("S"))
    if kind == "readonly":
        x.flags.writeable = False
    return x


def bitcast_source(code, layout, rng):
    """A 6 x 10 array of ONNX type ``code`` with random bits from ``rng``, laid out as
    ``layout``: "c", "transposed", "step" (reversed rows, every third column) or
    "swapped" (byte-swapped, for multi-byte numeric types; else as "c")."""
    dtype = spec.numpy_dtype(code)
    x = random_bits((6, 10), dtype, rng)
    if layout == "transposed":
        x = x.T
    elif layout == "step":
        x = x[::-1, ::3]
    elif layout == "swapped" and dtype.kind in "iufc" and dtype.itemsize > 1:
        x = x.astype(dtype.newbyteorder("S"))
    return x


# --------------------------------------------------------------------------
# bit equality


def bits(array):
    """The bytes of ``array`` in C order: two arrays with equal ``bits`` hold the same bits."""
    return np.ascontiguousarray(array).view(np.uint8).tobytes()


def assert_same_bits(got, expected, dtype=None, context=None):
    """``got`` has dtype ``dtype`` (default: ``expected.dtype``), ``expected``'s shape
    and, bit for bit, its contents; ``context`` goes into the failure messages."""
    dtype = expected.dtype if dtype is None else dtype
    assert got.dtype == dtype, context
    assert got.shape == expected.shape, context
    assert bits(got) == bits(expected), context
