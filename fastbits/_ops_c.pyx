# cython: language_level=3
"""The compiled entry points: C-level dispatch onto the broadcast engine.

Same functions, signatures, results and errors as :mod:`fastbits._ops_py` (the reference).
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
from libc.string cimport memcpy, memset
from cpython.mem cimport PyMem_Free, PyMem_Malloc

import sys

import numpy as np

from . import _cast_py, _ops_py, _quant_py, spec
from .errors import AllocationError
from ._clib cimport (
    FB_MAXD, FB_NUM_BF16, FB_NUM_BOOL, FB_NUM_F16, FB_NUM_F32, FB_NUM_F64, FB_NUM_FORMAT, FB_NUM_I8, FB_NUM_I16,
    FB_NUM_I32, FB_NUM_I64, FB_NUM_SMALL, FB_NUM_U8, FB_NUM_U16, FB_NUM_U32, FB_NUM_U64, FB_OP_AND, FB_OP_CONVERT,
    FB_OP_COPY, FB_OP_LOOKUP, FB_OP_NOT, FB_OP_QUANT, FB_DEQUANTIZE, FB_QUANTIZE, FB_OP_OR, FB_OP_SAR, FB_OP_SHL, FB_OP_SHR, FB_OP_XOR,
    FB_ORDER_A, FB_ORDER_C, FB_ORDER_F, FB_ORDER_K, FB_SPECIAL_FN, FB_SPECIAL_IEEE, FB_SPECIAL_NONE, FB_SPECIAL_UZ,
    fb_cast, fb_config_t, fb_engine_broadcast, fb_engine_nbytes,
    fb_engine_row_writes_into, fb_engine_self_overlaps, fb_engine_writes_into, fb_kernel, fb_layout, fb_layout_copy,
    fb_claim, fb_operand, fb_plan, fb_publish, fb_published, fb_qparam, fb_quant,
)
from ._common cimport (
    NUM_CODES, NUM_DTYPES, Entry, Types, add_ml_dtypes, entry_point, remember_to, to_code, types, when_ml_dtypes,
)
from ._runtime cimport new_array, run, run_inline, snapshot
from .spec import BITCAST, BITSHIFT, BITWISE_AND, BITWISE_NOT, BITWISE_OR, BITWISE_XOR

cnp.import_array()

__all__ = ["bitcast", "bitshift", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "cast", "cast_like"]


cdef extern from "numpy/arrayobject.h":
    enum: NPY_USERDEF  # the first dtype number of a user type (ml_dtypes')
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
# The C side of spec.TypeInfo's c_number and FloatFormat.special: (the fb_num C reads a type
# as, the one it writes it as; -1: none); the C names of the special-value kinds.
cdef dict _C_NUMBERS = {
    "i8": (FB_NUM_I8, FB_NUM_I8), "i16": (FB_NUM_I16, FB_NUM_I16), "i32": (FB_NUM_I32, FB_NUM_I32),
    "i64": (FB_NUM_I64, FB_NUM_I64), "u8": (FB_NUM_U8, FB_NUM_U8), "u16": (FB_NUM_U16, FB_NUM_U16),
    "u32": (FB_NUM_U32, FB_NUM_U32), "u64": (FB_NUM_U64, FB_NUM_U64), "f32": (FB_NUM_F32, FB_NUM_F32),
    "f64": (FB_NUM_F64, FB_NUM_F64), "bool": (FB_NUM_BOOL, FB_NUM_BOOL), "f16": (FB_NUM_F16, FB_NUM_FORMAT),
    "bf16": (FB_NUM_BF16, FB_NUM_FORMAT), "small": (-1, FB_NUM_SMALL), None: (-1, FB_NUM_FORMAT),
}
cdef dict _SPECIALS = {"ieee": FB_SPECIAL_IEEE, "fn": FB_SPECIAL_FN, "uz": FB_SPECIAL_UZ, None: FB_SPECIAL_NONE}


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
    _build_cast_tables()
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
            and _same_dims(nd, cnp.PyArray_DIMS(<cnp.ndarray>out), shape))


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
            and _same_dims(cnp.PyArray_NDIM(A), cnp.PyArray_DIMS(A), cnp.PyArray_DIMS(B))
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


cdef inline bint _same_dims(int nd, const cnp.npy_intp* x, const cnp.npy_intp* y) noexcept:
    cdef int d
    for d in range(nd):
        if x[d] != y[d]:
            return False
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

cdef object _unary_copy(cnp.ndarray x, fb_kernel kernel, PyObject* descr, str opname):
    """A new array of dtype ``descr`` (elements of ``kernel.width`` bytes) laid out as
    ``numpy.copy(x)`` lays out its copy, each element ``kernel`` of ``x``'s, on the engine."""
    cdef fb_plan pl
    cdef fb_operand input
    cdef int nd = cnp.PyArray_NDIM(x), d, c_order
    cdef Py_ssize_t total = cnp.PyArray_SIZE(x)
    cdef cnp.npy_intp strides[FB_MAXD]
    snapshot(&pl.config)
    c_order = fb_layout_copy(nd, <Py_ssize_t*>cnp.PyArray_DIMS(x), <Py_ssize_t*>cnp.PyArray_STRIDES(x), kernel.width,
                             cnp.PyArray_IS_C_CONTIGUOUS(x), cnp.PyArray_IS_F_CONTIGUOUS(x), <Py_ssize_t*>strides)
    O = new_array(&pl.config, nd, cnp.PyArray_DIMS(x), NULL if c_order else strides, descr, total * kernel.width,
                  opname)
    if total == 0:
        return O
    _operand(&input, x, NULL)
    fb_engine_broadcast(&pl, &input, 1)
    pl.kernel = kernel
    for d in range(nd):
        pl.s[0][d] = cnp.PyArray_STRIDES(<cnp.ndarray>O)[d]
    pl.p[0] = <char*>cnp.PyArray_DATA(<cnp.ndarray>O)
    run(&pl)
    return O


