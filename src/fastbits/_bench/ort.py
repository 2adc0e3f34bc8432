"""onnx and onnxruntime: the one builder of one-node models, and their sessions.

Every benchmark that runs onnxruntime or the onnx reference evaluator builds
its model here: an elementwise operator of :data:`.cases.ELEMENTWISE`
(``BitwiseAnd``, ``BitwiseOr``, ``BitwiseXor``, ``BitShift`` with its
``direction``: opset 18, inputs ``a`` and ``b``; ``BitwiseNot``: input ``a``)
or ``BitCast`` (opset 26) or ``Cast`` (opset 21), input ``x``, output ``y``; or
``QuantizeLinear`` / ``DequantizeLinear`` (opset 21), inputs ``x`` and ``scale`` (graph inputs,
no zero point), output ``y``; ``MatMulInteger`` (opset 21), inputs ``a``, ``b``, ``za`` and ``zb``;
``DynamicQuantizeLinear`` (opset 21), input ``x``, outputs ``y``, its scale and zero point.  The
suite's quantized model is :mod:`.models`'.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

import numpy as np

import fastbits

from .cases import ELEMENTWISE


class Models:
    """One-node models, built with onnx.helper and cached per operator and types.

    Raises ImportError when onnx is not installed.
    """

    def __init__(self):
        self.onnx = import_module("onnx")
        self.helper = import_module("onnx.helper")
        self.models: dict[tuple, Any] = {}

    def tensor_type(self, dtype) -> int:
        dtype = np.dtype(dtype)
        if dtype.byteorder == ">":      # fed as its native twin: ONNX types have no byte order
            dtype = dtype.newbyteorder("=")
        return fastbits.spec.resolve_to(dtype).value

    def model(self, op: str, dtype, to: str | None = None, saturate: bool = True):
        """The model of ``op`` (a key of :data:`.cases.ELEMENTWISE`, "bitcast" or "cast") on inputs
        of ``dtype``; a BitCast or Cast to ``to``, an ONNX type name (Cast with ``saturate``)."""
        h, TP = self.helper, self.onnx.TensorProto
        if op in ELEMENTWISE:
            e, t = ELEMENTWISE[op], self.tensor_type(dtype)
            key = (op, t)
            if key not in self.models:
                names = ["a", "b"][:e.arity]
                attributes = {"direction": e.direction} if e.direction else {}
                node = h.make_node(e.onnx, names, ["y"], **attributes)
                inputs = [h.make_tensor_value_info(n, t, None) for n in names]
                outputs = [h.make_tensor_value_info("y", t, None)]
                self.models[key] = self._make(node, inputs, outputs, 18)
        else:
            src = self.tensor_type(dtype)
            dst = getattr(TP, to)
            key = (op, src, dst, saturate)
            if key not in self.models:
                if op == "bitcast":
                    node, opset = h.make_node("BitCast", ["x"], ["y"], to=dst), 26
                else:  # Cast-21: the float 8 types, saturate, int4
                    node, opset = h.make_node("Cast", ["x"], ["y"], to=dst, saturate=int(saturate)), 21
                inputs = [h.make_tensor_value_info("x", src, None)]
                outputs = [h.make_tensor_value_info("y", dst, None)]
                self.models[key] = self._make(node, inputs, outputs, opset)
        return self.models[key]

    def quantize(self, op: str, dtype, scale_dtype, to: str, axis: int = 1, block_size: int = 0):
        """The model of QuantizeLinear (``op`` "quantize": ``x`` of ``dtype`` into ``to``, an ONNX
        type name, as ``output_dtype``) or DequantizeLinear ("dequantize": ``x`` of ``dtype`` into
        the scale's type, ``to``), opset 21: ``x`` and ``scale`` (of ``scale_dtype``) are graph
        inputs, no zero point; ``axis`` and ``block_size`` are the node's attributes."""
        h, TP = self.helper, self.onnx.TensorProto
        src, sc, dst = self.tensor_type(dtype), self.tensor_type(scale_dtype), getattr(TP, to)
        key = (op, src, sc, dst, axis, block_size)
        if key not in self.models:
            attributes = {"axis": axis, "block_size": block_size}
            if op == "quantize":
                node = h.make_node("QuantizeLinear", ["x", "scale"], ["y"], output_dtype=dst, **attributes)
            else:
                node = h.make_node("DequantizeLinear", ["x", "scale"], ["y"], **attributes)
            inputs = [h.make_tensor_value_info("x", src, None), h.make_tensor_value_info("scale", sc, None)]
            outputs = [h.make_tensor_value_info("y", dst, None)]
            self.models[key] = self._make(node, inputs, outputs, 21)
        return self.models[key]

    def matmul_integer(self, a_dtype, b_dtype):
        """MatMulInteger of ``a`` by ``b`` less their zero points ``za`` and ``zb``, every one a
        graph input, into int32 ``y``."""
        h, TP = self.helper, self.onnx.TensorProto
        ta, tb = self.tensor_type(a_dtype), self.tensor_type(b_dtype)
        key = ("matmul_integer", ta, tb)
        if key not in self.models:
            node = h.make_node("MatMulInteger", ["a", "b", "za", "zb"], ["y"])
            inputs = [h.make_tensor_value_info(n, t, None) for n, t in (("a", ta), ("b", tb), ("za", ta), ("zb", tb))]
            self.models[key] = self._make(node, inputs, [h.make_tensor_value_info("y", TP.INT32, None)], 21)
        return self.models[key]

    def qlinear_matmul(self, a_dtype, b_dtype, y_dtype):
        """QLinearMatMul of ``a`` by ``b``, with per-tensor float32 scales ``sa``, ``sb``, ``ys`` and
        zero points ``za``, ``zb``, ``yz``, every one a graph input, into ``y``."""
        h, TP = self.helper, self.onnx.TensorProto
        ta, tb, ty = self.tensor_type(a_dtype), self.tensor_type(b_dtype), self.tensor_type(y_dtype)
        key = ("qlinear_matmul", ta, tb, ty)
        if key not in self.models:
            names = (("a", ta), ("sa", TP.FLOAT), ("za", ta), ("b", tb), ("sb", TP.FLOAT), ("zb", tb),
                     ("ys", TP.FLOAT), ("yz", ty))
            node = h.make_node("QLinearMatMul", [n for n, _ in names], ["y"])
            inputs = [h.make_tensor_value_info(n, t, None) for n, t in names]
            self.models[key] = self._make(node, inputs, [h.make_tensor_value_info("y", ty, None)], 21)
        return self.models[key]

    def dynamic_quantize(self):
        """DynamicQuantizeLinear of float32 ``x``: ``y`` (the first output), its scale and zero point."""
        h, TP = self.helper, self.onnx.TensorProto
        key = ("dynamic_quantize",)
        if key not in self.models:
            node = h.make_node("DynamicQuantizeLinear", ["x"], ["y", "scale", "zero"])
            outputs = [h.make_tensor_value_info("y", TP.UINT8, None), h.make_tensor_value_info("scale", TP.FLOAT, []),
                       h.make_tensor_value_info("zero", TP.UINT8, [])]
            self.models[key] = self._make(node, [h.make_tensor_value_info("x", TP.FLOAT, None)], outputs, 21)
        return self.models[key]

    def _make(self, node, inputs, outputs, opset):
        h = self.helper
        graph = h.make_graph([node], "bench", inputs, outputs)
        # the IR version that goes with the opset (8 for opset 18), not the newest onnx knows:
        # an older onnxruntime refuses a model whose IR version is newer than its own
        return h.make_model_gen_version(graph, opset_imports=[h.make_opsetid("", opset)])


def make_session(model, threads: int | None = None, spin: bool = True):
    """An onnxruntime CPU session of ``model``: ``threads`` intra-op threads (default: its own);
    ``spin=False`` stops its pool spinning after each run, which otherwise takes the cores from
    whatever runs next in this process. Raises ImportError when onnxruntime is not installed."""
    ort = import_module("onnxruntime")
    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = threads
    options.log_severity_level = 3
    if not spin:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
