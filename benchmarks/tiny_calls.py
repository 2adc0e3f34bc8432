"""Tiny calls: what a 16-element call of each operator costs, in units of a 16-element
``bitwise_and`` call, on the installed (or the checkout's) fastbits.

A model evaluator pays this per node: a transformer's activation QuantizeLinear and
DequantizeLinear pairs are many small calls.  Every case runs on fresh results; its arguments
(numpy scalars included) are made once, outside the timed calls.  The cases are interleaved:
each round times every case once (the best of ``--repeat`` batches of ``--calls`` calls), and
the table gives each case's median over the rounds and its ratio to ``bitwise_and``'s.

    python benchmarks/tiny_calls.py [--rounds 5] [--calls 3000] [--repeat 5]

A benchmark, not a test: on a shared machine the ratios move by some tenths from run to run.
"""

from __future__ import annotations

import argparse
import statistics
import timeit

import numpy as np

import fastbits


def cases() -> dict[str, object]:
    """The calls, by label: each takes no argument and makes a fresh result."""
    n = 16
    a = np.arange(n, dtype=np.int32)
    b = a[::-1].copy()
    x = np.linspace(-3, 3, n).astype(np.float32)
    x44 = x.reshape(4, 4)
    q8 = np.arange(n, dtype=np.int8)
    q44 = q8.reshape(4, 4)
    target = np.zeros(n, np.float16)
    half = np.float16(0)
    scale, zero = np.float32(0.5), np.int8(1)
    blocks = np.full((4, 2), 0.5, np.float32)
    return {
        "bitwise_and": lambda: fastbits.bitwise_and(a, b),
        "cast float32 -> float16": lambda: fastbits.cast(x, "FLOAT16"),
        "cast_like, an array target": lambda: fastbits.cast_like(x, target),
        "cast_like, np.float16(0) target": lambda: fastbits.cast_like(x, half),
        "bitcast, copy=True": lambda: fastbits.bitcast(x, "INT32", copy=True),
        "quantize_linear per tensor": lambda: fastbits.quantize_linear(x, scale, zero),
        "quantize_linear blocked (4, 4) / 2": lambda: fastbits.quantize_linear(x44, blocks, axis=1, block_size=2),
        "dequantize_linear per tensor": lambda: fastbits.dequantize_linear(q8, scale, zero),
        "dequantize_linear blocked (4, 4) / 2": lambda: fastbits.dequantize_linear(q44, blocks, axis=1, block_size=2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    calls = cases()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():
        call()  # the first call of a kind may build its tables
    for _ in range(args.rounds):
        for name, call in calls.items():
            times[name].append(min(timeit.repeat(call, number=args.calls, repeat=args.repeat)) / args.calls)
    base = statistics.median(times["bitwise_and"])
    print(f"fastbits {fastbits.__version__} ({fastbits.BACKEND}); medians of {args.rounds} interleaved rounds, "
          f"each the best of {args.repeat} x {args.calls} calls")
    print("| call, 16 elements | time | / bitwise_and |")
    print("|---|---:|---:|")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"| {name} | {median * 1e6:.2f} us | {median / base:.1f}x |")


if __name__ == "__main__":
    main()
