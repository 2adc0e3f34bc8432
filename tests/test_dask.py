"""fastbits' operators on dask arrays: lazy results equal to the eager ones, bit for bit.

Each check runs on both paths (the ``ops`` / ``packing`` fixtures) and on two of dask's
engines (the ``compute`` fixture): the threaded scheduler, and dask.distributed with a
LocalCluster of two worker processes that this module starts and stops.  Then: errors raised
when the graph is built, as the eager call raises them; a graph over 64 GiB built and one
block computed; the threads of a fastbits call inside a task; xarray's ``apply_ufunc``.
Skipped where dask is not installed (the ``dask`` extra).
"""

from __future__ import annotations

import re
import sys
import tracemalloc

import ml_dtypes
import numpy as np
import pytest

import fastbits
from fastbits import spec

from support import BINARY_OPS, SUBBYTE_TYPES, assert_same_bits, random_ints, random_tensor, run_op, \
    shift_amounts

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install fastbits[dask])")
import dask  # noqa: E402  (after the skip)


@pytest.fixture(scope="module")
def client():
    """A dask.distributed client of a LocalCluster of 2 worker processes, one thread each."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    if not getattr(sys, "_is_gil_enabled", lambda: True)():
        # its statistical profiler reads every thread's frames from a thread of its own
        # (sys._current_frames), which crashed a free-threaded CPython 3.13 in these tests, and
        # with the profiler off a cluster stalled there: the threaded scheduler's runs stay
        pytest.skip("dask.distributed does not run reliably on a free-threaded CPython")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0") as cluster:
        with distributed.Client(cluster, set_as_default=False) as connected:
            yield connected


@pytest.fixture(params=["threads", "distributed"])
def compute(request):
    """``compute(*results)``: the numpy arrays of dask arrays, on the threaded scheduler or the cluster."""
    if request.param == "threads":
        return lambda *results: dask.compute(*results, scheduler="threads")
    connected = request.getfixturevalue("client")
    return lambda *results: tuple(connected.gather(connected.compute(list(results))))


#: One type of each width, both signs: the dask layer is the same for every type (the eager
#: operators' tests cover each type).
DTYPES = [np.int8, np.uint16, np.int32, np.uint64]


def lazy(array, chunks):
    return da.from_array(array, chunks=chunks)


def operands(name, dtype, seed):
    """A (6, 10) ``x`` and a (10,) ``y`` (shift amounts for BitShift), as numpy arrays."""
    x = random_ints((6, 10), dtype, seed)
    y = shift_amounts((10,), dtype, seed + 1) if name.startswith("bitshift") else random_ints((10,), dtype, seed + 1)
    return x, y


# --------------------------------------------------------------------------
# results equal to the eager ones


@pytest.mark.parametrize("name", BINARY_OPS)
def test_binary_operator_equals_eager(ops, compute, name):
    """Every dtype, operands chunked differently (dask unifies them), broadcast per numpy."""
    cases = []
    for seed, dtype in enumerate(DTYPES):
        x, y = operands(name, dtype, seed)
        cases += [
            (x, y, run_op(ops, name, lazy(x, ((2, 4), (3, 3, 4))), lazy(y, ((4, 6),)))),
            (y, x, run_op(ops, name, lazy(y, 5), lazy(x, ((1, 5), (7, 3))))),
            (x[:, :1], y, run_op(ops, name, lazy(x[:, :1], 2), lazy(y, 3))),  # (6, 1) with (10,)
            (x, y, run_op(ops, name, lazy(x, 4), y)),  # a numpy operand
        ]
    results = compute(*[result for _, _, result in cases])
    for (a, b, result), got in zip(cases, results):
        assert isinstance(result, da.Array)
        expected = run_op(ops, name, a, b)
        assert result.shape == expected.shape and result.dtype == expected.dtype
        assert_same_bits(got, expected, context=(name, a.dtype))


def test_each_block_takes_the_layout_rule(ops):
    """A block's result is laid out as the eager call lays it out, ``order`` included (the
    block itself, through to_delayed: compute() would concatenate the blocks in C order)."""
    c = random_ints((10, 6), np.int32)
    lazy_f = lazy(c, c.shape).T  # one block, Fortran-ordered (dask transposes the block itself)
    for result, expected in ((ops.bitwise_not(lazy_f), "F"), (ops.bitwise_and(lazy_f, 3), "F"),
                             (ops.bitwise_xor(lazy_f, lazy_f, order="C"), "C"),
                             (ops.bitshift(lazy_f, 1, "LEFT", order="F"), "F"),
                             (ops.bitcast(lazy_f, "FLOAT", copy=True), "F")):
        (block,) = result.to_delayed().ravel()
        got = block.compute(scheduler="synchronous")
        assert got.flags[f"{expected}_CONTIGUOUS"], (result, got.strides)
    with pytest.raises(fastbits.ArgumentValueError, match=r"^BitwiseAnd: 'order' is 'Z'"):
        ops.bitwise_and(lazy_f, 3, order="Z")  # when the graph is built


def test_bitwise_not_equals_eager(ops, compute):
    xs = [random_ints((7, 5), dtype, seed) for seed, dtype in enumerate(DTYPES)]
    results = compute(*[ops.bitwise_not(lazy(x, (3, 2))) for x in xs])
    for x, got in zip(xs, results):
        assert_same_bits(got, ops.bitwise_not(x), context=x.dtype)


@pytest.mark.parametrize("name", BINARY_OPS)
def test_python_ints_zero_d_empty_chunks_big_endian(ops, compute, name):
    x, y = operands(name, np.int32, 3)
    big_x, big_y = x.astype(">i4"), y.astype(">i4")
    empty = np.array([], np.int32)
    cases = [
        (x, 3, run_op(ops, name, lazy(x, 4), 3)),
        (5, y, run_op(ops, name, 5, lazy(y, 4))),
        (x, y[2], run_op(ops, name, lazy(x, 4), lazy(np.asarray(y[2]), ()))),  # a 0-d dask operand
        (y[0], y[1], run_op(ops, name, lazy(np.asarray(y[0]), ()), y[1])),  # 0-d with a numpy 0-d
        (y, y, run_op(ops, name, lazy(y, ((0, 3, 0, 7),)), lazy(y, ((5, 0, 5),)))),  # empty chunks
        (empty, y[:1], run_op(ops, name, lazy(empty, 1), lazy(y[:1], 1))),  # an empty result
        (big_x, big_y, run_op(ops, name, lazy(big_x, (4, 3)), lazy(big_y, 6))),  # big-endian blocks
        (big_x, y, run_op(ops, name, lazy(big_x, 5), y)),
    ]
    results = compute(*[result for _, _, result in cases])
    for (a, b, _), got in zip(cases, results):
        expected = run_op(ops, name, a, b)
        assert_same_bits(got, expected, context=(name, np.shape(a), np.shape(b)))
        assert got.dtype.isnative


BITCASTS = [
    (spec.DataType.FLOAT, spec.DataType.INT32),
    (spec.DataType.INT64, spec.DataType.DOUBLE),
    (spec.DataType.FLOAT16, spec.DataType.BFLOAT16),
    (spec.DataType.UINT8, spec.DataType.FLOAT8E4M3FN),
    (spec.DataType.FLOAT4E2M1, spec.DataType.INT4),  # a copy even with copy=False
    (spec.DataType.UINT2, spec.DataType.INT2),
]


@pytest.mark.parametrize("copy", [False, True])
def test_bitcast_equals_eager(ops, compute, copy):
    cases = []
    for seed, (src, dst) in enumerate(BITCASTS):
        x = random_tensor(src, (6, 9), seed, canonical=False)
        cases.append((x, dst, ops.bitcast(lazy(x, (4, 5)), dst, copy=copy)))
        if x.dtype.itemsize > 1:  # big-endian blocks: read by value, as the eager call reads them
            big = x.astype(x.dtype.newbyteorder(">"))
            cases.append((big, dst, ops.bitcast(lazy(big, (2, 9)), dst, copy=copy)))
    results = compute(*[result for _, _, result in cases])
    for (x, dst, result), got in zip(cases, results):
        expected = ops.bitcast(x, dst, copy=copy)
        assert result.dtype == expected.dtype
        assert_same_bits(got, expected, context=(x.dtype, dst))


def test_cast_and_cast_like_equal_eager(ops, compute):
    x = np.concatenate([np.linspace(-20, 20, 50), [np.nan, np.inf, -0.0, 2.5, 3.5]]).reshape(5, 11)
    targets = [spec.DataType.INT4, spec.DataType.FLOAT8E4M3FN, spec.DataType.FLOAT8E8M0, spec.DataType.UINT8]
    cases = [(dst, ops.cast(lazy(x, (2, 4)), dst, saturate=False, round_mode="nearest")) for dst in targets]
    like = ops.cast_like(lazy(x.astype(">f4"), (3, 5)), np.zeros(0, np.int16))
    results = compute(*[result for _, result in cases], like)
    for (dst, _), got in zip(cases, results):
        assert_same_bits(got, ops.cast(x, dst, saturate=False, round_mode="nearest"), context=dst)
    assert_same_bits(results[-1], ops.cast_like(x.astype(">f4"), np.zeros(0, np.int16)))


def test_cast_errors_are_the_eager_ones(ops):
    x = lazy(np.zeros(4), 2)
    for kwargs, error in (({"round_mode": "sideways"}, fastbits.ArgumentValueError),
                          ({"saturate": 2}, fastbits.ArgumentValueError)):
        with pytest.raises(error, match="Cast: attribute"):
            ops.cast(x, "INT8", **kwargs)
    with pytest.raises(fastbits.TypeConstraintError, match="leaves strings to onnx"):
        ops.cast(x, "STRING")
    with pytest.raises(fastbits.ArgumentTypeError, match="'out' cannot be given with a dask array"):
        ops.cast(x, "INT8", out=np.empty(4, np.int8))


def test_quantize_and_dequantize_equal_eager(ops, compute):
    rng = np.random.default_rng(5)
    w = rng.integers(-8, 8, (12, 70)).astype(ml_dtypes.int4)
    scales = (rng.random((12, 3)) + 0.1).astype(np.float32)
    zeros = rng.integers(-2, 2, (12, 3)).astype(ml_dtypes.int4)
    x = (rng.standard_normal((12, 70)) * 40).astype(np.float32)
    per_axis = (rng.random(70) + 0.1).astype(np.float32)
    cases = [  # (eager call, lazy call): blocked (a short last block), per axis, per tensor
        (lambda: ops.dequantize_linear(w, scales, zeros, axis=1, block_size=32),
         lambda: ops.dequantize_linear(lazy(w, (5, 32)), scales, zeros, axis=1, block_size=32)),
        (lambda: ops.dequantize_linear(w, scales, zeros, axis=-1, block_size=32, output_dtype="FLOAT16"),
         lambda: ops.dequantize_linear(lazy(w, (12, 64)), lazy(scales, 4), zeros, axis=-1, block_size=32,
                                       output_dtype="FLOAT16")),
        (lambda: ops.quantize_linear(x, per_axis, None, axis=1, output_dtype="INT4"),
         lambda: ops.quantize_linear(lazy(x, (7, 25)), per_axis, None, axis=1, output_dtype="INT4")),
        (lambda: ops.quantize_linear(x, np.float32(0.3), output_dtype="FLOAT8E4M3FN", saturate=False),
         lambda: ops.quantize_linear(lazy(x, (7, 25)), np.float32(0.3), output_dtype="FLOAT8E4M3FN",
                                     saturate=False)),
    ]
    lazies = [make() for _, make in cases]
    assert all(isinstance(result, da.Array) for result in lazies)
    for (eager, _), got in zip(cases, compute(*lazies)):
        assert_same_bits(got, eager())


def test_dynamic_quantize_and_matmul_integer_equal_eager(ops, compute):
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((12, 70)) * 3 + 1).astype(np.float32)
    a = rng.integers(0, 256, (3, 9, 70), dtype=np.uint8)
    b = rng.integers(-128, 128, (70, 40), dtype=np.int8)
    za, zb = rng.integers(0, 256, (9,), dtype=np.uint8), rng.integers(-128, 128, (40,), dtype=np.int8)
    eager = [*ops.dynamic_quantize_linear(x), ops.matmul_integer(a, b, za, zb),
             ops.matmul_integer(a, b, np.uint8(7))]
    results = [*ops.dynamic_quantize_linear(lazy(x, (5, 32))),
               ops.matmul_integer(lazy(a, (2, 4, 32)), lazy(b, (32, 16)), za, lazy(zb, 10)),
               ops.matmul_integer(a, lazy(b, (32, 16)), np.uint8(7))]
    assert all(isinstance(result, da.Array) for result in results)
    for want, got in zip(eager, compute(*results)):
        assert_same_bits(got, want)
    empty = ops.dynamic_quantize_linear(lazy(np.zeros((0, 3), np.float32), 2))
    for want, got in zip(ops.dynamic_quantize_linear(np.zeros((0, 3), np.float32)), compute(*empty)):
        assert_same_bits(got, want)
    # numpy operands, a dask zero point per row of a batched A: the eager call on its values
    (got,) = compute(da.from_array(ops.matmul_integer(a, b, lazy(za, 4), zb)))
    assert_same_bits(got, eager[3])
    with pytest.raises(fastbits.ArgumentValueError, match="MatMulInteger: inputs 'A' of shape"):
        ops.matmul_integer(lazy(a, 5), lazy(b[:60], 5))
    with pytest.raises(fastbits.TypeConstraintError, match="DynamicQuantizeLinear: input 'x'"):
        ops.dynamic_quantize_linear(lazy(a, 5))


def test_qlinear_matmul_equals_eager(ops, compute):
    """Blocks of rows and columns, a contracted axis in several chunks, batches that broadcast,
    1-D operands, per-row and per-column scales (numpy or dask), a float 8 operand."""
    import ml_dtypes

    rng = np.random.default_rng(10)
    a = rng.integers(0, 256, (3, 9, 70), dtype=np.uint8)
    b = rng.integers(-128, 128, (70, 40), dtype=np.int8)
    sa, za = rng.uniform(0.01, 0.1, (9,)).astype(np.float32), rng.integers(0, 256, (9,), dtype=np.uint8)
    sb, zb = rng.uniform(0.01, 0.1, (40,)).astype(np.float32), rng.integers(-128, 128, (40,), dtype=np.int8)
    ys, yz = np.float32(0.3), np.int8(-2)
    f8 = rng.integers(0, 0x7F, (70, 6), dtype=np.uint8).view(ml_dtypes.float8_e4m3fn)
    zf = np.zeros((), f8.dtype)
    cases = [
        ((a, sa, za, b, sb, zb, ys, yz), (lazy(a, (2, 4, 32)), sa, za, lazy(b, (32, 16)), lazy(sb, 10), zb, ys, yz)),
        ((a[0, 0], sa[0], za[0], b, sb, zb, ys, yz), (lazy(a[0, 0], 32), sa[0], za[0], lazy(b, (32, 16)), sb, zb, ys,
                                                      yz)),
        ((a, sa, za, b[:, 0], sb[0], zb[0], ys, yz), (lazy(a, (2, 4, 32)), sa, za, b[:, 0], sb[0], zb[0], ys, yz)),
        ((a[:1], sa, za, f8, np.float32(0.5), zf, ys, np.uint8(3)),
         (a[:1], sa, za, lazy(f8, (32, 4)), np.float32(0.5), zf, ys, np.uint8(3))),
    ]
    results = [ops.qlinear_matmul(*lazy_args) for _, lazy_args in cases]
    assert all(isinstance(result, da.Array) for result in results)
    for (eager_args, _), got in zip(cases, compute(*results)):
        assert_same_bits(got, ops.qlinear_matmul(*eager_args))
    with pytest.raises(fastbits.ArgumentValueError, match="QLinearMatMul: input 'a_scale' has shape"):
        ops.qlinear_matmul(lazy(a, 5), sa[:4], za[:4], b, sb, zb, ys, yz)


def test_blocks_must_not_straddle_chunks(ops):
    w = lazy(np.zeros((4, 64), np.int8), (4, 40))
    with pytest.raises(fastbits.ArgumentValueError, match=r"rechunk first, for example x.rechunk\(\{1: 32\}\)"):
        ops.dequantize_linear(w, np.ones((4, 2), np.float32), None, axis=1, block_size=32)
    with pytest.raises(fastbits.ArgumentValueError, match="QuantizeLinear: input 'y_scale' has shape"):
        ops.quantize_linear(lazy(np.zeros((4, 6), np.float32), 2), np.ones(5, np.float32), axis=1)


@pytest.mark.parametrize("copy", [False, True])
def test_bitcast_keeps_copy_per_block(ops, copy):
    """A block is a view of the input block where the eager call makes a view."""
    x = lazy(np.arange(12, dtype=np.float32), 5)
    shares = da.map_blocks(lambda block, source: np.array([np.shares_memory(block, source)]),
                           ops.bitcast(x, "INT32", copy=copy), x, chunks=(1,))
    assert shares.compute(scheduler="threads").tolist() == [not copy] * 3


@pytest.mark.parametrize("code", SUBBYTE_TYPES)
def test_pack_and_unpack_equal_eager(packing, compute, code):
    # a whole group of packed bytes: 2 nibbles or 4 crumbs in a byte, 4 six-bit elements in 3
    per = {4: 2, 2: 4, 6: 4}[spec.bit_width(code)]
    size = per * spec.bit_width(code) // 8
    flat = random_tensor(code, (6 * per + 1,), int(code))
    block = random_tensor(code, (4 * per, 3), int(code) + 1)
    packed = packing.pack(flat)
    assert packed.size == 6 * size + 1
    cases = [
        (packing.pack(flat), packing.pack(lazy(flat, ((2 * per, 0, per, 3 * per, 1),)))),
        (packing.pack(block), packing.pack(lazy(block, ((per, 3 * per), 3)))),  # rows whole: only axis 0 split
        (packing.pack(flat[0]), packing.pack(lazy(flat[0], ()))),
        # chunks of whole groups unpack (for 4 and 2 bits: any chunks)
        (flat, packing.unpack(lazy(packed, ((size, 0, 2 * size, 3 * size + 1),)), code, flat.shape)),
        (flat[:-1].reshape(per, 6), packing.unpack(lazy(packing.pack(flat[:-1]), 4 * size), code, (per, 6))),
        (flat[0], packing.unpack(lazy(packing.pack(flat[0]), 1), code, ())),
    ]
    results = compute(*[result for _, result in cases])
    for (expected, result), got in zip(cases, results):
        assert isinstance(result, da.Array)
        assert_same_bits(got, expected, context=(code, expected.shape))


def test_pack_needs_chunks_of_whole_bytes(packing):
    x = lazy(np.zeros((8, 6), ml_dtypes.int4), (3, 6))
    with pytest.raises(fastbits.ArgumentValueError, match=r"^pack: .* multiple of 2: .*x\.rechunk\(\{0: 2\}\)"):
        packing.pack(x[:, :5])  # rows of 5: chunks of 3 rows hold 15 elements
    assert packing.pack(x).chunks == ((9, 9, 6),)  # rows of 6 fill whole bytes
    with pytest.raises(fastbits.ArgumentValueError, match=r"^pack: .* only the first axis may be split.*\{1: -1\}"):
        packing.pack(lazy(np.zeros((4, 6), ml_dtypes.uint2), 2))


def test_6_bit_chunks_must_hold_whole_groups(packing):
    """Four 6-bit elements fill 3 bytes: pack's chunks (but the last) hold multiples of 4
    elements, unpack's multiples of 3 bytes; otherwise the error names the rechunk."""
    x = lazy(random_tensor(spec.DataType.FLOAT6E2M3, (10, 6), 3), (4, 6))  # chunks of 24 elements
    assert packing.pack(x).chunks == ((18, 18, 9),)
    with pytest.raises(fastbits.ArgumentValueError,
                       match=r"^pack: input 'x' is a dask array whose chunks hold \(15, 15\) elements; "
                             r"tensor\(float6e3m2\) packs 4 elements into 3 bytes, so every chunk but the last "
                             r"must hold a multiple of 4: rechunk its first axis into multiples of 4 first, "
                             r"for example x\.rechunk\(\{0: 4\}\)$"):
        packing.pack(lazy(np.zeros((6, 5), ml_dtypes.float6_e3m2fn), (3, 5)))
    data = packing.pack(random_tensor(spec.DataType.FLOAT6E3M2, (13,), 4))  # 10 bytes
    with pytest.raises(fastbits.ArgumentValueError,
                       match=r"^unpack: input 'data' is a dask array whose chunks hold \(4, 4, 2\) bytes; "
                             r"tensor\(float6e3m2\) packs 4 elements into 3 bytes, so every chunk but the last "
                             r"must hold a multiple of 3: rechunk it into multiples of 3 first, for example "
                             r"data\.rechunk\(\{0: 3\}\)$"):
        packing.unpack(lazy(data, 4), "FLOAT6E3M2", (13,))
    rechunked = packing.unpack(lazy(data, 4).rechunk({0: 3}), "FLOAT6E3M2", (13,))
    assert_same_bits(rechunked.compute(), packing.unpack(data, "FLOAT6E3M2", (13,)))
    assert packing.unpack(lazy(data, (3, 0, 6, 1)), 28, (13,)).chunks == ((4, 0, 8, 1),)


