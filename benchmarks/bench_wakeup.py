"""Calls of 256 KiB to 12 MiB on two threads against one, when the helper sleeps and when it
watches for the next call (the ``spin_time`` setting).

    python benchmarks/bench_wakeup.py [--rounds 5] [--calls 200]
    python benchmarks/bench_wakeup.py --neighbour [--rounds 3] [--seconds 3]

A helper asleep is woken by the kernel, which on a virtual machine takes tens of
microseconds: most of a call of a few MiB.  A helper that watches answers at once.  Each
case calls ``fastbits.bitwise_and`` after something else, as a program does: numpy's same
call, or a pause (``time.sleep``) of 0.2 or 2 ms.  Configurations, interleaved in a fresh
random order in every round: one thread; two threads on the team (``adaptive_threads``
off) with ``spin_time`` 0 (the helper always sleeps), 50 µs (the default before 1 ms, which
only spun) and 1 ms (the default: spins 50 µs, then yields its CPU between looks); and the
defaults, where the thread tuner chooses between the team and one thread.  A sample is the median time of
``--calls`` calls; the table gives the median over rounds and one thread's time over each.

``--neighbour`` measures what watching costs another program: a CPU-bound process (a
Python loop) runs for ``--seconds`` while this one calls numpy's and fastbits' AND on 1M
int8 in turn, under each configuration; it reports the other process's loop count
against its count alone, and this process's median fastbits call.

Not a test: tests/test_config.py checks the behaviour (a helper watches for spin_time).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

import numpy as np

import fastbits

CONFIGS = {               # name: (threads, spin_time, adaptive_threads)
    "1 thread": (1, 0.0, False),
    "2t, spin 0": (2, 0.0, False),
    "2t, spin 50 µs": (2, 50e-6, False),
    "2t, spin 1 ms": (2, 1e-3, False),
    "default": (2, 1e-3, True),   # the thread tuner chooses between the team and one thread
}


def _cases():
    for dtype, n, out in (("int8", 1 << 20, False), ("int8", 1 << 20, True), ("int32", 1 << 18, True),
                          ("int32", 1 << 20, False), ("int32", 1 << 20, True)):
        rng = np.random.default_rng(0)
        a = rng.integers(-100, 100, n).astype(dtype)
        b = rng.integers(-100, 100, n).astype(dtype)
        o = np.empty_like(a) if out else None
        call = (lambda a=a, b=b, o=o: fastbits.bitwise_and(a, b, out=o)) if out else (lambda a=a, b=b: fastbits.bitwise_and(a, b))
        label = f"{n >> 10}K {dtype}{' out=' if out else ''}"
        yield f"{label}, after numpy's", call, (lambda a=a, b=b: np.bitwise_and(a, b))
        if dtype == "int8" and out:
            for pause in (0.2e-3, 2e-3):
                yield f"{label}, after {pause * 1e3:g} ms idle", call, (lambda p=pause: time.sleep(p))


def _sample(call, before, calls):
    times = []
    for _ in range(calls):
        before()
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def timings(rounds: int, calls: int) -> None:
    rng = np.random.default_rng(1)
    names = list(CONFIGS)
    print(f"median of {rounds} rounds of the median of {calls} calls, µs; in brackets: 1 thread / it")
    print("| case | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for case, call, before in _cases():
        got = {name: [] for name in names}
        for _ in range(rounds):
            for i in rng.permutation(len(names)):
                threads, spin, adaptive = CONFIGS[names[i]]
                with fastbits.config_context(num_threads=threads, spin_time=spin, adaptive_threads=adaptive):
                    call()
                    got[names[i]].append(_sample(call, before, calls))
        med = {name: statistics.median(v) for name, v in got.items()}
        cells = [f"{med[n] * 1e6:.1f}" + ("" if n == "1 thread" else f" ({med['1 thread'] / med[n]:.2f})")
                 for n in names]
        print(f"| {case} | " + " | ".join(cells) + " |", flush=True)


_COMPETITOR = """
import time
t = time.perf_counter(); n = 0
while time.perf_counter() - t < {seconds}:
    for i in range(1000): pass
    n += 1
print(n)
"""


def neighbour(rounds: int, seconds: float) -> None:
    a = np.ones(1 << 20, np.int8)
    b = np.ones(1 << 20, np.int8)
    o = np.empty_like(a)
    names = ["(none)"] + list(CONFIGS)
    counts = {name: [] for name in names}
    ours = {name: [] for name in names}
    rng = np.random.default_rng(2)
    for _ in range(rounds):
        for i in rng.permutation(len(names)):
            name = names[i]
            other = subprocess.Popen([sys.executable, "-c", _COMPETITOR.format(seconds=seconds)],
                                     stdout=subprocess.PIPE, text=True)
            times = []
            if name != "(none)":
                threads, spin, adaptive = CONFIGS[name]
                with fastbits.config_context(num_threads=threads, spin_time=spin, adaptive_threads=adaptive):
                    while other.poll() is None:
                        np.bitwise_and(a, b)
                        t0 = time.perf_counter()
                        fastbits.bitwise_and(a, b, out=o)
                        times.append(time.perf_counter() - t0)
            counts[name].append(int(other.communicate()[0]))
            if times:
                ours[name].append(statistics.median(times))
    alone = statistics.median(counts["(none)"])
    print(f"another process's Python loop for {seconds:g} s beside this one calling numpy's and fastbits' "
          f"1M int8 AND in turn; medians of {rounds} rounds")
    print("| this process | other process's loops | of its loops alone | fastbits call, µs |")
    print("|---|---:|---:|---:|")
    for name in names:
        c = statistics.median(counts[name])
        call = f"{statistics.median(ours[name]) * 1e6:.1f}" if ours[name] else "-"
        print(f"| {'idle' if name == '(none)' else name} | {c:.0f} | {100 * c / alone:.0f} % | {call} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200, help="calls per sample")
    parser.add_argument("--neighbour", action="store_true", help="the cost to another process instead")
    parser.add_argument("--seconds", type=float, default=3.0, help="--neighbour: seconds per measurement")
    args = parser.parse_args(argv)
    if fastbits.BACKEND != "cython" or not fastbits.runtime_info()["threads_available"]:
        print("bench_wakeup needs the compiled kernels with the thread team", file=sys.stderr)
        return 2
    if args.neighbour:
        neighbour(args.rounds, args.seconds)
    else:
        timings(args.rounds, args.calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
