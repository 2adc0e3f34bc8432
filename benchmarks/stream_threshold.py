"""Two values of ``stream_threshold`` against each other, on int32 ANDs around the default.

Each round times the same AND (``out=`` and fresh) under each threshold in turn, in
alternating order, a batch of back-to-back calls each; per size it prints each threshold's
median and the median, with quartiles, of the per-round time ratios (first threshold over
the last: below 1 the first is faster).  Run it on a machine that runs nothing else, when
choosing the default (``fastbits._cpus.default_stream_threshold``) for a kind of machine.

    python benchmarks/stream_threshold.py [--sizes 1024,2048] [--thresholds 8,32] [--rounds 21]

Sizes are in Ki elements, thresholds in MiB.  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import fastbits


def batch(call, reps: int) -> float:
    """Nanoseconds per call of ``reps`` back-to-back calls."""
    start = time.perf_counter_ns()
    for _ in range(reps):
        call()
    return (time.perf_counter_ns() - start) / reps


def compare(n: int, thresholds: list[int], rounds: int) -> None:
    a = np.random.default_rng(0).integers(0, 2**31, n, dtype=np.int32)
    b = a[::-1].copy()
    out = np.empty_like(a)
    reps = max(5, int(1e8 // (n * 12)))  # about 0.1 s of memory traffic a batch
    calls = {"out=": lambda: fastbits.bitwise_and(a, b, out=out), "fresh": lambda: fastbits.bitwise_and(a, b)}
    for mode, call in calls.items():
        times: dict[int, list[float]] = {t: [] for t in thresholds}
        for r in range(rounds):
            for t in thresholds if r % 2 else thresholds[::-1]:
                with fastbits.config_context(stream_threshold=t):
                    call()
                    times[t].append(batch(call, reps))
        ratios = [x / y for x, y in zip(times[thresholds[0]], times[thresholds[-1]])]
        low, mid, high = statistics.quantiles(ratios, n=4)
        medians = " ".join(f"{t >> 20} MiB: {statistics.median(v) / 1e3:.1f} us" for t, v in times.items())
        print(f"{n >> 10}K int32 {mode:5} (moves {12 * n >> 20} MiB)  {medians}  "
              f"ratio {statistics.median(ratios):.2f} (quartiles {low:.2f}-{high:.2f})", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1024,2048", help="Ki elements, comma-separated")
    parser.add_argument("--thresholds", default="8,32", help="MiB, comma-separated")
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args(argv)
    thresholds = [int(x) << 20 for x in args.thresholds.split(",")]
    for size in args.sizes.split(","):
        compare(int(size) << 10, thresholds, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
