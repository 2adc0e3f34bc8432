# The runtime's C-level interface, for the broadcast engine, the packing module and the entry points.
from cpython.object cimport PyObject
cimport numpy as cnp

from ._clib cimport fb_config_t, fb_share_fn

# The settings in force for a call on this thread, read once per call (fastbits/_c/config.h).
cdef void get_config(fb_config_t* config) noexcept nogil

# Run shares [0, nshares) of fn: share 0 on the caller, the others on the thread team's helpers
# (fastbits/_c/team.h: fb_team_run).  nshares comes from the grain rule (fb_threads_for).
cdef void run_shares(fb_share_fn fn, void* ctx, int nshares) noexcept nogil

# Whether an elementwise call of ``nbytes`` of result that stays in cache runs on one thread by
# the grain rule; then the caller runs it without run_shares (the entry points' one-row path),
# and it counts for runtime_info()["last_call_threads"].
cdef bint inline_call(Py_ssize_t nbytes) noexcept nogil

# A new C-contiguous array of native dtype ``descr`` (borrowed) and ``nbytes`` bytes, from the
# output pool when it is on and the array is large.  One that cannot be allocated raises
# spec.allocate's AllocationError naming the operator ``op``.
cdef object new_array(int nd, cnp.npy_intp* dims, PyObject* descr, Py_ssize_t nbytes, str op)
