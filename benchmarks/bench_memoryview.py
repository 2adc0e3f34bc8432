"""What a typed memoryview costs on a tiny call: the measurement behind fastbits' design.

fastbits' Python entry points take raw pointers (``PyArray_DATA``) after C-level checks; its
public Cython API (``fastbits/kernels.pxd``) takes typed memoryviews.  This script builds a
small Cython extension in a temporary directory (Cython and a C compiler needed) whose
functions take three ``uint32_t[::1]`` memoryviews, or three objects, and do nothing else or
call ``fastbits.kernels.bitwise_and``; it times them on 16-element arrays against
``fastbits.bitwise_and(a, b, out=out)`` and numpy, interleaved, and prints medians in ns per
call.  The difference between the first two lines is the price of acquiring three
memoryviews.  It also shows that an ml_dtypes array cannot be taken as a memoryview.

    python benchmarks/bench_memoryview.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import textwrap

import ml_dtypes
import numpy as np

import fastbits
from fastbits._bench.report import fmt_time
from fastbits._bench.timing import Mode, time_interleaved

SOURCE = textwrap.dedent(
    """
    # cython: language_level=3
    from libc.stdint cimport uint32_t
    from fastbits.kernels cimport bitwise_and

    def three_views(const uint32_t[::1] a, const uint32_t[::1] b, uint32_t[::1] out):
        pass

    def three_objects(a, b, out):
        pass

    def and_views(const uint32_t[::1] a, const uint32_t[::1] b, uint32_t[::1] out):
        bitwise_and(a, b, out)

    def view_of(x):
        cdef const unsigned char[::1] v = x
        return v.shape[0]
    """
)


def build(directory: str):
    with open(os.path.join(directory, "mvbench.pyx"), "w") as f:
        f.write(SOURCE)
    with open(os.path.join(directory, "setup.py"), "w") as f:
        f.write(
            "from setuptools import setup\nfrom Cython.Build import cythonize\n"
            "setup(ext_modules=cythonize('mvbench.pyx', quiet=True))\n"
        )
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=directory,
                   check=True, capture_output=True)
    (path,) = [p for p in os.listdir(directory) if p.startswith("mvbench") and p.endswith((".so", ".pyd"))]
    spec = importlib.util.spec_from_file_location("mvbench", os.path.join(directory, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15, help="interleaved repetitions (default 15)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        m = build(directory)
        a = np.arange(16, dtype=np.uint32)
        b = np.full(16, 6, np.uint32)
        out = np.empty(16, np.uint32)
        fns = {
            "def f(a, b, out): pass (3 objects)": lambda: m.three_objects(a, b, out),
            "def f(uint32_t[::1] x 3): pass": lambda: m.three_views(a, b, out),
            "memoryviews + kernels.bitwise_and": lambda: m.and_views(a, b, out),
            "fastbits.bitwise_and(a, b, out=out)": lambda: fastbits.bitwise_and(a, b, out=out),
            "numpy.bitwise_and(a, b, out=out)": lambda: np.bitwise_and(a, b, out=out),
        }
        mode = Mode("memoryview", 2e-4, args.repeat, args.repeat, 0.0, 0, 0)
        times = time_interleaved(fns, mode)
        print(f"fastbits {fastbits.__version__} ({fastbits.BACKEND}), numpy {np.__version__}, "
              f"16 x uint32, median of {args.repeat} interleaved repetitions")
        for name, t in times.items():
            print(f"  {name:40s} {fmt_time(t['median_s'])}")
        objects = times["def f(a, b, out): pass (3 objects)"]["median_s"]
        views = times["def f(uint32_t[::1] x 3): pass"]["median_s"]
        print(f"  three memoryview acquisitions: {fmt_time(views - objects)} ({(views - objects) / 3 * 1e9:.0f} ns each)")
        try:
            m.view_of(np.zeros(4, ml_dtypes.bfloat16))
            print("  an ml_dtypes (bfloat16) array gives a memoryview")
        except (ValueError, TypeError, BufferError) as exc:
            print(f"  an ml_dtypes (bfloat16) array gives no memoryview: {type(exc).__name__}: {exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
