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
