"""fastbits inside onnx: the ReferenceEvaluator operators, the backend, onnx's own node tests.

Every test here runs once per path: the autouse fixture ``kernels`` points
the facade (``fastbits._ops``), which ``fastbits.onnx_ops`` reads at each
call, at the path's module.  Tests named ``test_reference_evaluator_*``
document where onnx's own evaluator is wrong; they skip, rather than fail,
once an onnx release fixes it.
"""

from __future__ import annotations

import subprocess
import sys
import unittest

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

import ml_dtypes  # noqa: E402
import onnx.backend.test  # noqa: E402
import onnx.checker  # noqa: E402
import onnx.helper as oh  # noqa: E402
import onnx.numpy_helper  # noqa: E402
import onnx.shape_inference  # noqa: E402
from onnx import TensorProto as TP  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import fastbits  # noqa: E402
import fastbits._ops  # noqa: E402
from fastbits import onnx_backend, onnx_ops, spec  # noqa: E402

from support import bits  # noqa: E402

# --------------------------------------------------------------------------
# both paths


class _Counting:
    """A kernel that counts its calls, so a test can prove fastbits ran."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.kernel(*args, **kwargs)


@pytest.fixture(autouse=True)
def kernels(ops, monkeypatch):
    """Run the test on the path ``ops``; the counters say how often each kernel ran."""
    counters = {"bitwise_and": _Counting(ops.bitwise_and), "bitcast": _Counting(ops.bitcast)}
    for name, counter in counters.items():
        monkeypatch.setattr(fastbits._ops, name, counter)
    return counters


# --------------------------------------------------------------------------
# helpers


def _model(nodes, inputs, outputs, opset, initializers=()):
    graph = oh.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset)])


def _bitcast_model(src, to, opset=26, shape=None):
    out_type = to if to in TP.DataType.values() else TP.UNDEFINED
    return _model(
        [oh.make_node("BitCast", ["x"], ["y"], to=to)],
        [oh.make_tensor_value_info("x", src, shape)],
        [oh.make_tensor_value_info("y", out_type, shape)],
        opset,
    )


def _and_model(elem_type, opset=18):
    return _model(
        [oh.make_node("BitwiseAnd", ["a", "b"], ["c"])],
        [oh.make_tensor_value_info("a", elem_type, ["n"]), oh.make_tensor_value_info("b", elem_type, ["n"])],
        [oh.make_tensor_value_info("c", elem_type, ["n"])],
        opset,
    )


def _fastbits(model):
    # a copy: onnx 1.21's evaluator appends its optimized operators to new_ops
    return ReferenceEvaluator(model, new_ops=list(onnx_ops.OPS))


# --------------------------------------------------------------------------
# onnx's own node tests, through onnx's harness

OFFICIAL = {
    "test_bitcast_2d_float32_to_int32",
    "test_bitcast_bool_to_uint8",
    "test_bitcast_float32_to_int32",
    "test_bitcast_float64_to_int64",
    "test_bitcast_int32_to_float32",
    "test_bitcast_int64_to_float64",
    "test_bitcast_int8_to_uint8",
    "test_bitcast_scalar_float32_to_int32",
    "test_bitcast_uint16_to_int16",
    "test_bitcast_uint32_to_int32",
    "test_bitwise_and_i16_3d",
    "test_bitwise_and_i32_2d",
    "test_bitwise_and_ui64_bcast_3v1d",
    "test_bitwise_and_ui8_bcast_4v3d",
}


def _official_cases():
    """{test name: unittest.TestCase class} of the node tests onnx's harness would run.

    The harness keeps every test and marks the ones to leave out (no include
    pattern matched, a device the backend does not support) as skipped.
    """
    backend_test = onnx.backend.test.BackendTest(onnx_backend, __name__)
    backend_test.include("test_bitcast").include("test_bitwise_and")
    cases = {}
    for case_class in backend_test.test_cases.values():
        for name in unittest.TestLoader().getTestCaseNames(case_class):
            if not getattr(getattr(case_class, name), "__unittest_skip__", False):
                cases[name] = case_class
    return cases


# Built at collection (~5 s: onnx generates every node test case).  The test
# classes stay out of the module namespace, so pytest does not collect them
# unswitched; test_official_node_test runs each under ``kernels``.
OFFICIAL_CASES = _official_cases()


def test_official_node_tests_collected():
    assert all(name.endswith("_cpu") for name in OFFICIAL_CASES)  # CUDA ones are skipped
    assert {name.removesuffix("_cpu") for name in OFFICIAL_CASES} >= OFFICIAL
    assert len(OFFICIAL_CASES) >= 14


@pytest.mark.parametrize("name", sorted(OFFICIAL_CASES))
def test_official_node_test(name, kernels):
    result = unittest.TestResult()
    OFFICIAL_CASES[name](name).run(result)
    problems = [text for _, text in result.errors + result.failures]
    assert not problems, "\n".join(problems)
    assert not result.skipped, result.skipped
    assert result.testsRun == 1
    op = "bitcast" if "bitcast" in name else "bitwise_and"
    assert kernels[op].calls >= 1, "the node test did not run fastbits' kernel"


# --------------------------------------------------------------------------
# the operator classes


def test_ops_list_and_versions():
    assert onnx_ops.OPS == [onnx_ops.BitwiseAnd, onnx_ops.BitCast]
    for cls, op in ((onnx_ops.BitwiseAnd, spec.BITWISE_AND), (onnx_ops.BitCast, spec.BITCAST)):
        assert cls.op_domain == ""
        assert cls.__name__ == op  # the evaluator matches new_ops by class name
        assert cls.op_schema.name == op
        assert cls.op_schema.since_version == spec.SINCE_VERSION[op]


def test_evaluator_runs_fastbits_kernels(kernels):
    model = _model(
        [
            oh.make_node("BitCast", ["x"], ["bits"], to=TP.INT32),
            oh.make_node("BitwiseAnd", ["bits", "mask"], ["masked"]),
            oh.make_node("BitCast", ["masked"], ["y"], to=TP.FLOAT),
        ],
        [oh.make_tensor_value_info("x", TP.FLOAT, [5])],
        [oh.make_tensor_value_info("y", TP.FLOAT, [5])],
        26,
        [onnx.numpy_helper.from_array(np.array(0x7FFFFFFF, np.int32), "mask")],
    )
    x = np.array([-1.5, 2.0, -0.0, -np.inf, 3.25], np.float32)
    (y,) = _fastbits(model).run(None, {"x": x})
    assert y.dtype == np.float32
    assert bits(y) == bits(np.abs(x))
    assert kernels["bitcast"].calls == 2 and kernels["bitwise_and"].calls == 1


def test_other_operators_stay_onnx_own():
    model = _model(
        [oh.make_node("Neg", ["x"], ["n"]), oh.make_node("BitCast", ["n"], ["y"], to=TP.UINT32)],
        [oh.make_tensor_value_info("x", TP.FLOAT, [2])],
        [oh.make_tensor_value_info("y", TP.UINT32, [2])],
        26,
    )
    onnx.checker.check_model(model, full_check=True)
    (y,) = _fastbits(model).run(None, {"x": np.array([1.0, -2.0], np.float32)})
    assert y.tolist() == [0xBF800000, 0x40000000]


def test_bitcast_output_is_a_new_array():
    x = np.array([1.0, 2.0], np.float32)
    (y,) = _fastbits(_bitcast_model(TP.FLOAT, TP.INT32)).run(None, {"x": x})
    assert not np.shares_memory(x, y)


def test_class_eval_shortcut():
    assert onnx_ops.BitCast.eval(np.array([1.0], np.float32), to=TP.INT32).tolist() == [1065353216]
    a, b = np.array([12], np.uint8), np.array([10], np.uint8)
    assert onnx_ops.BitwiseAnd.eval(a, b).tolist() == [8]


def test_errors_are_fastbits_own():
    """OpRun.run wraps TypeErrors in a generic one; the operators hand back fastbits' error."""
    with pytest.raises(fastbits.TypeConstraintError, match="'to' = STRING"):
        _fastbits(_bitcast_model(TP.FLOAT, TP.STRING)).run(None, {"x": np.zeros(2, np.float32)})
    with pytest.raises(fastbits.TypeConstraintError, match="same type T"):
        _fastbits(_and_model(TP.INT32)).run(
            None, {"a": np.zeros(2, np.int32), "b": np.zeros(2, np.int64)}
        )


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (_bitcast_model(TP.FLOAT, TP.INT32, opset=25), "BitCast does not exist before opset 26"),
        (_and_model(TP.INT32, opset=17), "BitwiseAnd does not exist before opset 18"),
    ],
    ids=["BitCast-25", "BitwiseAnd-17"],
)
def test_operator_missing_from_the_opset_is_refused(model, message):
    with pytest.raises(RuntimeError, match=message):
        _fastbits(model)


