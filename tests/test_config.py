"""The public configuration API on both paths, the output pool, threadpoolctl, default threads.

``fastbits.get_config`` / ``set_config`` / ``config_context`` / ``runtime_info`` /
``release_memory`` reach the active runtime (``fastbits._runtime``, or ``fastbits._runtime_py``
on the pure path).  The ``config`` fixture points them at each path's runtime in turn, so one
run of this file checks both; the tests of the compiled runtime alone are marked ``compiled``.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pytest

import fastbits
from fastbits import _config, _cpus, _runtime_py

from conftest import COMPILED
from support import run_python, runtime_of

SETTINGS = ("grain_cached", "grain_streamed", "grain_strided", "num_threads", "output_pool", "pool_threshold", "spin_time",
            "stream_threshold", "task_threads")
RUNTIME_KEYS = {
    "backend", "threads_available", "helper_threads", "parallel_calls", "helper_shares", "last_call_threads",
    "output_pool_available",
    "pool_hits", "pool_misses", "pool_idle_bytes", "pool_idle_blocks", "pool_max_idle_bytes",
    "pool_max_idle_seconds", "sanitized_build",
}


@pytest.fixture
def config(ops, monkeypatch):
    """The config API bound to ``ops``' runtime; its settings are put back after the test."""
    runtime = runtime_of(ops)
    monkeypatch.setattr(_config, "_runtime", runtime)
    before = runtime.current_config()
    yield runtime
    runtime.configure(**before)
    assert runtime.current_config() == before


def _threaded(runtime):
    return runtime.runtime_info()["threads_available"]


# --------------------------------------------------------------------------
# get_config / set_config / config_context


def test_get_config_names_the_settings(config):
    settings = fastbits.get_config()
    assert set(settings) == set(SETTINGS)
    assert isinstance(settings["num_threads"], int) and settings["num_threads"] >= 1
    assert isinstance(settings["output_pool"], bool)
    assert settings["grain_cached"] >= 1 and settings["pool_threshold"] >= 0
    assert settings == config.current_config()
    fastbits.get_config()["grain_cached"] = -5  # a copy: changing it changes nothing
    assert fastbits.get_config() == settings


def test_values_round_trip(config, ops):
    fastbits.set_config(grain_cached=123456789, pool_threshold=1 << 21)
    got = fastbits.get_config()
    assert got["grain_cached"] == 123456789 and got["pool_threshold"] == 1 << 21
    fastbits.set_config(grain_streamed=np.int64(1), grain_strided=np.uint32(1 << 30), pool_threshold=np.uint16(7))
    assert fastbits.get_config()["grain_streamed"] == 1
    assert fastbits.get_config()["grain_strided"] == 1 << 30
    assert fastbits.get_config()["pool_threshold"] == 7
    assert type(fastbits.get_config()["pool_threshold"]) is int
    assert type(fastbits.get_config()["grain_strided"]) is int
    fastbits.set_config(grain_cached=2**70)  # beyond any size: clamped, still an int
    assert fastbits.get_config()["grain_cached"] == 2**62
    fastbits.set_config(stream_threshold=0)
    assert fastbits.get_config()["stream_threshold"] == 0
    fastbits.set_config(stream_threshold=np.uint32(1 << 20))
    assert fastbits.get_config()["stream_threshold"] == 1 << 20
    assert type(fastbits.get_config()["stream_threshold"]) is int
    for seconds, expected in ((0, 0.0), (0.25, 0.25), (np.float32(0.5), 0.5), (2, 2.0), (np.int8(0), 0.0)):
        fastbits.set_config(spin_time=seconds)
        assert fastbits.get_config()["spin_time"] == expected
        assert type(fastbits.get_config()["spin_time"]) is float

    threads = 3 if _threaded(config) else 1
    fastbits.set_config(num_threads=3)
    assert fastbits.get_config()["num_threads"] == threads == ops.get_num_threads()
    ops.set_num_threads(2)
    assert fastbits.get_config()["num_threads"] == (2 if _threaded(config) else 1)
    fastbits.set_config(num_threads=np.int32(1))
    assert ops.get_num_threads() == 1 == fastbits.get_config()["num_threads"]

    assert fastbits.get_config()["task_threads"] == 1  # the default
    fastbits.set_config(task_threads=np.int16(3))
    assert fastbits.get_config()["task_threads"] == 3 and type(fastbits.get_config()["task_threads"]) is int
    fastbits.set_config(task_threads=2**40)  # above num_threads: kept; the runtime caps a call
    assert fastbits.get_config()["task_threads"] == 2**40

    pool = config.runtime_info()["output_pool_available"]
    fastbits.set_config(output_pool=False)
    assert fastbits.get_config()["output_pool"] is False
    fastbits.set_config(output_pool=np.bool_(True))
    assert fastbits.get_config()["output_pool"] is pool  # True only where the pool exists


