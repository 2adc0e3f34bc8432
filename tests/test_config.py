"""The public configuration API on both paths, the output pool, threadpoolctl, default threads.

``fastbits.get_config`` / ``set_config`` / ``config_context`` / ``runtime_info`` /
``release_memory`` reach the active runtime (``fastbits._runtime``, or ``fastbits._runtime_py``
on the pure path).  The ``config`` fixture points them at each path's runtime in turn, so one
run of this file checks both; the tests of the compiled runtime alone are marked ``compiled``.
"""

from __future__ import annotations


import numpy as np
import pytest

import fastbits
from fastbits import _config, _cpus, _runtime_py

from support import run_python, threads_available

# set_config changes process-wide values, and the config fixture points the API at a path's
# runtime: pytest-run-parallel runs these tests on one thread.
pytestmark = pytest.mark.thread_unsafe

SETTINGS = ("grain_cached", "grain_streamed", "grain_strided", "num_threads", "output_pool", "pool_threshold", "spin_time",
            "stream_threshold", "task_threads")
RUNTIME_KEYS = {
    "backend", "threads_available", "helper_threads", "parallel_calls", "helper_shares", "last_call_threads",
    "output_pool_available",
    "pool_hits", "pool_misses", "pool_idle_bytes", "pool_idle_blocks", "pool_max_idle_bytes",
    "pool_max_idle_seconds", "sanitized_build", "cpu_features", "cpus",
}




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
    for seconds, expected in ((0, 0.0), (0.25, 0.25), (np.float32(0.5), 0.5), (1, 1.0), (np.int8(0), 0.0)):
        fastbits.set_config(spin_time=seconds)
        assert fastbits.get_config()["spin_time"] == expected
        assert type(fastbits.get_config()["spin_time"]) is float

    threads = 3 if threads_available(config) else 1
    fastbits.set_config(num_threads=3)
    assert fastbits.get_config()["num_threads"] == threads == ops.get_num_threads()
    ops.set_num_threads(2)
    assert fastbits.get_config()["num_threads"] == (2 if threads_available(config) else 1)
    fastbits.set_config(num_threads=np.int32(1))
    assert ops.get_num_threads() == 1 == fastbits.get_config()["num_threads"]

    assert fastbits.get_config()["task_threads"] == 1  # the default
    fastbits.set_config(task_threads=np.int16(3))
    assert fastbits.get_config()["task_threads"] == 3 and type(fastbits.get_config()["task_threads"]) is int
    fastbits.set_config(task_threads=256)  # above num_threads: kept; the runtime caps a call
    assert fastbits.get_config()["task_threads"] == 256

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
    ("num_threads", 1.5, fastbits.ArgumentTypeError, "must be a positive int, not float 1.5"),
    ("num_threads", True, fastbits.ArgumentTypeError, "must be a positive int, not bool True"),
    ("num_threads", "2", fastbits.ArgumentTypeError, "must be a positive int, not str '2'"),
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
    ("task_threads", 2.0, fastbits.ArgumentTypeError, "must be a positive int, not float 2.0"),
    ("task_threads", False, fastbits.ArgumentTypeError, "must be a positive int, not bool False"),
    ("output_pool", 0, fastbits.ArgumentTypeError, "must be True or False, not 0"),
    ("output_pool", 1, fastbits.ArgumentTypeError, "must be True or False, not 1"),
    ("output_pool", "2", fastbits.ArgumentTypeError, "must be True or False, not '2'"),
    ("output_pool", 1.5, fastbits.ArgumentTypeError, "must be True or False, not 1.5"),
]


@pytest.mark.parametrize("name, value, error, says", BAD_VALUES, ids=[f"{r[0]}={r[1]!r}" for r in BAD_VALUES])
def test_bad_values_are_refused_and_change_nothing(config, name, value, error, says):
    fastbits.set_config(grain_cached=4321 << 10, pool_threshold=8765, num_threads=1)
    before = fastbits.get_config()
    # the other settings of the same call are valid: none of them may be applied either
    others = {k: v for k, v in {"grain_cached": 1 << 20, "pool_threshold": 2, "num_threads": 2}.items() if k != name}
    for function, call in (
        ("set_config", lambda: fastbits.set_config(**{name: value})),
        ("set_config", lambda: fastbits.set_config(**others, **{name: value})),
        ("config_context", lambda: fastbits.config_context(**others, **{name: value}).__enter__()),
    ):
        with pytest.raises(error) as info:
            call()
        assert isinstance(info.value, fastbits.FastbitsError)
        assert str(info.value).startswith(f"{function}: '{name}' {says}"), str(info.value)
        assert fastbits.get_config() == before


