"""The facade: picks the compiled implementation or the pure-Python one, once, at import.

``FASTBITS_PURE_PYTHON=1`` in the environment forces the pure path.
:data:`BACKEND` says which path is active: ``"cython"`` or ``"python"``;
:data:`FALLBACK_REASON` says why the pure path runs when nobody asked for it;
:data:`runtime` is the active runtime module (threads, pool, configuration).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

PURE_PYTHON = os.environ.get("FASTBITS_PURE_PYTHON", "").strip() not in ("", "0")
#: None, or why the compiled kernels are not used although FASTBITS_PURE_PYTHON is unset:
#: ``"not built: ..."`` (a source checkout, a pure install) or ``"failed to load: ..."``.
FALLBACK_REASON: str | None = None

if TYPE_CHECKING or PURE_PYTHON:
    from . import _runtime_py as runtime
    from ._ops_py import bitcast, bitwise_and, get_num_threads, set_num_threads

    BACKEND = "python"
else:
    try:
        from . import _runtime as runtime
        from ._ops_c import bitcast, bitwise_and, get_num_threads, set_num_threads

        BACKEND = "cython"
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
        from . import _runtime_py as runtime
        from ._ops_py import bitcast, bitwise_and, get_num_threads, set_num_threads

        BACKEND = "python"
    else:
        from ._threadpool import register

        register()

__all__ = ["BACKEND", "FALLBACK_REASON", "PURE_PYTHON", "bitcast", "bitwise_and", "get_num_threads",
           "runtime", "set_num_threads"]
