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
from typing import Any, Callable, NamedTuple

from . import _config, _dask, _dispatch

__all__ = ["BACKEND", "FALLBACK_REASON", "PURE_PYTHON", "Path", "active", "bitcast", "bitshift", "bitwise_and",
           "bitwise_not", "bitwise_or", "bitwise_xor", "cast", "cast_like", "dequantize_linear", "get_num_threads",
           "load", "pack", "quantize_linear", "set_num_threads", "unpack"]

PURE_PYTHON = os.environ.get("FASTBITS_PURE_PYTHON", "").strip() not in ("", "0")

_dispatch.register(_dask.ADAPTER)


class Path(NamedTuple):
    """One implementation: its public functions and its runtime."""

    name: str  # "cython" or "python", as BACKEND says it
    bitwise_and: Callable[..., Any]
    bitwise_or: Callable[..., Any]
    bitwise_xor: Callable[..., Any]
    bitwise_not: Callable[..., Any]
    bitshift: Callable[..., Any]
    bitcast: Callable[..., Any]
    cast: Callable[..., Any]
    cast_like: Callable[..., Any]
    quantize_linear: Callable[..., Any]
    dequantize_linear: Callable[..., Any]
    pack: Callable[..., Any]
    unpack: Callable[..., Any]
    get_num_threads: Callable[[], int]
    set_num_threads: Callable[[int], None]
    runtime: ModuleType


_OPERATORS = ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitshift", "bitcast")


@functools.cache
def load(name: str) -> Path:
    """The path ``name`` ("cython" or "python"); ImportError where the kernels are not built or
    do not load."""
    if name == "cython":
        from . import _ops_c as ops, _packing_c as packing, _runtime as runtime

        gate: Callable[[Any], Any] = lambda func: func  # noqa: E731 - the entry points dispatch themselves
        casting: Any = ops
        quantizing: Any = ops
    else:
        from . import _cast_py as casting, _ops_py as ops, _packing_py as packing, _quant_py as quantizing
        from . import _runtime_py as runtime

        gate = _dispatch.gate
    # QuantizeLinear and DequantizeLinear are Python functions on both paths: the gate is theirs
    return Path(name, *(gate(getattr(ops, op)) for op in _OPERATORS), gate(casting.cast),
                gate(casting.cast_like), _dispatch.gate(quantizing.quantize_linear),
                _dispatch.gate(quantizing.dequantize_linear), gate(packing.pack), gate(packing.unpack),
                runtime.get_num_threads, runtime.set_num_threads, runtime)


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
pack = active.pack
unpack = active.unpack
get_num_threads = active.get_num_threads
set_num_threads = active.set_num_threads
