"""The pure path's runtime: the configuration API of :mod:`fastbits._runtime`, with no threads
and no pool behind it.

numpy's loops run on the calling thread and fresh results come from numpy's allocator, so the
thread count is always 1 and the output pool never exists; the other settings are kept (and
reported) so that code written for the compiled path runs unchanged.
"""

from __future__ import annotations

from . import _cpus, spec

__all__ = ["configure", "current_config", "get_num_threads", "release_memory", "runtime_info", "set_local_threads",
           "set_num_threads"]

# The compiled runtime's defaults (tests/test_config.py holds the two in step).
_settings = {**_cpus.GRAINS, "pool_threshold": 1 << 25, "stream_threshold": _cpus.default_stream_threshold(),
             "spin_time": _cpus.default_spin_time(), "task_threads": 1}


def get_num_threads() -> int:
    """Threads the kernels use: always 1 here, numpy's loops are single-threaded."""
    return 1


def set_num_threads(n: int) -> None:
    """Accepted for API parity with the compiled path; the pure path stays on one thread."""
    spec.check_num_threads(n)


def set_local_threads(n: int) -> int:
    """Accepted for API parity with the compiled path (every call runs on one thread); returns 0."""
    return 0


def current_config() -> dict:
    """The settings, as :func:`fastbits.get_config` reports them."""
    return {"num_threads": 1, "grain_cached": _settings["grain_cached"],
            "grain_streamed": _settings["grain_streamed"], "grain_strided": _settings["grain_strided"],
            "output_pool": False, "pool_threshold": _settings["pool_threshold"],
            "stream_threshold": _settings["stream_threshold"], "spin_time": _settings["spin_time"],
            "task_threads": _settings["task_threads"]}


def configure(num_threads=None, output_pool=None, **settings) -> None:
    """Keep settings already checked by :func:`fastbits.set_config` (None: unchanged)."""
    _settings.update({name: value for name, value in settings.items() if value is not None})


def runtime_info() -> dict:
    """The state :func:`fastbits.runtime_info` reports: no team, no pool."""
    return {
        "backend": "python",
        "threads_available": False,
        "helper_threads": 0,
        "parallel_calls": 0,
        "helper_shares": 0,
        "last_call_threads": 1,
        "output_pool_available": False,
        "pool_hits": 0,
        "pool_misses": 0,
        "pool_idle_bytes": 0,
        "pool_idle_blocks": 0,
        "pool_max_idle_bytes": 0,
        "pool_max_idle_seconds": 0.0,
        "sanitized_build": False,
    }


def release_memory() -> int:
    """Nothing to release: return 0."""
    return 0
