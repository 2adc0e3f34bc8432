"""fastbits' configuration: the one table of settings, and the API that reads and changes them.

In the manner of ``sklearn.set_config`` / ``config_context`` and threadpoolctl's
``threadpool_limits``: :func:`get_config` reads the settings, :func:`set_config` changes them,
:func:`config_context` changes them for a ``with`` block on the calling thread only, as
scikit-learn's and numpy's ``errstate`` do.  Each setting has a process-wide value, which
:func:`set_config` changes and every thread reads, and a thread inside a :func:`config_context`
block has its own value of each setting the block names, which no other thread sees.

:data:`SETTINGS` is the only place that names a setting: its default, its check and what it
does.  The API here, the docs' settings table, the docstring of :func:`set_config` and both
runtimes (:mod:`fastbits._runtime`, :mod:`fastbits._runtime_py`) take them from it.  A runtime
keeps the values and applies them; the facade binds the active one here (:func:`bind`).  This
module imports no operator module and no runtime.
"""

from __future__ import annotations

import contextlib
import functools
import re
import textwrap
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

import numpy as np

from . import _cpus
from .errors import ArgumentTypeError, ArgumentValueError

if TYPE_CHECKING:  # the settings as keyword arguments and dicts (fastbits._signatures), for checkers
    from typing_extensions import Unpack

    from ._signatures import Config, ConfigUpdate, RuntimeInfo

__all__ = ["MAX_SPIN_TIME", "MAX_THREADS", "SETTINGS", "bind", "check_num_threads", "config_context", "defaults",
           "get_config", "release_memory", "runtime_info", "set_config", "set_local_threads"]


#: The threads one call may use: the caller and 255 helpers (the thread team's size,
#: ``FB_MAX_THREADS`` in ``_c/config.h``).  A larger ``num_threads`` or ``task_threads`` is refused.
MAX_THREADS = 256

#: The longest ``spin_time``, in seconds: a helper that watched longer for the next call would
#: hold a CPU that other work needs, to save a wake-up of some microseconds.
MAX_SPIN_TIME = 1.0


def check_num_threads(n: Any, where: str = "set_num_threads: 'n'") -> int:
    """A thread count (``set_num_threads``, ``set_config(num_threads=...)``): a positive int of
    at most :data:`MAX_THREADS`.

    Not an int: :class:`ArgumentTypeError`; out of that range: :class:`ArgumentValueError`.
    """
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise ArgumentTypeError(f"{where} must be a positive int, not {type(n).__name__} {n!r}")
    if n < 1:
        raise ArgumentValueError(f"{where} must be a positive int, not {n!r}")
    if n > MAX_THREADS:
        raise ArgumentValueError(f"{where} must be a positive int of at most {MAX_THREADS} (the caller and "
                                 f"{MAX_THREADS - 1} helpers: the most one call uses), not {n!r}")
    return int(n)


def _threads(where: str, value: Any) -> int:
    return check_num_threads(value, where)


def _bytes(least: int) -> Callable[[str, Any], int]:
    def check(where: str, value: Any) -> int:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ArgumentTypeError(f"{where} must be an int (bytes), not {value!r}")
        if value < least:
            raise ArgumentValueError(f"{where} must be at least {least} bytes, not {value!r}")
        return min(int(value), 2**62)

    return check


def _seconds(most: float) -> Callable[[str, Any], float]:
    def check(where: str, value: Any) -> float:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ArgumentTypeError(f"{where} must be a number of seconds, not {value!r}")
        if not 0 <= value < float("inf"):
            raise ArgumentValueError(f"{where} must be a finite number of seconds >= 0, not {value!r}")
        if value > most:
            raise ArgumentValueError(f"{where} must be at most {most:g} second, not {value!r}")
        return float(value)

    return check


