"""What the tests share: the dtype lists, the random arrays and layouts, the bit-equality checks.

One module, so that no test file keeps a copy of its own.  Test files import it
as ``from support import ...``: pytest puts ``tests/`` first on ``sys.path``
when it imports ``conftest.py`` from there (the default "prepend" import mode;
``tests/`` is not a package), also when tox runs ``pytest /path/to/tests``
from an empty directory against the installed package.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
import tempfile
import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import fastbits
from fastbits import _ops, spec

# --------------------------------------------------------------------------
# the two paths


def _load_paths():
    paths = {"python": _ops.load("python")}
    if not _ops.PURE_PYTHON:
        try:
            paths["cython"] = _ops.load("cython")
        except ImportError:  # test_compiled_module_loaded fails in a compiled env
            pass
    return paths


#: The implementations by name, as ``fastbits._ops.load`` gives them (``fastbits._ops.Path``):
#: the pure one always, the compiled one where it was built and FASTBITS_PURE_PYTHON is unset.
#: The ``ops`` and ``packing`` fixtures run a test on each.
PATHS = _load_paths()
PURE = PATHS["python"]
COMPILED = PATHS.get("cython")

#: A compiled tox env (FASTBITS_REQUIRE_EXTENSIONS=1): a path that did not load is a failure.
REQUIRE_COMPILED = os.environ.get("FASTBITS_REQUIRE_EXTENSIONS", "").strip() not in ("", "0")

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

#: The sub-byte types (int4, uint4, float4e2m1: 4 bits; int2, uint2: 2 bits; float6e2m3,
#: float6e3m2: 6 bits), and the BitCast pairs between them (13, of the 4- and 2-bit types).
SUBBYTE_TYPES = sorted(spec.SUBBYTE_TYPES)
SUBBYTE_PAIRS = [(src, dst) for src, dst in SAME_WIDTH_PAIRS if src in spec.SUBBYTE_TYPES]


#: The 6-bit floats: sub-byte types of ONNX's packed layout, four to three bytes (not BitCast's).
SIX_BIT_TYPES = [spec.DataType.FLOAT6E2M3, spec.DataType.FLOAT6E3M2]


def onnx_6bit():
    """``onnx.numpy_helper`` where it packs the 6-bit floats (onnx 1.23 on: ``_pack_6bit`` and
    ``_unpack_6bit``, and TensorProto's FLOAT6E2M3 and FLOAT6E3M2), else None."""
    try:
        from onnx import numpy_helper
    except ImportError:
        return None
    return numpy_helper if hasattr(numpy_helper, "_pack_6bit") else None


@contextlib.contextmanager
def onnx_node_tests_generated():
    """A block in which onnx generates its node tests, without onnx's own warnings: its
    generators cast NaN and overflowing values and divide by zero on purpose, and some set an
    array's shape, which numpy 2.5 deprecates. Warnings from anywhere else still show."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module=r"onnx\.backend\.test\.case\.node")
        yield


def pack6_reference(codes):
    """The 6-bit layout from its definition, on Python ints: each group of four codes v0..v3
    (each below 64) is the three bytes ``v0 | v1 << 6``, ``v1 >> 2 | v2 << 4``, ``v2 >> 4 | v3 << 2``
    (each cut to 8 bits), the last group's missing codes zero, ``ceil(n * 6 / 8)`` bytes in all."""
    codes = [int(c) for c in codes]
    out = []
    for g in range(0, len(codes), 4):
        v0, v1, v2, v3 = (codes[g:g + 4] + [0, 0, 0])[:4]
        out += [(v0 | v1 << 6) & 0xFF, (v1 >> 2 | v2 << 4) & 0xFF, (v2 >> 4 | v3 << 2) & 0xFF]
    return bytes(out[: (len(codes) * 6 + 7) // 8])


#: 256 six-bit codes, 64 groups of four, in which each of the 4 positions of a group holds every
#: one of the 64 codes once: position p of group g holds (g * (2p + 1) + 17p) % 64.
EVERY_CODE = [(g * (2 * p + 1) + 17 * p) % 64 for g in range(64) for p in range(4)]
#: Their 192 packed bytes, as onnx 1.23.2's ``numpy_helper._pack_6bit`` writes them (carried for
#: the envs without onnx; tests/test_packing.py checks them against onnx where it is installed).
EVERY_CODE_PACKED = bytes.fromhex(
    "4024ce0175eac2c50683162344673f05b85bc6087487599048aaac09fbc8ca4be58b9c014ced1d0d3e3ace8e568fdf72"
    "50208f1171abd2c1c79312e05463fc15b418d6043597555158a66d19f789da47a69b98c25ce9de1d3afbde8a179fdb33"
    "602c4c217d68e2cd84a31ea1646fbd25b0d9e600f6a7511268a22e29f34aea4367ab94836ce59f2d36b8ee86d4afd7f0"
    "70280d317929f2c945b31a62746b7e35bc9af60cb7b75dd378aeef39ff0bfa4f24bb90407ce15c3d3279fe8295bfd3b1"
)
#: Codes whose first n, for every n from 0 to 11 (every length mod 4, three times), pack as
#: TAIL_PACKED[n] (onnx 1.23.2's ``_pack_6bit``): the bits after the last code zero.
TAIL_CODES = [63, 0, 63, 0, 42, 21, 63, 63, 1, 62, 33]
TAIL_PACKED = [bytes.fromhex(h) for h in (
    "", "3f", "3f00", "3ff003", "3ff003", "3ff0032a", "3ff0036a05", "3ff0036af503", "3ff0036af5ff",
    "3ff0036af5ff01", "3ff0036af5ff810f", "3ff0036af5ff811f02",
)]


def values_of(array):
    """What each element of ``array`` reads as, by its float32 bits (so -0.0 is not +0.0)."""
    return np.asarray(array).astype(np.float32).view(np.uint32)


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
        raw &= np.uint8((1 << bits) - 1)  # a uint8 mask: numpy 1.24 widens a 0-d array & a Python int
    return x


def shift_amounts(shape, dtype, seed=0):
    """BitShift amounts of ``dtype``: about two thirds in range (0 to W-1, W the bit width),
    the rest at the edges: W-1, W, W+1, 2W, the type's max and, for signed types, -1, -W
    and the type's min."""
    dtype = np.dtype(dtype).newbyteorder("=")
    width = dtype.itemsize * 8
    info = np.iinfo(dtype)
    edges = [width - 1, width, width + 1, 2 * width, int(info.max)]
    if info.min:
        edges += [-1, -width, int(info.min)]
    rng = np.random.default_rng(seed)
    in_range = rng.integers(0, width, shape)
    edge = np.asarray(edges, dtype)[rng.integers(0, len(edges), shape)]
    return np.where(rng.random(shape) < 2 / 3, in_range.astype(dtype), edge).astype(dtype)


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
def binary_operands(draw, shift=False):
    """``(a, b, result_shape)``: operands of a binary integer operator (BitwiseAnd, Or, Xor,
    BitShift), of one integer dtype, mutually broadcastable shapes of up to 6 dimensions
    (sides 0 to 5), each ``laid_out``; ``shift``: ``b`` holds ``shift_amounts``."""
    dtype = np.dtype(draw(st.sampled_from(INT_DTYPES)))
    shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=6, min_side=0, max_side=5))
    a = draw(laid_out(shapes.input_shapes[0], dtype))
    fill = (lambda shape, seed: shift_amounts(shape, dtype, seed)) if shift else None
    b = draw(laid_out(shapes.input_shapes[1], dtype, fill=fill))
    return a, b, shapes.result_shape


@st.composite
def unary_operand(draw):
    """An operand of BitwiseNot: an integer dtype, up to 6 dimensions (sides 0 to 5), ``laid_out``."""
    dtype = np.dtype(draw(st.sampled_from(INT_DTYPES)))
    shape = draw(st.lists(st.integers(0, 5), max_size=6).map(tuple))
    return draw(laid_out(shape, dtype))


@st.composite
def operand_pair(draw, shift=False):
    """``(dtype, [a, b])``: two operands of one integer dtype with broadcastable shapes
    (up to 4 dimensions, one side sometimes 0, 40 or 130) in ``draw_layout`` layouts;
    ``shift``: ``b`` holds ``shift_amounts``."""
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
    values_b = shift_amounts if shift else random_ints
    return dtype, [draw_layout(draw, rng, dtype, tuple(shape_a)), draw_layout(draw, rng, dtype, tuple(shape_b), values_b)]


# --------------------------------------------------------------------------
# layouts: fixed cases

#: Views of a 2-D array (24 x 24 in the tests) that are not C-contiguous, by name.
NON_CONTIGUOUS_VIEWS = {
    "step": lambda x: x[::2],
    "reversed": lambda x: x[::-1],
    "neg-step-cols": lambda x: x[:, ::-3],
    "transposed": lambda x: x.T,
    "interior": lambda x: x[1:-1, 2:-2],
    "stride-0": lambda x: np.broadcast_to(x[:1], x.shape),
    "odd-strides": lambda x: np.lib.stride_tricks.as_strided(
        x, shape=(x.shape[0] // 2, 3), strides=(x.strides[0] * 2, 2 * x.itemsize)
    ),
}

#: Pairs of shapes that broadcast: 0-d, zero-size, size-1 axes on either side, 7 dimensions.
BROADCAST_SHAPES = [
    ((3, 4, 5), (5,)),
    ((3, 4, 5, 6), (4, 5, 6)),
    ((1000, 5), (5,)),
    ((64, 2), (64, 1)),
    ((4, 1, 3), (1, 5, 1)),
    ((5,), ()),
    ((), ()),
    ((), (2, 3)),
    ((0,), (1,)),
    ((2, 0, 3), (3,)),
    ((1,), (0,)),
    ((1, 1, 1, 1, 1, 1, 7), (7, 1)),
    ((2, 3, 1, 4, 1, 2, 3), (1, 4, 5, 2, 1)),
]

#: Operands of a binary integer operator outside its T: ``(a, b, input, shown)``, ``input``
#: the one refused by its BitwiseAnd name ("A" or "B"), ``shown`` a pattern of the message.
OUTSIDE_T = [
    (np.zeros(3, bool), np.zeros(3, bool), "A", "tensor\\(bool\\)"),
    (np.zeros(3, np.float32), np.zeros(3, np.float32), "A", "tensor\\(float\\)"),
    (np.zeros(3, np.int32), np.zeros(3, np.float64), "B", "tensor\\(double\\)"),
    (np.array(["a"]), np.array(["b"]), "A", "tensor\\(string\\)"),
    (np.array([1], object), np.array([1], object), "A", "tensor\\(string\\)"),
    (np.zeros(3, np.complex64), np.zeros(3, np.complex64), "A", "tensor\\(complex64\\)"),
    (np.zeros(3, "float16"), 1, "A", "tensor\\(float16\\)"),
    (np.zeros(3, np.int8), True, "B", "tensor\\(bool\\)"),
    (np.zeros(3, np.int8), 1.0, "B", "tensor\\(double\\)"),
    (np.zeros(3, "M8[s]"), np.zeros(3, "M8[s]"), "A", "no ONNX type"),
]


# --------------------------------------------------------------------------
# layouts: numpy rng


def draw_layout(draw, rng, dtype, shape, values=random_ints):
    """Integers of ``dtype`` from ``rng`` (``values(shape, dtype, rng)``: ``random_ints``,
    or ``shift_amounts``) in a layout that ``draw`` picks: C, Fortran, reversed, step 2, a
    broadcast row, byte-swapped, transposed or read-only."""
    kind = draw(st.sampled_from(["c", "f", "neg", "step", "bcast", "swap", "transposed", "readonly"]))
    if kind == "step" and shape:
        base = values(shape[:-1] + (2 * shape[-1],), dtype, rng)
        return base[..., ::2]
    if kind == "neg" and shape:
        base = values(shape, dtype, rng)
        return base[tuple(slice(None, None, -1) for _ in shape)]
    if kind == "bcast" and shape:
        row = values(shape[-1:], dtype, rng)
        return np.broadcast_to(row, shape)
    if kind == "transposed" and len(shape) >= 2:
        base = values(shape[::-1], dtype, rng)
        return base.T
    x = values(shape, dtype, rng)
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


def order_unit(dtype):
    """The bytes of ``dtype`` that are one number in byte order: the itemsize, a complex part's."""
    dtype = np.dtype(dtype)
    return dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize


def bitcast_reorders(x, dst):
    """BitCast of ``x`` to ``dst`` must reorder bytes, so it copies even with copy=False: ``x``
    is not in native order, or the host is big endian and a number of ``x``'s type and one of
    ``dst``'s differ in size (complex64 <-> a 64-bit type)."""
    return not x.dtype.isnative or (
        sys.byteorder == "big" and order_unit(x.dtype) != order_unit(spec.numpy_dtype(dst)))


# --------------------------------------------------------------------------
# bit equality


def bits(array):
    """The bytes of ``array`` in C order: two arrays with equal ``bits`` hold the same bits."""
    return np.ascontiguousarray(array).view(np.uint8).tobytes()


def onnx_bytes(array):
    """The bytes of ``array`` as ONNX reads a tensor, in C order: each number (a complex part
    is one) little endian, whatever the byte order of the array and of the host."""
    x = np.ascontiguousarray(array)
    unit = order_unit(x.dtype)
    big = x.dtype.byteorder == ">" or x.dtype.byteorder == "=" and sys.byteorder == "big"
    return x.view(np.dtype(f"u{unit}").newbyteorder(">" if big else "<")).astype(f"<u{unit}").tobytes()


def assert_same_bits(got, expected, dtype=None, context=None):
    """``got`` has dtype ``dtype`` (default: ``expected.dtype``), ``expected``'s shape
    and, bit for bit, its contents; ``context`` goes into the failure messages."""
    dtype = expected.dtype if dtype is None else dtype
    assert got.dtype == dtype, context
    assert got.shape == expected.shape, context
    assert bits(got) == bits(expected), context


# --------------------------------------------------------------------------
# references written from the ONNX operator texts

#: numpy's equivalents of the elementwise operators besides BitShift (whose reference is
#: ``bitshift_reference``), by fastbits' function names.
NUMPY_EQUIVALENT = {
    "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
    "bitwise_not": np.invert,
}


#: The binary elementwise operators as the tests name them: fastbits' functions, BitShift
#: once per direction ("bitshift_left", "bitshift_right"); BitwiseNot is the unary one.
BINARY_OPS = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitshift_left", "bitshift_right"]


def layout_of(array):
    """The strides of ``array`` on its axes longer than 1: what decides its layout (an axis of
    length 1 may have any stride)."""
    return tuple(stride for size, stride in zip(array.shape, array.strides) if size != 1)


def expected_layout(*operands, order="K"):
    """:func:`layout_of` the result numpy's own ufunc gives ``operands`` (arrays, or a Python
    int beside one: numpy reads it in the array's type) for ``order``."""
    if len(operands) == 1:
        return layout_of(np.invert(operands[0], order=order))
    return layout_of(np.bitwise_xor(*operands, order=order))


def copy_layout(x, dtype):
    """:func:`layout_of` ``numpy.copy(x)`` (order 'K') in ``dtype``: what every BitCast copy has."""
    return layout_of(np.empty_like(x, dtype=dtype))


def run_op(module, name, *operands, **kwargs):
    """Call operator ``name`` (of ``BINARY_OPS``, or "bitwise_not") of ``module``: an
    implementation module or ``fastbits``."""
    if name.startswith("bitshift_"):
        return module.bitshift(*operands, name[len("bitshift_") :].upper(), **kwargs)
    return getattr(module, name)(*operands, **kwargs)


def reference(name, *operands):
    """What operator ``name`` gives for ``operands``: numpy's equivalent, or ``bitshift_reference``."""
    if name.startswith("bitshift_"):
        return bitshift_reference(*operands, name[len("bitshift_") :].upper())
    return NUMPY_EQUIVALENT[name](*operands)


def bitshift_reference(x, y, direction):
    """BitShift-28 from its text, one element at a time on Python ints.

    ``direction`` is "LEFT" or "RIGHT".  With W the bit width of the type: an amount from 0
    to W-1 shifts; LEFT drops the bits moved past the top (the sign bit included) and RIGHT
    is arithmetic on signed types (Python's ``>>`` on ints), logical on unsigned ones.  Any
    other amount (negative, or W and more) gives 0, or -1 for RIGHT of a negative ``x``.
    Returns a native-order array of the broadcast shape and the type of ``x``.
    """
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    dtype = x.dtype.newbyteorder("=")
    width = dtype.itemsize * 8
    signed = dtype.kind == "i"
    results = []
    for value, amount in zip(x.ravel().tolist(), y.ravel().tolist()):
        if 0 <= amount < width:
            result = (value << amount if direction == "LEFT" else value >> amount) & ((1 << width) - 1)
            if signed and result >> (width - 1):
                result -= 1 << width
        else:
            result = -1 if direction == "RIGHT" and value < 0 else 0
        results.append(result)
    return np.array(results, dtype).reshape(x.shape)


def threads_available(runtime):
    """Whether ``runtime`` (a path's runtime module) has the thread team: the compiled one's
    does, but in builds without threads."""
    return runtime.runtime_info()["threads_available"]


def module_from_file(path, name):
    """The Python file ``path`` of the checkout (a script, the docs' extension) imported as
    module ``name``; the test skips where that file is not beside the tests."""
    import importlib.util
    import pathlib

    import pytest

    if not pathlib.Path(path).exists():
        pytest.skip(f"{path} not beside the tests")
    module_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def run_python(code, **env):
    """Run ``code`` in a fresh interpreter from a temp dir (not the repo root, whose source
    tree would shadow the installed package), with the OpenMP and thread variables only as given."""
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("FASTBITS_NUM_THREADS", "OMP_NUM_THREADS", "OMP_WAIT_POLICY", "OMP_DYNAMIC")}
    environment.update(env)
    done = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True,
        cwd=tempfile.gettempdir(),
    )
    assert done.returncode == 0, done.stderr
    return done