def test_none_keeps_a_setting(config):
    fastbits.set_config(grain_cached=1 << 19, pool_threshold=77)
    before = fastbits.get_config()
    fastbits.set_config()
    fastbits.set_config(num_threads=None, grain_cached=None, output_pool=None, pool_threshold=None)
    assert fastbits.get_config() == before


def test_config_context_sets_and_restores(config):
    before = fastbits.get_config()
    with fastbits.config_context(grain_cached=5 << 20, pool_threshold=6, num_threads=1) as inside:
        assert inside == fastbits.get_config()
        assert inside["grain_cached"] == 5 << 20 and inside["pool_threshold"] == 6
        assert inside["num_threads"] == 1
        with fastbits.config_context(grain_cached=9 << 20):
            assert fastbits.get_config()["grain_cached"] == 9 << 20
            assert fastbits.get_config()["pool_threshold"] == 6
        assert fastbits.get_config()["grain_cached"] == 5 << 20
    assert fastbits.get_config() == before


def test_config_context_restores_when_the_block_raises(config):
    before = fastbits.get_config()
    with pytest.raises(KeyError, match="from the block"):
        with fastbits.config_context(grain_strided=1 << 20, output_pool=False, pool_threshold=3, num_threads=2):
            assert fastbits.get_config()["pool_threshold"] == 3
            raise KeyError("from the block")
    assert fastbits.get_config() == before


def test_config_context_restores_only_its_own_settings(config):
    with fastbits.config_context(grain_streamed=11 << 20):
        fastbits.set_config(pool_threshold=12345)  # not the context's: it stays
    assert fastbits.get_config()["pool_threshold"] == 12345


