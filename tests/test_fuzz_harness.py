"""The fuzz harness (fuzz/fuzz_ops.py) on a fixed set of random inputs: no finding.

The harness compares the compiled path with the pure one, BitwiseAnd, Or, Xor and Not with
numpy and BitShift with its own reference; long runs are ``python fuzz/fuzz_ops.py
--seconds N`` (or ``--atheris``).
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from support import module_from_file

HARNESS = pathlib.Path(__file__).resolve().parents[1] / "fuzz" / "fuzz_ops.py"


@pytest.fixture(scope="module")
def harness():
    return module_from_file(HARNESS, "fuzz_ops")


def test_fuzz_inputs_give_results_or_clear_errors(harness):
    rng = np.random.default_rng(20261129)
    for _ in range(600):
        harness.check_one(rng.integers(0, 256, size=int(rng.integers(0, 3000)), dtype=np.uint8).tobytes())


def test_fuzz_edge_inputs(harness):
    for data in (b"", b"\x00" * 10, b"\xff" * 4000, bytes(range(256)) * 8):
        harness.check_one(data)
