"""Tests that need the compiled module: threads, the output pool, and differential
property tests of ``fastbits._ops_c`` against ``fastbits._ops_py`` and the references
(numpy; ``support.bitshift_reference``) for every operator, errors included."""

from __future__ import annotations

import itertools
import os
import subprocess
import tempfile
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastbits
from fastbits.spec import DataType

from support import (
    ALL_PAIRS,
    BINARY_OPS,
    INT_DTYPES,
    PATHS,
    assert_same_bits,
    bitcast_reorders,
    bitcast_source,
    copy_layout,
    expected_layout,
    layout_of,
    operand_pair,
    random_bits,
    random_ints,
    reference,
    run_op,
)

if "cython" not in PATHS:
    pytest.skip("the compiled path is not available", allow_module_level=True)
C, P = PATHS["cython"], PATHS["python"]

pytestmark = pytest.mark.compiled

HAVE_THREADS = fastbits.runtime_info()["threads_available"]

SETTINGS = settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]
)


@pytest.fixture
def threads():
    """Restore the thread and streaming settings after a test changes them.  While
    the test runs, threads start at any size, so that small generated arrays take
    the parallel loops too, on the team (every grain 1 byte)."""
    with fastbits.config_context(num_threads=C.get_num_threads(), grain_cached=1, grain_streamed=1, grain_strided=1,
                                 stream_threshold=fastbits.get_config()["stream_threshold"]):
        yield


# --------------------------------------------------------------------------
# threads


def test_num_threads_roundtrip(threads):
    C.set_num_threads(1)
    assert C.get_num_threads() == 1
    C.set_num_threads(2)
    assert C.get_num_threads() == (2 if HAVE_THREADS else 1)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", None, True])
def test_set_num_threads_rejects_like_pure(bad, threads):
    with pytest.raises(Exception) as compiled:
        C.set_num_threads(bad)
    with pytest.raises(Exception) as pure:
        P.set_num_threads(bad)
    assert type(compiled.value) is type(pure.value)
    assert str(compiled.value) == str(pure.value)


def _threads_in_subprocess(value):
    env = dict(os.environ)
    env["FASTBITS_NUM_THREADS"] = value
    code = "import fastbits._runtime as c; print(c.get_num_threads())"
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code], env=env, capture_output=True, text=True, check=True,
        cwd=tempfile.gettempdir(),  # not the repo root, whose source tree would shadow the install
    )
    return int(done.stdout.strip())


def test_env_num_threads():
    assert _threads_in_subprocess("1") == 1
    assert _threads_in_subprocess("3") == (3 if HAVE_THREADS else 1)
    # a bad value is ignored with a warning, not an import failure
    assert _threads_in_subprocess("zero") >= 1


@pytest.mark.parametrize("n", [1, 2])
def test_large_results_same_for_thread_counts(n, threads):
    C.set_num_threads(n)
    rng = np.random.default_rng(n)
    a = rng.integers(0, 2**32, (700, 900), dtype=np.uint32)
    b = rng.integers(0, 2**32, (700, 900), dtype=np.uint32)
    for x, y in [(a, b), (a.T, b.T.copy()), (a, b[:, :1]), (a, b[:1]), (a[:, ::2], b[:, 1::2]),
                 (a[::-1], b), (a.reshape(-1, 5), b.reshape(-1)[:5])]:
        assert np.array_equal(C.bitwise_and(x, y), np.bitwise_and(x, y))
    x = np.random.default_rng(0).integers(0, 255, (1 << 20) + 3, dtype=np.uint8)
    assert np.array_equal(C.bitcast(x, "int8", copy=True), x.view(np.int8))
    s = a.astype(">u4")
    assert np.array_equal(C.bitcast(s, "int32"), a.view(np.int32))
    assert np.array_equal(C.bitcast(a.T, "float32", copy=True).view(np.uint32), a.T)
    z = np.random.default_rng(2).standard_normal((300, 500)).view(np.complex128)
    assert C.bitcast(z.T, "complex128", copy=True).tobytes() == np.ascontiguousarray(z.T).tobytes()
    zs = z.astype(">c16")
    assert C.bitcast(zs.T, "complex128").tobytes() == np.ascontiguousarray(z.T).tobytes()


# --------------------------------------------------------------------------
# fresh outputs and the pool


