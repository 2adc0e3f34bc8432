# What the compiled entry points share with the packing module: public functions that take
# CPython's vectorcall arguments and check them themselves (see _ops_c.pyx, "Entry points"),
# and the codes ``to`` arguments resolved to before.
from cpython.object cimport PyObject

# Check a call of ``function(<npositional>, /, *, keyword=...)``, raising spec.call_error's
# error for one that does not fit; the keyword's value, if given, goes to ``value``.
cdef int check_call(str function, PyObject** args, Py_ssize_t nargs, PyObject* kwnames,
                    Py_ssize_t npositional, str keyword, PyObject** value) except -1

# The public function ``name`` of ``module``, running ``call`` (a METH_FASTCALL | METH_KEYWORDS
# function), with the docstring and signature of ``reference``; ``slot`` (0..7) is its own.
cdef object entry_point(int slot, str name, void* call, object reference, str module)

# The ONNX code of a common ``to`` (an int or DataType by value, a name, type or dtype that
# resolved before), else -1; remember_to records one that spec.resolve_to resolved.
cdef int to_code(object to)
cdef int remember_to(object to, int code) except -1
