"""fastbits against numpy on a few calls, in a plain loop of interleaved calls.

Each round calls numpy, then fastbits, on the same operands; after ``--calls`` rounds the
median of each side's last ``--keep`` calls gives a ratio (numpy's time over fastbits', so
above 1 is faster than numpy).  No harness between the calls: what a user's own loop sees.
Run it after a change to the thread team, the grains or the small-call path, on a machine
that runs nothing else; a row that moves from run to run is reported as such.

    python benchmarks/interleaved.py [--calls 400] [--keep 300] [--rounds 3]
    python benchmarks/interleaved.py --set grain_cached=2097152    # another setting

Prints one line a case and round: numpy's and fastbits' medians and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import fastbits


def cases():
    """(name, numpy call, fastbits call) of the rows this script times."""
    rng = np.random.default_rng(0)
    found = []
    for n in (16, 1 << 16, 1 << 20, 1 << 22):
        a = rng.integers(0, 2**31, n, dtype=np.int32)
        b = rng.integers(0, 2**31, n, dtype=np.int32)
        out = np.empty_like(a)
        found.append((f"and int32 n={n} fresh", lambda a=a, b=b: np.bitwise_and(a, b),
                      lambda a=a, b=b: fastbits.bitwise_and(a, b)))
        found.append((f"and int32 n={n} out=", lambda a=a, b=b, o=out: np.bitwise_and(a, b, out=o),
                      lambda a=a, b=b, o=out: fastbits.bitwise_and(a, b, out=o)))
    return found


def time_pair(first, second, calls: int, keep: int) -> tuple[float, float]:
    """Medians of the last ``keep`` of ``calls`` interleaved calls of each."""
    times_a, times_b = [], []
    clock = time.perf_counter
    for _ in range(calls):
        t0 = clock()
        first()
        t1 = clock()
        second()
        t2 = clock()
        times_a.append(t1 - t0)
        times_b.append(t2 - t1)
    return statistics.median(times_a[-keep:]), statistics.median(times_b[-keep:])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--keep", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a fastbits setting for the run (ints and floats)")
    args = parser.parse_args(argv)
    settings = {}
    for item in args.set:
        name, _, value = item.partition("=")
        settings[name] = float(value) if "." in value else int(value)
    fastbits.set_config(**settings)
    print(f"fastbits {fastbits.__version__} ({fastbits.BACKEND}), numpy {np.__version__}, "
          f"settings {fastbits.get_config()}")
    print(f"{'case':<28} {'round':>5} {'numpy':>10} {'fastbits':>10} {'ratio':>7}")
    for name, ours_numpy, ours in cases():
        for round_ in range(args.rounds):
            t_numpy, t_fastbits = time_pair(ours_numpy, ours, args.calls, args.keep)
            print(f"{name:<28} {round_:>5} {t_numpy * 1e6:>8.1f}us {t_fastbits * 1e6:>8.1f}us "
                  f"{t_numpy / t_fastbits:>6.2f}x")


if __name__ == "__main__":
    main()