# (setting, bad value, error, what the message says after "set_config: '<setting>' ")
BAD_VALUES = [
    ("num_threads", 0, fastbits.ArgumentValueError, "must be a positive int, not 0"),
    ("num_threads", -1, fastbits.ArgumentValueError, "must be a positive int, not -1"),
    ("num_threads", 1.5, fastbits.ArgumentValueError, "must be a positive int, not 1.5"),
    ("num_threads", True, fastbits.ArgumentValueError, "must be a positive int, not True"),
    ("num_threads", "2", fastbits.ArgumentValueError, "must be a positive int, not '2'"),
    ("grain_cached", 0, fastbits.ArgumentValueError, "must be at least 1 bytes, not 0"),
    ("grain_streamed", -5, fastbits.ArgumentValueError, "must be at least 1 bytes, not -5"),
    ("grain_strided", -1, fastbits.ArgumentValueError, "must be at least 1 bytes, not -1"),
    ("grain_cached", 1.5e6, fastbits.ArgumentTypeError, "must be an int (bytes), not 1500000.0"),
    ("grain_streamed", True, fastbits.ArgumentTypeError, "must be an int (bytes), not True"),
    ("grain_strided", "2M", fastbits.ArgumentTypeError, "must be an int (bytes), not '2M'"),
    ("pool_threshold", -1, fastbits.ArgumentValueError, "must be at least 0 bytes, not -1"),
    ("pool_threshold", np.float64(8.0), fastbits.ArgumentTypeError, "must be an int (bytes)"),
    ("pool_threshold", np.bool_(False), fastbits.ArgumentTypeError, "must be an int (bytes)"),
    ("stream_threshold", -8, fastbits.ArgumentValueError, "must be at least 0 bytes, not -8"),
    ("stream_threshold", 2.0, fastbits.ArgumentTypeError, "must be an int (bytes), not 2.0"),
    ("stream_threshold", "8M", fastbits.ArgumentTypeError, "must be an int (bytes), not '8M'"),
    ("spin_time", -0.001, fastbits.ArgumentValueError, "must be a finite number of seconds >= 0, not -0.001"),
    ("spin_time", float("nan"), fastbits.ArgumentValueError, "must be a finite number of seconds >= 0, not nan"),
    ("spin_time", float("inf"), fastbits.ArgumentValueError, "must be a finite number of seconds >= 0, not inf"),
    ("spin_time", "1ms", fastbits.ArgumentTypeError, "must be a number of seconds, not '1ms'"),
    ("spin_time", True, fastbits.ArgumentTypeError, "must be a number of seconds, not True"),
    ("spin_time", 1j, fastbits.ArgumentTypeError, "must be a number of seconds, not 1j"),
    ("task_threads", 0, fastbits.ArgumentValueError, "must be a positive int, not 0"),
    ("task_threads", 2.0, fastbits.ArgumentValueError, "must be a positive int, not 2.0"),
    ("task_threads", False, fastbits.ArgumentValueError, "must be a positive int, not False"),
    ("output_pool", 0, fastbits.ArgumentTypeError, "must be True or False, not 0"),
    ("output_pool", 1, fastbits.ArgumentTypeError, "must be True or False, not 1"),
    ("output_pool", "2", fastbits.ArgumentTypeError, "must be True or False, not '2'"),
    ("output_pool", 1.5, fastbits.ArgumentTypeError, "must be True or False, not 1.5"),
]


@pytest.mark.parametrize("name, value, error, says", BAD_VALUES, ids=[f"{r[0]}={r[1]!r}" for r in BAD_VALUES])
def test_bad_values_are_refused_and_change_nothing(config, name, value, error, says):
    fastbits.set_config(grain_cached=4321 << 10, pool_threshold=8765, num_threads=1)
    before = fastbits.get_config()
    expected = f"set_config: '{name}' {says}"
    # the other settings of the same call are valid: none of them may be applied either
    others = {k: v for k, v in {"grain_cached": 1 << 20, "pool_threshold": 2, "num_threads": 2}.items() if k != name}
    for call in (
        lambda: fastbits.set_config(**{name: value}),
        lambda: fastbits.set_config(**others, **{name: value}),
        lambda: fastbits.config_context(**others, **{name: value}).__enter__(),
    ):
        with pytest.raises(error) as info:
            call()
        assert isinstance(info.value, fastbits.FastbitsError)
        assert str(info.value).startswith(expected), str(info.value)
        assert fastbits.get_config() == before


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "2", None])
def test_set_num_threads_refuses(config, ops, value):
    ops.set_num_threads(1)
    with pytest.raises(fastbits.ArgumentValueError, match=r"^set_num_threads: 'n' must be a positive int"):
        ops.set_num_threads(value)
    assert ops.get_num_threads() == 1 == fastbits.get_config()["num_threads"]


def test_unknown_setting_names_are_refused(config):
    before = fastbits.get_config()
    with pytest.raises(fastbits.ArgumentTypeError, match=r"^set_config: unknown setting\(s\) num_thread;") as info:
        fastbits.set_config(num_thread=2, grain_cached=1 << 20)
    assert ("expected some of grain_cached, grain_streamed, grain_strided, num_threads, output_pool, pool_threshold"
            in str(info.value))
    with pytest.raises(fastbits.ArgumentTypeError, match=r"^set_config: unknown setting\(s\) a, b;"):
        fastbits.set_config(b=1, a=2)
    with pytest.raises(fastbits.ArgumentTypeError, match=r"^config_context: unknown setting\(s\) threads;"):
        with fastbits.config_context(threads=1, pool_threshold=5):
            pytest.fail("the block must not run")  # pragma: no cover
    assert fastbits.get_config() == before