def test_reference_evaluator_runs_operators_missing_from_the_opset():
    """Documents onnx: its evaluator runs BitCast in an opset-25 model (the checker refuses it)."""
    model = _bitcast_model(TP.FLOAT, TP.INT32, opset=25, shape=[1])
    with pytest.raises(onnx.checker.ValidationError, match="No Op registered for BitCast"):
        onnx.checker.check_model(model)
    try:
        (y,) = ReferenceEvaluator(model).run(None, {"x": np.array([1.0], np.float32)})
    except Exception:  # noqa: BLE001
        pytest.skip(f"onnx {onnx.__version__} refuses it now")
    assert y.tolist() == [1065353216]


def test_later_operator_version_is_refused(monkeypatch):
    """When onnx knows a BitCast-27, a model at opset 27 is not run as BitCast-26."""
    real_get_schema = onnx.defs.get_schema
    later = real_get_schema("BitwiseAnd", 18)  # any schema whose since_version differs from 26

    def get_schema(op, version, domain=""):
        if op == "BitCast" and version >= 27:
            return later
        return real_get_schema(op, version, domain)

    monkeypatch.setattr(onnx.defs, "get_schema", get_schema)
    with pytest.raises(RuntimeError, match="fastbits implements BitCast-26"):
        _fastbits(_bitcast_model(TP.FLOAT, TP.INT32, opset=27))
    _fastbits(_bitcast_model(TP.FLOAT, TP.INT32, opset=26))


