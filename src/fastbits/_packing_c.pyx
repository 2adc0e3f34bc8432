# cython: language_level=3
"""The compiled pack / unpack: ONNX's packed layout of the sub-byte types at memory speed.

Same functions, signatures, results and errors as :mod:`fastbits._packing_py` (the reference).
``pack`` of a C-contiguous ndarray of a sub-byte type goes straight to the kernels; anything
else goes through ``spec.check_pack`` first, and a non-contiguous input is made contiguous.
``unpack`` of ``bytes`` or a contiguous 1-D uint8 ndarray of the right length, into a tuple of
positive ints, with a ``to`` given by code or seen before, goes straight to the kernels too; anything else goes
through ``spec.check_unpack``, which raises the errors.

The loops are C (``fastbits/_c/pack.c``), run on the runtime's threads (``parallel``).  A type whose bits are not the low bits of its byte
(float4e2m1, whose bytes with a high bit set read as negative: ``spec.subbyte_bits``) goes
through a byte map as it is packed (``fb_pack_mapped``), as do float6e2m3 and float6e3m2.  The
threads follow the grain rule with the ``grain_strided`` setting over the unpacked elements
(:mod:`fastbits._runtime`), one contiguous share of whole packed units per thread: 8 elements,
which are 4 bytes of nibbles, 2 of crumbs or 6 (two 3-byte groups) of 6-bit elements.  The
output is written with plain stores.
"""

cimport numpy as cnp
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.object cimport PyObject
from libc.stdint cimport uint8_t

import numpy as np

from . import _packing_py, spec
from ._clib cimport (
    FB_GRAIN_STRIDED, FB_MAXD, fb_config_t, fb_cpu_init, fb_pack, fb_pack_mapped, fb_packed_size, fb_published,
    fb_unpack,
)
from ._common cimport NUM_DTYPES, Entry, Types, add_ml_dtypes, entry_point, remember_to, to_code, types
from ._runtime cimport new_array, parallel, snapshot

from . import _runtime

cnp.import_array()
# the packing loops' instruction sets: the runtime's (its loops and these are compiled alike)
_features = _runtime.runtime_info()["cpu_features"]
fb_cpu_init("AVX2" in _features, "F16C" in _features)

__all__ = ["pack", "unpack"]


# unpack's fast path takes shapes of fewer elements (the spec's checks take the rest).
cdef Py_ssize_t FAST_ELEMS = (<Py_ssize_t>1) << 62
cdef const Types* T = types()   # every sub-byte type is one of ml_dtypes': in once it is imported
_UINT8 = np.dtype(np.uint8)


cdef struct Job:
    uint8_t* packed             # the packed bytes
    uint8_t* elems              # the elements, one per byte
    Py_ssize_t n                # elements
    int bits                    # 4, 2 or 6
    const uint8_t* byte_map     # pack: map the elements' bytes through this first, or NULL
    bint pack                   # 1: elems -> packed; 0: packed -> elems
    fb_config_t config          # the call's snapshot of the settings
    int nshares                 # threads (the grain rule), one contiguous share each


