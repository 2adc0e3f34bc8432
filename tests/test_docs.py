"""The examples in the README, in the docs' pages and in the docstrings run as shown.

Every ```python block of README.md and docs/**/*.md is a doctest, run on the installed
package, the blocks of a page in order and sharing their names. A block that needs a module
fastbits does not require says so on the line before it::

    <!-- doctest: requires onnx -->

and is skipped where that module does not import (the ``lowest`` tox env has no onnx).
"""

from __future__ import annotations

import doctest
import importlib
import pathlib
import re
import sys

import pytest

from support import module_from_file

# doctest patches linecache process-wide: two threads running examples at once recurse in it.
pytestmark = pytest.mark.thread_unsafe

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md"] + sorted(
    p for p in DOCS.rglob("*.md") if not {"_build", "_generated"} & set(p.relative_to(DOCS).parts)
)
FENCE = re.compile(r"^( *)```(\w*)[^\n]*\n(.*?)^\1```", re.M | re.S)  # indented in a list item too
REQUIRES = re.compile(r"<!-- doctest: requires ([\w.]+(?:, *[\w.]+)*) -->")


def code_blocks(text: str) -> list[tuple[int, str, str, list[str]]]:
    """(line number, language, code, modules required) of each fenced block of a page."""
    blocks = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip().rsplit("\n", 1)[-1]
        required = REQUIRES.fullmatch(before.strip())
        modules = [m.strip() for m in required.group(1).split(",")] if required else []
        lineno = text.count("\n", 0, match.start(3))
        indent = len(match.group(1))
        code = "".join(line[indent:] for line in match.group(3).splitlines(keepends=True))
        blocks.append((lineno, match.group(2), code, modules))
    return blocks


def _missing(modules: list[str]) -> list[str]:
    """The modules of an example's ``requires`` that it cannot use here: not installed, or
    dask.distributed on a free-threaded CPython, where its clusters crashed or stalled (the
    same reason tests/test_dask.py skips its cluster there)."""
    missing = []
    free_threaded = not getattr(sys, "_is_gil_enabled", lambda: True)()
    for name in modules:
        if name == "distributed" and free_threaded:
            missing.append("distributed (on a free-threaded CPython)")
            continue
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_page_examples(page):
    if not page.exists():
        pytest.skip(f"{page.name} not beside the tests")
    text = page.read_text(encoding="utf-8")
    blocks = code_blocks(text)
    python = [b for b in blocks if b[1] == "python"]
    # Every example is in a python block, and every python block is an example.
    assert sum(code.count("\n>>> ") + code.startswith(">>> ") for _, _, code, _ in python) == len(
        re.findall(r"^ *>>> ", text, re.M)
    ), f"{page.name}: a >>> example outside a ```python block"
    for lineno, _, code, _ in python:
        assert code.lstrip().startswith(">>>"), f"{page.name}:{lineno + 1}: a python block that is not a doctest"

    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs = {"__name__": "__main__"}
    skipped = []
    for lineno, _, code, modules in python:
        missing = _missing(modules)
        if missing:
            skipped.append(f"line {lineno + 1} needs {', '.join(missing)}")
            continue
        test = parser.get_doctest(code, globs, f"{page.name}:{lineno + 1}", str(page), lineno)
        runner.run(test, clear_globs=False)
        globs = test.globs  # DocTest runs on a copy: the next block sees this one's names
    result = runner.summarize(verbose=False)
    assert result.failed == 0
    if skipped and not result.attempted:
        pytest.skip(f"{page.name}: every example needs a module that is absent ({'; '.join(skipped)})")
    if page.name == "README.md":
        assert result.attempted > 5


@pytest.mark.parametrize("name", ["fastbits", "fastbits._ops_py", "fastbits._packing_py", "fastbits._cast_py",
                                  "fastbits._quant_py",
                                  "fastbits.onnx_tensors", "fastbits.onnx_ops"])
