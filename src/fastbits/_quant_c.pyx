# cython: language_level=3
"""QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger and QLinearMatMul, compiled: the same
functions, results and errors as :mod:`fastbits._quant_py` (the reference), on the kernels of
``_c/quant.h`` and ``_c/imatmul.h`` and the engine.

The public functions are entry points of :mod:`fastbits._common`: a fast path decided at C level
for the calls models make, and a slow path through the spec's checks (below).
"""

cimport cython
cimport numpy as cnp
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject
from libc.stdint cimport int16_t, int32_t, uint8_t
from libc.string cimport memcpy, memset

import numpy as np

from . import _quant_py, _runtime, spec
from .errors import AllocationError
from ._clib cimport (
    FB_GRAIN_CACHED, FB_GRAIN_STREAMED, FB_IMATMUL_COLS, FB_IMATMUL_ROWS, FB_MAX_THREADS, fb_cpu_init, fb_imatmul,
    fb_imatmul_block, fb_range_f32, fb_requantize,
    FB_DEQUANTIZE, FB_MAXD, FB_NUM_BF16, FB_NUM_F16, FB_NUM_F32, FB_NUM_FORMAT, FB_NUM_I8, FB_NUM_I32, FB_NUM_SMALL,
    FB_NUM_U8, FB_OP_QUANT, FB_QUANTIZE,
    fb_claim, fb_config_t, fb_engine_broadcast, fb_kernel, fb_operand, fb_plan, fb_publish, fb_published, fb_qparam,
    fb_quant,
)
from ._common cimport NPY_USERDEF, NUM_CODES, Entry, Types, add_ml_dtypes, entry_point, same_dims, type_code, types
from ._runtime cimport new_array, parallel, run, run_inline, snapshot

cnp.import_array()
# MatMulInteger's loops' instruction sets: the runtime's (its loops and these are compiled alike)
_features = _runtime.runtime_info()["cpu_features"]
fb_cpu_init("AVX2" in _features, "F16C" in _features)

__all__ = ["dequantize_linear", "dynamic_quantize_linear", "matmul_integer", "qlinear_matmul", "quantize_linear"]

cdef const Types* T = types()