# --------------------------------------------------------------------------
# errors at graph-build time, the eager call's


def _eager_error(call, *args, **kwargs):
    with pytest.raises(fastbits.FastbitsError) as info:
        call(*args, **kwargs)
    return info.value


@pytest.mark.parametrize("case", [
    ("bitwise_and", np.zeros(4, np.int32), np.zeros(4, np.int64)),
    ("bitwise_or", np.zeros((3, 4), np.uint8), np.zeros(5, np.uint8)),
    ("bitwise_xor", np.zeros(4, np.float32), np.zeros(4, np.float32)),
    ("bitwise_and", np.zeros(4, np.int8), 300),
    ("bitwise_not", np.zeros(4, np.bool_)),
], ids=["types", "shapes", "float", "int-range", "bool"])
def test_errors_are_raised_when_the_graph_is_built(ops, case):
    name, *args = case
    expected = _eager_error(getattr(ops, name), *args)
    lazy_args = [lazy(arg, 2) if isinstance(arg, np.ndarray) else arg for arg in args]
    with pytest.raises(type(expected), match=f"^{re.escape(str(expected))}$"):
        getattr(ops, name)(*lazy_args)


def test_bitshift_and_bitcast_errors_are_the_eager_ones(ops):
    x = np.zeros(4, np.uint16)
    for call, args, kwargs in [
        (ops.bitshift, (x, x, "UP"), {}),
        (ops.bitcast, (x, "INT32"), {}),
        (ops.bitcast, (x, 29), {}),
        (ops.bitcast, (x, "FLOAT16"), {"copy": "yes"}),
        (ops.bitcast, (np.array(["a"]), "UINT8"), {}),
    ]:
        expected = _eager_error(call, *args, **kwargs)
        with pytest.raises(type(expected), match=f"^{re.escape(str(expected))}$"):
            call(lazy(args[0], 2), *args[1:], **kwargs)