cdef object _bitcast_copy(cnp.ndarray x, int src, int dst, int swap):
    """A new array of type ``dst`` with the bytes of ``x`` (of type ``src``), laid out as
    ``numpy.copy(x)`` lays out its copy, swapped by ``swap``-byte units if non-zero; a sub-byte
    element becomes its bits."""
    cdef int itemsize = <int>cnp.PyArray_ITEMSIZE(x)
    return _unary_copy(x, fb_kernel(op=FB_OP_COPY, width=itemsize, in_width=itemsize, b_width=0, swap=swap, mask=T.low_bits[src],
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
# Cast.  From a type of 8 bits or fewer, its 256 results are a table, which the engine looks
# each byte up in (FB_OP_LOOKUP); the pure reference (_cast_py) computes each table once, for
# its (source, target, saturate, round_mode), at the first call that needs it.  From a wider
# type, the C conversions (FB_OP_CONVERT, _c/convert.c) into every target but FLOAT8E8M0.  Any
# other call (a subclass, out=, another order, FLOAT8E8M0) is the reference's.

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
cdef int CAST_FROM[NUM_CODES]         # ONNX code -> the fb_num the conversions read it as, or -1
cdef fb_cast CAST_TO[NUM_CODES]       # ONNX code -> the target half of an fb_cast (dst -1: none);
                                      # its saturate is 1 where the target takes saturate


cdef void _build_cast_tables() except *:
    """CAST_FROM and CAST_TO from the type table: each type's C number, its float format (written by
    the format encoder) or its width (a 4- or 2-bit integer)."""
    cdef fb_cast c
    for code in range(NUM_CODES):
        CAST_FROM[code] = -1
        CAST_TO[code] = fb_cast(src=-1, dst=-1, ebits=0, mbits=0, bias=0, special=0, saturate=0, signed_zero=0,
                                bits=0)
    for t, info in spec.TYPES.items():
        if info.cast_since is None or info.kind == "power of two":
            continue  # FLOAT8E8M0 stays the reference's
        reads, writes = _C_NUMBERS[info.c_number]
        CAST_FROM[int(t)] = reads
        c = CAST_TO[int(t)]
        c.dst = writes
        if writes == FB_NUM_FORMAT:
            fmt = info.format
            c.ebits, c.mbits, c.bias, c.special = fmt.ebits, fmt.mbits, fmt.bias, _SPECIALS[fmt.special]
            c.saturate, c.signed_zero = fmt.saturable, fmt.signed_zero
        elif writes == FB_NUM_SMALL:
            c.bits = info.bits
        CAST_TO[int(t)] = c


cdef inline int _type_code(int t) noexcept:
    """The ONNX code of dtype number ``t`` in the tables, or -1 (ml_dtypes' before they are in)."""
    return T.code[t] if 0 <= t < (NUM_DTYPES if fb_published(&T.ml_ready) else NPY_USERDEF) else -1


cdef int _cast_codes(cnp.ndarray X, PyObject** options, int* src) except -2:
    """The code of the input of a call a fast path takes (a base-class ndarray of a type
    fastbits' tables hold; saturate True or False; round_mode as spelled in ROUND_MODES; no
    out; order "K"): 0, or -1 when it is the reference's."""
    saturate, mode = <object>options[0], <object>options[1]
    if (options[2] != <PyObject*>None or options[3] != _K or not (saturate is True or saturate is False)
            or type(mode) is not str or mode not in _ROUND_MODES):
        return -1
    src[0] = _type_code(cnp.PyArray_TYPE(X))
    return 0 if src[0] >= 0 else -1


cdef object _cast_fast(Entry e, PyObject** args, PyObject** options):
    cdef int dst
    x, to = <object>args[0], <object>args[1]
    if not cnp.PyArray_CheckExact(x):
        return None
    if e.opname is spec.CAST_LIKE:  # CastLike: the type of target_type, a base-class ndarray or a numpy scalar
        if cnp.PyArray_CheckExact(to):
            dst = _type_code(cnp.PyArray_TYPE(<cnp.ndarray>to))
        elif isinstance(to, cnp.generic):
            dst = _type_code(cnp.PyArray_DescrFromScalar(to).type_num)
        else:
            return None
    else:
        dst = to_code(to)
    return _cast_array(e, <cnp.ndarray>x, dst, options) if dst >= 0 else None


cdef object _cast_array(Entry e, cnp.ndarray X, int dst, PyObject** options):
    cdef int src
    cdef fb_cast c
    if _cast_codes(X, options, &src) < 0:
        return None
    cdef CastTable* table
    if cnp.PyArray_ITEMSIZE(X) == 1:
        table = &CAST_TABLES[src][dst][<object>options[0] is True][<int>_ROUND_MODES[<object>options[1]]]
        if not fb_published(&table.ready):
            return None
        return _unary_copy(X, fb_kernel(op=FB_OP_LOOKUP, width=table.width, in_width=1, b_width=0, swap=0, mask=0, stream=0,
                                        table=table.data), table.descr, e.opname)
    if CAST_FROM[src] < 0 or CAST_TO[dst].dst < 0 or T.descr[dst] == NULL or not cnp.PyArray_ISNOTSWAPPED(X):
        return None
    if src == dst:  # a copy, NaN payloads and all, as the reference's astype
        return _unary_copy(X, fb_kernel(op=FB_OP_COPY, width=T.itemsize[dst], in_width=T.itemsize[dst], b_width=0, swap=0, mask=0,
                                        stream=0, table=NULL), T.descr[dst], e.opname)
    c = CAST_TO[dst]
    c.src = CAST_FROM[src]
    c.saturate = c.saturate and (<object>options[0] is True)
    return _unary_copy(X, fb_kernel(op=FB_OP_CONVERT, width=T.itemsize[dst], in_width=<int>cnp.PyArray_ITEMSIZE(X), b_width=0,
                                    swap=0, mask=0, stream=0, table=&c), T.descr[dst], e.opname)


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
    """The reference's Cast; and, for a one-byte source, the table of its 256 results for the
    next call (built by the reference itself, so the two cannot differ)."""
    x, to = <object>args[0], <object>args[1]
    saturate, mode = <object>options[0], <object>options[1]
    reference = _cast_py.cast if e.opname is spec.CAST else _cast_py.cast_like
    result = reference(x, to, saturate=saturate, round_mode=mode, out=<object>options[2], order=<object>options[3])
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
cast = entry_point("cast", spec.CAST, 0, _cast_fast, _cast_slow, _cast_py.cast, __name__)
cast_like = entry_point("cast_like", spec.CAST_LIKE, 0, _cast_fast, _cast_slow, _cast_py.cast_like, __name__)


# ---------------------------------------------------------------------------
# QuantizeLinear and DequantizeLinear.  The kernels (quant.h) take the calls where float
# arithmetic is exact as the reference states it; the others are the reference's.  The fast
# path takes, at C level, the calls models make most: an ndarray input; a float32 scale (an
# ndarray or a numpy scalar), per tensor, per axis or blocked; no zero point, or one of an
# integer type; no output_dtype and no precision.  Its types are those whose call the spec's
# checks passed before (QUANT_SEEN, recorded by the slow path), its granularity the spec's rule
# read from the shapes (_granularity); any other call goes the slow way, where the spec's checks
# raise, and the reference takes what the kernels do not.

cdef enum:
    KIND_TENSOR = 0
    KIND_AXIS = 1
    KIND_BLOCKED = 2
    STACK_PARAMS = 64    # a fast call's parameters on the stack up to this many; more are allocated

# [DequantizeLinear 0, QuantizeLinear 1][x's type][the zero point's type + 1; 0: none]: a call of
# these types with a float32 scale and neither output_dtype nor precision passed the spec's
# checks (published once, as the Cast tables are)
cdef int QUANT_SEEN[2][NUM_CODES][NUM_CODES + 1]
# a one-byte float type's 256 values, for DequantizeLinear of it (from the reference, once)
cdef struct ValueTable:
    int claimed
    int ready
    float value[256]
cdef ValueTable VALUES[NUM_CODES]
cdef dict _KINDS = {"tensor": KIND_TENSOR, "axis": KIND_AXIS, "blocked": KIND_BLOCKED}
cdef int CODE_FLOAT = spec.DataType.FLOAT    # the fast path's scale; and QuantizeLinear's result
cdef int CODE_UINT8 = spec.DataType.UINT8    # without a zero point or output_dtype
# What the kernels take of the type table, by ONNX code (-1 or 0: not taken):
cdef int DQ_X[NUM_CODES]        # DequantizeLinear's input as quant.h reads it (FB_NUM_*)
cdef int DQ_XBITS[NUM_CODES]    # its bits, for a one-byte integer type
cdef bint DQ_WIDE[NUM_CODES]    # a one-byte float with an exponent of 5 bits (x - zero: a float's bits)
cdef int QL_X[NUM_CODES]        # QuantizeLinear's input as quant.h reads it
cdef int QL_Y[NUM_CODES]        # an integer result as quant.h writes it (-1: a float format)
cdef int QL_LOW[NUM_CODES]      # and its range
cdef int QL_HIGH[NUM_CODES]
cdef int ZERO_BITS[NUM_CODES]   # an integer zero point the fast path reads: its bits (16 or fewer), else 0
cdef bint ZERO_SIGNED[NUM_CODES]


cdef void _build_quant_tables() except *:
    for code in range(NUM_CODES):
        DQ_X[code] = QL_X[code] = QL_Y[code] = -1
    latest_q = spec.QUANTIZE_VERSIONS[max(spec.QUANTIZE_VERSIONS)]
    for t, info in spec.TYPES.items():
        c = int(t)
        reads, writes = _C_NUMBERS[info.c_number] if info.cast_since is not None else (-1, -1)
        if info.kind == "integer" and info.bits <= 16:
            ZERO_BITS[c] = info.bits
            ZERO_SIGNED[c] = info.signed
            DQ_X[c] = (FB_NUM_I8 if info.signed else FB_NUM_U8) if info.bits <= 8 else reads
            DQ_XBITS[c] = info.bits if info.bits <= 8 else 0
        elif info.kind == "float" and info.bits <= 8:
            DQ_X[c] = FB_NUM_FORMAT
            DQ_WIDE[c] = info.bits == 8 and info.format.ebits == 5
        if t in latest_q.x:
            QL_X[c] = reads
        if t in spec.QUANTIZED_RANGES:
            QL_LOW[c], QL_HIGH[c] = spec.QUANTIZED_RANGES[t]
            QL_Y[c] = writes


cdef const float* _values_of(int code) except? NULL:
    """The 256 values of one-byte float type ``code`` as float32 (exact), or NULL while another
    thread builds them."""
    cdef ValueTable* table = &VALUES[code]
    cdef int k
    if not fb_published(&table.ready):
        if not fb_claim(&table.claimed):
            return NULL
        codes = np.arange(256, dtype=np.uint8).view(spec.numpy_dtype(spec.DataType(code)))
        values = _quant_py._values(codes).astype(np.float32)
        for k in range(256):
            table.value[k] = values[k]
        fb_publish(&table.ready)
    return table.value


cdef int _run_part(fb_plan* pl, int nd, Py_ssize_t* xn, Py_ssize_t* xs, char* xp, int pnd, Py_ssize_t* pn,
                   Py_ssize_t* ps, char* pp, Py_ssize_t* os, char* op) except -1:
    """One engine run of the kernel ``pl`` holds: the input (nd axes), its parameters (pnd axes,
    broadcast to it) and the output."""
    cdef fb_operand operands[2]
    cdef int d
    operands[0].nd = nd
    operands[0].n = xn
    operands[0].s = xs
    operands[0].p = xp
    operands[1].nd = pnd
    operands[1].n = pn
    operands[1].s = ps
    operands[1].p = pp
    if fb_engine_broadcast(pl, operands, 2) != 0:
        raise AssertionError("QuantizeLinear/DequantizeLinear: the parameters do not broadcast")
    for d in range(nd):
        pl.s[0][d] = os[d]
    pl.p[0] = op
    return run(pl)


cdef object _quant_result(const fb_config_t* config, cnp.ndarray X, int out_code, str opname):
    """A fresh C-contiguous array of X's shape and type ``out_code``, or None where the kernels
    do not take X (more axes than the engine takes once an axis is split into blocks)."""
    if cnp.PyArray_NDIM(X) + 1 > FB_MAXD:
        return None
    if T.descr[out_code] == NULL:  # one of ml_dtypes' types, before the tables have it
        add_ml_dtypes()
        if T.descr[out_code] == NULL:
            return None
    return new_array(config, cnp.PyArray_NDIM(X), cnp.PyArray_DIMS(X), NULL, T.descr[out_code],
                     cnp.PyArray_SIZE(X) * T.itemsize[out_code], opname)


cdef object _quant_run(const fb_config_t* config, fb_quant* q, cnp.ndarray X, cnp.ndarray O, int kind, int a,
                       Py_ssize_t block, const Py_ssize_t* pdims, const Py_ssize_t* pstrides, char* pp):
    """``q`` over ``X`` into ``O`` (from :func:`_quant_result`) on the engine, with the parameters
    at ``pp`` (fb_qparam elements: one for KIND_TENSOR, one per element of axis ``a`` for
    KIND_AXIS at stride ``pstrides[0]``, X's rank of axes of ``pdims`` and ``pstrides`` for
    KIND_BLOCKED, blocks of ``block`` along ``a``); returns O."""
    cdef int r = cnp.PyArray_NDIM(X), d, j
    cdef Py_ssize_t length, full, rest
    cdef Py_ssize_t xn[FB_MAXD], xs[FB_MAXD], pn[FB_MAXD], ps[FB_MAXD], os[FB_MAXD]
    cdef Py_ssize_t* xdims = <Py_ssize_t*>cnp.PyArray_DIMS(X)
    cdef Py_ssize_t* xstr = <Py_ssize_t*>cnp.PyArray_STRIDES(X)
    cdef Py_ssize_t* ostr
    cdef char* xp = <char*>cnp.PyArray_DATA(X)
    cdef char* op
    cdef fb_plan pl
    pl.config = config[0]
    if cnp.PyArray_SIZE(X) == 0:
        return O
    ostr = <Py_ssize_t*>cnp.PyArray_STRIDES(<cnp.ndarray>O)
    op = <char*>cnp.PyArray_DATA(<cnp.ndarray>O)
    pl.kernel = _quant_kernel(q, X, O)
    if kind != KIND_BLOCKED:  # one scale, or one per element of the axis
        for d in range(r):
            pn[d] = 1
            ps[d] = 0
        if kind == KIND_AXIS:
            pn[a] = xdims[a]
            ps[a] = pstrides[0]
        _run_part(&pl, r, xdims, xstr, xp, r if kind == KIND_AXIS else 0, pn, ps, pp, ostr, op)
        return O
    # blocked: the axis split into (blocks, block), the parameters' block axis of stride 0; the
    # last, shorter block (when block does not divide the axis) a second run
    length = xdims[a]
    full = length // block
    rest = length - full * block
    for d in range(r + 1):
        j = d if d <= a else d - 1
        xn[d] = xdims[j]
        xs[d] = xstr[j]
        os[d] = ostr[j]
        pn[d] = pdims[j]
        ps[d] = pstrides[j]
    xs[a] = xstr[a] * block
    os[a] = ostr[a] * block
    pn[a + 1] = 1
    ps[a + 1] = 0
    if full:
        xn[a] = pn[a] = full
        xn[a + 1] = block
        _run_part(&pl, r + 1, xn, xs, xp, r + 1, pn, ps, pp, os, op)
    if rest:
        xn[a] = pn[a] = 1
        xn[a + 1] = rest
        _run_part(&pl, r + 1, xn, xs, xp + full * block * xstr[a], r + 1, pn, ps, pp + full * ps[a], os,
                  op + full * block * ostr[a])
    return O


cdef inline fb_kernel _quant_kernel(fb_quant* q, cnp.ndarray X, cnp.ndarray O) noexcept:
    return fb_kernel(op=FB_OP_QUANT, width=<int>cnp.PyArray_ITEMSIZE(O), in_width=<int>cnp.PyArray_ITEMSIZE(X),
                     b_width=sizeof(fb_qparam), swap=0, mask=0, stream=0, table=q)


cdef bint _dequantizer(fb_quant* q, int tx, int ty, bint nonzero_zero) except -1:
    """``q`` for DequantizeLinear of type ``tx`` into ``ty``; False where the kernels do not take
    it (int32, and a float's bits minus a zero point: the reference's)."""
    cdef const float* values
    if DQ_X[tx] < 0 or (DQ_WIDE[tx] and nonzero_zero):
        return False
    memset(q, 0, sizeof(q[0]))
    q.kind = FB_DEQUANTIZE
    q.x = DQ_X[tx]
    q.xbits = DQ_XBITS[tx]
    if q.x == FB_NUM_FORMAT:
        values = _values_of(tx)
        if values == NULL:
            return False
        memcpy(q.value, values, sizeof(q.value))
    q.format = CAST_TO[ty]
    q.y = q.format.dst
    return True


cdef bint _quantizer(fb_quant* q, int tx, int ty, int precision, bint saturate) noexcept:
    """``q`` for QuantizeLinear of type ``tx`` into ``ty`` in ``precision``; False where the
    kernels do not take it (another precision than float32: the reference's)."""
    if QL_X[tx] < 0 or precision != CODE_FLOAT:
        return False
    memset(q, 0, sizeof(q[0]))
    q.kind = FB_QUANTIZE
    q.x = QL_X[tx]
    q.format = CAST_TO[ty]
    if QL_Y[ty] >= 0:
        q.low, q.high, q.y = QL_LOW[ty], QL_HIGH[ty], QL_Y[ty]
    else:
        q.y = FB_NUM_FORMAT
        q.format.saturate = q.format.saturate and saturate
    return True


cdef object _parameters(object scale, object zero, str kind, float missing):
    """The scale-shaped array of fb_qparam (two float32 each: the scale, the zero point or
    ``missing``); 0-d for one scale.  Every value the kernels take is a float32 exactly."""
    shape = () if kind == "tensor" else scale.shape
    halves = np.empty(shape + (2,), np.float32)
    with np.errstate(all="ignore"):  # a signaling NaN is a NaN
        halves[..., 0] = scale.reshape(shape).astype(np.float32)
        halves[..., 1] = missing if zero is None else zero.reshape(shape).astype(np.float32)
    return halves.view(np.complex64).reshape(shape)


cdef object _quant_checked(Entry e, object x, object scale, object zero, object c):
    """A call the spec's checks passed: the kernels where they take it, else the reference."""
    cdef fb_quant q
    cdef cnp.ndarray P
    cdef bint dequantize = e.op == FB_DEQUANTIZE
    cdef bint taken
    if not (x.dtype.isnative and x.flags.aligned):
        taken = False
    elif dequantize:
        taken = _dequantizer(&q, int(c.x), int(c.y), zero is not None and DQ_WIDE[int(c.x)] and zero.any())
    else:
        taken = _quantizer(&q, int(c.x), int(c.y), int(c.precision), c.saturate)
    cdef fb_config_t config
    if taken:
        snapshot(&config)
        result = _quant_result(&config, x, int(c.y), e.opname)
        if result is not None:
            P = _parameters(scale, zero, c.kind, 0.0 if dequantize else -0.0)
            return _quant_run(&config, &q, x, result, _KINDS[c.kind], c.axis, c.block,
                              <Py_ssize_t*>cnp.PyArray_DIMS(P), <Py_ssize_t*>cnp.PyArray_STRIDES(P),
                              <char*>cnp.PyArray_DATA(P))
    return _quant_py.dequantize(x, scale, zero, c) if dequantize else _quant_py.quantize(x, scale, zero, c)


cdef object _quant_slow(Entry e, PyObject** args, PyObject** options):
    """The spec's checks, then the kernels or the reference; a call of the types the fast path
    reads is recorded for it."""
    x, scale, zero = <object>args[0], <object>args[1], <object>args[2]
    cdef bint dequantize = e.op == FB_DEQUANTIZE
    try:
        if dequantize:
            x, scale, zero, c = spec.check_dequantize(x, scale, zero, <object>options[0], <object>options[1],
                                                      <object>options[2])
        else:
            x, scale, zero, c = spec.check_quantize(x, scale, zero, <object>options[0], <object>options[1],
                                                    <object>options[2], <object>options[3], <object>options[4])
        result = _quant_checked(e, x, scale, zero, c)
    except MemoryError as exc:
        if isinstance(exc, AllocationError):
            raise
        raise spec.out_of_memory(e.opname, "an array it works in", exc) from None
    if (c.scale == spec.DataType.FLOAT and <object>options[2] is None
            and (dequantize or <object>options[4] is None)):
        fb_publish(&QUANT_SEEN[not dequantize][int(c.x)][0 if zero is None else int(c.y if not dequantize else c.x) + 1])
    return result


cdef int _granularity(int xnd, const cnp.npy_intp* xn, int snd, const cnp.npy_intp* sn, int znd,
                      const cnp.npy_intp* zn, long long axis, long long block, int* axis_out) noexcept:
    """The spec's granularity rule (``spec.quantize._granularity``) for the shapes it accepts:
    the kind (KIND_*) and, through ``axis_out``, the axis; -1 for any call it may refuse (the
    slow path's checks then say why).  ``znd`` is -1 for no zero point."""
    cdef bint per_tensor = snd == 0 or (snd == 1 and sn[0] == 1 and block == 0)
    cdef int d
    cdef long long a
    cdef Py_ssize_t zsize = 1
    if block < 0:
        return -1
    if znd >= 0 and not (znd == snd and _same_dims(znd, zn, sn)):
        for d in range(znd):
            zsize *= zn[d]
        if not (per_tensor and znd <= 1 and zsize == 1):
            return -1
    if per_tensor:
        axis_out[0] = 0
        return -1 if block else KIND_TENSOR
    if not -xnd <= axis < xnd:
        return -1
    a = axis + xnd if axis < 0 else axis
    axis_out[0] = <int>a
    if block == 0:
        return KIND_AXIS if snd == 1 and sn[0] == xn[a] else -1
    if snd != xnd:
        return -1
    for d in range(xnd):
        if sn[d] != ((xn[d] + block - 1) // block if d == a else xn[d]):
            return -1
    return KIND_BLOCKED


cdef inline bint _plain_array(object v) noexcept:
    """A base-class ndarray, native, aligned and C-contiguous: one the fast path reads directly."""
    return (cnp.PyArray_CheckExact(v) and cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>v)
            and cnp.PyArray_ISALIGNED(<cnp.ndarray>v) and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>v))


cdef int _operand_code(object v, const char** data, char* scalar, int* nd, const cnp.npy_intp** dims) except -2:
    """The ONNX code of a fast path's scale or zero point (a plain ndarray, or a scalar of one
    of numpy's own types, whose value is copied to ``scalar``), with its data, rank and shape;
    -1 for any other."""
    cdef int t
    if _plain_array(v):
        t = cnp.PyArray_TYPE(<cnp.ndarray>v)
        data[0] = <const char*>cnp.PyArray_DATA(<cnp.ndarray>v)
        nd[0] = cnp.PyArray_NDIM(<cnp.ndarray>v)
        dims[0] = cnp.PyArray_DIMS(<cnp.ndarray>v)
    elif isinstance(v, cnp.generic):  # numpy's own scalar types (PyArray_ScalarAsCtype reads those)
        descr = cnp.PyArray_DescrFromScalar(v)
        t = descr.type_num
        if not 0 <= t < NPY_USERDEF or T.code[t] < 0 or descr.itemsize > 8:
            return -1
        cnp.PyArray_ScalarAsCtype(v, scalar)
        data[0] = scalar
        nd[0] = 0
        dims[0] = NULL
        return T.code[t]
    else:
        return -1
    if not 0 <= t < (NUM_DTYPES if fb_published(&T.ml_ready) else NPY_USERDEF):
        return -1
    return T.code[t]


cdef inline float _integer_value(const char* p, int code) noexcept:
    """An element of integer type ``code`` (ZERO_BITS: 16 or 8 bits, or the low 4 or 2 bits of a
    byte) as a float, exactly."""
    cdef int bits = ZERO_BITS[code], v
    if bits == 16:
        return <float>(<const cnp.int16_t*>p)[0] if ZERO_SIGNED[code] else <float>(<const cnp.uint16_t*>p)[0]
    v = (<const unsigned char*>p)[0] & ((1 << bits) - 1)
    if ZERO_SIGNED[code] and v >= (1 << (bits - 1)):
        v -= 1 << bits
    return <float>v


cdef object _quant_fast(Entry e, PyObject** args, PyObject** options):
    """The calls models make most, decided at C level (above); None for any other."""
    cdef cnp.ndarray X
    cdef int tx, ts, tz = -1, ty, kind, a = 0, snd, znd = -1, t, k
    cdef bint dequantize = e.op == FB_DEQUANTIZE, saturate = True
    cdef const char* sp
    cdef const char* zp = NULL
    cdef const cnp.npy_intp* sdims
    cdef const cnp.npy_intp* zdims = NULL
    cdef char sbuf[8]
    cdef char zbuf[8]
    cdef long long axis, block
    cdef int ovf = 0
    cdef Py_ssize_t count = 1, strides[FB_MAXD]
    cdef fb_quant q
    cdef fb_config_t config
    cdef fb_qparam stack[STACK_PARAMS]
    cdef fb_qparam* params
    x, scale, zero = <object>args[0], <object>args[1], <object>args[2]
    if <object>options[2] is not None or type(<object>options[0]) is not int or type(<object>options[1]) is not int:
        return None
    if not dequantize:
        if <object>options[4] is not None or not (<object>options[3] is True or <object>options[3] is False):
            return None
        saturate = <object>options[3] is True
    if not cnp.PyArray_CheckExact(x) or not cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>x) \
            or not cnp.PyArray_ISALIGNED(<cnp.ndarray>x):
        return None
    X = <cnp.ndarray>x
    t = cnp.PyArray_TYPE(X)
    if not 0 <= t < (NUM_DTYPES if fb_published(&T.ml_ready) else NPY_USERDEF):
        return None
    tx = T.code[t]
    if tx < 0 or _operand_code(scale, &sp, sbuf, &snd, &sdims) != CODE_FLOAT:
        return None
    if zero is not None:
        tz = _operand_code(zero, &zp, zbuf, &znd, &zdims)
        if tz < 0 or ZERO_BITS[tz] == 0:  # a zero point of an integer type of 16 bits or fewer
            return None
    if not fb_published(&QUANT_SEEN[not dequantize][tx][tz + 1]):
        return None
    axis = PyLong_AsLongLongAndOverflow(<object>options[0], &ovf)
    if ovf:
        return None
    block = PyLong_AsLongLongAndOverflow(<object>options[1], &ovf)
    if ovf:
        return None
    kind = _granularity(cnp.PyArray_NDIM(X), cnp.PyArray_DIMS(X), snd, sdims, znd, zdims, axis, block, &a)
    if kind < 0:
        return None
    if dequantize:
        ty = CODE_FLOAT
        if not _dequantizer(&q, tx, ty, False):
            return None
    else:
        ty = tz if tz >= 0 else CODE_UINT8
        if not _quantizer(&q, tx, ty, CODE_FLOAT, saturate):
            return None
    snapshot(&config)
    O = _quant_result(&config, X, ty, e.opname)
    if O is None:
        return None
    if cnp.PyArray_IS_C_CONTIGUOUS(X) and (kind == KIND_TENSOR or cnp.PyArray_SIZE(X) <= STACK_PARAMS):
        return _quant_small(&config, &q, X, O, kind, a, <Py_ssize_t>block, sdims, sp, zp, znd, tz,
                            0.0 if dequantize else -0.0)
    # the parameters: one per scale, C-contiguous in the scale's shape (one for KIND_TENSOR)
    if kind != KIND_TENSOR:
        for k in range(snd):
            count *= sdims[k]
    params = &stack[0]
    if count > STACK_PARAMS:
        params = <fb_qparam*>PyMem_Malloc(count * sizeof(fb_qparam))
    if params == NULL:
        raise spec.out_of_memory(e.opname, "its parameters", MemoryError())
    try:
        for k in range(count):
            params[k].scale = (<const float*>sp)[k]
            params[k].zero = _zero_at(zp, 0 if znd <= 0 or kind == KIND_TENSOR else k, tz,
                                      0.0 if dequantize else -0.0)
        strides[0] = sizeof(fb_qparam)
        if kind == KIND_BLOCKED:
            strides[snd - 1] = sizeof(fb_qparam)
            for k in range(snd - 2, -1, -1):
                strides[k] = strides[k + 1] * sdims[k + 1]
        return _quant_run(&config, &q, X, O, kind, a, <Py_ssize_t>block, <const Py_ssize_t*>sdims, strides,
                          <char*>params)
    finally:
        if params != &stack[0]:
            PyMem_Free(params)


