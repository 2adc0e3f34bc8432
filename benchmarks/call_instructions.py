"""Two builds of fastbits, the instructions one small call executes in each (valgrind's callgrind).

Timing a 100-200 ns call on a shared machine spreads by 2x from round to round; the number of
instructions it executes does not: callgrind counts them, the same for the same binary and
inputs whatever else the machine runs.  Each case runs in a fresh process under callgrind
twice, with N and 5N calls; the difference over 4N is the instructions of one call, the
interpreter's start-up and the imports cancelled out.  OpenBLAS's idle threads (numpy's) would
add instructions of their own: they are held to one thread.

    python benchmarks/call_instructions.py OLD_CHECKOUT NEW_CHECKOUT [--calls 10000]

Each checkout must have its compiled modules built in place (``python setup.py build_ext
--inplace``, as for benchmarks/compare_builds.py).  Needs valgrind.  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

from compare_builds import package_root

CASE = r"""
import sys
sys.path.insert(0, CHECKOUT)
import numpy as np
from fastbits import _ops_c as fb
rng = np.random.default_rng(0)
a = rng.integers(-2**31, 2**31, 16, dtype=np.int32); b = a[::-1].copy(); o = np.empty(16, np.int32)
x = rng.integers(0, 2**63, (3, 4, 5), dtype=np.uint64); y = x[0, 0].copy(); f = a.view(np.float32)
call = {"16 x int32": lambda: fb.bitwise_and(a, b), "16 x int32, out=": lambda: fb.bitwise_and(a, b, out=o),
        "(3,4,5) uint64 & (5,)": lambda: fb.bitwise_and(x, y), "bitcast view, 16 x float32": lambda: fb.bitcast(f, "INT32")}[CASE]
for _ in range(200 + CALLS):
    call()
"""
CASES = ("16 x int32", "16 x int32, out=", "(3,4,5) uint64 & (5,)", "bitcast view, 16 x float32")


def instructions(checkout: str, case: str, calls: int) -> int:
    code = CASE.replace("CHECKOUT", repr(package_root(os.path.abspath(checkout)))).replace("CASE]", f"{case!r}]")
    code = code.replace("CALLS", str(calls))
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", code],
                          capture_output=True, text=True, env=env, cwd="/", check=True)
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--calls", type=int, default=10000)
    args = parser.parse_args(argv)
    print("| case | old | new | new / old |\n|---|---:|---:|---:|")
    for case in CASES:
        per = [(instructions(c, case, 5 * args.calls) - instructions(c, case, args.calls)) / (4 * args.calls)
               for c in (args.old, args.new)]
        print(f"| {case} | {per[0]:.0f} | {per[1]:.0f} | {per[1] / per[0]:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
