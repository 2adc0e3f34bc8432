"""The layers of the package: which module imports which, read from the sources.

Every import statement of fastbits' own modules counts, at module level or inside a function,
Python's and Cython's (``cimport``) alike.  The graph has no cycle; the implementations import
only the layers below them (spec, errors, the runtime, the shared plumbing); the settings and
the dispatch point import no operator module.  And a pure install (no compiled module at all)
imports without a warning, saying why the pure path runs.
"""

from __future__ import annotations

import ast
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

# test_the_reader_sees_every_kind_of_import points the module's SOURCE elsewhere for a moment:
# pytest-run-parallel runs these tests on one thread.
pytestmark = pytest.mark.thread_unsafe

SOURCE = pathlib.Path(__file__).resolve().parents[1] / "src" / "fastbits"

# "from .x import y", "from . import a, b", "from fastbits.x cimport y", "import fastbits.x as z"
_FROM = re.compile(r"^[ \t]*from\s+(\.*[\w.]*)\s+c?import\s+(\([^)]*\)|[^#\n]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*c?import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)", re.M)


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, is_package: bool, target: str) -> str:
    """The absolute name of ``target`` as ``module`` imports it (relative names resolved)."""
    dots = len(target) - len(target.lstrip("."))
    if not dots:
        return target
    base = module.split(".")
    base = base[: len(base) - dots + (1 if is_package else 0)]
    rest = target[dots:]
    return ".".join(base + ([rest] if rest else []))


def imports_of(path: pathlib.Path, known: set[str]) -> set[str]:
    """The fastbits modules ``path`` imports (names in ``known``), function-level ones included."""
    module, text = _module_name(path), path.read_text()
    is_package = path.name == "__init__.py"
    found = set()
    for source, names in _FROM.findall(text):
        base = _resolve(module, is_package, source)
        if not module.startswith(f"{base}."):  # from its own package: its modules alone ("from . import spec")
            found.add(base)
        for item in names.strip("()").split(","):
            name = item.split(" as ")[0].strip()
            if name:
                found.add(f"{base}.{name}")
    for group in _IMPORT.findall(text):
        for item in group.split(","):
            found.add(item.split(" as ")[0].strip())
    return {name for name in found if name in known and name != module}


def module_graph() -> dict[str, set[str]]:
    """Every fastbits module (``.py`` and ``.pyx``) and the fastbits modules it imports."""
    paths = [p for p in SOURCE.rglob("*") if p.suffix in (".py", ".pyx")]
    known = {_module_name(p) for p in paths} | {_module_name(p) for p in SOURCE.rglob("*.pxd")}
    return {_module_name(p): imports_of(p, known) for p in paths}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as a list of names (the first again at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_reader_sees_every_kind_of_import(tmp_path):
    """The reader finds relative, absolute, function-level and Cython imports."""
    source = tmp_path / "fastbits"
    (source / "spec").mkdir(parents=True)
    for name in ("__init__.py", "a.py", "b.py", "c.pyx", "spec/__init__.py", "spec/types.py"):
        (source / name).write_text("")
    (source / "a.py").write_text("from . import b\ndef f():\n    from .spec import types\n")
    (source / "spec" / "types.py").write_text("from ..c import x\nimport fastbits.a as again\n")
    (source / "c.pyx").write_text("from ._clib cimport y\ncimport numpy\nfrom fastbits.b import z\n")
    known = {"fastbits", "fastbits.a", "fastbits.b", "fastbits.c", "fastbits.spec", "fastbits.spec.types"}
    global SOURCE
    saved, SOURCE = SOURCE, source
    try:
        assert imports_of(source / "a.py", known) == {"fastbits.b", "fastbits.spec", "fastbits.spec.types"}
        assert imports_of(source / "spec" / "types.py", known) == {"fastbits.c", "fastbits.a"}
        assert imports_of(source / "c.pyx", known) == {"fastbits.b"}
    finally:
        SOURCE = saved


def test_a_cycle_is_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_reader_sees_what_python_sees():
    """In every ``.py`` module, subpackages included, the reader finds the fastbits imports that
    Python's own parser finds: none hides where the regular expressions do not look (``if X: from
    .run import y``, ``a = 1; import b``) and so escapes the cycle and layer checks."""
    known = {_module_name(p) for p in SOURCE.rglob("*") if p.suffix in (".py", ".pyx", ".pxd")}
    missed = {}
    for path in SOURCE.rglob("*.py"):
        module, is_package = _module_name(path), path.name == "__init__.py"
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, is_package, "." * node.level + (node.module or ""))
                if not module.startswith(f"{base}."):   # the reader's rule for its own package
                    found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names)
        found = {name for name in found if name in known and name != module}
        if found != imports_of(path, known):
            missed[module] = sorted(found ^ imports_of(path, known))
    assert not missed, missed


