"""The package: backend selection, cheap import, the main job, the public names."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

import fastbits
from fastbits import spec
from fastbits._examples import EXAMPLES

from support import COMPILED, REQUIRE_COMPILED, run_into_closed_pipe, run_python


# Subprocesses run from an empty directory: from the repo root, ``-c`` and ``-m`` would
# import the source tree instead of the installed package.
NEUTRAL_DIR = tempfile.mkdtemp(prefix="fastbits-tests-")




def test_backend_is_one_of_two():
    assert fastbits.BACKEND in ("cython", "python")


def test_compiled_module_loaded():
    """Fails in a compiled env (FASTBITS_REQUIRE_EXTENSIONS=1) when the extension did not load."""
    if fastbits._ops.PURE_PYTHON:
        assert fastbits.BACKEND == "python"
        pytest.skip("FASTBITS_PURE_PYTHON is set")
    if not REQUIRE_COMPILED and COMPILED is None:
        pytest.skip("compiled path not built and not required")
    assert COMPILED is not None, "fastbits' compiled modules did not import"
    assert fastbits.BACKEND == "cython"
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitshift", "bitcast", "pack", "unpack"):
        assert getattr(fastbits, name) is getattr(COMPILED, name), name


def test_pure_python_env_forces_pure_path():
    assert run_python("import fastbits; print(fastbits.BACKEND)", FASTBITS_PURE_PYTHON="1").stdout.strip() == "python"
    code = "import fastbits; print(fastbits.bitcast is fastbits._ops.load('python').bitcast)"
    assert run_python(code, FASTBITS_PURE_PYTHON="1").stdout.strip() == "True"


HEAVY = ('ml_dtypes', 'onnx', 'onnxruntime', 'dask', 'distributed', 'xarray', 'hypothesis', 'pytest')


@pytest.mark.parametrize("pure", ["", "1"], ids=["default", "pure"])
def test_import_does_not_import_heavy_modules(pure):
    """``import fastbits`` stays cheap: no ml_dtypes (most of a second), onnx or dask."""
    code = f"import sys, fastbits; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    assert run_python(code, FASTBITS_PURE_PYTHON=pure).stdout.strip() == "[]"


@pytest.mark.parametrize("pure", ["", "1"], ids=["default", "pure"])
def test_ml_dtypes_is_imported_when_a_call_needs_it(pure):
    """Calls on numpy's own types (errors that list ml_dtypes' types by name included) leave
    ml_dtypes alone; the first call that needs one of its types imports it and works, on both
    paths, and so do calls on arrays the user made with ml_dtypes imported first."""
    code = """if True:
        import sys
        import numpy as np
        import fastbits
        x = np.arange(6, dtype=np.uint8)
        fastbits.bitwise_and(x, x); fastbits.bitshift(x, 1, "LEFT"); fastbits.bitcast(x, "int8")
        fastbits.bitcast(np.ones(2, np.float32), fastbits.DataType.INT32, copy=True)
        for bad in ((x, "float128"), (x, "int64"), (np.zeros(2, np.longdouble), "int8")):
            try:
                fastbits.bitcast(*bad)
            except fastbits.FastbitsError:
                pass
        print("ml_dtypes" in sys.modules)
        print(fastbits.bitcast(x, "float8_e4m3fn").dtype.name, "ml_dtypes" in sys.modules)
        print(fastbits.unpack(bytes([225, 7]), "int4", (3,)).tolist())
        print(fastbits.pack(fastbits.unpack(bytes([225, 7]), 22, (3,))).tolist())
    """
    assert run_python(code, FASTBITS_PURE_PYTHON=pure).stdout.strip().splitlines() == [
        "False", "float8_e4m3fn True", "[1, -2, 7]", "[225, 7]"
    ]
    code = """if True:
        import ml_dtypes
        import numpy as np
        import fastbits
        x = np.array([1, -2, 7], ml_dtypes.int4)
        for _ in range(2):  # the first call builds the compiled tables, the second takes them
            print(fastbits.pack(x).tolist(), fastbits.bitcast(x, "uint4").tolist())
            print(fastbits.bitcast(np.array([1.5], ml_dtypes.bfloat16), "uint16").tolist())
    """
    assert run_python(code, FASTBITS_PURE_PYTHON=pure).stdout.strip().splitlines() == ["[225, 7] [1, 14, 7]", "[16320]"] * 2


def test_public_names():
    for name in fastbits.__all__:
        assert hasattr(fastbits, name), name
    assert fastbits.DataType is fastbits.spec.DataType


def test_every_public_function_is_an_entry_of_the_registry(ops):
    """spec.FUNCTIONS names each public function once: each path has it, the facade and the
    package export it, and the dispatch point's operand counts are its."""
    names = set(spec.FUNCTIONS)
    assert set(fastbits._ops.Path._fields) - {"name", "runtime"} == names
    assert names <= set(fastbits.__all__) and names <= set(fastbits._ops.__all__)
    for name in names:
        assert getattr(fastbits, name) is getattr(fastbits._ops.active, name), name
        assert getattr(ops, name).__name__ == name
    assert fastbits._dispatch.OPERANDS == {name: f.operands for name, f in spec.FUNCTIONS.items() if f.operands}


