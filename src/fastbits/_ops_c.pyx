# cython: language_level=3
"""The compiled bitwise operators, BitShift and BitCast: C-level dispatch onto the broadcast engine.

Same functions, signatures, results and errors as :mod:`fastbits._ops_py` (the reference);
Cast's and CastLike's are :mod:`fastbits._cast_c`, QuantizeLinear's and DequantizeLinear's
:mod:`fastbits._quant_c`.
A call first tries a fast path decided at C level from tables prepared once at import from
:mod:`fastbits.spec` (dtype number -> ONNX type, allowed BitCast pairs).  Anything unusual
(non-ndarray operands, mismatched or unsupported dtypes, non-native byte order, an ``out`` the
fast path does not take, shapes that do not broadcast) goes the slow way, through the spec
functions: they raise the errors, so no check or message is written twice.  The kernels run
only after every check passed.

How the call runs is the engine's to decide (``fastbits/_c/engine.h``): this module takes the
call's snapshot of the settings, hands the engine its operands (pointers, shapes, strides) and
the kernel, asks it whether ``out`` can be written as it is, and runs the plan through the
runtime; fresh results come from the runtime too.  The public functions are entry points of
:mod:`fastbits._common`, which runs each one's fast path, then its slow one.
"""

cimport numpy as cnp
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memset

import sys

import numpy as np

from . import _ops_py, spec
from ._clib cimport (
    FB_MAXD, FB_OP_AND, FB_OP_COPY, FB_OP_NOT, FB_OP_OR, FB_OP_SAR, FB_OP_SHL, FB_OP_SHR, FB_OP_XOR, FB_ORDER_A,
    FB_ORDER_C, FB_ORDER_F, FB_ORDER_K, fb_config_t, fb_engine_broadcast, fb_engine_nbytes, fb_engine_row_writes_into,
    fb_engine_self_overlaps, fb_engine_writes_into, fb_kernel, fb_layout, fb_operand, fb_plan, fb_published,
)
from ._common cimport (
    NPY_USERDEF, NUM_CODES, NUM_DTYPES, Entry, Types, add_ml_dtypes, entry_point, remember_to, same_dims, to_code, types,
    unary_copy, when_ml_dtypes,
)
from ._runtime cimport new_array, run, run_inline, snapshot
from .spec import BITCAST, BITSHIFT, BITWISE_AND, BITWISE_NOT, BITWISE_OR, BITWISE_XOR

cnp.import_array()