cdef void _run_share(void* ctx, int share, int slot) noexcept nogil:
    """Share ``share`` of the job: elements [e0, e1), e0 a multiple of 8, whose packed bytes
    start at e0 // 8 * bits (8 elements fill whole bytes, and whole 3-byte groups, at every width)."""
    cdef Job* job = <Job*>ctx
    cdef Py_ssize_t units = (job.n + 7) // 8
    cdef Py_ssize_t e0 = share * units // job.nshares * 8
    cdef Py_ssize_t e1 = min((share + 1) * units // job.nshares * 8, job.n)
    if not job.pack:
        fb_unpack(job.elems + e0, job.packed + e0 // 8 * job.bits, e1 - e0, job.bits)
    elif job.byte_map == NULL:
        fb_pack(job.packed + e0 // 8 * job.bits, job.elems + e0, e1 - e0, job.bits)
    else:
        fb_pack_mapped(job.packed + e0 // 8 * job.bits, job.elems + e0, e1 - e0, job.bits, job.byte_map)


cdef void _start(Job* job) noexcept:
    """Run the job's shares: the grain rule over its unpacked elements, 8 elements (whole packed
    bytes at every width) the smallest piece."""
    parallel(&job.config, _run_share, job, FB_GRAIN_STRIDED, job.n, (job.n + 7) // 8, &job.nshares)


cdef object _pack_fast(Entry e, PyObject** args, PyObject** options):
    """pack of a C-contiguous ndarray of a sub-byte type, once the tables are built; else None."""
    cdef int t
    if not fb_published(&T.ml_ready):  # the sub-byte types are ml_dtypes'
        return None
    x = <object>args[0]
    if cnp.PyArray_CheckExact(x) and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>x):
        t = cnp.PyArray_TYPE(<cnp.ndarray>x)
        if 0 <= t < NUM_DTYPES and T.code[t] >= 0 and T.packed_bits[T.code[t]]:
            return _pack_array(<cnp.ndarray>x, T.code[t])
    return None


cdef object _pack_slow(Entry e, PyObject** args, PyObject** options):
    x, c = spec.check_pack(<object>args[0])
    add_ml_dtypes()
    return _pack_array(_contiguous(spec.PACK, x, "a C-contiguous copy of input 'x'"), int(c))


cdef object _pack_array(cnp.ndarray X, int code):
    """The packed bytes of C-contiguous ``X`` of sub-byte type ``code``."""
    cdef cnp.npy_intp nbytes
    cdef Job job
    job.n = cnp.PyArray_SIZE(X)
    job.bits = T.packed_bits[code]
    nbytes = fb_packed_size(job.n, job.bits)
    snapshot(&job.config)
    O = new_array(&job.config, 1, &nbytes, NULL, <PyObject*>_UINT8, nbytes, spec.PACK)
    job.packed = <uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>O)
    job.elems = <uint8_t*>cnp.PyArray_DATA(X)
    job.byte_map = T.byte_map[code]
    job.pack = True
    _start(&job)
    return O


cdef object _contiguous(str op, object x, str what):
    """``x`` as a C-contiguous base-class array; a copy numpy cannot allocate is an AllocationError."""
    try:
        return np.ascontiguousarray(x)
    except MemoryError as exc:
        raise spec.out_of_memory(op, what, exc) from None


cdef inline bint _fast_dims(object shape, int* nd, cnp.npy_intp* dims, Py_ssize_t* count):
    """A tuple of positive Python ints of at most FB_MAXD axes whose product is below 2**62: True,
    with the dims and their product; else False (the checks of the spec decide)."""
    cdef Py_ssize_t n = 1, d
    cdef long long v
    cdef int ovf = 0
    if type(shape) is not tuple or len(<tuple>shape) > FB_MAXD:
        return False
    for d in range(len(<tuple>shape)):
        size = (<tuple>shape)[d]
        if type(size) is not int:
            return False
        v = PyLong_AsLongLongAndOverflow(size, &ovf)
        if ovf != 0 or v <= 0 or v > FAST_ELEMS // n:
            return False
        dims[d] = <cnp.npy_intp>v
        n *= <Py_ssize_t>v
    nd[0] = <int>len(<tuple>shape)
    count[0] = n
    return True


cdef object _unpack_fast(Entry e, PyObject** args, PyObject** options):
    """unpack of ``bytes`` or a contiguous 1-D uint8 ndarray of the right length into a tuple of
    positive ints, with a ``to`` given by code or seen before, once the tables are built; else
    None."""
    cdef int code = to_code(<object>args[1]), nd = 0
    cdef cnp.npy_intp dims[FB_MAXD]
    cdef Py_ssize_t count = 0
    if not fb_published(&T.ml_ready):
        return None
    data = <object>args[0]
    if code < 0 or not T.packed_bits[code] or not _fast_dims(<object>args[2], &nd, dims, &count):
        return None
    if type(data) is bytes and len(<bytes>data) == fb_packed_size(count, T.packed_bits[code]):
        return _unpack_into(<const uint8_t*><const char*>data, code, nd, dims, count, None)
    if (cnp.PyArray_CheckExact(data) and cnp.PyArray_TYPE(<cnp.ndarray>data) == cnp.NPY_UINT8
            and cnp.PyArray_NDIM(<cnp.ndarray>data) == 1 and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>data)
            and cnp.PyArray_SIZE(<cnp.ndarray>data) == fb_packed_size(count, T.packed_bits[code])):
        return _unpack_into(<const uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>data), code, nd, dims, count, None)
    return None


cdef object _unpack_slow(Entry e, PyObject** args, PyObject** options):
    cdef int d, nd
    cdef cnp.npy_intp dims[FB_MAXD]
    array, c, shape = spec.check_unpack(<object>args[0], <object>args[1], <object>args[2])
    add_ml_dtypes()
    remember_to(<object>args[1], int(c))
    nd = len(shape)
    total = 1
    for d in range(nd):
        dims[d] = shape[d]  # each size fits: numpy allocates the shape (spec.check_unpack)
        total *= shape[d]
    return _unpack_into(NULL, int(c), nd, dims, total, array)  # at most 8 bits per byte of data


cdef object _unpack_into(const uint8_t* packed, int code, int nd, cnp.npy_intp* dims, Py_ssize_t count,
                         object array):
    """A new array of ``dims`` (``count`` elements) of sub-byte type ``code``, unpacked from
    ``packed``, or (``packed`` NULL) from the checked 1-D uint8 ``array``."""
    cdef Job job
    snapshot(&job.config)
    O = new_array(&job.config, nd, dims, NULL, T.descr[code], count, spec.UNPACK)  # the result first, as the pure path
    if packed == NULL:
        if not cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>array):
            array = _contiguous(spec.UNPACK, array, "a contiguous copy of input 'data'")
        packed = <const uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>array)
    job.n = count
    job.packed = <uint8_t*>packed
    job.elems = <uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>O)
    job.bits = T.packed_bits[code]
    job.byte_map = NULL
    job.pack = False
    _start(&job)
    return O


# Vectorcall entry points (fastbits/_common.pyx), with the pure module's docstrings.
pack = entry_point("pack", spec.PACK, 0, _pack_fast, _pack_slow, _packing_py.pack, __name__)
unpack = entry_point("unpack", spec.UNPACK, 0, _unpack_fast, _unpack_slow, _packing_py.unpack, __name__)
