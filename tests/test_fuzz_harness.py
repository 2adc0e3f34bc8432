"""The fuzz harness (fuzz/fuzz_ops.py) on a fixed set of random inputs: no finding.

The harness compares the compiled path with the pure one, BitwiseAnd, Or, Xor and Not with
numpy and BitShift with its own reference; long runs are ``python fuzz/fuzz_ops.py
--seconds N`` (or ``--atheris``).
"""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

HARNESS = pathlib.Path(__file__).resolve().parents[1] / "fuzz" / "fuzz_ops.py"


@pytest.fixture(scope="module")
def harness():
    if not HARNESS.exists():
        pytest.skip("fuzz/fuzz_ops.py not beside the tests")
    module_spec = importlib.util.spec_from_file_location("fuzz_ops", HARNESS)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def test_fuzz_inputs_give_results_or_clear_errors(harness):
    rng = np.random.default_rng(20261129)
    for _ in range(600):
        harness.check_one(rng.integers(0, 256, size=int(rng.integers(0, 3000)), dtype=np.uint8).tobytes())


def test_fuzz_edge_inputs(harness):
    for data in (b"", b"\x00" * 10, b"\xff" * 4000, bytes(range(256)) * 8):
        harness.check_one(data)
