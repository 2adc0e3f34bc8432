"""The facade: picks the compiled implementation or the pure-Python one, once, at import.

``FASTBITS_PURE_PYTHON=1`` in the environment forces the pure path.
:data:`BACKEND` says which path is active: ``"cython"`` or ``"python"``;
:data:`FALLBACK_REASON` says why the pure path runs when nobody asked for it.
:func:`load` gives either path as a :class:`Path` (the tests run both); :data:`active` is the
active one, whose runtime the configuration API drives (:func:`fastbits._config.bind`).

The dispatch point (:mod:`fastbits._dispatch`) stands in front of each path's operators, with
dask's adapter registered: the compiled entry points consult it themselves, for the calls
their fast path does not take; the pure path's functions get its Python gate.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Literal, NamedTuple

from . import _config, _dask, _dispatch, spec

if TYPE_CHECKING:  # the functions' types (fastbits._signatures): for checkers, not at import
    from ._signatures import (BinaryOperator, BitCastOperator, BitShiftOperator, CastLikeOperator, CastOperator,
                              DequantizeOperator, DynamicQuantizeOperator, GetNumThreads, MatMulIntegerOperator,
                              PackFunction, QLinearMatMulOperator, QuantizeOperator, SetNumThreads, UnaryOperator,
                              UnpackFunction)

__all__ = ["BACKEND", "FALLBACK_REASON", "PURE_PYTHON", "Path", "active", "bitcast", "bitshift", "bitwise_and",
           "bitwise_not", "bitwise_or", "bitwise_xor", "cast", "cast_like", "dequantize_linear",
           "dynamic_quantize_linear", "get_num_threads", "load", "matmul_integer", "pack", "qlinear_matmul",
           "quantize_linear", "set_num_threads", "unpack"]

PURE_PYTHON = os.environ.get("FASTBITS_PURE_PYTHON", "").strip() not in ("", "0")

_dispatch.register(_dask.ADAPTER)


class Path(NamedTuple):
    """One implementation: its public functions (one field for each of ``spec.FUNCTIONS``,
    which :func:`load` fills) and its runtime.  The fields' types are the functions' signatures
    (:mod:`fastbits._signatures`), written out for checkers: what a checker sees of
    ``fastbits.bitshift``; tests/test_package.py holds them to ``spec.FUNCTIONS``."""

    name: Literal["cython", "python"]  # as BACKEND says it
    bitwise_and: BinaryOperator
    bitwise_or: BinaryOperator
    bitwise_xor: BinaryOperator
    bitwise_not: UnaryOperator
    bitshift: BitShiftOperator
    bitcast: BitCastOperator
    cast: CastOperator
    cast_like: CastLikeOperator
    quantize_linear: QuantizeOperator
    dequantize_linear: DequantizeOperator
    dynamic_quantize_linear: DynamicQuantizeOperator
    matmul_integer: MatMulIntegerOperator
    qlinear_matmul: QLinearMatMulOperator
    pack: PackFunction
    unpack: UnpackFunction
    get_num_threads: GetNumThreads
    set_num_threads: SetNumThreads
    runtime: ModuleType


@functools.cache
def load(name: Literal["cython", "python"]) -> Path:
    """The path ``name`` ("cython" or "python"); ImportError where the kernels are not built or
    do not load."""
    modules: dict[str, ModuleType]  # each concern's module (spec.FUNCTIONS: concern)
    if name == "cython":
        from . import _cast_c, _ops_c, _packing_c, _quant_c, _runtime

        gate: Callable[[Any], Any] = lambda func: func  # noqa: E731 - the entry points dispatch themselves
        modules = {"ops": _ops_c, "cast": _cast_c, "quant": _quant_c, "packing": _packing_c, "runtime": _runtime}
    else:
        from . import _cast_py, _ops_py, _packing_py, _quant_py, _runtime_py

        gate = _dispatch.gate
        modules = {"ops": _ops_py, "cast": _cast_py, "quant": _quant_py, "packing": _packing_py,
                   "runtime": _runtime_py}
    functions: dict[str, Any] = {}
    for function, entry in spec.FUNCTIONS.items():
        func = getattr(modules[entry.concern], function)
        # an operator's calls on an adapter's arrays go to the adapter; the runtime's take no arrays
        functions[function] = gate(func) if entry.operands else func
    return Path(name=name, runtime=modules["runtime"], **functions)


#: None, or why the compiled kernels are not used although FASTBITS_PURE_PYTHON is unset:
#: ``"not built: ..."`` (a source checkout, a pure install) or ``"failed to load: ..."``.
FALLBACK_REASON: str | None = None

if PURE_PYTHON:
    active = load("python")
else:
    try:
        active = load("cython")
    except ImportError as exc:
        # not built: a compiled module that does not exist (a source checkout, a pure install)
        missing = isinstance(exc, ModuleNotFoundError) and (exc.name or "").startswith(f"{__package__}.")
        built = not missing and importlib.util.find_spec(f"{__package__}._runtime") is not None
        if built:
            FALLBACK_REASON = f"failed to load: {exc}"
        elif missing:
            FALLBACK_REASON = f"not built: {exc}"
        else:  # Python's words would be "partially initialized module": fastbits is importing
            FALLBACK_REASON = f"not built: no module {__package__}._runtime (the compiled kernels) is installed"
        if built:
            # built, but it does not load (a numpy it was not built for, say): say so
            import warnings

            warnings.warn(
                f"fastbits: the compiled kernels failed to load ({exc}); using the pure-Python path",
                RuntimeWarning,
                stacklevel=2,
            )
        active = load("python")
    else:
        from ._threadpool import register

        register()

_config.bind(active.runtime)
BACKEND = active.name
bitwise_and = active.bitwise_and
bitwise_or = active.bitwise_or
bitwise_xor = active.bitwise_xor
bitwise_not = active.bitwise_not
bitshift = active.bitshift
bitcast = active.bitcast
cast = active.cast
cast_like = active.cast_like
quantize_linear = active.quantize_linear
dequantize_linear = active.dequantize_linear
dynamic_quantize_linear = active.dynamic_quantize_linear
matmul_integer = active.matmul_integer
qlinear_matmul = active.qlinear_matmul
pack = active.pack
unpack = active.unpack
get_num_threads = active.get_num_threads
set_num_threads = active.set_num_threads
