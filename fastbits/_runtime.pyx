# cython: language_level=3
"""The runtime: the thread limit, fresh results and the output pool, the configuration.

It owns fastbits' C thread team and output pool (``fastbits/_c/team.c``, ``pool.c``): the
broadcast engine runs its pieces on the team, and the entry points allocate their results
here.  Python code reaches it through :mod:`fastbits._config` (``get_config``,
``set_config``, ``config_context``, ``runtime_info``, ``release_memory``) and
``fastbits.get_num_threads`` / ``set_num_threads``; threadpoolctl reaches the thread limit
through the C symbols ``fastbits_get_num_threads`` / ``fastbits_set_num_threads`` of this
module's shared library (see :mod:`fastbits._threadpool`).
"""

from cpython.object cimport PyObject
from cpython.exc cimport PyErr_Clear
from cpython.ref cimport Py_DECREF, Py_INCREF
from libc.stdint cimport uint8_t, uint32_t
from libc.string cimport strncpy
cimport numpy as cnp

from ._clib cimport (
    FB_MAX_THREADS, FB_POOL_MAX_AGE, FB_POOL_MAX_BYTES, FB_POOL_SLOTS, FB_SANITIZED,
    fb_pool_available, fb_pool_calloc, fb_pool_free, fb_pool_init, fb_pool_malloc,
    fb_pool_realloc, fb_pool_release, fb_pool_stats, fb_pool_stats_t, fb_team_available,
    fb_team_init, fb_team_note_call, fb_team_run, fb_team_stats, fb_team_stats_t, fb_threads_get, fb_threads_set, fb_piece_fn,
    fb_team_get_spin, fb_team_set_spin, FB_TUNE_CACHED, FB_TUNE_CLASSES, FB_TUNE_STREAMED_1, FB_TUNE_STREAMED_2,
    fb_tune_begin, fb_tune_call_t, fb_tune_class_t, fb_tune_end, fb_tune_get, fb_tune_init, fb_tune_report,
    fb_tune_set,
)


from . import _cpus, spec

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
# Threads

if fb_team_init() != 0 or fb_tune_init() != 0:
    raise ImportError("fastbits._runtime: could not register the thread team's fork handlers")
fb_threads_set(_cpus.default_num_threads())
# Helpers watch for the next call for the spin time before they sleep (fastbits/_c/team.h);
# never more of them than there are CPUs beside the caller's.
cdef int _spin_helpers = _cpus.available_cpus() - 1
fb_team_set_spin(<long>round(_cpus.default_spin_time() * 1e9), _spin_helpers)

# Below this much output a loop runs on its caller alone; from it, the thread tuner chooses
# (fastbits/_c/tune.h).  Loops that transpose or gather do more work per byte and may use the team
# from an eighth of it.  With helpers that watch for the next call a second core can pay from
# about 256 KiB of int32 output, but not always: on this project's 2-core VM a 64K int32 AND took
# 14.2 µs alone and 10.4 µs on two threads back to back at one time, 20-25 µs on two at others
# (its two CPUs seem not always to share a cache).  A fixed 768 KiB had kept the suite's 64K rows
# off the team; the tuner now keeps them off it only while two threads are slower.
cdef Py_ssize_t _parallel_bytes = 256 << 10


# A call that moves at least this many bytes (inputs read, result written) writes its result
# with streaming stores, around the cache: the last-level cache's size (fastbits._cpus).  Below
# it, the result may stay in cache for whatever reads it next.
cdef Py_ssize_t _stream_bytes = _cpus.default_stream_threshold()


cdef int call_threads() noexcept nogil:
    cdef int n = fb_threads_get()
    if not fb_team_available():
        return 1
    return n if n < FB_MAX_THREADS else FB_MAX_THREADS


# A call with less work than this (bytes of output; some 100 µs on one thread) is quick: it is not
# worth waking a sleeping helper for, unless a stream of calls has begun (fastbits/_c/team.h).
cdef Py_ssize_t QUICK_WORK = 2 << 20


cdef void run_pieces(fb_piece_fn fn, void* ctx, Py_ssize_t npieces, int helpers, Py_ssize_t work) noexcept nogil:
    fb_team_run(fn, ctx, npieces, helpers, work < QUICK_WORK)


# Whether a call of a few MiB gains from a second thread depends on the machine and its state:
# the tuner (fastbits/_c/tune.h) times both ways on calls like it and runs the faster.
fb_tune_set(_cpus.default_adaptive_threads())


