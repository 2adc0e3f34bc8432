# cython: language_level=3
"""What the compiled operator and packing modules share, written once: the type tables and
the call plumbing.

Each public function is a builtin taking CPython's vectorcall arguments (``METH_FASTCALL``),
driven by its :class:`Entry`: a right call costs a count and, with a keyword, one string
comparison; a wrong one gets the pure path's error word for word (``spec.call_error``), where
Cython's own parser would word it its own way.  A Cython ``def`` with a catch-all signature
(``*extra, **keywords``, as ``_runtime.set_num_threads`` has) words the errors alike, but
builds a tuple and a dict on every call: it made 16-element calls 1.17-1.34x slower (every
operator, ``pack`` and ``unpack``; interleaved processes, two runs of 11 and 21 rounds).  Then
the entry runs the operator's fast path, decided at C level; a call it does not take whose
operands are not all numpy arrays (or Python ints) goes to the dispatch point
(:mod:`fastbits._dispatch`), which hands it to the adapter of its arrays; the rest go the slow
way.  So the operators know nothing of dask, and a call on numpy arrays pays nothing for the
dispatch.

It also holds the type tables (``Types``) and remembers the codes that BitCast's and
unpack's ``to`` resolved to.
"""

cimport numpy as cnp
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.object cimport PyObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from libc.string cimport memset

import sys
import threading

import numpy as np

from . import spec
from ._clib cimport (
    FB_MAX_ENTRIES, FB_MAXD, FB_NUM_BF16, FB_NUM_BOOL, FB_NUM_F16, FB_NUM_F32, FB_NUM_F64, FB_NUM_FORMAT, FB_NUM_I8,
    FB_NUM_I16, FB_NUM_I32, FB_NUM_I64, FB_NUM_SMALL, FB_NUM_E8M0, FB_NUM_U8, FB_NUM_U16, FB_NUM_U32, FB_NUM_U64, FB_SPECIAL_FN,
    FB_SPECIAL_IEEE, FB_SPECIAL_NONE, FB_SPECIAL_UZ, fb_engine_broadcast, fb_entry_function, fb_entry_handler,
    FB_ORDER_K, fb_layout, fb_layout_copy, fb_operand, fb_plan, fb_publish, fb_published,
)
from ._dispatch import OPERANDS, adapter_for
from ._runtime cimport new_array, run, snapshot

cnp.import_array()


cdef extern from "Python.h":
    int METH_FASTCALL
    int METH_KEYWORDS
    object PyCFunction_NewEx(PyMethodDef* definition, PyObject* self, object module)


# ---------------------------------------------------------------------------
# The type tables

cdef Types TYPES  # zero to begin with
_HELD = []        # the dtypes and byte maps the tables point into
_ML_LOCK = threading.Lock()
cdef ml_hook _ML_HOOKS[4]  # what the modules build of their own with ml_dtypes' types (when_ml_dtypes)
cdef int _ML_NHOOKS = 0


cdef const Types* types() noexcept:
    return &TYPES


# The C side of spec.TypeInfo's c_number and FloatFormat.special: (the fb_num C reads a type
# as, the one it writes it as; -1: none); the C names of the special-value kinds.
cdef dict _C_NUMBERS = {
    "i8": (FB_NUM_I8, FB_NUM_I8), "i16": (FB_NUM_I16, FB_NUM_I16), "i32": (FB_NUM_I32, FB_NUM_I32),
    "i64": (FB_NUM_I64, FB_NUM_I64), "u8": (FB_NUM_U8, FB_NUM_U8), "u16": (FB_NUM_U16, FB_NUM_U16),
    "u32": (FB_NUM_U32, FB_NUM_U32), "u64": (FB_NUM_U64, FB_NUM_U64), "f32": (FB_NUM_F32, FB_NUM_F32),
    "f64": (FB_NUM_F64, FB_NUM_F64), "bool": (FB_NUM_BOOL, FB_NUM_BOOL), "f16": (FB_NUM_F16, FB_NUM_FORMAT),
    "bf16": (FB_NUM_BF16, FB_NUM_FORMAT), "small": (-1, FB_NUM_SMALL), "e8m0": (-1, FB_NUM_E8M0),
    None: (-1, FB_NUM_FORMAT),
}
cdef dict _SPECIALS = {"ieee": FB_SPECIAL_IEEE, "fn": FB_SPECIAL_FN, "uz": FB_SPECIAL_UZ, None: FB_SPECIAL_NONE}


