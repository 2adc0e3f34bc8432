"""One thread, the team, and the default (the thread tuner's choice) on calls of 256 KiB to 8 MiB.

    python benchmarks/bench_team_sizes.py [--rounds 7] [--calls 200]

Whether a second thread pays for a call this size depends on the machine and on its state
(``fastbits/_c/tune.h``): the same AND ran 1.2-1.8x faster on two threads at one moment and
1.5x slower at another on this project's VM, and an AND with a scalar lost where an AND of two
arrays of the same size gained.  Each case is timed, back to back, under three
configurations: one thread; two threads on the team (``adaptive_threads`` off, from
``parallel_threshold`` 0); and the defaults, where the tuner chooses.  A sample is the mean of
``--calls`` calls after one untimed; configurations are interleaved in a fresh random order in
every round, and the table gives the median over rounds with one thread's time over each.

Not a test: tests/test_config.py and tests/test_tuner_c.py check the tuner's behaviour.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import fastbits

CONFIGS = {  # name: settings
    "1 thread": {"num_threads": 1},
    "team": {"num_threads": 2, "adaptive_threads": False, "parallel_threshold": 0},
    "default": {"num_threads": 2},
}


def _cases():
    for n in (1 << 16, 1 << 17, 1 << 18, 1 << 20, 1 << 21):
        a = np.arange(n, dtype=np.int32)
        b = a[::-1].copy()
        out = np.empty_like(a)
        yield f"{n >> 10}K int32 & scalar", (lambda a=a: fastbits.bitwise_and(a, 7))
        yield f"{n >> 10}K int32 & b, out=", (lambda a=a, b=b, out=out: fastbits.bitwise_and(a, b, out=out))


def _sample(call, calls):
    call()
    t0 = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - t0) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(3)
    names = list(CONFIGS)
    print(f"median of {args.rounds} rounds of the mean of {args.calls} calls, µs; in brackets: 1 thread / it")
    print("| case | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for case, call in _cases():
        got = {name: [] for name in names}
        for _ in range(args.rounds):
            for i in rng.permutation(len(names)):
                with fastbits.config_context(**CONFIGS[names[i]]):
                    got[names[i]].append(_sample(call, args.calls))
        med = {name: statistics.median(v) for name, v in got.items()}
        cells = [f"{med[n] * 1e6:.1f}" + ("" if n == "1 thread" else f" ({med['1 thread'] / med[n]:.2f})")
                 for n in names]
        print(f"| {case} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