def run_into_closed_pipe(*args, timeout=120):
    """``python -m fastbits ARGS`` with its stdout a pipe whose reader is already gone, as in
    ``python -m fastbits | head -3`` once head has exited (closed before the first write, so
    that the first write fails whatever the pipe's buffer holds): ``(returncode, stderr)``."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "fastbits", *args], stdout=write_end, stderr=subprocess.PIPE,
            text=True, cwd=tempfile.gettempdir(), timeout=timeout,
        )
    finally:
        os.close(write_end)
    return done.returncode, done.stderr


def requirements_installed():
    """The requirements of fastbits' ``test-all`` extra (the ``test`` extra and the heavy
    optional ones) that apply to this Python, by name, each with whether it is installed."""
    from importlib import metadata

    from packaging.requirements import Requirement

    found = {}
    for line in metadata.requires("fastbits") or []:
        requirement = Requirement(line)
        if requirement.name == "fastbits" or requirement.marker is None or not any(
                requirement.marker.evaluate({"extra": extra}) for extra in ("test", "test-all")):
            continue
        try:
            metadata.version(requirement.name)
            found[requirement.name] = True
        except metadata.PackageNotFoundError:
            found[requirement.name] = False
    return found


def missing_test_requirements():
    """The requirements of fastbits' ``test-all`` extra that apply to this Python but are not
    installed, by name (empty where it is installed, as in the tox envs and ./dev setup's
    .venv): a test of an optional module skips only where this is not empty."""
    return [name for name, installed in requirements_installed().items() if not installed]


def import_required(module):
    """``module``, imported: where the ``test-all`` extra is installed and requires it on this Python,
    it must import (the test fails otherwise); elsewhere (the lowest env, a Python without its
    wheels) the test skips without it."""
    import importlib

    import pytest

    if not missing_test_requirements() and module in requirements_installed():
        return importlib.import_module(module)
    return pytest.importorskip(module)


# --------------------------------------------------------------------------
# every operator at once

def operator_layouts(size, rng):
    """(name, a, b) of uint32 operands of about ``size`` elements in each layout."""
    rows = max(1, int(size ** 0.5))
    cols = max(1, size // rows)
    a = rng.integers(0, 2**32, size, dtype=np.uint32)
    b = rng.integers(0, 32, size, dtype=np.uint32)  # also BitShift's amounts: numpy is the oracle
    square_a = rng.integers(0, 2**32, (rows, cols), dtype=np.uint32)
    square_b = rng.integers(0, 32, (rows, cols), dtype=np.uint32)
    wide_a = rng.integers(0, 2**32, 2 * size, dtype=np.uint32)
    yield "contiguous", a, b
    yield "transposed", square_a.T, square_b.T
    yield "strided", wide_a[::2], b[::-1]
    yield "broadcast", square_a, square_b[0]
    yield "scalar", a, np.uint32(7)


def check_every_operator(ops, size, rng):
    """Every operator of ``ops`` (and, or, xor, not, both shifts, ``out=``, BitCast copy and view,
    Cast through the conversions and through a table, QuantizeLinear and DequantizeLinear,
    pack and unpack) on uint32 operands of about ``size`` elements in each layout of
    :func:`operator_layouts`, equal to numpy."""
    for layout, a, b in operator_layouts(size, rng):
        where = f"{layout} n={size}"
        for name, expected in (("bitwise_and", a & b), ("bitwise_or", a | b), ("bitwise_xor", a ^ b)):
            assert np.array_equal(getattr(ops, name)(a, b), expected), (name, where)
        assert np.array_equal(ops.bitwise_not(a), ~a), where
        assert np.array_equal(ops.bitshift(a, b, "LEFT"), a << b), where
        assert np.array_equal(ops.bitshift(a, b, "RIGHT"), a >> b), where
        out = np.empty(np.broadcast_shapes(a.shape, np.shape(b)), np.uint32)
        assert ops.bitwise_xor(a, b, out=out) is out and np.array_equal(out, a ^ b), where
        floats = ops.bitcast(a, np.float32, copy=True)
        assert np.array_equal(floats.view(np.uint32), a), where
        assert np.array_equal(ops.bitcast(np.ascontiguousarray(a), "INT32").view(np.uint32), a), where
        half = a >> 17  # in float16's range, where numpy rounds once to nearest even, as Cast does
        assert np.array_equal(ops.cast(half, "FLOAT16"), half.astype(np.float16)), where
        low = a.astype(np.uint8)
        assert np.array_equal(ops.cast(low, "FLOAT"), low.astype(np.float32)), where
        # per tensor, and per axis where the operand has two axes: numpy rounds half to even too,
        # and a float32 product of a byte and a power of two is exact
        lows = np.asarray(low, np.float32)
        scale = np.float32(0.5) if lows.ndim < 2 else np.full(lows.shape[1], 0.5, np.float32)
        assert np.array_equal(ops.quantize_linear(lows, scale, np.full(scale.shape, 3, np.uint8), axis=-1),
                              np.clip(np.rint(lows / 0.5) + 3, 0, 255).astype(np.uint8)), where
        assert np.array_equal(ops.dequantize_linear(low, scale, None, axis=-1), lows * np.float32(0.5)), where
        nibbles = (a % 16).astype(np.uint8).astype(ml_dtypes.uint4)
        packed = ops.pack(nibbles)
        assert np.array_equal(ops.unpack(packed, "UINT4", nibbles.shape).view(np.uint8),
                              nibbles.view(np.uint8)), where


# --------------------------------------------------------------------------
# Cast, stated exactly: every value a Fraction (or NaN / an infinity), every rule as the spec's
# texts word it (Cast-28's doc; onnx's float8.md, float4.md, float6.md, int4.md, int2.md)


NAN = "nan"

#: (exponent bits, mantissa bits, bias, largest finite value, kind): "ieee" (infinities and
#: NaNs in the top exponent), "fn" (S.1111.111 is NaN), "uz" (the code of -0 is the one NaN),
#: "sat" (neither: float4, float6).  The numbers are those of the texts' tables.
FLOAT_SPECS = {
    spec.DataType.FLOAT16: (5, 10, 15, Fraction(65504), "ieee"),
    spec.DataType.BFLOAT16: (8, 7, 127, (2 - Fraction(1, 128)) * 2**127, "ieee"),
    spec.DataType.FLOAT: (8, 23, 127, (2 - Fraction(1, 2**23)) * 2**127, "ieee"),
    spec.DataType.DOUBLE: (11, 52, 1023, (2 - Fraction(1, 2**52)) * 2**1023, "ieee"),
    spec.DataType.FLOAT8E4M3FN: (4, 3, 7, Fraction(448), "fn"),
    spec.DataType.FLOAT8E4M3FNUZ: (4, 3, 8, Fraction(240), "uz"),
    spec.DataType.FLOAT8E5M2: (5, 2, 15, Fraction(57344), "ieee"),
    spec.DataType.FLOAT8E5M2FNUZ: (5, 2, 16, Fraction(57344), "uz"),
    spec.DataType.FLOAT4E2M1: (2, 1, 1, Fraction(6), "sat"),
    spec.DataType.FLOAT6E2M3: (2, 3, 1, Fraction(15, 2), "sat"),
    spec.DataType.FLOAT6E3M2: (3, 2, 3, Fraction(28), "sat"),
}
FLOAT8 = [spec.DataType.FLOAT8E4M3FN, spec.DataType.FLOAT8E4M3FNUZ, spec.DataType.FLOAT8E5M2,
          spec.DataType.FLOAT8E5M2FNUZ]
INT_RANGES = {
    spec.DataType.INT2: (-2, 1), spec.DataType.UINT2: (0, 3), spec.DataType.INT4: (-8, 7),
    spec.DataType.UINT4: (0, 15), spec.DataType.INT8: (-(2**7), 2**7 - 1), spec.DataType.UINT8: (0, 2**8 - 1),
    spec.DataType.INT16: (-(2**15), 2**15 - 1), spec.DataType.UINT16: (0, 2**16 - 1),
    spec.DataType.INT32: (-(2**31), 2**31 - 1), spec.DataType.UINT32: (0, 2**32 - 1),
    spec.DataType.INT64: (-(2**63), 2**63 - 1), spec.DataType.UINT64: (0, 2**64 - 1),
}


def exact_of_bits(bits: int, code) -> tuple:
    """The exact value of the code ``bits`` of float type ``code``: (sign, Fraction) or (sign,
    NAN) or (sign, "inf")."""
    if code == spec.DataType.FLOAT8E8M0:
        return (0, NAN) if bits == 255 else (0, Fraction(2) ** (bits - 127))
    ebits, mbits, bias, _, kind = FLOAT_SPECS[code]
    sign = bits >> (ebits + mbits) & 1
    field, mantissa = bits >> mbits & ((1 << ebits) - 1), bits & ((1 << mbits) - 1)
    if kind == "uz" and sign and field == 0 and mantissa == 0:
        return (1, NAN)  # the code of -0: its sign bit set
    if kind == "ieee" and field == (1 << ebits) - 1:
        return (sign, "inf") if mantissa == 0 else (sign, NAN)
    if kind == "fn" and field == (1 << ebits) - 1 and mantissa == (1 << mbits) - 1:
        return (sign, NAN)
    if field == 0:
        value = Fraction(mantissa, 1 << mbits) * Fraction(2) ** (1 - bias)
    else:
        value = (1 + Fraction(mantissa, 1 << mbits)) * Fraction(2) ** (field - bias)
    return (sign, value)


def exact_values(array: np.ndarray) -> list:
    """Every element of ``array`` exactly: (sign, Fraction | NAN | "inf") for floats, ints for
    integers, bools for bool."""
    code = fastbits.spec.datatype_of(array.dtype)
    flat = np.ascontiguousarray(array).reshape(-1)
    if not flat.dtype.isnative:
        flat = flat.astype(flat.dtype.newbyteorder("="))  # the bits below are read in native order
    if code == spec.DataType.BOOL:
        return [bool(v) for v in flat]
    if code in INT_RANGES:
        return [int(v) for v in flat.astype(np.int64 if code != spec.DataType.UINT64 else np.uint64)]
    width = spec.bit_width(code)
    raw = flat.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[flat.dtype.itemsize])
    return [exact_of_bits(int(b) & ((1 << width) - 1), code) for b in raw]


def _floor_log2(q: Fraction) -> int:
    e = q.numerator.bit_length() - q.denominator.bit_length()
    return e if Fraction(2) ** e <= q else e - 1


def round_half_even(q: Fraction) -> int:
    floor = q.numerator // q.denominator
    rest = q - floor
    return floor + (rest > Fraction(1, 2) or (rest == Fraction(1, 2) and floor % 2 == 1))


def cast_exact(value, dst, saturate: bool = True, round_mode: str = "up"):
    """What Cast gives for one value (as :func:`exact_values` states it) into type ``dst``, as
    the texts state it, and as fastbits' docs decide where they say nothing."""
    if isinstance(value, bool):
        value = (0, Fraction(int(value)))
    if isinstance(value, int):
        if dst in INT_RANGES:  # discard the higher bits, reinterpret
            low, high = INT_RANGES[dst]
            bits = value % (high - low + 1)
            return bits - (high - low + 1) if bits > high else bits
        if dst == spec.DataType.BOOL:
            return value != 0
        value = (int(value < 0), Fraction(abs(value)))
    sign, q = value
    if dst == spec.DataType.BOOL:
        return q == NAN or q == "inf" or q != 0
    if dst in INT_RANGES:
        low, high = INT_RANGES[dst]
        small = high < 16  # the 4- and 2-bit types: to nearest even, then the low bits (int4.md)
        if q == NAN:
            return 0
        if q == "inf":
            return 0 if small else low if sign else high
        signed = -q if sign else q
        if small:
            return cast_exact(round_half_even(signed), dst)
        return min(max(int(signed), low), high)  # toward zero, saturated
    if dst == spec.DataType.FLOAT8E8M0:
        return _e8m0_exact(q, saturate, round_mode)
    ebits, mbits, bias, largest, kind = FLOAT_SPECS[dst]
    saturating = kind == "sat" or (dst in FLOAT8 and saturate)
    if q == NAN:
        return (0, largest) if kind == "sat" else (sign if kind != "uz" else 1, NAN)
    if q == "inf":
        rounded = None
    elif q == 0:
        rounded = Fraction(0)
    else:
        exponent = max(_floor_log2(q), 1 - bias)
        quantum = Fraction(2) ** (exponent - mbits)
        rounded = round_half_even(q / quantum) * quantum
    if rounded is None or rounded > largest:
        if saturating:
            return (sign, largest)
        if kind == "ieee":
            return (sign, "inf")
        return (1 if kind == "uz" else sign, NAN)
    if rounded == 0 and (kind == "uz" or dst in (spec.DataType.FLOAT6E2M3, spec.DataType.FLOAT6E3M2)):
        sign = 0  # no -0 in the FNUZ types; float6.md casts -0 to 0
    return (sign, rounded)


