"""fastbits inside onnx: the ReferenceEvaluator operators, the backend, onnx's own node tests.

Every test here runs once per path: the autouse fixture ``kernels`` points
the facade (``fastbits._ops``), which ``fastbits.onnx_ops`` reads at each
call, at the path's module.  Tests named ``test_reference_evaluator_*``
document where onnx's own evaluator is wrong; they skip, rather than fail,
once an onnx release fixes it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import unittest
import warnings

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
if not onnx.defs.has("BitCast"):  # Debian's onnx 1.20, say
    pytest.skip(f"onnx {onnx.__version__} has no BitCast-26 (fastbits.onnx_ops needs onnx >= 1.21)",
                allow_module_level=True)

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

from support import INT_DTYPES, bits, onnx_6bit, onnx_node_tests_generated  # noqa: E402

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


KERNELS = ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitshift", "bitcast", "cast", "cast_like",
           "quantize_linear", "dequantize_linear", "dynamic_quantize_linear", "matmul_integer", "qlinear_matmul")

#: The installed onnx has BitShift-28 (onnx 1.23, opset 28): signed BitShift node tests.
HAS_BITSHIFT_28 = onnx.defs.onnx_opset_version() >= 28
needs_bitshift_28 = pytest.mark.skipif(not HAS_BITSHIFT_28, reason=f"onnx {onnx.__version__} has no BitShift-28")


@pytest.fixture(autouse=True)
def kernels(ops, monkeypatch):
    """Run the test on the path ``ops``; the counters say how often each kernel ran."""
    counters = {name: _Counting(getattr(ops, name)) for name in KERNELS}
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


def _op_model(op, elem_type, opset, shape=("n",), **attributes):
    """One node of ``op`` (BitwiseOr, BitwiseXor, BitwiseNot, BitShift) on inputs of one type."""
    names = ["a"] if op == "BitwiseNot" else ["a", "b"]
    return _model(
        [oh.make_node(op, names, ["c"], **attributes)],
        [oh.make_tensor_value_info(name, elem_type, list(shape)) for name in names],
        [oh.make_tensor_value_info("c", elem_type, list(shape))],
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
    "test_bitwise_or_i16_4d",
    "test_bitwise_or_i32_2d",
    "test_bitwise_or_ui64_bcast_3v1d",
    "test_bitwise_or_ui8_bcast_4v3d",
    "test_bitwise_xor_i16_3d",
    "test_bitwise_xor_i32_2d",
    "test_bitwise_xor_ui64_bcast_3v1d",
    "test_bitwise_xor_ui8_bcast_4v3d",
    "test_bitwise_not_2d",
    "test_bitwise_not_3d",
    "test_bitwise_not_4d",
    *(f"test_bitshift_{direction}_{t}" for direction in ("left", "right")
      for t in ("uint8", "uint16", "uint32", "uint64")),
    *(f"test_dynamicquantizelinear{case}{expanded}" for case in ("", "_max_adjusted", "_min_adjusted")
      for expanded in ("", "_expanded")),
    "test_matmulinteger",
    *(f"test_qlinearmatmul_{rank}_{t}_{scale}" for rank in ("2D", "3D") for t in ("uint8", "int8")
      for scale in ("float32", "float16")),
}
#: onnx 1.23's node tests of BitShift-28: the signed types and the amounts out of range.
OFFICIAL_BITSHIFT_28 = {
    *(f"test_bitshift_{direction}_{t}" for direction in ("left", "right") for t in ("int8", "int16", "int32", "int64")),
    *(f"test_bitshift_{direction}_{t}_{case}" for direction in ("left", "right") for t in ("int8", "int32")
      for case in ("negative_shift", "shift_ge_width")),
    "test_bitshift_left_int8_overflow",
    "test_bitshift_left_int32_overflow",
    "test_bitshift_right_int8_negative_input",
    "test_bitshift_right_int32_negative_input",
}
#: The kernel each node test must run, by the start of its name.
OFFICIAL_KERNEL = {
    "test_bitcast": "bitcast",
    "test_bitwise_and": "bitwise_and",
    "test_bitwise_or": "bitwise_or",
    "test_bitwise_xor": "bitwise_xor",
    "test_bitwise_not": "bitwise_not",
    "test_bitshift": "bitshift",
    "test_cast_": "cast",
    "test_castlike_": "cast_like",
    "test_quantizelinear": "quantize_linear",
    "test_dequantizelinear": "dequantize_linear",
    "test_dynamicquantizelinear": "dynamic_quantize_linear",
    "test_matmulinteger": "matmul_integer",
    "test_qlinearmatmul": "qlinear_matmul",
}
def _generated_data_zeroes_small_ints() -> bool:
    """Whether this onnx's node-test data gives 0 for floats out of range into int4 (and the
    2- and 4-bit kin). onnx releases that store their data keep the low bits; the ones that
    generate it at run time take the installed ml_dtypes' ``astype``, which keeps them up to
    0.5 and gives 0 from later releases on."""
    stored = os.path.isdir(os.path.join(os.path.dirname(onnx.backend.test.__file__), "data", "node"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return not stored and int(np.float32(8).astype(ml_dtypes.int4).astype(np.int8)) == 0


def _qlinear_int8_data_wraps() -> bool:
    """Whether this onnx's QLinearMatMul node tests expect 20 where the int8 result saturates to
    -128: their data wrapped -236 into int8 (onnx issue 6169); onnx 1.23's has -128."""
    import inspect

    from onnx.backend.test.case.node import qlinearmatmul

    return "-75, 20]" in inspect.getsource(qlinearmatmul)


def _castlike_names(name: str) -> list[str]:
    """A Cast node test's name and those of its CastLike twins."""
    like = name.replace("test_cast_", "test_castlike_")
    return [f"{name}_cpu", f"{like}_cpu", f"{like}_expanded_cpu"]


#: onnx's node tests whose data departs from the spec's text, and fastbits follows the text:
#: {name: (mismatched elements, why)}. They must fail, on exactly those elements, until onnx's
#: data changes.
EXPECTED_DIFFERENCES = {
    name: (1, "NaN into FLOAT4E2M1 is 6 (float4.md); the data has -0")
    for src in ("FLOAT", "FLOAT16") for name in _castlike_names(f"test_cast_{src}_to_FLOAT4E2M1")
}
if _generated_data_zeroes_small_ints():
    EXPECTED_DIFFERENCES.update({
        name: (9 if bits == 4 else 3, "out of range into a 4- or 2-bit integer keeps the low bits "
               "(int4.md, onnx's stored data); this data, made by the installed ml_dtypes, has 0")
        for src in ("FLOAT", "FLOAT16") for bits in (4, 2) for sign in ("", "U")
        for name in _castlike_names(f"test_cast_{src}_to_{sign}INT{bits}")
    })
if _qlinear_int8_data_wraps():
    EXPECTED_DIFFERENCES.update({
        f"test_qlinearmatmul_{rank}_int8_{scale}_cpu": (count, "int8 results below -128 saturate to -128, as "
                                                        "the text says; this onnx's data wraps them (-236 to 20)")
        for rank, count in (("2D", 1), ("3D", 4)) for scale in ("float32", "float16")
    })


