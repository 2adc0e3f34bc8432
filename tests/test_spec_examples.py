"""Every example ``python -m fastbits`` checks is a test, under the example's own name.

The examples live in ``fastbits._examples``: the two operator specs' examples,
ONNX's node tests of the other operators, a pack / unpack round trip of each
sub-byte type.  ``test_examples_match_spec_text`` holds the spec examples against
the spec files themselves when they are present (``../shared/spec`` beside the
repo); ``test_node_test_examples_match_onnx`` holds the node tests against the
installed onnx's, and the packed bytes against onnx's own packing.
"""

from __future__ import annotations

import ast
import pathlib
import re

import numpy as np
import pytest

from fastbits import spec
from fastbits._examples import EXAMPLES, PACK_UNPACK
from fastbits.spec import BITCAST, BITWISE_AND

from support import onnx_6bit, onnx_node_tests_generated

SPEC_DIR = pathlib.Path(__file__).resolve().parents[2] / "shared" / "spec"


def _make_test(example):
    if example.op == PACK_UNPACK:
        def test(packing):
            assert example.failure(packing) is None
    else:
        def test(ops):
            result = example.run(ops)
            assert result.dtype == example.expected.dtype
            assert result.shape == example.expected.shape
            if example.expected.dtype.kind == "f":
                np.testing.assert_allclose(result, example.expected, rtol=1e-8, atol=0)
            else:
                np.testing.assert_array_equal(result, example.expected)
            # and a BitCast output casts back to the input bit for bit
            assert example.failure(ops) is None

    test.__name__ = _test_name(example)
    test.__doc__ = f"Example {example.name} ({example.group})."
    return test


def _test_name(example):
    name = example.name if example.name.startswith("test_") else f"test_{example.name}"
    return name if example.version in (None, spec.SINCE_VERSION.get(example.op)) else f"{name}_{example.version}"


for _example in EXAMPLES:
    globals()[_test_name(_example)] = _make_test(_example)
del _example


def test_every_example_is_a_test():
    assert len({_test_name(example) for example in EXAMPLES}) == len(EXAMPLES) == 95


def test_bitshift_11_examples_refuse_signed_types(ops):
    """A BitShift-11 example runs the operator as BitShift-11, which takes unsigned types only."""
    example = next(e for e in EXAMPLES if e.group == "BitShift-11")
    signed = type(example)(example.name, example.op, tuple(x.astype(np.int8) for x in example.inputs),
                           example.expected.astype(np.int8), example.attributes, 11)
    with pytest.raises(TypeError, match="BitShift-11 does not take"):
        signed.run(ops)


def test_node_test_examples_match_onnx():
    """The node tests carried as data are onnx's, input for input; the packed bytes are what
    ``onnx.numpy_helper.from_array`` stores."""
    pytest.importorskip("onnx")
    import onnx.helper
    import onnx.numpy_helper
    from onnx.backend.test.case.node import collect_testcases

    with onnx_node_tests_generated():
        # every node test (onnx keeps the first collection's list for the process; ~5 s); onnx
        # before 1.21 collects one operator's at a time
        try:
            collected = collect_testcases()
        except TypeError:
            collected = [case for op in ("BitwiseOr", "BitwiseXor", "BitwiseNot", "BitShift")
                         for case in collect_testcases(op)]
        cases = {case.name: case for case in collected}
    checked = 0
    absent = []
    for example in EXAMPLES:
        if example.op in (BITWISE_AND, BITCAST, spec.CAST):  # Cast's come from the texts, not node tests
            continue
        if example.op in (spec.QUANTIZE, spec.DEQUANTIZE, spec.MATMUL_INTEGER, spec.QLINEAR_MATMUL) and not \
                example.name.startswith("test_"):
            continue  # the granularities and the text's cases: fastbits' own
        if example.op == PACK_UNPACK:
            if spec.bit_width(spec.datatype_of(example.inputs[0].dtype)) == 6 and onnx_6bit() is None:
                absent.append(example.name)  # an onnx before the 6-bit floats (1.23)
                continue
            raw = onnx.numpy_helper.from_array(example.inputs[0]).raw_data
            assert list(raw) == example.expected.tolist(), example.name
            checked += 1
            continue
        if example.name not in cases:  # an onnx before the node test (BitShift-28's came later)
            absent.append(example.name)
            continue
        case = cases[example.name]
        (inputs, outputs), = case.data_sets
        (node,) = case.model.graph.node
        assert node.op_type == example.op, example.name
        assert {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute} == {
            name: value.encode() if isinstance(value, str) else value for name, value in example.attributes.items()
        }, example.name
        for got, want in zip((*example.inputs, *example.outputs), (*inputs, *outputs), strict=True):
            if isinstance(want, onnx.TensorProto):  # the narrow types' node tests hold tensors
                want = onnx.numpy_helper.to_array(want)
            assert got.dtype == want.dtype and got.shape == want.shape, example.name
            np.testing.assert_array_equal(got, want, example.name)
        checked += 1
    assert checked + len(absent) == 4 + 4 + 3 + 8 + 28 + 7 + 3 + 3 + 1 + 1
    # the examples were taken from onnx 1.23's node tests: from it on, every one is there
    assert not absent or tuple(int(p) for p in onnx.__version__.split(".")[:2]) < (1, 23), absent


def _spec_text(name):
    path = SPEC_DIR / name
    if not path.exists():
        pytest.skip(f"spec file {path} not present")
    return path.read_text()


def test_example_names_match_spec_text():
    names = set(re.findall(r"\*\*(test_\w+)\*\*", _spec_text("onnx-BitCast-26.txt")))
    names |= set(re.findall(r'name="(test_\w+)"', _spec_text("onnx-BitwiseAnd-18.txt")))
    assert names == {example.name for example in EXAMPLES if example.op in (BITWISE_AND, BITCAST)}
    assert len(names) == 18


def _literal(text):
    text = re.sub(r"(?<=\d)\.(?=[\s,\]])", ".0", text.strip())  # "1." -> "1.0"
    text = re.sub(r"(?<=[\d.\]])\s+(?=[-\d\[])", ", ", text)  # numpy spacing -> commas
    return ast.literal_eval(text)


def _parse_bitcast_example(chunk):
    """``(to, x_dtype, x, y_dtype, y)`` from one example's text in the BitCast spec."""
    match = re.search(
        r"to = (\d+).*?x: shape=\([^)]*\), dtype=(\w+)\s+(.*?)\s+Outputs:\s+"
        r"y: shape=\([^)]*\), dtype=(\w+)\s+(.*)$",
        chunk,
        re.S,
    )
    to, x_dtype, x_text, y_dtype, y_text = match.groups()
    return int(to), x_dtype, _literal(x_text), y_dtype, _literal(y_text)


def test_bitcast_examples_match_spec_text():
    chunks = re.split(r"\*\*(test_\w+)\*\*", _spec_text("onnx-BitCast-26.txt"))[1:]
    found = {name: _parse_bitcast_example(chunk) for name, chunk in zip(chunks[::2], chunks[1::2])}
    examples = {e.name: e for e in EXAMPLES if e.op == BITCAST}
    assert set(found) == set(examples)
    for name, (to, x_dtype, x, y_dtype, y) in found.items():
        example = examples[name]
        assert example.attributes["to"] == to, name
        assert example.inputs[0].dtype == np.dtype(x_dtype), name
        assert example.expected.dtype == np.dtype(y_dtype), name
        np.testing.assert_array_equal(example.inputs[0], np.array(x, x_dtype), name)
        np.testing.assert_array_equal(example.expected, np.array(y, y_dtype), name)
