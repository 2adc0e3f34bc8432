"""Every example of the two operator specs is a test, under the example's own name.

The examples live in ``fastbits._examples`` (``python -m fastbits`` runs them
too); ``test_examples_match_spec_text`` holds that table against the spec
files themselves when they are present (``../shared/spec`` beside the repo).
"""

from __future__ import annotations

import ast
import pathlib
import re

import numpy as np
import pytest

from fastbits._examples import EXAMPLES
from fastbits.spec import BITCAST

SPEC_DIR = pathlib.Path(__file__).resolve().parents[2] / "shared" / "spec"


def _make_test(example):
    def test(ops):
        result = example.run(ops.bitwise_and, ops.bitcast)
        assert result.dtype == example.expected.dtype
        assert result.shape == example.expected.shape
        if example.expected.dtype.kind == "f":
            np.testing.assert_allclose(result, example.expected, rtol=1e-8, atol=0)
        else:
            np.testing.assert_array_equal(result, example.expected)
        if example.op == BITCAST:
            # exact bits: casting back gives the input bit for bit
            back = ops.bitcast(result, example.inputs[0].dtype)
            assert back.tobytes() == example.inputs[0].tobytes()

    test.__name__ = example.name
    test.__doc__ = f"Spec example {example.name} ({example.op})."
    return test


for _example in EXAMPLES:
    globals()[_example.name] = _make_test(_example)
del _example


def _spec_text(name):
    path = SPEC_DIR / name
    if not path.exists():
        pytest.skip(f"spec file {path} not present")
    return path.read_text()


def test_example_names_match_spec_text():
    names = set(re.findall(r"\*\*(test_\w+)\*\*", _spec_text("onnx-BitCast-26.txt")))
    names |= set(re.findall(r'name="(test_\w+)"', _spec_text("onnx-BitwiseAnd-18.txt")))
    assert names == {example.name for example in EXAMPLES}
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
