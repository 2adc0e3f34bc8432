"""Concurrency and leaks, on every path.

* 8 Python threads calling both functions at once on shared read-only inputs get
  exact results, also while another thread keeps changing the thread count.
* The kernels release the GIL: another Python thread makes progress while one
  large call runs (a behaviour, not a timing bound; the speed of two threads
  side by side is measured by benchmarks/bench_threads.py).
* 100,000 calls of each function, error paths included, keep tracemalloc and RSS flat.
"""

from __future__ import annotations

import gc
import resource
import sys
import threading
import time
import tracemalloc

import ml_dtypes
import numpy as np
import pytest

import fastbits

from support import random_ints

# Memory counts (RSS, tracemalloc), fork() and threads of their own: one test at a time.
pytestmark = pytest.mark.thread_unsafe

SHAPES = [((257, 31), (31,)), ((64, 1, 8), (1, 9, 8)), ((1000,), ()), ((5, 7), (5, 7))]


def _inputs(seed):
    rng = np.random.default_rng(seed)
    pairs = []
    for (shape_a, shape_b), dtype in zip(SHAPES, (np.int8, np.uint16, np.int32, np.uint64)):
        a, b = random_ints(shape_a, dtype, rng), random_ints(shape_b, dtype, rng)
        a.flags.writeable = b.flags.writeable = False
        pairs.append((a, b, a & b))
    return pairs


def _hammer(ops, pairs, floats, rounds, errors):
    try:
        for _ in range(rounds):
            for a, b, expected in pairs:
                if not np.array_equal(ops.bitwise_and(a, b), expected):
                    errors.append("bitwise_and gave a wrong result")
            bits = ops.bitcast(floats, "UINT32", copy=True)
            if bits.tobytes() != floats.tobytes():
                errors.append("bitcast gave wrong bits")
            if ops.bitcast(bits, "float").tobytes() != floats.tobytes():
                errors.append("bitcast view gave wrong bits")
    except Exception as exc:  # reported, not swallowed
        errors.append(repr(exc))


@pytest.mark.parametrize("change_threads", [False, True], ids=["steady", "set_num_threads-concurrently"])
def test_eight_threads_exact_results(ops, change_threads):
    pairs = _inputs(1)
    floats = np.random.default_rng(2).standard_normal(50_000).astype(np.float32)
    floats.flags.writeable = False
    errors = []
    workers = [threading.Thread(target=_hammer, args=(ops, pairs, floats, 30, errors)) for _ in range(8)]
    stop = threading.Event()
    before = ops.get_num_threads()

    def changer():
        n = 1
        while not stop.is_set():
            ops.set_num_threads(n)
            n = 3 - n  # 1, 2, 1, 2, ...

    toggler = threading.Thread(target=changer) if change_threads else None
    for thread in workers + ([toggler] if toggler else []):
        thread.start()
    for thread in workers:
        thread.join()
    stop.set()
    if toggler:
        toggler.join()
    ops.set_num_threads(before)
    assert errors == []


def test_gil_is_released_during_large_calls(ops):
    """A Python thread runs while a large call runs. The ticker sleeps between its ticks (so it
    holds the GIL only to tick), and the switch interval is longer than the test, so that the
    main thread gives up the GIL only where it blocks: with the GIL held for the whole call, no
    tick could fall inside one, whatever the machine's load; with it released, ticks do."""
    a = np.random.default_rng(0).integers(0, 2**31, size=16_000_000, dtype=np.int32)
    b = a[::-1]
    out = np.empty_like(a)
    progress = []
    finished = threading.Event()

    def ticker():
        while not finished.is_set():
            time.sleep(0.0005)
            progress.append(1)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    thread = threading.Thread(target=ticker)
    try:
        thread.start()
        counts = []
        for _ in range(20):
            start = len(progress)
            ops.bitwise_and(a, b, out=out)  # ~10 ms: the ticker ticks meanwhile if the GIL is free
            counts.append(len(progress) - start)
    finally:
        finished.set()
        thread.join()
        sys.setswitchinterval(interval)
    np.testing.assert_array_equal(out, a & b)
    assert sum(count > 0 for count in counts) >= 10, counts


