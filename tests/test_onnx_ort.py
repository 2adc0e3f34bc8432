"""Differential tests against onnxruntime, bit for bit, on each path (``ops``).

BitwiseAnd, Or, Xor and Not over generated shapes, broadcasts, dtypes and
strides; BitShift in both directions, amounts out of range included, over the
types onnxruntime implements (probed at collection: 1.32.0 has BitShift-11 for
the four unsigned types and BitShift-28 for all eight); BitCast over every pair
of types that onnxruntime implements, probed at collection (onnxruntime 1.32.0
implements 12 types).  Tests named ``test_onnxruntime_*`` document where
onnxruntime is wrong; they skip, rather than fail, once a release fixes it.
Skipped as a whole when onnxruntime is not installed.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import hypothesis.extra.numpy as hnp  # noqa: E402
import onnx.helper as oh  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import fastbits  # noqa: E402
from fastbits import spec  # noqa: E402
from fastbits.spec import DataType  # noqa: E402

from support import (  # noqa: E402
    INT_DTYPES,
    SAME_WIDTH_PAIRS,
    T1_TYPES,
    assert_same_bits,
    bits,
    random_bits,
    random_tensor,
    reference,
    run_op,
)

ORT = f"onnxruntime {ort.__version__}"


def _session(nodes, inputs, outputs, opset, options=None):
    graph = oh.make_graph(nodes, "g", inputs, outputs)
    opsets = [oh.make_opsetid("", opset)]
    # The lowest IR version for the opset: an older onnxruntime (the last one for Python
    # 3.10, say) refuses the newest IR version that onnx writes by default.
    model = oh.make_model(graph, opset_imports=opsets, ir_version=oh.find_min_ir_version_for(opsets))
    # One thread each way: onnxruntime's default team spins between runs, taking a core from
    # whatever else runs (the other threads of a parallel run, another suite); the outputs do
    # not depend on it.
    options = options or ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


# --------------------------------------------------------------------------
# BitwiseAnd


@functools.cache
def _ort_op(op, dtype, opset=18, direction=None):
    """A session of one node ``op`` (BitwiseAnd, Or, Xor, Not, BitShift) on ``dtype``."""
    code = int(spec.datatype_of(dtype))
    names = ["a"] if op == "BitwiseNot" else ["a", "b"]
    attributes = {} if direction is None else {"direction": direction}
    return _session(
        [oh.make_node(op, names, ["c"], **attributes)],
        [oh.make_tensor_value_info(name, code, None) for name in names],
        [oh.make_tensor_value_info("c", code, None)],
        opset,
    )


def _ort_loads_opset(opset):
    """This onnxruntime loads a model of ``opset`` (of the IR version that goes with it)."""
    try:
        _ort_op("BitShift", np.dtype(np.uint8), opset, "LEFT")
    except Exception as exc:  # noqa: BLE001
        return "IR version" not in str(exc) and "opset" not in str(exc).lower()
    return True


def _ort_and(dtype):
    return _ort_op("BitwiseAnd", dtype)


@st.composite
def _int_operands(draw, count=2, dtypes=INT_DTYPES, shift=False):
    """``count`` operands of one dtype of ``dtypes``, broadcastable; ``shift``: the second
    holds shift amounts, mostly in range, the rest at the edges (W, W+1, -1, min, max...)."""
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=count, min_dims=0, max_dims=4, max_side=5))
    info = np.iinfo(dtype)
    width = dtype.itemsize * 8
    amounts = st.integers(0, width - 1) | st.sampled_from(
        [a for a in (width - 1, width, width + 1, 2 * width, -1, -width, info.min, info.max) if info.min <= a <= info.max]
    )
    operands = []
    for i, shape in enumerate(shapes.input_shapes):
        elements = amounts if shift and i == 1 else None
        array = draw(hnp.arrays(dtype, shape, elements=elements))
        if array.ndim and draw(st.booleans()):  # a reversed, non-contiguous view
            array = array[..., ::-1]
        operands.append(array)
    return operands


ONNX_NAMES = {"bitwise_and": "BitwiseAnd", "bitwise_or": "BitwiseOr", "bitwise_xor": "BitwiseXor", "bitwise_not": "BitwiseNot"}


@pytest.mark.parametrize("op", list(ONNX_NAMES))
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_bitwise_ops_match_onnxruntime(ops, op, data):
    operands = data.draw(_int_operands(count=1 if op == "bitwise_not" else 2))
    (expected,) = _ort_op(ONNX_NAMES[op], operands[0].dtype).run(None, dict(zip("ab", operands)))
    assert_same_bits(run_op(ops, op, *operands), expected, operands[0].dtype)


# --------------------------------------------------------------------------
# BitShift


def _ort_bitshift_types(opset):
    """The integer types onnxruntime loads a BitShift of ``opset`` for."""
    found = []
    for dtype in INT_DTYPES:
        try:
            _ort_op("BitShift", np.dtype(dtype), opset, "LEFT")
        except Exception:  # noqa: BLE001  (a type the opset's T lacks, or no kernel)
            continue
        found.append(dtype)
    return found


ORT_BITSHIFT_11 = _ort_bitshift_types(11)
ORT_BITSHIFT_28 = _ort_bitshift_types(28) if onnx.defs.onnx_opset_version() >= 28 else []


def _ort_shifts_by_width_wrongly():
    """True when this onnxruntime shifts an unsigned value by its bit width to the value
    itself (onnxruntime #28262: x86 masks the amount), where BitShift says 0."""
    for dtype in ORT_BITSHIFT_11:
        width = np.dtype(dtype).itemsize * 8
        x, y = np.array([1], dtype), np.array([width], dtype)
        (got,) = _ort_op("BitShift", x.dtype, 11, "LEFT").run(None, {"a": x, "b": y})
        if got.tolist() != [0]:
            return True
    return False


#: onnxruntime 1.23.2 (the last for Python 3.10) has #28262; 1.32.0 does not.
ORT_SHIFT_BUG = _ort_shifts_by_width_wrongly()


def test_onnxruntime_bitshift_types_observed():
    """onnxruntime 1.32.0: BitShift-11 for uint8, uint16, uint32 and uint64 (all of its T),
    BitShift-28 for all eight integer types; skips when the sets change."""
    unsigned = [np.uint8, np.uint16, np.uint32, np.uint64]
    if ORT_BITSHIFT_11 != unsigned or ORT_BITSHIFT_28 != INT_DTYPES:
        pytest.skip(f"{ORT}: BitShift-11 {ORT_BITSHIFT_11}, BitShift-28 {ORT_BITSHIFT_28}")
    assert len(ORT_BITSHIFT_28) == 8


@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
@pytest.mark.parametrize("opset", [11, 28])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_bitshift_matches_onnxruntime(ops, opset, direction, data):
    types = ORT_BITSHIFT_11 if opset == 11 else ORT_BITSHIFT_28
    if not types:
        pytest.skip(f"{ORT} has no BitShift-{opset}")
    x, y = data.draw(_int_operands(dtypes=types, shift=True))
    (expected,) = _ort_op("BitShift", x.dtype, opset, direction).run(None, {"a": x, "b": y})
    got = ops.bitshift(x, y, direction)
    assert_same_bits(got, reference(f"bitshift_{direction.lower()}", x, y), x.dtype)
    if ORT_SHIFT_BUG:
        # where onnxruntime has #28262, it agrees with fastbits on the amounts in range
        in_range = np.broadcast_to((y >= 0) & (y < x.dtype.itemsize * 8), got.shape)
        assert bits(got[in_range]) == bits(expected[in_range])
    else:
        assert_same_bits(got, expected, x.dtype)


# onnxruntime #28262: uint64 shifted right by 64 returned its input (x86 masks the amount to
# 6 bits), with graph optimizations off; BitShift-28 says 0.
ISSUE_28262 = (np.array([[1000, 255, 1, 42]], np.uint64), np.array([[64, 64, 64, 64]], np.uint64))


def test_bitshift_uint64_by_64(ops):
    for direction in ("LEFT", "RIGHT"):
        assert ops.bitshift(*ISSUE_28262, direction).tolist() == [[0, 0, 0, 0]]


@pytest.mark.parametrize("direction", ["RIGHT", "LEFT"])
def test_onnxruntime_uint64_shift_by_64(direction):
    """onnxruntime #28262; onnxruntime 1.32.0 gives 0 (fixed), so this skips there."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = _session(
        [oh.make_node("BitShift", ["x", "n"], ["y"], direction=direction)],
        [oh.make_tensor_value_info("x", onnx.TensorProto.UINT64, [1, 4]),
         oh.make_tensor_value_info("n", onnx.TensorProto.UINT64, [1, 4])],
        [oh.make_tensor_value_info("y", onnx.TensorProto.UINT64, [1, 4])],
        11,
        options,
    )
    (got,) = session.run(None, dict(zip(("x", "n"), ISSUE_28262)))
    if got.tolist() == [[0, 0, 0, 0]]:
        pytest.skip(f"{ORT} shifts uint64 by 64 to 0: onnxruntime #28262 is fixed there")
    assert got.tolist() == ISSUE_28262[0].tolist()


# --------------------------------------------------------------------------
# BitCast


def _bitcast_session(src, dst, wrap_in=None, wrap_out=None):
    """x -> BitCast(dst) -> y, with a BitCast from/to a numpy type around it if asked."""
    nodes, x, y = [], "x", "y"
    if wrap_in is not None:
        nodes.append(oh.make_node("BitCast", ["x"], ["x1"], to=int(src)))
        x = "x1"
    if wrap_out is not None:
        y = "y1"
    nodes.append(oh.make_node("BitCast", [x], [y], to=int(dst)))
    if wrap_out is not None:
        nodes.append(oh.make_node("BitCast", ["y1"], ["y"], to=int(wrap_out)))
    return _session(
        nodes,
        [oh.make_tensor_value_info("x", int(wrap_in or src), None)],
        [oh.make_tensor_value_info("y", int(wrap_out or dst), None)],
        26,
    )


def _ort_implements(src, dst):
    try:
        _bitcast_session(src, dst)
    except Exception:  # noqa: BLE001  (NOT_IMPLEMENTED, or a type it does not register)
        return False
    return True


ORT_PAIRS = [pair for pair in SAME_WIDTH_PAIRS if _ort_implements(*pair)]
ORT_TYPES = sorted({src for src, _ in ORT_PAIRS})
needs_ort_bitcast = pytest.mark.skipif(not ORT_PAIRS, reason=f"{ORT} has no BitCast-26")


def _numpy_feedable(code):
    """onnxruntime's Python API takes and returns numpy's own dtypes only, not ml_dtypes'."""
    return spec.numpy_dtype(code).kind != "V"


def _carrier(code):
    """A numpy-feedable type of the same width that onnxruntime bitcasts to and from ``code``."""
    if _numpy_feedable(code):
        return None
    for other in ORT_TYPES:
        if (
            _numpy_feedable(other)
            and spec.bit_width(other) == spec.bit_width(code)
            and (other, code) in ORT_PAIRS
            and (code, other) in ORT_PAIRS
        ):
            return other
    pytest.skip(f"{ORT} implements BitCast for {code.name} but no numpy type carries it")


def test_onnxruntime_pairs_probed():
    """The probe found pairs, so the comparisons below ran (1.32.0 has BitCast-26)."""
    version = tuple(int(part) for part in ort.__version__.split(".")[:2])
    if version < (1, 32) and not ORT_PAIRS:
        pytest.skip(f"{ORT} has no BitCast-26")
    assert len(ORT_PAIRS) >= 38
    assert (DataType.FLOAT, DataType.INT32) in ORT_PAIRS


SHAPES = [(), (0,), (1,), (7,), (3, 4), (2, 3, 5)]


@pytest.mark.parametrize(("src", "dst"), ORT_PAIRS, ids=lambda t: t.name)
def test_bitcast_matches_onnxruntime(ops, src, dst):
    wrap_in, wrap_out = _carrier(src), _carrier(dst)
    session = _bitcast_session(src, dst, wrap_in, wrap_out)
    feed_dtype = spec.numpy_dtype(wrap_in or src)
    rng = np.random.default_rng([int(src), int(dst)])
    for shape in SHAPES:
        x = random_bits(shape, feed_dtype, rng)
        if x.ndim:
            x = x[..., ::-1]  # non-contiguous
        (expected,) = session.run(None, {"x": x})
        source = x if wrap_in is None else ops.bitcast(x, src)
        got = ops.bitcast(source, dst)
        assert_same_bits(got, expected.view(spec.numpy_dtype(dst)), spec.numpy_dtype(dst))


# --------------------------------------------------------------------------
# where onnxruntime is wrong (or missing) and fastbits is right
# (observed with onnxruntime 1.32.0)

NOT_IN_ORT = sorted(spec.BITCAST_T1 - set(ORT_TYPES))


@pytest.mark.parametrize("code", T1_TYPES, ids=lambda t: t.name)
def test_bitcast_every_type(ops, code):
    """fastbits bitcasts every T1 type to every type of its width, bits unchanged."""
    x = random_tensor(code, (6,), int(code))
    for dst in spec.BITCAST_T2:
        if spec.bit_width(dst) == spec.bit_width(code):
            assert_same_bits(ops.bitcast(x, dst, copy=True), x, spec.numpy_dtype(dst))


@needs_ort_bitcast
@pytest.mark.parametrize("code", NOT_IN_ORT, ids=lambda t: t.name)
def test_onnxruntime_lacks_bitcast_for(code):
    """onnxruntime registers BitCast for 12 types: no bool, float8, sub-byte or complex."""
    if _ort_implements(code, code):
        pytest.skip(f"{ORT} implements BitCast for {code.name} now")
    with pytest.raises(Exception, match="NOT_IMPLEMENTED|not currently registered"):
        _bitcast_session(code, code)


@needs_ort_bitcast
def test_onnxruntime_types_observed():
    """Documents the 12 types onnxruntime 1.32.0 implements; skips when the set changes."""
    observed = {
        DataType.FLOAT, DataType.DOUBLE, DataType.FLOAT16, DataType.BFLOAT16,
        DataType.INT8, DataType.INT16, DataType.INT32, DataType.INT64,
        DataType.UINT8, DataType.UINT16, DataType.UINT32, DataType.UINT64,
    }  # fmt: skip
    if set(ORT_TYPES) != observed:
        pytest.skip(f"{ORT} implements {sorted(t.name for t in ORT_TYPES)}")
    assert len(ORT_TYPES) == 12


BIG_ENDIAN = np.array([1.0, -2.5, 3.75], ">f8")
VALUE_BITS = BIG_ENDIAN.astype("=f8").view(np.int64)


def test_bitcast_big_endian_read_by_value(ops):
    got = ops.bitcast(BIG_ENDIAN, DataType.INT64)
    assert got.dtype == np.dtype(np.int64) and got.tolist() == VALUE_BITS.tolist()


@needs_ort_bitcast
def test_onnxruntime_reads_big_endian_bytes():
    (got,) = _bitcast_session(DataType.DOUBLE, DataType.INT64).run(None, {"x": BIG_ENDIAN})
    if got.tolist() == VALUE_BITS.tolist():
        pytest.skip(f"{ORT} reads big-endian input right now")
    assert got.tolist() == VALUE_BITS.byteswap().tolist()


MIXED = (np.array([1, 256, 0x1234], ">i2"), np.array([0x0101, 0x0101, -1], "<i2"))


def test_bitwise_and_mixed_byte_order(ops):
    got = ops.bitwise_and(*MIXED)
    assert got.dtype == np.dtype(np.int16) and got.tolist() == [1, 256, 0x1234]


def test_onnxruntime_bitwise_and_reads_big_endian_bytes():
    (got,) = _ort_and(np.dtype(np.int16)).run(None, dict(zip("ab", MIXED)))
    if got.tolist() == [1, 256, 0x1234]:
        pytest.skip(f"{ORT} reads big-endian input right now")
    assert got.tolist() == [256, 1, 0x3412]


# (op, onnx name, opset, direction, inputs: '>i2'/'<i2' int16, what onnxruntime 1.32.0 gives)
BIG_ENDIAN_CASES = [
    ("bitwise_or", "BitwiseOr", 18, None, (np.array([1, 256], ">i2"), np.array([0x0100, 0], "<i2")), [256, 1]),
    ("bitwise_xor", "BitwiseXor", 18, None, (np.array([1, 256], ">i2"), np.array([0x0100, 0], "<i2")), [0, 1]),
    ("bitwise_not", "BitwiseNot", 18, None, (np.array([1, 256], ">i2"),), [-257, -2]),
    # x read as 1 and 254, the amounts as 256: out of range, so 0 (the values give [128, -256])
    ("bitshift_right", "BitShift", 28, "RIGHT", (np.array([256, -512], ">i2"), np.array([1, 1], ">i2")), [0, 0]),
]


@pytest.mark.parametrize("case", BIG_ENDIAN_CASES, ids=[c[0] for c in BIG_ENDIAN_CASES])
def test_big_endian_read_by_value(ops, case):
    op, _, _, _, operands, _ = case
    native = [x.astype("=i2") for x in operands]
    got = run_op(ops, op, *operands)
    assert got.dtype == np.dtype("=i2") and got.tolist() == reference(op, *native).tolist()


@pytest.mark.parametrize("case", BIG_ENDIAN_CASES, ids=[c[0] for c in BIG_ENDIAN_CASES])
def test_onnxruntime_reads_big_endian_bytes_of_every_operator(case):
    op, name, opset, direction, operands, observed = case
    if opset > onnx.defs.onnx_opset_version():
        pytest.skip(f"onnx {onnx.__version__} has no {name}-{opset}")
    if not _ort_loads_opset(opset):
        pytest.skip(f"{ORT} loads no opset-{opset} model")
    (got,) = _ort_op(name, np.dtype(np.int16), opset, direction).run(None, dict(zip("ab", operands)))
    if got.tolist() == reference(op, *[x.astype("=i2") for x in operands]).tolist():
        pytest.skip(f"{ORT} reads big-endian input right now")
    assert got.tolist() == observed


@needs_ort_bitcast
def test_fastbits_refuses_what_onnxruntime_refuses(ops):
    """Where onnxruntime is right, fastbits agrees: the same inputs are refused by both."""
    with pytest.raises(fastbits.TypeConstraintError):
        ops.bitwise_and(np.array([True]), np.array([True]))
    with pytest.raises(Exception, match=r"tensor\(bool\)"):
        _session(
            [oh.make_node("BitwiseAnd", ["a", "b"], ["c"])],
            [oh.make_tensor_value_info(n, onnx.TensorProto.BOOL, [1]) for n in "ab"],
            [oh.make_tensor_value_info("c", onnx.TensorProto.BOOL, [1])],
            18,
        )
    with pytest.raises(fastbits.BitWidthError):
        ops.bitcast(np.zeros(2, spec.numpy_dtype(DataType.INT4)), DataType.UINT8)
    with pytest.raises(Exception, match="same bit-width"):
        _bitcast_session(DataType.INT4, DataType.UINT8)
    with pytest.raises(fastbits.UnknownDataTypeError):
        ops.bitcast(np.zeros(2, np.float32), 99)
    with pytest.raises(Exception, match="99"):
        _bitcast_session(DataType.FLOAT, 99)


def test_fastbits_refuses_what_onnxruntime_refuses_in_the_family(ops):
    """bool into Or, Xor and Not, BitShift of two types, a signed BitShift-11, a bad direction,
    the operators in opsets before their first (fastbits.onnx_ops: tests/test_onnx_ops.py)."""
    for op in ("bitwise_or", "bitwise_xor", "bitwise_not"):
        with pytest.raises(fastbits.TypeConstraintError):
            run_op(ops, op, *[np.array([True])] * (1 if op == "bitwise_not" else 2))
        with pytest.raises(Exception, match=r"tensor\(bool\)"):
            _ort_op(ONNX_NAMES[op], np.dtype(bool))
        with pytest.raises(Exception, match=f"No Op registered for {ONNX_NAMES[op]}"):
            _ort_op(ONNX_NAMES[op], np.dtype(np.int32), 17)
    with pytest.raises(Exception, match="No Op registered for BitShift"):
        _ort_op("BitShift", np.dtype(np.uint8), 10, "LEFT")
    with pytest.raises(fastbits.TypeConstraintError):
        ops.bitshift(np.zeros(2, np.uint8), np.zeros(2, np.uint16), "LEFT")
    with pytest.raises(Exception, match="Unexpected input data type"):
        _ort_op("BitShift", np.dtype(np.uint8), 18, "LEFT").run(
            None, {"a": np.zeros(2, np.uint8), "b": np.zeros(2, np.uint16)}
        )
    for opset in (11, 20, 27):
        with pytest.raises(fastbits.TypeConstraintError):
            spec.check_bitshift_version(opset, DataType.INT8)
        if not _ort_loads_opset(opset):
            continue  # an onnxruntime older than the opset (1.23.2 stops at IR 11)
        with pytest.raises(Exception, match=r"tensor\(int8\)"):
            _ort_op("BitShift", np.dtype(np.int8), opset, "LEFT")
    with pytest.raises(fastbits.ArgumentValueError):
        ops.bitshift(np.zeros(2, np.uint8), np.zeros(2, np.uint8), "UP")
    with pytest.raises(Exception, match="Invalid direction value of 'UP'"):
        _ort_op("BitShift", np.dtype(np.uint8), 18, "UP")


def test_onnxruntime_refuses_lower_case_direction(ops):
    """fastbits takes ``direction`` in any case; onnxruntime only "LEFT" and "RIGHT"."""
    x, y = np.array([16, 1], np.uint8), np.array([2, 8], np.uint8)
    assert ops.bitshift(x, y, "left").tolist() == [64, 0]
    try:
        _ort_op("BitShift", np.dtype(np.uint8), 18, "left")
    except Exception as exc:  # noqa: BLE001
        assert "Invalid direction value of 'left'" in str(exc)
    else:
        pytest.skip(f"{ORT} takes a lower-case direction now")
