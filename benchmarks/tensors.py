"""fastbits.onnx_tensors.to_array and from_array against onnx's numpy_helper, interleaved.

    python benchmarks/tensors.py [--rounds 9] [--n 16777216]

Each round times every call once, in turn; the table gives each call's median and the ratio
of medians, onnx's over fastbits' (above 1: fastbits is faster).
"""

from __future__ import annotations

import argparse
import statistics
import time

import ml_dtypes
import numpy as np
from onnx import numpy_helper

from fastbits import onnx_tensors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--n", type=int, default=16 * 2**20)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for name, array in (("int4", rng.integers(-8, 8, args.n, dtype=np.int8).astype(ml_dtypes.int4)),
                        ("float32", rng.standard_normal(args.n).astype(np.float32))):
        tensor = numpy_helper.from_array(array, "w")
        rows.append((f"to_array {name}", lambda t=tensor: numpy_helper.to_array(t), lambda t=tensor: onnx_tensors.to_array(t)))
        rows.append((f"from_array {name}", lambda a=array: numpy_helper.from_array(a, "w"),
                     lambda a=array: onnx_tensors.from_array(a, "w")))
    times = {(name, who): [] for name, _, _ in rows for who in ("onnx", "fastbits")}
    for _ in range(args.rounds):
        for name, theirs, ours in rows:
            for who, call in (("onnx", theirs), ("fastbits", ours)):
                start = time.perf_counter()
                call()
                times[name, who].append(time.perf_counter() - start)
    print(f"n = {args.n}, {args.rounds} interleaved rounds, medians")
    for name, _, _ in rows:
        theirs, ours = statistics.median(times[name, "onnx"]), statistics.median(times[name, "fastbits"])
        print(f"{name:20s} onnx {theirs * 1e3:8.2f} ms  fastbits {ours * 1e3:8.2f} ms  {theirs / ours:6.2f}x")


if __name__ == "__main__":
    main()
