"""Models as onnxruntime's quantizer makes them, in onnx's evaluator and in fastbits'.

    python benchmarks/quantized_models.py [--width 768] [--batch 8] [--rounds 5] [--only NAME]

A float MLP (X: batch x width; MatMul by a width x 4 width weight, Add, Relu, then a Gemm back to
width, with its bias) is quantized at run time by ``onnxruntime.quantization`` in each format a
user reaches for first:

* ``dynamic s8``, ``dynamic u8``: ``quantize_dynamic`` (DynamicQuantizeLinear and MatMulInteger);
* ``QDQ u8/s8 per channel``, ``QDQ int16``, ``QDQ float8e4m3fn``: ``quantize_static`` in the QDQ
  format, calibrated on a few random batches;
* ``4-bit int4 sym b32``, ``4-bit uint4 asym b128``: ``MatMulNBitsQuantizer`` in the QDQ format
  (the weight K x N, blocked along axis 0; it needs the ``onnx_ir`` package).

Each model is built and run by onnx's ``ReferenceEvaluator`` and by
``fastbits.onnx_ops.ReferenceEvaluator``, interleaved (which goes first alternates), ``--rounds``
times; the outputs must be the same bytes, or the script stops.  It prints, per model, the
median construction and run times of each, and onnx's over fastbits' (above 1: fastbits is
faster).  Needs onnx and onnxruntime (the bench extra); run it on an idle machine and read
the ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto
from onnx import helper as oh
from onnx import numpy_helper

import fastbits
from fastbits.onnx_ops import ReferenceEvaluator as FastbitsEvaluator


def float_mlp(width: int, rng: np.random.Generator) -> onnx.ModelProto:
    """X (batch x width) -> MatMul (width x 4 width) + bias -> Relu -> Gemm (4 width x width, bias)."""
    hidden = 4 * width
    inits = [numpy_helper.from_array((rng.standard_normal((width, hidden)) / np.sqrt(width)).astype(np.float32), "w1"),
             numpy_helper.from_array(rng.standard_normal(hidden).astype(np.float32) * 0.1, "b1"),
             numpy_helper.from_array((rng.standard_normal((hidden, width)) / np.sqrt(hidden)).astype(np.float32), "w2"),
             numpy_helper.from_array(rng.standard_normal(width).astype(np.float32) * 0.1, "b2")]
    nodes = [oh.make_node("MatMul", ["x", "w1"], ["h0"], name="matmul"),
             oh.make_node("Add", ["h0", "b1"], ["h1"], name="add"),
             oh.make_node("Relu", ["h1"], ["h2"], name="relu"),
             oh.make_node("Gemm", ["h2", "w2", "b2"], ["y"], name="gemm")]
    graph = oh.make_graph(nodes, "mlp", [oh.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])],
                          [oh.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", width])], inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 21)])


class _Batches:
    """onnxruntime's CalibrationDataReader protocol over a few random batches."""

    def __init__(self, batches: list[np.ndarray]) -> None:
        self.batches = iter(batches)

    def get_next(self) -> dict[str, np.ndarray] | None:
        batch = next(self.batches, None)
        return None if batch is None else {"x": batch}

    def rewind(self) -> None:  # pragma: no cover - the quantizer's protocol
        pass


