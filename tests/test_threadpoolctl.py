"""threadpoolctl sees fastbits' thread team and limits it (compiled path)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import fastbits
from support import threads_available




@pytest.fixture
def threadpoolctl():
    return pytest.importorskip("threadpoolctl")


def _fastbits_pools(threadpoolctl):
    from fastbits import _threadpool

    assert _threadpool._registered, "importing the compiled kernels did not register the controller"
    return [pool for pool in threadpoolctl.threadpool_info() if pool["user_api"] == "fastbits"]


@pytest.mark.compiled
def test_threadpoolctl_lists_the_team(threadpoolctl):
    from fastbits import _runtime

    with fastbits.config_context(num_threads=2):
        pools = _fastbits_pools(threadpoolctl)
        assert len(pools) == 1, threadpoolctl.threadpool_info()
        (entry,) = pools
        assert os.path.realpath(entry["filepath"]) == os.path.realpath(_runtime.__file__)
        assert entry["internal_api"] == "fastbits"
        assert entry["version"] == fastbits.__version__
        assert entry["num_threads"] == fastbits.get_num_threads() == (2 if threads_available(_runtime) else 1)


@pytest.mark.compiled
def test_threadpool_limits_limits_the_team(threadpoolctl):
    from fastbits import _runtime

    rng = np.random.default_rng(5)
    a = rng.integers(0, 2**32, 1 << 21, dtype=np.uint32)  # 8 MiB: the threaded loop
    b = rng.integers(0, 2**32, 1 << 21, dtype=np.uint32)
    with fastbits.config_context(num_threads=2, grain_cached=1 << 20):
        old = fastbits.get_num_threads()
        assert old == (2 if threads_available(_runtime) else 1)
        with threadpoolctl.threadpool_limits(1):
            assert fastbits.get_num_threads() == 1 == fastbits.get_config()["num_threads"]
            assert _fastbits_pools(threadpoolctl)[0]["num_threads"] == 1
            assert np.array_equal(fastbits.bitwise_and(a, b), a & b)
        assert fastbits.get_num_threads() == old
        with threadpoolctl.threadpool_limits(limits={"fastbits": 1}):
            assert fastbits.get_num_threads() == 1
        with threadpoolctl.threadpool_limits(limits=1, user_api="fastbits"):
            assert fastbits.get_num_threads() == 1
        assert fastbits.get_num_threads() == old
        assert np.array_equal(fastbits.bitwise_and(a, b), a & b)
