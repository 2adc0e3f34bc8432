"""QuantizeLinear and DequantizeLinear at the issue's sizes, against onnx's evaluator and np.copy.

    python benchmarks/quantize.py [--rounds 9]

Rows: DequantizeLinear of a 4096 x 4096 int4 weight into float32, and QuantizeLinear of a 4096 x
4096 float32 weight into int4, int8 and FLOAT8E4M3FN, with float32 scales in blocks of 32 and
of 128 along axis 0 (onnxruntime's 4-bit quantizer's layout) and along axis 1 (and, for
QuantizeLinear, one per element of axis 1, the per-channel layout); QuantizeLinear of 16M
float32 values into int4 and into FLOAT8E4M3FN (one float32 scale), of 4M float16 and bfloat16
values into int8 in their own precision, and DequantizeLinear of 4M int32 values.  Each round
calls every column once, in a fresh random order: fastbits at its threads and on one thread,
onnx's ReferenceEvaluator running a one-node model (fastbits._bench.ort's), and ``np.copy``
(numpy's copy, one thread) of the 64 MiB float32 array the call writes (DequantizeLinear's
result) or reads (QuantizeLinear's input): a floor for any call that moves those bytes.  The
table gives the medians and the ratios of onnx's and np.copy's times over fastbits' at its
threads and on one thread (above 1: fastbits is faster).  Every column's result is checked
against fastbits' first, but onnx's DequantizeLinear of int32, which rounds twice.
"""

from __future__ import annotations

import argparse
import statistics
import time

import ml_dtypes
import numpy as np
from onnx.reference import ReferenceEvaluator

import fastbits
from fastbits._bench.models import int4_weight
from fastbits._bench.ort import Models


