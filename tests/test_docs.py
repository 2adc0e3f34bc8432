"""The examples in the README and in the docstrings run as shown."""

from __future__ import annotations

import doctest
import importlib
import pathlib

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_readme_examples():
    if not README.exists():
        pytest.skip("README.md not beside the tests")
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5
    assert result.failed == 0


@pytest.mark.parametrize("name", ["fastbits", "fastbits._ops_py", "fastbits._packing_py"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


PUBLIC_FUNCTIONS = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitshift", "bitcast"]


@pytest.mark.parametrize("name", PUBLIC_FUNCTIONS)
def test_help_shows_the_one_docstring(name, ops):
    """help() on either path shows the reference's whole docstring, once, with the signature
    once, and sends nobody to a private module."""
    import pydoc

    reference = getattr(importlib.import_module("fastbits._ops_py"), name)
    function = getattr(ops, name)
    assert function.__doc__ == reference.__doc__
    text = pydoc.render_doc(function, renderer=pydoc.plaintext)
    for section in ("Parameters", "Returns", "Raises", "Examples"):
        assert text.count(section + "\n") == 1, (name, section)
    assert text.count(f"{name}(") - text.count(f"fastbits.{name}(") == 1, text[:400]
    assert "_ops_py" not in function.__doc__ and "_ops_c" not in function.__doc__


@pytest.mark.parametrize("name", ["pack", "unpack"])
def test_help_shows_the_packing_docstring(name, packing):
    import pydoc

    reference = getattr(importlib.import_module("fastbits._packing_py"), name)
    function = getattr(packing, name)
    assert function.__doc__ == reference.__doc__
    text = pydoc.render_doc(function, renderer=pydoc.plaintext)
    assert text.count("Parameters\n") == 1 and "_packing_py" not in function.__doc__


def test_expectations_example_runs():
    """docs/expectations.md's example, benchmarks/int4_unpacking_graph.py, runs on a small input:
    it checks that every runner computes the same weights, and prints both tables."""
    pytest.importorskip("onnx")
    import subprocess
    import sys

    script = README.parent / "benchmarks" / "int4_unpacking_graph.py"
    if not script.exists():
        pytest.skip("benchmarks/ not beside the tests")
    result = subprocess.run([sys.executable, str(script), "--size", "64", "--repeat", "1"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("ReferenceEvaluator + fastbits ") for line in lines)
    start = next(i for i, line in enumerate(lines) if line.startswith("per node")) + 1
    assert [line.split()[0] for line in lines[start:]] == ["low", "high", "both", "floats", "zeroed", "Y"]
    assert "docs/expectations.md" in README.read_text()