__all__ = ["bitcast", "bitshift", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor"]


cdef extern from "numpy/arrayobject.h":
    # declared with PyObject* so that the stolen descr reference is explicit
    object PyArray_View_steals "PyArray_View"(cnp.ndarray arr, void* descr, void* subtype)


# ---------------------------------------------------------------------------
# Tables: the shared ones (_common.pxd: Types), and those of the operators alone, built from
# fastbits.spec at import (ml_dtypes' pairs at the first call that needs one of its types)

cdef enum:
    NUM_BUILTIN = 32     # builtin dtype numbers covered by the integer tables

cdef const Types* T = types()
cdef signed char INT_CODE[NUM_BUILTIN]        # dtype num -> ONNX code of an integer type (spec.INTEGER_T), or -1
cdef bint SIGNED[NUM_CODES]                   # the code is a signed integer type
cdef long long INT_MIN[NUM_CODES]             # the range a Python int operand must fit (within long long)
cdef long long INT_MAX[NUM_CODES]
cdef int SWAP_UNIT[NUM_BUILTIN]               # byte-swap unit for builtin dtype nums (0: cannot)
cdef char BITCAST_ALLOWED[NUM_CODES][NUM_CODES]  # 1 when spec.check_bitcast accepts (src, dst)
cdef char VIEW_COPIES[NUM_CODES][NUM_CODES]   # 1 when BitCast's (src, dst) cannot be a view (spec.subbyte_byte_map)
cdef bint BIG_HOST = sys.byteorder == "big"
# BITCAST_ALLOWED and VIEW_COPIES hold ml_dtypes' pairs once T.ml_ready is published (their
# hook, _allow_ml_bitcasts, runs before it): until then no fast path reads a pair of theirs,
# nor T's entries of their types (_common.pxd).
# The orders a fast path takes as they come (the literals, numpy's one-letter strings being one
# object each); any other spelling goes the slow way, where spec.check_order reads it.
cdef dict _ORDER_CODES = {"K": FB_ORDER_K, "C": FB_ORDER_C, "F": FB_ORDER_F, "A": FB_ORDER_A}
cdef PyObject* _ORDERS[4]  # the literals by code (FB_ORDER_K .. FB_ORDER_A are 0 .. 3)
cdef void _build_tables() except *:
    memset(INT_CODE, -1, sizeof(INT_CODE))  # (the tables are C globals, zero to begin with)
    for num in range(NUM_BUILTIN):
        if T.code[num] >= 0 and spec.DataType(T.code[num]) in spec.INTEGER_T:
            INT_CODE[num] = T.code[num]
    # the byte swaps of numpy's multi-byte types (their aliases, 'l' and 'q', have two numbers)
    for dt in [np.dtype(ch) for ch in np.typecodes["All"] if ch not in "OSUVMm"]:
        if 0 <= dt.num < NUM_BUILTIN and dt.itemsize > 1 and spec.datatype_of(dt) is not None:
            SWAP_UNIT[dt.num] = spec.order_unit(dt)
    for c in spec.INTEGER_T:
        SIGNED[int(c)] = spec.TYPES[c].signed
        low, high = spec.INTEGER_RANGES[c]
        INT_MIN[int(c)] = max(low, -(2**63))
        INT_MAX[int(c)] = min(high, 2**63 - 1)
    _allow_bitcasts(False)
    for name, code in _ORDER_CODES.items():
        _ORDERS[code] = <PyObject*>name
    when_ml_dtypes(_allow_ml_bitcasts)


cdef void _allow_bitcasts(bint ml) except *:
    """BITCAST_ALLOWED for the pairs spec.bitcast_allowed accepts, and VIEW_COPIES: of two of
    numpy's own types (``ml`` False) or with one of ml_dtypes' (``ml`` True; the installed
    ml_dtypes has both)."""
    for src in spec.BITCAST_T1:
        for dst in spec.DataType:
            if (src in spec.ML_TYPES or dst in spec.ML_TYPES) != ml:
                continue
            if T.descr[int(src)] != NULL and T.descr[int(dst)] != NULL and spec.bitcast_allowed(src, dst):
                BITCAST_ALLOWED[int(src)][int(dst)] = 1
                if src in spec.SUBBYTE_TYPES and spec.subbyte_byte_map(src, dst) is not None:
                    VIEW_COPIES[int(src)][int(dst)] = 1


cdef void _allow_ml_bitcasts() except *:
    _allow_bitcasts(True)


_build_tables()


# ---------------------------------------------------------------------------
# Binary integer operations: the checks of the fast path, the broadcast, out=

cdef inline int _int_code(cnp.ndarray arr) noexcept:
    """The ONNX code of a native, aligned array of an integer type, else -1."""
    cdef int t = cnp.PyArray_TYPE(arr)
    if t < 0 or t >= NUM_BUILTIN:
        return -1
    if not cnp.PyArray_ISNOTSWAPPED(arr) or not cnp.PyArray_ISALIGNED(arr):
        return -1
    return INT_CODE[t]


cdef inline void _operand(fb_operand* x, object X, char* scalar) noexcept:
    """``X`` (an ndarray, or None for the one value at ``scalar``) as the engine reads it."""
    if X is None:
        x.nd = 0
        x.n = NULL
        x.s = NULL
        x.p = scalar
    else:
        x.nd = cnp.PyArray_NDIM(<cnp.ndarray>X)
        x.n = <Py_ssize_t*>cnp.PyArray_DIMS(<cnp.ndarray>X)
        x.s = <Py_ssize_t*>cnp.PyArray_STRIDES(<cnp.ndarray>X)
        x.p = <char*>cnp.PyArray_DATA(<cnp.ndarray>X)


cdef bint _self_overlaps(cnp.ndarray out) noexcept:
    """True when ``out`` may have two indexes on one element (the engine's conservative check)."""
    cdef fb_operand o
    _operand(&o, out, NULL)
    return fb_engine_self_overlaps(&o, <int>cnp.PyArray_ITEMSIZE(out))


cdef inline bint _out_fits(object out, int code, int nd, const cnp.npy_intp* shape) noexcept:
    """``out`` is a writeable base-class ndarray of type ``code`` (native, aligned) and of
    ``shape``: what every fast path asks of it first."""
    return (cnp.PyArray_CheckExact(out) and _int_code(<cnp.ndarray>out) == code
            and cnp.PyArray_ISWRITEABLE(<cnp.ndarray>out) and cnp.PyArray_NDIM(<cnp.ndarray>out) == nd
            and same_dims(nd, cnp.PyArray_DIMS(<cnp.ndarray>out), shape))


cdef object _binary_core(int op, str opname, int code, object A, object B, char* scalar, object out, int order,
                         const fb_config_t* config):
    """``op`` of two checked operands of type ``code`` (native, aligned), broadcast, on the
    call's settings ``config``.

    ``A``/``B`` are ndarrays, or None for the scalar at ``scalar`` (BitwiseNot: ``A`` alone);
    a fresh result is laid out for ``order`` (an FB_ORDER_* code) as numpy lays out a ufunc's.
    Returns None, having written nothing, when the shapes do not broadcast or ``out`` is not
    one the engine writes as it is: the caller then goes the slow way, where the spec functions
    raise or the odd ``out`` is handled.
    """
    cdef fb_plan pl
    cdef fb_operand operands[2]
    cdef fb_operand o
    cdef int d, c_order, itemsize = T.itemsize[code]
    cdef cnp.npy_intp strides[FB_MAXD]
    cdef const Py_ssize_t* in_strides[2]
    cdef Py_ssize_t total
    _operand(&operands[0], A, scalar)
    _operand(&operands[1], B, scalar)
    if fb_engine_broadcast(&pl, operands, 1 if op == FB_OP_NOT else 2) != 0:
        return None  # the slow path raises
    total = fb_engine_nbytes(pl.nd, pl.n, itemsize)
    if total < 0:
        return None  # more bytes than an array holds: the slow path raises
    pl.config = config[0]
    pl.kernel = _integer_kernel(op, code)
    if out is None:
        in_strides[0] = pl.s[1]
        in_strides[1] = pl.s[2]
        c_order = fb_layout(order, pl.nd, pl.n, itemsize, 2, in_strides,
                            order == FB_ORDER_A and _f_contiguous(A) and _f_contiguous(B), <Py_ssize_t*>strides)
        O = new_array(config, pl.nd, <cnp.npy_intp*>pl.n, NULL if c_order else strides, T.descr[code], total, opname)
    elif not _out_fits(out, code, pl.nd, <cnp.npy_intp*>pl.n):
        return None
    elif total == 0:
        return out
    else:
        O = out
    _operand(&o, O, NULL)
    if out is not None and not fb_engine_writes_into(&pl, &o):
        return None
    for d in range(pl.nd):
        pl.s[0][d] = o.s[d]
    pl.p[0] = o.p
    run(&pl)
    return O


cdef inline bint _f_contiguous(object X) noexcept:
    """An operand order 'A' reads as Fortran-ordered: an F-contiguous ndarray, or a scalar."""
    return X is None or cnp.PyArray_IS_F_CONTIGUOUS(<cnp.ndarray>X)


cdef inline fb_kernel _integer_kernel(int op, int code) noexcept nogil:
    """The kernel of ``op`` for type ``code``: a right shift of a signed type is arithmetic; no
    byte swap, mask or map; the engine decides on streaming stores."""
    if op == FB_OP_SHR and SIGNED[code]:
        op = FB_OP_SAR
    return fb_kernel(op=op, width=T.itemsize[code], in_width=T.itemsize[code], b_width=0, swap=0, mask=0, stream=0, table=NULL)


cdef inline bint _small(int code, cnp.ndarray A, cnp.ndarray B, object out, int order) noexcept:
    """The most common call, one row with no planning where the engine gives it one thread
    (:func:`_small_row`): C-contiguous ``A`` and ``B`` of one shape, and ``out`` None (of any
    order but F: C-contiguous inputs give a C-contiguous result) or one the row writes as it is
    (see :func:`_small_out`)."""
    return (cnp.PyArray_IS_C_CONTIGUOUS(A) and cnp.PyArray_IS_C_CONTIGUOUS(B)
            and cnp.PyArray_NDIM(A) == cnp.PyArray_NDIM(B)
            and same_dims(cnp.PyArray_NDIM(A), cnp.PyArray_DIMS(A), cnp.PyArray_DIMS(B))
            and (_small_out(out, code, A, B) if out is not None else order != FB_ORDER_F))


cdef object _small_row(int op, str opname, int code, cnp.ndarray A, cnp.ndarray B, object out, int order,
                       const fb_config_t* config):
    """``op`` of ``A`` and ``B`` (BitwiseNot: ``A`` again) into ``out`` or a fresh array, as
    :func:`_small` allowed: one row on the caller where the grain rule gives it one thread,
    else planned by the engine."""
    cdef Py_ssize_t w = T.itemsize[code]
    cdef Py_ssize_t n = cnp.PyArray_SIZE(A)
    cdef fb_kernel kernel = _integer_kernel(op, code)
    if out is None:
        out = new_array(config, cnp.PyArray_NDIM(A), cnp.PyArray_DIMS(A), NULL, T.descr[code], n * w, opname)
    if run_inline(config, &kernel, <char*>cnp.PyArray_DATA(<cnp.ndarray>out), <char*>cnp.PyArray_DATA(A), w,
                  <char*>cnp.PyArray_DATA(B), w, n):
        return out
    return _binary_core(op, opname, code, A, None if op == FB_OP_NOT else B, <char*>cnp.PyArray_DATA(A), out, order,
                        config)


cdef bint _small_out(object out, int code, cnp.ndarray A, cnp.ndarray B) noexcept:
    """``out`` takes the small same-shape call of ``A`` and ``B`` as it is: a base-class
    ndarray of type ``code``, native, aligned, writeable, C-contiguous, the same shape, and each
    input the same memory or apart (else the general path sorts it out)."""
    if (not _out_fits(out, code, cnp.PyArray_NDIM(A), cnp.PyArray_DIMS(A))
            or not cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>out)):
        return False
    return fb_engine_row_writes_into(<char*>cnp.PyArray_DATA(<cnp.ndarray>out), <char*>cnp.PyArray_DATA(A),
                                     <char*>cnp.PyArray_DATA(B), cnp.PyArray_SIZE(A) * T.itemsize[code])