def test_runtime_info_and_release_memory(config, ops):
    info = fastbits.runtime_info()
    assert set(info) == RUNTIME_KEYS
    assert info["backend"] == ("cython" if ops.__name__ == "fastbits._ops_c" else "python")
    for key in ("helper_threads", "parallel_calls", "helper_shares", "last_call_threads", "pool_hits", "pool_misses", "pool_idle_bytes", "pool_idle_blocks"):
        assert isinstance(info[key], int) and info[key] >= 0, key
    released = fastbits.release_memory()
    assert isinstance(released, int) and released >= 0
    assert fastbits.runtime_info()["pool_idle_bytes"] == 0
    assert fastbits.runtime_info()["pool_idle_blocks"] == 0
    if info["backend"] == "python":
        assert not info["threads_available"] and not info["output_pool_available"]
        assert fastbits.get_config()["num_threads"] == 1


def test_the_facade_uses_the_active_runtime():
    expected = "fastbits._runtime" if fastbits.BACKEND == "cython" else "fastbits._runtime_py"
    assert fastbits._ops.runtime.__name__ == expected
    assert fastbits.runtime_info()["backend"] == fastbits.BACKEND
    assert fastbits.get_config()["num_threads"] == fastbits.get_num_threads()


# --------------------------------------------------------------------------
# the compiled runtime against the pure one


@pytest.mark.compiled
def test_pure_defaults_equal_compiled_defaults():
    """The pure runtime reports the compiled runtime's default thresholds (read in a fresh
    process, where no test has changed them)."""
    code = (
        "import json, fastbits._runtime as c, fastbits._runtime_py as p\n"
        "print(json.dumps([c.current_config(), p.current_config()]))"
    )
    import json

    compiled, pure = json.loads(run_python(code).stdout)
    for key in ("grain_cached", "grain_streamed", "grain_strided", "pool_threshold", "stream_threshold", "spin_time",
                "task_threads"):
        assert pure[key] == compiled[key], key
    assert {key: compiled[key] for key in _cpus.GRAINS} == _cpus.GRAINS
    assert compiled["stream_threshold"] == _cpus.default_stream_threshold()
    assert compiled["spin_time"] == _cpus.SPIN_TIME == 0.0001
    assert pure["num_threads"] == 1 and pure["output_pool"] is False and compiled["task_threads"] == 1


@pytest.mark.compiled
def test_runtime_info_has_the_same_keys_on_both_paths():
    from fastbits import _runtime

    assert set(_runtime.runtime_info()) == set(_runtime_py.runtime_info()) == RUNTIME_KEYS


@pytest.mark.parametrize("policy, seconds", [("passive", 0.0), (" PASSIVE ", 0.0), ("active", 1e-4), ("", 1e-4)])
def test_omp_wait_policy_passive_sets_spin_time_to_zero(policy, seconds):
    """OMP_WAIT_POLICY=passive (any case) asks threads not to spin: the default spin_time is 0 on
    both paths; any other value leaves it at 100 µs."""
    code = ("import json, fastbits, fastbits._runtime_py as p\n"
            "print(json.dumps([fastbits.get_config()['spin_time'], p.current_config()['spin_time']]))")
    import json

    assert json.loads(run_python(code, OMP_WAIT_POLICY=policy).stdout) == [seconds, seconds]


# --------------------------------------------------------------------------
# the output pool (compiled)


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


# --------------------------------------------------------------------------
# threadpoolctl (compiled)


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
        assert entry["num_threads"] == fastbits.get_num_threads() == (2 if _threaded(_runtime) else 1)


