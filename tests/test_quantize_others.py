"""docs/quantize.md's and the README's rows of what others do with QuantizeLinear and
DequantizeLinear, each row a test: onnx's reference evaluator and onnxruntime on one-node
models, beside fastbits (both paths).  A row that starts to agree with the spec in a later
release skips, so the docs can be brought up to date."""

from __future__ import annotations

import platform
import warnings

import numpy as np
import pytest

from support import import_required

onnx = import_required("onnx")

from onnx import helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

# warnings.catch_warnings (around onnx's evaluator) is process-wide: pytest-run-parallel runs
# these on one thread.
pytestmark = pytest.mark.thread_unsafe


def _model(op: str, x: np.ndarray, scale: np.ndarray, zero: np.ndarray, y_type: int, opset: int = 21):
    """A one-node model of ``op``: x a graph input, the scale and zero point initializers."""
    node = helper.make_node(op, ["x", "s", "z"], ["y"])
    x_type = helper.np_dtype_to_tensor_dtype(x.dtype)
    graph = helper.make_graph([node], "q", [helper.make_tensor_value_info("x", x_type, [None])],
                              [helper.make_tensor_value_info("y", y_type, [None])],
                              [numpy_helper.from_array(scale, "s"), numpy_helper.from_array(zero, "z")])
    opsets = [helper.make_opsetid("", opset)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets))


def reference(op, x, scale, zero, y_type):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's warnings of invalid casts
        return ReferenceEvaluator(_model(op, x, scale, zero, y_type)).run(None, {"x": x})[0]


def onnxruntime(op, x, scale, zero, y_type):
    ort = pytest.importorskip("onnxruntime")
    model = _model(op, x, scale, zero, y_type)
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        return session.run(None, {"x": x})[0]
    except Exception as exc:  # a release without the kernel, or one that cannot return the type
        pytest.skip(f"onnxruntime {ort.__version__} cannot run this row: {str(exc).splitlines()[0][:200]}")


def differs(theirs, spec) -> None:
    """A row as the docs record it; a skip once the implementation follows the spec."""
    if list(theirs) == list(spec):
        pytest.skip("this implementation now follows the spec here: update docs/quantize.md and the README")


def test_dequantize_rounds_once(ops):
    """int16 30478 times float16 1.4462890625 is 44079.998046875: float16's nearest is 44064;
    a float32 product first rounds to 44080, the tie between 44064 and 44096, then to even."""
    x, scale, zero = np.array([30478], np.int16), np.array(1.4462890625, np.float16), np.array(0, np.int16)
    assert ops.dequantize_linear(x, scale, zero).astype(np.float64).tolist() == [44064.0]
    got = reference("DequantizeLinear", x, scale, zero, onnx.TensorProto.FLOAT16).astype(np.float64).tolist()
    differs(got, [44064.0])
    assert got == [44096.0]
    got = onnxruntime("DequantizeLinear", x, scale, zero, onnx.TensorProto.FLOAT16).astype(np.float64).tolist()
    differs(got, [44064.0])
    assert got == [44096.0]


def test_nan_and_inf_into_int8(ops):
    """The text saturates; NaN counts as 0 (fastbits' decision, docs/quantize.md)."""
    x = np.array([np.nan, np.inf], np.float32)
    scale, zero = np.array(1.0, np.float32), np.array(3, np.int8)
    assert ops.quantize_linear(x, scale, zero).tolist() == [3, 127]
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the others' values here are x86-64's conversions of NaN and inf")
    got = reference("QuantizeLinear", x, scale, zero, onnx.TensorProto.INT8).tolist()
    differs(got, [3, 127])
    assert got == [-128, -128]
    got = onnxruntime("QuantizeLinear", x, scale, zero, onnx.TensorProto.INT8).tolist()
    differs(got, [3, 127])
    assert got == [-128, 127]


def test_float8_zero_point(ops):
    """The formula adds the zero point for the float 8 types too; both others drop it."""
    import ml_dtypes

    x = np.array([0.0], np.float32)
    scale, zero = np.array(1.0, np.float32), np.array(2.0, ml_dtypes.float8_e4m3fn)
    assert ops.quantize_linear(x, scale, zero).astype(np.float64).tolist() == [2.0]
    got = reference("QuantizeLinear", x, scale, zero, onnx.TensorProto.FLOAT8E4M3FN).astype(np.float64).tolist()
    differs(got, [2.0])
    assert got == [0.0]
    got = onnxruntime("QuantizeLinear", x, scale, zero, onnx.TensorProto.FLOAT8E4M3FN)
    got = got.view(ml_dtypes.float8_e4m3fn).astype(np.float64).tolist()  # an older ORT gives the bits
    differs(got, [2.0])
    assert got == [0.0]