cdef inline bint _int_bits(object value, int code, char* buf) noexcept:
    """A Python int in the range of ``code``, stored at ``buf`` in its width; else False."""
    cdef int ovf = 0
    cdef long long v = PyLong_AsLongLongAndOverflow(value, &ovf)
    if ovf != 0 or v < INT_MIN[code] or v > INT_MAX[code]:
        return False
    if T.itemsize[code] == 4:
        (<uint32_t*>buf)[0] = <uint32_t>v
    elif T.itemsize[code] == 8:
        (<uint64_t*>buf)[0] = <uint64_t>v
    elif T.itemsize[code] == 2:
        (<uint16_t*>buf)[0] = <uint16_t>v
    else:
        (<uint8_t*>buf)[0] = <uint8_t>v
    return True


cdef object _binary(int op, str opname, object a, object b, object out, int order):
    """The fast path of a binary integer operation, decided at C level; None for a call it does
    not take."""
    cdef cnp.ndarray A, B
    cdef int ca, cb
    cdef uint64_t scalar = 0
    cdef char* buf = <char*>&scalar
    cdef fb_config_t config
    snapshot(&config)
    if cnp.PyArray_CheckExact(a):
        A = <cnp.ndarray>a
        ca = _int_code(A)
        if ca >= 0 and cnp.PyArray_CheckExact(b):
            B = <cnp.ndarray>b
            if _int_code(B) == ca:
                if _small(ca, A, B, out, order):
                    return _small_row(op, opname, ca, A, B, out, order, &config)
                return _binary_core(op, opname, ca, A, B, NULL, out, order, &config)
        elif ca >= 0 and type(b) is int and _int_bits(b, ca, buf):
            return _binary_core(op, opname, ca, A, None, buf, out, order, &config)
    elif type(a) is int and cnp.PyArray_CheckExact(b):
        B = <cnp.ndarray>b
        cb = _int_code(B)
        if cb >= 0 and _int_bits(a, cb, buf):
            return _binary_core(op, opname, cb, None, B, buf, out, order, &config)
    return None


