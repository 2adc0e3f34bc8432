"""Calls the onnx modules' types refuse (never executed; checked where onnx is installed)."""

from __future__ import annotations

import numpy as np

import fastbits.onnx_backend as backend
from fastbits.onnx_tensors import from_array, to_array

to_array(np.zeros(3))  # E: Argument 1 to "to_array" has incompatible type
from_array([1, 2, 3])  # E: Argument 1 to "from_array" has incompatible type "list[int]"
backend.prepare(3)  # E: Argument 1 has incompatible type "int"; expected "ModelProto | bytes | str |