@pytest.mark.parametrize("value, error", [
    (0, fastbits.ArgumentValueError), (-1, fastbits.ArgumentValueError), (1.5, fastbits.ArgumentTypeError),
    (True, fastbits.ArgumentTypeError), ("2", fastbits.ArgumentTypeError), (None, fastbits.ArgumentTypeError),
])
def test_set_num_threads_refuses(config, ops, value, error):
    ops.set_num_threads(1)
    with pytest.raises(error, match=r"^set_num_threads: 'n' must be a positive int"):
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
    assert info["backend"] == ops.name
    for key in ("helper_threads", "parallel_calls", "helper_shares", "last_call_threads", "pool_hits", "pool_misses", "pool_idle_bytes", "pool_idle_blocks"):
        assert isinstance(info[key], int) and info[key] >= 0, key
    assert info["cpus"] == fastbits._cpus.available_cpus() >= 1
    released = fastbits.release_memory()
    assert isinstance(released, int) and released >= 0
    assert fastbits.runtime_info()["pool_idle_bytes"] == 0
    assert fastbits.runtime_info()["pool_idle_blocks"] == 0
    if info["backend"] == "python":
        assert not info["threads_available"] and not info["output_pool_available"]
        assert fastbits.get_config()["num_threads"] == 1


def test_the_facade_uses_the_active_runtime():
    expected = "fastbits._runtime" if fastbits.BACKEND == "cython" else "fastbits._runtime_py"
    assert fastbits._ops.active.runtime.__name__ == expected
    assert fastbits.runtime_info()["backend"] == fastbits.BACKEND
    assert fastbits.get_config()["num_threads"] == fastbits.get_num_threads()


# --------------------------------------------------------------------------
# the compiled runtime against the pure one


@pytest.mark.compiled
def test_both_runtimes_start_with_the_tables_defaults():
    """Both runtimes start from the settings' table (read in a fresh process, where no test has
    changed them); the pure one reports one thread and no pool."""
    code = (
        "import json, fastbits._config as t, fastbits._cpus as m, fastbits._runtime as c, fastbits._runtime_py as p\n"
        "print(json.dumps([t.defaults(), c.current_config(), p.current_config(), m.default_num_threads(),"
        " m.default_stream_threshold()]))"
    )
    import json

    table, compiled, pure, threads, stream = json.loads(run_python(code).stdout)
    assert set(table) == set(compiled) == set(pure) == set(SETTINGS)
    for key in set(SETTINGS) - {"num_threads", "output_pool"}:
        assert pure[key] == compiled[key] == table[key], key
    assert {key: table[key] for key in ("grain_cached", "grain_streamed", "grain_strided")} == {
        "grain_cached": 1 << 18, "grain_streamed": 1 << 20, "grain_strided": 1 << 19}
    assert table["pool_threshold"] == 1 << 25 and table["task_threads"] == 1 and table["output_pool"] is True
    assert table["stream_threshold"] == stream and table["num_threads"] == threads
    assert table["spin_time"] == _cpus.SPIN_TIME == 0.0005
    assert pure["num_threads"] == 1 and pure["output_pool"] is False


@pytest.mark.compiled
def test_runtime_info_has_the_same_keys_on_both_paths():
    from fastbits import _runtime

    assert set(_runtime.runtime_info()) == set(_runtime_py.runtime_info()) == RUNTIME_KEYS - {"cpus"}
    assert set(fastbits.runtime_info()) == RUNTIME_KEYS  # _config adds the CPUs, for both


@pytest.mark.parametrize("policy, seconds", [("passive", 0.0), (" PASSIVE ", 0.0), ("active", 5e-4), ("", 5e-4)])
def test_omp_wait_policy_passive_sets_spin_time_to_zero(policy, seconds):
    """OMP_WAIT_POLICY=passive (any case) asks threads not to spin: the default spin_time is 0 on
    both paths; any other value leaves it at 500 µs."""
    code = ("import json, fastbits, fastbits._runtime_py as p\n"
            "print(json.dumps([fastbits.get_config()['spin_time'], p.current_config()['spin_time']]))")
    import json

    assert json.loads(run_python(code, OMP_WAIT_POLICY=policy).stdout) == [seconds, seconds]


