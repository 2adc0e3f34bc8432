"""fastbits' configuration: one documented API, functions and a context manager.

In the manner of ``sklearn.set_config`` / ``config_context`` and threadpoolctl's
``threadpool_limits``: :func:`get_config` reads the settings, :func:`set_config` changes them,
:func:`config_context` changes them for a ``with`` block and puts them back after it.  The
settings are process-wide (the compiled kernels read them from every thread).
:func:`runtime_info` reports the thread team's and the output pool's state, and
:func:`release_memory` gives the pool's idle memory back.  Every value is checked here; the
active runtime (:mod:`fastbits._runtime`, or :mod:`fastbits._runtime_py` on the pure path)
applies it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, NoReturn

import numpy as np

from ._ops import runtime as _runtime
from ._runtime_py import check_num_threads
from .errors import ArgumentTypeError, ArgumentValueError

__all__ = ["config_context", "get_config", "release_memory", "runtime_info", "set_config"]


#: The settings' names, as get_config reports them and set_config takes them.
_SETTINGS = ("grain_cached", "grain_streamed", "grain_strided", "num_threads", "output_pool", "pool_threshold",
             "spin_time", "stream_threshold", "task_threads")


def get_config() -> dict[str, Any]:
    """The current settings.

    Returns
    -------
    dict
        ``num_threads``: the threads a large call may use (1 on the pure path and in builds
        without threads).  ``grain_cached``, ``grain_streamed``, ``grain_strided``: bytes of
        work per thread for each kind of loop (see :func:`set_config`).  ``output_pool``:
        whether large fresh results come from the output pool.  ``pool_threshold``: the size in
        bytes from which they do.  ``stream_threshold``: the bytes a call moves (inputs read and
        result written) from which it writes its result with streaming stores, around the
        cache.  ``spin_time``: the seconds the thread team's helpers watch for the next call
        before they sleep.  ``task_threads``: the threads a fastbits call inside a dask task
        may use.
    """
    return _runtime.current_config()


def _size(name: str, value: Any, least: int = 0) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ArgumentTypeError(f"set_config: '{name}' must be an int (bytes), not {value!r}")
    if value < least:
        raise ArgumentValueError(f"set_config: '{name}' must be at least {least} bytes, not {value!r}")
    return min(int(value), 2**62)


def _seconds(name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ArgumentTypeError(f"set_config: '{name}' must be a number of seconds, not {value!r}")
    if not 0 <= value < float("inf"):
        raise ArgumentValueError(f"set_config: '{name}' must be a finite number of seconds >= 0, not {value!r}")
    return float(value)


def set_config(
    *,
    num_threads: int | None = None,
    grain_cached: int | None = None,
    grain_streamed: int | None = None,
    grain_strided: int | None = None,
    output_pool: bool | None = None,
    pool_threshold: int | None = None,
    stream_threshold: int | None = None,
    spin_time: float | None = None,
    task_threads: int | None = None,
    **unknown: NoReturn,
) -> None:
    """Change settings; an argument left at None keeps its setting.

    How many threads a call uses follows one fixed rule, the same for every call and on every
    machine: a call whose result is W bytes uses ``min(num_threads, max(1, W // grain))``
    threads, each running one contiguous share of the work, where ``grain`` is the setting for
    the call's kind of loop.  So a result smaller than two grains runs on its caller alone.

    Parameters
    ----------
    num_threads : int, optional
        Threads a large call may use, the caller included (a positive int); the same as
        :func:`fastbits.set_num_threads`.  Its default is ``FASTBITS_NUM_THREADS``, else
        ``OMP_NUM_THREADS``, else the CPUs the process may use (affinity and cgroup quota).
        threadpoolctl's ``threadpool_limits`` changes it too.
    grain_cached : int, optional
        Bytes of result per thread for elementwise loops whose result stays in cache (the
        call moves less than ``stream_threshold``); default 256 KiB.
    grain_streamed : int, optional
        Bytes of result per thread for elementwise loops that stream their result around the
        cache; default 1 MiB.
    grain_strided : int, optional
        Bytes of result per thread for loops that do more work per byte: a transposed operand
        read in tiles, short rows gathered into chunks, and :func:`fastbits.pack` /
        :func:`fastbits.unpack` (counted in unpacked elements); default 512 KiB.
    output_pool : bool, optional
        Serve large fresh results from the output pool (default True where the pool exists:
        not in sanitizer builds, nor on platforms without ``MADV_FREE``, where it stays False).
        False also gives its idle memory back.
    pool_threshold : int, optional
        Fresh results from this many bytes come from the pool (default 32 MiB).
    stream_threshold : int, optional
        A call that moves this many bytes or more (the inputs it reads and the result it
        writes) writes its result with streaming stores, around the cache, which saves reading
        the output's lines first and leaves the cache to other data (default: the size of the
        last-level cache, from Linux's sysfs, else 8 MiB).  0 streams every large enough
        contiguous run; the pure path keeps the value and ignores it.
    spin_time : float, optional
        Seconds a helper of the thread team watches for the next call after it ran a share,
        before it sleeps (default 0.0005; 0 when ``OMP_WAIT_POLICY=passive``).  A watching
        helper answers the next call at once, where a sleeping one is woken by the kernel tens
        of microseconds later.  It yields its CPU between looks, and only the helpers the last
        call used watch.  The caller watches as long for the helpers' shares to finish.  0
        sends helpers to sleep at once.  Applies at once; the pure path keeps the value and
        ignores it.
    task_threads : int, optional
        Threads each fastbits call inside a dask task may use, the task's own thread included
        (a positive int, default 1; at most ``num_threads`` of the process that runs the
        task).  dask already runs one task per core (a worker thread each), so more threads
        per task would oversubscribe the cores.  A graph keeps the value in force when it was
        built, also on dask.distributed's workers; see :doc:`scaling-out`.

    The grains are bytes (at least 1).  The pure path keeps them and ignores them.

    Raises
    ------
    ArgumentValueError, ArgumentTypeError
        A value of the wrong kind or out of range (ArgumentTypeError also for a setting name
        that does not exist); nothing is changed then.
    """
    # ``**unknown``: a misspelt name is a fastbits error naming it, not Python's bare
    # TypeError; typed NoReturn, so that type checkers still refuse it.
    if unknown:
        raise ArgumentTypeError(
            f"set_config: unknown setting(s) {', '.join(sorted(unknown))}; expected some of "
            f"{', '.join(_SETTINGS)}"
        )
    if num_threads is not None:
        num_threads = check_num_threads(num_threads, "set_config: 'num_threads'")
    if task_threads is not None:
        task_threads = check_num_threads(task_threads, "set_config: 'task_threads'")
    grains = {"grain_cached": grain_cached, "grain_streamed": grain_streamed, "grain_strided": grain_strided}
    grains = {name: _size(name, value, 1) for name, value in grains.items() if value is not None}
    if pool_threshold is not None:
        pool_threshold = _size("pool_threshold", pool_threshold)
    if stream_threshold is not None:
        stream_threshold = _size("stream_threshold", stream_threshold)
    if spin_time is not None:
        spin_time = _seconds("spin_time", spin_time)
    if output_pool is not None and not isinstance(output_pool, (bool, np.bool_)):
        raise ArgumentTypeError(f"set_config: 'output_pool' must be True or False, not {output_pool!r}")
    _runtime.configure(
        num_threads=num_threads,
        **grains,
        output_pool=None if output_pool is None else bool(output_pool),
        pool_threshold=pool_threshold,
        stream_threshold=stream_threshold,
        spin_time=spin_time,
        task_threads=task_threads,
    )


@contextlib.contextmanager
def config_context(**settings: Any) -> Iterator[dict[str, Any]]:
    """Change settings for a ``with`` block; the old ones come back after it, even on error.

    Takes the keyword arguments of :func:`set_config` and yields the settings in force.

    >>> import fastbits
    >>> with fastbits.config_context(num_threads=1):
    ...     fastbits.get_num_threads()
    1
    """
    unknown = sorted(set(settings) - set(_SETTINGS))
    if unknown:
        raise ArgumentTypeError(
            f"config_context: unknown setting(s) {', '.join(unknown)}; expected some of "
            f"{', '.join(_SETTINGS)}"
        )
    before = get_config()
    set_config(**settings)
    try:
        yield get_config()
    finally:
        set_config(**{name: before[name] for name in settings})


def runtime_info() -> dict[str, Any]:
    """The runtime's state: which backend, the thread team, the output pool.

    Keys: ``backend``; ``threads_available`` (the build has the thread team: not on Windows,
    where every call runs on its caller); ``helper_threads`` (helpers started so far);
    ``parallel_calls`` (calls shared with helpers) and ``helper_shares`` (the shares helpers
    ran; the caller runs a share no helper has taken when its own is done);
    ``last_call_threads`` (the threads the grain rule gave the last call made on this
    thread: 0 before the first, always 1 on the pure path); ``output_pool_available``;
    ``pool_hits`` and ``pool_misses`` (large fresh results served from an idle block, or from
    new memory); ``pool_idle_bytes`` and ``pool_idle_blocks`` (held now);
    ``pool_max_idle_bytes`` and ``pool_max_idle_seconds`` (its bounds); ``sanitized_build``.
    """
    return _runtime.runtime_info()


def release_memory() -> int:
    """Give the output pool's idle blocks back to the system now; return the bytes released.

    Idle blocks go back by themselves too: the kernel may take their pages whenever it needs
    memory (``MADV_FREE``), and a block idle for 10 s is freed at the next large allocation.
    """
    return _runtime.release_memory()