def test_pack_and_unpack_errors_are_the_eager_ones(packing):
    data = np.zeros(3, np.uint8)
    for call, args in [
        (packing.pack, (np.zeros(4, np.int8),)),
        (packing.unpack, (data, "int4", (7,))),
        (packing.unpack, (data, "int8", (6,))),
        (packing.unpack, (data.view(np.int8), "int4", (6,))),
        (packing.unpack, (np.zeros((3, 1), np.uint8), "uint2", (12,))),
    ]:
        expected = _eager_error(call, *args)
        with pytest.raises(type(expected), match=f"^{re.escape(str(expected))}$"):
            call(lazy(args[0], 2), *args[1:])


def test_unknown_chunk_sizes_are_refused(ops, packing):
    x = lazy(np.arange(6, dtype=np.uint8), 2)
    unknown = x[x > 2]  # its chunk sizes are known only once computed
    nibbles = lazy(np.arange(6, dtype=np.uint8).view(ml_dtypes.uint4), 2)[x > 2]
    for call in (lambda: ops.bitwise_and(unknown, x[:3]), lambda: ops.bitwise_not(unknown),
                 lambda: packing.pack(nibbles), lambda: packing.unpack(unknown, "uint2", (12,))):
        with pytest.raises(fastbits.ArgumentValueError, match=r"unknown chunk sizes .*compute_chunk_sizes\(\)"):
            call()
    expected = np.arange(3, 6, dtype=np.uint8)
    assert_same_bits(ops.bitwise_not(unknown.compute_chunk_sizes()).compute(), ~expected)
    assert_same_bits(ops.bitcast(unknown, "INT8").compute(), expected.view(np.int8))  # blocks keep their shapes