def _e8m0_exact(q, saturate: bool, round_mode: str):
    """FLOAT8E8M0 (2**-127 .. 2**127, NaN), by magnitude. Cast's table tests x itself: beyond
    2**127 (infinity too) or below 2**-127 (zero too), the nearer end with ``saturate``, else
    NaN, in every ``round_mode``; inside, the power of two ``round_mode`` picks (which stays
    inside)."""
    if q == NAN:
        return (0, NAN)
    if q == "inf" or q > Fraction(2) ** 127 or q < Fraction(2) ** -127:
        if not saturate:
            return (0, NAN)
        return (0, Fraction(2) ** (127 if q == "inf" or q > 1 else -127))
    k = _floor_log2(q)
    step = q / Fraction(2) ** k  # in [1, 2)
    if (round_mode == "up" and step > 1) or (round_mode == "nearest" and step >= Fraction(3, 2)):
        k += 1
    return (0, Fraction(2) ** k)


def same_cast_result(got, expected) -> bool:
    """One element of a cast's result against :func:`cast_exact`'s value: NaN against NaN (its
    sign too), a zero's sign too."""
    if isinstance(expected, tuple):
        return got == expected or (got[1] == NAN and expected[1] == NAN and got[0] == expected[0])
    return got == expected


# --------------------------------------------------------------------------
# QuantizeLinear-28 and DequantizeLinear-28, stated exactly on the values of exact_values (a
# Python int, or (sign, Fraction | NAN | "inf")); each rounding named, every other step exact