@pytest.mark.thread_unsafe  # set_num_threads is process-wide
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


LOCATION = os.path.dirname(os.path.abspath(fastbits.__file__))

# Runs ``python -m fastbits`` after a prelude, e.g. one that hides the compiled module.
MAIN_JOB = "import runpy, sys\n{prelude}\nsys.argv = ['fastbits']\nrunpy.run_module('fastbits', run_name='__main__')"

# A finder that makes ``import fastbits._ops_c`` fail as if it were built but broken.
BROKEN_KERNELS = """
class Broken:
    def find_spec(self, name, path=None, target=None):
        if name == 'fastbits._ops_c':
            raise ImportError('undefined symbol: made up by the test')
sys.meta_path.insert(0, Broken())
"""


def _main_job(prelude="", **env):
    environment = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-c", MAIN_JOB.format(prelude=prelude)], capture_output=True, text=True,
        env=environment, cwd=NEUTRAL_DIR,
    )


def test_main_job_passes():
    result = subprocess.run([sys.executable, "-m", "fastbits"], capture_output=True, text=True, cwd=NEUTRAL_DIR)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert f"fastbits {fastbits.__version__}" in out
    assert f"backend: {fastbits.BACKEND} (" in out
    assert f"imported from: {LOCATION}\n" in out
    # the same environment, so the same outcome: a warning only for a fallback nobody asked for
    assert ("WARNING" in result.stderr) == (fastbits._ops.FALLBACK_REASON is not None)
    assert "threads: " in out and "numpy: " in out and "ml_dtypes: " in out
    assert out.count("PASS") == len(EXAMPLES) == 95 and "FAIL" not in out
    assert f"{len(EXAMPLES)} passed, 0 failed" in out
    # one table, grouped by operator: each operator's rows together, in this order
    table = [line.split()[0] for line in out.splitlines() if line.endswith("PASS")]
    groups = [op for i, op in enumerate(table) if i == 0 or table[i - 1] != op]
    assert groups == ["BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "BitShift-11", "BitShift-28",
                      "BitCast", "pack/unpack", "Cast", "DequantizeLinear", "QuantizeLinear", "DynamicQuantizeLinear",
                      "MatMulInteger", "QLinearMatMul"]
    assert {op: table.count(op) for op in groups} == {
        "BitwiseAnd": 4, "BitwiseOr": 4, "BitwiseXor": 4, "BitwiseNot": 3, "BitShift-11": 8, "BitShift-28": 28,
        "BitCast": 14, "pack/unpack": 7, "Cast": 8, "DequantizeLinear": 3, "QuantizeLinear": 5,
        "DynamicQuantizeLinear": 3, "MatMulInteger": 2, "QLinearMatMul": 2}