cdef void _add_conversions() except *:
    """cast_from and cast_to from the type table: each type's C number, its float format (written
    by the format encoder) or its width (a 4- or 2-bit integer)."""
    cdef fb_cast c
    for code in range(NUM_CODES):
        TYPES.cast_from[code] = -1
        TYPES.cast_to[code] = fb_cast(src=-1, dst=-1, ebits=0, mbits=0, bias=0, special=0, saturate=0,
                                      signed_zero=0, bits=0, round_mode=0)
    for t, info in spec.TYPES.items():
        if info.cast_since is None:
            continue
        reads, writes = _C_NUMBERS[info.c_number]
        TYPES.cast_from[int(t)] = reads
        c = TYPES.cast_to[int(t)]
        c.dst = writes
        if writes == FB_NUM_FORMAT:
            fmt = info.format
            c.ebits, c.mbits, c.bias, c.special = fmt.ebits, fmt.mbits, fmt.bias, _SPECIALS[fmt.special]
            c.saturate, c.signed_zero = fmt.saturable, fmt.signed_zero
        elif writes == FB_NUM_SMALL:
            c.bits = info.bits
        elif writes == FB_NUM_E8M0:
            c.saturate = 1  # saturable: the call's saturate decides
        TYPES.cast_to[int(t)] = c


cdef object unary_copy(cnp.ndarray x, fb_kernel kernel, PyObject* descr, str opname, object into=None,
                       int order=FB_ORDER_K):
    """``kernel`` over ``x`` into a fresh array of ``descr`` laid out as ``x`` (numpy's order
    "K") or for ``order`` (an FB_ORDER_* code), or into ``into``: an array of x's shape, of
    ``descr``'s itemsize, aligned, writeable and apart from ``x`` (the caller's checks); returns
    the array written."""
    cdef const Py_ssize_t* x_strides = <Py_ssize_t*>cnp.PyArray_STRIDES(x)
    cdef fb_plan pl
    cdef fb_operand input
    cdef int nd = cnp.PyArray_NDIM(x), d, c_order
    cdef Py_ssize_t total = cnp.PyArray_SIZE(x)
    cdef cnp.npy_intp strides[FB_MAXD]
    snapshot(&pl.config)
    if into is not None:
        O = into
    elif order == FB_ORDER_K:
        c_order = fb_layout_copy(nd, <Py_ssize_t*>cnp.PyArray_DIMS(x), x_strides,
                                 kernel.width, cnp.PyArray_IS_C_CONTIGUOUS(x), cnp.PyArray_IS_F_CONTIGUOUS(x),
                                 <Py_ssize_t*>strides)
    else:
        c_order = fb_layout(order, nd, <Py_ssize_t*>cnp.PyArray_DIMS(x), kernel.width, 1, &x_strides,
                            cnp.PyArray_IS_F_CONTIGUOUS(x), <Py_ssize_t*>strides)
    if into is None:
        O = new_array(&pl.config, nd, cnp.PyArray_DIMS(x), NULL if c_order else strides, descr, total * kernel.width,
                      opname)
    if total == 0:
        return O
    input.nd = nd
    input.n = <Py_ssize_t*>cnp.PyArray_DIMS(x)
    input.s = <Py_ssize_t*>cnp.PyArray_STRIDES(x)
    input.p = <char*>cnp.PyArray_DATA(x)
    fb_engine_broadcast(&pl, &input, 1)
    pl.kernel = kernel
    for d in range(nd):
        pl.s[0][d] = cnp.PyArray_STRIDES(<cnp.ndarray>O)[d]
    pl.p[0] = <char*>cnp.PyArray_DATA(<cnp.ndarray>O)
    run(&pl)
    return O


cdef void _add(object c) except *:
    """Type ``c`` (a DataType whose dtype exists now) in the tables."""
    cdef int i = int(c)
    # numpy's own dtype object where it is native (numpy's builtin ones are immortal on a
    # free-threaded Python: threads making fresh results do not contend for its count)
    dt = spec.numpy_dtype(c)
    if not dt.isnative:
        dt = dt.newbyteorder("=")
    _HELD.append(dt)
    TYPES.descr[i] = <PyObject*>dt
    TYPES.itemsize[i] = dt.itemsize
    TYPES.order_unit[i] = spec.order_unit(dt)
    if (c in spec.BITCAST_T1 or c in spec.SUBBYTE_TYPES) and 0 <= dt.num < NUM_DTYPES:
        TYPES.code[dt.num] = i  # the 6-bit floats too, for pack (BitCast's tables refuse them)
    if c in spec.SUBBYTE_TYPES:
        TYPES.packed_bits[i] = spec.bit_width(c)
        table = spec.subbyte_bits(c)
        mask = (1 << spec.bit_width(c)) - 1
        if np.array_equal(table, np.arange(256) & mask):
            TYPES.low_bits[i] = mask  # the same bytes as the map, by the vectorized mask loop
        else:
            _HELD.append(table)
            TYPES.byte_map[i] = <const uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>table)