def _rss_kib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _bitwise_and_calls(ops):
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    b = np.arange(6, dtype=np.int32)
    out = np.empty((4, 6), np.int32)
    read_only = out.copy()
    read_only.flags.writeable = False
    return [
        lambda: ops.bitwise_and(a, b),
        lambda: ops.bitwise_and(a, 7),
        lambda: ops.bitwise_and(a, b, out=out),
        lambda: ops.bitwise_and(a.T, a.T),
        lambda: ops.bitwise_and(a, b.astype(np.int64)),  # TypeConstraintError
        lambda: ops.bitwise_and(a, np.zeros(5, np.int32)),  # BroadcastError
        lambda: ops.bitwise_and(a, 2**40),  # ArgumentValueError
        lambda: ops.bitwise_and(a, b, out=read_only),  # ArgumentValueError
        lambda: ops.bitwise_and(object(), b),  # ArgumentTypeError
        lambda: ops.bitwise_and(a.astype(">i4"), b),
    ]


def _family_calls(ops):
    """BitwiseOr, Xor, Not and BitShift: results, out=, every fast and slow path, errors."""
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    b = np.arange(6, dtype=np.int32)
    out = np.empty((4, 6), np.int32)
    return [
        lambda: ops.bitwise_or(a, b),
        lambda: ops.bitwise_xor(a, 7, out=out),
        lambda: ops.bitwise_not(a.T),
        lambda: ops.bitwise_not(a, out=out),
        lambda: ops.bitshift(a, b, "LEFT"),
        lambda: ops.bitshift(a, 40, "right", out=out),
        lambda: ops.bitshift(a.astype(">i4"), b, b"RIGHT"),
        lambda: ops.bitshift(a, b, "UP"),  # ArgumentValueError
        lambda: ops.bitshift(a, b.astype(np.uint32), "LEFT"),  # TypeConstraintError
        lambda: ops.bitwise_not(a.astype(np.float32)),  # TypeConstraintError
        lambda: ops.bitwise_or(a, np.zeros(5, np.int32)),  # BroadcastError
        lambda: ops.bitwise_xor(object(), b),  # ArgumentTypeError
    ]


def _bitcast_calls(ops):
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    return [
        lambda: ops.bitcast(x, 6),
        lambda: ops.bitcast(x, "uint32", copy=True),
        lambda: ops.bitcast(x.astype(">f4"), "int32"),
        lambda: ops.bitcast(np.zeros(8, ml_dtypes.int4), "uint4", copy=True),
        lambda: ops.bitcast(x, "int64"),  # BitWidthError
        lambda: ops.bitcast(x, 29),  # UnknownDataTypeError
        lambda: ops.bitcast(x, 8),  # TypeConstraintError
        lambda: ops.bitcast(x, None),  # ArgumentTypeError
        lambda: ops.bitcast(np.array(["a"]), 6),  # TypeConstraintError
    ]


def _loop(calls, count):
    for i in range(count):
        try:
            calls[i % len(calls)]()
        except (TypeError, ValueError):
            pass


@pytest.mark.parametrize("which", ["bitwise_and", "or_xor_not_bitshift", "bitcast"])
def test_no_leaks(ops, which):
    calls = {"bitwise_and": _bitwise_and_calls, "or_xor_not_bitshift": _family_calls, "bitcast": _bitcast_calls}[which](ops)
    _loop(calls, 10_000)  # warm up caches and the allocator
    gc.collect()
    rss_before = _rss_kib()
    _loop(calls, 100_000)
    gc.collect()
    rss_growth = _rss_kib() - rss_before
    tracemalloc.start()
    _loop(calls, 2_000)
    gc.collect()
    first, _ = tracemalloc.get_traced_memory()
    _loop(calls, 20_000)
    gc.collect()
    second, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert second - first < 64 * 1024, f"tracemalloc grew by {second - first} bytes over 20,000 calls"
    assert rss_growth < 4 * 1024, f"RSS grew by {rss_growth} KiB over 100,000 calls"