@pytest.mark.compiled
def test_threadpool_limits_limits_the_team(threadpoolctl):
    from fastbits import _runtime

    rng = np.random.default_rng(5)
    a = rng.integers(0, 2**32, 1 << 21, dtype=np.uint32)  # 8 MiB: the threaded loop
    b = rng.integers(0, 2**32, 1 << 21, dtype=np.uint32)
    with fastbits.config_context(num_threads=2, grain_cached=1 << 20):
        old = fastbits.get_num_threads()
        assert old == (2 if _threaded(_runtime) else 1)
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


# --------------------------------------------------------------------------
# the default thread count: FASTBITS_NUM_THREADS, OMP_NUM_THREADS, CPUs


THREADS_CODE = (
    "import fastbits, fastbits._cpus as c\n"
    "print(c.default_num_threads(), c.available_cpus(), fastbits.get_num_threads(),"
    " int(fastbits.runtime_info()['threads_available']))"
)


def _default_threads(**env):
    done = run_python(THREADS_CODE, **env)
    default, cpus, used, threaded = map(int, done.stdout.split())
    return default, cpus, (used, bool(threaded)), done.stderr


@pytest.mark.parametrize(
    "env, expected",
    [
        ({"OMP_NUM_THREADS": "1"}, 1),
        ({"OMP_NUM_THREADS": "3,2"}, 3),  # one value per nesting level: the first
        ({"OMP_NUM_THREADS": " 4 "}, 4),
        ({"FASTBITS_NUM_THREADS": "2", "OMP_NUM_THREADS": "1"}, 2),  # fastbits' own wins
        ({"FASTBITS_NUM_THREADS": "1", "OMP_NUM_THREADS": "3"}, 1),
    ],
    ids=["omp-1", "omp-nested", "omp-spaces", "fastbits-wins", "fastbits-wins-lower"],
)
def test_default_threads_from_the_environment(env, expected):
    default, _, (used, threaded), stderr = _default_threads(**env)
    assert default == expected
    assert used == (expected if threaded else 1)  # what the runtime took at import
    assert "Warning" not in stderr, stderr


@pytest.mark.parametrize(
    "env, warned, fallback",
    [
        ({"OMP_NUM_THREADS": "zero"}, "OMP_NUM_THREADS='zero'", None),
        ({"OMP_NUM_THREADS": "0"}, "OMP_NUM_THREADS='0'", None),
        ({"FASTBITS_NUM_THREADS": "-2"}, "FASTBITS_NUM_THREADS='-2'", None),
        ({"FASTBITS_NUM_THREADS": "1.5", "OMP_NUM_THREADS": "3"}, "FASTBITS_NUM_THREADS='1.5'", 3),
    ],
    ids=["omp-word", "omp-zero", "fastbits-negative", "fastbits-bad-omp-good"],
)
def test_bad_thread_variables_warn_and_are_ignored(env, warned, fallback):
    default, cpus, (used, threaded), stderr = _default_threads(**env)
    assert f"RuntimeWarning: fastbits: {warned} is not a positive int; ignored" in stderr, stderr
    expected = cpus if fallback is None else fallback
    assert default == expected
    assert used == (expected if threaded else 1)


def test_no_variables_gives_the_available_cpus():
    default, cpus, (used, threaded), _ = _default_threads()
    assert default == cpus >= 1
    assert used == (cpus if threaded else 1)


# --------------------------------------------------------------------------
# cgroup CPU quotas, on fake trees


def _tree(tmp_path, proc_cgroup, files):
    """A fake /proc/self/cgroup and /sys/fs/cgroup: ``files`` maps paths under root to text."""
    root = tmp_path / "cgroup"
    root.mkdir()
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    listing = tmp_path / "proc-self-cgroup"
    listing.write_text(proc_cgroup)
    return {"proc_cgroup": str(listing), "root": str(root)}


def test_cgroup_v2_quota(tmp_path):
    tree = _tree(tmp_path, "0::/app.slice/job\n", {"app.slice/job/cpu.max": "200000 100000\n"})
    assert _cpus.cgroup_cpu_limit(**tree) == 2.0


