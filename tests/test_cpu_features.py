"""The loops' instruction sets: chosen at run time, and the baseline loops testable on a machine
whose CPU has more (FASTBITS_DISABLE_CPU_FEATURES, read once at import)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

import fastbits
from fastbits import _cpus

TESTS = pathlib.Path(__file__).parent
#: The tests of the loops against the pure path and numpy: every kernel family (bitwise and
#: shifts, BitCast's copies, Cast's conversions and tables, Q/DQ, packing, MatMulInteger's
#: product and DynamicQuantizeLinear's range), every layout.
DIFFERENTIAL = ["test_compiled.py", "test_bitshift.py", "test_bitcast.py", "test_packing.py",
                "test_quantize.py::test_paths_agree_on_random_arrays",
                "test_quantized_arithmetic.py::test_matmul_types_and_zero_points",
                "test_quantized_arithmetic.py::test_matmul_shapes",
                "test_quantized_arithmetic.py::test_dynamic_range_anywhere",
                "test_cast.py::test_float32_and_float16_both_ways_bit_for_bit"]


def test_runtime_info_names_the_features_in_use():
    features = fastbits.runtime_info()["cpu_features"]
    assert set(features) <= set(_cpus.CPU_FEATURES)
    disabled = os.environ.get("FASTBITS_DISABLE_CPU_FEATURES", "").upper()
    assert not any(feature in disabled for feature in features)
    if fastbits.BACKEND == "python":
        assert features == []


@pytest.mark.parametrize(("value", "allowed"), [
    ("", ("AVX2", "F16C")), ("AVX2", ("F16C",)), ("avx2", ("F16C",)), (" avx2 ,", ("F16C",)),
    ("AVX2,AVX2", ("F16C",)), ("f16c", ("AVX2",)), ("AVX2 F16C", ()), ("f16c,avx2", ()),
])
def test_the_environment_variable_names_features(value, allowed):
    assert _cpus.allowed_cpu_features(value) == allowed


def test_an_unknown_feature_is_ignored_with_a_warning():
    with pytest.warns(RuntimeWarning, match="names AVX9, SSE7, which the loops have no version for"):
        assert _cpus.allowed_cpu_features("sse7 AVX2 avx9") == ("F16C",)


@pytest.mark.compiled
@pytest.mark.thread_unsafe
def test_baseline_loops_pass_the_differential_tests():
    """Where the loops use a CPU feature (AVX2's versions, F16C's conversions), the differential
    tests again in a process that disables every one: the baseline loops are then checked on
    this machine too. On the compiled path only: the pure path has no loops, and this run
    already tested it. (F16C alone disabled, under AVX2, is the portable C that
    benchmarks/exhaustive_float16.py holds to F16C on every input.)"""
    if not fastbits.runtime_info()["cpu_features"]:
        pytest.skip("the loops run their baseline versions already (no feature here, or disabled)")
    env = {**os.environ, "FASTBITS_DISABLE_CPU_FEATURES": ",".join(_cpus.CPU_FEATURES)}
    tests = [str(TESTS / name) for name in DIFFERENTIAL]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", "--paths=cython",
         str(TESTS / "test_cpu_features.py::test_runtime_info_names_the_features_in_use"), *tests],
        env=env, capture_output=True, text=True, cwd=tempfile.gettempdir(),
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]
