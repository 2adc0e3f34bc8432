# cython: language_level=3
"""The runtime: the settings, the thread team, the output pool and the broadcast engine.

It owns all of fastbits' C state (``fastbits/_c/config.c``, ``team.c``, ``pool.c``) and the
engine that uses it (``engine.c``), and runs what the engine decides (``engine.h``): a call
takes one snapshot of the settings (:func:`snapshot`), and its plan, its fresh result, its
threads and whether the GIL is released all follow from it.  The operator and packing modules
reach it through ``_runtime.pxd``: :func:`snapshot`, :func:`run` (any broadcast operation),
:func:`run_inline` (the small contiguous calls), :func:`parallel` (the packing loops),
:func:`new_array` (fresh results) and :func:`row` (the loops, for the public Cython API).
Python code reaches it through :mod:`fastbits._config` (``get_config``, ``set_config``,
``config_context``, ``runtime_info``, ``release_memory``) and ``fastbits.get_num_threads`` /
``set_num_threads``; threadpoolctl reaches the thread limit through the C symbols
``fastbits_get_num_threads`` / ``fastbits_set_num_threads`` of this module's shared library
(see :mod:`fastbits._threadpool`).
"""

from cpython.object cimport PyObject, PyTypeObject
from cpython.exc cimport PyErr_Clear
from cpython.ref cimport Py_DECREF, Py_INCREF
from libc.stdint cimport uint8_t
from libc.string cimport strncpy
cimport numpy as cnp

from ._clib cimport (
    FB_GRAIN_CACHED, FB_GRAIN_STREAMED, FB_GRAIN_STRIDED, FB_NUM_THREADS, FB_OUTPUT_POOL, FB_POOL_MAX_AGE,
    FB_POOL_MAX_BYTES, FB_POOL_THRESHOLD, FB_SANITIZED, FB_SPIN_NS, FB_STREAM_THRESHOLD, FB_TASK_THREADS,
    fastbits_get_num_threads, fb_config_get, fb_cpu, fb_cpu_init, fb_config_t, fb_engine_inline, fb_engine_nogil, fb_engine_parallel,
    fb_engine_plan, fb_engine_pooled, fb_engine_run, fb_kernel, fb_local, fb_local_clear, fb_local_set, fb_local_threads_set, fb_plan,
    fb_pool_available, fb_pool_calloc, fb_pool_free, fb_pool_init, fb_pool_malloc, fb_pool_realloc, fb_pool_release,
    fb_pool_stats, fb_pool_stats_t, fb_row, fb_setting, fb_setting_set, fb_share_fn, fb_team_available, fb_team_init,
    fb_team_last_shares, fb_team_stats, fb_team_stats_t,
)

from . import _config, _cpus, spec

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
    # declared with void* so that the stolen descr reference is explicit; NULL (with the error
    # set) instead of raising: no try on the hot path
    PyTypeObject PyArray_Type
    PyObject* PyArray_NewFromDescr_or_null "PyArray_NewFromDescr"(
        void* subtype, void* descr, int nd, cnp.npy_intp* dims, cnp.npy_intp* strides, void* data, int flags,
        void* obj)
    object PyCapsule_New(void* pointer, const char* name, void* destructor)


# ---------------------------------------------------------------------------
# The engine (fastbits/_c/engine.h) decides; these run what it decided, with or without the GIL

cdef void snapshot(fb_config_t* config) noexcept nogil:
    fb_config_get(config)


cdef int run(fb_plan* plan) except -1:
    if fb_engine_plan(plan) != 0:
        raise MemoryError()
    if fb_engine_nogil(plan.total * plan.kernel.width):
        with nogil:
            fb_engine_run(plan)
    else:
        fb_engine_run(plan)
    return 0


cdef bint run_inline(const fb_config_t* config, fb_kernel* kernel, char* o, const char* a, Py_ssize_t sa,
                     const char* b, Py_ssize_t sb, Py_ssize_t n) noexcept:
    cdef Py_ssize_t w = kernel.width
    if not fb_engine_inline(config, kernel, n):
        return False
    if fb_engine_nogil(n * w):
        with nogil:
            fb_row(kernel, o, a, b, n, w, sa, sb)
    else:
        fb_row(kernel, o, a, b, n, w, sa, sb)
    return True


cdef void row(const fb_kernel* k, char* o, const char* a, const char* b, Py_ssize_t n, Py_ssize_t so,
              Py_ssize_t sa, Py_ssize_t sb) noexcept nogil:
    fb_row(k, o, a, b, n, so, sa, sb)


cdef void parallel(const fb_config_t* config, fb_share_fn fn, void* ctx, int kind, Py_ssize_t work,
                   Py_ssize_t units, int* nshares) noexcept:
    if fb_engine_nogil(work):
        with nogil:
            fb_engine_parallel(config, fn, ctx, kind, work, units, nshares)
    else:
        fb_engine_parallel(config, fn, ctx, kind, work, units, nshares)


# ---------------------------------------------------------------------------
# Threads

# the loops' instruction sets: what the CPU has, less what FASTBITS_DISABLE_CPU_FEATURES names
_features = _cpus.allowed_cpu_features()
fb_cpu_init("AVX2" in _features, "F16C" in _features)
if fb_team_init() != 0:
    raise ImportError("fastbits._runtime: could not register the thread team's fork handler")