def _flag(where: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{where} must be True or False, not {value!r}")
    return bool(value)


class Setting(NamedTuple):
    """One setting: its name, its default, its check and what it does."""

    name: str
    #: Its type, as the docstring of :func:`set_config` says it.
    kind: str
    #: The default, computed when a runtime starts (the machine and the environment decide some).
    default: Callable[[], Any]
    #: ``check(where, value)``: the value as the runtime keeps it, or a fastbits error whose
    #: message starts with ``where`` ("set_config: 'spin_time'").
    check: Callable[[str, Any], Any]
    #: What the default is, and what the setting does, as the docs' table says them (Markdown:
    #: `code`, {doc}`page`); :func:`set_config`'s docstring has them too.
    default_doc: str
    doc: str


#: Every setting, in the order the docs list them.  The grains were set by measurement
#: (docs/design.md, "Constants"); the machine decides the thread count, the cache size and
#: whether helpers spin (:mod:`fastbits._cpus`).
SETTINGS: tuple[Setting, ...] = (
    Setting("num_threads", "int", _cpus.default_num_threads, _threads,
            "`FASTBITS_NUM_THREADS`, else `OMP_NUM_THREADS`'s first value, else the CPUs the process "
            "may use (its affinity mask, capped by its cgroup's CPU quota: a container allowed 2 CPUs "
            "of a 64-CPU host gets 2)",
            "threads a large call may use, the caller included (an int from 1 to 256, the most one call "
            "uses; 1 on the pure path and in builds without threads); the same as `set_num_threads`, and "
            "threadpoolctl's `threadpool_limits` changes it too"),
    Setting("grain_cached", "int (bytes)", lambda: 1 << 18, _bytes(1), "256 KiB",
            "bytes of result per thread for elementwise loops whose result stays in cache (it is "
            "smaller than `stream_threshold`)"),
    Setting("grain_streamed", "int (bytes)", lambda: 1 << 20, _bytes(1), "1 MiB",
            "the same for elementwise loops that stream their result around the cache"),
    Setting("grain_strided", "int (bytes)", lambda: 1 << 19, _bytes(1), "512 KiB",
            "the same for loops that do more work per byte: a transposed operand read or written in "
            "tiles, short rows gathered into chunks, and `pack`/`unpack` (counted in unpacked elements)"),
    Setting("output_pool", "bool", lambda: True, _flag, "True where the pool exists",
            "large fresh results come from the output pool (where it exists: not in sanitizer builds, "
            "nor on platforms without `MADV_FREE`, where the setting stays False); False also gives its "
            "idle memory back"),
    Setting("pool_threshold", "int (bytes)", lambda: 1 << 25, _bytes(0), "32 MiB",
            "fresh results from this size on come from the pool"),
    Setting("stream_threshold", "int (bytes)", _cpus.default_stream_threshold, _bytes(0),
            "a quarter of the last-level cache's size, as glibc's memcpy chooses its non-temporal "
            "threshold (the cache from Linux's sysfs; 8 MiB where the system does not say)",
            "a result of this many bytes or more is written with streaming stores, around the cache, as "
            "glibc's memcpy writes a copy that large (the bytes written count, not those read): it would "
            "push the rest of the cache out, and the cache lines of `out` need not be read first; smaller "
            "results stay in cache for whatever reads them next. 0 streams every large enough contiguous "
            "run"),
    Setting("spin_time", "float (seconds)", _cpus.default_spin_time, _seconds(MAX_SPIN_TIME),
            "0.0005 (seconds; 0 with `OMP_WAIT_POLICY=passive`)",
            "how long a helper of the thread team watches for the next call after it ran a share, "
            "before it sleeps, yielding its CPU between looks (0 to 1 s); only the helpers the last "
            "call used watch. 0 sends helpers to sleep at once"),
    Setting("task_threads", "int", lambda: 1, _threads, "1",
            "the threads a fastbits call inside a dask task may use, the task's own thread included (an "
            "int from 1 to 256; a call uses at most `num_threads`): dask already runs a task per core, so "
            "a call there does not start the team; a graph keeps the value in force when it was built "
            "({doc}`scaling-out`)"),
)

_BY_NAME = {setting.name: setting for setting in SETTINGS}
_NAMES = ", ".join(sorted(_BY_NAME))

#: The active runtime (:func:`bind`): it keeps the values and applies them.
_runtime: Any = None


@functools.cache
def _defaults() -> tuple[tuple[str, Any], ...]:
    return tuple((setting.name, setting.default()) for setting in SETTINGS)


def defaults() -> dict[str, Any]:
    """Every setting's default, as a runtime starts with them (the environment is read once)."""
    return dict(_defaults())


def bind(runtime: Any) -> None:
    """Make ``runtime`` (a runtime module, started with :func:`defaults`) the one the API reads and changes."""
    global _runtime
    _runtime = runtime


def _checked(function: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` checked, None values left out; a name that is no setting is an error."""
    unknown = sorted(set(settings) - _BY_NAME.keys())
    if unknown:
        raise ArgumentTypeError(
            f"{function}: unknown setting(s) {', '.join(unknown)}; expected some of {_NAMES}")
    return {name: _BY_NAME[name].check(f"{function}: '{name}'", value)
            for name, value in settings.items() if value is not None}


def get_config() -> Config:
    """The current settings: a new dict of every setting of :func:`set_config` and its value."""
    return _runtime.current_config()


def _rst(markdown: str) -> str:
    """A table entry in reStructuredText, for a docstring: its code spans in rST's form, a page link as
    words (help() shows a docstring as it is)."""
    return re.sub(r"(\{doc\})?`([^`]+)`", lambda m: f"the docs' {m[2]} page" if m[1] else f"``{m[2]}``", markdown)


def set_config(**settings: Unpack[ConfigUpdate]) -> None:
    # The docstring is written below, from the table.
    _runtime.configure(**_checked("set_config", settings))


set_config.__doc__ = """Change settings; an argument left at None keeps its setting.

    How many threads a call uses follows one fixed rule, the same for every call and on every
    machine: a call whose result is W bytes uses ``min(num_threads, max(1, W // grain))``
    threads, each running one contiguous share of the work, where ``grain`` is the setting for
    the call's kind of loop.  So a result smaller than two grains runs on its caller alone.

    Parameters
    ----------
""" + "".join(f"""    {s.name} : {s.kind}, optional
{textwrap.fill(_rst(f"{s.doc[0].upper()}{s.doc[1:]}.  Default: {s.default_doc}."), 92,
               initial_indent=" " * 8, subsequent_indent=" " * 8)}
""" for s in SETTINGS) + """
    The pure path keeps the grains, the thresholds and ``spin_time`` and ignores them.

    Raises
    ------
    ArgumentValueError, ArgumentTypeError
        A value of the wrong kind or out of range (ArgumentTypeError also for a setting name
        that does not exist); nothing is changed then.
    """


@contextlib.contextmanager
def config_context(**settings: Unpack[ConfigUpdate]) -> Iterator[Config]:
    """Change settings for a ``with`` block on this thread; the old ones come back after it,
    even on error.

    Takes the keyword arguments of :func:`set_config` and yields the settings in force.  The
    values hold for the calls made on the thread that entered the block, and on no other: two
    threads in blocks of their own neither see nor undo each other's values (a new thread
    starts with the process-wide values).  Inside the block, :func:`set_config` (and
    threadpoolctl's limits) change the block's value of a setting it names, until the block
    ends, and the process-wide value of the others.

    >>> import fastbits
    >>> with fastbits.config_context(num_threads=1):
    ...     fastbits.get_num_threads()
    1
    """
    values = _checked("config_context", settings)
    before = _runtime.local_settings()
    try:
        _runtime.configure_local({**before, **values})
        yield get_config()
    finally:
        _runtime.configure_local(before)


def set_local_threads(n: int) -> int:
    """Cap the threads of the calls made from this thread at ``n`` (0: no cap); return the old
    cap.  The dask adapter sets it around each task."""
    return _runtime.set_local_threads(n)


def runtime_info() -> RuntimeInfo:
    """The runtime's state: which backend, the thread team, the output pool.

    Keys: ``backend``; ``threads_available`` (the build has the thread team: not on Windows,
    where every call runs on its caller); ``helper_threads`` (helpers started so far);
    ``parallel_calls`` (calls shared with helpers) and ``helper_shares`` (the shares helpers
    ran; the caller runs a share no helper has taken when its own is done);
    ``last_call_threads`` (the threads the grain rule gave the last call made on this
    thread: 0 before the first, always 1 on the pure path); ``output_pool_available``;
    ``pool_hits`` and ``pool_misses`` (large fresh results served from an idle block, or from
    new memory); ``pool_idle_bytes`` and ``pool_idle_blocks`` (held now);
    ``pool_max_idle_bytes`` and ``pool_max_idle_seconds`` (its bounds); ``sanitized_build``;
    ``cpu_features`` (the instruction sets the loops use beside the baseline: ``["AVX2",
    "F16C"]`` on an x86-64 CPU that has them, less those ``FASTBITS_DISABLE_CPU_FEATURES``
    names; none on the pure path);
    ``cpus`` (the CPUs this process may use: its affinity mask, capped by its cgroup's quota,
    which is the default ``num_threads`` unless the environment sets one).
    """
    info = _runtime.runtime_info()
    info["cpus"] = _cpus.available_cpus()
    return info


def release_memory() -> int:
    """Give the output pool's idle blocks back to the system now; return the bytes released.

    Idle blocks go back by themselves too: the kernel may take their pages whenever it needs
    memory (``MADV_FREE``), and a block idle for 10 s is freed at the next large allocation.
    """
    return _runtime.release_memory()