# ---------------------------------------------------------------------------
# The kernels (quant.h) take the calls where float
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
cdef int CODE_FLOAT16 = spec.DataType.FLOAT16  # QuantizeLinear's other precisions the kernels take
cdef int CODE_BFLOAT16 = spec.DataType.BFLOAT16
cdef int CODE_INT32 = spec.DataType.INT32
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
        reads, writes = T.cast_from[c], T.cast_to[c].dst
        if info.kind == "integer" and info.bits <= 16:
            ZERO_BITS[c] = info.bits
            ZERO_SIGNED[c] = info.signed
            DQ_X[c] = (FB_NUM_I8 if info.signed else FB_NUM_U8) if info.bits <= 8 else reads
            DQ_XBITS[c] = info.bits if info.bits <= 8 else 0
        elif info.kind == "float" and info.bits <= 8:
            DQ_X[c] = FB_NUM_FORMAT
            DQ_WIDE[c] = info.bits == 8 and info.format.ebits == 5
        elif t == spec.DataType.INT32:
            DQ_X[c] = FB_NUM_I32
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
    it.  int32, and a float 8 type of 5 exponent bits with a nonzero zero point, take the exact
    products (quant.h: ``exact``)."""
    cdef const float* values
    if DQ_X[tx] < 0:
        return False
    memset(q, 0, sizeof(q[0]))
    q.kind = FB_DEQUANTIZE
    q.exact = DQ_X[tx] == FB_NUM_I32 or (DQ_WIDE[tx] and nonzero_zero)
    q.x = DQ_X[tx]
    q.xbits = DQ_XBITS[tx]
    if q.x == FB_NUM_FORMAT:
        values = _values_of(tx)
        if values == NULL:
            return False
        memcpy(q.value, values, sizeof(q.value))
    q.format = T.cast_to[ty]
    q.y = q.format.dst
    return True


cdef bint _quantizer(fb_quant* q, int tx, int ty, int precision, bint saturate) noexcept:
    """``q`` for QuantizeLinear of type ``tx`` into ``ty`` in ``precision``; False where the
    kernels do not take it."""
    if QL_X[tx] < 0:
        return False
    memset(q, 0, sizeof(q[0]))
    q.kind = FB_QUANTIZE
    if precision == CODE_FLOAT:
        q.precision = FB_NUM_F32
    elif precision == CODE_FLOAT16:
        q.precision = FB_NUM_F16
    elif precision == CODE_BFLOAT16:
        q.precision = FB_NUM_BF16
    elif precision == CODE_INT32:
        q.precision = FB_NUM_I32
    else:
        return False
    if q.precision == FB_NUM_F16 or q.precision == FB_NUM_BF16:
        q.precision_format = T.cast_to[precision]
        q.precision_format.saturate = 0  # beyond the largest value: an infinity
    q.x = QL_X[tx]
    q.format = T.cast_to[ty]
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


cdef object _int32_scale(object scale):
    """QuantizeLinear's scale in int32 precision, for the kernels: rounded half to even to an
    integer, whose int32 bits stand in the float32 scale's place (quant.h); None where one is
    not an int32 (a float scale beyond int32's range, NaN or infinite: the reference's)."""
    if scale.dtype == np.int32:
        return scale.view(np.float32)
    with np.errstate(all="ignore"):  # a signaling NaN's rint
        rounded = _quant_py._in_precision(scale.astype(np.float64), spec.DataType.INT32)
    if not np.all(np.abs(rounded) < 2.0**31):  # False for NaN too
        return None
    return rounded.astype(np.int32).view(np.float32)


cdef object _quant_checked(Entry e, object x, object scale, object zero, object c):
    """A call the spec's checks passed: the kernels where they take it, else the reference."""
    cdef fb_quant q
    cdef cnp.ndarray P
    cdef bint dequantize = e.op == FB_DEQUANTIZE
    cdef bint taken
    if not (x.dtype.isnative and x.flags.aligned):  # the kernels read native, aligned values
        x = x.astype(x.dtype.newbyteorder("="))
    if dequantize:
        taken = _dequantizer(&q, int(c.x), int(c.y), zero is not None and DQ_WIDE[int(c.x)] and zero.any())
    else:
        taken = _quantizer(&q, int(c.x), int(c.y), int(c.precision), c.saturate)
    kernel_scale = scale
    if taken and not dequantize and q.precision == FB_NUM_I32:
        kernel_scale = _int32_scale(scale)
        taken = kernel_scale is not None
    cdef fb_config_t config
    if taken:
        snapshot(&config)
        result = _quant_result(&config, x, int(c.y), e.opname)
        if result is not None:
            if q.exact and q.x == FB_NUM_I32 and zero is not None:  # an int32 zero point's bits (quant.h)
                zero = zero.astype(np.int32).view(np.float32)
            P = _parameters(kernel_scale, zero, c.kind, 0.0 if dequantize else -0.0)
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
    if znd >= 0 and not (znd == snd and same_dims(znd, zn, sn)):
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
    return type_code(T, t)


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
    tx = type_code(T, cnp.PyArray_TYPE(X))
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