@pytest.fixture
def small_pool():
    """The output pool for results from 1 MiB (its default starts at 32 MiB)."""
    with fastbits.config_context(output_pool=True, pool_threshold=1 << 20):
        yield


def test_fresh_results_never_share_memory(small_pool):
    a = np.arange(1 << 20, dtype=np.int32)
    b = np.full(1 << 20, 0x0F0F, dtype=np.int32)
    live = [C.bitwise_and(a, b) for _ in range(6)]
    live += [C.bitcast(a, "float32", copy=True) for _ in range(3)]
    for i, x in enumerate(live):
        assert x.flags.c_contiguous and x.flags.owndata and x.flags.writeable
        assert not np.shares_memory(x, a) and not np.shares_memory(x, b)
        for y in live[i + 1 :]:
            assert not np.shares_memory(x, y)
    expected = a & b
    for x in live[:6]:
        assert np.array_equal(x, expected)
    del live
    again = C.bitwise_and(a, b)  # may reuse a freed block: must hold the new values
    assert np.array_equal(again, expected)
    info = fastbits.runtime_info()
    if info["output_pool_available"]:
        assert info["pool_hits"] + info["pool_misses"] > 0 and info["pool_idle_bytes"] >= 0
    again.resize((1 << 21,), refcheck=False)  # numpy reallocates through the pool's handler
    assert np.array_equal(again[: 1 << 20], expected)
    fastbits.release_memory()
    assert fastbits.runtime_info()["pool_idle_bytes"] == 0
    with fastbits.config_context(output_pool=False):  # pool off: plain numpy allocations
        plain = C.bitwise_and(a, b)
        assert np.array_equal(plain, expected) and plain.flags.owndata


# --------------------------------------------------------------------------
# differential property tests: every elementwise operator, compiled against pure and the
# references (numpy; support.bitshift_reference for BitShift)

#: Fewer examples than SETTINGS for the operators besides BitwiseAnd (which has 400), since
#: each runs on both directions, thread counts and out kinds.
OPS_SETTINGS = settings(SETTINGS, max_examples=120)
OTHER_BINARY = [op for op in BINARY_OPS if op != "bitwise_and"]


def _assert_same_array(result, expected):
    assert type(result) is type(expected)
    assert result.dtype == expected.dtype
    assert result.shape == expected.shape
    assert np.array_equal(result, expected)


def _check_fresh(op, a, b):
    """A fresh result of ``op``: the pure path's, the reference's, a new array in numpy's layout."""
    fast = run_op(C, op, a, b)
    _assert_same_array(fast, run_op(P, op, a, b))
    assert np.array_equal(fast, reference(op, a, b))
    assert layout_of(fast) == expected_layout(a, b) and fast.dtype.isnative
    assert not np.shares_memory(fast, a) and not np.shares_memory(fast, b)


def _new_out(kind, shape, dtype):
    """An ``out`` of ``shape`` and ``dtype``: fresh, strided, swapped, reversed or fortran."""
    if kind == "strided" and shape:
        return np.zeros(shape[:-1] + (2 * shape[-1],), dtype)[..., 1::2]
    if kind == "swapped":
        return np.zeros(shape, dtype.newbyteorder("S"))
    if kind == "reversed" and shape:
        return np.zeros(shape, dtype)[tuple(slice(None, None, -1) for _ in shape)]
    if kind == "fortran":
        return np.zeros(shape, dtype, order="F")
    return np.zeros(shape, dtype)


def _check_out(op, operands, kind):
    expected = reference(op, *operands)
    out = _new_out(kind, expected.shape, expected.dtype)
    assert run_op(C, op, *operands, out=out) is out
    assert np.array_equal(out, expected)