def _expected_kernels(name):
    """The kernels a node test must run, and no other: none for a string Cast (onnx's own runs
    it); Cast's for an expanded CastLike (its model is a Cast node); Cast's and
    QuantizeLinear's for an expanded DynamicQuantizeLinear (its function body's nodes)."""
    if "STRING" in name:
        return set()
    if name.startswith("test_castlike_") and "_expanded" in name:
        return {"cast"}
    if name.startswith("test_dynamicquantizelinear") and "_expanded" in name:
        return {"cast", "quantize_linear"}
    (op,) = [kernel for prefix, kernel in OFFICIAL_KERNEL.items() if name.startswith(prefix)]
    return {op}


def _official_cases():
    """{test name: unittest.TestCase class} of the node tests onnx's harness would run.

    The harness keeps every test and marks the ones to leave out (no include
    pattern matched, a device the backend does not support) as skipped.
    """
    with onnx_node_tests_generated():
        backend_test = onnx.backend.test.BackendTest(onnx_backend, __name__)
    for prefix in OFFICIAL_KERNEL:
        backend_test.include(prefix)
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
    collected = {name.removesuffix("_cpu") for name in OFFICIAL_CASES}
    assert collected >= OFFICIAL
    if HAS_BITSHIFT_28:
        assert collected >= OFFICIAL_BITSHIFT_28
    assert len(OFFICIAL_CASES) >= len(OFFICIAL) + HAS_BITSHIFT_28 * len(OFFICIAL_BITSHIFT_28)  # 53 with onnx 1.23


@pytest.mark.parametrize("name", sorted(OFFICIAL_CASES))
def test_official_node_test(name, kernels):
    result = unittest.TestResult()
    OFFICIAL_CASES[name](name).run(result)
    problems = [text for _, text in result.errors + result.failures]
    if name in EXPECTED_DIFFERENCES:
        mismatches, why = EXPECTED_DIFFERENCES[name]
        if not problems:
            pytest.skip(f"onnx's data now follows the spec ({why}): drop the difference")
        assert len(problems) == 1 and f"Mismatched elements: {mismatches} " in problems[0], problems
        return
    assert not problems, "\n".join(problems)
    assert not result.skipped, result.skipped
    assert result.testsRun == 1
    expected = _expected_kernels(name)
    assert all(kernels[op].calls >= 1 for op in expected), "the node test did not run fastbits' kernel"
    assert all(counter.calls == 0 for op, counter in kernels.items() if op not in expected)  # and no other


# --------------------------------------------------------------------------
# the operator classes


def test_ops_list_and_versions():
    expected = [
        (onnx_ops.BitwiseAnd, spec.BITWISE_AND),
        (onnx_ops.BitwiseOr, spec.BITWISE_OR),
        (onnx_ops.BitwiseXor, spec.BITWISE_XOR),
        (onnx_ops.BitwiseNot, spec.BITWISE_NOT),
        (onnx_ops.BitShift, spec.BITSHIFT),
        (onnx_ops.BitCast, spec.BITCAST),
    ]
    assert onnx_ops.OPS[: len(expected)] == [cls for cls, _ in expected]
    for cls, op in expected:
        assert cls.op_domain == ""
        assert cls.__name__ == op  # the evaluator matches new_ops by class name
        assert cls.op_schema.name == op
        if op == spec.BITSHIFT and not HAS_BITSHIFT_28:  # an onnx before 1.23: BitShift-11 only
            assert cls.op_schema.since_version == 11 and cls.versions == (11,)
        else:
            assert cls.op_schema.since_version == spec.SINCE_VERSION[op]
    if HAS_BITSHIFT_28:
        assert onnx_ops.BitShift.versions == (11, 28)
    # Cast, CastLike, QuantizeLinear and DequantizeLinear: the latest version the installed onnx
    # has, and every earlier one
    assert onnx_ops.OPS[len(expected):] == [onnx_ops.Cast, onnx_ops.CastLike, onnx_ops.QuantizeLinear,
                                            onnx_ops.DequantizeLinear, onnx_ops.DynamicQuantizeLinear,
                                            onnx_ops.MatMulInteger, onnx_ops.QLinearMatMul]
    for cls, op, since in ((onnx_ops.DynamicQuantizeLinear, spec.DYNAMIC_QUANTIZE, 11),
                           (onnx_ops.MatMulInteger, spec.MATMUL_INTEGER, 10)):
        assert cls.__name__ == cls.op_schema.name == op and cls.op_domain == ""
        assert cls.op_schema.since_version == since == onnx.defs.get_schema(op, 28).since_version
    assert onnx_ops.QLinearMatMul.versions == (10, 21) == tuple(spec.QLINEAR_MATMUL_VERSIONS)
    assert onnx_ops.QLinearMatMul.op_schema.since_version == onnx.defs.get_schema(spec.QLINEAR_MATMUL, 28).since_version
    quant_versions = (10, 13, 19, 21, 23, 24, 25, 28)
    for cls, op, versions in ((onnx_ops.Cast, spec.CAST, (6, 9, 13, 19, 21, 23, 24, 25, 28)),
                              (onnx_ops.CastLike, spec.CAST_LIKE, (15, 19, 21, 23, 24, 25)),
                              (onnx_ops.QuantizeLinear, spec.QUANTIZE, quant_versions),
                              (onnx_ops.DequantizeLinear, spec.DEQUANTIZE, quant_versions)):
        assert cls.__name__ == cls.op_schema.name == op and cls.op_domain == ""
        assert cls.versions == tuple(v for v in versions if v <= cls.op_schema.since_version)
        assert cls.op_schema.since_version == onnx.defs.get_schema(op, max(versions)).since_version


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
    assert onnx_ops.BitwiseOr.eval(a, b).tolist() == [14]
    assert onnx_ops.BitwiseXor.eval(a, b).tolist() == [6]
    assert onnx_ops.BitwiseNot.eval(a).tolist() == [243]
    assert onnx_ops.BitShift.eval(a, np.array([2], np.uint8), direction="LEFT").tolist() == [48]
    assert onnx_ops.BitShift.eval(a, np.array([8], np.uint8), direction="RIGHT").tolist() == [0]


def test_errors_are_fastbits_own():
    """OpRun.run wraps TypeErrors in a generic one; the operators hand back fastbits' error."""
    with pytest.raises(fastbits.TypeConstraintError, match="'to' = STRING"):
        _fastbits(_bitcast_model(TP.FLOAT, TP.STRING)).run(None, {"x": np.zeros(2, np.float32)})
    with pytest.raises(fastbits.TypeConstraintError, match="same type T"):
        _fastbits(_and_model(TP.INT32)).run(
            None, {"a": np.zeros(2, np.int32), "b": np.zeros(2, np.int64)}
        )
    with pytest.raises(fastbits.TypeConstraintError, match=r"^BitwiseNot: input 'X' has dtype float32"):
        _fastbits(_op_model("BitwiseNot", TP.FLOAT, 18)).run(None, {"a": np.zeros(2, np.float32)})
    with pytest.raises(fastbits.TypeConstraintError, match=r"^BitShift: inputs 'X' and 'Y' must have the same type T"):
        _fastbits(_op_model("BitShift", TP.UINT8, 18, direction="LEFT")).run(
            None, {"a": np.zeros(2, np.uint8), "b": np.zeros(2, np.uint16)}
        )
    with pytest.raises(fastbits.TypeConstraintError, match=r"^BitwiseXor: input 'A' has dtype bool"):
        _fastbits(_op_model("BitwiseXor", TP.BOOL, 18)).run(None, {"a": np.zeros(2, bool), "b": np.zeros(2, bool)})


