# cython: language_level=3
"""The runtime: the thread limit, fresh results and the output pool, the configuration.

It owns fastbits' C settings, thread team and output pool (``fastbits/_c/config.c``,
``team.c``, ``pool.c``): the broadcast engine and the packing module take a snapshot of the
settings per call, choose its threads by the grain rule and run its shares on the team; the
entry points allocate their results here.  Python code reaches it through :mod:`fastbits._config` (``get_config``,
``set_config``, ``config_context``, ``runtime_info``, ``release_memory``) and
``fastbits.get_num_threads`` / ``set_num_threads``; threadpoolctl reaches the thread limit
through the C symbols ``fastbits_get_num_threads`` / ``fastbits_set_num_threads`` of this
module's shared library (see :mod:`fastbits._threadpool`).
"""

from cpython.object cimport PyObject
from cpython.exc cimport PyErr_Clear
from cpython.ref cimport Py_DECREF, Py_INCREF
from libc.stdint cimport uint8_t
from libc.string cimport strncpy
cimport numpy as cnp

from ._clib cimport (
    FB_GRAIN_CACHED, FB_GRAIN_STREAMED, FB_GRAIN_STRIDED, FB_POOL_MAX_AGE,
    FB_POOL_MAX_BYTES, FB_SANITIZED, fb_config_get, fb_config_t, fb_grain_get, fb_grain_set, fb_local_threads_set,
    fb_pool_available, fb_pool_calloc, fb_pool_free, fb_pool_init, fb_pool_malloc, fb_pool_realloc,
    fb_pool_release, fb_pool_stats, fb_pool_stats_t, fb_stream_threshold_get, fb_stream_threshold_set,
    fb_share_fn, fb_team_available, fb_team_get_spin, fb_team_init, fb_team_last_shares, fb_team_inline, fb_team_run,
    fb_team_set_spin,
    fb_team_stats, fb_team_stats_t, fb_threads_get, fb_threads_set,
)


from . import _cpus, spec
from ._runtime_py import allocate, check_num_threads

cnp.import_array()


cdef extern from "numpy/arrayobject.h":
    ctypedef struct PyDataMemAllocator:
        void* ctx
        void* (*malloc)(void* ctx, size_t size) noexcept nogil
        void* (*calloc)(void* ctx, size_t nelem, size_t elsize) noexcept nogil
        void* (*realloc)(void* ctx, void* ptr, size_t new_size) noexcept nogil
        void (*free)(void* ctx, void* ptr, size_t size) noexcept nogil
    ctypedef struct PyDataMem_Handler:
        char name[127]
        uint8_t version
        PyDataMemAllocator allocator
    object PyDataMem_SetHandler(object handler)
    # declared with PyObject* so that the stolen descr reference is explicit
    object PyArray_Empty_steals "PyArray_Empty"(int nd, cnp.npy_intp* dims, void* descr, int fortran)
    # the same, returning NULL (with the error set) instead of raising: no try on the hot path
    PyObject* PyArray_Empty_or_null "PyArray_Empty"(int nd, cnp.npy_intp* dims, void* descr, int fortran)
    object PyCapsule_New(void* pointer, const char* name, void* destructor)


# ---------------------------------------------------------------------------
# Threads: the settings live in C (fastbits/_c/config.h), where every call reads them

if fb_team_init() != 0:
    raise ImportError("fastbits._runtime: could not register the thread team's fork handler")
fb_threads_set(_cpus.default_num_threads())
fb_team_set_spin(<long>round(_cpus.default_spin_time() * 1e9))
fb_stream_threshold_set(_cpus.default_stream_threshold())

# The grain settings, by name, and the kind of work each is for.
GRAIN_KINDS = {"grain_cached": FB_GRAIN_CACHED, "grain_streamed": FB_GRAIN_STREAMED,
               "grain_strided": FB_GRAIN_STRIDED}
for _name, _kind in GRAIN_KINDS.items():
    fb_grain_set(_kind, _cpus.GRAINS[_name])


cdef void get_config(fb_config_t* config) noexcept nogil:
    fb_config_get(config)


cdef void run_shares(fb_share_fn fn, void* ctx, int nshares) noexcept nogil:
    fb_team_run(fn, ctx, nshares)


cdef bint inline_call(Py_ssize_t nbytes) noexcept nogil:
    return fb_team_inline(nbytes)


def set_local_threads(n):
    """Cap the threads of calls made from this thread at ``n`` (0: no cap); return the old cap."""
    return fb_local_threads_set(n)


# The two check their argument count and keywords themselves (spec.call_error), as the pure
# path's do, where Cython's own messages would differ from Python's.
def get_num_threads(*extra, **keywords):
    """Threads the kernels use for large arrays (1 when built without threads)."""
    if extra or keywords:
        raise spec.call_error("get_num_threads", extra, keywords)
    return fb_threads_get()


def set_num_threads(n=spec.REQUIRED, /, *extra, **keywords):
    """Set the threads a large call may use, the caller included (a positive int).

    Built without threads, the value is accepted and the kernels stay on one thread.
    """
    if n is spec.REQUIRED or extra or keywords:
        raise spec.call_error("set_num_threads", (n, *extra), keywords)
    n = check_num_threads(n)
    fb_threads_set(min(n, 2**31 - 1))


# ---------------------------------------------------------------------------
# Fresh results and the output pool