def test_stream_threshold_default_is_a_quarter_of_the_machines_cache(config):
    """In a fresh process (where no test has changed it) the setting is a quarter of the cache."""
    code = "import fastbits, fastbits._cpus as c\nprint(fastbits.get_config()['stream_threshold'], c.default_stream_threshold())"
    got, expected = map(int, run_python(code).stdout.split())
    assert got == expected == (_cpus.last_level_cache_bytes() or 8 << 20) // 4


@pytest.mark.parametrize("n, error", [
    (0, fastbits.ArgumentValueError), (-1, fastbits.ArgumentValueError), (1.5, fastbits.ArgumentTypeError),
    (True, fastbits.ArgumentTypeError), ("2", fastbits.ArgumentTypeError), (None, fastbits.ArgumentTypeError),
])
def test_check_num_threads_refuses(n, error):
    """An int below 1 is a wrong value; anything but an int, a wrong type (as set_config's thresholds)."""
    with pytest.raises(error, match="set_num_threads"):
        _config.check_num_threads(n)


# --------------------------------------------------------------------------
# every setting at its extremes: exact results, and no undefined behaviour (scripts/sanitize.sh
# runs this under UBSan and ASan)

# The least and the greatest value each setting accepts (a byte count beyond 2**62 is kept as
# 2**62; the thread counts and spin_time have bounds of their own).
EXTREMES = {
    "num_threads": (1, 256), "grain_cached": (1, 10**100), "grain_streamed": (1, 10**100),
    "grain_strided": (1, 10**100), "output_pool": (False, True), "pool_threshold": (0, 10**100),
    "stream_threshold": (0, 10**100), "spin_time": (0.0, 1.0), "task_threads": (1, 256),
}
EXTREME_CASES = [(name, end) for name in EXTREMES for end in (0, 1)] + [("every", 0), ("every", 1)]


def test_extremes_cover_every_setting():
    assert set(EXTREMES) == {setting.name for setting in _config.SETTINGS}


@pytest.mark.thread_unsafe  # a huge num_threads starts the whole team
@pytest.mark.parametrize(("name", "end"), EXTREME_CASES, ids=[f"{n}-{('least', 'greatest')[e]}" for n, e in EXTREME_CASES])
def test_every_operator_is_exact_at_each_settings_extreme(config, ops, name, end):
    from support import check_every_operator

    values = {key: ends[end] for key, ends in EXTREMES.items() if name in ("every", key)}
    rng = np.random.default_rng(len(name) + end)
    try:
        with fastbits.config_context(**values):
            for size in (1, 100, 10_007, 300_000):
                check_every_operator(ops, size, rng)
    finally:
        # helpers that watched for the next call with a huge spin time stop at the next call
        with fastbits.config_context(num_threads=2, grain_cached=1, spin_time=0.0):
            fastbits.bitwise_and(np.zeros(64, np.uint8), np.uint8(1))


@pytest.mark.parametrize("call, message", [
    (lambda: fastbits.set_num_threads(10**6), r"set_num_threads: 'n' must be a positive int of at most 256 .* 1000000"),
    (lambda: fastbits.set_num_threads(257), r"of at most 256 .* not 257"),
    (lambda: fastbits.set_config(num_threads=2**70), r"set_config: 'num_threads' must be a positive int of at most 256"),
    (lambda: fastbits.config_context(num_threads=2**70).__enter__(),
     r"^config_context: 'num_threads' must be a positive int of at most"),
    (lambda: fastbits.set_config(task_threads=10**9), r"'task_threads' must be a positive int of at most 256"),
    (lambda: fastbits.set_config(spin_time=1e9), r"'spin_time' must be at most 1 second, not 1000000000.0"),
    (lambda: fastbits.set_config(spin_time=1.5), r"at most 1 second, not 1.5"),
])
def test_settings_out_of_range_are_refused(config, call, message):
    """Every setting has a documented range; a value outside it is an error that says the range,
    and changes nothing (never a silent clamp to another number)."""
    before = fastbits.get_config()
    with pytest.raises(fastbits.ArgumentValueError, match=message):
        call()
    assert fastbits.get_config() == before


def test_settings_at_their_bounds_are_taken(config):
    fastbits.set_config(num_threads=_config.MAX_THREADS, task_threads=_config.MAX_THREADS,
                        spin_time=_config.MAX_SPIN_TIME)
    assert fastbits.get_config()["task_threads"] == 256 and fastbits.get_config()["spin_time"] == 1.0
