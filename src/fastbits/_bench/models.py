"""The suite's one quantized model, which ``benchmarks/int4_model.py`` builds too: a MatMul by a
blocked int4 weight (:func:`int4_weight`, :func:`int4_matmul_model`)."""

from __future__ import annotations

from importlib import import_module

import numpy as np


#: The int4 model's block: 32 weights along axis 1 share a scale.
INT4_BLOCK = 32


def int4_weight(size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The int4 model's weight: ``size`` x ``size`` random int4 values (ml_dtypes' int4, a value
    a byte) and their float32 scales, one per block of :data:`INT4_BLOCK` along axis 1."""
    import ml_dtypes

    w = rng.integers(-8, 8, (size, size), dtype=np.int8).astype(ml_dtypes.int4)
    scales = (rng.random((size, size // INT4_BLOCK)) * 0.01).astype(np.float32)
    return w, scales


def int4_matmul_model(w: np.ndarray, scales: np.ndarray):
    """The quantized model as it reaches a backend author: ``y = x @ DequantizeLinear(w, scales)``,
    the weight an int4 initializer ``w`` (n x m) turned into float32 by DequantizeLinear
    (block_size 32 along axis 1, the float32 initializer ``scales``), ``x`` a float32 input
    8 x n, opset 21.  The initializers are written by onnx.numpy_helper.from_array.

    Raises ImportError when onnx is not installed."""
    onnx = import_module("onnx")
    h, numpy_helper, TP = onnx.helper, import_module("onnx.numpy_helper"), onnx.TensorProto
    n, m = w.shape
    nodes = [h.make_node("DequantizeLinear", ["w", "s"], ["wf"], axis=1, block_size=INT4_BLOCK),
             h.make_node("MatMul", ["x", "wf"], ["y"])]
    graph = h.make_graph(nodes, "int4", [h.make_tensor_value_info("x", TP.FLOAT, [8, n])],
                         [h.make_tensor_value_info("y", TP.FLOAT, [8, m])],
                         [numpy_helper.from_array(w, "w"), numpy_helper.from_array(scales, "s")])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 21)])