# --------------------------------------------------------------------------
# models: the checker, opsets 18 and 26, TensorProto inputs, sub-byte types


def test_opset18_model(kernels):
    model = _model(
        [oh.make_node("BitwiseAnd", ["a", "b"], ["c"])],
        [oh.make_tensor_value_info("a", TP.UINT16, [3, 4]), oh.make_tensor_value_info("b", TP.UINT16, [4])],
        [oh.make_tensor_value_info("c", TP.UINT16, [3, 4])],
        18,
    )
    onnx.checker.check_model(model, full_check=True)
    rng = np.random.default_rng(18)
    a = rng.integers(0, 2**16, (3, 4), dtype=np.uint16)
    b = rng.integers(0, 2**16, (4,), dtype=np.uint16)
    for outputs in (
        _fastbits(model).run(None, {"a": a, "b": b}),
        onnx_backend.run_model(model, [a, b]),
        onnx_backend.prepare(model).run({"a": a, "b": b}),
    ):
        assert outputs[0].dtype == np.uint16
        assert np.array_equal(outputs[0], a & b)
    assert kernels["bitwise_and"].calls == 3


@pytest.mark.parametrize("opset", [26, onnx.defs.onnx_opset_version()])
def test_opset26_model(opset):
    """Both operators in one model: clear the sign bit of float16 values."""
    model = _model(
        [
            oh.make_node("BitCast", ["x"], ["bits"], to=TP.INT16),
            oh.make_node("BitwiseAnd", ["bits", "mask"], ["masked"]),
            oh.make_node("BitCast", ["masked"], ["y"], to=TP.FLOAT16),
        ],
        [oh.make_tensor_value_info("x", TP.FLOAT16, ["n"])],
        [oh.make_tensor_value_info("y", TP.FLOAT16, ["n"])],
        opset,
        [oh.make_tensor("mask", TP.INT16, [], [0x7FFF])],
    )
    onnx.checker.check_model(model, full_check=True)
    x = np.array([-1.5, 2.0, -0.0, -np.inf, np.nan], np.float16)
    (y,) = onnx_backend.run_model(model, [x])
    assert y.dtype == np.float16 and bits(y) == bits(np.abs(x))


