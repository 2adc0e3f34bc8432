"""Calls per second from 1 and from N Python threads, fastbits' team off, against numpy's.

On a free-threaded Python (GIL off) independent calls from N threads should run N times as
many calls per second on N idle cores, as numpy's own do; anything the calls share (a counter,
a lock, a reference count on a shared object) shows as a lower ratio.  With the GIL the ratio
is about 1: the first line says which interpreter ran.

Each thread makes its own operands and its own call, a functools.partial: a function object
shared by the threads would have its reference count changed by every call of every thread
(the interpreter counts one on the callable it loads), and the threads would contend for it in
the harness, whatever the library does.  Each round times every case on 1 thread, then on N,
fastbits and numpy in alternating order; a figure is the median over the rounds of the calls
per second summed over the threads.  A benchmark, not a test: run it on an idle machine.

    python benchmarks/thread_scaling.py [--threads 2] [--rounds 15] [--seconds 0.2]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import threading
import time

import numpy as np

import fastbits

LIBRARIES = {"fastbits": fastbits, "numpy": np}


def cases():
    """(label, make): ``make(library)`` gives one thread's call of ``library``, on operands of
    its own."""

    def and_out(n):
        def make(library):
            a, b, o = (np.arange(n, dtype=np.int32) for _ in range(3))
            return functools.partial(library.bitwise_and, a, b, out=o)
        return make

    def and_fresh(n):
        def make(library):
            a, b = np.arange(n, dtype=np.int32), np.arange(n, dtype=np.int32)
            return functools.partial(library.bitwise_and, a, b)
        return make

    return [("and int32 16 out=", and_out(16)), ("and int32 1K out=", and_out(1024)),
            ("and int32 64K fresh", and_fresh(65536))]


def calls_per_second(make, library, threads, seconds):
    """Total calls per second of ``threads`` threads, each running its own ``make(library)``."""
    counts = [0] * threads
    start = threading.Barrier(threads + 1)
    stop = threading.Event()

    def run(i):
        call = make(library)
        call()
        start.wait()
        n = 0
        while not stop.is_set():
            for _ in range(64):
                call()
            n += 64
        counts[i] = n

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    start.wait()
    began = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for worker in workers:
        worker.join()
    return sum(counts) / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=0.2)
    args = parser.parse_args()
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    print(f"Python {sys.version.split()[0]}, GIL {'on' if gil else 'off'}, fastbits {fastbits.BACKEND}, "
          f"{args.threads} threads, {args.rounds} rounds of {args.seconds} s")
    fastbits.set_config(num_threads=1)  # the team off: every call on its own thread
    n = args.threads
    print(f"{'case':22} {'fastbits, 1 thread':>19} {f'x{n} threads':>11} {'numpy, 1 thread':>17} {f'x{n} threads':>11}")
    for label, make in cases():
        rates = {(name, t): [] for name in LIBRARIES for t in (1, n)}
        for r in range(args.rounds):
            for name in (list(LIBRARIES) if r % 2 == 0 else list(LIBRARIES)[::-1]):
                for t in (1, n):
                    rates[name, t].append(calls_per_second(make, LIBRARIES[name], t, args.seconds))
        med = {key: statistics.median(values) for key, values in rates.items()}
        print(f"{label:22} {med['fastbits', 1]:>17.0f}/s {med['fastbits', n] / med['fastbits', 1]:>10.2f}x"
              f" {med['numpy', 1]:>15.0f}/s {med['numpy', n] / med['numpy', 1]:>10.2f}x")


if __name__ == "__main__":
    main()
