"""The types checkers read (docs/api.rst, "Types"), in numpy's manner, under two checkers:

* mypy: ``tests/typing/pass/*.py`` must pass ``mypy --strict``, and each line of
  ``tests/typing/fail/*.py`` that ends in ``# E: <text>`` must give one mypy error that
  contains the text (and the other lines none);
* pyright (as basedpyright, which PyPI ships with its Node.js; the ``pyright`` package fetches
  pyright from npm at its first run): the pass files must pass its strict mode, and the lines
  marked ``# E:`` must give errors (its own words, not mypy's) and the other lines none.

stubtest holds the compiled modules' stubs against the compiled modules.  The checkers' tests
need the typing extra (tox.ini's py312 env installs it) and skip without it; the others check,
without a checker, that the types say what the runtime does.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import itertools
import json
import os
import re
import subprocess
import sys
import typing
from pathlib import Path

import numpy as np
import pytest

import fastbits
from fastbits import _config, _signatures, spec
from support import PATHS, PURE

HERE = Path(__file__).resolve().parent / "typing"
PASS = sorted((HERE / "pass").glob("*.py"))
FAIL = sorted((HERE / "fail").glob("*.py"))
#: The files that import an optional package: checked where it is installed.
NEEDS = {"onnx_modules.py": "onnx", "onnx_fail.py": "onnx", "dask_arrays.py": "dask"}
#: stubtest's allowlist: the runtime names the stubs leave out, each with its reason.  An entry
#: no longer needed fails the test (stubtest reports unused entries).
STUBTEST_ALLOWLIST = {
    "fastbits._runtime.__pyx_capi__": "Cython's capsules of the cdef functions fastbits/_runtime.pxd declares, "
                                      "through which the other compiled modules cimport them: no Python API",
    "fastbits._runtime.__test__": "the doctest table Cython puts in a module of its own accord (empty): no "
                                  "Python API",
}
#: Why a checker's tests skip: the checker (its module's name) is not installed.
NOT_INSTALLED = "{} is not installed: the typing extra (pip install 'fastbits[typing]'; tox.ini's py312 env) runs these"

#: An expected error: ``# E: <the start, or any part, of mypy's message>`` at the end of a line.
EXPECTED = re.compile(r"#\s*E:\s*(?P<text>.+?)\s*$")
#: A line of mypy's output (``--show-absolute-path``, one line a message).
MESSAGE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): (?P<severity>error|note): (?P<text>.*)$")


def _missing(path):
    """The optional package ``path`` imports, where it is not installed; else None."""
    needed = NEEDS.get(path.name)
    return needed if needed is not None and importlib.util.find_spec(needed) is None else None


def _checked_files():
    return [path for path in PASS + FAIL if _missing(path) is None]


def _mypy_config(directory):
    """A mypy config file in ``directory``: ``--strict`` and nothing more that changes a result,
    as a user runs it: mypy finds fastbits where the interpreter does (site-packages, or the
    ``src/`` an editable install's ``.pth`` names) and reads it as an installed package."""
    lines = ["[mypy]", "strict = True", "pretty = False", "show_absolute_path = True",
             f"cache_dir = {directory / 'mypy-cache'}"]
    config = directory / "mypy.ini"
    config.write_text("\n".join(lines) + "\n")
    return config


def _run_mypy(files, directory):
    """mypy --strict over ``files``: {(file, line): [error messages]}."""
    api = pytest.importorskip("mypy.api", reason=NOT_INSTALLED.format("mypy"))
    stdout, stderr, status = api.run(["--config-file", str(_mypy_config(directory)), *map(str, files)])
    assert status in (0, 1) and not stderr, f"mypy did not run (exit {status}):\n{stderr}{stdout}"
    errors = {}
    for line in stdout.splitlines():
        found = MESSAGE.match(line)
        if found and found["severity"] == "error":
            key = (Path(found["path"]).resolve(), int(found["line"]))
            errors.setdefault(key, []).append(found["text"])
    return errors


def _run_pyright(files, directory):
    """pyright's strict mode over ``files``, with this interpreter's packages and Python version
    (``--pythonpath``): {(file, line): [error messages]}.  Its config file lists the files and
    the mode, nothing more."""
    pytest.importorskip("basedpyright", reason=NOT_INSTALLED.format("basedpyright"))
    config = {"include": [str(path) for path in files], "typeCheckingMode": "strict"}
    (directory / "pyrightconfig.json").write_text(json.dumps(config))
    done = subprocess.run(
        [sys.executable, "-m", "basedpyright", "--outputjson", "--pythonpath", sys.executable,
         "--project", str(directory / "pyrightconfig.json")],
        capture_output=True, text=True, cwd=directory,
    )
    # exit 0: no error; 1: errors reported; anything else: pyright did not run
    assert done.returncode in (0, 1), f"pyright did not run (exit {done.returncode}):\n{done.stderr}{done.stdout}"
    errors = {}
    for diagnostic in json.loads(done.stdout)["generalDiagnostics"]:
        if diagnostic["severity"] == "error":
            key = (Path(diagnostic["file"]).resolve(), diagnostic["range"]["start"]["line"] + 1)
            errors.setdefault(key, []).append(diagnostic["message"].splitlines()[0])
    return errors


@pytest.fixture(scope="module", params=["mypy", "pyright"])
def checker_errors(request, tmp_path_factory):
    """One run of a checker over every typing test file: (its name, {(file, line): [errors]})."""
    files = _checked_files()
    names = [path.stem for path in files]
    assert len(set(names)) == len(names), f"mypy needs distinct module names: {names}"
    run = {"mypy": _run_mypy, "pyright": _run_pyright}[request.param]
    errors = run(files, tmp_path_factory.mktemp(request.param))
    known = {path.resolve() for path in files}
    stray = {key: texts for key, texts in errors.items() if key[0] not in known}
    assert not stray, f"{request.param} reports errors outside the files under test:\n{stray}"
    return request.param, errors


def _skip_without_its_package(path):
    if _missing(path) is not None:
        pytest.skip(f"{_missing(path)} is not installed: {path.name} is checked where it is")


def test_pass_files_call_every_public_function():
    """Between them the pass files call every public function, so that a clean run means every
    signature reads as a real type where users call it (the checkers' fixture refuses an error
    inside fastbits' own files)."""
    text = "".join(path.read_text() for path in PASS)
    functions = [name for name in fastbits.__all__
                 if inspect.isroutine(getattr(fastbits, name)) or name in PROTOCOLS]
    assert len(functions) >= len(PROTOCOLS)
    assert [name for name in functions if not re.search(rf"\b{name}\(", text)] == []


@pytest.mark.thread_unsafe  # the checkers run in the process or beside it, over shared files
@pytest.mark.parametrize("path", PASS, ids=[path.name for path in PASS])
def test_pass_files_have_no_errors(checker_errors, path):
    _skip_without_its_package(path)
    checker, errors = checker_errors
    found = {line: texts for (file, line), texts in errors.items() if file == path.resolve()}
    assert not found, f"{path.name}: {checker} errors: {found}"


@pytest.mark.thread_unsafe
@pytest.mark.parametrize("path", FAIL, ids=[path.name for path in FAIL])
def test_fail_files_give_exactly_the_expected_errors(checker_errors, path):
    """mypy: one error on each marked line, containing its text; pyright: errors there, in its
    own words (a call no overload takes gives one error for the call and one for the argument);
    both: none on any other line."""
    _skip_without_its_package(path)
    checker, errors = checker_errors
    expected = {number: found["text"] for number, line in enumerate(path.read_text().splitlines(), 1)
                if (found := EXPECTED.search(line))}
    assert expected, f"{path.name} expects no error: a fail file must"
    found = {line: texts for (file, line), texts in errors.items() if file == path.resolve()}
    wrong = []
    for line in sorted(expected.keys() | found.keys()):
        texts, text = found.get(line, []), expected.get(line)
        if text is None:
            wrong.append(f"line {line}: unexpected {texts}")
        elif not texts:
            wrong.append(f"line {line}: expected an error, got none")
        elif checker == "mypy" and (len(texts) != 1 or text not in texts[0]):
            wrong.append(f"line {line}: expected one error containing {text!r}, got {texts}")
    assert not wrong, f"{path.name} under {checker}:\n" + "\n".join(wrong)


@pytest.mark.thread_unsafe
def test_stubs_match_the_compiled_modules(tmp_path):
    """mypy's stubtest: the .pyi of each compiled module against the module as built."""
    pytest.importorskip("mypy.stubtest", reason=NOT_INSTALLED.format("mypy"))
    if fastbits.BACKEND != "cython":
        pytest.skip(f"stubtest checks the compiled modules; the {fastbits.BACKEND} path is active")
    allowlist = tmp_path / "allowlist.txt"
    allowlist.write_text("".join(f"# {why}\n{name}\n" for name, why in STUBTEST_ALLOWLIST.items()))
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--mypy-config-file", str(_mypy_config(tmp_path)),
         "--allowlist", str(allowlist), "fastbits._ops_c", "fastbits._cast_c", "fastbits._quant_c",
         "fastbits._packing_c", "fastbits._runtime"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr


# --------------------------------------------------------------------------
# the types say what the runtime does (no mypy needed)

#: Each Protocol of fastbits._signatures and the public function it types.
PROTOCOLS = {
    "bitwise_and": _signatures.BinaryOperator,
    "bitwise_or": _signatures.BinaryOperator,
    "bitwise_xor": _signatures.BinaryOperator,
    "bitwise_not": _signatures.UnaryOperator,
    "bitshift": _signatures.BitShiftOperator,
    "bitcast": _signatures.BitCastOperator,
    "cast": _signatures.CastOperator,
    "cast_like": _signatures.CastLikeOperator,
    "quantize_linear": _signatures.QuantizeOperator,
    "dequantize_linear": _signatures.DequantizeOperator,
    "dynamic_quantize_linear": _signatures.DynamicQuantizeOperator,
    "matmul_integer": _signatures.MatMulIntegerOperator,
    "qlinear_matmul": _signatures.QLinearMatMulOperator,
    "pack": _signatures.PackFunction,
    "unpack": _signatures.UnpackFunction,
    "get_num_threads": _signatures.GetNumThreads,
    "set_num_threads": _signatures.SetNumThreads,
}

class Variant(typing.NamedTuple):
    """One signature of a Protocol's ``__call__`` as fastbits/_signatures.py writes it."""

    parameters: list[inspect.Parameter]  # self aside; annotations as their source text
    returns: str


def _source(node):
    return inspect.Parameter.empty if node is None else ast.unparse(node)


def _variants(protocol):
    """The signatures of ``protocol.__call__``: each overload, or the one signature (read from
    the source, which keeps every overload on every Python)."""
    (cls,) = ast.parse(inspect.getsource(protocol)).body
    variants = []
    for node in cls.body:
        if not (isinstance(node, ast.FunctionDef) and node.name == "__call__"):
            continue
        a = node.args
        parameters = []
        positional = [(arg, inspect.Parameter.POSITIONAL_ONLY) for arg in a.posonlyargs] + [
            (arg, inspect.Parameter.POSITIONAL_OR_KEYWORD) for arg in a.args]
        defaults = [inspect.Parameter.empty] * (len(positional) - len(a.defaults)) + [
            ast.literal_eval(d) for d in a.defaults]
        for (arg, kind), default in zip(positional, defaults):
            parameters.append(inspect.Parameter(arg.arg, kind, default=default, annotation=_source(arg.annotation)))
        for arg, default in zip(a.kwonlyargs, a.kw_defaults):
            parameters.append(inspect.Parameter(arg.arg, inspect.Parameter.KEYWORD_ONLY, annotation=_source(
                arg.annotation), default=inspect.Parameter.empty if default is None else ast.literal_eval(default)))
        variants.append(Variant(parameters[1:], _source(node.returns)))
    assert variants, protocol
    return variants


def test_every_public_function_has_its_protocol():
    assert set(PROTOCOLS) == set(spec.SIGNATURES) == set(fastbits._ops.Path._fields) - {"name", "runtime"}


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
@pytest.mark.parametrize("path", sorted(PATHS))
def test_each_signature_is_the_runtimes(name, path):
    """Every overload has the runtime function's parameters: their names, kinds (positional-only,
    keyword-only) and defaults; an overload may only make a parameter with a default required."""
    runtime = list(inspect.signature(getattr(PATHS[path], name)).parameters.values())
    for variant in _variants(PROTOCOLS[name]):
        typed_parameters = variant.parameters
        assert [(p.name, p.kind) for p in typed_parameters] == [(p.name, p.kind) for p in runtime], (name, variant)
        for typed, actual in zip(typed_parameters, runtime):
            if typed.default is not typed.empty:
                assert actual.default is not actual.empty and typed.default == actual.default, (name, typed)
            if actual.default is actual.empty:
                assert typed.default is typed.empty, (name, typed)


def _spellings(word):
    return {"".join(letters) for letters in itertools.product(*((c.upper(), c.lower()) for c in word))}


def test_direction_is_spellings_the_runtime_takes():
    """ONNX's "LEFT" and "RIGHT", and their lower case; the runtime takes each (and every other
    mix of cases, which the type leaves out)."""
    typed = set(typing.get_args(_signatures.Direction))
    assert typed == {"LEFT", "RIGHT", "left", "right"}
    assert {spec.check_direction(d) for d in typed} == set(spec.DIRECTIONS)
    assert {spec.check_direction(d) for d in _spellings("LEFT") | _spellings("RIGHT")} == set(spec.DIRECTIONS)


def test_order_and_round_mode_are_the_runtimes():
    assert set(typing.get_args(_signatures.Order)) == {None, *spec.ORDERS, *(o.lower() for o in spec.ORDERS)}
    assert {spec.check_order("op", order) for order in typing.get_args(_signatures.Order)} == set(spec.ORDERS)
    assert typing.get_args(_signatures.RoundMode) == spec.ROUND_MODES


@pytest.mark.parametrize("name", ["bitcast", "cast"])
def test_a_named_type_gives_its_numpy_dtype(name):
    """Each overload for a ``to`` of numpy's own types: every value it lists (names, DataType,
    code) names one ONNX type, whose dtype is the overload's result's, on the runtime too."""
    checked = 0
    for variant in _variants(PROTOCOLS[name]):
        literal = next(p.annotation for p in variant.parameters if p.name == "to")
        if not literal.startswith("_To"):
            continue
        result = re.fullmatch(r"NDArray\[np\.(\w+)\]", variant.returns)
        assert result, (literal, variant.returns)
        dtype = np.dtype(getattr(np, result[1]))
        values = typing.get_args(getattr(_signatures, literal))
        assert {spec.numpy_dtype(spec.resolve_to(value)) for value in values} == {dtype}, literal
        x = np.zeros(2, dtype)
        for value in values:
            assert getattr(fastbits, name)(x, value).dtype == dtype, (literal, value)
        checked += 1
    assert checked >= 12


def test_the_config_types_are_the_settings_table():
    """The settings as keyword arguments and as get_config's dict: the table's names, in its
    order, and the kinds it gives them."""
    names = [setting.name for setting in _config.SETTINGS]
    assert list(typing.get_type_hints(_signatures.ConfigUpdate)) == names
    hints = typing.get_type_hints(_signatures.Config)
    assert list(hints) == names
    assert {name: kind.__name__ for name, kind in hints.items()} == {
        setting.name: setting.kind.split()[0] for setting in _config.SETTINGS}
    assert set(PURE.runtime.current_config()) == set(names)


@pytest.mark.parametrize("path", sorted(PATHS))
def test_runtime_info_type_has_the_runtimes_keys(path):
    """runtime_info's keys: the runtime's, and ``cpus`` the configuration API adds."""
    keys = set(typing.get_type_hints(_signatures.RuntimeInfo))
    assert keys == {*PATHS[path].runtime.runtime_info(), "cpus"}
    assert set(fastbits.runtime_info()) == keys