# (source type, its values, target type, the target's values): each case's
# bits worked out by hand from the ONNX type definitions.
SUB_BYTE_AND_OTHER_CASES = [
    (TP.INT4, [-8, -1, 0, 7, -2], TP.UINT4, [8, 15, 0, 7, 14]),
    (TP.UINT4, [8, 15, 0, 7, 1], TP.INT4, [-8, -1, 0, 7, 1]),
    (TP.FLOAT4E2M1, [0.5, -6.0, 1.0, -0.0, 6.0], TP.UINT4, [1, 15, 2, 8, 7]),
    (TP.UINT4, [1, 15, 2, 8, 7], TP.FLOAT4E2M1, [0.5, -6.0, 1.0, -0.0, 6.0]),
    (TP.INT4, [1, -1, 2, -8], TP.FLOAT4E2M1, [0.5, -6.0, 1.0, -0.0]),
    (TP.INT2, [-2, -1, 0, 1], TP.UINT2, [2, 3, 0, 1]),
    (TP.UINT2, [2, 3, 0, 1], TP.INT2, [-2, -1, 0, 1]),
    (TP.FLOAT8E4M3FN, [1.0, -0.0, 448.0], TP.UINT8, [0x38, 0x80, 0x7E]),
    (TP.UINT8, [0x38, 0x80, 0x7E], TP.FLOAT8E4M3FN, [1.0, -0.0, 448.0]),
    (TP.FLOAT8E5M2, [1.0, -2.0], TP.INT8, [0x3C, -64]),
    (TP.FLOAT8E8M0, [1.0, 2.0], TP.UINT8, [127, 128]),
    (TP.BOOL, [True, False], TP.INT8, [1, 0]),
    (TP.BFLOAT16, [1.0, -2.0], TP.UINT16, [0x3F80, 0xC000]),
    (TP.FLOAT16, [1.0, -2.0], TP.INT16, [0x3C00, -16384]),
    (TP.INT32, [-1082130432, 0x3F800000], TP.FLOAT, [-1.0, 1.0]),
    (TP.COMPLEX64, [1 + 2j], TP.INT64, [0x400000003F800000]),
    (TP.COMPLEX128, [1 + 2j], TP.COMPLEX128, [1 + 2j]),
]


def _case_id(case):
    return f"{TP.DataType.Name(case[0])}-{TP.DataType.Name(case[2])}"


@pytest.mark.parametrize("raw", [False, True], ids=["vals", "raw"])
@pytest.mark.parametrize("via", ["input", "initializer"])
@pytest.mark.parametrize("case", SUB_BYTE_AND_OTHER_CASES, ids=_case_id)
def test_tensorproto_bits(case, via, raw, kernels):
    src, values, dst, expected_values = case
    source = onnx.numpy_helper.to_array(oh.make_tensor("x", src, [len(values)], values))
    if raw:  # the packed little-endian bytes onnx stores, built by onnx itself
        tensor = onnx.numpy_helper.from_array(source, "x")
        assert tensor.HasField("raw_data")
    else:
        tensor = oh.make_tensor("x", src, [len(values)], values)
    node = oh.make_node("BitCast", ["x"], ["y"], to=dst)
    output = oh.make_tensor_value_info("y", dst, [len(values)])
    if via == "input":
        inputs = [oh.make_tensor_value_info("x", src, [len(values)])]
        model = _model([node], inputs, [output], 26)
        onnx.checker.check_model(model, full_check=True)
        (y,) = onnx_backend.prepare(model).run([tensor])  # a TensorProto goes through to_array
    else:
        model = _model([node], [], [output], 26, [tensor])
        onnx.checker.check_model(model, full_check=True)
        (y,) = onnx_backend.run_model(model, [])
    assert kernels["bitcast"].calls == 1
    expected = onnx.numpy_helper.to_array(oh.make_tensor("y", dst, [len(values)], expected_values))
    assert y.dtype == expected.dtype == spec.numpy_dtype(dst)
    assert bits(y) == bits(expected)
    # and the tensor ONNX stores: the same packed bytes
    assert onnx.numpy_helper.from_array(y).raw_data == onnx.numpy_helper.from_array(expected).raw_data


# --------------------------------------------------------------------------
# the backend module


def test_backend_devices():
    assert onnx_backend.supports_device("CPU")
    assert onnx_backend.supports_device("CPU:0")
    assert not onnx_backend.supports_device("CUDA")
    assert not onnx_backend.supports_device("TPU")
    assert onnx_backend.is_compatible(_and_model(TP.INT8))
    with pytest.raises(fastbits.ArgumentValueError, match="CPU"):
        onnx_backend.prepare(_and_model(TP.INT8), "CUDA")


def test_backend_inputs_and_outputs():
    rep = onnx_backend.prepare(_and_model(TP.INT8).SerializeToString())
    a, b = np.array([12, -1], np.int8), np.array([10, 7], np.int8)
    by_position = rep.run([a, b])
    by_name = rep.run({"b": b, "a": a})
    as_protos = rep.run([onnx.numpy_helper.from_array(a), onnx.numpy_helper.from_array(b)])
    for outputs in (by_position, by_name, as_protos):
        assert outputs[0].tolist() == [8, 7]
        assert outputs["c"] is outputs[0]
    with pytest.raises(fastbits.ArgumentValueError, match="2 input"):
        rep.run([a])


