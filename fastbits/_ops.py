"""The facade: picks the compiled implementation or the pure-Python one, once, at import.

``FASTBITS_PURE_PYTHON=1`` in the environment forces the pure path.
:data:`BACKEND` says which path is active: ``"cython"`` or ``"python"``;
:data:`FALLBACK_REASON` says why the pure path runs when nobody asked for it;
:data:`impl` is the active operator module, :data:`packing` the active pack/unpack module,
:data:`runtime` the active runtime module (threads, pool, configuration).
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import TYPE_CHECKING

PURE_PYTHON = os.environ.get("FASTBITS_PURE_PYTHON", "").strip() not in ("", "0")
#: None, or why the compiled kernels are not used although FASTBITS_PURE_PYTHON is unset:
#: ``"not built: ..."`` (a source checkout, a pure install) or ``"failed to load: ..."``.
FALLBACK_REASON: str | None = None

impl: ModuleType
packing: ModuleType
runtime: ModuleType
if TYPE_CHECKING or PURE_PYTHON:
    from . import _ops_py as impl, _packing_py as packing, _runtime_py as runtime
else:
    try:
        from . import _ops_c as impl, _packing_c as packing, _runtime as runtime
    except ImportError as exc:
        FALLBACK_REASON = f"{'not built' if isinstance(exc, ModuleNotFoundError) else 'failed to load'}: {exc}"
        if not isinstance(exc, ModuleNotFoundError):
            # built, but it does not load (a numpy it was not built for, say): say so
            import warnings

            warnings.warn(
                f"fastbits: the compiled kernels failed to load ({exc}); using the pure-Python path",
                RuntimeWarning,
                stacklevel=2,
            )
        from . import _ops_py as impl, _packing_py as packing, _runtime_py as runtime
    else:
        from ._threadpool import register

        register()

BACKEND = "python" if impl.__name__.endswith("_py") else "cython"
bitcast = impl.bitcast
bitshift = impl.bitshift
bitwise_and = impl.bitwise_and
bitwise_not = impl.bitwise_not
bitwise_or = impl.bitwise_or
bitwise_xor = impl.bitwise_xor
get_num_threads = runtime.get_num_threads
pack = packing.pack
unpack = packing.unpack
set_num_threads = runtime.set_num_threads

__all__ = ["BACKEND", "FALLBACK_REASON", "PURE_PYTHON", "bitcast", "bitshift", "bitwise_and", "bitwise_not",
           "bitwise_or", "bitwise_xor", "get_num_threads", "impl", "pack", "packing", "runtime",
           "set_num_threads", "unpack"]