cdef object _native_array(str op, object x):
    """``x`` as a native, aligned, base-class ndarray with the same values; a copy numpy cannot
    allocate is an AllocationError, as every allocation's."""
    if type(x) is not np.ndarray:
        x = x.view(np.ndarray)
    if not x.dtype.isnative or not x.flags.aligned:
        try:
            x = x.astype(x.dtype.newbyteorder("="), order="K")
        except MemoryError as exc:
            raise spec.out_of_memory(op, "a native-byte-order copy of an input", exc) from None
    return x


cdef bint _writes_directly(object out):
    """A checked ``out`` the kernels write as it is: a base-class ndarray, native, aligned,
    with no two indexes on one element."""
    return (type(out) is np.ndarray and out.dtype.isnative and out.flags.aligned
            and not _self_overlaps(<cnp.ndarray>out))


cdef object _binary_slow(Entry e, int op, object a, object b, object out, object order):
    """The checks of the spec, then the kernels on normalised operands (BitwiseNot: ``a`` alone,
    ``b`` ignored).  An ``out`` whose own rules numpy decides (a subclass, or two indexes on one
    element) gets the pure path's result (the entry's reference function)."""
    cdef cnp.ndarray A, B = None
    cdef bint unary = op == FB_OP_NOT
    cdef str opname = e.opname
    params = () if e.op != SHIFT else (_LEFT if op == FB_OP_SHL else _RIGHT,)
    order = spec.check_order(opname, order)
    if unary:
        a, code = spec.check_operand(opname, a)
        shape = a.shape
    else:
        a, b, code = spec.check_operands(opname, a, b)
        shape = spec.broadcast_shape(opname, a.shape, b.shape)
    operands = (a,) if unary else (a, b)
    if out is not None:
        spec.check_out(opname, out, shape, code)
    target = out
    if out is not None and not _writes_directly(out):
        if type(out) is not np.ndarray or _self_overlaps(<cnp.ndarray>out):
            return e.reference(*operands, *params, out=out, order=order)
        target = None  # non-native or unaligned out: compute, then assign by value
    A = _native_array(opname, a)
    if not unary:
        B = _native_array(opname, b)
    layout = _ORDER_CODES[order]
    cdef fb_config_t config
    snapshot(&config)
    r = _binary_core(op, opname, int(code), A, B, <char*>cnp.PyArray_DATA(A), target, layout, &config)
    if r is None:  # an input overlaps out other than element for element
        r = _binary_core(op, opname, int(code), A, B, <char*>cnp.PyArray_DATA(A), None, layout, &config)
    if r is None:  # cannot happen once the spec checks passed; stay exact anyway
        return e.reference(*operands, *params, out=out, order=order)
    if out is not None and r is not out:
        np.copyto(out, r, casting="unsafe")
        return out
    return r