def _unpacking_model(mask_type, named=True):
    """Three nodes: w >> 4 ("high_nibble"), w & mask ("low_nibble"), then Concat ("both")."""
    return _model(
        [
            oh.make_node("BitShift", ["w", "four"], ["high"], direction="RIGHT", name="high_nibble" if named else ""),
            oh.make_node("BitwiseAnd", ["w", "mask"], ["low"], name="low_nibble" if named else ""),
            oh.make_node("Concat", ["low", "high"], ["both"], axis=0, name="both"),
        ],
        [oh.make_tensor_value_info("w", TP.UINT8, ["n"]), oh.make_tensor_value_info("four", TP.UINT8, [1]),
         oh.make_tensor_value_info("mask", mask_type, ["m"])],
        [oh.make_tensor_value_info("both", TP.UINT8, ["k"])],
        28,
    )


def test_error_names_the_node_and_the_graph_tensor():
    """An error inside a model names the node and the graph's tensor behind the input at fault,
    after fastbits' own message, and keeps its class."""
    feeds = {"w": np.arange(4, dtype=np.uint8), "four": np.array([4], np.uint8), "mask": np.ones(4, np.uint16)}
    sess = _fastbits(_unpacking_model(TP.UINT16))
    with pytest.raises(fastbits.TypeConstraintError) as info:
        sess.run(None, feeds)
    assert str(info.value) == (
        "BitwiseAnd: inputs 'A' and 'B' must have the same type T, but 'A' is tensor(uint8) and 'B' is "
        "tensor(uint16); fastbits does not promote (cast one of them first)\n"
        "  in node 'low_nibble' (BitwiseAnd): input 'A' is the graph's tensor 'w'; "
        "input 'B' is the graph's tensor 'mask'"
    )
    feeds["mask"] = np.ones(3, np.uint8)
    with pytest.raises(fastbits.BroadcastError, match=r"do not broadcast .*\n  in node 'low_nibble' \(BitwiseAnd\): "
                       r"input 'A' is the graph's tensor 'w'; input 'B' is the graph's tensor 'mask'$"):
        sess.run(None, feeds)
    feeds["mask"] = np.ones(4, np.float32)
    with pytest.raises(fastbits.TypeConstraintError, match=r"^BitwiseAnd: input 'B' has dtype float32 .*\n"
                       r"  in node 'low_nibble' \(BitwiseAnd\): input 'B' is the graph's tensor 'mask'$"):
        sess.run(None, feeds)
    with pytest.raises(fastbits.TypeConstraintError, match=r"\n  in a node with no name \(BitwiseAnd\): "
                       r"input 'B' is the graph's tensor 'mask'$"):
        _fastbits(_unpacking_model(TP.FLOAT, named=False)).run(None, feeds)
    feeds["mask"] = np.full(4, 15, np.uint8)
    assert _fastbits(_unpacking_model(TP.UINT8)).run(None, feeds)[0].tolist() == [0, 1, 2, 3, 0, 0, 0, 0]


def test_error_names_the_output_or_the_attribute_at_fault():
    """A result too large to allocate names the node's output, not its inputs; a bad attribute
    names the attribute and its value, not the input."""
    huge_column = np.broadcast_to(np.zeros(1, np.int8), (2**40, 1))
    huge_row = np.broadcast_to(np.zeros(1, np.int8), (1, 2**40))
    with pytest.raises(fastbits.AllocationError) as info:
        _fastbits(_and_model(TP.INT8)).run(None, {"a": huge_column, "b": huge_row})
    assert str(info.value).startswith("BitwiseAnd: the result of shape (1099511627776, 1099511627776)")
    assert str(info.value).endswith("\n  in a node with no name (BitwiseAnd): output 'C' is the graph's tensor 'c'")
    for to, error in [(99, fastbits.UnknownDataTypeError), (TP.STRING, fastbits.TypeConstraintError)]:
        with pytest.raises(error) as info:
            _fastbits(_bitcast_model(TP.FLOAT, to)).run(None, {"x": np.zeros(2, np.float32)})
        assert str(info.value).startswith("BitCast: attribute 'to' = ")
        assert str(info.value).endswith(f"\n  in a node with no name (BitCast): the node's attribute 'to' is {to}")
    with pytest.raises(fastbits.ArgumentValueError) as info:
        _fastbits(_op_model("BitShift", TP.UINT8, 18, direction="UP")).run(None, U8)
    assert str(info.value).endswith("\n  in a node with no name (BitShift): the node's attribute 'direction' is 'UP'")
    # A width mismatch is about the input: it names the input, as before.
    with pytest.raises(fastbits.BitWidthError) as info:
        _fastbits(_bitcast_model(TP.INT32, TP.INT64)).run(None, {"x": np.zeros(2, np.int32)})
    assert str(info.value).endswith("\n  in a node with no name (BitCast): input 'input' is the graph's tensor 'x'")


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (_bitcast_model(TP.FLOAT, TP.INT32, opset=25), "BitCast does not exist before opset 26"),
        (_and_model(TP.INT32, opset=17), "BitwiseAnd does not exist before opset 18"),
        (_op_model("BitwiseOr", TP.INT32, 17), "BitwiseOr does not exist before opset 18"),
        (_op_model("BitwiseXor", TP.INT32, 17), "BitwiseXor does not exist before opset 18"),
        (_op_model("BitwiseNot", TP.INT32, 17), "BitwiseNot does not exist before opset 18"),
        (_op_model("BitShift", TP.UINT8, 10, direction="LEFT"), "BitShift does not exist before opset 11"),
        (_op_model("BitShift", TP.UINT8, 1, direction="LEFT"), "BitShift does not exist before opset 11"),
        (_model([oh.make_node("MatMulInteger", ["a", "b"], ["c"])],
                [oh.make_tensor_value_info(n, TP.UINT8, [2, 2]) for n in "ab"],
                [oh.make_tensor_value_info("c", TP.INT32, [2, 2])], 9), "MatMulInteger does not exist before opset 10"),
        (_model([oh.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])],
                [oh.make_tensor_value_info("x", TP.FLOAT, [2])],
                [oh.make_tensor_value_info(n, t, None) for n, t in (("y", TP.UINT8), ("s", TP.FLOAT), ("z", TP.UINT8))],
                10), "DynamicQuantizeLinear does not exist before opset 11"),
    ],
    ids=["BitCast-25", "BitwiseAnd-17", "BitwiseOr-17", "BitwiseXor-17", "BitwiseNot-17", "BitShift-10", "BitShift-1",
         "MatMulInteger-9", "DynamicQuantizeLinear-10"],
)
def test_operator_missing_from_the_opset_is_refused(model, message):
    with pytest.raises(fastbits.OpsetError, match=message) as caught:
        _fastbits(model)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, fastbits.FastbitsError)
    assert not isinstance(caught.value, RuntimeError)