def _scales(rng: np.random.Generator, shape: tuple[int, int], axis: int, block: int) -> np.ndarray:
    """float32 scales of a 2-D ``shape``: one per element along ``axis`` (block 0), or one per
    ``block`` of them."""
    if block == 0:
        count: tuple[int, ...] = (shape[axis],)
    else:
        count = tuple(n // block if i == axis else n for i, n in enumerate(shape))
    return (rng.random(count) * 0.01 + 0.001).astype(np.float32)


#: The layouts of a K x N weight's scales: blocks along axis 0 (onnxruntime's
#: MatMulNBitsQuantizer) and along axis 1, of 32 and of 128; and one per column (axis 1).
LAYOUTS = [(axis, block) for axis in (0, 1) for block in (32, 128)]


def rows(rng: np.random.Generator):
    """(name, {column: call}) of each row."""
    models = Models()
    size = 4096
    w, _ = int4_weight(size, rng)
    found = []
    for axis, block in LAYOUTS:
        scales = _scales(rng, (size, size), axis, block)
        dq = ReferenceEvaluator(models.quantize("dequantize", w.dtype, np.float32, "FLOAT", axis, block))
        result = fastbits.dequantize_linear(w, scales, axis=axis, block_size=block)
        found.append((f"DequantizeLinear int4 ({size}, {size}), blocks of {block} along axis {axis} -> float32", {
            "fastbits": lambda s=scales, a=axis, b=block: fastbits.dequantize_linear(w, s, axis=a, block_size=b),
            "onnx": lambda dq=dq, s=scales: dq.run(None, {"x": w, "scale": s})[0],
            "np.copy": lambda r=result: np.copy(r)}))
    weights = (rng.standard_normal((size, size)) * 4).astype(np.float32)
    for to, dtype in (("INT4", ml_dtypes.int4), ("INT8", np.int8), ("FLOAT8E4M3FN", ml_dtypes.float8_e4m3fn)):
        for axis, block in [(1, 0), *LAYOUTS]:
            scales = _scales(rng, (size, size), axis, block) * 100
            q = ReferenceEvaluator(models.quantize("quantize", np.float32, np.float32, to, axis, block))
            layout = f"blocks of {block} along axis {axis}" if block else f"a scale per element of axis {axis}"
            found.append((f"QuantizeLinear float32 ({size}, {size}) -> {to}, {layout}", {
                "fastbits": lambda s=scales, a=axis, b=block, d=dtype: fastbits.quantize_linear(
                    weights, s, axis=a, block_size=b, output_dtype=d),
                "onnx": lambda q=q, s=scales: q.run(None, {"x": weights, "scale": s})[0],
                "np.copy": lambda: np.copy(weights)}))
    x = (rng.standard_normal(16 << 20) * 4).astype(np.float32)
    scale = np.array(0.5, np.float32)
    for to, dtype in (("INT4", ml_dtypes.int4), ("FLOAT8E4M3FN", ml_dtypes.float8_e4m3fn)):
        q = ReferenceEvaluator(models.quantize("quantize", np.float32, np.float32, to))
        found.append((f"QuantizeLinear float32 -> {to}, 16M values", {
            "fastbits": lambda dtype=dtype: fastbits.quantize_linear(x, scale, output_dtype=dtype),
            "onnx": lambda q=q: q.run(None, {"x": x, "scale": scale})[0]}))
    # float16 and bfloat16 precision (a scale of that type): x and the quotient rounded to it
    for to_type, name in ((np.float16, "float16"), (ml_dtypes.bfloat16, "bfloat16")):
        half, half_scale = x[:4 << 20].astype(to_type), np.array(0.02, to_type)
        q = ReferenceEvaluator(models.quantize("quantize", to_type, to_type, "INT8"))
        found.append((f"QuantizeLinear {name} -> INT8 in {name} precision, 4M values", {
            "fastbits": lambda h=half, s=half_scale: fastbits.quantize_linear(h, s, output_dtype=np.int8),
            "onnx": lambda q=q, h=half, s=half_scale: q.run(None, {"x": h, "scale": s})[0]}))
    # int32 (a QDQ model's bias): the kernels' exact products; onnx's product is rounded twice
    # (an int32 beyond 2**24 to float32 first), so its result is not compared
    wide, wide_scale = rng.integers(-2**31, 2**31, 4 << 20).astype(np.int32), np.array(1e-6, np.float32)
    dq = ReferenceEvaluator(models.quantize("dequantize", np.int32, np.float32, "FLOAT"))
    found.append(("DequantizeLinear int32 -> float32, 4M values", {
        "fastbits": lambda: fastbits.dequantize_linear(wide, wide_scale),
        "onnx": lambda: dq.run(None, {"x": wide, "scale": wide_scale})[0]}, ("onnx",)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    threads = fastbits.get_num_threads()
    print(f"{args.rounds} interleaved rounds, medians; fastbits at {threads} threads and at 1")
    for name, calls, *rest in rows(rng):
        calls = dict(calls)
        unchecked = rest[0] if rest else ()  # columns whose results are known to differ
        one = calls["fastbits"]

        def on_one_thread(one=one):
            with fastbits.config_context(num_threads=1):
                return one()
        calls["fastbits 1t"] = on_one_thread
        expected = calls["fastbits"]()
        for who, call in calls.items():
            got = call()
            if who != "np.copy" and who not in unchecked and got.tobytes() != expected.tobytes():
                raise SystemExit(f"{name}: {who}'s result differs from fastbits'")
        times: dict[str, list[float]] = {who: [] for who in calls}
        for _ in range(args.rounds):
            for who in rng.permutation(list(calls)):
                start = time.perf_counter()
                calls[who]()
                times[who].append(time.perf_counter() - start)
        medians = {who: statistics.median(t) for who, t in times.items()}
        print(name)
        for who, median in medians.items():
            ratio = "" if who.startswith("fastbits") else (f"  {median / medians['fastbits']:5.2f}x fastbits', "
                                                           f"{median / medians['fastbits 1t']:5.2f}x fastbits 1t's")
            print(f"  {who:12s} {median * 1e3:8.2f} ms{ratio}")


if __name__ == "__main__":
    main()
