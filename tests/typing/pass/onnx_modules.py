"""The onnx modules' types (never executed; checked where onnx is installed)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import helper
from typing_extensions import assert_type

import fastbits.onnx_backend as backend
from fastbits.onnx_ops import OPS, ReferenceEvaluator
from fastbits.onnx_tensors import from_array, to_array

tensor = from_array(np.zeros(3, np.int8), "w")
assert_type(tensor, onnx.TensorProto)
assert_type(to_array(tensor), npt.NDArray[Any])
assert_type(to_array(tensor, base_dir="."), npt.NDArray[Any])

node = helper.make_node("BitCast", ["x"], ["y"], to=onnx.TensorProto.INT32)
assert_type(backend.run_node(node, [np.zeros(1, np.float32)]), tuple[Any, ...])
model = helper.make_model(helper.make_graph([node], "g", [], []))
rep = backend.prepare(model)
assert_type(rep, backend.FastbitsBackendRep)
assert_type(rep.run({"x": np.zeros(1, np.float32)}), tuple[Any, ...])
assert_type(backend.run_model(model.SerializeToString(), [np.zeros(1, np.float32)]), tuple[Any, ...])
assert_type(backend.supports_device("CPU"), bool)
evaluator = ReferenceEvaluator(model, new_ops=list(OPS))