def signed_exact(value) -> tuple:
    """An exact value as (sign, magnitude): an int becomes (sign, Fraction), +0 for 0."""
    if isinstance(value, (bool, int)):
        return (int(value < 0), Fraction(abs(int(value))))
    return value


def _negated(value: tuple) -> tuple:
    return (1 - value[0], value[1])


def ieee_sum(a, b) -> tuple:
    """``a + b`` without rounding, with IEEE's specials: NaN in, NaN out; inf + -inf is NaN;
    a zero sum of two zeros is -0 only when both are -0, any other zero sum is +0."""
    (sa, ma), (sb, mb) = signed_exact(a), signed_exact(b)
    if ma == NAN or mb == NAN:
        return (0, NAN)
    if ma == "inf" or mb == "inf":
        if ma == "inf" and mb == "inf" and sa != sb:
            return (0, NAN)
        return (sa, ma) if ma == "inf" else (sb, mb)
    total = (-ma if sa else ma) + (-mb if sb else mb)
    if total == 0:
        return (sa & sb if ma == 0 and mb == 0 else 0, Fraction(0))
    return (int(total < 0), abs(total))


def ieee_product(a, b) -> tuple:
    """``a * b`` without rounding: the sign is the XOR of the signs; NaN in, or inf * 0, NaN."""
    (sa, ma), (sb, mb) = signed_exact(a), signed_exact(b)
    sign = sa ^ sb
    if ma == NAN or mb == NAN:
        return (sign, NAN)
    if ma == "inf" or mb == "inf":
        return (sign, NAN) if ma == 0 or mb == 0 else (sign, "inf")
    return (sign, ma * mb)


