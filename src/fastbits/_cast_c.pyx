# cython: language_level=3
"""Cast and CastLike, compiled: the same functions, results and errors as
:mod:`fastbits._cast_py` (the reference).

From a type of 8 bits or fewer, a cast looks each byte up in a table of its 256 results
(FB_OP_LOOKUP), which the reference computes once per (source, target, ``saturate``,
``round_mode``) at the first call that needs it; from a wider type, the C conversions
(FB_OP_CONVERT, ``_c/convert.c``) run into every target, with each type's C number and float
format from the type tables (``_common.pxd``: ``cast_from``, ``cast_to``).  A fresh result is
laid out for ``order`` by the engine (a transposed layout moves through scratch tiles); a call
with ``out=`` runs the reference's checks around the same conversions; an input in the other
byte order is swapped by the conversions themselves (FB_OP_CONVERT's ``swap``); a subclass of
ndarray is the reference's.  The public functions are entry points of :mod:`fastbits._common`.
"""

cimport numpy as cnp
from cpython.object cimport PyObject

import numpy as np

from . import _cast_py, spec
from ._clib cimport (
    FB_OP_CONVERT, FB_OP_COPY, FB_OP_LOOKUP, FB_ORDER_A, FB_ORDER_C, FB_ORDER_F, FB_ORDER_K, fb_cast, fb_claim, fb_kernel,
    fb_publish, fb_published,
)
from ._common cimport (
    NUM_CODES, Entry, Types, add_ml_dtypes, entry_point, remember_to, to_code, type_code, types, unary_copy,
)

cnp.import_array()

__all__ = ["cast", "cast_like"]

cdef const Types* T = types()


cdef struct CastTable:
    int claimed           # a thread builds it (fb_claim: one does)
    int ready             # data, descr and width are written (fb_publish, after them)
    const void* data      # 256 results, native order
    PyObject* descr       # their dtype
    int width             # their itemsize
# by (src, dst, saturate, round mode); published through C atomics, which ThreadSanitizer sees
# (a dict's own synchronization is the uninstrumented interpreter's)
cdef CastTable CAST_TABLES[NUM_CODES][NUM_CODES][2][3]
cdef list _TABLE_ARRAYS = []          # keeps every published table alive
cdef dict _ROUND_MODES = {"up": 0, "down": 1, "nearest": 2}
cdef PyObject* _K = <PyObject*>"K"
cdef dict _ORDERS = {name: code for upper, code in (("K", FB_ORDER_K), ("C", FB_ORDER_C), ("F", FB_ORDER_F), ("A", FB_ORDER_A))
                     for name in (upper, upper.lower())}
cdef int _cast_codes(cnp.ndarray X, PyObject** options, int* src, int* order) except -2:
    """The code of the input of a call a fast path takes (a base-class ndarray of a type
    fastbits' tables hold; saturate True or False; round_mode as spelled in ROUND_MODES; no
    out; an order of ORDERS, its code in ``order``): 0, or -1 when it is the reference's."""
    saturate, mode, layout = <object>options[0], <object>options[1], <object>options[3]
    if (options[2] != <PyObject*>None or type(layout) is not str or layout not in _ORDERS
            or not (saturate is True or saturate is False) or type(mode) is not str or mode not in _ROUND_MODES):
        return -1
    order[0] = _ORDERS[layout]
    src[0] = type_code(T, cnp.PyArray_TYPE(X))
    return 0 if src[0] >= 0 else -1


cdef object _cast_fast(Entry e, PyObject** args, PyObject** options):
    cdef int dst
    x, to = <object>args[0], <object>args[1]
    if not cnp.PyArray_CheckExact(x):
        return None
    if e.opname is spec.CAST_LIKE:  # CastLike: the type of target_type, a base-class ndarray or a numpy scalar
        if cnp.PyArray_CheckExact(to):
            dst = type_code(T, cnp.PyArray_TYPE(<cnp.ndarray>to))
        elif isinstance(to, cnp.generic):
            dst = type_code(T, cnp.PyArray_DescrFromScalar(to).type_num)
        else:
            return None
    else:
        dst = to_code(to)
    return _cast_array(e, <cnp.ndarray>x, dst, options) if dst >= 0 else None


