"""A quantized model as it reaches a backend author: a MatMul by a blocked int4 weight.

    python benchmarks/int4_model.py [--rounds 7] [--size 4096]

The weight is an int4 initializer of size x size, turned into float32 by DequantizeLinear
(block_size 32 along axis 1, float32 scales); X is 8 x size.  The model is built and run once
per round in onnx's ReferenceEvaluator and in fastbits.onnx_ops.ReferenceEvaluator, in turn;
the table gives the medians and the ratio, onnx's over fastbits' (above 1: fastbits is faster).
The model comes from fastbits._bench.models (int4_weight, int4_matmul_model), which the bench's
rows "int4 model construction" and "int4 model one run" (``python -m fastbits bench --filter
model``) build too.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import numpy as np
from onnx.reference import ReferenceEvaluator

from fastbits import onnx_ops
from fastbits._bench.models import int4_matmul_model, int4_weight


def model(size: int, rng: np.random.Generator):
    """The model, from the one builder that ``python -m fastbits bench`` times too."""
    return int4_matmul_model(*int4_weight(size, rng))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size", type=int, default=4096)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    m = model(args.size, rng)
    x = rng.standard_normal((8, args.size)).astype(np.float32)
    times: dict[tuple[str, str], list[float]] = {}
    results = {}
    for _ in range(args.rounds):
        for who, evaluator in (("onnx", ReferenceEvaluator), ("fastbits", onnx_ops.ReferenceEvaluator)):
            # the previous evaluator (and its arrays) freed before the clock starts, not inside
            # the next construction
            session = None
            gc.collect()
            start = time.perf_counter()
            session = evaluator(m)
            built = time.perf_counter()
            results[who] = session.run(None, {"x": x})[0]
            ran = time.perf_counter()
            times.setdefault((who, "construction"), []).append(built - start)
            times.setdefault((who, "one run"), []).append(ran - built)
    print(f"int4 weight {args.size} x {args.size}, block 32; {args.rounds} interleaved rounds, medians")
    for what in ("construction", "one run"):
        theirs, ours = (statistics.median(times[who, what]) for who in ("onnx", "fastbits"))
        print(f"{what:14s} onnx {theirs * 1e3:8.1f} ms  fastbits {ours * 1e3:8.1f} ms  {theirs / ours:5.2f}x")
    print("the same result:", np.array_equal(results["onnx"], results["fastbits"]))


if __name__ == "__main__":
    main()