def ieee_quotient(a, b) -> tuple:
    """``a / b`` without rounding: the sign is the XOR of the signs; finite / 0 is inf, 0 / 0
    and inf / inf NaN, finite / inf 0."""
    (sa, ma), (sb, mb) = signed_exact(a), signed_exact(b)
    sign = sa ^ sb
    if ma == NAN or mb == NAN or (ma == "inf" and mb == "inf") or (ma == 0 and mb == 0):
        return (sign, NAN)
    if ma == "inf" or mb == 0:
        return (sign, "inf")
    if mb == "inf":
        return (sign, Fraction(0))
    return (sign, ma / mb)


def dequantize_exact(x, zero_point, scale, dst):
    """DequantizeLinear-28 for one element: ``(x - zero_point) * scale`` exactly, rounded once to
    the result type ``dst`` (FLOAT, FLOAT16 or BFLOAT16: to nearest even, overflow to inf).
    ``zero_point`` None is 0 (+0 for a float ``x``); the subtraction and the product keep IEEE's
    signs of zero and NaNs."""
    if zero_point is None:
        zero_point = 0 if isinstance(x, int) else (0, Fraction(0))
    if isinstance(x, int) and isinstance(zero_point, int):
        difference = x - zero_point
    else:
        difference = ieee_sum(x, _negated(signed_exact(zero_point)))
    return cast_exact(ieee_product(difference, scale), dst)


