# The runtime's C-level interface, for the operator and packing modules (see _runtime.pyx).
from cpython.object cimport PyObject
cimport numpy as cnp

from ._clib cimport fb_kernel, fb_plan, fb_share_fn

# Plan and run ``plan`` (fastbits/_c/engine.h; every check already passed, out does not
# overlap an input other than exactly), without the GIL when it is large.  Raises MemoryError
# when its scratch memory cannot be allocated.
cdef int run(fb_plan* plan) except -1

# ``kernel`` over n contiguous elements into o, run here when the grain rule gives them one
# thread (its stream flag set as run() would set it): True, having run it; else False, having
# done nothing (the caller plans the call instead).  b is a again for a unary kernel.
cdef bint run_inline(fb_kernel* kernel, char* o, const char* a, const char* b, Py_ssize_t n) noexcept

# Run shares [0, *nshares) of fn: *nshares the threads the grain rule gives ``work`` bytes of
# work of grain kind ``kind`` cut into ``units`` pieces, set before any share runs; share 0 on
# the caller, the others on the team's helpers, without the GIL when the work is large.
cdef void parallel(fb_share_fn fn, void* ctx, int kind, Py_ssize_t work, Py_ssize_t units,
                   int* nshares) noexcept

# A new array of native dtype ``descr`` (borrowed) and ``nbytes`` bytes, C-contiguous, or with
# ``strides`` where not NULL (a layout of its own bytes: fastbits/_c/layout.h), from the output
# pool when it is on and the array is large.  One that cannot be allocated raises
# spec.allocation_error's AllocationError naming the operator ``op``.
cdef object new_array(int nd, cnp.npy_intp* dims, cnp.npy_intp* strides, PyObject* descr, Py_ssize_t nbytes,
                      str op)