def test_cgroup_v2_fractional_quota(tmp_path):
    tree = _tree(tmp_path, "0::/job\n", {"job/cpu.max": "150000 100000\n"})
    assert _cpus.cgroup_cpu_limit(**tree) == 1.5


def test_cgroup_v2_no_quota(tmp_path):
    tree = _tree(tmp_path, "0::/app.slice/job\n", {"app.slice/job/cpu.max": "max 100000\n", "app.slice/cpu.max": "max 100000\n"})
    assert _cpus.cgroup_cpu_limit(**tree) is None


def test_cgroup_v2_parent_quota_applies(tmp_path):
    files = {
        "kubepods/pod1/cpu.max": "400000 100000\n",
        "kubepods/pod1/ctr/cpu.max": "max 100000\n",
        "kubepods/cpu.max": "300000 100000\n",
        "cpu.max": "max 100000\n",
    }
    tree = _tree(tmp_path, "0::/kubepods/pod1/ctr\n", files)
    assert _cpus.cgroup_cpu_limit(**tree) == 3.0
    (tmp_path / "ctr-quota").mkdir()
    files["kubepods/pod1/ctr/cpu.max"] = "100000 100000\n"  # the smallest on the path wins
    assert _cpus.cgroup_cpu_limit(**_tree(tmp_path / "ctr-quota", "0::/kubepods/pod1/ctr\n", files)) == 1.0


def test_cgroup_v2_namespaced_root(tmp_path):
    """Inside a cgroup namespace the process sees itself at "/": the root's cpu.max applies."""
    tree = _tree(tmp_path, "0::/\n", {"cpu.max": "50000 100000\n"})
    assert _cpus.cgroup_cpu_limit(**tree) == 0.5