cdef PyDataMem_Handler _handler
strncpy(_handler.name, b"fastbits_output_pool", 126)
_handler.version = 1
_handler.allocator.ctx = NULL
_handler.allocator.malloc = fb_pool_malloc
_handler.allocator.calloc = fb_pool_calloc
_handler.allocator.realloc = fb_pool_realloc
_handler.allocator.free = fb_pool_free
_POOL_HANDLER = PyCapsule_New(<void*>&_handler, "mem_handler", NULL)
if fb_pool_init() != 0:
    raise ImportError("fastbits._runtime: could not register the output pool's fork handler")

# Fresh results at least this large come from the pool.  Below 32 MiB glibc's malloc already
# reuses freed memory whose pages are mapped and often still in cache, and the pool is slower
# (docs/design.md).
cdef Py_ssize_t _pool_bytes = 1 << 25
cdef bint _pool_on = fb_pool_available()


cdef object new_array(int nd, cnp.npy_intp* dims, PyObject* descr, Py_ssize_t nbytes, str op):
    cdef PyObject* made
    if _pool_on and nbytes >= _pool_bytes:
        return _pooled_array(nd, dims, descr, op)
    Py_INCREF(<object>descr)  # PyArray_Empty steals it, even when it fails
    made = PyArray_Empty_or_null(nd, dims, <void*>descr, 0)
    if made == NULL:
        return _allocation_failed(nd, dims, descr, op)
    result = <object>made  # a new reference of its own: hand PyArray_Empty's back
    Py_DECREF(result)
    return result


cdef object _pooled_array(int nd, cnp.npy_intp* dims, PyObject* descr, str op):
    old = PyDataMem_SetHandler(_POOL_HANDLER)
    try:
        Py_INCREF(<object>descr)
        return PyArray_Empty_steals(nd, dims, <void*>descr, 0)
    except (MemoryError, ValueError):
        pass
    finally:
        PyDataMem_SetHandler(old)
    return _allocation_failed(nd, dims, descr, op)


cdef object _allocation_failed(int nd, cnp.npy_intp* dims, PyObject* descr, str op):
    """Raise allocate's AllocationError for an array that could not be allocated (numpy's
    error, pending, is cleared)."""
    PyErr_Clear()
    return allocate(op, tuple([dims[i] for i in range(nd)]), <object>descr)


# ---------------------------------------------------------------------------
# Configuration (validated by fastbits._config)

# The thread cap of a fastbits call inside a dask task (fastbits._dask reads it); no C uses it.
_task_threads = 1

def current_config():
    """The settings, as :func:`fastbits.get_config` reports them."""
    config = {"num_threads": get_num_threads()}
    config.update({name: int(fb_grain_get(kind)) for name, kind in GRAIN_KINDS.items()})
    config.update({
        "output_pool": bool(_pool_on),
        "pool_threshold": int(_pool_bytes),
        "stream_threshold": int(fb_stream_threshold_get()),
        "spin_time": fb_team_get_spin() / 1e9,
        "task_threads": _task_threads,
    })
    return config


def configure(num_threads=None, grain_cached=None, grain_streamed=None, grain_strided=None,
              output_pool=None, pool_threshold=None, stream_threshold=None, spin_time=None,
              task_threads=None):
    """Apply settings already checked by :func:`fastbits.set_config` (None: unchanged)."""
    global _pool_bytes, _pool_on, _task_threads
    if task_threads is not None:
        _task_threads = task_threads
    if num_threads is not None:
        set_num_threads(num_threads)
    for name, value in (("grain_cached", grain_cached), ("grain_streamed", grain_streamed),
                        ("grain_strided", grain_strided)):
        if value is not None:
            fb_grain_set(GRAIN_KINDS[name], value)
    if spin_time is not None:
        fb_team_set_spin(<long>min(round(spin_time * 1e9), 2**62))
    if pool_threshold is not None:
        _pool_bytes = pool_threshold
    if stream_threshold is not None:
        fb_stream_threshold_set(stream_threshold)
    if output_pool is not None:
        _pool_on = bool(output_pool) and fb_pool_available()
        if not _pool_on:
            fb_pool_release()


def runtime_info():
    """The thread team's and the output pool's state, as :func:`fastbits.runtime_info` reports it."""
    cdef fb_team_stats_t team
    cdef fb_pool_stats_t pool
    fb_team_stats(&team)
    fb_pool_stats(&pool)
    return {
        "backend": "cython",
        "threads_available": bool(fb_team_available()),
        "helper_threads": int(team.started),
        "parallel_calls": int(team.parallel_calls),
        "helper_shares": int(team.helper_shares),
        "last_call_threads": int(fb_team_last_shares()),
        "output_pool_available": bool(fb_pool_available()),
        "pool_hits": int(pool.hits),
        "pool_misses": int(pool.misses),
        "pool_idle_bytes": int(pool.idle_bytes),
        "pool_idle_blocks": int(pool.idle_blocks),
        "pool_max_idle_bytes": int(FB_POOL_MAX_BYTES),
        "pool_max_idle_seconds": float(FB_POOL_MAX_AGE),
        "sanitized_build": bool(FB_SANITIZED),
    }


def release_memory():
    """Give the output pool's idle blocks back to the system; return the bytes released."""
    return int(fb_pool_release())