def test_backend_initializers_are_not_inputs(tmp_path):
    model = _model(
        [oh.make_node("BitwiseAnd", ["a", "k"], ["c"])],
        [oh.make_tensor_value_info("a", TP.INT32, [2]), oh.make_tensor_value_info("k", TP.INT32, [])],
        [oh.make_tensor_value_info("c", TP.INT32, [2])],
        18,
        [oh.make_tensor("k", TP.INT32, [], [6])],
    )
    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    rep = onnx_backend.prepare(str(path))
    assert rep.input_names == ["a"]
    assert rep.run(np.array([3, 12], np.int32))[0].tolist() == [2, 4]


def test_backend_run_node(kernels):
    out = onnx_backend.run_node(
        oh.make_node("BitCast", ["x"], ["y"], to=TP.UINT4), [np.array([-1, 2], ml_dtypes.int4)]
    )
    assert out[0].dtype == ml_dtypes.uint4 and out[0].tolist() == [15, 2]
    assert kernels["bitcast"].calls == 1
    node = oh.make_node("BitwiseAnd", ["a", "b"], ["c"])
    out = onnx_backend.run_node(node, [np.uint32([5, 6]), np.uint32(4)], opset_version=18)
    assert out["c"].tolist() == [4, 4]
    with pytest.raises(onnx.checker.ValidationError):
        onnx_backend.run_node(node, [np.uint32([5]), np.uint32([4])], opset_version=17)


def test_backend_refuses_invalid_model():
    with pytest.raises(onnx.checker.ValidationError, match="No Op registered for BitCast"):
        onnx_backend.prepare(_bitcast_model(TP.FLOAT, TP.INT32, opset=25, shape=[2]))


def test_missing_onnx_names_the_extra():
    code = (
        "import sys\n"
        "sys.modules['onnx'] = None\n"
        "import fastbits\n"
        "for name in ('fastbits.onnx_ops', 'fastbits.onnx_backend'):\n"
        "    try:\n"
        "        __import__(name)\n"
        "    except ImportError as exc:\n"
        "        print(exc)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = result.stdout.splitlines()
    assert len(lines) == 2, result.stdout + result.stderr
    assert all("pip install 'fastbits[onnx]'" in line for line in lines)


# --------------------------------------------------------------------------
# where onnx's reference evaluator is wrong and fastbits is right
# (observed with onnx 1.23.2; each test_reference_evaluator_* skips once fixed)

INT4 = np.array([1, -2, 7, -8], ml_dtypes.int4)


@pytest.mark.parametrize("to", [TP.UINT8, TP.INT2], ids=["uint8", "int2"])
def test_int4_bit_width_mismatch_refused(to):
    with pytest.raises(fastbits.BitWidthError, match=r"tensor\(int4\) \(4 bits\)"):
        _fastbits(_bitcast_model(TP.INT4, to)).run(None, {"x": INT4})


@pytest.mark.parametrize("to", [TP.UINT8, TP.INT2], ids=["uint8", "int2"])
def test_reference_evaluator_compares_itemsize(to):
    """onnx compares numpy itemsizes (1 byte each), so 4 bits pass as 8 or 2."""
    try:
        (y,) = ReferenceEvaluator(_bitcast_model(TP.INT4, to)).run(None, {"x": INT4})
    except ValueError:
        pytest.skip(f"onnx {onnx.__version__} refuses it now")
    assert y.dtype == spec.numpy_dtype(to)


BIG_ENDIAN = np.array([1.0, -2.5], ">f4")
LITTLE_ENDIAN_BITS = np.array([1.0, -2.5], "<f4").view("<i4")


def test_big_endian_input_read_by_value():
    (y,) = _fastbits(_bitcast_model(TP.FLOAT, TP.INT32)).run(None, {"x": BIG_ENDIAN})
    assert y.tolist() == LITTLE_ENDIAN_BITS.tolist() == [1065353216, -1071644672]
    model = _and_model(TP.INT16)
    a, b = np.array([1, 256], ">i2"), np.array([0x0101, 0x0101], "<i2")
    (c,) = _fastbits(model).run(None, {"a": a, "b": b})
    assert c.tolist() == [1, 256]


def test_reference_evaluator_reads_big_endian_bytes():
    """onnx views the big-endian bytes as they are: the values come out byte-swapped."""
    (y,) = ReferenceEvaluator(_bitcast_model(TP.FLOAT, TP.INT32)).run(None, {"x": BIG_ENDIAN})
    if y.tolist() == LITTLE_ENDIAN_BITS.tolist():
        pytest.skip(f"onnx {onnx.__version__} reads it right now")
    assert y.tolist() == LITTLE_ENDIAN_BITS.byteswap().tolist() == [32831, 8384]


STRINGS = np.array(["a", "b"])  # '<U1': 4 bytes per item, as many as an int32


def test_string_input_refused():
    with pytest.raises(fastbits.TypeConstraintError, match="not in T1"):
        _fastbits(_bitcast_model(TP.FLOAT, TP.INT32)).run(None, {"x": STRINGS})


def test_reference_evaluator_reinterprets_strings():
    """onnx refuses ``x.dtype == np.str_`` only, which '<U1' is not: it returns the code points."""
    try:
        (y,) = ReferenceEvaluator(_bitcast_model(TP.FLOAT, TP.INT32)).run(None, {"x": STRINGS})
    except ValueError:
        pytest.skip(f"onnx {onnx.__version__} refuses it now")
    assert y.tolist() == [ord("a"), ord("b")]


def test_unknown_to_is_a_clear_error():
    with pytest.raises(fastbits.UnknownDataTypeError, match="99 is not an ONNX data type code"):
        _fastbits(_bitcast_model(TP.FLOAT, 99)).run(None, {"x": np.zeros(2, np.float32)})


def test_reference_evaluator_raises_bare_keyerror_for_unknown_to():
    try:
        ReferenceEvaluator(_bitcast_model(TP.FLOAT, 99)).run(None, {"x": np.zeros(2, np.float32)})
    except KeyError as exc:
        assert exc.args == (99,)
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"onnx {onnx.__version__} raises {type(exc).__name__} now")
    else:
        pytest.skip(f"onnx {onnx.__version__} runs it")