cdef int add_ml_dtypes() except -1:
    cdef int i
    if fb_published(&TYPES.ml_ready):
        return 0
    with _ML_LOCK:
        if not fb_published(&TYPES.ml_ready):
            for c in spec.ML_TYPES:
                if spec.numpy_dtype(c) is not None:
                    _add(c)
            for i in range(_ML_NHOOKS):
                _ML_HOOKS[i]()
            fb_publish(&TYPES.ml_ready)
    return 0


cdef int when_ml_dtypes(ml_hook hook) except -1:
    global _ML_NHOOKS
    with _ML_LOCK:
        if fb_published(&TYPES.ml_ready):
            hook()
        elif _ML_NHOOKS == 4:
            raise RuntimeError("fastbits._common: more than 4 modules wait for ml_dtypes' types")
        else:
            _ML_HOOKS[_ML_NHOOKS] = hook
            _ML_NHOOKS += 1
    return 0


def check_codes(codes, int size=NUM_CODES):
    """Refuse, with an ImportError, ONNX type codes that the C tables (``NUM_CODES`` entries,
    ``_common.pxd``) cannot hold: a type added to ``spec.DataType`` past them fails the import
    before anything is written, rather than writing past the arrays."""
    top = max(codes, key=int)
    if not 0 <= int(top) < size:
        raise ImportError(f"fastbits: ONNX type {top!r} has code {int(top)}, beyond the {size} codes the compiled "
                          f"tables hold; raise NUM_CODES in fastbits/_common.pxd and rebuild")


check_codes(spec.DataType)
memset(TYPES.code, -1, sizeof(TYPES.code))
_add_conversions()
for _c in spec.DataType:
    TYPES.bits[int(_c)] = spec.bit_width(_c) or 0
    TYPES.ml[int(_c)] = _c in spec.ML_TYPES
    if _c not in spec.ML_TYPES and _c != spec.DataType.STRING and spec.numpy_dtype(_c) is not None:
        _add(_c)
# numpy's aliases of a type ('l' and 'q' on Linux) have numbers of their own
# (np.long does not exist in numpy 1.24-1.26: intp and longlong name them there)
for _dt in [np.dtype(ch) for ch in np.typecodes["All"] if ch not in "OSUVMm"] + [
        np.dtype(t) for t in (np.intp, np.uintp, np.longlong, np.ulonglong)]:
    _c = spec.datatype_of(_dt)
    if _c in spec.BITCAST_T1 and 0 <= _dt.num < NUM_DTYPES:
        TYPES.code[_dt.num] = int(_c)


# ---------------------------------------------------------------------------
# The entry points

cdef class Entry:
    """The plumbing of one public function (which its builtin's C function passes to
    :func:`_call`: ``_c/entries.h``)."""

    def __repr__(self):
        return f"<fastbits entry point {self.name!r}>"


_ENTRIES = []                    # every Entry, alive for the process (entries.c borrows them)
_ENTRIES_LOCK = threading.Lock()  # two modules may be imported at once without the GIL


cdef inline bint _numpy_operand(PyObject* value) noexcept:
    """A numpy array or a Python int: an operand no adapter takes."""
    return cnp.PyArray_Check(<object>value) or type(<object>value) is int