def test_cgroup_v1_quota(tmp_path):
    listing = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n"
    files = {"cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "250000\n", "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n"}
    assert _cpus.cgroup_cpu_limit(**_tree(tmp_path, listing, files)) == 2.5


def test_cgroup_v1_no_quota(tmp_path):
    listing = "4:cpu,cpuacct:/docker/abc\n"
    files = {"cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "-1\n", "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n"}
    assert _cpus.cgroup_cpu_limit(**_tree(tmp_path, listing, files)) is None


def test_cgroup_v1_cpu_directory(tmp_path):
    listing = "3:cpuacct,cpu:/batch\n"  # the hierarchy mounted as "cpu" only
    files = {"cpu/batch/cpu.cfs_quota_us": "100000\n", "cpu/batch/cpu.cfs_period_us": "50000\n"}
    assert _cpus.cgroup_cpu_limit(**_tree(tmp_path, listing, files)) == 2.0


@pytest.mark.parametrize(
    "listing, files",
    [
        ("0::/job\n", {}),  # no cpu.max anywhere
        ("0::/job\n", {"job/cpu.max": "garbage\n"}),
        ("0::/job\n", {"job/cpu.max": "0 100000\n"}),
        ("4:cpu,cpuacct:/x\n", {"cpu,cpuacct/x/cpu.cfs_quota_us": "100000\n"}),  # no period
        ("4:cpu,cpuacct:/x\n", {}),
        ("4:memory:/x\n", {"memory/x/cpu.cfs_quota_us": "100000\n"}),  # not the cpu controller
        ("", {}),
    ],
    ids=["v2-missing", "v2-garbage", "v2-zero", "v1-no-period", "v1-missing", "v1-not-cpu", "empty"],
)
def test_cgroup_without_a_usable_quota(tmp_path, listing, files):
    assert _cpus.cgroup_cpu_limit(**_tree(tmp_path, listing, files)) is None


# --------------------------------------------------------------------------
# the streaming threshold's default: the last-level cache, from sysfs


def _caches(tmp_path, entries):
    """A fake /sys/devices/system/cpu/cpu0/cache: entries of (type, size) as index0, 1, ..."""
    root = tmp_path / "cache"
    for i, (kind, size) in enumerate(entries):
        (root / f"index{i}").mkdir(parents=True)
        (root / f"index{i}" / "type").write_text(kind + "\n")
        (root / f"index{i}" / "size").write_text(size + "\n")
    return str(root)


def test_last_level_cache_is_the_largest_data_or_unified_cache(tmp_path):
    root = _caches(tmp_path, [("Data", "32K"), ("Instruction", "64M"), ("Unified", "512K"), ("Unified", "8192K")])
    assert _cpus.last_level_cache_bytes(root) == 8 << 20  # the instruction cache does not count


@pytest.mark.parametrize("size, expected", [("32M", 32 << 20), ("1G", 1 << 30), ("524288", 1 << 19), ("768K", 768 << 10)])
def test_cache_size_units(tmp_path, size, expected):
    assert _cpus.last_level_cache_bytes(_caches(tmp_path, [("Unified", size)])) == expected


@pytest.mark.parametrize("entries", [[], [("Instruction", "32K")], [("Unified", "")], [("Unified", "lots")], [("Data", "0K")]])
def test_no_cache_size_falls_back(tmp_path, entries, monkeypatch):
    root = _caches(tmp_path, entries)
    assert _cpus.last_level_cache_bytes(root) is None
    assert _cpus.last_level_cache_bytes(str(tmp_path / "absent")) is None
    monkeypatch.setattr(_cpus, "last_level_cache_bytes", lambda: None)
    assert _cpus.default_stream_threshold() == _cpus.FALLBACK_CACHE_BYTES == 8 << 20


def test_stream_threshold_default_is_the_machines_cache(config):
    """In a fresh process (where no test has changed it) the setting is the cache size."""
    code = "import fastbits, fastbits._cpus as c\nprint(fastbits.get_config()['stream_threshold'], c.default_stream_threshold())"
    got, expected = map(int, run_python(code).stdout.split())
    assert got == expected == (_cpus.last_level_cache_bytes() or 8 << 20)


def test_cgroup_without_proc_file(tmp_path):
    assert _cpus.cgroup_cpu_limit(proc_cgroup=str(tmp_path / "absent"), root=str(tmp_path)) is None


def test_available_cpus_takes_the_quota(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    monkeypatch.setattr(_cpus, "cgroup_cpu_limit", lambda: 2.0)
    assert _cpus.available_cpus() == 2
    monkeypatch.setattr(_cpus, "cgroup_cpu_limit", lambda: 2.5)  # a part of a CPU counts
    assert _cpus.available_cpus() == 3
    monkeypatch.setattr(_cpus, "cgroup_cpu_limit", lambda: 0.25)
    assert _cpus.available_cpus() == 1
    monkeypatch.setattr(_cpus, "cgroup_cpu_limit", lambda: None)
    assert _cpus.available_cpus() == 64
    monkeypatch.setattr(_cpus, "cgroup_cpu_limit", lambda: 128.0)  # a quota above the mask
    assert _cpus.available_cpus() == 64
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3, 5}, raising=False)
    monkeypatch.setattr(_cpus, "cgroup_cpu_limit", lambda: 8.0)
    assert _cpus.available_cpus() == 2


def test_default_num_threads_in_process(monkeypatch):
    monkeypatch.delenv("FASTBITS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "5,1")
    assert _cpus.default_num_threads() == 5
    monkeypatch.setenv("FASTBITS_NUM_THREADS", "6")
    assert _cpus.default_num_threads() == 6
    monkeypatch.setenv("FASTBITS_NUM_THREADS", "six")
    with pytest.warns(RuntimeWarning, match="FASTBITS_NUM_THREADS='six' is not a positive int; ignored"):
        assert _cpus.default_num_threads() == 5
    monkeypatch.delenv("FASTBITS_NUM_THREADS")
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.setattr(_cpus, "available_cpus", lambda: 7)
    assert _cpus.default_num_threads() == 7
