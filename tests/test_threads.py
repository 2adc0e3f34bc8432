"""How many threads a call uses: the grain rule, the same on every machine and under any load.

A call whose result is W bytes uses ``min(num_threads, max(1, W // grain))`` threads, the
grain being the setting for its kind of loop; ``runtime_info()["last_call_threads"]`` reports
what the rule gave the last call made on the calling thread.  These tests count, they never
time: they hold on a machine with any number of CPUs, busy or idle.
"""

from __future__ import annotations

import threading

import ml_dtypes
import numpy as np
import pytest

import fastbits
from fastbits import _config

from support import run_python

# The team's counters (helpers started, calls shared) and set_config are the process's:
# pytest-run-parallel runs these tests on one thread.
pytestmark = [pytest.mark.compiled, pytest.mark.thread_unsafe]

KIB = 1 << 10
MIB = 1 << 20


@pytest.fixture(autouse=True)
def compiled_only():
    if fastbits.BACKEND != "cython":
        pytest.skip("the thread team is the compiled path's")
    if not fastbits.runtime_info()["threads_available"]:
        pytest.skip("a build without the thread team")
    before = fastbits.get_config()
    yield
    fastbits.set_config(**before)


def rule(work, grain, num_threads, units=None):
    """The grain rule, written out: what the runtime must do."""
    threads = min(num_threads, max(1, work // grain))
    return threads if units is None else max(1, min(threads, units))


def threads_of(call):
    call()
    return fastbits.runtime_info()["last_call_threads"]


SIZES = [1, 100, 16 * KIB, 255 * KIB, 256 * KIB, 1 * MIB, 2 * MIB - 4, 2 * MIB, 3 * MIB, 5 * MIB + 12, 16 * MIB]


@pytest.mark.parametrize("num_threads", [1, 2, 4, 8])
def test_elementwise_calls_follow_the_rule(num_threads):
    """Same-shape contiguous calls (the one-row path below 256 KiB included), broadcast rows, a
    fresh result and ``out=``, cache-resident and streamed."""
    grain = 512 * KIB
    data = np.arange(4 * MIB, dtype=np.int32)
    for stream_threshold, kind in ((1 << 62, "grain_cached"), (0, "grain_streamed")):
        fastbits.set_config(num_threads=num_threads, grain_cached=grain if kind == "grain_cached" else 1 << 40,
                            grain_streamed=grain if kind == "grain_streamed" else 1 << 40,
                            stream_threshold=stream_threshold)
        for nbytes in SIZES:
            a = data[: nbytes // 4]
            expected = rule(a.nbytes, grain, num_threads)
            assert threads_of(lambda: fastbits.bitwise_and(a, a)) == expected, (kind, nbytes)
            out = np.empty_like(a)
            assert threads_of(lambda: fastbits.bitwise_xor(a, 7, out=out)) == expected, (kind, nbytes)
            assert threads_of(lambda: fastbits.bitwise_not(a)) == expected, (kind, nbytes)
            rows = a[: a.size // 64 * 64].reshape(-1, 64)
            if rows.size == 0:
                continue
            expected_rows = rule(rows.nbytes, grain, num_threads, rows.shape[0])
            assert threads_of(lambda: fastbits.bitwise_or(rows, rows[0])) == expected_rows, (kind, nbytes)


def test_a_result_of_stream_threshold_bytes_is_streamed():
    """The result's bytes decide streaming, not the bytes the call reads: a streamed call takes
    the streamed grain (1 byte here: every thread), a cached one the cached grain (one thread).
    A binary call reads twice what it writes and an int32 -> int8 Cast four times, and neither is
    streamed until its result reaches the threshold, through the one-row path and the planner
    (broadcast rows) alike."""
    threshold = 1 * MIB
    fastbits.set_config(num_threads=2, grain_cached=1 << 40, grain_streamed=1, stream_threshold=threshold)
    for nbytes, expected in ((threshold - 256, 1), (threshold, 2)):
        a = np.arange(nbytes // 4, dtype=np.int32)
        assert threads_of(lambda: fastbits.bitwise_and(a, a)) == expected, nbytes
        assert threads_of(lambda: fastbits.bitwise_or(a, 5)) == expected, nbytes
        assert threads_of(lambda: fastbits.bitwise_not(a, out=np.empty_like(a))) == expected, nbytes
        rows = a.reshape(-1, 64)
        assert threads_of(lambda: fastbits.bitwise_xor(rows, rows[0])) == expected, nbytes
        wide = np.zeros(nbytes, np.int32)  # 4 * nbytes read, nbytes written
        assert threads_of(lambda: fastbits.cast(wide, "INT8")) == expected, nbytes


@pytest.mark.parametrize("num_threads", [1, 2, 4, 8])
def test_the_same_call_uses_the_same_threads_every_time(num_threads):
    fastbits.set_config(num_threads=num_threads, stream_threshold=1 << 62)  # cache-resident on any machine
    a = np.ones(3 * MIB, np.uint8)
    counts = {threads_of(lambda: fastbits.bitwise_and(a, a)) for _ in range(50)}
    assert counts == {rule(a.nbytes, fastbits.get_config()["grain_cached"], num_threads)}


@pytest.mark.parametrize("num_threads", [1, 2, 4, 8])
def test_strided_loops_and_packing_follow_their_grain(num_threads):
    grain = 256 * KIB
    fastbits.set_config(num_threads=num_threads, grain_strided=grain, grain_cached=1 << 40, grain_streamed=1 << 40)
    for n in (64, 512, 1024, 2048):
        a = np.arange(n * n, dtype=np.int32).reshape(n, n)
        expected = rule(a.nbytes, grain, num_threads) if a.nbytes >= MIB else 1  # a transpose: tiles from 1 MiB
        assert threads_of(lambda: fastbits.bitwise_and(a, a.T)) == expected, n
        short = a.reshape(-1, 16)[:, :8]  # rows of 8 apart: gathered into chunks
        expected = rule(short.nbytes, grain, num_threads, short.shape[0])
        assert threads_of(lambda: fastbits.bitwise_xor(short, short)) == expected, n
    for count in (7, 100 * KIB, 300 * KIB, 2 * MIB + 3, 5 * MIB):
        values = np.zeros(count, ml_dtypes.int4)
        expected = rule(count, grain, num_threads, (count + 7) // 8)
        packed = fastbits.pack(values)
        assert fastbits.runtime_info()["last_call_threads"] == expected, count
        assert threads_of(lambda: fastbits.unpack(packed, "INT4", (count,))) == expected, count


GRAINS = ("grain_cached", "grain_streamed", "grain_strided")


def test_defaults_are_the_documented_grains():
    config, table = fastbits.get_config(), _config.defaults()
    assert {name: config[name] for name in GRAINS} == {name: table[name] for name in GRAINS}


def test_helpers_start_only_as_the_rule_asks():
    """A call starts the helpers its threads need, less the caller, and no more (in a fresh
    process, where no helper runs yet)."""
    code = (
        "import numpy as np, fastbits\n"
        "fastbits.set_config(num_threads=8, grain_cached=1 << 20)\n"
        "counts = []\n"
        "for size in (1 << 20, 2 << 20, 4 << 20, 3 << 20):\n"
        "    a = np.ones(size, np.uint8)\n"
        "    fastbits.bitwise_and(a, a)\n"
        "    counts.append(fastbits.runtime_info()['helper_threads'])\n"
        "print(counts)"
    )
    assert run_python(code).stdout.strip() == "[0, 1, 3, 3]"


def test_a_thread_limit_of_its_own_caps_only_that_thread():
    """``set_local_threads`` (what fastbits' dask integration uses inside tasks) caps the calls
    made on the thread that set it, and no other."""
    from fastbits import _runtime

    fastbits.set_config(num_threads=4, grain_cached=256 * KIB)
    a = np.ones(4 * MIB, np.uint8)
    seen = {}

    def capped():
        old = _runtime.set_local_threads(1)
        try:
            seen["capped"] = threads_of(lambda: fastbits.bitwise_and(a, a))
        finally:
            _runtime.set_local_threads(old)
        seen["after"] = threads_of(lambda: fastbits.bitwise_and(a, a))

    worker = threading.Thread(target=capped)
    worker.start()
    worker.join()
    assert seen == {"capped": 1, "after": 4}
    assert threads_of(lambda: fastbits.bitwise_and(a, a)) == 4


def test_settings_changed_while_other_threads_call():
    """set_config from one thread while others call: every result exact, the thread counts
    always one of the settings' (no torn or mixed value)."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2**31, 3 * MIB // 4, dtype=np.int32)
    b = rng.integers(0, 2**31, 3 * MIB // 4, dtype=np.int32)
    expected = a & b
    allowed = {rule(a.nbytes, grain, n) for grain in (256 * KIB, 1 << 40) for n in (1, 2, 3)}
    stop = threading.Event()
    problems = []

    def caller():
        while not stop.is_set():
            result = fastbits.bitwise_and(a, b)
            threads = fastbits.runtime_info()["last_call_threads"]
            if not np.array_equal(result, expected) or threads not in allowed:
                problems.append(threads)

    callers = [threading.Thread(target=caller) for _ in range(3)]
    for thread in callers:
        thread.start()
    try:
        for round_ in range(300):
            fastbits.set_config(num_threads=1 + round_ % 3, grain_cached=(256 * KIB, 1 << 40)[round_ % 2],
                                stream_threshold=(0, 1 << 62)[round_ % 5 == 0], spin_time=(0, 1e-4)[round_ % 2])
    finally:
        stop.set()
        for thread in callers:
            thread.join()
    assert problems == []