def set_local_threads(n):
    """Cap the threads of calls made from this thread at ``n`` (0: no cap); return the old cap."""
    return fb_local_threads_set(n)


def _get_num_threads():
    """Threads the kernels use for large arrays (1 when built without threads)."""
    return fastbits_get_num_threads()


def _set_num_threads(n, /):
    """Set the threads a large call may use, the caller included (a positive int).

    Built without threads, the value is accepted and the kernels stay on one thread.
    """
    configure(num_threads=_config.check_num_threads(n))


# Python functions, as the pure path's: help() shows a function's, and a call that does not fit
# gets spec.call_error, word for word the pure path's (Cython's own messages differ).
_get_num_threads.__name__ = _get_num_threads.__qualname__ = "get_num_threads"
_set_num_threads.__name__ = _set_num_threads.__qualname__ = "set_num_threads"
get_num_threads = spec.public_function(_get_num_threads)
set_num_threads = spec.public_function(_set_num_threads)


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

cdef object new_array(const fb_config_t* config, int nd, cnp.npy_intp* dims, cnp.npy_intp* strides, PyObject* descr,
                      Py_ssize_t nbytes, str op):
    cdef PyObject* made
    if fb_engine_pooled(config, nbytes):
        old = PyDataMem_SetHandler(_POOL_HANDLER)
        made = _empty(nd, dims, strides, descr)
        if made == NULL:
            PyErr_Clear()  # before the handler is put back; allocation_error says why
        PyDataMem_SetHandler(old)
    else:
        made = _empty(nd, dims, strides, descr)
    if made == NULL:
        return _allocation_failed(nd, dims, descr, op)
    result = <object>made  # a new reference of its own: hand numpy's back
    Py_DECREF(result)
    return result


cdef inline PyObject* _empty(int nd, cnp.npy_intp* dims, cnp.npy_intp* strides, PyObject* descr) noexcept:
    Py_INCREF(<object>descr)  # PyArray_NewFromDescr steals it, even when it fails
    return PyArray_NewFromDescr_or_null(<void*>&PyArray_Type, <void*>descr, nd, dims, strides, NULL, 0, NULL)


cdef object _allocation_failed(int nd, cnp.npy_intp* dims, PyObject* descr, str op):
    """Raise allocate's AllocationError for an array that could not be allocated (numpy's
    error, pending, is cleared)."""
    PyErr_Clear()
    raise spec.allocation_error(op, tuple([dims[i] for i in range(nd)]), <object>descr)


# ---------------------------------------------------------------------------
# Configuration (validated by fastbits._config): every setting is kept in C (fastbits/_c/config.h),
# process-wide and as a thread's own values, where every call reads it

# The settings' table's names, and their indexes in C.
cdef dict _INDEX = {
    "num_threads": FB_NUM_THREADS, "grain_cached": FB_GRAIN_CACHED, "grain_streamed": FB_GRAIN_STREAMED,
    "grain_strided": FB_GRAIN_STRIDED, "output_pool": FB_OUTPUT_POOL, "pool_threshold": FB_POOL_THRESHOLD,
    "stream_threshold": FB_STREAM_THRESHOLD, "spin_time": FB_SPIN_NS, "task_threads": FB_TASK_THREADS,
}


cdef Py_ssize_t _encode(str name, object value) except? -1:
    """A checked value as C keeps it: the pool on only where it exists, seconds in ns."""
    if name == "output_pool":
        if not value:
            fb_pool_release()
        return bool(value) and fb_pool_available()
    if name == "spin_time":
        return round(min(value * 1e9, 2.0**62))  # the product may be inf: bound it first
    return min(value, 2**62)


cdef object _decode(str name, Py_ssize_t value):
    if name == "output_pool":
        return bool(value)
    if name == "spin_time":
        return value / 1e9
    return int(value)


def current_config():
    """The settings in force on this thread, as :func:`fastbits.get_config` reports them."""
    config = {name: _decode(name, fb_setting(k)) for name, k in _INDEX.items()}
    config["num_threads"] = fastbits_get_num_threads()
    return config


def configure(**settings):
    """Apply settings already checked by :func:`fastbits.set_config`: process-wide, but for
    those this thread holds its own value of (:func:`configure_local`), which change here."""
    for name, value in settings.items():
        fb_setting_set(_INDEX[name], _encode(name, value))


def local_settings():
    """The settings this thread holds its own value of, as :func:`configure_local` took them."""
    return {name: _decode(name, fb_local.value[k]) for name, k in _INDEX.items() if fb_local.mask >> k & 1}


def configure_local(settings):
    """Make ``settings`` (checked) the only ones this thread holds its own value of; its calls
    read those, and the process-wide values of the others."""
    fb_local_clear()
    for name, value in settings.items():
        fb_local_set(_INDEX[name], _encode(name, value))


configure(**_config.defaults())


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
        "cpu_features": [name for name, used in (("AVX2", fb_cpu.avx2), ("F16C", fb_cpu.f16c)) if used],
    }


def release_memory():
    """Give the output pool's idle blocks back to the system; return the bytes released."""
    return int(fb_pool_release())
