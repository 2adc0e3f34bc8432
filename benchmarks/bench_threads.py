"""Two Python threads calling fastbits at once: do they run in parallel?

The kernels release the GIL, so two Python threads that each call ``bitwise_and``
(or ``bitcast(copy=True)``) on large arrays should take about as long as one
thread doing half the calls, not twice as long.  The kernels' own thread team is
set to one thread here, so that the only parallelism is the two callers'.

    python benchmarks/bench_threads.py [--calls 40] [--repeat 7]

Run it after a change to how the kernels release the GIL or share the thread team between
callers.  Prints, per case, the median wall time of the calls run one after the other on one
Python thread, then split across two, and the ratio (2.0 = perfectly parallel).
The two are sampled interleaved as the suite samples (``fastbits._bench.timing.interleave``):
one of each per repetition, in a fresh random order.
Not a test: tests/test_reliability.py checks the behaviour (the GIL is released).
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

import numpy as np

import fastbits
from fastbits._bench.timing import interleave


def _wall(calls, nthreads):
    barrier = threading.Barrier(nthreads + 1)
    per_thread = len(calls) // nthreads

    def run(chunk):
        barrier.wait()
        for call in chunk:
            call()

    threads = [threading.Thread(target=run, args=(calls[i * per_thread : (i + 1) * per_thread],)) for i in range(nthreads)]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=40, help="calls per measurement (even)")
    parser.add_argument("--repeat", type=int, default=7, help="measurements per case (median)")
    args = parser.parse_args(argv)
    fastbits.set_num_threads(1)
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2**31, size=1 << 22, dtype=np.int32)
    b = rng.integers(0, 2**31, size=1 << 22, dtype=np.int32)
    outs = [np.empty_like(a) for _ in range(2)]
    x = a.reshape(2048, 2048)
    cases = {
        "bitwise_and 4M int32, out=": lambda i: (lambda: fastbits.bitwise_and(a, b, out=outs[i % 2])),
        "bitwise_and (2K,2K).T & (2K,2K) int32": lambda i: (lambda: fastbits.bitwise_and(x.T, x)),
        "bitcast copy=True 4M int32": lambda i: (lambda: fastbits.bitcast(a, "float", copy=True)),
    }
    print(f"fastbits {fastbits.__version__} ({fastbits.BACKEND}), kernel threads: 1; "
          f"{args.calls} calls per measurement, median of {args.repeat}, interleaved")
    print("| case | 1 Python thread | 2 Python threads | speed-up |")
    print("|---|---:|---:|---:|")
    for name, make in cases.items():
        calls = [make(i) for i in range(args.calls)]
        samplers = {"one": lambda calls=calls: _wall(calls, 1), "two": lambda calls=calls: _wall(calls, 2)}
        samples = interleave(samplers, args.repeat, rng)
        m1, m2 = statistics.median(samples["one"]), statistics.median(samples["two"])
        print(f"| {name} | {m1 * 1e3:.1f} ms | {m2 * 1e3:.1f} ms | {m1 / m2:.2f} |")


if __name__ == "__main__":
    main()