def test_docstring_examples(name):
    if name in ("fastbits.onnx_tensors", "fastbits.onnx_ops") and _missing(["onnx"]):
        pytest.skip("its examples need onnx")
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def _api_docstrings():
    """(name, docstring) of every module, function and class the API reference documents."""
    names = ["fastbits", "fastbits.spec", "fastbits.errors", "fastbits._ops_py", "fastbits._packing_py", "fastbits._cast_py",
             "fastbits._quant_py",
             "fastbits._config", "fastbits.onnx_ops", "fastbits.onnx_backend", "fastbits.onnx_tensors"]
    docs = []
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError:  # onnx_ops and onnx_backend without onnx
            continue
        docs.append((name, module.__doc__ or ""))
        for attr, value in vars(module).items():
            if callable(value) and getattr(value, "__doc__", None) and getattr(value, "__module__", "").startswith("fastbits"):
                docs.append((f"{name}.{attr}", value.__doc__))
    return docs


def test_docstrings_link_the_pages_they_name():
    """A docstring names a docs page as a link (``:doc:`scaling-out```), never as a path
    ("docs/scaling-out.md"), and each page it links exists."""
    docs = _api_docstrings()
    assert any(":doc:`" in doc for _, doc in docs)
    for name, doc in docs:
        assert not re.search(r"docs/[\w-]+\.(md|rst)", doc), f"{name} names a page as plain text"
        for target in re.findall(r":doc:`(?:[^`<]*<)?/?([\w-]+)>?`", doc):
            if DOCS.exists():
                assert (DOCS / f"{target}.md").exists() or (DOCS / f"{target}.rst").exists(), (name, target)


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


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitshift", "bitcast",
                                  "cast", "cast_like", "quantize_linear", "dequantize_linear", "pack", "unpack",
                                  "get_num_threads", "set_num_threads", "get_config", "set_config",
                                  "config_context", "runtime_info", "release_memory"])
def test_help_reads_as_a_functions(name):
    """help() of each public function of the active path calls it a function of a fastbits
    module, shows its signature first, and names no object it would be a method of; a
    compiled one pickles by its name."""
    import pickle
    import pydoc

    import fastbits

    function = getattr(fastbits, name)
    title, _, first = pydoc.render_doc(function, renderer=pydoc.plaintext).splitlines()[:3]
    assert re.fullmatch(rf"Python Library Documentation: (built-in )?function {name} in module fastbits(\.\w+)*",
                        title), title
    assert first.startswith(f"{name}(") and "method of" not in first, first
    assert ":doc:" not in function.__doc__   # a page's name reads as words, not as Sphinx's markup
    assert pickle.loads(pickle.dumps(function)) is function