cdef object _bitwise_not_fast(object x, object out, int order):
    """BitwiseNot's fast path: the binary operations', with no second operand."""
    cdef cnp.ndarray X
    cdef int code
    cdef fb_config_t config
    if cnp.PyArray_CheckExact(x) and _int_code(<cnp.ndarray>x) >= 0:
        X = <cnp.ndarray>x
        code = _int_code(X)
        snapshot(&config)
        if _small(code, X, X, out, order):
            return _small_row(FB_OP_NOT, BITWISE_NOT, code, X, X, out, order, &config)
        return _binary_core(FB_OP_NOT, BITWISE_NOT, code, X, None, NULL, out, order, &config)
    return None


# The loop of each spelling of ``direction`` seen: ONNX's two, and those spec.check_direction
# accepted since (any case, spaces around), up to a bound.  A literal "LEFT" or "RIGHT" is the
# interned object itself: an identity test finds it first.
cdef str _LEFT = "LEFT"
cdef str _RIGHT = "RIGHT"
cdef dict _SHIFT_OPS = {_LEFT: FB_OP_SHL, _RIGHT: FB_OP_SHR}


cdef int _shift_op(object direction) except -1:
    if direction is _LEFT:
        return FB_OP_SHL
    if direction is _RIGHT:
        return FB_OP_SHR
    found = _SHIFT_OPS.get(direction) if type(direction) is str else None
    if found is None:
        found = _SHIFT_OPS[spec.check_direction(direction)]
        if type(direction) is str and len(_SHIFT_OPS) < 64:
            _SHIFT_OPS[direction] = found
    return <int>found


