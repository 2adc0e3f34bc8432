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

Each model is built by onnx's ``ReferenceEvaluator``, by ``fastbits.onnx_ops.ReferenceEvaluator``
and by fastbits' with ``cache_constants=True`` (the weights' DequantizeLinear kept from the first
run), interleaved (the order rotates), ``--rounds`` times, and each is run once and then three
times more; every run's outputs must be the same bytes as onnx's, or the script stops.  It
prints, per model, the medians of the construction, of the first run and of the later runs, and
onnx's time over fastbits' (above 1: fastbits is faster).  Needs onnx and onnxruntime (the bench
extra); run it on an idle machine and read the ratios.
"""

from __future__ import annotations

import argparse
import gc
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
from onnx.reference import ReferenceEvaluator as OnnxEvaluator


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


#: The evaluators timed: onnx's, fastbits', and fastbits' keeping its constant nodes' outputs.
EVALUATORS: dict[str, Callable[[onnx.ModelProto], Any]] = {
    "onnx": OnnxEvaluator,
    "fastbits": FastbitsEvaluator,
    "fastbits cached": lambda model: FastbitsEvaluator(model, cache_constants=True),
}


def time_model(model: onnx.ModelProto, x: np.ndarray, rounds: int, later: int = 3) -> dict[str, list[float]]:
    """Each evaluator's construction, then (in rounds of their own, each on a new evaluator) its
    first run and ``later`` runs after it; the evaluators interleaved, their order rotating every
    round, and every run's outputs compared with onnx's.  The constructions are timed apart from
    the runs: a construction right after a run pays for what that run left to the allocator
    (onnx's evaluator's temporaries make the next construction about 15 % slower), and only the
    constructions' own order would then decide their ratio."""
    times: dict[str, list[float]] = {f"{who} {what}": [] for who in EVALUATORS
                                     for what in ("construction", "first run", "later run")}
    names = list(EVALUATORS)
    expected = OnnxEvaluator(model).run(None, {"x": x})
    for phase in ("construction", "runs"):
        for k in range(rounds):
            for who in names[k % len(names):] + names[:k % len(names)]:
                gc.collect()  # the last evaluator's memory freed now, not during this one's (as timeit)
                gc.disable()
                start = time.perf_counter()
                session = EVALUATORS[who](model)
                built = time.perf_counter()
                if phase == "construction":
                    times[f"{who} construction"].append(built - start)
                for run in range(1 + later if phase == "runs" else 0):
                    start = time.perf_counter()
                    outputs = session.run(None, {"x": x})
                    times[f"{who} {'later' if run else 'first'} run"].append(time.perf_counter() - start)
                    if not _same_bytes(outputs, expected):
                        raise SystemExit(f"{who}'s outputs differ from onnx's")
                gc.enable()
                del session
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
    print(f"medians of {args.rounds} interleaved rounds (later runs: 3 a round); each cell onnx's time, then "
          "fastbits', then onnx's over fastbits' (above 1: fastbits is faster); 'cached': fastbits with "
          "cache_constants=True; outputs bit-identical")
    print(f"{'model':<24}{'construction':>30}{'first run':>30}{'later runs':>30}{'later runs, cached':>22}")
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
            cells = [_cell(med[f"onnx {what}"], med[f"fastbits {what}"]) for what in ("construction", "first run",
                                                                                    "later run")]
            cached = med["fastbits cached later run"]
            print(f"{name:<24}{''.join(cells)}{_ms(cached):>12}{med['onnx later run'] / cached:8.2f}x")


def _cell(onnx_time: float, fastbits_time: float) -> str:
    return f"{_ms(onnx_time):>10} /{_ms(fastbits_time):>10}{onnx_time / fastbits_time:8.2f}x"

if __name__ == "__main__":
    main()