def _to_integer(value):
    """Round half to even to an integer; NaN and the infinities stay as they are."""
    if isinstance(value, int):
        return value
    sign, q = value
    if q == NAN or q == "inf":
        return value
    return round_half_even(-q if sign else q)


def _integer_quotient(a, b):
    """INT32 precision: ``a / b`` of two integers (or NaN / inf), the exact quotient rounded
    half to even; division by 0 is inf of ``a``'s sign, 0 / 0 NaN."""
    if not isinstance(a, int) or not isinstance(b, int):
        return ieee_quotient(a, b)
    if b == 0:
        return (0, NAN) if a == 0 else (int(a < 0), "inf")
    return round_half_even(Fraction(a, b))


def quantize_precision(scale_type, precision=None):
    """The type QuantizeLinear-28 divides in: ``precision``, else the scale's, but FLOAT for a
    FLOAT8E8M0 scale."""
    if precision:
        return spec.DataType(precision)
    return spec.DataType.FLOAT if scale_type == spec.DataType.FLOAT8E8M0 else spec.DataType(scale_type)


_QUOTIENTS: dict = {}  # quantize_quotient's results: the tests ask for each one many times


def quantize_quotient(x, scale, precision):
    """``x / scale`` as QuantizeLinear-28 computes it in ``precision``: FLOAT, FLOAT16 or BFLOAT16
    round ``x`` and ``scale`` to it, divide, and round the quotient to it (IEEE); INT32 rounds each
    half to even to an integer and the exact quotient too."""
    key = (x, scale, precision)
    if key not in _QUOTIENTS:
        if precision == spec.DataType.INT32:
            _QUOTIENTS[key] = _integer_quotient(_to_integer(x), _to_integer(scale))
        else:
            xp = cast_exact(x, precision)
            sp = cast_exact(scale, precision)
            _QUOTIENTS[key] = cast_exact(ieee_quotient(xp, sp), precision)
    return _QUOTIENTS[key]


