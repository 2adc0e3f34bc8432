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

from . import spec
from ._ops import runtime as _runtime
from .errors import ArgumentTypeError, ArgumentValueError

__all__ = ["config_context", "get_config", "release_memory", "runtime_info", "set_config"]


#: The settings' names, as get_config reports them and set_config takes them.
_SETTINGS = ("adaptive_threads", "num_threads", "output_pool", "parallel_threshold", "pool_threshold",
             "spin_time", "stream_threshold")


def get_config() -> dict[str, Any]:
    """The current settings.

    Returns
    -------
    dict
        ``num_threads``: the threads a large call may use (1 on the pure path and in builds
        without threads).  ``parallel_threshold``: the output size in bytes from which a
        streaming loop shares its work with the thread team (loops that transpose or gather
        do from an eighth of it).  ``output_pool``: whether large fresh results come from the
        output pool.  ``pool_threshold``: the size in bytes from which they do.
        ``stream_threshold``: the bytes a call moves (inputs read and result written) from
        which it writes its result with streaming stores, around the cache.  ``spin_time``:
        the seconds the thread team's helpers watch for the next call before they sleep.
        ``adaptive_threads``: whether a call under 64 MiB of work may run on its caller alone
        where timing calls like it shows the team to be no faster.
    """
    return _runtime.current_config()


def _size(name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ArgumentTypeError(f"set_config: '{name}' must be an int (bytes), not {value!r}")
    if value < 0:
        raise ArgumentValueError(f"set_config: '{name}' must be at least 0 bytes, not {value!r}")
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
    parallel_threshold: int | None = None,
    output_pool: bool | None = None,
    pool_threshold: int | None = None,
    stream_threshold: int | None = None,
    spin_time: float | None = None,
    adaptive_threads: bool | None = None,
    **unknown: NoReturn,
) -> None:
    """Change settings; an argument left at None keeps its setting.

    Parameters
    ----------
    num_threads : int, optional
        Threads a large call may use, the caller included (a positive int); the same as
        :func:`fastbits.set_num_threads`.  Its default is ``FASTBITS_NUM_THREADS``, else
        ``OMP_NUM_THREADS``, else the CPUs the process may use (affinity and cgroup quota).
        threadpoolctl's ``threadpool_limits`` changes it too.
    parallel_threshold : int, optional
        Output bytes from which a streaming loop may use the thread team (default 256 KiB;
        loops that transpose or gather: an eighth of it).  0 lets every call use it.
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
        Seconds a helper of the thread team watches for the next call after it finished one,
        before it sleeps (default 0.001; 0 when ``OMP_WAIT_POLICY=passive``).  A watching
        helper answers at once, where a sleeping one is woken by the kernel tens of
        microseconds later (up to 90 µs measured on a virtual machine), which is most of a
        call of a few MiB.  It spins for the first 50 µs, then yields its CPU between looks, so
        that another thread that wants the core gets it; it never watches on the caller's
        CPU (at most as many helpers watch as there are CPUs beside the caller's).  0 sends
        helpers to sleep at once.  Applies at once, also to helpers watching now; the pure
        path keeps the value and ignores it.
    adaptive_threads : bool, optional
        Let each call from ``parallel_threshold`` to 64 MiB of work run on the team or on
        its caller alone, whichever has been faster for calls like it (default True; False
        when ``OMP_DYNAMIC=false``).  Calls are sorted by the loop they run (operation,
        element width, layout), by size (powers of two) and by what they move (result
        through the cache, streamed with one input, streamed with two).  Now and then a class
        runs five calls the other way (the first untimed) and compares them with its four
        latest, choosing the team when its median time is at least 10 % lower in two such
        probes in a row (in one when the caller alone is 1.25 times slower) and keeping it
        while it is at least 2 % lower; it probes within a few calls when its choice turns
        1.5 times slower than when it was made.  A second
        thread pays for a call of a few MiB on some machines and states and not on others
        (measured on one 2-core virtual machine: a 1M int32 AND with a scalar 263 µs alone,
        409 µs on two threads; with a second array 545 µs alone, 351 µs on two).  False:
        every call from ``parallel_threshold`` uses the team.
        ``runtime_info()["thread_choices"]`` shows the classes' choices.  The pure path keeps
        the value and ignores it.

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
        num_threads = spec.check_num_threads(num_threads, "set_config: 'num_threads'")
    if parallel_threshold is not None:
        parallel_threshold = _size("parallel_threshold", parallel_threshold)
    if pool_threshold is not None:
        pool_threshold = _size("pool_threshold", pool_threshold)
    if stream_threshold is not None:
        stream_threshold = _size("stream_threshold", stream_threshold)
    if spin_time is not None:
        spin_time = _seconds("spin_time", spin_time)
    if output_pool is not None and not isinstance(output_pool, (bool, np.bool_)):
        raise ArgumentTypeError(f"set_config: 'output_pool' must be True or False, not {output_pool!r}")
    if adaptive_threads is not None and not isinstance(adaptive_threads, (bool, np.bool_)):
        raise ArgumentTypeError(f"set_config: 'adaptive_threads' must be True or False, not {adaptive_threads!r}")
    _runtime.configure(
        num_threads=num_threads,
        parallel_threshold=parallel_threshold,
        output_pool=None if output_pool is None else bool(output_pool),
        pool_threshold=pool_threshold,
        stream_threshold=stream_threshold,
        spin_time=spin_time,
        adaptive_threads=None if adaptive_threads is None else bool(adaptive_threads),
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

    Keys: ``backend``; ``threads_available`` (the build has the thread team);
    ``helper_threads`` (helpers started so far) and ``helper_pieces`` (pieces of work they ran);
    ``helper_calls_watched`` and ``helper_calls_woken`` (calls a helper saw while it watched
    for them, and calls it had to be woken from sleep for: see ``spin_time``);
    ``thread_choices`` (the thread tuner's classes that have had calls, see
    ``adaptive_threads``: each a dict of ``signature``, a number that stands for its calls'
    loop (operation, element width, loop, layout); ``work_from`` and ``work_to``, its calls'
    range of work in bytes; ``kind``, ``"cached"``, ``"streamed, 1 input"`` or ``"streamed, 2
    inputs"``; ``num_threads``, the threads its calls may use; ``threads``, what they use now
    (that or 1); ``calls_alone`` and ``calls_team``; ``probes``, the comparisons decided, and
    ``switches``, those that changed the choice; an empty list on the pure path);
    ``output_pool_available``; ``pool_hits`` and ``pool_misses`` (large fresh results served
    from an idle block, or from new memory); ``pool_idle_bytes`` and ``pool_idle_blocks``
    (held now); ``pool_max_idle_bytes`` and ``pool_max_idle_seconds`` (its bounds);
    ``sanitized_build``.
    """
    return _runtime.runtime_info()


def release_memory() -> int:
    """Give the output pool's idle blocks back to the system now; return the bytes released.

    Idle blocks go back by themselves too: the kernel may take their pages whenever it needs
    memory (``MADV_FREE``), and a block idle for 10 s is freed at the next large allocation.
    """
    return _runtime.release_memory()
