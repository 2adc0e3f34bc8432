# The runtime's C-level interface, for the broadcast engine and the entry points.
from cpython.object cimport PyObject
cimport numpy as cnp
from libc.stdint cimport uint32_t

from ._clib cimport fb_piece_fn, fb_tune_call_t

# Threads one call may use now (the thread limit, at most FB_MAX_THREADS; 1 without the team).
cdef int call_threads() noexcept nogil

# Run pieces [0, npieces) of fn on the caller and up to ``helpers`` helpers of the thread team
# (fastbits/_c/team.h: fb_team_run).  ``work``: the call's bytes of output, times 8 for loops that
# transpose or gather; under QUICK_WORK the call is a quick one, which wakes no sleeping helper
# unless a stream of calls has begun.
cdef void run_pieces(fb_piece_fn fn, void* ctx, Py_ssize_t npieces, int helpers, Py_ssize_t work) noexcept nogil

# Whether a call with ``helpers`` helpers at hand is to use the team (True) or run on its caller
# alone, as the thread tuner (fastbits/_c/tune.h) has found faster for calls like it: the same
# loop (``signature``, the caller's code for it), ``work`` as for run_pieces, ``result_bytes``
# of result, ``moved`` bytes read and written, the result ``streamed`` or not.  tune_end(call)
# must follow the call.
cdef bint tune_begin(fb_tune_call_t* call, int helpers, Py_ssize_t work, uint32_t signature,
                     Py_ssize_t result_bytes, Py_ssize_t moved, bint streamed) noexcept nogil
cdef void tune_end(fb_tune_call_t* call) noexcept nogil

# Output bytes from which streaming loops use the team (transposes and gathers: an 8th of it).
cdef Py_ssize_t parallel_threshold() noexcept nogil

# Bytes moved (inputs read, result written) from which a result is written with streaming stores.
cdef Py_ssize_t stream_threshold() noexcept nogil

# A new C-contiguous array of native dtype ``descr`` (borrowed) and ``nbytes`` bytes, from the
# output pool when it is on and the array is large.  One that cannot be allocated raises
# spec.allocate's AllocationError naming the operator ``op``.
cdef object new_array(int nd, cnp.npy_intp* dims, PyObject* descr, Py_ssize_t nbytes, str op)
