"""Many Python threads at once, on both paths.

``config_context`` is the calling thread's own: two threads in blocks of their own neither see
nor undo each other's values.  Every operator, in every layout and from one element to
millions, stays exact from 8 threads while another thread churns the settings, the contexts
and the output pool.  On a free-threaded Python, importing fastbits leaves the GIL off.
"""

from __future__ import annotations

import sysconfig
import threading

import numpy as np
import pytest

import fastbits

from support import check_every_operator, run_python

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))

# Each test starts threads of its own and changes process-wide settings: pytest-run-parallel
# runs it on one thread.
pytestmark = pytest.mark.thread_unsafe


def in_threads(count, target):
    """Run ``target(i)`` on ``count`` threads at once; re-raise the first error."""
    errors = []

    def run(i):
        try:
            target(i)
        except BaseException as error:  # noqa: BLE001 - handed to the test's thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


@pytest.mark.skipif(not FREE_THREADED, reason="needs a free-threaded Python")
def test_importing_fastbits_keeps_the_gil_off():
    """Every compiled module declares that it runs without the GIL: a module that did not would
    turn it back on for the whole process (with a RuntimeWarning, an error under -W error)."""
    done = run_python(
        "import sys, warnings\n"
        "warnings.simplefilter('error')\n"
        "import fastbits, fastbits.kernels, fastbits.onnx_ops, fastbits.onnx_backend\n"
        "from fastbits import _threadpool\n"
        "assert fastbits.BACKEND == 'cython', fastbits.FALLBACK_REASON\n"
        "_threadpool.register()\n"
        "import threadpoolctl\n"
        "threadpoolctl.threadpool_info()\n"
        "print(sys._is_gil_enabled())\n")
    assert done.stdout.strip() == "False", done.stderr


def test_config_context_is_the_calling_threads_own(config):
    """Two threads inside blocks of their own, at the same time: each sees its values, the
    other's never, and each block's end puts back only its own thread's."""
    fastbits.set_config(grain_cached=1 << 20, pool_threshold=1 << 25, task_threads=1)
    process_wide = fastbits.get_config()
    inside = threading.Barrier(2)
    left = threading.Barrier(2)
    values = [dict(grain_cached=1000, pool_threshold=7, task_threads=2),
              dict(grain_cached=2000, spin_time=0.25, task_threads=3)]

    def block(i):
        with fastbits.config_context(**values[i]) as mine:
            inside.wait()  # both blocks are entered
            assert mine == fastbits.get_config() == {**process_wide, **values[i]}
            inside.wait()
        left.wait()  # the other thread left its block too
        assert fastbits.get_config() == process_wide

    in_threads(2, block)
    assert fastbits.get_config() == process_wide


def test_a_new_thread_starts_with_the_process_wide_values(config):
    with fastbits.config_context(grain_strided=4321, task_threads=5):
        seen = []
        in_threads(1, lambda i: seen.append(fastbits.get_config()))
        assert seen[0]["grain_strided"] != 4321 and seen[0]["task_threads"] != 5
        assert fastbits.get_config()["grain_strided"] == 4321


def test_set_config_in_a_block_changes_the_blocks_value_of_the_settings_it_names(config):
    """Inside a block, set_config changes the block's value of a setting the block names (until
    the block ends, on this thread) and the process-wide value of the others (for every thread)."""
    fastbits.set_config(grain_cached=1 << 20, pool_threshold=1 << 25)
    with fastbits.config_context(grain_cached=3000):
        fastbits.set_config(grain_cached=4000, pool_threshold=99)
        assert fastbits.get_config()["grain_cached"] == 4000
        other = []
        in_threads(1, lambda i: other.append(fastbits.get_config()))
        assert other[0]["grain_cached"] == 1 << 20 and other[0]["pool_threshold"] == 99
    assert fastbits.get_config()["grain_cached"] == 1 << 20
    assert fastbits.get_config()["pool_threshold"] == 99


def test_a_blocks_num_threads_holds_for_its_threads_calls_alone(config, ops):
    """The grain rule of a call reads its own thread's values: one thread's calls in a block of
    num_threads=1 run alone while another thread's calls are shared."""
    if not ops.runtime.runtime_info()["threads_available"]:
        pytest.skip("no thread team: the pure path, or a build without threads")
    a = np.arange(1 << 20, dtype=np.uint32)
    fastbits.set_config(num_threads=2, grain_cached=4096, grain_streamed=4096)
    counts = [[], []]
    inside = threading.Barrier(2)

    def caller(i):
        with fastbits.config_context(num_threads=1 + i):
            inside.wait()
            for _ in range(20):
                assert np.array_equal(ops.bitwise_xor(a, a), np.zeros_like(a))
                counts[i].append(ops.runtime.runtime_info()["last_call_threads"])

    in_threads(2, caller)
    assert set(counts[0]) == {1} and set(counts[1]) == {2}


# --------------------------------------------------------------------------
# 8 threads, every operator and layout, while another churns the settings

SIZES = [1, 100, 10_007, 1_500_000]


def test_every_operator_is_exact_from_8_threads_while_settings_churn(config, ops):
    stop = threading.Event()
    churned = []

    def churn():
        rng = np.random.default_rng(99)
        rounds = 0
        while not stop.is_set():
            fastbits.set_config(num_threads=int(rng.integers(1, 5)), grain_cached=int(rng.choice([4096, 1 << 18])),
                                grain_streamed=int(rng.choice([4096, 1 << 20])),
                                grain_strided=int(rng.choice([4096, 1 << 19])),
                                stream_threshold=int(rng.choice([0, 1 << 20, 1 << 62])),
                                output_pool=bool(rounds % 3), pool_threshold=int(rng.choice([0, 1 << 16, 1 << 25])),
                                spin_time=float(rng.choice([0.0, 1e-4])))
            with fastbits.config_context(num_threads=1, grain_cached=1 << 30):
                assert fastbits.get_config()["grain_cached"] == 1 << 30
            fastbits.release_memory()
            rounds += 1
        churned.append(rounds)

    def worker(i):
        rng = np.random.default_rng(i)
        for size in SIZES:
            with fastbits.config_context(grain_strided=1000 + i):  # its own, under the churn
                check_every_operator(ops, size, rng)
                assert fastbits.get_config()["grain_strided"] == 1000 + i

    churner = threading.Thread(target=churn)
    churner.start()
    try:
        in_threads(8, worker)
    finally:
        stop.set()
        churner.join()
    assert churned and churned[0] > 0