def test_main_job_reports_failures(monkeypatch, capsys):
    import fastbits.__main__ as main

    monkeypatch.setattr(main.fastbits, "bitcast", lambda x, to: x)  # wrong: no reinterpretation
    assert main.main([]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "81 passed, 14 failed" in out and "test_bitwise_and_i32_2d  " in out


@pytest.mark.parametrize("name, wrong, failed", [
    ("bitwise_xor", lambda a, b: a, 4),
    ("bitwise_not", lambda x: x, 3),
    ("bitshift", lambda x, y, direction: x << y, 18),  # every right shift
    ("pack", lambda x: x.view("uint8"), 7),
    ("unpack", lambda data, to, shape: fastbits.unpack(bytes(len(data)), to, shape), 7),
    ("bitwise_or", lambda a, b: 1 / 0, 4),
    ("cast", lambda x, to: x, 8),
    ("quantize_linear", lambda x, scale, zero=None, **attributes: x, 5),
    ("dequantize_linear", lambda x, scale, zero=None, **attributes: x, 3),
])
def test_main_job_reports_any_operator_failing(monkeypatch, capsys, name, wrong, failed):
    """A wrong result, or an exception, of any operator fails its rows and the exit status."""
    import fastbits.__main__ as main

    monkeypatch.setattr(main.fastbits, name, wrong)
    assert main.main([]) == 1
    out = capsys.readouterr().out
    assert out.count("  FAIL") == failed and f"{len(EXAMPLES) - failed} passed, {failed} failed" in out


def test_main_job_asked_for_pure_path_does_not_warn():
    result = _main_job(FASTBITS_PURE_PYTHON="1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "backend: python (FASTBITS_PURE_PYTHON is set)\n" in result.stdout
    assert f"imported from: {LOCATION}\n" in result.stdout
    assert "WARNING" not in result.stderr and "never built" not in result.stdout
    assert f"{len(EXAMPLES)} passed, 0 failed" in result.stdout


def test_main_job_warns_when_the_kernels_were_never_built():
    # None in sys.modules: importing fastbits._ops_c raises ModuleNotFoundError, as in a
    # source checkout where the extension was never built.
    result = _main_job("sys.modules['fastbits._ops_c'] = None", FASTBITS_PURE_PYTHON="")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "backend: python (the compiled kernels were never built)\n" in result.stdout
    assert f"imported from: {LOCATION}\n" in result.stdout
    assert f"{len(EXAMPLES)} passed, 0 failed" in result.stdout
    warning = " ".join(result.stderr.split())  # unwrapped
    assert warning.startswith("WARNING: fastbits is running its slow pure-Python path")
    assert "never built (import of fastbits._ops_c halted; None in sys.modules)" in warning
    if _in_checkout():
        assert f"The fastbits imported from {LOCATION} is a source checkout." in warning
        assert "run `./dev setup` from the checkout root" in warning
    else:  # a tox env's install
        assert f"The fastbits installed in {LOCATION} is a pure install" in warning
        assert "pip install --force-reinstall --no-cache-dir fastbits" in warning
    assert all(len(line) <= 88 for line in result.stderr.splitlines())


def _in_checkout() -> bool:
    import fastbits.__main__ as main

    return main._in_checkout()


def test_an_installs_warning_names_pip_not_the_checkout(tmp_path):
    """fastbits copied out of the checkout, as an install holds it (no ``dev``, no setup.py
    beside it), with no kernels: the warning says how to reinstall, not to run ./dev setup."""
    import shutil

    shutil.copytree(LOCATION, tmp_path / "fastbits",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "*.h", "*.pyx", "__pycache__", "_c"))
    import ml_dtypes

    # -S: no site-packages, so no installed (or editable) fastbits; numpy and ml_dtypes by path
    import numpy

    path = [str(tmp_path)] + [os.path.dirname(os.path.dirname(m.__file__)) for m in (numpy, ml_dtypes)]
    result = subprocess.run([sys.executable, "-S", "-m", "fastbits"], capture_output=True, text=True,
                            cwd=NEUTRAL_DIR, env={"PATH": "", "PYTHONPATH": os.pathsep.join(path)})
    assert result.returncode == 0, result.stdout + result.stderr
    warning = " ".join(result.stderr.split())
    assert warning.startswith("WARNING: fastbits is running its slow pure-Python path"), warning
    assert f"installed in {tmp_path / 'fastbits'} is a pure install" in warning
    assert "pip install --force-reinstall --no-cache-dir fastbits" in warning
    assert "./dev setup" not in warning and "checkout" not in warning
    assert all(len(line) <= 88 for line in result.stderr.splitlines())


def test_main_job_warns_when_the_kernels_fail_to_load():
    result = _main_job(BROKEN_KERNELS, FASTBITS_PURE_PYTHON="")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "backend: python (the compiled kernels failed to load)\n" in result.stdout
    warning = " ".join(result.stderr.split())
    assert "failed to load (undefined symbol: made up by the test)" in warning
    assert "RuntimeWarning" in warning  # the facade's own warning at import, too
    assert ("./dev setup" in warning) == _in_checkout()
    assert ("pip install --force-reinstall" in warning) != _in_checkout()


def test_setup_command_is_the_readmes():
    import fastbits.__main__ as main

    readme = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")
    if not os.path.exists(readme):
        pytest.skip("not a source checkout")
    with open(readme, encoding="utf-8") as f:
        assert f"\n{main.SETUP_COMMAND}" in f.read()

def test_main_job_into_a_closed_pipe_exits_quietly():
    """``python -m fastbits | head -3``: when the reader goes away, no traceback, status 141."""
    returncode, stderr = run_into_closed_pipe()
    assert returncode == 141
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr

def test_readme_setup_is_the_two_commands_first():
    """The README's set-up section opens with the two commands, one line on each; what they do
    in detail and CI's lanes are in docs/install.md."""
    import re

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    readme = os.path.join(root, "README.md")
    if not os.path.exists(readme):
        pytest.skip("not a source checkout")
    with open(readme, encoding="utf-8") as f:
        section = f.read().split("## Set up, run, test\n", 1)[1].split("\n## ", 1)[0]
    before, block = re.match(r"(.*?)```sh\n(.*?)```", section, re.S).groups()
    assert len(before.strip().splitlines()) <= 2
    commands = [line.split("#", 1) for line in block.splitlines()]
    assert [command.strip() for command, _ in commands] == ["./dev setup", "./dev test"]
    assert all(comment.strip() for _, comment in commands)
    for detail in ("chroot", "s390x", "sid", "lane", ".ci/run"):
        assert detail not in section, detail
    assert "docs/install.md" in section