BOOLS = {"a": np.array([True, False, True]), "b": np.array([True, True, False])}


def test_bool_bitwise_and_refused():
    with pytest.raises(fastbits.TypeConstraintError, match=r"tensor\(bool\)"):
        _fastbits(_and_model(TP.BOOL)).run(None, BOOLS)


def test_reference_evaluator_accepts_bool_bitwise_and():
    with pytest.raises(onnx.shape_inference.InferenceError, match=r"unsupported type: tensor\(bool\)"):
        onnx.checker.check_model(_and_model(TP.BOOL), full_check=True)  # T has no bool
    try:
        (c,) = ReferenceEvaluator(_and_model(TP.BOOL)).run(None, BOOLS)
    except TypeError:
        pytest.skip(f"onnx {onnx.__version__} refuses it now")
    assert c.tolist() == [True, False, False]


FLOAT6 = np.zeros(3, ml_dtypes.float6_e2m3fn)


def test_float6_input_refused():
    """float6 is an ONNX type (27, 28) but not in BitCast-26's T1."""
    with pytest.raises(fastbits.TypeConstraintError, match=r"tensor\(float6e2m3\)"):
        _fastbits(_bitcast_model(TP.UINT8, TP.UINT8)).run(None, {"x": FLOAT6})


def test_reference_evaluator_accepts_float6_input():
    try:
        (y,) = ReferenceEvaluator(_bitcast_model(TP.UINT8, TP.UINT8)).run(None, {"x": FLOAT6})
    except ValueError:
        pytest.skip(f"onnx {onnx.__version__} refuses it now")
    assert y.dtype == np.uint8


def test_shapes_that_do_not_broadcast_raise_broadcast_error():
    with pytest.raises(fastbits.BroadcastError, match="do not broadcast"):
        _fastbits(_and_model(TP.INT16)).run(None, {"a": np.zeros(2, np.int16), "b": np.zeros(3, np.int16)})


def test_reference_evaluator_reports_broadcast_as_type_error():
    """onnx's binary operators turn numpy's ValueError into "Issues with types"."""
    try:
        ReferenceEvaluator(_and_model(TP.INT16)).run(None, {"a": np.zeros(2, np.int16), "b": np.zeros(3, np.int16)})
    except TypeError as exc:
        assert "Issues with types" in str(exc)
        assert isinstance(exc.__cause__, ValueError)
    except ValueError:
        pytest.skip(f"onnx {onnx.__version__} raises ValueError now")
