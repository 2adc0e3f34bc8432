"""The output pool of the compiled runtime: large fresh results served from idle blocks, given back."""

from __future__ import annotations


import numpy as np
import pytest

import fastbits

# The pool's idle blocks and counters are the process's: one thread at a time.
pytestmark = pytest.mark.thread_unsafe



@pytest.fixture
def pool():
    """The compiled runtime with the pool on for results from 64 KiB, emptied first."""
    from fastbits import _runtime

    if not _runtime.runtime_info()["output_pool_available"]:
        pytest.skip("no output pool in this build (sanitizer build, or no MADV_FREE)")
    with fastbits.config_context(output_pool=True, pool_threshold=1 << 16):
        fastbits.release_memory()
        yield _runtime
    fastbits.release_memory()


def _stats():
    info = fastbits.runtime_info()
    return {k: info[k] for k in ("pool_hits", "pool_misses", "pool_idle_bytes", "pool_idle_blocks")}


@pytest.mark.compiled
def test_pool_serves_a_result_after_one_died(pool):
    a = np.arange(1 << 18, dtype=np.uint32)  # 1 MiB results
    b = np.uint32(0xF0F0F0F0)
    first = fastbits.bitwise_and(a, b)
    assert np.array_equal(first, a & b)
    start = _stats()
    assert start["pool_idle_blocks"] == 0
    del first
    idle = _stats()
    assert idle["pool_idle_blocks"] == 1 and idle["pool_idle_bytes"] >= a.nbytes
    second = fastbits.bitwise_and(a, np.uint32(0x0F0F0F0F))  # same size: the idle block
    after = _stats()
    assert after["pool_hits"] == start["pool_hits"] + 1
    assert after["pool_misses"] == start["pool_misses"]
    assert after["pool_idle_blocks"] == 0 and after["pool_idle_bytes"] == 0
    assert np.array_equal(second, a & np.uint32(0x0F0F0F0F))  # the old values are gone
    copy = fastbits.bitcast(a, "float32", copy=True)  # a second live result: new memory
    assert _stats()["pool_misses"] == start["pool_misses"] + 1
    assert not np.shares_memory(copy, second)
    assert np.array_equal(copy.view(np.uint32), a)


@pytest.mark.compiled
def test_a_freed_block_takes_the_place_of_those_idle_longest(pool):
    """A block that fits the pool's bound alone is kept, the blocks idle longest freed to make
    room: a large result freed after a small one is there for the next large result."""
    most = fastbits.runtime_info()["pool_max_idle_bytes"]
    small = fastbits.bitwise_not(np.zeros(1 << 20, np.uint8))
    del small
    assert _stats()["pool_idle_blocks"] == 1
    big_input = np.zeros(most, np.uint8)  # a result of the bound itself: the small block must go
    big = fastbits.bitwise_not(big_input)
    del big
    idle = _stats()
    assert idle["pool_idle_blocks"] == 1 and idle["pool_idle_bytes"] == most
    again = fastbits.bitwise_not(big_input)
    assert _stats()["pool_hits"] == idle["pool_hits"] + 1
    assert again[0] == 255 and again[-1] == 255


@pytest.mark.compiled
def test_small_results_bypass_the_pool(pool):
    a = np.arange(1 << 10, dtype=np.uint8)  # 1 KiB, below pool_threshold
    start = _stats()
    for _ in range(3):
        assert np.array_equal(fastbits.bitwise_and(a, a), a)
    assert _stats() == start


@pytest.mark.compiled
def test_release_memory_returns_the_idle_bytes(pool):
    results = [fastbits.bitwise_and(np.arange(n, dtype=np.int64), np.int64(-1)) for n in (1 << 17, 1 << 18)]
    del results
    idle = _stats()
    assert idle["pool_idle_blocks"] == 2 and idle["pool_idle_bytes"] >= (3 << 20)
    assert fastbits.release_memory() == idle["pool_idle_bytes"]
    assert _stats()["pool_idle_bytes"] == 0 and _stats()["pool_idle_blocks"] == 0
    assert fastbits.release_memory() == 0


@pytest.mark.compiled
def test_output_pool_false_releases_and_stops_using_it(pool):
    a = np.arange(1 << 18, dtype=np.int32)
    fastbits.bitwise_and(a, a)  # the result dies at once: an idle block
    assert _stats()["pool_idle_bytes"] > 0
    fastbits.set_config(output_pool=False)
    assert fastbits.get_config()["output_pool"] is False
    off = _stats()
    assert off["pool_idle_bytes"] == 0 and off["pool_idle_blocks"] == 0
    results = [fastbits.bitwise_and(a, np.int32(7)) for _ in range(3)]
    del results
    assert _stats() == off  # neither hits, misses nor idle blocks: numpy's own allocator
    fastbits.set_config(output_pool=True)
    assert np.array_equal(fastbits.bitwise_and(a, np.int32(7)), a & 7)
    assert _stats()["pool_misses"] == off["pool_misses"] + 1
