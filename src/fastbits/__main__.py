"""``python -m fastbits``: say what is installed, then run every spec example.

Prints the version, the active backend and why, where fastbits was imported
from, the thread count and the versions of the libraries fastbits runs with,
then checks every operator through the active path (``fastbits._examples``: the
examples of the BitwiseAnd-18 and BitCast-26 specs, ONNX's node tests of BitwiseOr,
BitwiseXor, BitwiseNot and BitShift-11/28, a pack / unpack round trip of each sub-byte
type) and prints one PASS/FAIL table grouped by operator. Exits with status 1 if any
example fails. When the pure path runs because the kernels were never built (a source
checkout) or failed to load, rather than because ``FASTBITS_PURE_PYTHON`` asked
for it, a warning on stderr says so and what to do.

``python -m fastbits bench [--full] [--json PATH] [--plot PATH] [--threads N]
[--filter SUBSTRING]`` runs the benchmark suite instead (``fastbits._bench``,
imported only then); ``python -m fastbits bench --help`` describes it.

Either one exits quietly, with status 141, when the reader of its output goes away
(``python -m fastbits | head -3``).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import textwrap
from importlib import metadata

import numpy as np

import fastbits
from fastbits._examples import EXAMPLES


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


#: The README's command that builds the kernels in place (and installs fastbits in .venv/).
SETUP_COMMAND = "./dev setup"


def _location() -> str:
    return os.path.dirname(os.path.abspath(fastbits.__file__))


def _in_checkout() -> bool:
    """fastbits is imported from a source checkout (``src/fastbits``, whose root holds ``dev``
    and ``setup.py``), where ``./dev setup`` builds the kernels; else from an install, which pip
    rebuilds."""
    root = os.path.dirname(os.path.dirname(_location()))
    return all(os.path.isfile(os.path.join(root, name)) for name in ("dev", "setup.py"))


def _unasked_fallback() -> tuple[str, str] | None:
    """``(kind, detail)`` when the pure path runs although FASTBITS_PURE_PYTHON is unset:
    kind ``"not built"`` or ``"failed to load"``, detail the import error. None otherwise."""
    reason = fastbits._ops.FALLBACK_REASON
    if fastbits.BACKEND != "python" or fastbits._ops.PURE_PYTHON or reason is None:
        return None
    kind, _, detail = reason.partition(": ")
    return kind, detail


def _backend_why() -> str:
    if fastbits.BACKEND == "cython":
        return "the compiled kernels"
    fallback = _unasked_fallback()
    if fallback is None:
        return "FASTBITS_PURE_PYTHON is set"
    return f"the compiled kernels {'were never built' if fallback[0] == 'not built' else 'failed to load'}"


def fallback_warning() -> str | None:
    """Why the pure path runs although nobody asked for it, and what to do; None otherwise."""
    fallback = _unasked_fallback()
    if fallback is None:
        return None
    kind, detail = fallback
    checkout = _in_checkout()
    if kind == "not built" and checkout:
        text = (
            f"WARNING: fastbits is running its slow pure-Python path: its compiled kernels were "
            f"never built ({detail}). The fastbits imported from {_location()} is a source "
            f"checkout. To build the kernels in place, run `{SETUP_COMMAND}` from the checkout "
            f'root (README, "Set up, run, test").'
        )
    elif kind == "not built":
        text = (
            f"WARNING: fastbits is running its slow pure-Python path: its compiled kernels were "
            f"never built ({detail}). The fastbits installed in {_location()} is a pure install "
            f"(built with FASTBITS_NO_EXTENSIONS=1, or where no compiler was found). Reinstall "
            f"it with its kernels, with a C compiler at hand: `pip install --force-reinstall "
            f"--no-cache-dir fastbits` (or the path of its source)."
        )
    elif checkout:
        text = (
            f"WARNING: fastbits is running its slow pure-Python path: its compiled kernels, in "
            f"{_location()}, failed to load ({detail}). Rebuild them: run `{SETUP_COMMAND}` from "
            f"the checkout root."
        )
    else:
        text = (
            f"WARNING: fastbits is running its slow pure-Python path: its compiled kernels, in "
            f"{_location()}, failed to load ({detail}), as when they were built for another "
            f"numpy or Python. Reinstall fastbits: `pip install --force-reinstall --no-cache-dir "
            f"fastbits` (or the path of its source)."
        )
    text += " Set FASTBITS_PURE_PYTHON=1 if the pure path is what you want."
    return textwrap.fill(text, width=88, break_long_words=False, break_on_hyphens=False)


def describe() -> list[str]:
    """The header lines: version, backend and why, location, threads, library versions."""
    return [
        f"fastbits {fastbits.__version__}",
        f"backend: {fastbits.BACKEND} ({_backend_why()})",
        f"imported from: {_location()}",
        f"threads: {fastbits.get_num_threads()}",
        f"python: {platform.python_version()} ({platform.machine()}, {sys.byteorder} endian)",
        f"numpy: {np.__version__}",
        f"ml_dtypes: {_version('ml_dtypes')}",
        f"onnx: {_version('onnx')}",
        f"onnxruntime: {_version('onnxruntime')}",
    ]


def check() -> int:
    """Run every example through the active path; print the table; return the exit status."""
    warning = fallback_warning()
    if warning:
        print(warning, file=sys.stderr)
        print(file=sys.stderr)
    for line in describe():
        print(line)
    print()
    groups: dict[str, list[tuple[str, str, str, str]]] = {}  # by operator, in EXAMPLES' order
    for example in EXAMPLES:
        try:
            detail = example.failure(fastbits) or ""
        except Exception as exc:  # the table reports any failure, whatever it is
            detail = f"{type(exc).__name__}: {exc}".replace("\n", " ")
        row = (example.group, example.name, "FAIL" if detail else "PASS", detail)
        groups.setdefault(example.group, []).append(row)
    rows = [row for group in groups.values() for row in group]
    widths = [max(len(row[i]) for row in rows + [("operator", "example", "result", "")]) for i in range(3)]
    rule = f"{'-' * widths[0]}  {'-' * widths[1]}  {'-' * widths[2]}"
    print(f"{'operator':<{widths[0]}}  {'example':<{widths[1]}}  result")
    for group in groups.values():
        print(rule)
        for op, name, status, detail in group:
            print(f"{op:<{widths[0]}}  {name:<{widths[1]}}  {status}" + (f"  {detail}" if detail else ""))
    failed = sum(status == "FAIL" for _, _, status, _ in rows)
    print()
    print(f"{len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:
        from fastbits import _bench  # the suite, and through it onnx and onnxruntime: only here

        return _bench.main(argv[1:])
    parser = argparse.ArgumentParser(
        prog="python -m fastbits",
        description="Check every operator of the installed fastbits against the ONNX specs' "
        "examples and node tests, and the packed layout against ONNX's bytes.",
        epilog="python -m fastbits bench [--full] [--json PATH] [--plot PATH] [--threads N] "
        "[--filter SUBSTRING]: time fastbits against numpy, onnxruntime and the onnx reference "
        "evaluator (python -m fastbits bench --help).",
    )
    parser.parse_args(argv)
    return check()


#: The exit status when the reader of stdout goes away (``python -m fastbits | head -3``):
#: 128 + SIGPIPE, what the shell reports for a command that SIGPIPE ended.
BROKEN_PIPE_STATUS = 141


def run(argv: list[str] | None = None) -> int:
    """:func:`main`, quiet when the reader of stdout goes away: no traceback, status 141."""
    try:
        status = main(argv)
        sys.stdout.flush()  # here, so that a pipe closed by now is caught too
        return status
    except BrokenPipeError:
        # CPython's recipe (the signal module's docs, "Note on SIGPIPE"): point stdout at
        # devnull, so that the interpreter's own flush at exit fails no more.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE_STATUS


if __name__ == "__main__":
    sys.exit(run())