def test_dynamically_quantized_graph_as_onnx_runs_it(kernels):
    """The graph quantize_dynamic makes of a MatMul (DynamicQuantizeLinear, MatMulInteger by an
    int8 weight initializer, Cast, the scales' Mul): fastbits' kernels run its two quantized
    nodes, and every output equals onnx's own evaluator's, bit for bit."""
    rng = np.random.default_rng(9)
    w = rng.integers(-127, 128, (20, 7), dtype=np.int8)
    inits = [onnx.numpy_helper.from_array(w, "w"), onnx.numpy_helper.from_array(np.float32(0.02), "w_scale"),
             onnx.numpy_helper.from_array(np.int8(0), "w_zero")]
    nodes = [oh.make_node("DynamicQuantizeLinear", ["x"], ["xq", "x_scale", "x_zero"]),
             oh.make_node("MatMulInteger", ["xq", "w", "x_zero", "w_zero"], ["acc"]),
             oh.make_node("Cast", ["acc"], ["accf"], to=TP.FLOAT),
             oh.make_node("Mul", ["x_scale", "w_scale"], ["scale"]),
             oh.make_node("Mul", ["accf", "scale"], ["y"])]
    model = _model(nodes, [oh.make_tensor_value_info("x", TP.FLOAT, [None, 20])],
                   [oh.make_tensor_value_info("y", TP.FLOAT, [None, 7]),
                    oh.make_tensor_value_info("xq", TP.UINT8, [None, 20])], 21, inits)
    x = rng.standard_normal((5, 20)).astype(np.float32)
    got = _fastbits(model).run(None, {"x": x})
    expected = ReferenceEvaluator(model).run(None, {"x": x})
    for a, b in zip(got, expected, strict=True):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    assert kernels["dynamic_quantize_linear"].calls == 1 and kernels["matmul_integer"].calls == 1


def _qlinear_model(opset, a_type, scale_type):
    """One QLinearMatMul node: a (2 x 3) of ``a_type`` by an initializer b (3 x 2) of int8."""
    inputs = [oh.make_tensor_value_info("a", a_type, [2, 3])]
    scale = onnx.numpy_helper.from_array(np.array(0.5, onnx.helper.tensor_dtype_to_np_dtype(scale_type)), "s")
    zero = onnx.numpy_helper.from_array(np.zeros((), onnx.helper.tensor_dtype_to_np_dtype(a_type)), "za")
    inits = [scale, zero, onnx.numpy_helper.from_array(np.arange(6, dtype=np.int8).reshape(3, 2), "b"),
             onnx.numpy_helper.from_array(np.int8(0), "z8")]
    node = oh.make_node("QLinearMatMul", ["a", "s", "za", "b", "s", "z8", "s", "z8"], ["y"])
    return _model([node], inputs, [oh.make_tensor_value_info("y", TP.INT8, [2, 2])], opset, inits)


def test_qlinear_matmul_versions(kernels):
    """QLinearMatMul-10 takes int8 and uint8 with float32 scales; a float 8 operand or a float16
    scale needs QLinearMatMul-21 (opset 21)."""
    a = np.array([[1, 2, 3], [4, 5, 6]], np.int8)
    got = _fastbits(_qlinear_model(13, TP.INT8, TP.FLOAT)).run(None, {"a": a})[0]
    np.testing.assert_array_equal(got, fastbits.qlinear_matmul(a, np.float32(0.5), np.int8(0),
                                                                np.arange(6, dtype=np.int8).reshape(3, 2),
                                                                np.float32(0.5), np.int8(0), np.float32(0.5),
                                                                np.int8(0)))
    assert kernels["qlinear_matmul"].calls == 1
    with pytest.raises(fastbits.TypeConstraintError, match="the scales is tensor.float16., which QLinearMatMul-10"):
        _fastbits(_qlinear_model(20, TP.INT8, TP.FLOAT16)).run(None, {"a": a})
    a8 = np.array([[1, 2, 3], [4, 5, 6]], ml_dtypes.float8_e4m3fn)
    with pytest.raises(fastbits.TypeConstraintError, match="input 'a' is tensor.float8e4m3fn., which QLinearMatMul-10"):
        _fastbits(_qlinear_model(20, TP.FLOAT8E4M3FN, TP.FLOAT)).run(None, {"a": a8})
    got = _fastbits(_qlinear_model(21, TP.FLOAT8E4M3FN, TP.FLOAT16)).run(None, {"a": a8})[0]
    assert got.dtype == np.int8 and got.shape == (2, 2)


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
    with pytest.raises(fastbits.OpsetError, match="fastbits implements BitCast-26"):
        _fastbits(_bitcast_model(TP.FLOAT, TP.INT32, opset=27))
    _fastbits(_bitcast_model(TP.FLOAT, TP.INT32, opset=26))


#: An attribute of a later version of its operator, in a model of an earlier opset: the operator,
#: the opset, the node's attributes, the one its version lacks, and the version it came with.
LATER_ATTRIBUTES = [
    ("Cast", 13, {"to": TP.FLOAT16, "saturate": 0}, "saturate", 19),
    ("Cast", 23, {"to": TP.FLOAT8E4M3FN, "round_mode": "up"}, "round_mode", 24),
    ("CastLike", 15, {"saturate": 1}, "saturate", 19),
    ("CastLike", 21, {"round_mode": "up"}, "round_mode", 24),
    ("QuantizeLinear", 13, {"saturate": 1}, "saturate", 19),
    ("QuantizeLinear", 19, {"block_size": 2}, "block_size", 21),
    ("QuantizeLinear", 19, {"output_dtype": TP.INT8}, "output_dtype", 21),
    ("QuantizeLinear", 21, {"precision": TP.FLOAT}, "precision", 23),
    ("DequantizeLinear", 19, {"block_size": 2}, "block_size", 21),
    ("DequantizeLinear", 21, {"output_dtype": TP.FLOAT}, "output_dtype", 23),
    ("Cast", 21, {"to": TP.FLOAT16, "rounding": "up"}, "rounding", None),
]


def _attribute_model(op, opset, attributes):
    inputs = {"Cast": ["x"], "CastLike": ["x", "t"], "QuantizeLinear": ["x", "s"], "DequantizeLinear": ["x", "s"]}[op]
    types = {"x": TP.INT8 if op == "DequantizeLinear" else TP.FLOAT, "t": TP.FLOAT16, "s": TP.FLOAT}
    return _model([oh.make_node(op, inputs, ["y"], name="n", **attributes)],
                  [oh.make_tensor_value_info(name, types[name], [] if name == "s" else [2]) for name in inputs],
                  [oh.make_tensor_value_info("y", TP.FLOAT, [2])], opset)


@pytest.mark.parametrize(("op", "opset", "attributes", "name", "since"), LATER_ATTRIBUTES,
                         ids=[f"{r[0]}-{r[1]}-{r[3]}" for r in LATER_ATTRIBUTES])
def test_an_attribute_of_a_later_version_is_refused(op, opset, attributes, name, since):
    """Cast-13 has no 'saturate': fastbits refuses the node when the evaluator is built, naming
    the node and the attribute, as onnx's checker refuses the model (onnx's evaluator runs it,
    or fails with a bare TypeError)."""
    model = _attribute_model(op, opset, attributes)
    with pytest.raises(onnx.checker.ValidationError, match=f"Unrecognized attribute: {name} for operator {op}"):
        onnx.checker.check_model(model)
    came = f"it came with {op}-{since}" if since else f"no version of {op} has it"
    with pytest.raises(fastbits.OpsetError, match=rf"^{op}: node 'n' has attribute '{name}', which {op}-\d+ "
                                                  rf"\(the model's version\) does not have; {came}$"):
        _fastbits(model)
    rest = {key: value for key, value in attributes.items() if key != name}
    _fastbits(_attribute_model(op, opset, rest))   # the same node without it is built


#: A value of each attribute the operators have, for a node that sets it.
_SAMPLE_ATTRIBUTES = {"to": TP.FLOAT, "direction": "RIGHT", "round_mode": "down", "axis": 0, "block_size": 2,
                      "output_dtype": TP.UINT8, "saturate": 0, "precision": TP.FLOAT16}