def quantizers(calibration: list[np.ndarray]) -> dict[str, Callable[[str, str], onnx.ModelProto]]:
    """Each format's quantization of the float model at one path into another."""
    from onnxruntime.quantization import (CalibrationMethod, QuantFormat, QuantType, quantize_dynamic,
                                          quantize_static)

    def dynamic(weight: Any) -> Callable[[str, str], onnx.ModelProto]:
        def make(src: str, dst: str) -> onnx.ModelProto:
            quantize_dynamic(src, dst, weight_type=weight)
            return onnx.load(dst)
        return make

    def static(activation: Any, weight: Any, per_channel: bool, method: Any = CalibrationMethod.MinMax,
               options: dict[str, Any] | None = None) -> Callable[[str, str], onnx.ModelProto]:
        def make(src: str, dst: str) -> onnx.ModelProto:
            quantize_static(src, dst, _Batches(calibration), quant_format=QuantFormat.QDQ, per_channel=per_channel,
                            activation_type=activation, weight_type=weight, calibrate_method=method,
                            extra_options=options)
            return onnx.load(dst)
        return make

    def four_bit(symmetric: bool, block: int) -> Callable[[str, str], onnx.ModelProto]:
        def make(src: str, dst: str) -> onnx.ModelProto:
            from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

            quantizer = MatMulNBitsQuantizer(onnx.load(src), block_size=block, is_symmetric=symmetric,
                                             quant_format=QuantFormat.QDQ)
            quantizer.process()
            return quantizer.model.model
        return make

    return {
        "dynamic s8": dynamic(QuantType.QInt8),
        "dynamic u8": dynamic(QuantType.QUInt8),
        "QDQ u8/s8 per channel": static(QuantType.QUInt8, QuantType.QInt8, True),
        "QDQ int16": static(QuantType.QInt16, QuantType.QInt16, False),
        "QDQ float8e4m3fn": static(QuantType.QFLOAT8E4M3FN, QuantType.QFLOAT8E4M3FN, False,
                                   CalibrationMethod.Distribution),
        "4-bit int4 sym b32": four_bit(True, 32),
        "4-bit uint4 asym b128": four_bit(False, 128),
    }


def _same_bytes(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
                                    for x, y in zip(a, b))


def time_model(model: onnx.ModelProto, x: np.ndarray, rounds: int) -> dict[str, list[float]]:
    """Construction and one run of each evaluator, interleaved; the outputs compared."""
    from onnx.reference import ReferenceEvaluator

    times: dict[str, list[float]] = {f"{who} {what}": [] for who in ("onnx", "fastbits")
                                     for what in ("construction", "run")}
    for k in range(rounds):
        outputs = {}
        for who in ("onnx", "fastbits") if k % 2 == 0 else ("fastbits", "onnx"):
            cls = ReferenceEvaluator if who == "onnx" else FastbitsEvaluator
            start = time.perf_counter()
            session = cls(model)
            built = time.perf_counter()
            outputs[who] = session.run(None, {"x": x})
            done = time.perf_counter()
            times[f"{who} construction"].append(built - start)
            times[f"{who} run"].append(done - built)
            del session
        if not _same_bytes(outputs["onnx"], outputs["fastbits"]):
            raise SystemExit("the two evaluators' outputs differ")
    return times


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--width", type=int, default=768)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", help="the formats whose name contains this text")
    args = parser.parse_args()
    import onnxruntime

    rng = np.random.default_rng(0)
    model = float_mlp(args.width, rng)
    calibration = [rng.standard_normal((args.batch, args.width)).astype(np.float32) for _ in range(4)]
    x = rng.standard_normal((args.batch, args.width)).astype(np.float32)
    print(f"float MLP {args.width} -> {4 * args.width} -> {args.width} (MatMul, Add, Relu, Gemm), batch {args.batch}; "
          f"onnxruntime {onnxruntime.__version__}, onnx {onnx.__version__}, numpy {np.__version__}, "
          f"fastbits {fastbits.__version__} ({fastbits.BACKEND}, {fastbits.get_num_threads()} threads)")
    print(f"medians of {args.rounds} interleaved rounds; ratio: onnx's time over fastbits'; outputs bit-identical")
    print(f"{'model':<24}{'construction onnx':>19}{'fastbits':>12}{'ratio':>8}{'one run onnx':>15}{'fastbits':>12}"
          f"{'ratio':>8}")
    with tempfile.TemporaryDirectory() as directory:
        src = os.path.join(directory, "float.onnx")
        onnx.save(model, src)
        for name, make in quantizers(calibration).items():
            if args.only and args.only not in name:
                continue
            try:
                quantized = make(src, os.path.join(directory, "q.onnx"))
            except ImportError as exc:
                print(f"{name:<24}skipped: {exc}")
                continue
            med = {key: statistics.median(v) for key, v in time_model(quantized, x, args.rounds).items()}
            print(f"{name:<24}{_ms(med['onnx construction']):>19}{_ms(med['fastbits construction']):>12}"
                  f"{med['onnx construction'] / med['fastbits construction']:7.2f}x"
                  f"{_ms(med['onnx run']):>15}{_ms(med['fastbits run']):>12}{med['onnx run'] / med['fastbits run']:7.2f}x")


if __name__ == "__main__":
    main()
