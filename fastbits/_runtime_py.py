"""The pure path's runtime: the configuration API of :mod:`fastbits._runtime`, with no threads
and no pool behind it.

numpy's loops run on the calling thread and fresh results come from numpy's allocator, so the
thread count is always 1 and the output pool never exists; the thresholds are kept (and
reported) so that code written for the compiled path runs unchanged.
"""

from __future__ import annotations

from . import _cpus, spec

__all__ = ["configure", "current_config", "get_num_threads", "release_memory", "runtime_info", "set_num_threads"]

# The compiled runtime's defaults (tests/test_config.py holds the two in step).
_settings = {"parallel_threshold": 256 << 10, "pool_threshold": 1 << 25,
             "stream_threshold": _cpus.default_stream_threshold(), "spin_time": _cpus.default_spin_time(),
             "adaptive_threads": _cpus.default_adaptive_threads()}


@spec.public_function
def get_num_threads() -> int:
    """Threads the kernels use: always 1 here, numpy's loops are single-threaded."""
    return 1


@spec.public_function
def set_num_threads(n: int, /) -> None:
    """Accepted for API parity with the compiled path; the pure path stays on one thread."""
    spec.check_num_threads(n)


def current_config() -> dict:
    """The settings, as :func:`fastbits.get_config` reports them."""
    return {"num_threads": 1, "parallel_threshold": _settings["parallel_threshold"],
            "output_pool": False, "pool_threshold": _settings["pool_threshold"],
            "stream_threshold": _settings["stream_threshold"], "spin_time": _settings["spin_time"],
            "adaptive_threads": _settings["adaptive_threads"]}


def configure(num_threads=None, parallel_threshold=None, output_pool=None, pool_threshold=None,
              stream_threshold=None, spin_time=None, adaptive_threads=None) -> None:
    """Keep settings already checked by :func:`fastbits.set_config` (None: unchanged)."""
    if parallel_threshold is not None:
        _settings["parallel_threshold"] = parallel_threshold
    if pool_threshold is not None:
        _settings["pool_threshold"] = pool_threshold
    if stream_threshold is not None:
        _settings["stream_threshold"] = stream_threshold
    if spin_time is not None:
        _settings["spin_time"] = spin_time
    if adaptive_threads is not None:
        _settings["adaptive_threads"] = adaptive_threads


def runtime_info() -> dict:
    """The state :func:`fastbits.runtime_info` reports: no team, no pool."""
    return {
        "backend": "python",
        "threads_available": False,
        "helper_threads": 0,
        "helper_pieces": 0,
        "helper_calls_watched": 0,
        "helper_calls_woken": 0,
        "thread_choices": [],
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
