"""The package: backend selection, cheap import, the main job, the public names."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

import fastbits

from conftest import COMPILED, REQUIRE_COMPILED


# Subprocesses run from an empty directory: from the repo root, ``-c`` and ``-m`` would
# import the source tree instead of the installed package.
NEUTRAL_DIR = tempfile.mkdtemp(prefix="fastbits-tests-")


def _run(code, **env):
    environment = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True,
        cwd=NEUTRAL_DIR,
    ).stdout.strip()


def test_backend_is_one_of_two():
    assert fastbits.BACKEND in ("cython", "python")


def test_compiled_module_loaded():
    """Fails in a compiled env (FASTBITS_REQUIRE_EXTENSIONS=1) when the extension did not load."""
    if fastbits._ops.PURE_PYTHON:
        assert fastbits.BACKEND == "python"
        pytest.skip("FASTBITS_PURE_PYTHON is set")
    if not REQUIRE_COMPILED and COMPILED is None:
        pytest.skip("compiled path not built and not required")
    assert COMPILED is not None, "fastbits._ops_c did not import"
    assert fastbits.BACKEND == "cython"
    assert fastbits.bitwise_and is COMPILED.bitwise_and
    assert fastbits.bitcast is COMPILED.bitcast


def test_pure_python_env_forces_pure_path():
    assert _run("import fastbits; print(fastbits.BACKEND)", FASTBITS_PURE_PYTHON="1") == "python"
    code = "import fastbits, fastbits._ops_py as p; print(fastbits.bitcast is p.bitcast)"
    assert _run(code, FASTBITS_PURE_PYTHON="1") == "True"


def test_import_does_not_import_onnx():
    code = "import sys, fastbits; print(sorted(m for m in ('onnx', 'onnxruntime', 'hypothesis', 'pytest') if m in sys.modules))"
    assert _run(code) == "[]"


def test_public_names():
    for name in fastbits.__all__:
        assert hasattr(fastbits, name), name
    assert fastbits.DataType is fastbits.spec.DataType


def test_thread_api(ops):
    before = ops.get_num_threads()
    assert isinstance(before, int) and before >= 1
    try:
        ops.set_num_threads(1)
        assert ops.get_num_threads() == 1
    finally:
        ops.set_num_threads(before)
    with pytest.raises(fastbits.ArgumentValueError):
        ops.set_num_threads(0)


def test_main_job_passes():
    result = subprocess.run([sys.executable, "-m", "fastbits"], capture_output=True, text=True, cwd=NEUTRAL_DIR)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert f"fastbits {fastbits.__version__}" in out
    assert f"backend: {fastbits.BACKEND}" in out
    assert "threads: " in out and "numpy: " in out and "ml_dtypes: " in out
    assert out.count("PASS") == 18 and "FAIL" not in out
    assert "18 passed, 0 failed" in out


def test_main_job_reports_failures(monkeypatch, capsys):
    import fastbits.__main__ as main

    monkeypatch.setattr(main.fastbits, "bitcast", lambda x, to: x)  # wrong: no reinterpretation
    assert main.main([]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "14 failed" in out and "test_bitwise_and_i32_2d  " in out