def _check_aliased(op, a, b, which):
    """``out`` is ``a``, ``b`` or both (``a`` and ``b`` one array), written in place."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    a = np.array(np.broadcast_to(a, shape)) if which in ("a", "both") else a
    b = np.array(np.broadcast_to(b, shape)) if which in ("b", "both") else b
    if which == "both":
        b = a
    expected = reference(op, a, b)
    out = a if which != "b" else b
    run_op(C, op, a, b, out=out)
    assert np.array_equal(out, expected)


@pytest.mark.parametrize("n", [1, 2])
@SETTINGS
@given(data=operand_pair())
def test_bitwise_and_matches_pure_and_numpy(n, data, threads):
    C.set_num_threads(n)
    _check_fresh("bitwise_and", *data[1])


@pytest.mark.parametrize("op", OTHER_BINARY)
@pytest.mark.parametrize("n", [1, 2])
@OPS_SETTINGS
@given(data=st.data())
def test_binary_op_matches_pure_and_reference(n, op, data, threads):
    C.set_num_threads(n)
    _check_fresh(op, *data.draw(operand_pair(shift=op.startswith("bitshift")))[1])


@pytest.mark.parametrize("n", [1, 2])
@OPS_SETTINGS
@given(data=operand_pair())
def test_bitwise_not_matches_pure_and_numpy(n, data, threads):
    C.set_num_threads(n)
    for x in data[1]:
        fast = C.bitwise_not(x)
        _assert_same_array(fast, P.bitwise_not(x))
        assert np.array_equal(fast, np.invert(x))
        assert layout_of(fast) == expected_layout(x) and fast.dtype.isnative and not np.shares_memory(fast, x)


OUT_KINDS = st.sampled_from(["fresh", "strided", "swapped", "reversed", "fortran"])


@pytest.mark.parametrize("n", [1, 2])
@SETTINGS
@given(data=operand_pair(), out_kind=OUT_KINDS)
def test_bitwise_and_out(n, data, out_kind, threads):
    C.set_num_threads(n)
    _check_out("bitwise_and", data[1], out_kind)


@pytest.mark.parametrize("op", OTHER_BINARY + ["bitwise_not"])
@pytest.mark.parametrize("n", [1, 2])
@OPS_SETTINGS
@given(data=st.data(), out_kind=OUT_KINDS)
def test_op_out(n, op, data, out_kind, threads):
    C.set_num_threads(n)
    _, operands = data.draw(operand_pair(shift=op.startswith("bitshift")))
    _check_out(op, operands[:1] if op == "bitwise_not" else operands, out_kind)


@SETTINGS
@given(data=operand_pair(), which=st.sampled_from(["a", "b", "both"]))
def test_bitwise_and_out_aliases_input(data, which, threads):
    C.set_num_threads(2)
    _check_aliased("bitwise_and", *data[1], which)


@pytest.mark.parametrize("op", OTHER_BINARY)
@OPS_SETTINGS
@given(data=st.data(), which=st.sampled_from(["a", "b", "both"]))
def test_binary_op_out_aliases_input(op, data, which, threads):
    C.set_num_threads(2)
    _check_aliased(op, *data.draw(operand_pair(shift=op.startswith("bitshift")))[1], which)


@OPS_SETTINGS
@given(data=operand_pair())
def test_bitwise_not_in_place(data, threads):
    C.set_num_threads(2)
    x = np.array(data[1][0])  # a fresh, writeable copy in native order
    expected = np.invert(x)
    assert C.bitwise_not(x, out=x) is x
    assert np.array_equal(x, expected)


@pytest.mark.parametrize("op", BINARY_OPS + ["bitwise_not"])
@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.uint64])
def test_overlapping_out(dtype, n, op, threads):
    C.set_num_threads(n)
    rng = np.random.default_rng(1)
    arity = 1 if op == "bitwise_not" else 2

    def expected_of(*operands):  # the pure path on copies made before anything is written
        return run_op(P, op, *[np.array(x) for x in operands][:arity])

    for size in (37, 300_000):
        buf = rng.integers(0, 200, size + 8).astype(dtype)
        for shift in (1, 3, -1, -5):
            data = buf.copy()
            a = data[8:]
            out = data[8 + shift : size + 8 + shift] if shift < 0 else data[8 - shift : size + 8 - shift]
            expected = expected_of(a, a[::-1])
            run_op(C, op, *(a, a[::-1])[:arity], out=out)
            assert np.array_equal(out, expected)
        if arity == 1:
            continue
        # b is a row of out that is broadcast over all rows
        m = rng.integers(0, 200, (50, 7)).astype(dtype)
        ref = expected_of(m, m[3])
        run_op(C, op, m, m[3], out=m)
        assert np.array_equal(m, ref)
        m = rng.integers(0, 200, (60, 60)).astype(dtype)
        ref = expected_of(m, m.T)
        run_op(C, op, m, m.T, out=m)
        assert np.array_equal(m, ref)


@pytest.mark.parametrize("op", BINARY_OPS)
@SETTINGS
@given(
    dtype=st.sampled_from(INT_DTYPES),
    value=st.integers(-(2**64), 2**64) | st.integers(-2, 66),
    shape=st.sampled_from([(), (5,), (3, 4), (0, 2)]),
    left=st.booleans(),
)
def test_python_int_operand(op, dtype, value, shape, left):
    x = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    args = (value, x) if left else (x, value)
    try:
        expected = run_op(P, op, *args)
    except Exception as exc:
        with pytest.raises(type(exc)) as info:
            run_op(C, op, *args)
        assert str(info.value) == str(exc)
        return
    _assert_same_array(run_op(C, op, *args), expected)
    assert np.array_equal(expected, reference(op, *(np.asarray(v, dtype) for v in args)))


BAD_BINARY = [
    (np.zeros(3, np.int32), np.zeros(4, np.int32), {}),
    (np.zeros(3, np.int32), np.zeros(3, np.int64), {}),
    (np.zeros(3, np.uint8), np.zeros(3, np.int8), {}),
    (np.zeros(3, np.float32), np.zeros(3, np.float32), {}),
    (np.zeros(3, bool), np.zeros(3, bool), {}),
    (1, 2, {}),
    (np.zeros(3, np.int8), 300, {}),
    (-1, np.zeros(3, np.uint16), {}),
    (np.zeros(3, np.uint64), 2**64, {}),
    (np.zeros(3, np.int32), np.zeros(3, np.int32), {"out": np.zeros(4, np.int32)}),
    (np.zeros(3, np.int32), np.zeros(3, np.int32), {"out": np.zeros(3, np.int64)}),
    (np.zeros(3, np.int32), np.zeros(3, np.int32), {"out": [0, 0, 0]}),
    (np.zeros(3, np.int32), np.zeros(3, np.int32), {"out": np.broadcast_to(np.int32(0), (3,))}),
    (np.zeros(3, np.int32), "abc", {}),
    (object(), np.zeros(3, np.int32), {}),
    ([[1], [1, 2]], np.zeros(2, np.int64), {}),
]


@pytest.mark.parametrize("op", BINARY_OPS)
@pytest.mark.parametrize("a, b, kwargs", BAD_BINARY)
def test_binary_op_errors_match_pure(op, a, b, kwargs):
    with pytest.raises(Exception) as pure:
        run_op(P, op, a, b, **kwargs)
    with pytest.raises(Exception) as fast:
        run_op(C, op, a, b, **kwargs)
    assert type(fast.value) is type(pure.value)
    assert str(fast.value) == str(pure.value)


BAD_NOT = [
    (np.zeros(3, np.float32), {}),
    (np.zeros(3, bool), {}),
    (np.array(["a"]), {}),
    (object(), {}),
    ([[1], [1, 2]], {}),
    (2**70, {}),
    (np.zeros(3, np.int32), {"out": np.zeros(4, np.int32)}),
    (np.zeros(3, np.int32), {"out": np.zeros(3, np.uint32)}),
    (np.zeros(3, np.int32), {"out": [0, 0, 0]}),
    (np.zeros(3, np.int32), {"out": np.broadcast_to(np.int32(0), (3,))}),
]


@pytest.mark.parametrize("x, kwargs", BAD_NOT)
def test_bitwise_not_errors_match_pure(x, kwargs):
    with pytest.raises(Exception) as pure:
        P.bitwise_not(x, **kwargs)
    with pytest.raises(Exception) as fast:
        C.bitwise_not(x, **kwargs)
    assert type(fast.value) is type(pure.value)
    assert str(fast.value) == str(pure.value)


@pytest.mark.parametrize("x", [5, -1, 2**63, [1, 2], np.int8(-3), np.array(7, ">u2")])
def test_bitwise_not_array_likes_match_pure(x):
    _assert_same_array(C.bitwise_not(x), P.bitwise_not(x))


U8 = np.arange(6, dtype=np.uint8)


@pytest.mark.parametrize(
    "x, y, direction",
    [
        (U8, U8, "UP"), (U8, U8, ""), (U8, U8, None), (U8, U8, 1), (U8, U8, b"UP"), (U8, U8, b"\xff"),
        (U8, U8, ["LEFT"]), (U8, U8, "LEFT\x00"),
        (U8.astype(np.float32), U8, "UP"),  # both wrong: the same error first on both paths
        (U8.astype(np.float32), U8.astype(np.float32), "left"),
        (U8, 256, " Right "), (1, 2, "left"), (U8, U8.astype(np.int8), b"LEFT"),
    ],
)
def test_bitshift_direction_errors_match_pure(x, y, direction):
    with pytest.raises(Exception) as pure:
        P.bitshift(x, y, direction)
    with pytest.raises(Exception) as fast:
        C.bitshift(x, y, direction)
    assert type(fast.value) is type(pure.value)
    assert str(fast.value) == str(pure.value)


# --------------------------------------------------------------------------
# large arrays: with stream_threshold at 4 MiB the loops stream their stores, on every thread count

LARGE = (1024, 2080)  # 8.1 MiB of uint32; every second column of it, 4.1 MiB


@pytest.mark.parametrize("op", BINARY_OPS + ["bitwise_not"])
@pytest.mark.parametrize("n", [1, 2])
def test_large_arrays(op, n, threads):
    C.set_num_threads(n)
    fastbits.set_config(stream_threshold=4 << 20)  # every result streamed, on any machine (threads restores it)
    rng = np.random.default_rng(n)
    a = rng.integers(0, 2**32, LARGE, dtype=np.uint32)
    b = rng.integers(0, 40, LARGE, dtype=np.uint32)  # amounts 32 to 39 are out of range
    if op == "bitwise_not":
        layouts = [(a,), (a.T,), (a[:, ::2],), (a[::-1],)]
    else:
        layouts = [(a, b), (a.T, b.T.copy()), (a, b[:, :1]), (a, b[:1]), (a[:, ::2], b[:, 1::2]), (a[::-1], b)]
    for operands in layouts:
        expected = run_op(P, op, *operands)
        assert np.array_equal(run_op(C, op, *operands), expected)
        out = np.empty_like(expected)
        assert run_op(C, op, *operands, out=out) is out
        assert np.array_equal(out, expected)
    in_place = a.copy()
    run_op(C, op, *(in_place, b)[: 1 if op == "bitwise_not" else 2], out=in_place)
    assert np.array_equal(in_place, run_op(P, op, *(a, b)[: 1 if op == "bitwise_not" else 2]))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint32, np.int64])
@pytest.mark.parametrize("op", BINARY_OPS + ["bitwise_not"])
def test_streamed_rows_every_width(op, dtype, threads):
    """Results written with streaming stores (stream_threshold=0): the fused AND/OR/XOR/NOT loops
    and the shifts' chunked ones, at every width, with both inputs arrays or one a repeated
    value, into an output on a 16-byte boundary and one element past it, of a length that
    leaves a head and a tail.  They must give what the same call gives without streaming (the
    loops the reference tests check)."""
    C.set_num_threads(1)
    itemsize = np.dtype(dtype).itemsize
    n = (1 << 20) // itemsize + 4099  # heads, whole 64-byte steps, a tail that is not one
    width = 8 * itemsize
    x = random_ints(n, dtype, 1)
    y = random_ints(n, dtype, 2)
    if op.startswith("bitshift_"):
        y = (y.view(f"u{itemsize}") % (width + 8)).astype(dtype)  # in range, and a few beyond
    inputs = [(x,)] if op == "bitwise_not" else [(x, y), (x, y[7]), (x[3], y)]
    for operands in inputs:
        with fastbits.config_context(stream_threshold=2**62):
            expected = run_op(C, op, *operands)
        for shift in (0, 1):
            out = np.empty(n + 16, dtype)[shift : shift + n]
            with fastbits.config_context(stream_threshold=0):
                assert run_op(C, op, *operands, out=out) is out
            assert_same_bits(out, expected, context=(op, len(operands[0].shape), shift))


@pytest.mark.parametrize("to", ["UINT8", "INT16", "FLOAT", "INT64", "COMPLEX128"])
@pytest.mark.parametrize("n", [1, 2])
def test_streamed_bitcast_copies(n, to, threads):
    """BitCast copies written with streaming stores (stream_threshold=0): a contiguous row copied
    by the OR loop with a zero vector, its head and tail by memcpy, from inputs on and off an
    element and a 16-byte boundary, of lengths that leave a tail; the same bytes as the input,
    on one thread and two (pieces of the copy); a row of 8 MiB or more goes to memcpy."""
    C.set_num_threads(n)
    dtype = fastbits.spec.numpy_dtype(DataType[to])
    itemsize = dtype.itemsize
    raw = np.random.default_rng(itemsize).integers(0, 256, (1 << 20) + 4099 * 16 + 1, dtype=np.uint8)
    for offset in (0, 1, 8):
        for count in ((1 << 20) // itemsize + 4099, (9 << 20) // itemsize + 3):
            src = np.resize(raw, offset + count * itemsize)[offset:].view(dtype)
            with fastbits.config_context(stream_threshold=0):
                got = C.bitcast(src, to, copy=True)
            assert not np.shares_memory(got, src)
            assert got.tobytes() == src.tobytes(), (to, offset, count)


@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
@pytest.mark.parametrize("dtype", [np.uint32, np.int64])
@pytest.mark.parametrize("n", [1, 2])
def test_large_shift_by_a_scalar(n, dtype, direction, threads):
    """A scalar amount, in range and out of it, as a Python int, a numpy scalar and a 0-d array."""
    C.set_num_threads(n)
    fastbits.set_config(stream_threshold=8 << 20)  # streamed on any machine (threads restores it)
    x = random_ints((8 << 20) // np.dtype(dtype).itemsize + 5, dtype, n)  # just over 8 MiB, an odd length
    width = np.dtype(dtype).itemsize * 8
    for amount in (0, 5, width - 1, width, width + 7):
        if direction == "LEFT":
            expected = np.left_shift(x.view(f"u{x.itemsize}"), amount).view(dtype) if amount < width else np.zeros_like(x)
        elif amount < width:
            expected = np.right_shift(x, amount)
        else:
            expected = np.where(x < 0, -1, 0).astype(dtype)
        for y in (amount, dtype(amount), np.array(amount, dtype)):
            assert np.array_equal(C.bitshift(x, y, direction), expected), (amount, type(y))
        out = np.empty_like(x)
        C.bitshift(x, amount, direction, out=out)
        assert np.array_equal(out, expected)
        _assert_same_array(C.bitshift(x[::-1], amount, direction), P.bitshift(x[::-1], amount, direction))


# --------------------------------------------------------------------------
# BitCast: every pair, both copy modes


@pytest.mark.parametrize("layout", ["c", "transposed", "step", "swapped"])
@pytest.mark.parametrize("copy", [False, True])
def test_bitcast_every_pair(layout, copy, threads):
    C.set_num_threads(2)
    rng = np.random.default_rng(7)
    for src, dst in ALL_PAIRS:
        x = bitcast_source(src, layout, rng)
        try:
            expected = P.bitcast(x, dst, copy=copy)
        except Exception as exc:
            with pytest.raises(type(exc)) as info:
                C.bitcast(x, dst, copy=copy)
            assert str(info.value) == str(exc)
            continue
        got = C.bitcast(x, dst, copy=copy)
        assert_same_bits(got, expected, context=(src, dst, layout, copy))
        normalized = src in fastbits.spec.SUBBYTE_TYPES and fastbits.spec.subbyte_byte_map(src, dst) is not None
        if copy or bitcast_reorders(x, dst) or normalized:
            assert layout_of(got) == copy_layout(x, got.dtype) and not np.shares_memory(got, x)
        else:
            assert np.shares_memory(got, x) or x.size == 0


@pytest.mark.parametrize(
    "to",
    [6, DataType.INT32, "INT32", "int32", "tensor(int32)", np.int32, np.dtype("int32"), np.dtype(">i4"),
     "FLOAT", "float32", np.float32, 1, 29, -1, "float128", 8, None, 1.5, True, "bogus", DataType.STRING],
)
def test_bitcast_to_forms_match_pure(to):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for _ in range(2):  # the second call goes through the cache of resolved names
        try:
            expected = P.bitcast(x, to)
        except Exception as exc:
            with pytest.raises(type(exc)) as info:
                C.bitcast(x, to)
            assert str(info.value) == str(exc)
            continue
        got = C.bitcast(x, to)
        assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("copy", [0, 1, "yes", None])
def test_bitcast_copy_must_be_bool(copy):
    x = np.zeros(3, np.int32)
    with pytest.raises(Exception) as pure:
        P.bitcast(x, 6, copy=copy)
    with pytest.raises(Exception) as fast:
        C.bitcast(x, 6, copy=copy)
    assert type(fast.value) is type(pure.value) and str(fast.value) == str(pure.value)


def test_bitcast_numpy_bool_copy_and_lists():
    x = np.arange(4, dtype=np.int16)
    assert np.array_equal(C.bitcast(x, "uint16", copy=np.True_), P.bitcast(x, "uint16", copy=True))
    got = C.bitcast([1, 2, 3], "UINT64")
    assert got.tobytes() == P.bitcast([1, 2, 3], "UINT64").tobytes()


@pytest.mark.compiled
@pytest.mark.thread_unsafe  # fork() while other tests' threads run would copy them mid-call
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
# Forking a process with threads running is what this test is about; CPython 3.12+ warns of it.
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded, use of fork:DeprecationWarning")
def test_pool_after_fork(small_pool):
    """A child forked while another thread uses the output pool and the thread team
    computes right, with threads of its own, without deadlocking on either's lock."""
    import threading

    threads_before = C.get_num_threads()
    C.set_num_threads(2)

    stop = threading.Event()

    def churn():
        while not stop.is_set():
            C.bitwise_and(np.ones(1 << 21, np.int32), np.int32(3))

    worker = threading.Thread(target=churn)
    worker.start()
    try:
        for _ in range(5):
            pid = os.fork()
            if pid == 0:  # the child: allocate pooled results, exit 0 if they are right
                ok = all(int(C.bitwise_and(np.full(1 << 21, 7, np.int32), np.int32(3))[-1]) == 3 for _ in range(4))
                threads = 2 if HAVE_THREADS else 1
                helpers = fastbits.runtime_info()["helper_threads"]
                ok = ok and C.get_num_threads() == threads and helpers >= threads - 1
                os._exit(0 if ok else 1)
            _, status = os.waitpid(pid, 0)
            assert os.waitstatus_to_exitcode(status) == 0
    finally:
        stop.set()
        worker.join()
        C.set_num_threads(threads_before)


