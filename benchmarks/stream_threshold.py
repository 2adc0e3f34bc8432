"""Values of ``stream_threshold`` against each other and against numpy, on int32 calls around
the default.

Each round times every call under numpy and under each threshold in turn, in alternating
order, a batch of back-to-back calls each (about 20 ms).  Per call it prints numpy's median
time, each threshold's median time, and the median, with quartiles, of the per-round ratios
numpy / fastbits (above 1 fastbits is faster).  The calls are an AND of two arrays (fresh and
``out=``), an OR with a scalar and a NOT ``out=``: they write the same result and read two,
one and one arrays of its size.  Run it on a machine that runs nothing else, when choosing the
default (``fastbits._cpus.default_stream_threshold``) for a kind of machine.

    python benchmarks/stream_threshold.py [--sizes 1024,2048,4096] [--thresholds default,off] [--rounds 21]

Sizes are in Ki elements; thresholds in MiB, ``default`` (the machine's default) or ``off``
(never stream).  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import fastbits
from fastbits import _cpus

NEVER = 1 << 62


def batch(call, reps: int) -> float:
    """Nanoseconds per call of ``reps`` back-to-back calls."""
    start = time.perf_counter_ns()
    for _ in range(reps):
        call()
    return (time.perf_counter_ns() - start) / reps


def calls(n: int):
    """name -> (numpy's call, fastbits' call) on int32 arrays of n elements."""
    a = np.random.default_rng(0).integers(0, 2**31, n, dtype=np.int32)
    b = a[::-1].copy()
    out = np.empty_like(a)
    five = np.int32(5)
    return {
        "a & b": (lambda: np.bitwise_and(a, b), lambda: fastbits.bitwise_and(a, b)),
        "a & b out=": (lambda: np.bitwise_and(a, b, out=out), lambda: fastbits.bitwise_and(a, b, out=out)),
        "a | 5": (lambda: np.bitwise_or(a, five), lambda: fastbits.bitwise_or(a, five)),
        "~a out=": (lambda: np.invert(a, out=out), lambda: fastbits.bitwise_not(a, out=out)),
    }


def compare(n: int, thresholds: dict[str, int], rounds: int) -> None:
    reps = max(5, int(2e9 // (n * 12)))  # about 20 ms of memory traffic a batch
    for name, (numpy_call, fastbits_call) in calls(n).items():
        runs = {"numpy": (numpy_call, None)} | {label: (fastbits_call, t) for label, t in thresholds.items()}
        times: dict[str, list[float]] = {label: [] for label in runs}
        for r in range(rounds):
            for label in list(runs) if r % 2 else list(runs)[::-1]:
                call, threshold = runs[label]
                with fastbits.config_context(**({} if threshold is None else {"stream_threshold": threshold})):
                    call()
                    times[label].append(batch(call, reps))
        parts = [f"numpy {statistics.median(times['numpy']) / 1e3:.0f} us"]
        for label in thresholds:
            ratios = [x / y for x, y in zip(times["numpy"], times[label])]
            low, mid, high = statistics.quantiles(ratios, n=4)
            parts.append(f"{label}: {statistics.median(times[label]) / 1e3:.0f} us, "
                         f"{statistics.median(ratios):.2f}x ({low:.2f}-{high:.2f})")
        print(f"{n >> 10}K int32 {name:10} (result {4 * n >> 20} MiB)  " + "  ".join(parts), flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1024,2048,4096", help="Ki elements, comma-separated")
    parser.add_argument("--thresholds", default="default,off", help="MiB, default or off, comma-separated")
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args(argv)
    values = {"default": _cpus.default_stream_threshold(), "off": NEVER}
    thresholds = {}
    for word in args.thresholds.split(","):
        value = values[word] if word in values else int(word) << 20
        label = {"default": f"default ({value >> 20} MiB)", "off": "off"}.get(word, f"{word} MiB")
        thresholds[label] = value
    print(f"numpy {np.__version__}, fastbits {fastbits.__version__} ({fastbits.BACKEND}), "
          f"{fastbits.get_num_threads()} threads, last-level cache {(_cpus.last_level_cache_bytes() or 0) >> 20} MiB")
    for size in args.sizes.split(","):
        compare(int(size) << 10, thresholds, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