def test_out_is_refused_with_a_dask_input(ops):
    x = lazy(np.zeros(4, np.int32), 2)
    out = np.zeros(4, np.int32)
    for call in (lambda: ops.bitwise_and(x, out, out=out), lambda: ops.bitwise_not(x, out=out),
                 lambda: ops.bitshift(out, x, "LEFT", out=out)):
        with pytest.raises(fastbits.ArgumentTypeError, match=r"'out' cannot be given with a dask array input: "
                                                            r"the result is a lazy dask array"):
            call()


# --------------------------------------------------------------------------
# laziness, threads, xarray


class Counter:
    """A block source that counts the blocks it makes (on the threaded scheduler: this process)."""

    def __init__(self):
        self.blocks = 0

    def __call__(self, block):
        self.blocks += 1
        return block


@pytest.mark.thread_unsafe  # tracemalloc traces the whole process: other threads' graphs would count
def test_a_64_gib_graph_is_built_lazily_and_one_block_computed(ops):
    counter = Counter()
    rows = 1 << 17  # 131072 x 131072 int32: 64 GiB
    x = da.random.default_rng(0).integers(0, 1 << 31, (rows, rows), dtype=np.int32, chunks=1 << 11)
    x = x.map_blocks(counter, meta=np.empty((0, 0), np.int32))
    y = da.arange(rows, dtype=np.int32, chunks=1 << 12)  # chunked otherwise: dask aligns them
    tracemalloc.start()
    try:
        result = ops.bitcast(ops.bitshift(ops.bitwise_and(x, y), 3, "LEFT"), "FLOAT")
        with pytest.raises(fastbits.TypeConstraintError):
            ops.bitwise_and(x, y.astype(np.int64))  # a build-time error on the same graph
        built = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.nbytes == 64 << 30 and result.dtype == np.float32
    assert built < 100 << 20, built
    assert counter.blocks == 0  # nothing computed
    corner = result.blocks[0, 0].compute(scheduler="threads")
    assert counter.blocks == 1  # the one source block it needs
    source = x.blocks[0, 0].compute(scheduler="threads")[:, : corner.shape[1]]
    expected = ops.bitcast(ops.bitshift(ops.bitwise_and(source, np.arange(corner.shape[1], dtype=np.int32)), 3, "LEFT"),
                           "FLOAT")
    assert_same_bits(corner, expected)