# ---------------------------------------------------------------------------
# BitCast

cdef object _bitcast_copy(cnp.ndarray x, int src, int dst, int swap):
    """A new array of type ``dst`` with the bytes of ``x`` (of type ``src``), laid out as
    ``numpy.copy(x)`` lays out its copy, swapped by ``swap``-byte units if non-zero; a sub-byte
    element becomes its bits."""
    cdef int itemsize = <int>cnp.PyArray_ITEMSIZE(x)
    return unary_copy(x, fb_kernel(op=FB_OP_COPY, width=itemsize, in_width=itemsize, b_width=0, swap=swap, mask=T.low_bits[src],
                                    stream=0, table=T.byte_map[src]), T.descr[dst], BITCAST)


cdef object _bitcast(Entry e, PyObject** args, PyObject** options):
    """BitCast's fast path, decided at C level; None for a call it does not take."""
    cdef cnp.ndarray X
    cdef int t, src, dst
    cdef bint ml = fb_published(&T.ml_ready)
    x, to, copy = <object>args[0], <object>args[1], <object>options[0]
    if cnp.PyArray_CheckExact(x) and (copy is False or copy is True):
        X = <cnp.ndarray>x
        t = cnp.PyArray_TYPE(X)
        if 0 <= t < (NUM_DTYPES if ml else NPY_USERDEF):
            src = T.code[t]
            dst = to_code(to)
            if src >= 0 and dst >= 0 and (ml or not T.ml[dst]) and BITCAST_ALLOWED[src][dst]:
                return _bitcast_array(X, t, src, dst, copy is True)
    return None