@pytest.mark.parametrize("name", ["quantize_linear", "dequantize_linear"])
def test_help_shows_the_quantization_docstring(name, ops):
    """QuantizeLinear and DequantizeLinear on either path: the reference's docstring and
    signature, the optional zero point shown as such."""
    import inspect
    import pydoc

    reference = getattr(importlib.import_module("fastbits._quant_py"), name)
    function = getattr(ops, name)
    assert function.__doc__ == reference.__doc__
    signature = inspect.signature(function)
    # the same parameters, kinds and defaults (the compiled builtin's carry no annotations: the
    # checkers read them from _signatures)
    assert [(p.name, p.kind, p.default) for p in signature.parameters.values()] == [
        (p.name, p.kind, p.default) for p in inspect.signature(reference).parameters.values()]
    zero = list(signature.parameters.values())[2]
    assert zero.name.endswith("_zero_point") and zero.default is None and zero.kind == zero.POSITIONAL_ONLY
    text = pydoc.render_doc(function, renderer=pydoc.plaintext)
    for section in ("Parameters", "Returns", "Examples"):
        assert text.count(section + "\n") == 1, (name, section)
    assert "_quant_py" not in function.__doc__ and "_ops_c" not in function.__doc__


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

    script = ROOT / "benchmarks" / "int4_unpacking_graph.py"
    if not script.exists():
        pytest.skip("benchmarks/ not beside the tests")
    result = subprocess.run([sys.executable, str(script), "--size", "64", "--repeat", "1"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("ReferenceEvaluator + fastbits ") for line in lines)
    start = next(i for i, line in enumerate(lines) if line.startswith("per node")) + 1
    assert [line.split()[0] for line in lines[start:]] == ["low", "high", "both", "floats", "zeroed", "Y"]
    assert "expectations" in (DOCS / "index.md").read_text()


# The docs' configuration and generated pages as the docs build runs them, in a fresh
# interpreter where pytest and hypothesis do not import: the ``docs`` extra lacks them.
DOCS_BUILD_PARTS = """
import json, runpy, sys
sys.modules["pytest"] = sys.modules["hypothesis"] = None   # import raises ImportError
conf = runpy.run_path(sys.argv[1])
import fastbits, generated_pages
print(fastbits.__file__, fastbits.BACKEND)
assert "BitWidthError" in generated_pages.bad_inputs_markdown()
report = json.loads(generated_pages.BENCH_JSON.read_text(encoding="utf-8"))
generated_pages.check_current(report)   # the stored run is the checkout's
page = generated_pages.performance_markdown(report)
from fastbits._bench.plot import operators
assert page.count("```{image}") == len(operators(report)) > 1   # a chart per operator
stale = generated_pages.stale_blocks()   # each page's committed block is what its source gives
assert stale == [], f"stale generated blocks in {stale}: run python docs/_ext/generated_pages.py"
"""


def test_docs_build_needs_neither_pytest_nor_hypothesis():
    """docs/conf.py and docs/_ext run on the ``docs`` extra alone, and document the checkout's
    fastbits on its pure path (no kernels need be built)."""
    import subprocess
    import sys
    import tempfile

    if not (DOCS / "conf.py").exists():
        pytest.skip("docs/ not beside the tests")
    result = subprocess.run([sys.executable, "-c", DOCS_BUILD_PARTS, str(DOCS / "conf.py")],
                            capture_output=True, text=True, cwd=tempfile.gettempdir(), timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    location, backend = result.stdout.split()
    assert location == str(ROOT / "src" / "fastbits" / "__init__.py") and backend == "python"


def test_the_docs_build_refuses_a_stale_performance_run():
    """docs/bench.json is the checkout's run (a full one, of these kernels' sources, with every
    case and the table's spreads); a doctored one (other kernels, a case missing, a quick run,
    spreads of an older bench) fails the build."""
    import copy
    import json

    pages = module_from_file(DOCS / "_ext" / "generated_pages.py", "generated_pages")
    report = json.loads(pages.BENCH_JSON.read_text(encoding="utf-8"))
    pages.check_current(report)
    other_kernels = copy.deepcopy(report)
    other_kernels["meta"]["kernels_digest"] = "0" * 64
    with pytest.raises(pages.StaleRunError, match=r"made with other kernels .*python -m fastbits bench --full"):
        pages.check_current(other_kernels)
    missing = copy.deepcopy(report)
    missing["cases"] = [case for case in missing["cases"] if case["group"] != "quantize"]
    with pytest.raises(pages.StaleRunError, match="lacks .* case.* of the full suite: dequantize int4"):
        pages.check_current(missing)
    quick = copy.deepcopy(report)
    quick["meta"]["mode"] = "quick"
    with pytest.raises(pages.StaleRunError, match="a 'quick' run"):
        pages.check_current(quick)
    older = copy.deepcopy(report)
    del older["meta"]["method"]["spread"]
    with pytest.raises(pages.StaleRunError, match="spreads are each ratio's own"):
        pages.check_current(older)


def _design_table_files() -> set[str]:
    """The files docs/design.md's "Where things live" table names, as paths below the
    checkout: a row's first path gives the directory of the names after it."""
    text = (DOCS / "design.md").read_text(encoding="utf-8")
    section = text.split("## Where things live", 1)[1].split("\n## ", 1)[0]
    named = set()
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        names = re.findall(r"`([^`]+)`", line.split(" | ", 1)[0])
        folder = names[0] if names[0].endswith("/") else names[0].rsplit("/", 1)[0] + "/"
        named.update(name if "/" in name else folder + name for name in names)
    return named


def test_the_design_file_table_names_every_file_of_the_package():
    """Every source file of the package (the generated C of a .pyx aside) is in the table, and
    the table names no file that is not there; the bench, one row, is named as its folder."""
    package = ROOT / "src" / "fastbits"
    files = {
        path.relative_to(ROOT).as_posix() for path in package.rglob("*")
        if path.is_file() and path.suffix in (".py", ".pyx", ".pxd", ".pyi", ".c", ".h", ".typed")
        and "__pycache__" not in path.parts and "_bench" not in path.parts
        and not (path.suffix == ".c" and path.with_suffix(".pyx").exists())
    }
    named = _design_table_files()
    assert "src/fastbits/_bench/" in named
    assert sorted(files - named) == [], "files the table does not name"
    assert sorted(named - files - {"src/fastbits/_bench/"}) == [], "names in the table that are no file"
