"""``python -m fastbits``: say what is installed, then run every spec example.

Prints the version, the active backend, the thread count and the versions of
the libraries fastbits runs with, then runs each example of the BitwiseAnd-18
and BitCast-26 specs through the active path and prints a PASS/FAIL table.
Exits with status 1 if any example fails.

``python -m fastbits bench [--full] [--json PATH] [--plot PATH] [--threads N]
[--filter SUBSTRING]`` runs the benchmark suite instead (``fastbits._bench``,
imported only then); ``python -m fastbits bench --help`` describes it.
"""

from __future__ import annotations

import argparse
import platform
import sys
from importlib import metadata

import numpy as np

import fastbits
from fastbits._examples import EXAMPLES


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def describe() -> list[str]:
    """The header lines: version, backend, threads, library versions."""
    return [
        f"fastbits {fastbits.__version__}",
        f"backend: {fastbits.BACKEND}",
        f"threads: {fastbits.get_num_threads()}",
        f"python: {platform.python_version()} ({platform.machine()}, {sys.byteorder} endian)",
        f"numpy: {np.__version__}",
        f"ml_dtypes: {_version('ml_dtypes')}",
        f"onnx: {_version('onnx')}",
        f"onnxruntime: {_version('onnxruntime')}",
    ]


def check() -> int:
    """Run every spec example through the active path; print the table; return the exit status."""
    for line in describe():
        print(line)
    print()
    rows = []
    for example in EXAMPLES:
        try:
            result = example.run(fastbits.bitwise_and, fastbits.bitcast)
            ok = example.matches(result)
            detail = "" if ok else f"got {result!r}"
        except Exception as exc:  # the table reports any failure, whatever it is
            ok, detail = False, f"{type(exc).__name__}: {exc}"
        rows.append((example.op, example.name, "PASS" if ok else "FAIL", detail))
    widths = [max(len(row[i]) for row in rows + [("operator", "example", "result", "")]) for i in range(3)]
    print(f"{'operator':<{widths[0]}}  {'example':<{widths[1]}}  result")
    print(f"{'-' * widths[0]}  {'-' * widths[1]}  {'-' * widths[2]}")
    for op, name, status, detail in rows:
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
        description="Check the installed fastbits against every example of the ONNX specs.",
        epilog="python -m fastbits bench [--full] [--json PATH] [--plot PATH] [--threads N] "
        "[--filter SUBSTRING]: time fastbits against numpy, onnxruntime and the onnx reference "
        "evaluator (python -m fastbits bench --help).",
    )
    parser.parse_args(argv)
    return check()


if __name__ == "__main__":
    sys.exit(main())
