"""The pure path's runtime: the configuration of :mod:`fastbits._runtime`, with no threads
and no pool behind it.

numpy's loops run on the calling thread and fresh results come from numpy's allocator, so the
thread count is always 1 and the output pool never exists; the other settings are kept (and
reported) so that code written for the compiled path runs unchanged.  Its defaults are the
settings table's (:data:`fastbits._config.SETTINGS`), as the compiled runtime's are.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from . import _config, spec

__all__ = ["allocate", "configure", "configure_local", "current_config", "get_num_threads", "local_settings",
           "release_memory", "runtime_info", "set_local_threads", "set_num_threads"]

# The settings as set, num_threads and output_pool included (reported as 1 and False):
# process-wide, and a thread's own (its config_context's, in ``_local.settings``).
_settings = _config.defaults()
_local = threading.local()


def _own() -> dict[str, Any]:
    return _local.__dict__.setdefault("settings", {})


@spec.public_function
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
    _config.check_num_threads(n)


def set_local_threads(n: int) -> int:
    """Accepted for API parity with the compiled path (every call runs on one thread); returns 0."""
    return 0


def current_config() -> dict[str, Any]:
    """The settings in force on this thread, as :func:`fastbits.get_config` reports them: one
    thread, no pool."""
    return {**_settings, **_own(), "num_threads": 1, "output_pool": False}


def configure(**settings: Any) -> None:
    """Keep settings already checked by :func:`fastbits.set_config`: process-wide, but for those
    this thread holds its own value of (:func:`configure_local`), which change here."""
    own = _own()
    for name, value in settings.items():
        (own if name in own else _settings)[name] = value


def local_settings() -> dict[str, Any]:
    """The settings this thread holds its own value of, as :func:`configure_local` took them."""
    return dict(_own())


def configure_local(settings: dict[str, Any]) -> None:
    """Make ``settings`` (checked) the only ones this thread holds its own value of."""
    _local.settings = dict(settings)


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
        "cpu_features": [],
    }


def release_memory() -> int:
    """Nothing to release: return 0."""
    return 0


def allocate(op: str, shape: tuple[int, ...], dtype: np.dtype, operands: tuple[np.ndarray, ...] = (),
             order: str = "C") -> np.ndarray:
    """A new result array of ``shape``, laid out as numpy's ufuncs lay out a result of
    ``operands`` for ``order`` (docs: the operators page, "The layout of a result"), or
    :func:`fastbits.spec.allocation_error` when it cannot exist (numpy raises MemoryError or
    ValueError).  numpy's own iterator allocates it, so the layout is numpy's by construction."""
    try:
        if order == "C" or not operands:
            return np.empty(shape, dtype=dtype)
        iterator = np.nditer(
            [*operands, None], flags=["zerosize_ok", "refs_ok"],
            op_flags=[["readonly"]] * len(operands) + [["writeonly", "allocate", "no_subtype"]],
            op_dtypes=[None] * len(operands) + [dtype], order=order,
        )
        return iterator.operands[-1]
    except (MemoryError, ValueError):
        raise spec.allocation_error(op, shape, dtype) from None