def _loaded(op_run):
    return {name: getattr(op_run, name) for name in op_run.attributes_names_}


@pytest.mark.parametrize("cls", onnx_ops.OPS, ids=lambda cls: cls.__name__)
def test_attributes_load_as_onnx_loads_them(cls):
    """The classes read a version's attribute defaults once, not once per node as onnx's OpRun
    does: each node gets what OpRun's own loading of its version's schema gives it, with its
    required attributes only and with every attribute set."""
    from onnx.reference.op_run import OpRun

    op = cls.op_schema.name
    for version in cls._implemented:
        schema = onnx.defs.get_schema(op, version, "")
        required = {name: _SAMPLE_ATTRIBUTES[name] for name, a in schema.attributes.items() if a.required}
        every = {name: _SAMPLE_ATTRIBUTES[name] for name in schema.attributes}
        for attributes in (required, every):
            node = oh.make_node(op, ["x"], ["y"], **attributes)
            params = {"opsets": {"": version}, "new_ops": None, "log": lambda *args: None}
            ours = cls(node, params)
            theirs = OpRun.__new__(cls)
            theirs.onnx_node, theirs.run_params, theirs._schema, theirs.has_subgraph = node, params, schema, False
            OpRun._load_attributes(theirs)
            assert _loaded(ours) == _loaded(theirs), (version, attributes)
            assert not ours.has_linked_attribute


def test_attributes_linked_to_a_function_s_load_as_onnx_loads_them():
    """A node of a function body whose attribute refers to the function's goes to OpRun's own
    loading, which links it."""
    from onnx.reference.op_run import RefAttrName

    node = oh.make_node("Cast", ["x"], ["y"])
    node.attribute.append(onnx.AttributeProto(name="to", ref_attr_name="target", type=onnx.AttributeProto.INT))
    cast = onnx_ops.Cast(node, {"opsets": {"": 21}, "new_ops": None, "log": lambda *args: None})
    assert cast.has_linked_attribute and isinstance(cast.to, RefAttrName) and cast.to.name == "target"


def test_reference_evaluator_takes_onnxs_parameters():
    """fastbits.onnx_ops.ReferenceEvaluator takes every parameter of the installed onnx's
    evaluator, by name, kind and default, and those of the other onnx releases it supports
    (1.21's optimized, 1.22's check_shape_annotations) only at their defaults where this onnx
    lacks them."""
    import inspect

    def parameters(cls):
        return {p.name: (p.kind, p.default) for p in inspect.signature(cls.__init__).parameters.values()}

    ours, theirs = parameters(onnx_ops.ReferenceEvaluator), parameters(ReferenceEvaluator)
    assert {name: ours.get(name) for name in theirs} == theirs
    others = {"check_shape_annotations": False, "optimized": True}
    own = {"cache_constants": (inspect.Parameter.KEYWORD_ONLY, False)}  # fastbits' own, keyword-only
    assert {name: ours[name] for name in set(ours) - set(theirs) - set(others)} == own
    model = _and_model(TP.INT32)
    for name, default in others.items():
        onnx_ops.ReferenceEvaluator(model, **{name: default})
        if name in theirs:
            onnx_ops.ReferenceEvaluator(model, **{name: not default})
        else:
            with pytest.raises(fastbits.ArgumentValueError, match=f"{name}=.* needs an onnx whose evaluator has it"):
                onnx_ops.ReferenceEvaluator(model, **{name: not default})


def _weight_model():
    """y = x + DequantizeLinear(w, s): the weight's dequantization is a node of constants, then
    a Cast of its result; z = DequantizeLinear(d, s), whose d is both an initializer and a graph
    input (a default an input overrides)."""
    w = onnx.numpy_helper.from_array(np.array([[-3, 0, 7], [127, -128, 1]], np.int8), "w")
    scale = onnx.numpy_helper.from_array(np.array(0.5, np.float32), "s")
    d = onnx.numpy_helper.from_array(np.array([1, 2, 3], np.int8), "d")
    nodes = [oh.make_node("DequantizeLinear", ["w", "s"], ["wf"]), oh.make_node("Cast", ["wf"], ["w16"], to=TP.FLOAT16),
             oh.make_node("Add", ["x", "wf"], ["y"]), oh.make_node("DequantizeLinear", ["d", "s"], ["z"])]
    return _model(nodes, [oh.make_tensor_value_info("x", TP.FLOAT, [2, 3]), oh.make_tensor_value_info("d", TP.INT8, [3])],
                  [oh.make_tensor_value_info(name, elem, None) for name, elem in
                   (("y", TP.FLOAT), ("w16", TP.FLOAT16), ("z", TP.FLOAT))], 21, [w, scale, d])


def test_cache_constants_keeps_the_constant_nodes_outputs(kernels, monkeypatch):
    """cache_constants=True: the nodes of constants run once, their outputs are the same
    read-only arrays in every later run, and every output equals an uncached run's."""
    calls = {"dequantize_linear": 0, "cast": 0}
    for name in calls:
        def counted(*args, _kernel=getattr(fastbits._ops, name), _name=name, **kwargs):
            calls[_name] += 1
            return _kernel(*args, **kwargs)
        monkeypatch.setattr(fastbits._ops, name, counted)
    model = _weight_model()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    expected = onnx_ops.ReferenceEvaluator(model).run(None, {"x": x})
    calls.update(dequantize_linear=0, cast=0)
    cached = onnx_ops.ReferenceEvaluator(model, cache_constants=True)
    first = cached.run(None, {"x": x})
    second = cached.run(None, {"x": x + 1, "d": np.array([5, 6, 7], np.int8)})
    # the weight's DequantizeLinear and Cast once; d's DequantizeLinear every run (d is an input)
    assert calls == {"dequantize_linear": 3, "cast": 1}
    for ours, theirs in zip(first, expected):
        assert ours.dtype == theirs.dtype and ours.tobytes() == theirs.tobytes()
    assert second[1] is first[1] and not first[1].flags.writeable
    assert second[0].tolist() == (x + 1 + np.array([[-1.5, 0, 3.5], [63.5, -64, 0.5]], np.float32)).tolist()
    assert second[2].tolist() == [2.5, 3.0, 3.5]
    assert onnx_ops.ReferenceEvaluator(model).cache_constants is False


def test_a_node_runs_its_version_checks_once_per_layout(kernels, monkeypatch):
    """A QuantizeLinear, DequantizeLinear or QLinearMatMul node runs its version's checks (the
    spec's, in Python) again only when its inputs' dtypes or shapes change; a refused call is
    refused every time."""
    calls = []  # the operators whose version the node checked (the functions check no version)
    check = spec.check_quantize_version

    def counted(op, *args):
        calls.append(op)
        return check(op, *args)
    monkeypatch.setattr(spec, "check_quantize_version", counted)
    node = oh.make_node("QuantizeLinear", ["x", "s"], ["q"])
    back = oh.make_node("DequantizeLinear", ["q", "s"], ["y"])
    model = _model([node, back], [oh.make_tensor_value_info("x", TP.FLOAT, None),
                                  oh.make_tensor_value_info("s", TP.FLOAT, None)],
                   [oh.make_tensor_value_info("y", TP.FLOAT, None)], 13)
    session = onnx_ops.ReferenceEvaluator(model)
    x, s = np.array([1.0, 2.5, 300.0], np.float32), np.array(0.5, np.float32)
    for _ in range(3):
        assert session.run(None, {"x": x, "s": s})[0].tolist() == [1.0, 2.5, 127.5]
    assert calls == ["QuantizeLinear", "DequantizeLinear"]
    session.run(None, {"x": x[:2], "s": s})  # another shape: checked again
    assert calls == ["QuantizeLinear", "DequantizeLinear"] * 2
    for _ in range(2):  # a bfloat16 input: QuantizeLinear-13 takes none, refused every time
        with pytest.raises(fastbits.TypeConstraintError, match="QuantizeLinear-13 does not take"):
            session.run(None, {"x": x.astype(ml_dtypes.bfloat16), "s": s.astype(ml_dtypes.bfloat16)})
    assert calls == ["QuantizeLinear", "DequantizeLinear"] * 2 + ["QuantizeLinear"] * 2