cdef bint tune_begin(fb_tune_call_t* call, int helpers, Py_ssize_t work, uint32_t signature,
                     Py_ssize_t result_bytes, Py_ssize_t moved, bint streamed) noexcept nogil:
    cdef int kind = FB_TUNE_CACHED
    if streamed:
        kind = FB_TUNE_STREAMED_1 if 2 * moved < 5 * result_bytes else FB_TUNE_STREAMED_2
    if fb_tune_begin(call, helpers, signature, work, kind):
        return True
    fb_team_note_call()  # run alone: the team's quick rule counts it (fastbits/_c/team.h)
    return False


cdef void tune_end(fb_tune_call_t* call) noexcept nogil:
    fb_tune_end(call)


cdef Py_ssize_t parallel_threshold() noexcept nogil:
    return _parallel_bytes


cdef Py_ssize_t stream_threshold() noexcept nogil:
    return _stream_bytes


# The two check their argument count and keywords themselves (spec.call_error), as the pure
# path's do, where Cython's own messages would differ from Python's.
def get_num_threads(*extra, **keywords):
    """Threads the kernels use for large arrays (1 when built without threads)."""
    if extra or keywords:
        raise spec.call_error("get_num_threads", extra, keywords)
    return fb_threads_get()


def set_num_threads(n=spec.REQUIRED, /, *extra, **keywords):
    """Set the threads the kernels use above the size threshold (a positive int).

    Built without threads, the value is accepted and the kernels stay on one thread.
    """
    if n is spec.REQUIRED or extra or keywords:
        raise spec.call_error("set_num_threads", (n, *extra), keywords)
    n = spec.check_num_threads(n)
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
# reuses freed memory whose pages are mapped and often still in cache: the pool measured
# slower there (4 MiB of int32: 330 us against 190 us).
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
    """Raise spec.allocate's AllocationError for an array that could not be allocated (numpy's
    error, pending, is cleared)."""
    PyErr_Clear()
    return spec.allocate(op, tuple([dims[i] for i in range(nd)]), <object>descr)


# ---------------------------------------------------------------------------
# Configuration (validated by fastbits._config)

def current_config():
    """The settings, as :func:`fastbits.get_config` reports them."""
    return {
        "num_threads": get_num_threads(),
        "parallel_threshold": int(_parallel_bytes),
        "output_pool": bool(_pool_on),
        "pool_threshold": int(_pool_bytes),
        "stream_threshold": int(_stream_bytes),
        "spin_time": fb_team_get_spin() / 1e9,
        "adaptive_threads": bool(fb_tune_get()),
    }


def configure(num_threads=None, parallel_threshold=None, output_pool=None, pool_threshold=None,
              stream_threshold=None, spin_time=None, adaptive_threads=None):
    """Apply settings already checked by :func:`fastbits.set_config` (None: unchanged)."""
    global _parallel_bytes, _pool_bytes, _pool_on, _stream_bytes
    if num_threads is not None:
        set_num_threads(num_threads)
    if adaptive_threads is not None:
        fb_tune_set(adaptive_threads)
    if spin_time is not None:
        fb_team_set_spin(<long>min(round(spin_time * 1e9), 2**62), _spin_helpers)
    if parallel_threshold is not None:
        _parallel_bytes = parallel_threshold
    if pool_threshold is not None:
        _pool_bytes = pool_threshold
    if stream_threshold is not None:
        _stream_bytes = stream_threshold
    if output_pool is not None:
        _pool_on = bool(output_pool) and fb_pool_available()
        if not _pool_on:
            fb_pool_release()


# runtime_info's names for the tuner's kinds of call (FB_TUNE_CACHED, _STREAMED_1, _STREAMED_2).
TUNE_KINDS = ("cached", "streamed, 1 input", "streamed, 2 inputs")


def runtime_info():
    """The thread team's and the output pool's state, as :func:`fastbits.runtime_info` reports it."""
    cdef fb_team_stats_t team
    cdef fb_pool_stats_t pool
    cdef fb_tune_class_t classes[FB_TUNE_CLASSES]
    cdef int nclasses, k
    fb_team_stats(&team)
    fb_pool_stats(&pool)
    nclasses = fb_tune_report(classes)
    return {
        "backend": "cython",
        "threads_available": bool(fb_team_available()),
        "helper_threads": int(team.started),
        "helper_pieces": int(team.helper_pieces),
        "helper_calls_watched": int(team.calls_watched),
        "helper_calls_woken": int(team.calls_woken),
        "thread_choices": [{
            "signature": int(classes[k].signature),
            "work_from": int(classes[k].work_from),
            "work_to": int(classes[k].work_to),
            "kind": TUNE_KINDS[classes[k].kind],
            "num_threads": int(classes[k].helpers) + 1,
            "threads": int(classes[k].helpers) + 1 if classes[k].team else 1,
            "calls_alone": int(classes[k].calls_alone),
            "calls_team": int(classes[k].calls_team),
            "probes": int(classes[k].probes),
            "switches": int(classes[k].switches),
        } for k in range(nclasses)],
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