cdef object _call(Entry self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    cdef PyObject* options[MAX_KEYWORDS]
    cdef PyObject* given[MAX_POSITIONAL]
    cdef Py_ssize_t i, j, nkw
    for j in range(self.nkeywords):
        options[j] = self.default_values[j]
    if nargs != self.npositional and not self.npositional - self.noptional <= nargs < self.npositional:
        _refuse(self, args, nargs, kwnames)
    if kwnames != NULL:
        nkw = PyTuple_GET_SIZE(<object>kwnames)
        for i in range(nkw):
            j = _slot(self, PyTuple_GET_ITEM(<object>kwnames, i))
            if j < 0:
                _refuse(self, args, nargs, kwnames)
            options[j] = args[nargs + i]
    if nargs < self.npositional:  # optional ones left out: None
        for i in range(self.npositional):
            given[i] = args[i] if i < nargs else <PyObject*>None
        args = given
    result = self.fast(self, args, options)
    if result is not None:
        return result
    return _dispatch_or_slow(self, args, nargs, kwnames, options)


cdef inline Py_ssize_t _slot(Entry self, PyObject* name) noexcept:
    """The index of keyword ``name`` among the entry's (the interned name first), else -1."""
    cdef Py_ssize_t j
    for j in range(self.nkeywords):
        if self.keyword_names[j] == name:
            return j
    for j in range(self.nkeywords):
        if <object>self.keyword_names[j] == <object>name:
            return j
    return -1


cdef object _dispatch_or_slow(Entry self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames, PyObject** options):
    """A call the fast path did not take: an adapter's, where an operand is one of its arrays;
    else the slow path's."""
    cdef Py_ssize_t i
    for i in range(self.noperands):
        if not _numpy_operand(args[i]):
            adapter = adapter_for(tuple([<object>args[k] for k in range(self.noperands)]))
            if adapter is not None:
                given = tuple([<object>args[k] for k in range(nargs)])
                names = () if kwnames == NULL else <tuple>kwnames
                chosen = {name: <object>options[_slot(self, <PyObject*>name)] for name in names}
                return adapter.call(self.name, self.function, given, chosen)
            break
    return self.slow(self, args, options)


cdef int _refuse(Entry self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames) except -1:
    """Raise spec.call_error's error for a call that does not fit the signature."""
    cdef Py_ssize_t i, nkw = 0 if kwnames == NULL else len(<tuple>kwnames)
    given = tuple([<object>args[i] for i in range(nargs)])
    unexpected = {(<tuple>kwnames)[i]: <object>args[nargs + i] for i in range(nkw)
                  if (<tuple>kwnames)[i] not in self.keywords}
    raise spec.call_error(self.name, given, unexpected)


cdef object entry_point(str name, str opname, int op, path_fn fast, path_fn slow, object reference, str module):
    cdef Entry entry = Entry.__new__(Entry)
    cdef Py_ssize_t i
    names, options = spec.SIGNATURES[name]
    entry.name = name
    entry.opname = opname
    entry.reference = reference
    entry.npositional = len(names)
    entry.noptional = spec.OPTIONAL_POSITIONAL.get(name, 0)
    if entry.npositional > MAX_POSITIONAL:
        raise ValueError(f"fastbits._common: {name} has more than {MAX_POSITIONAL} positional parameters")
    entry.noperands = OPERANDS[name]
    entry.keywords = tuple(options)
    entry.defaults = tuple(options.values())
    entry.nkeywords = len(entry.keywords)
    if entry.nkeywords > MAX_KEYWORDS:
        raise ValueError(f"fastbits._common: {name} has more than {MAX_KEYWORDS} keyword-only parameters")
    for i in range(entry.nkeywords):
        entry.keyword_names[i] = PyTuple_GET_ITEM(entry.keywords, i)
        entry.default_values[i] = PyTuple_GET_ITEM(entry.defaults, i)
    entry.op = op
    entry.fast = fast
    entry.slow = slow
    entry._texts = (name.encode(), f"{spec.signature(name)}\n--\n\n{reference.__doc__}".encode())
    entry.definition.ml_name = <bytes>entry._texts[0]
    with _ENTRIES_LOCK:
        entry.definition.ml_meth = fb_entry_function(<PyObject*>entry, <fb_entry_handler><void*>_call)
        if entry.definition.ml_meth == NULL:
            raise RuntimeError(f"fastbits._common: more than {FB_MAX_ENTRIES} public functions")
        _ENTRIES.append(entry)
    entry.definition.ml_flags = METH_FASTCALL | METH_KEYWORDS
    entry.definition.ml_doc = <bytes>entry._texts[1]
    # the module as __self__: help() shows a module's function, pickle finds it by its name
    entry.function = PyCFunction_NewEx(&entry.definition, <PyObject*>sys.modules[module], module)
    return entry.function


# ---------------------------------------------------------------------------
# The codes ``to`` resolved to

cdef object _DataType = spec.DataType
cdef tuple _TO_KINDS = (type, np.dtype)
cdef dict _TO_CACHE = {}   # resolved 'to' values (str, type, dtype) -> code: BitCast's and unpack's
cdef Py_ssize_t TO_CACHE_MAX = 256


cdef int to_code(object to):
    cdef long long v
    cdef int ovf = 0
    tt = type(to)
    if tt is int or tt is _DataType:
        v = PyLong_AsLongLongAndOverflow(to, &ovf)
        if ovf == 0 and 0 <= v < NUM_CODES:
            return <int>v
        return -1
    if tt is str or isinstance(to, _TO_KINDS):
        c = _TO_CACHE.get(to)
        if c is not None:
            return <int>c
    return -1


cdef int remember_to(object to, int code) except -1:
    if (type(to) is str or isinstance(to, _TO_KINDS)) and len(_TO_CACHE) < TO_CACHE_MAX:
        _TO_CACHE[to] = code
    return 0