@pytest.mark.compiled
@pytest.mark.thread_unsafe  # sets the thread count process-wide; another caller may hold the team
def test_helpers_take_part_in_large_calls():
    """Large calls are shared with the team's helpers (not a timing: a count of shares). A
    helper claims a share when the OS runs it while the call lasts, and the caller claims what
    is left: on a loaded machine that may take many calls, so the test calls until a helper has
    taken one, up to a bound."""
    if not HAVE_THREADS:
        pytest.skip("built without threads")
    a = np.arange(1 << 24, dtype=np.int32)
    b = a[::-1].copy()
    out = np.empty_like(a)
    old = C.get_num_threads()
    C.set_num_threads(2)
    try:
        before = fastbits.runtime_info()["helper_shares"]
        for _ in range(2000):
            C.bitwise_and(a, b, out=out)
            if fastbits.runtime_info()["helper_shares"] > before:
                break
        info = fastbits.runtime_info()
        started, after = info["helper_threads"], info["helper_shares"]
    finally:
        C.set_num_threads(old)
    np.testing.assert_array_equal(out, a & b)
    assert started >= 1
    assert after > before, "no helper took a share of 2,000 calls of 16M elements"


@pytest.mark.compiled
def test_many_threads_requested():
    """More threads than the team has helpers: capped, still exact."""
    a = np.arange(1 << 20, dtype=np.uint64)
    old = C.get_num_threads()
    C.set_num_threads(256)  # the most one call uses
    try:
        np.testing.assert_array_equal(C.bitwise_and(a, a[::-1]), a & a[::-1])
        np.testing.assert_array_equal(C.bitwise_and(a.reshape(1024, 1024).T, a.reshape(1024, 1024)),
                                      a.reshape(1024, 1024).T & a.reshape(1024, 1024))
    finally:
        C.set_num_threads(old)


