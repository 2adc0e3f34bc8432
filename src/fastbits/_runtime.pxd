# The runtime's C-level interface, for the operator and packing modules (see _runtime.pyx).
from cpython.object cimport PyObject
cimport numpy as cnp

from ._clib cimport fb_config_t, fb_kernel, fb_plan, fb_share_fn

# Every call takes one snapshot of the settings first, and each of these decides from it
# (fastbits/_c/engine.h), with the GIL released where the engine says.

# The settings in force for a call on this thread (fastbits/_c/config.h: fb_config_get; the
# settings live in this module).
cdef void snapshot(fb_config_t* config) noexcept nogil

# Plan and run ``plan`` (its config the call's snapshot; every check already passed, out does
# not overlap an input other than exactly).  Raises MemoryError when its scratch memory cannot
# be allocated.
cdef int run(fb_plan* plan) except -1

# ``kernel`` over n elements into contiguous o, from a and b at byte strides sa and sb (b's 0:
# one value for every element), run here when the grain rule gives them one thread (its stream
# flag set as run() would set it): True, having run it; else False, having done nothing (the
# caller plans the call instead).  b is a again for a unary kernel.  Every kernel family's
# small-call path.
cdef bint run_inline(const fb_config_t* config, fb_kernel* kernel, char* o, const char* a, Py_ssize_t sa,
                     const char* b, Py_ssize_t sb, Py_ssize_t n) noexcept

# One row of ``k`` (fastbits/_c/loops.h: fb_row), for the public Cython API (kernels), so that
# the loops are compiled once.
cdef void row(const fb_kernel* k, char* o, const char* a, const char* b, Py_ssize_t n, Py_ssize_t so,
              Py_ssize_t sa, Py_ssize_t sb) noexcept nogil

# Run shares [0, *nshares) of fn: *nshares the threads the grain rule gives ``work`` bytes of
# work of grain kind ``kind`` cut into ``units`` pieces, set before any share runs; share 0 on
# the caller, the others on the team's helpers.
cdef void parallel(const fb_config_t* config, fb_share_fn fn, void* ctx, int kind, Py_ssize_t work,
                   Py_ssize_t units, int* nshares) noexcept

# A new array of native dtype ``descr`` (borrowed) and ``nbytes`` bytes, C-contiguous, or with
# ``strides`` where not NULL (a layout of its own bytes: fastbits/_c/layout.h), from the output
# pool where the engine says.  One that cannot be allocated raises spec.allocation_error's
# AllocationError naming the operator ``op``.
cdef object new_array(const fb_config_t* config, int nd, cnp.npy_intp* dims, cnp.npy_intp* strides,
                      PyObject* descr, Py_ssize_t nbytes, str op)