def quantize_exact(x, scale, zero_point, precision, dst, saturate=True):
    """QuantizeLinear-28 for one element into ``dst``: the quotient of :func:`quantize_quotient`,
    then an integer type's ``clamp(round_half_even(q) + zero_point)`` (+inf to the top, -inf to
    the bottom, NaN as 0), or a float type's Cast of ``q + zero_point`` (exact, IEEE's signs of
    zero) with ``saturate``.  ``zero_point`` None is 0 for an integer type; for a float type it
    adds nothing (``q`` itself is cast, its sign of zero kept); an integer quotient (INT32
    precision) is a +0 when it is 0."""
    q = quantize_quotient(x, scale, precision)
    if dst in INT_RANGES:
        low, high = INT_RANGES[dst]
        zero = 0 if zero_point is None else zero_point
        if isinstance(q, int):
            level = q + zero
        else:
            sign, magnitude = q
            if magnitude == NAN:
                level = zero
            elif magnitude == "inf":
                level = low if sign else high
            else:
                level = round_half_even(-magnitude if sign else magnitude) + zero
        return min(max(level, low), high)
    if zero_point is None:  # no zero point, nothing added: -0 stays -0, as Cast keeps it
        return cast_exact(signed_exact(q), dst, saturate)
    return cast_exact(ieee_sum(q, zero_point), dst, saturate)


# --------------------------------------------------------------------------
# DynamicQuantizeLinear and MatMulInteger, as their texts state them


def _signed_value(value):
    """An exact float value as a number that orders: a Fraction, or +-inf as a float."""
    sign, magnitude = value
    number = float("inf") if magnitude == "inf" else magnitude
    return -number if sign else number