# --------------------------------------------------------------------------
# Cast from one-byte types: the table the compiled path looks each byte up in, against the
# reference, for every one-byte source, every target, both saturates and every round mode

ONE_BYTE_SOURCES = [t for t in sorted(fastbits.spec.CAST_T) if fastbits.spec.numpy_dtype(t).itemsize == 1]


@pytest.mark.parametrize("src", ONE_BYTE_SOURCES, ids=lambda t: t.name)
def test_cast_lookup_equals_the_reference(src, threads):
    rng = np.random.default_rng(int(src))
    raw = rng.integers(0, 256, 37 * 41, dtype=np.uint8)
    x = np.concatenate([np.arange(256, dtype=np.uint8), raw]).view(fastbits.spec.numpy_dtype(src))  # every byte
    layouts = [x, x[256:].reshape(37, 41).T, x[::-3], x[:0], x[7:8].reshape(())]
    for dst in sorted(fastbits.spec.CAST_T):
        for saturate, mode in ((True, "up"), (False, "down"), (True, "nearest")):
            C.cast(x[:1], dst, saturate=saturate, round_mode=mode)  # the first call builds the table
            for arr in layouts:
                got = C.cast(arr, dst, saturate=saturate, round_mode=mode)
                expected = P.cast(arr, dst, saturate=saturate, round_mode=mode)
                assert got.dtype == expected.dtype and got.shape == expected.shape
                assert layout_of(got) == layout_of(expected), (src.name, dst.name)
                assert_same_bits(got, expected, context=(src.name, dst.name, saturate, mode))