@pytest.mark.parametrize("task_threads", [1, 2])
def test_a_call_inside_a_task_uses_task_threads(ops, task_threads):
    """The thread rule: a task's fastbits call runs on at most ``task_threads`` threads (the
    setting when the graph was built); the cap is lifted after the task."""
    x = np.ones((256, 256), np.int32)  # 256 KiB: 64 grains of 4 KiB
    runtime = ops.runtime
    threaded = runtime.runtime_info()["threads_available"]
    with fastbits.config_context(num_threads=2, grain_cached=4096, grain_streamed=4096, task_threads=task_threads):
        result = ops.bitwise_and(lazy(x, x.shape), lazy(x, x.shape))
    with fastbits.config_context(num_threads=2, grain_cached=4096, grain_streamed=4096):
        # the synchronous scheduler runs the task on this thread: its last call is the task's
        (got,) = dask.compute(result, scheduler="synchronous")
        assert runtime.runtime_info()["last_call_threads"] == (task_threads if threaded else 1)
        ops.bitwise_and(x, x)  # outside a task: the grain rule alone
        assert runtime.runtime_info()["last_call_threads"] == (2 if threaded else 1)
    assert_same_bits(got, x)


def test_xarray_apply_ufunc_parallelized(ops):
    xr = pytest.importorskip("xarray", reason="xarray is not installed")
    values = random_ints((6, 8), np.uint16, 7)
    array = xr.DataArray(lazy(values, (4, 3)), dims=("time", "channel"))
    mask = xr.DataArray(random_ints((8,), np.uint16, 8), dims=("channel",))
    result = xr.apply_ufunc(ops.bitwise_and, array, mask, dask="parallelized", output_dtypes=[np.uint16])
    assert isinstance(result.data, da.Array)
    assert_same_bits(result.data.compute(scheduler="threads"), values & mask.values)