cdef object _bitcast_array(cnp.ndarray X, int t, int src, int dst, bint copy):
    """BitCast of an ndarray (no subclass) of dtype number ``t``, the pair allowed: a view or a
    copy by the kernels, or None where the pure path reads it."""
    if cnp.PyArray_ISNOTSWAPPED(X):
        if BIG_HOST and T.order_unit[src] != T.order_unit[dst]:
            return None  # complex64 <-> a 64-bit type: swapped twice, by the pure path
        if not copy and not VIEW_COPIES[src][dst]:
            Py_INCREF(<object>T.descr[dst])  # PyArray_View steals it
            return PyArray_View_steals(X, <void*>T.descr[dst], NULL)
        return _bitcast_copy(X, src, dst, 0)
    if 0 <= t < NUM_BUILTIN and SWAP_UNIT[t]:
        # ONNX reads the bytes as little endian: a little-endian host swaps each big-endian
        # number of the source; a big-endian host has them little endian and swaps each number
        # of the target into its own order.
        return _bitcast_copy(X, src, dst, T.order_unit[dst] if BIG_HOST else SWAP_UNIT[t])
    return None


cdef object _bitcast_slow(Entry e, PyObject** args, PyObject** options):
    """The checks of the spec; remembers how ``to`` resolved; then the kernels."""
    cdef int src, dst
    to = <object>args[1]
    copy = spec.check_copy(BITCAST, <object>options[0])
    x = spec.as_array(BITCAST, <object>args[0], "input", spec.BITCAST_T1)
    s, d = spec.check_bitcast(x.dtype, to)
    src = int(s)
    dst = int(d)
    if s in spec.ML_TYPES or d in spec.ML_TYPES:
        add_ml_dtypes()
    remember_to(to, dst)
    if type(x) is not np.ndarray:
        # an ndarray subclass: its own view / copy rules apply, as on the pure path
        return _ops_py.bitcast(x, to, copy=copy)
    result = _bitcast_array(<cnp.ndarray>x, cnp.PyArray_TYPE(<cnp.ndarray>x), src, dst, copy)
    if result is not None:
        return result
    return _ops_py.bitcast(x, to, copy=copy)


# ---------------------------------------------------------------------------
# Entry points (fastbits/_common.pyx): each operator's fast path and slow path

cdef enum:
    SHIFT = -1  # the entry's op for BitShift: its direction argument gives the loop


cdef inline int _order_code(PyObject* order) noexcept:
    cdef int code
    for code in range(4):
        if order == _ORDERS[code]:
            return code
    return -1


cdef object _elementwise_fast(Entry e, PyObject** args, PyObject** options):
    cdef int op = e.op
    cdef int order = _order_code(options[1])
    if order < 0:
        return None
    if op == FB_OP_NOT:
        return _bitwise_not_fast(<object>args[0], <object>options[0], order)
    if op == SHIFT:
        op = _shift_op(<object>args[2])
    return _binary(op, e.opname, <object>args[0], <object>args[1], <object>options[0], order)


cdef object _elementwise_slow(Entry e, PyObject** args, PyObject** options):
    cdef int op = e.op
    if op == SHIFT:
        op = _shift_op(<object>args[2])
    return _binary_slow(e, op, <object>args[0], None if op == FB_OP_NOT else <object>args[1], <object>options[0],
                        <object>options[1])


bitwise_and = entry_point("bitwise_and", BITWISE_AND, FB_OP_AND, _elementwise_fast, _elementwise_slow,
                          _ops_py.bitwise_and, __name__)
bitwise_or = entry_point("bitwise_or", BITWISE_OR, FB_OP_OR, _elementwise_fast, _elementwise_slow,
                         _ops_py.bitwise_or, __name__)
bitwise_xor = entry_point("bitwise_xor", BITWISE_XOR, FB_OP_XOR, _elementwise_fast, _elementwise_slow,
                          _ops_py.bitwise_xor, __name__)
bitwise_not = entry_point("bitwise_not", BITWISE_NOT, FB_OP_NOT, _elementwise_fast, _elementwise_slow,
                          _ops_py.bitwise_not, __name__)
bitshift = entry_point("bitshift", BITSHIFT, SHIFT, _elementwise_fast, _elementwise_slow, _ops_py.bitshift,
                       __name__)
bitcast = entry_point("bitcast", BITCAST, 0, _bitcast, _bitcast_slow, _ops_py.bitcast, __name__)
