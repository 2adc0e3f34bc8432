"""The facade: picks the compiled implementation or the pure-Python one, once, at import.

``FASTBITS_PURE_PYTHON=1`` in the environment forces the pure path.
:data:`BACKEND` says which path is active: ``"cython"`` or ``"python"``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

PURE_PYTHON = os.environ.get("FASTBITS_PURE_PYTHON", "").strip() not in ("", "0")

if TYPE_CHECKING or PURE_PYTHON:
    from ._ops_py import bitcast, bitwise_and, get_num_threads, set_num_threads

    BACKEND = "python"
else:
    try:
        from ._ops_c import bitcast, bitwise_and, get_num_threads, set_num_threads

        BACKEND = "cython"
    except ImportError:
        from ._ops_py import bitcast, bitwise_and, get_num_threads, set_num_threads

        BACKEND = "python"

__all__ = ["BACKEND", "PURE_PYTHON", "bitcast", "bitwise_and", "get_num_threads", "set_num_threads"]
