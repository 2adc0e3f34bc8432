"""Signatures of the compiled module ``fastbits._packing_c`` (its docstrings are ``_packing_py``'s)."""

from typing import Any

import numpy as np

__all__ = ["pack", "unpack"]

def pack(x: Any, /) -> np.ndarray: ...
def unpack(data: Any, to: Any, shape: Any, /) -> np.ndarray: ...