@pytest.mark.parametrize("attributes, saturate", [({}, True), ({"saturate": 1}, True), ({"saturate": 0}, False)])
def test_quantize_node_passes_saturate_as_a_bool(kernels, monkeypatch, attributes, saturate):
    """The node hands ONNX's 1 and 0 to the function as True and False, the values its fast
    read of a call takes."""
    seen = []
    quantize = fastbits._ops.quantize_linear

    def recording(*args, **kwargs):
        seen.append(kwargs["saturate"])
        return quantize(*args, **kwargs)
    monkeypatch.setattr(fastbits._ops, "quantize_linear", recording)
    node = oh.make_node("QuantizeLinear", ["x", "s"], ["y"], output_dtype=TP.FLOAT8E4M3FN, **attributes)
    model = _model([node], [oh.make_tensor_value_info("x", TP.FLOAT, [2]), oh.make_tensor_value_info("s", TP.FLOAT, [])],
                   [oh.make_tensor_value_info("y", TP.FLOAT8E4M3FN, [2])], 21)
    (y,) = onnx_ops.ReferenceEvaluator(model).run(None, {"x": np.array([1.0, 1e6], np.float32),
                                                         "s": np.array(1.0, np.float32)})
    assert seen == [saturate] and type(seen[0]) is bool
    largest = y.astype(np.float32)[1]  # 1e6: the largest value, or NaN (float8e4m3fn has no infinity)
    assert largest == 448.0 if saturate else np.isnan(largest)


def test_cache_constants_refuses_a_feed_of_a_constant():
    """A feed that names a kept constant would not reach the kept outputs: refused."""
    model = _weight_model()
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(fastbits.ArgumentValueError, match="^ReferenceEvaluator: feed 'w' names an initializer "
                                                           "that is not a graph input, which cache_constants=True"):
        onnx_ops.ReferenceEvaluator(model, cache_constants=True).run(None, {"x": x, "w": np.zeros((2, 3), np.int8)})
    with pytest.raises(fastbits.ArgumentTypeError, match="^ReferenceEvaluator: cache_constants must be a bool"):
        onnx_ops.ReferenceEvaluator(model, cache_constants=1)
    # an initializer only onnx's own nodes read may be fed, as in onnx's evaluator
    bias = onnx.numpy_helper.from_array(np.array([1.0, 2.0, 3.0], np.float32), "b")
    model.graph.initializer.append(bias)
    model.graph.node.append(oh.make_node("Add", ["y", "b"], ["yb"]))
    model.graph.output.append(oh.make_tensor_value_info("yb", TP.FLOAT, None))
    session = onnx_ops.ReferenceEvaluator(model, cache_constants=True)
    fed = session.run(["yb"], {"x": x, "b": np.full(3, 10.0, np.float32)})[0]
    assert fed.tolist() == [[8.5, 10.0, 13.5], [73.5, -54.0, 10.5]]


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
# Or, Xor, Not and BitShift in models: versions, direction, a hashing graph

I8 = {"a": np.array([-16, 16, 1], np.int8), "b": np.array([2, 9, 7], np.int8)}
U8 = {"a": np.array([16, 16, 255], np.uint8), "b": np.array([2, 9, 8], np.uint8)}


@pytest.mark.parametrize("opset", [11, 18, 20, 27])
def test_bitshift_11_refuses_signed_types(opset, kernels):
    """Opsets 11 to 27 have BitShift-11, whose T is the unsigned types."""
    for elem_type, feeds, expected in ((TP.UINT8, U8, [4, 0, 0]), (TP.UINT64, None, [2**61, 0])):
        if feeds is None:
            feeds = {"a": np.array([2**63, 1], np.uint64), "b": np.array([2, 64], np.uint64)}
        (c,) = _fastbits(_op_model("BitShift", elem_type, opset, direction="RIGHT")).run(None, feeds)
        assert c.tolist() == expected
    assert kernels["bitshift"].calls == 2
    for elem_type, dtype in ((TP.INT8, np.int8), (TP.INT16, np.int16), (TP.INT32, np.int32), (TP.INT64, np.int64)):
        evaluator = _fastbits(_op_model("BitShift", elem_type, opset, direction="LEFT"))
        feeds = {"a": np.array([1, -1], dtype), "b": np.array([1, 1], dtype)}
        with pytest.raises(fastbits.TypeConstraintError, match=rf"^BitShift: input 'X' is tensor\({np.dtype(dtype).name}\), which BitShift-11 does not take .* signed types need BitShift-28"):
            evaluator.run(None, feeds)


@needs_bitshift_28
@pytest.mark.parametrize("opset", [28, onnx.defs.onnx_opset_version()])
def test_bitshift_28_takes_signed_types(opset, kernels):
    (c,) = _fastbits(_op_model("BitShift", TP.INT8, opset, direction="RIGHT")).run(None, I8)
    assert c.dtype == np.int8 and c.tolist() == [-4, 0, 0]
    (c,) = _fastbits(_op_model("BitShift", TP.INT8, opset, direction="LEFT")).run(None, I8)
    assert c.tolist() == [-64, 0, -128]
    assert kernels["bitshift"].calls == 2


def test_bitshift_11_in_the_backend(kernels):
    """Through the backend too (its checker does not check types: fastbits does)."""
    node = oh.make_node("BitShift", ["x", "y"], ["z"], direction="LEFT")
    with pytest.raises(fastbits.TypeConstraintError, match="BitShift-11 does not take"):
        onnx_backend.run_node(node, [np.array([1], np.int8), np.array([1], np.int8)], opset_version=20)
    (z,) = onnx_backend.run_node(node, [np.array([1], np.uint8), np.array([1], np.uint8)], opset_version=20)
    assert z.tolist() == [2]
    with pytest.raises(fastbits.TypeConstraintError, match="BitShift-11 does not take"):
        onnx_backend.run_model(_op_model("BitShift", TP.INT32, 20, shape=[3], direction="LEFT"),
                               [np.zeros(3, np.int32), np.ones(3, np.int32)])


@pytest.mark.parametrize("direction", ["left", "Left", "LEFT"])
def test_bitshift_direction_in_any_case(direction, kernels):
    (c,) = _fastbits(_op_model("BitShift", TP.UINT8, 18, direction=direction)).run(None, U8)
    assert c.tolist() == [64, 0, 0]


