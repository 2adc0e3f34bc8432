# What the compiled operator and packing modules share (numpy.random's _common.pxd is the
# model): the type tables, the public functions' call plumbing, and the codes ``to``
# arguments resolved to.
cimport numpy as cnp
from cpython.object cimport PyObject
from libc.stdint cimport uint8_t

from ._clib cimport fb_cast, fb_kernel, fb_published


cdef enum:
    NUM_CODES = 29       # ONNX DataType codes 0..28
    NUM_DTYPES = 1024    # dtype numbers the tables cover (ml_dtypes' are user types, >= 256)


# What the kernels need of each type, built from fastbits.spec: numpy's own types at import,
# ml_dtypes' at the first call that needs one (add_ml_dtypes; importing fastbits does not
# import ml_dtypes, and an array of one of its types exists only once it is).  ml_dtypes'
# entries (``ml`` codes, and dtype numbers from NPY_USERDEF on) are read only once
# fb_published(&ml_ready) said they are in, so that a thread never reads one while another
# writes it.
cdef struct Types:
    signed char code[NUM_DTYPES]          # dtype number -> ONNX code of a type of BitCast's T1 or a sub-byte type, or -1
    int bits[NUM_CODES]                   # ONNX bit width (0: none)
    int itemsize[NUM_CODES]               # itemsize of the native dtype
    int order_unit[NUM_CODES]             # the bytes the dtype orders as one number (spec.order_unit)
    PyObject* descr[NUM_CODES]            # the native dtype (NULL: none, or ml_dtypes' not yet added)
    int packed_bits[NUM_CODES]            # the sub-byte types (ONNX's packed layout): their bits (4, 2, 6), else 0
    int low_bits[NUM_CODES]               # a sub-byte type whose bits are the low bits of its byte: their mask
    const uint8_t* byte_map[NUM_CODES]    # another sub-byte type: its byte -> bits table (spec.subbyte_bits)
    bint ml[NUM_CODES]                    # one of ml_dtypes' types (spec.ML_TYPES)
    # The C conversions' side of spec.TypeInfo (Cast, QuantizeLinear, DequantizeLinear):
    int cast_from[NUM_CODES]              # the fb_num the conversions read a type as, or -1
    fb_cast cast_to[NUM_CODES]            # the target half of an fb_cast (dst -1: none); its saturate
                                          # is 1 where the type takes it
    int ml_ready                          # ml_dtypes' types are in (fb_publish)


# The tables (filled at import of _common; read-only but for add_ml_dtypes).
cdef const Types* types() noexcept

cdef extern from "numpy/arrayobject.h":
    enum: NPY_USERDEF  # the first dtype number of a user type (ml_dtypes')


cdef inline int type_code(const Types* T, int t) noexcept:
    """The ONNX code of dtype number ``t`` in the tables ``T``, or -1 (ml_dtypes' before they are in)."""
    return T.code[t] if 0 <= t < (NUM_DTYPES if fb_published(&T.ml_ready) else NPY_USERDEF) else -1

# A new array of dtype ``descr`` (borrowed; elements of ``kernel.width`` bytes) laid out as
# ``numpy.copy(x)`` lays out its copy (``order`` FB_ORDER_K) or as numpy's iterator lays out a
# result for order C, F or A, each element ``kernel`` of ``x``'s, on the engine: BitCast's
# copies and Cast's conversions.
cdef object unary_copy(cnp.ndarray x, fb_kernel kernel, PyObject* descr, str opname, object into=*, int order=*)


cdef inline bint same_dims(int nd, const cnp.npy_intp* x, const cnp.npy_intp* y) noexcept:
    """Two shapes of ``nd`` axes are the same."""
    cdef int d
    for d in range(nd):
        if x[d] != y[d]:
            return False
    return True

# Put ml_dtypes' types in the tables (importing ml_dtypes), once, however many threads ask:
# under one lock, the types, then each hook of when_ml_dtypes, then fb_publish(&ml_ready).
cdef int add_ml_dtypes() except -1

# ``hook`` builds a module's own tables of ml_dtypes' types; it runs inside add_ml_dtypes, before
# the types are published, or here at once (under the same lock) if they already are.  A module
# registers it at import, so its tables of those types are complete wherever ml_ready is set.
ctypedef void (*ml_hook)() except *
cdef int when_ml_dtypes(ml_hook hook) except -1


cdef extern from "Python.h":
    ctypedef struct PyMethodDef:
        const char* ml_name
        void* ml_meth
        int ml_flags
        const char* ml_doc


cdef enum:
    MAX_KEYWORDS = 5     # keyword-only parameters of a public function (quantize_linear's five)
    MAX_POSITIONAL = 8   # positional parameters of a public function (qlinear_matmul)


# A public function's two paths, given its positional arguments (every one: an optional one left
# out is None, spec.OPTIONAL_POSITIONAL) and its keyword-only ones' values in spec.SIGNATURES'
# order (each its default when not given): ``fast``, decided at C
# level, returns None for a call it does not take; ``slow`` takes every call (the spec's
# checks, then the kernels).
ctypedef object (*path_fn)(Entry entry, PyObject** args, PyObject** options)


cdef class Entry:
    cdef PyMethodDef definition  # the public builtin's; its name and docstring in _texts
    cdef tuple _texts
    cdef readonly str name       # the public function's name (a key of spec.SIGNATURES)
    cdef readonly str opname     # the operator its errors name (BitwiseAnd, pack, ...)
    cdef Py_ssize_t npositional
    cdef Py_ssize_t noptional    # the last positional parameters that may be left out (None)
    cdef Py_ssize_t noperands    # the positional arguments an adapter may take (_dispatch.OPERANDS)
    cdef tuple keywords          # its keyword-only parameters' names
    cdef tuple defaults          # and their defaults
    # The same, borrowed from the two tuples, for the calls: reading an object attribute of a
    # shared object costs a reference count on it, which threads calling at once contend for.
    cdef Py_ssize_t nkeywords
    cdef PyObject* keyword_names[MAX_KEYWORDS]
    cdef PyObject* default_values[MAX_KEYWORDS]
    cdef readonly int op         # what the paths need to know of the operator (its loop)
    cdef path_fn fast
    cdef path_fn slow
    cdef object function         # the public builtin, run by an adapter on numpy blocks
    cdef readonly object reference  # the pure path's function: its docstring, and the fallback


# The public function ``name`` of ``module``: a builtin taking CPython's vectorcall arguments
# that checks them itself (spec.call_error), then runs ``fast``, else hands a call on an
# adapter's arrays to fastbits._dispatch, else runs ``slow``; with the docstring and signature
# of ``reference`` (the pure path's function, which the slow path may fall back to).
cdef object entry_point(str name, str opname, int op, path_fn fast, path_fn slow, object reference, str module)

# The ONNX code of a common ``to`` (an int or DataType by value, a name, type or dtype that
# resolved before), else -1; remember_to records one that spec.resolve_to resolved.
cdef int to_code(object to)
cdef int remember_to(object to, int code) except -1
