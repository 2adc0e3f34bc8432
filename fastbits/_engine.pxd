# The broadcast engine's C-level interface: describe an elementwise operation over broadcast
# operands in a Plan, and run() plans the loops and runs them (on the thread team when large).
from ._clib cimport fb_kernel

cdef enum:
    MAXD = 64  # axes of a plan: numpy 2's NPY_MAXDIMS (numpy 1: 32)


cdef struct Plan:
    # filled by the caller
    fb_kernel kernel         # the operation and element width (fastbits/_c/loops.h)
    int nd                   # axes (after broadcasting: one shape for all three operands)
    Py_ssize_t n[MAXD]       # the result's shape
    Py_ssize_t s[3][MAXD]    # byte strides of out (0), a (1) and b (2); 0 on broadcast axes
    char* p[3]               # data of out, a and b (a unary op ignores b)
    # filled by the planner
    int loop                 # which loop runs it (the LOOP_* values in _engine.pyx)
    int tile_operand         # LOOP_REPEATED: the input (1 or 2) the tile stands for
    int nthreads             # threads this call uses (the grain rule), one share of units each
    Py_ssize_t nunits        # units of the loop (elements, rows, row blocks, tiles, chunks)
    bint transposed[3]       # LOOP_BLOCKED: inputs read through a transposed tile
    Py_ssize_t total         # elements of the result
    Py_ssize_t moved         # bytes it reads and writes (each input's distinct elements)
    Py_ssize_t tile_len      # LOOP_REPEATED: elements of the tile
    char* tile
    char* scratch            # LOOP_GATHERED, LOOP_BLOCKED: SCRATCH_BYTES per thread


# Plan and run ``plan`` (every check already passed; out does not overlap an input other than
# exactly).  Raises MemoryError when scratch cannot be allocated.
cdef int run(Plan* plan) except -1

# One row of ``kernel``: the entry points' loop for small contiguous calls.
cdef void run_row(const fb_kernel* kernel, char* o, const char* a, const char* b, Py_ssize_t n,
                  Py_ssize_t so, Py_ssize_t sa, Py_ssize_t sb) noexcept nogil
