"""A quantized model as it reaches a backend author: a MatMul by a blocked int4 weight.

    python benchmarks/int4_model.py [--rounds 7] [--loads 3] [--size 4096]

The weight is an int4 initializer of size x size, turned into float32 by DequantizeLinear
(block_size 32 along axis 1, float32 scales); X is 8 x size.  Each round starts a fresh
process for onnx's ReferenceEvaluator and one for fastbits.onnx_ops.ReferenceEvaluator, in
turns (which goes first alternates); each process builds the model, then loads it ``--loads``
times: the evaluator built and run once, and freed (and the cycle collector run) before the
next load's clock starts.  The table gives the medians over the rounds of the first load in a
process (a script that loads one model: onnx's op registry built, the memory written never
touched before) and of the later ones (a program that loads model after model), and the
ratio, onnx's over fastbits' (above 1: fastbits is faster).

Each evaluator has a process of its own because in one process each would inherit the heap
the other left: onnx's run hands its temporaries back to the system, so that the next
construction writes into fresh pages, while fastbits' pool keeps its blocks for a while.

The model comes from fastbits._bench.models (int4_weight, int4_matmul_model), which the bench's
rows "int4 model construction" and "int4 model one run" (``python -m fastbits bench --filter
model``) build too.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import statistics
import subprocess
import sys
import time

import numpy as np
from onnx.reference import ReferenceEvaluator

from fastbits import onnx_ops
from fastbits._bench.models import int4_matmul_model, int4_weight

EVALUATORS = {"onnx": ReferenceEvaluator, "fastbits": onnx_ops.ReferenceEvaluator}
STEPS = ("construction", "one run")


def model(size: int, rng: np.random.Generator):
    """The model, from the one builder that ``python -m fastbits bench`` times too."""
    return int4_matmul_model(*int4_weight(size, rng))


def loads(who: str, size: int, count: int) -> dict[str, object]:
    """``count`` loads of the model in ``who``'s evaluator, in this process: each load's
    construction and run times, and a digest of the result (the same for every load)."""
    rng = np.random.default_rng(0)
    m = model(size, rng)
    x = rng.standard_normal((8, size)).astype(np.float32)
    times: dict[str, list[float]] = {step: [] for step in STEPS}
    digests = set()
    for _ in range(count):
        gc.collect()
        start = time.perf_counter()
        session = EVALUATORS[who](m)
        built = time.perf_counter()
        result = session.run(None, {"x": x})[0]
        ran = time.perf_counter()
        times["construction"].append(built - start)
        times["one run"].append(ran - built)
        digests.add(hashlib.sha256(result.tobytes()).hexdigest())
        del session, result
    return {"times": times, "digests": sorted(digests)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--loads", type=int, default=3, help="loads of the model in each process (at least 2)")
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--one", choices=sorted(EVALUATORS), help=argparse.SUPPRESS)  # a round's process
    args = parser.parse_args()
    if args.loads < 2:
        parser.error("--loads must be at least 2: the first load and the later ones")
    if args.one:
        print(json.dumps(loads(args.one, args.size, args.loads)))
        return
    first: dict[tuple[str, str], list[float]] = {}
    later: dict[tuple[str, str], list[float]] = {}
    digests: set[str] = set()
    for k in range(args.rounds):
        for who in ("onnx", "fastbits") if k % 2 == 0 else ("fastbits", "onnx"):
            done = subprocess.run([sys.executable, __file__, "--one", who, "--size", str(args.size),
                                   "--loads", str(args.loads)], capture_output=True, text=True, check=True)
            got = json.loads(done.stdout)
            digests.update(got["digests"])
            for step in STEPS:
                first.setdefault((who, step), []).append(got["times"][step][0])
                later.setdefault((who, step), []).append(statistics.median(got["times"][step][1:]))
    print(f"int4 weight {args.size} x {args.size}, block 32; {args.rounds} rounds of a fresh process "
          f"each, {args.loads} loads a process; medians")
    for label, table in (("first load", first), ("later loads", later)):
        for step in STEPS:
            theirs, ours = (statistics.median(table[who, step]) for who in ("onnx", "fastbits"))
            print(f"{label:11s} {step:12s} onnx {theirs * 1e3:8.1f} ms  fastbits {ours * 1e3:8.1f} ms  "
                  f"{theirs / ours:5.2f}x")
    print("the same result:", len(digests) == 1)


if __name__ == "__main__":
    main()
