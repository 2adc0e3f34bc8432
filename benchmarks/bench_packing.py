"""pack and unpack of ONNX's packed layout against onnx's numpy_helper and np.copy.

The issue's bar: pack and unpack of 4M int4 values at least 20 times faster than
``onnx.numpy_helper.from_array`` / ``to_array`` and no slower than ``np.copy`` of the
one-value-per-byte array.  Each sample is a batch of back-to-back calls (numpy_helper: 2, the
others: 10) after an untimed one; the samples are interleaved as the suite's are
(``fastbits._bench.timing.interleave``): one of each per repetition, in a fresh random order.
fastbits is timed at its thread count (``--threads``, default all) and on one thread.

    python benchmarks/bench_packing.py [--n 4194304] [--type int4] [--repeat 31]

``python -m fastbits bench --filter packing`` has the same cases in the suite's table (one call
per sample there, in a process whose heap is warm from the suite: numpy_helper's temporaries
then cost about half of what they cost here).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import fastbits
from fastbits import spec
from fastbits._bench.timing import interleave


def _sampler(fn, calls, before=None):
    def sample():
        if before is not None:
            before()
        fn()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        return (time.perf_counter() - t0) / calls

    return sample


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4 << 20, help="elements (default 4M)")
    parser.add_argument("--type", default="int4", help="a sub-byte type (default int4)")
    parser.add_argument("--repeat", type=int, default=31, help="samples of each (median)")
    parser.add_argument("--threads", type=int, default=fastbits.get_num_threads(), help="fastbits' threads")
    args = parser.parse_args(argv)
    from onnx import numpy_helper

    code = spec.resolve_to(args.type)
    rng = np.random.default_rng(0)
    x = rng.integers(0, 1 << spec.bit_width(code), size=args.n, dtype=np.uint8).view(spec.numpy_dtype(code))
    tensor = numpy_helper.from_array(x)
    raw = tensor.raw_data
    assert fastbits.pack(x).tobytes() == raw
    assert fastbits.unpack(raw, code, x.shape).tobytes() == numpy_helper.to_array(tensor).tobytes()
    at = {"threads": lambda: fastbits.set_num_threads(args.threads), "1 thread": lambda: fastbits.set_num_threads(1)}
    samplers = {
        "np.copy(x)": _sampler(lambda: np.copy(x), 10),
        "numpy_helper.from_array": _sampler(lambda: numpy_helper.from_array(x), 2),
        "numpy_helper.to_array": _sampler(lambda: numpy_helper.to_array(tensor), 2),
    }
    for label, before in at.items():
        samplers[f"fastbits.pack, {label}"] = _sampler(lambda: fastbits.pack(x), 10, before)
        samplers[f"fastbits.unpack, {label}"] = _sampler(lambda: fastbits.unpack(raw, code, x.shape), 10, before)
    try:
        median = {k: statistics.median(v) for k, v in interleave(samplers, args.repeat, rng).items()}
    finally:
        fastbits.set_num_threads(args.threads)
    print(f"fastbits {fastbits.__version__} ({fastbits.BACKEND}), {args.n} {spec.type_string(code)}, "
          f"{args.threads} thread(s); medians of {args.repeat} interleaved samples")
    print("| call | median | numpy_helper / it | np.copy / it |")
    print("|---|---:|---:|---:|")
    for name, t in median.items():
        helper = median["numpy_helper.from_array" if "pack" in name and "unpack" not in name else "numpy_helper.to_array"]
        ratio = f"{helper / t:.1f}" if name.startswith("fastbits") else ""
        print(f"| {name} | {t * 1e3:.3f} ms | {ratio} | {median['np.copy(x)'] / t:.2f} |")


if __name__ == "__main__":
    main()