def test_bitshift_bad_direction():
    with pytest.raises(fastbits.ArgumentValueError, match=r"^BitShift: attribute 'direction' is 'UP'"):
        _fastbits(_op_model("BitShift", TP.UINT8, 18, direction="UP")).run(None, U8)
    with pytest.raises(RuntimeError, match="'direction' is expected"):  # the evaluator's own check
        _fastbits(_op_model("BitShift", TP.UINT8, 18)).run(None, U8)


def _hash_model(opset):
    """A mixing step of the kind hashes use: h = ~((x ^ (x << 13)) ^ ((x ^ (x << 13)) >> 7)) | 1."""
    return _model(
        [
            oh.make_node("BitShift", ["x", "k13"], ["s1"], direction="LEFT"),
            oh.make_node("BitwiseXor", ["x", "s1"], ["x1"]),
            oh.make_node("BitShift", ["x1", "k7"], ["s2"], direction="RIGHT"),
            oh.make_node("BitwiseXor", ["x1", "s2"], ["x2"]),
            oh.make_node("BitwiseNot", ["x2"], ["x3"]),
            oh.make_node("BitwiseOr", ["x3", "one"], ["h"]),
        ],
        [oh.make_tensor_value_info("x", TP.UINT32, ["n"])],
        [oh.make_tensor_value_info("h", TP.UINT32, ["n"])],
        opset,
        [oh.make_tensor("k13", TP.UINT32, [], [13]), oh.make_tensor("k7", TP.UINT32, [], [7]),
         oh.make_tensor("one", TP.UINT32, [], [1])],
    )


@pytest.mark.parametrize("opset", [18, onnx.defs.onnx_opset_version()])
def test_hashing_model(opset, kernels):
    model = _hash_model(opset)
    onnx.checker.check_model(model, full_check=True)
    x = np.random.default_rng(opset).integers(0, 2**32, 1000, dtype=np.uint32)
    x1 = x ^ (x << np.uint32(13))
    expected = ~(x1 ^ (x1 >> np.uint32(7))) | np.uint32(1)
    (h,) = onnx_backend.run_model(model, [x])
    assert h.dtype == np.uint32 and np.array_equal(h, expected)
    assert [kernels[k].calls for k in ("bitshift", "bitwise_xor", "bitwise_not", "bitwise_or")] == [2, 2, 1, 1]
    (h_onnx,) = ReferenceEvaluator(model).run(None, {"x": x})  # onnx agrees
    assert np.array_equal(h_onnx, expected)


@pytest.mark.parametrize("op", ["BitwiseOr", "BitwiseXor", "BitShift"])
def test_mixed_byte_order_read_by_value(op):
    attributes = {"direction": "RIGHT"} if op == "BitShift" else {}
    if op == "BitShift" and not HAS_BITSHIFT_28:
        pytest.skip(f"onnx {onnx.__version__} has no BitShift-28")
    a, b = np.array([256, -512, 0x1234], ">i2"), np.array([1, 1, 4], "<i2")
    model = _op_model(op, TP.INT16, onnx.defs.onnx_opset_version(), **attributes)
    (c,) = _fastbits(model).run(None, {"a": a, "b": b})
    native = a.astype("<i2")
    expected = {"BitwiseOr": native | b, "BitwiseXor": native ^ b, "BitShift": native >> b}[op]
    assert c.dtype == np.dtype("=i2") and c.tolist() == expected.tolist()


def test_reference_evaluator_refuses_mixed_byte_order():
    """onnx's binary operators compare dtypes: '>i2' is not int16 (fastbits reads the values)."""
    for op, attributes in (("BitwiseOr", {}), ("BitwiseXor", {}), ("BitShift", {"direction": "RIGHT"})):
        feeds = {"a": np.array([256, -512], ">i2"), "b": np.array([1, 1], "<i2")}
        try:
            ReferenceEvaluator(_op_model(op, TP.INT16, 18, **attributes)).run(None, feeds)
        except RuntimeError as exc:  # onnx's RuntimeTypeError
            assert "Input type mismatch: >i2 != int16" in str(exc)
        else:
            pytest.skip(f"onnx {onnx.__version__} runs {op} on mixed byte orders now")


def test_reference_evaluator_runs_signed_bitshift_at_opset_20():
    """onnx's evaluator runs BitShift-28 whatever the opset: a signed BitShift in an opset-20
    model (BitShift-11, unsigned only, which the full checker refuses) runs."""
    model = _op_model("BitShift", TP.INT8, 20, shape=[3], direction="RIGHT")
    with pytest.raises(onnx.shape_inference.InferenceError, match=r"unsupported type: tensor\(int8\)"):
        onnx.checker.check_model(model, full_check=True)
    try:
        (c,) = ReferenceEvaluator(model).run(None, I8)
    except Exception:  # noqa: BLE001
        pytest.skip(f"onnx {onnx.__version__} refuses it now")
    assert c.tolist() == [-4, 0, 0]


@pytest.mark.parametrize(
    "op, opset, feeds",
    [("BitwiseOr", 17, U8), ("BitwiseXor", 17, U8), ("BitwiseNot", 17, {"a": U8["a"]}), ("BitShift", 10, U8)],
)
def test_reference_evaluator_runs_operators_before_their_opset(op, opset, feeds):
    attributes = {"direction": "LEFT"} if op == "BitShift" else {}
    model = _op_model(op, TP.UINT8, opset, shape=[3], **attributes)
    with pytest.raises(onnx.checker.ValidationError, match=f"No Op registered for {op}"):
        onnx.checker.check_model(model)
    try:
        ReferenceEvaluator(model).run(None, feeds)
    except Exception:  # noqa: BLE001
        pytest.skip(f"onnx {onnx.__version__} refuses it now")


@pytest.mark.parametrize("op", ["BitwiseOr", "BitwiseXor", "BitwiseNot"])
def test_reference_evaluator_accepts_bool(op):
    """bool is not in T; onnx's evaluator computes numpy's logical result (fastbits refuses it)."""
    feeds = {"a": np.array([True, False, True]), "b": np.array([True, True, False])}
    if op == "BitwiseNot":
        del feeds["b"]
    model = _op_model(op, TP.BOOL, 18, shape=[3])
    with pytest.raises(fastbits.TypeConstraintError, match=r"tensor\(bool\)"):
        _fastbits(model).run(None, feeds)
    try:
        (c,) = ReferenceEvaluator(model).run(None, feeds)
    except TypeError:
        pytest.skip(f"onnx {onnx.__version__} refuses it now")
    expected = {"BitwiseOr": [True, True, True], "BitwiseXor": [False, True, True], "BitwiseNot": [False, True, False]}
    assert c.tolist() == expected[op]


def test_reference_evaluator_refuses_lower_case_direction():
    """onnx's evaluator takes "LEFT" and "RIGHT" only; fastbits takes any case (the checker
    says nothing of the attribute's value)."""
    model = _op_model("BitShift", TP.UINT8, 18, shape=[3], direction="left")
    onnx.checker.check_model(model, full_check=True)
    try:
        ReferenceEvaluator(model).run(None, U8)
    except ValueError as exc:
        assert "Unexpected value for direction ('left')" in str(exc)
    else:
        pytest.skip(f"onnx {onnx.__version__} takes it now")


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_reference_evaluator_agrees_on_amounts_out_of_range(dtype):
    """Where onnx's evaluator and fastbits agree: BitShift-28's out-of-range amounts (numpy
    defines shifts by the width or more as fastbits does), negative ones included."""
    if np.dtype(dtype).kind == "i" and not HAS_BITSHIFT_28:
        pytest.skip(f"onnx {onnx.__version__} has no BitShift-28")
    width = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    x = np.array([1, info.max, info.min, info.min, 5, 7, -1 if info.min else 9, 3, info.max], dtype)
    y = np.array([width, width + 1, width - 1, width, 2 * width, info.max, info.min, -1 if info.min else 0,
                  info.min], dtype)
    opset = onnx.defs.onnx_opset_version()
    elem_type = int(spec.datatype_of(dtype))
    for direction in ("LEFT", "RIGHT"):
        model = _op_model("BitShift", elem_type, opset, shape=[9], direction=direction)
        (ours,) = _fastbits(model).run(None, {"a": x, "b": y})
        (theirs,) = ReferenceEvaluator(model).run(None, {"a": x, "b": y})
        assert ours.tolist() == theirs.tolist()


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


