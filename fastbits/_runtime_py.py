"""The pure path's runtime: the configuration API of :mod:`fastbits._runtime`, with no threads
and no pool behind it.

numpy's loops run on the calling thread and fresh results come from numpy's allocator, so the
thread count is always 1 and the output pool never exists; the other settings are kept (and
reported) so that code written for the compiled path runs unchanged.

It also holds the two checks both runtimes share: a thread count (:func:`check_num_threads`)
and a result that cannot be allocated (:func:`allocate`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _cpus, spec
from .errors import AllocationError, ArgumentTypeError, ArgumentValueError

__all__ = ["allocate", "check_num_threads", "configure", "current_config", "get_num_threads", "release_memory",
           "runtime_info", "set_local_threads", "set_num_threads"]

# The compiled runtime's defaults (tests/test_config.py holds the two in step).
_settings = {**_cpus.GRAINS, "pool_threshold": 1 << 25, "stream_threshold": _cpus.default_stream_threshold(),
             "spin_time": _cpus.default_spin_time(), "task_threads": 1}


@spec.public_function
def get_num_threads() -> int:
    """Threads a large call may use, the caller included.

    Always 1 on the pure path (numpy's loops are single-threaded) and in builds without
    threads; see :func:`fastbits.set_config` for how the compiled kernels use them.
    """
    return 1


@spec.public_function
def set_num_threads(n: int, /) -> None:
    """Set the threads a large call may use, the caller included (a positive int).

    The pure path and builds without threads accept the value and stay on one thread.
    """
    check_num_threads(n)


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


def check_num_threads(n: Any, where: str = "set_num_threads: 'n'") -> int:
    """A thread count (``set_num_threads``, ``set_config(num_threads=...)``): a positive int.

    Not an int: :class:`ArgumentTypeError`; an int below 1: :class:`ArgumentValueError`.
    """
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise ArgumentTypeError(f"{where} must be a positive int, not {type(n).__name__} {n!r}")
    if n < 1:
        raise ArgumentValueError(f"{where} must be a positive int, not {n!r}")
    return int(n)


def allocate(op: str, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A new C-contiguous result array, or :class:`AllocationError` when it cannot exist.

    A broadcast of stride-0 views can ask for more elements than memory (or
    than the address space) holds; numpy raises MemoryError or ValueError.
    """
    try:
        return np.empty(shape, dtype=dtype)
    except (MemoryError, ValueError):
        count = 1
        for size in shape:
            count *= size
        raise AllocationError(
            f"{op}: the result of shape {tuple(shape)} and type {spec.type_string(spec.datatype_of(dtype))} "
            f"needs {count * dtype.itemsize} bytes, which cannot be allocated"
        ) from None