def dynamic_quantize_exact(values):
    """DynamicQuantizeLinear-11 of the exact float32 values ``values`` (:func:`exact_values`):
    ``(y, scale, zero)``, y a list of ints, the scale exact, the zero point an int.

    The text's formulas, each float32 operation rounded once to nearest even (IEEE), with the
    decisions of docs/quantize.md where it is silent: a NaN in x makes max and min NaN; an empty
    x has max = min = 0; an empty range (all zeros) has the scale 1 (onnxruntime's); a NaN zero point
    saturates to 0, as QuantizeLinear counts a NaN quotient."""
    f32 = spec.DataType.FLOAT
    if any(magnitude == NAN for _, magnitude in values):
        low = high = (0, NAN)
    else:
        numbers = [_signed_value(v) for v in values] or [Fraction(0)]
        low = min(values, key=_signed_value) if min(numbers) < 0 else (0, Fraction(0))
        high = max(values, key=_signed_value) if max(numbers) > 0 else (0, Fraction(0))
    if low[1] != NAN and _signed_value(low) == 0 and _signed_value(high) == 0:
        scale = (0, Fraction(1))
    else:
        scale = cast_exact(ieee_quotient(cast_exact(ieee_sum(high, _negated(low)), f32), 255), f32)
    zero = cast_exact(ieee_sum((0, Fraction(0)), _negated(cast_exact(ieee_quotient(low, scale), f32))), f32)
    if zero[1] == NAN:
        zero_point = 0
    else:
        zero_point = round_half_even(Fraction(min(max(_signed_value(zero), 0), 255)))
    y = [quantize_exact(v, scale, zero_point, f32, spec.DataType.UINT8) for v in values]
    return y, scale, zero_point


def matmul_integer_exact(a, b, a_zero=0, b_zero=0):
    """MatMulInteger-10 in Python ints: numpy.matmul of object arrays (each element a Python
    int) less their zero points, already shaped to broadcast (one per row of ``a``: (..., M, 1);
    one per column of ``b``: (..., 1, N)); each sum then as the int32 of its low 32 bits."""
    av = np.asarray(a).astype(object) - np.asarray(a_zero).astype(object)
    bv = np.asarray(b).astype(object) - np.asarray(b_zero).astype(object)
    sums = np.asarray(np.matmul(av, bv), dtype=object)
    return np.vectorize(lambda s: (s + 2**31) % 2**32 - 2**31, otypes=[object])(sums)


def _exact_array(array) -> np.ndarray:
    """:func:`exact_values` of ``array``, as an object array of its shape."""
    array = np.asarray(array)
    out = np.empty(array.size, object)
    out[:] = exact_values(array)
    return out.reshape(array.shape)


def requantize_exact(x, a_scale, b_scale, y_scale, y_zero, dst):
    """QLinearMatMul-21's ``saturate(x / y_scale + y_zero_point)`` for one exact sum ``x`` of the
    operands' products (an int, or (sign, Fraction | NAN | "inf")) and its scales: ``x *
    a_scale * b_scale / y_scale`` without rounding (IEEE's specials where a value is not finite
    or y_scale is 0), then an integer type's ``clamp(round_half_even(q) + y_zero)`` (NaN as 0),
    or Cast of ``q + y_zero``, saturating, with the decision of docs/quantize.md: where every
    value is finite and y_scale is not 0, a result of zero is +0."""
    finite = all(isinstance(v, int) or v[1] not in (NAN, "inf") for v in (a_scale, b_scale, y_scale, y_zero))
    x = signed_exact(x)
    if finite and x[1] not in (NAN, "inf") and y_scale[1] != 0:
        number = lambda v: -v[1] if v[0] else v[1]  # noqa: E731
        q = number(x) * number(a_scale) * number(b_scale) / number(y_scale)
        if dst in INT_RANGES:
            low, high = INT_RANGES[dst]
            return min(max(round_half_even(q) + y_zero, low), high)
        total = q + number(signed_exact(y_zero))
        return cast_exact((int(total < 0), abs(total)), dst)
    q = ieee_quotient(ieee_product(ieee_product(x, a_scale), b_scale), y_scale)
    if dst in INT_RANGES:
        low, high = INT_RANGES[dst]
        sign, magnitude = q
        if magnitude == NAN:
            return min(max(y_zero, low), high)
        if magnitude == "inf":
            return low if sign else high
        return min(max(round_half_even(-magnitude if sign else magnitude) + y_zero, low), high)
    return cast_exact(ieee_sum(q, y_zero), dst)


def qlinear_matmul_exact(a, a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero):
    """QLinearMatMul-21 of 2-D ``a`` and ``b``, their scales and zero points spread by the caller
    (0-d, (M, 1) for ``a``, (1, N) for ``b``): a list of rows of the result's exact values
    (:func:`exact_values`' form).  The sums of two integer operands are MatMulInteger's (modulo
    2**32); a float 8 operand's are exact, IEEE's specials kept (:func:`ieee_sum`)."""
    dst = spec.datatype_of(np.asarray(y_zero).dtype)
    (y_scale_value,), (y_zero_value,) = exact_values(np.asarray(y_scale)), exact_values(np.asarray(y_zero))
    m, n = np.shape(a)[0], np.shape(b)[1]
    av, bv = _exact_array(a), _exact_array(b)
    za, zb = np.broadcast_to(_exact_array(a_zero), (m, 1)), np.broadcast_to(_exact_array(b_zero), (1, n))
    sa, sb = np.broadcast_to(_exact_array(a_scale), (m, 1)), np.broadcast_to(_exact_array(b_scale), (1, n))
    integers = np.asarray(a).dtype.kind in "iu" and np.asarray(b).dtype.kind in "iu"
    if integers:
        sums = matmul_integer_exact(a, b, za, zb)
    rows = []
    for i in range(m):
        row = []
        for j in range(n):
            if integers:
                x = int(sums[i, j])
            else:
                x = (0, Fraction(0))
                for k in range(np.shape(a)[1]):
                    da = ieee_sum(av[i, k], _negated(signed_exact(za[i, 0])))
                    db = ieee_sum(bv[k, j], _negated(signed_exact(zb[0, j])))
                    x = ieee_sum(x, ieee_product(da, db))
            row.append(requantize_exact(x, sa[i, 0], sb[0, j], y_scale_value, y_zero_value, dst))
        rows.append(row)
    return rows