def test_bitcast_of_float6_refused_with_the_reason_and_by_the_checker():
    """fastbits says why (BitCast-26's T1 is the IR-13 types); onnx's full checker refuses the
    model the reference evaluator runs."""
    with pytest.raises(fastbits.TypeConstraintError, match=r"not in T1: BitCast-26's T1 and T2 are the tensor types of IR version 13"):
        _fastbits(_bitcast_model(TP.UINT8, TP.UINT8)).run(None, {"x": FLOAT6})
    if not hasattr(TP, "FLOAT6E2M3"):
        pytest.skip(f"onnx {onnx.__version__} has no 6-bit types")
    model = _bitcast_model(TP.FLOAT6E2M3, TP.UINT8, opset=28, shape=[3])
    with pytest.raises(onnx.shape_inference.InferenceError, match=r"unsupported type: tensor\(float6e2m3\)"):
        onnx.checker.check_model(model, full_check=True)


needs_6_bit = pytest.mark.skipif(onnx_6bit() is None, reason=f"onnx {onnx.__version__} does not pack 6-bit types")
FLOAT6_VALUES = [0.0, 1.0, -6.0, 0.125, -0.0]  # in both 6-bit types


@needs_6_bit
@pytest.mark.parametrize("dtype", [ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn])
def test_reference_evaluator_reads_6_bit_initializers_as_unpack_does(dtype):
    """A packed 6-bit initializer: the reference evaluator reads it with to_array (one value per
    byte), the bits fastbits.unpack gives; it runs Identity (the full checker refuses
    tensor(float6e2m3) for Identity's V) and Cast to float."""
    x = np.array(FLOAT6_VALUES, dtype)
    init = onnx.numpy_helper.from_array(x, "w")
    code = spec.datatype_of(np.dtype(dtype))
    expected = fastbits.unpack(init.raw_data, init.data_type, tuple(init.dims))
    assert bits(expected) == bits(x)
    for op, out_type, attrs in (("Identity", int(code), {}), ("Cast", TP.FLOAT, {"to": TP.FLOAT})):
        model = _model([oh.make_node(op, ["w"], ["y"], **attrs)], [],
                       [oh.make_tensor_value_info("y", out_type, [5])], 28, [init])
        (y,) = ReferenceEvaluator(model).run(None, {})
        if op == "Identity":
            assert y.dtype == np.dtype(dtype) and bits(y) == bits(expected)
            with pytest.raises(onnx.shape_inference.InferenceError, match=r"unsupported type: tensor\(float6e"):
                onnx.checker.check_model(model, full_check=True)
        else:
            assert y.tolist() == FLOAT6_VALUES and np.signbit(y).tolist() == [False, False, True, False, True]


@needs_6_bit
def test_from_array_packs_the_low_6_bits_of_a_byte_pack_packs_the_value():
    """Bytes 0x40 and 0x85 read as -0.0 and -0.625: from_array packs their low 6 bits (+0.0,
    +0.625), fastbits the bits of the values read (0x20, 0x25)."""
    x = np.array([0x40, 0x85], np.uint8).view(ml_dtypes.float6_e2m3fn)
    assert x.tolist() == [-0.0, -0.625] and np.signbit(x.astype(np.float32)).all()
    theirs = onnx.numpy_helper.to_array(onnx.numpy_helper.from_array(x))
    assert theirs.view(np.uint8).tolist() == [0x00, 0x05] and theirs.tolist() == [0.0, 0.625]
    assert fastbits.pack(x).tolist() == [96, 9]
    assert fastbits.unpack(fastbits.pack(x), "FLOAT6E2M3", (2,)).view(np.uint8).tolist() == [0x20, 0x25]


@needs_6_bit
def test_to_array_reads_longer_6_bit_data_unpack_refuses_it():
    tensor = onnx.numpy_helper.from_array(np.array(FLOAT6_VALUES, ml_dtypes.float6_e2m3fn))
    assert len(tensor.raw_data) == 4
    tensor.raw_data += b"\xff\xff"
    assert onnx.numpy_helper.to_array(tensor).tolist() == FLOAT6_VALUES
    with pytest.raises(fastbits.ArgumentValueError, match=r"has 6 bytes, but shape \(5,\) of tensor\(float6e2m3\) packs into 4 bytes"):
        fastbits.unpack(tensor.raw_data, tensor.data_type, tuple(tensor.dims))
    tensor.raw_data = tensor.raw_data[:3]
    with pytest.raises(ValueError, match="too small"):
        onnx.numpy_helper.to_array(tensor)


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


# --------------------------------------------------------------------------
# fastbits.onnx_ops.ReferenceEvaluator: fastbits' operators by default, initializers read by
# fastbits.onnx_tensors


def _int4_cast_model(raw: bytes, count: int = 3):
    w = TP()
    w.name, w.data_type, w.raw_data = "w", TP.INT4, raw
    w.dims.extend([count])
    node = oh.make_node("Cast", ["w"], ["y"], to=TP.FLOAT)
    return _model([node], [], [oh.make_tensor_value_info("y", TP.FLOAT, [count])], 21, [w])


def test_reference_evaluator_runs_fastbits_by_default(kernels):
    model = _int4_cast_model(bytes([0xE1, 0x07]))  # 1, -2, 7
    (result,) = onnx_ops.ReferenceEvaluator(model).run(None, {})
    assert result.tolist() == [1.0, -2.0, 7.0]
    assert kernels["cast"].calls == 1


def test_reference_evaluator_reads_initializers_strictly():
    """A padding bit set in a packed initializer: onnx's evaluator reads it, fastbits' refuses
    it when the model is loaded, naming the tensor."""
    model = _int4_cast_model(bytes([0xE1, 0x17]))
    assert ReferenceEvaluator(model).run(None, {})[0].tolist() == [1.0, -2.0, 7.0]
    with pytest.raises(fastbits.TensorDataError, match=r"tensor 'w' \(INT4, dims \[3\]\): the padding bits"):
        onnx_ops.ReferenceEvaluator(model)


def test_reference_evaluator_new_ops_come_first(kernels):
    class Cast(onnx_ops.Cast):
        def _run(self, x, saturate=None, to=None, round_mode=None):
            return (np.full(x.shape, 42.0, np.float32),)

    (result,) = onnx_ops.ReferenceEvaluator(_int4_cast_model(bytes([0xE1, 0x07])), new_ops=[Cast]).run(None, {})
    assert result.tolist() == [42.0] * 3 and kernels["cast"].calls == 0
    assert isinstance(onnx_ops.ReferenceEvaluator(_int4_cast_model(bytes([0xE1, 0x07]))), ReferenceEvaluator)