# --------------------------------------------------------------------------
# Cast from the types wider than a byte: the C conversions (fastbits/_c/convert.c) against the
# reference, bit for bit, for every target, both saturates, every layout, on the team

WIDE_SOURCES = [t for t in sorted(fastbits.spec.CAST_T) if fastbits.spec.numpy_dtype(t).itemsize > 1]


def _wide_source(src) -> np.ndarray:
    """Random bits of type ``src`` (every NaN, infinity and subnormal kind among them), then its
    edges: the values beside every float target's ties and limits, and the integers' ends."""
    dtype = fastbits.spec.numpy_dtype(src)
    raw = random_bits((4099,), dtype, seed=int(src))
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        edges = np.array([info.min, info.max, 0, 1, info.max // 3, info.min // 3, 2**53 + 1 if info.bits == 64 else 2],
                         dtype=object).astype(dtype)
        beside = edges + np.array(1, dtype)  # wraps at the top
    else:
        values = [0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 7.5, 7.75, 8.5, 28, 30, 240, 248, 448, 464, 470, 480, 57344, 61440,
                  65504, 65520, 2.0**-9, 2.0**-10, 1.5 * 2.0**-10, 2.0**-17, 2.0**-24, 2.0**-25, 2.0**31, 2.0**62,
                  2.0**63, 2.0**64, 3e38, 1e300, np.inf, np.nan,
                  2.0**127, 1.5 * 2.0**127, 2.0**-127, 0.75 * 2.0**-127, 1.5 * 2.0**-127, 2.0**-126, 3.0]  # E8M0's
        with np.errstate(over="ignore"):
            edges = np.array(values + [-v for v in values], np.float64).astype(dtype)
            beside = np.nextafter(edges, np.inf) if dtype.kind == "f" else edges  # bfloat16: no nextafter
    return np.concatenate([raw, edges, beside])


@pytest.mark.parametrize("src", WIDE_SOURCES, ids=lambda t: t.name)
def test_cast_conversions_equal_the_reference(src, threads):
    x = _wide_source(src)
    square = x[: 63 * 64].reshape(63, 64)
    swapped = x.astype(x.dtype.newbyteorder())  # read by the conversions in chunks, swapped
    layouts = [x, square.T, x[::-3], x[:0], x[5:6].reshape(()),
               swapped, swapped[::-3], swapped[: 63 * 64].reshape(63, 64).T]
    for dst in sorted(fastbits.spec.CAST_T):
        modes = ("up", "down", "nearest") if dst == DataType.FLOAT8E8M0 else ("up",)
        for saturate, mode in itertools.product((True, False), modes):
            for arr in layouts:
                got = C.cast(arr, dst, saturate=saturate, round_mode=mode)
                expected = P.cast(arr, dst, saturate=saturate, round_mode=mode)
                assert layout_of(got) == layout_of(expected), (src.name, dst.name)
                assert_same_bits(got, expected, context=(src.name, dst.name, saturate, mode, arr.shape))
            like = C.cast_like(x, np.zeros(0, fastbits.spec.numpy_dtype(dst)), saturate=saturate)
            assert_same_bits(like, P.cast(x, dst, saturate=saturate), context=(src.name, dst.name, "CastLike"))