@cython.cdivision(True)  # every operand is positive: n // (inner * length) with n > 0, j // block
cdef object _quant_small(const fb_config_t* config, fb_quant* q, cnp.ndarray X, cnp.ndarray O, int kind, int a,
                         Py_ssize_t block, const cnp.npy_intp* sdims, const char* sp, const char* zp, int znd, int tz,
                         float missing):
    """The small-call path of a C-contiguous input: one row on the caller where the grain rule
    gives it one thread, with one parameter (per tensor) or one per element (an input of at most
    STACK_PARAMS elements, each with its own scale); else the engine, on the same parameters."""
    cdef fb_qparam params[STACK_PARAMS]
    cdef Py_ssize_t n = cnp.PyArray_SIZE(X), i, o, j, m, p, inner = 1, length = 1, nblocks
    cdef Py_ssize_t pstrides[FB_MAXD]
    cdef int r = cnp.PyArray_NDIM(X), d
    cdef const cnp.npy_intp* xdims = cnp.PyArray_DIMS(X)
    cdef fb_kernel kernel = _quant_kernel(q, X, O)
    if n == 0:
        return O
    if kind == KIND_TENSOR:
        params[0].scale = (<const float*>sp)[0]
        params[0].zero = _zero_at(zp, 0, tz, missing)
    else:  # element (o, j, m) of X around the axis: the scale at (o, j // block, m), or at j
        for d in range(a + 1, r):
            inner *= xdims[d]
        length = xdims[a]
        nblocks = sdims[a] if kind == KIND_BLOCKED else length
        i = 0
        for o in range(n // (inner * length)):
            for j in range(length):
                p = (o * nblocks + j // block) * inner if kind == KIND_BLOCKED else j
                for m in range(inner):
                    params[i].scale = (<const float*>sp)[p]
                    params[i].zero = _zero_at(zp, 0 if znd <= 0 else p, tz, missing)
                    i += 1
                    if kind == KIND_BLOCKED:
                        p += 1
    if run_inline(config, &kernel, <char*>cnp.PyArray_DATA(O), <const char*>cnp.PyArray_DATA(X),
                  cnp.PyArray_ITEMSIZE(X), <const char*>params, 0 if kind == KIND_TENSOR else sizeof(fb_qparam), n):
        return O
    # the engine: one parameter, or one per element (blocks of 1 along axis 0)
    pstrides[r - 1 if r else 0] = sizeof(fb_qparam)
    for d in range(r - 2, -1, -1):
        pstrides[d] = pstrides[d + 1] * xdims[d + 1]
    return _quant_run(config, q, X, O, kind if kind == KIND_TENSOR else KIND_BLOCKED, 0, 1,
                      <const Py_ssize_t*>xdims, pstrides, <char*>params)


# ---------------------------------------------------------------------------
# DynamicQuantizeLinear: x's range (reduce.h's, on the runtime's threads, for a plain float32
# array; numpy's min and max for any other), the spec's scale and zero point from it, then
# QuantizeLinear's kernels.

cdef object _no_fast(Entry e, PyObject** args, PyObject** options):
    return None


cdef struct RangeJob:
    const float* x
    Py_ssize_t n
    float low[FB_MAX_THREADS]     # each share's least and greatest
    float high[FB_MAX_THREADS]
    fb_config_t config
    int nshares


cdef void _range_share(void* ctx, int share, int slot) noexcept nogil:
    cdef RangeJob* job = <RangeJob*>ctx
    cdef Py_ssize_t i0 = share * job.n // job.nshares, i1 = (share + 1) * job.n // job.nshares
    fb_range_f32(job.x + i0, i1 - i0, &job.low[share], &job.high[share])


cdef tuple _range(object x):
    """The least and greatest of the elements of float32 array ``x`` (C-contiguous, native,
    aligned, not empty), NaN and NaN where one is NaN."""
    cdef RangeJob job
    cdef int s
    job.x = <const float*>cnp.PyArray_DATA(<cnp.ndarray>x)
    job.n = cnp.PyArray_SIZE(<cnp.ndarray>x)
    snapshot(&job.config)
    parallel(&job.config, _range_share, &job, FB_GRAIN_STREAMED, job.n * 4, job.n, &job.nshares)
    low, high = job.low[0], job.high[0]
    for s in range(1, job.nshares):  # numpy's minimum and maximum keep a NaN
        low, high = np.minimum(low, job.low[s]), np.maximum(high, job.high[s])
    return np.float32(low), np.float32(high)


cdef object _dynamic_slow(Entry e, PyObject** args, PyObject** options):
    x = spec.check_dynamic_quantize(<object>args[0])
    if _plain_array(x) and cnp.PyArray_SIZE(<cnp.ndarray>x):
        scale, zero = spec.range_parameters(*_range(x))
    else:
        scale, zero = spec.dynamic_parameters(x)
    return quantize_linear(x, scale, zero), scale, zero


# ---------------------------------------------------------------------------
# MatMulInteger: imatmul.h's blocks of C on the runtime's threads, a block a unit.  A's rows less
# their zero points are made int16 first, an even number of columns (A is the small side of the
# products models make: M rows of activations); B is read as it is, its rows contiguous, a copy
# where they are not.

cdef struct MatmulJob:
    fb_imatmul p                 # the shapes and row strides; the data of batch 0
    const Py_ssize_t* offsets    # per batch: byte offsets of A, B, B's zero points and C
    Py_ssize_t batches, row_blocks, col_blocks
    fb_config_t config
    int nshares


cdef void _matmul_share(void* ctx, int share, int slot) noexcept nogil:
    """Share ``share`` of the job: one contiguous run of its blocks, ordered by batch, then by
    columns, then by rows (consecutive blocks read the same columns of B)."""
    cdef MatmulJob* job = <MatmulJob*>ctx
    cdef Py_ssize_t per = job.row_blocks * job.col_blocks, units = job.batches * per
    cdef Py_ssize_t u, rb, cb, m0, n0
    cdef fb_imatmul p = job.p
    cdef const Py_ssize_t* off
    for u in range(share * units // job.nshares, (share + 1) * units // job.nshares):
        off = job.offsets + 4 * (u // per)
        p.a = <const int16_t*>(<const char*>job.p.a + off[0])
        p.b = job.p.b + off[1]
        p.zb = <const int16_t*>(<const char*>job.p.zb + off[2])
        p.c = <int32_t*>(<char*>job.p.c + off[3])
        cb = u % per // job.row_blocks
        rb = u % job.row_blocks
        m0 = rb * FB_IMATMUL_ROWS
        n0 = cb * FB_IMATMUL_COLS
        fb_imatmul_block(&p, m0, min(m0 + FB_IMATMUL_ROWS, p.m), n0, min(n0 + FB_IMATMUL_COLS, p.n))


def _batch_offsets(x, tuple batch):
    """The byte offset of each matrix of ``x`` (its last two axes) in the broadcast ``batch``, in
    C order.  (No negative index here: the module is compiled without wraparound.)"""
    cdef int d, at, lead = x.ndim - 2
    offsets = np.zeros(batch, np.intp)
    for d in range(lead):
        if x.shape[d] != 1:
            at = len(batch) - lead + d
            offsets = offsets + (np.arange(batch[at], dtype=np.intp) * x.strides[d]).reshape(
                [-1 if e == at else 1 for e in range(len(batch))])
    return np.broadcast_to(offsets, batch).reshape(-1)


cdef object _matmul_checked(object a, object b, object za, object zb, tuple shape):
    """The product of a checked call (spec.check_matmul_integer's results)."""
    cdef MatmulJob job
    a2 = a if a.ndim >= 2 else a.reshape(1, a.size)
    b2 = b if b.ndim >= 2 else b.reshape(b.size, 1)
    B = b2 if b2.strides[b2.ndim - 1] == 1 else np.ascontiguousarray(b2)
    A = np.subtract(a2, 0 if za is None else za, dtype=np.int16, order="C")  # fresh, C-contiguous
    m, k, n = A.shape[A.ndim - 2], A.shape[A.ndim - 1], B.shape[B.ndim - 1]
    if k % 2:  # the kernel reads A's columns in pairs: an odd one pairs with a 0
        padded = np.zeros(A.shape[:A.ndim - 1] + (k + 1,), np.int16)
        padded[..., :k] = A
        A = padded
    zshape = (1, n) if zb is None or zb.ndim < 2 else zb.shape
    ZB = np.ascontiguousarray(np.broadcast_to(np.zeros((), np.int16) if zb is None else zb.astype(np.int16), zshape))
    batch = tuple(np.broadcast_shapes(A.shape[:A.ndim - 2], B.shape[:B.ndim - 2], ZB.shape[:ZB.ndim - 2]))
    C = np.empty(batch + (m, n), np.int32)
    if C.size == 0:
        return C.reshape(shape)
    offsets = np.ascontiguousarray(np.stack(
        [_batch_offsets(A, batch), _batch_offsets(B, batch), _batch_offsets(ZB, batch),
         np.arange(C.size // (m * n), dtype=np.intp) * (m * n * 4)], axis=1))
    job.p.a = <const int16_t*>cnp.PyArray_DATA(<cnp.ndarray>A)
    job.p.b = <const char*>cnp.PyArray_DATA(<cnp.ndarray>B)
    job.p.zb = <const int16_t*>cnp.PyArray_DATA(<cnp.ndarray>ZB)
    job.p.c = <int32_t*>cnp.PyArray_DATA(<cnp.ndarray>C)
    job.p.m, job.p.k, job.p.n = m, k, n
    job.p.lda, job.p.ldb, job.p.ldc = A.shape[A.ndim - 1], B.strides[B.ndim - 2], n
    job.p.b_signed = B.dtype == np.int8
    job.offsets = <const Py_ssize_t*>cnp.PyArray_DATA(<cnp.ndarray>offsets)
    job.batches = offsets.shape[0]
    job.row_blocks = (m + FB_IMATMUL_ROWS - 1) // FB_IMATMUL_ROWS
    job.col_blocks = (n + FB_IMATMUL_COLS - 1) // FB_IMATMUL_COLS
    snapshot(&job.config)
    # the work: one multiply-add a byte, for the grain rule
    parallel(&job.config, _matmul_share, &job, FB_GRAIN_CACHED, C.size * max(k, 1),
             job.batches * job.row_blocks * job.col_blocks, &job.nshares)
    return C.reshape(shape)


cdef object _allocating(Entry e, object compute, tuple args):
    """``compute(*args)``, numpy's MemoryError as the operator's AllocationError."""
    try:
        return compute(*args)
    except MemoryError as exc:
        if isinstance(exc, AllocationError):
            raise
        raise spec.out_of_memory(e.opname, "an array it works in", exc) from None


cdef object _matmul_slow(Entry e, PyObject** args, PyObject** options):
    return _allocating(e, _matmul_checked, spec.check_matmul_integer(<object>args[0], <object>args[1],
                                                                     <object>args[2], <object>args[3]))


# ---------------------------------------------------------------------------
# QLinearMatMul of 8-bit integers: MatMulInteger's sums, then imatmul.h's exact requantization.
# A float 8 operand or result takes the reference's exact sums and rounding.

_BYTE_INTEGERS = (np.dtype(np.int8), np.dtype(np.uint8))


def _qlinear_checked(call):
    """The result of a checked call (spec.check_qlinear_matmul's)."""
    cdef cnp.ndarray S, P, Y
    if not (call.a.dtype in _BYTE_INTEGERS and call.b.dtype in _BYTE_INTEGERS and call.y_zero.dtype in _BYTE_INTEGERS):
        return _quant_py.qlinear_product(call)
    S = _matmul_checked(call.a, call.b, call.a_zero, call.b_zero, call.shape)
    full = call.shape + ((1,) if call.b.ndim == 1 else ())  # the product's shape, of 2-D operands
    if call.a.ndim == 1:
        full = full[:len(full) - 1] + (1,) + full[len(full) - 1:]
    with np.errstate(all="ignore"):  # inf * 0 is a NaN here, as in the reference
        P = np.asarray(np.multiply(call.a_scale.astype(np.float64), call.b_scale.astype(np.float64)))  # exact: 24 + 24 bits
    if P.size != 1:
        P = np.ascontiguousarray(np.broadcast_to(P, full))
    Y = np.empty(call.shape, call.y_zero.dtype)
    low, high = spec.QUANTIZED_RANGES[spec.datatype_of(Y.dtype)]
    cdef double y_scale = float(call.y_scale)
    cdef int zero = int(call.y_zero), lo = low, hi = high
    cdef Py_ssize_t step = P.size != 1, count = cnp.PyArray_SIZE(S)
    cdef const int32_t* sp = <const int32_t*>cnp.PyArray_DATA(S)
    cdef const double* pp = <const double*>cnp.PyArray_DATA(P)
    cdef uint8_t* yp = <uint8_t*>cnp.PyArray_DATA(Y)
    with nogil:
        fb_requantize(sp, pp, step, count, y_scale, zero, lo, hi, yp)
    return Y


cdef object _qlinear_slow(Entry e, PyObject** args, PyObject** options):
    return _allocating(e, _qlinear_checked, (spec.check_qlinear_matmul(*[<object>args[i] for i in range(8)]),))


_build_quant_tables()
quantize_linear = entry_point("quantize_linear", spec.QUANTIZE, FB_QUANTIZE, _quant_fast, _quant_slow,
                              _quant_py.quantize_linear, __name__)
dequantize_linear = entry_point("dequantize_linear", spec.DEQUANTIZE, FB_DEQUANTIZE, _quant_fast, _quant_slow,
                                _quant_py.dequantize_linear, __name__)
dynamic_quantize_linear = entry_point("dynamic_quantize_linear", spec.DYNAMIC_QUANTIZE, FB_QUANTIZE, _no_fast,
                                      _dynamic_slow, _quant_py.dynamic_quantize_linear, __name__)
matmul_integer = entry_point("matmul_integer", spec.MATMUL_INTEGER, FB_QUANTIZE, _no_fast, _matmul_slow,
                             _quant_py.matmul_integer, __name__)
qlinear_matmul = entry_point("qlinear_matmul", spec.QLINEAR_MATMUL, FB_QUANTIZE, _no_fast, _qlinear_slow,
                             _quant_py.qlinear_matmul, __name__)