cdef inline float _zero_at(const char* zp, Py_ssize_t k, int tz, float missing) noexcept:
    """The fast path's zero point ``k`` (an integer of type ``tz``), or ``missing``."""
    return missing if zp == NULL else _integer_value(zp + k * T.itemsize[tz], tz)


cdef object _quant_small(const fb_config_t* config, fb_quant* q, cnp.ndarray X, cnp.ndarray O, int kind, int a,
                         Py_ssize_t block, const cnp.npy_intp* sdims, const char* sp, const char* zp, int znd, int tz,
                         float missing):
    """The small-call path of a C-contiguous input: one row on the caller where the grain rule
    gives it one thread, with one parameter (per tensor) or one per element (an input of at most
    STACK_PARAMS elements, each with its own scale); else the engine, on the same parameters."""
    cdef fb_qparam params[STACK_PARAMS]
    cdef Py_ssize_t n = cnp.PyArray_SIZE(X), i, p, inner = 1, length = 1, nblocks
    cdef Py_ssize_t pstrides[FB_MAXD]
    cdef int r = cnp.PyArray_NDIM(X), d
    cdef const cnp.npy_intp* xdims = cnp.PyArray_DIMS(X)
    cdef fb_kernel kernel = _quant_kernel(q, X, O)
    if n == 0:
        return O
    if kind == KIND_TENSOR:
        params[0].scale = (<const float*>sp)[0]
        params[0].zero = _zero_at(zp, 0, tz, missing)
    else:  # element i of X: the scale at (outer, i along the axis // block, inner)
        for d in range(a + 1, r):
            inner *= xdims[d]
        length = xdims[a]
        nblocks = sdims[a] if kind == KIND_BLOCKED else length
        for i in range(n):
            p = (i // inner) % length
            if kind == KIND_BLOCKED:
                p = (i // (inner * length) * nblocks + p // block) * inner + i % inner
            params[i].scale = (<const float*>sp)[p]
            params[i].zero = _zero_at(zp, 0 if znd <= 0 else p, tz, missing)
    if run_inline(config, &kernel, <char*>cnp.PyArray_DATA(O), <const char*>cnp.PyArray_DATA(X),
                  cnp.PyArray_ITEMSIZE(X), <const char*>params, 0 if kind == KIND_TENSOR else sizeof(fb_qparam), n):
        return O
    # the engine: one parameter, or one per element (blocks of 1 along axis 0)
    pstrides[r - 1 if r else 0] = sizeof(fb_qparam)
    for d in range(r - 2, -1, -1):
        pstrides[d] = pstrides[d + 1] * xdims[d + 1]
    return _quant_run(config, q, X, O, kind if kind == KIND_TENSOR else KIND_BLOCKED, 0, 1,
                      <const Py_ssize_t*>xdims, pstrides, <char*>params)


_build_quant_tables()
quantize_linear = entry_point("quantize_linear", spec.QUANTIZE, FB_QUANTIZE, _quant_fast, _quant_slow,
                              _quant_py.quantize_linear, __name__)
dequantize_linear = entry_point("dequantize_linear", spec.DEQUANTIZE, FB_DEQUANTIZE, _quant_fast, _quant_slow,
                                _quant_py.dequantize_linear, __name__)