def test_no_import_cycle():
    """No cycle anywhere in fastbits: the bench and spec subpackages are read like the rest."""
    graph = module_graph()
    everywhere = {"fastbits._ops_c", "fastbits._runtime", "fastbits._bench", "fastbits._bench.impls",
                  "fastbits._bench.run", "fastbits.spec", "fastbits.spec.types"}
    assert everywhere <= set(graph), everywhere - set(graph)
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


#: What each lower layer may import of fastbits (besides itself and the packages spec and errors).
ALLOWED = {
    # _signatures holds types only, which _config reads under TYPE_CHECKING
    "fastbits._signatures": set(),
    "fastbits._config": {"fastbits._cpus", "fastbits._signatures"},
    "fastbits._cpus": set(),
    "fastbits._dispatch": set(),
    "fastbits._dask": {"fastbits._config", "fastbits._dispatch"},
    "fastbits._runtime_py": {"fastbits._config"},
    # the CPU features the loops may use are the machine's and the environment's (_cpus)
    "fastbits._runtime": {"fastbits._config", "fastbits._cpus", "fastbits._clib"},
    # the compiled modules' shared plumbing runs its copies on the runtime
    "fastbits._common": {"fastbits._dispatch", "fastbits._runtime", "fastbits._clib"},
    "fastbits._ops_py": {"fastbits._runtime_py"},
    "fastbits._quant_py": {"fastbits._cast_py"},
    "fastbits._packing_py": {"fastbits._runtime_py"},
    # the compiled operators fall back to the pure reference for what their kernels do not
    # take (bottleneck's way), and show its docstrings
    "fastbits._ops_c": {"fastbits._runtime", "fastbits._common", "fastbits._clib", "fastbits._ops_py"},
    "fastbits._cast_c": {"fastbits._common", "fastbits._clib", "fastbits._cast_py"},
    "fastbits._quant_c": {"fastbits._runtime", "fastbits._common", "fastbits._clib", "fastbits._quant_py"},
    "fastbits._packing_c": {"fastbits._runtime", "fastbits._common", "fastbits._clib", "fastbits._packing_py"},
    # the public Cython API runs the runtime's one copy of the loops
    "fastbits.kernels": {"fastbits._runtime", "fastbits._clib"},
}


@pytest.mark.parametrize("module", sorted(ALLOWED))
def test_lower_layers_import_nothing_above_them(module):
    graph = module_graph()
    below = {"fastbits.errors", "fastbits.spec"} | {m for m in graph if m.startswith("fastbits.spec.")}
    extra = graph[module] - below - ALLOWED[module]
    assert not extra, f"{module} imports {sorted(extra)}"


def test_no_implementation_knows_dask():
    """Their docstrings say what a dask input gets; their code never names dask."""
    for module in ("_ops_py", "_cast_py", "_quant_py", "_packing_py", "_ops_c", "_cast_c", "_quant_c", "_packing_c",
                   "_runtime", "_runtime_py", "_common"):
        text = next(SOURCE.glob(f"{module}.py*")).read_text()
        assert not re.search(r"_dask\b|import dask|dask\.array|\bda\.", text), module


def test_a_pure_install_imports_without_warning(tmp_path):
    """The files a pure install holds (``FASTBITS_NO_EXTENSIONS=1 pip install .``: every module
    but the compiled ones) import under ``-W error``, on the pure path, saying it was not built."""
    shutil.copytree(SOURCE, tmp_path / "fastbits",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "*.h", "*.pyx", "__pycache__", "_c"))
    code = ("import fastbits, fastbits._ops as f; print(fastbits.BACKEND); print(f.FALLBACK_REASON);"
            " print(fastbits.bitwise_and(6, __import__('numpy').int8(3)))")
    # -S: no site-packages, so no installed (or editable) fastbits; numpy and ml_dtypes by path
    import ml_dtypes
    import numpy

    path = [str(tmp_path)] + [str(pathlib.Path(m.__file__).parents[1]) for m in (numpy, ml_dtypes)]
    done = subprocess.run([sys.executable, "-S", "-W", "error", "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, env={"PATH": "", "PYTHONPATH": os.pathsep.join(path)})
    assert done.returncode == 0, done.stderr
    backend, reason, value = done.stdout.splitlines()
    assert backend == "python" and value == "2"
    assert reason == "not built: no module fastbits._runtime (the compiled kernels) is installed", reason