cdef object _cast_array(Entry e, cnp.ndarray X, int dst, PyObject** options, object into=None):
    cdef int src, swap, order
    cdef fb_cast c
    if _cast_codes(X, options, &src, &order) < 0:
        return None
    cdef CastTable* table
    if cnp.PyArray_ITEMSIZE(X) == 1:
        table = &CAST_TABLES[src][dst][<object>options[0] is True][<int>_ROUND_MODES[<object>options[1]]]
        if not fb_published(&table.ready):
            return None
        return unary_copy(X, fb_kernel(op=FB_OP_LOOKUP, width=table.width, in_width=1, b_width=0, swap=0, mask=0, stream=0,
                                        table=table.data), table.descr, e.opname, into, order)
    if T.cast_from[src] < 0 or T.cast_to[dst].dst < 0 or T.descr[dst] == NULL:
        return None
    swap = 0 if cnp.PyArray_ISNOTSWAPPED(X) else <int>cnp.PyArray_ITEMSIZE(X)  # read in the other byte order
    if src == dst:  # a copy, NaN payloads and all, as the reference's astype
        return unary_copy(X, fb_kernel(op=FB_OP_COPY, width=T.itemsize[dst], in_width=T.itemsize[dst], b_width=0, swap=swap,
                                        mask=0, stream=0, table=NULL), T.descr[dst], e.opname, into, order)
    c = T.cast_to[dst]
    c.src = T.cast_from[src]
    c.saturate = c.saturate and (<object>options[0] is True)
    c.round_mode = _ROUND_MODES[<object>options[1]]
    return unary_copy(X, fb_kernel(op=FB_OP_CONVERT, width=T.itemsize[dst], in_width=<int>cnp.PyArray_ITEMSIZE(X), b_width=0,
                                    swap=swap, mask=0, stream=0, table=&c), T.descr[dst], e.opname, into, order)


cdef void _build_table(CastTable* table, src, dst, bint saturate, str mode) except *:
    """The reference's results for the 256 codes of ``src``, published into ``table`` by the
    one thread that claims it (a table whose building failed stays the reference's)."""
    if not fb_claim(&table.claimed):
        return
    codes = np.arange(256, dtype=np.uint8).view(spec.numpy_dtype(src))
    result = np.ascontiguousarray(_cast_py.cast(codes, dst, saturate=saturate, round_mode=mode))
    result.flags.writeable = False
    _TABLE_ARRAYS.append(result)
    table.data = cnp.PyArray_DATA(<cnp.ndarray>result)
    table.descr = <PyObject*>cnp.PyArray_DESCR(<cnp.ndarray>result)
    table.width = <int>cnp.PyArray_ITEMSIZE(<cnp.ndarray>result)
    fb_publish(&table.ready)


cdef object _cast_slow(Entry e, PyObject** args, PyObject** options):
    """A call the fast path declines (``out=``, an order spelled otherwise than ORDERS, a one-byte
    source whose table is not built yet, a subclass): the reference's checks, ``out`` and ``order``, with the C
    conversions where they convert; and, for a one-byte source, the table of its 256 results for
    the next call (built by the reference itself, so the two cannot differ)."""
    x, to = <object>args[0], <object>args[1]
    saturate, mode = <object>options[0], <object>options[1]

    def convert(values, src, dst, saturate, round_mode, into):
        # written straight into ``into`` where it is of the native target type, aligned and
        # apart from the input; else a fresh result, which the reference's layout step copies
        cdef PyObject* plain[4]  # the checked saturate and round_mode; no out; order "K"
        if type(values) is np.ndarray:
            if into is not None and not (into.dtype == spec.numpy_dtype(dst) and into.dtype.isnative
                                         and into.flags.aligned and not np.may_share_memory(into, values)):
                into = None
            plain[0], plain[1], plain[2], plain[3] = <PyObject*>saturate, <PyObject*>round_mode, <PyObject*>None, _K
            result = _cast_array(e, <cnp.ndarray>values, int(dst), plain, into)
            if result is not None:
                return result
        return _cast_py._convert(values, src, dst, saturate, round_mode)

    result = _cast_py.run(e.opname, x, to, saturate, mode, <object>options[2], <object>options[3], convert)
    if type(x) is np.ndarray:
        if e.opname is spec.CAST_LIKE:  # the type of target_type, as the reference read it
            to = spec.as_array(e.opname, to, "target_type", spec.CAST_T).dtype
        src, dst = spec.check_cast(e.opname, x.dtype, to)
        key = (int(src), int(dst), spec.check_saturate(e.opname, saturate),
               _ROUND_MODES[spec.check_round_mode(e.opname, mode)])
        if x.dtype.itemsize == 1:
            _build_table(&CAST_TABLES[key[0]][key[1]][key[2]][key[3]], src, dst, key[2], mode)
        remember_to(to, int(dst))
        if T.ml[int(src)] or T.ml[int(dst)]:
            add_ml_dtypes()
    return result


cast = entry_point("cast", spec.CAST, 0, _cast_fast, _cast_slow, _cast_py.cast, __name__)
cast_like = entry_point("cast_like", spec.CAST_LIKE, 0, _cast_fast, _cast_slow, _cast_py.cast_like, __name__)
