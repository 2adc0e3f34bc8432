"""Differential tests against onnxruntime, bit for bit, on each path (``ops``).

BitwiseAnd over generated shapes, broadcasts, dtypes and strides; BitCast
over every pair of types that onnxruntime implements, probed at collection
(onnxruntime 1.32.0 implements 12 types).  Tests named ``test_onnxruntime_*``
document where onnxruntime is wrong; they skip, rather than fail, once a
release fixes it.  Skipped as a whole when onnxruntime is not installed.
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

from support import INT_DTYPES, SAME_WIDTH_PAIRS, T1_TYPES, assert_same_bits, random_bits, random_tensor  # noqa: E402

ORT = f"onnxruntime {ort.__version__}"


def _session(nodes, inputs, outputs, opset):
    graph = oh.make_graph(nodes, "g", inputs, outputs)
    opsets = [oh.make_opsetid("", opset)]
    # The lowest IR version for the opset: an older onnxruntime (the last one for Python
    # 3.10, say) refuses the newest IR version that onnx writes by default.
    model = oh.make_model(graph, opset_imports=opsets, ir_version=oh.find_min_ir_version_for(opsets))
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


# --------------------------------------------------------------------------
# BitwiseAnd


@functools.cache
def _ort_and(dtype):
    code = int(spec.datatype_of(dtype))
    return _session(
        [oh.make_node("BitwiseAnd", ["a", "b"], ["c"])],
        [oh.make_tensor_value_info("a", code, None), oh.make_tensor_value_info("b", code, None)],
        [oh.make_tensor_value_info("c", code, None)],
        18,
    )


@st.composite
def _and_operands(draw):
    dtype = draw(st.sampled_from(INT_DTYPES))
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=5))
    operands = []
    for shape in shapes.input_shapes:
        array = draw(hnp.arrays(dtype, shape))
        if array.ndim and draw(st.booleans()):  # a reversed, non-contiguous view
            array = array[..., ::-1]
        operands.append(array)
    return operands


@settings(max_examples=80, deadline=None)
@given(operands=_and_operands())
def test_bitwise_and_matches_onnxruntime(ops, operands):
    a, b = operands
    (expected,) = _ort_and(a.dtype).run(None, {"a": a, "b": b})
    assert_same_bits(ops.bitwise_and(a, b), expected, a.dtype)


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
