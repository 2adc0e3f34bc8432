"""Benchmark of the compiled kernels against numpy and onnxruntime.

Times fastbits' compiled module (``fastbits._ops_c``), numpy and, when it is
installed, onnxruntime, interleaved in one process by the suite's
``fastbits._bench.timing.time_interleaved``: every repetition takes one sample of
each implementation, in a fresh random order, so that drift in the machine's
load hits all of them alike.  Unlike the suite's default, no untimed call
precedes a sample: each implementation pays for following another one, as a
kernel in a model does.
Prints the median of each and the ratios numpy / fastbits and
onnxruntime / fastbits as a markdown table, one row per case of issue 3's
performance bar plus the BitCast rows.

onnxruntime runs a one-node model (BitwiseAnd, opset 18) built by the
suite's ``fastbits._bench.ort``, through plain ``InferenceSession.run`` with
numpy inputs (no I/O binding): its time includes the copy of non-contiguous
inputs and the allocation of the output, as a user of ``run`` pays them.

Usage::

    python benchmarks/bench_kernels.py [--threads N] [--ort-threads N] [--repeat R]
                                       [--no-ort] [--ort-spin] [--no-pool] [--quick]

``--threads`` sets fastbits' threads (default: its own default, or
FASTBITS_NUM_THREADS); onnxruntime keeps its default intra-op threads unless
``--ort-threads`` is given.  numpy is single-threaded.  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys

import numpy as np

import fastbits
from fastbits import _ops_c as fb
from fastbits._bench.ort import Models, make_session
from fastbits._bench.report import fmt_time as fmt
from fastbits._bench.timing import Mode, time_interleaved

try:
    import onnxruntime as ort

    MODELS = Models()
except ImportError:  # onnxruntime is optional
    ort = None

SPIN = False


def ort_session(dtype: np.dtype, threads: int | None):
    if ort is None:
        return None
    # without spinning unless --ort-spin: ORT's pool otherwise spins after each run,
    # taking the cores from whatever runs next in this process (numpy, fastbits' threads)
    return make_session(MODELS.model("and", dtype), threads, spin=SPIN)


def measure(impls: dict, repeat: int) -> dict:
    """Median seconds per call of each implementation, ``repeat`` interleaved samples each."""
    mode = Mode("kernels", target=2e-4, min_reps=repeat, max_reps=repeat, budget=0.0,
                ceiling_elems=0, ceiling_reps=0)
    stats = time_interleaved(impls, mode, warm_below=0.0)
    return {name: values["median_s"] for name, values in stats.items()}


def cases(quick: bool):
    rng = np.random.default_rng(0)

    def ints(shape, dtype=np.int32):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)

    big = 1 << 22 if quick else 1 << 24
    side = 2048 if quick else 4096
    a16, b16, o16 = ints(16), ints(16), np.empty(16, np.int32)
    a4k, b4k = ints(4096), ints(4096)
    x345, y5 = ints((3, 4, 5), np.uint64), ints(5, np.uint64)
    abig, bbig, obig = ints(big), ints(big), np.empty(big, np.int32)
    m5, r5 = ints((big // 16, 5)), ints(5)
    M, M2 = ints((side, side)), ints((side, side))
    col, row, zero = ints((side, 1)), ints((1, side)), np.array(ints(()))
    f_big = abig.view(np.float32)
    swapped = abig.astype(">i4")
    mb = f"{big >> 20}M"
    # (label, bar, operands, fastbits call, numpy call, onnxruntime inputs or None)
    yield "16 x int32", "1.5", (lambda: fb.bitwise_and(a16, b16)), (lambda: np.bitwise_and(a16, b16)), (a16, b16)
    yield "16 x int32, out=", "3", (lambda: fb.bitwise_and(a16, b16, out=o16)), (
        lambda: np.bitwise_and(a16, b16, out=o16)
    ), None
    yield "4096 x int32", "1.3", (lambda: fb.bitwise_and(a4k, b4k)), (lambda: np.bitwise_and(a4k, b4k)), (a4k, b4k)
    yield "(3,4,5) uint64 & (5,)", "2.5", (lambda: fb.bitwise_and(x345, y5)), (
        lambda: np.bitwise_and(x345, y5)
    ), (x345, y5)
    yield f"{mb} int32, out=", "1.8", (lambda: fb.bitwise_and(abig, bbig, out=obig)), (
        lambda: np.bitwise_and(abig, bbig, out=obig)
    ), None
    yield f"{mb} int32, fresh", "1.5", (lambda: fb.bitwise_and(abig, bbig)), (
        lambda: np.bitwise_and(abig, bbig)
    ), (abig, bbig)
    yield f"({big // 16 >> 10}K,5) & (5,) int32", "4", (lambda: fb.bitwise_and(m5, r5)), (
        lambda: np.bitwise_and(m5, r5)
    ), (m5, r5)
    yield f"({side},{side}) & ({side},1) int32", "2.5", (lambda: fb.bitwise_and(M, col)), (
        lambda: np.bitwise_and(M, col)
    ), (M, col)
    yield f"({side},{side}) & (1,{side}) int32", "2.5", (lambda: fb.bitwise_and(M, row)), (
        lambda: np.bitwise_and(M, row)
    ), (M, row)
    yield f"({side},{side}) & 0-d int32", "2.5", (lambda: fb.bitwise_and(M, zero)), (
        lambda: np.bitwise_and(M, zero)
    ), (M, zero)
    yield f"({side},{side})[:, ::2] & [:, 1::2] int32", "2", (lambda: fb.bitwise_and(M[:, ::2], M2[:, 1::2])), (
        lambda: np.bitwise_and(M[:, ::2], M2[:, 1::2])
    ), (M[:, ::2], M2[:, 1::2])
    half = np.ascontiguousarray(M2[:, : side // 2])
    yield f"({side},{side})[:, ::2] & contiguous int32", "2", (lambda: fb.bitwise_and(M[:, ::2], half)), (
        lambda: np.bitwise_and(M[:, ::2], half)
    ), (M[:, ::2], half)
    yield f"({side},{side}).T & ({side},{side}) int32", "4", (lambda: fb.bitwise_and(M.T, M2)), (
        lambda: np.bitwise_and(M.T, M2)
    ), (M.T, M2)
    # BitCast rows: numpy's equivalents are x.view, np.copy and astype to native order
    f16 = a16.view(np.float32)
    yield "bitcast view, 16 x float32", "< 2 µs", (lambda: fb.bitcast(f16, 6)), (lambda: f16.view(np.int32)), None
    yield f"bitcast view, {mb} float32", "< 2 µs", (lambda: fb.bitcast(f_big, 6)), (
        lambda: f_big.view(np.int32)
    ), None
    yield f"bitcast copy=True, {mb} float32", "0.9", (lambda: fb.bitcast(f_big, 6, copy=True)), (
        lambda: np.copy(f_big)
    ), None
    yield f"bitcast copy=True, ({side},{side}).T int32", "0.9", (lambda: fb.bitcast(M.T, 1, copy=True)), (
        lambda: np.copy(M.T, order="C")
    ), None
    yield f"bitcast byte swap, {mb} >i4", "1", (lambda: fb.bitcast(swapped, 6)), (
        lambda: swapped.astype(swapped.dtype.newbyteorder("="))
    ), None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=None, help="fastbits threads (default: its own)")
    parser.add_argument("--ort-threads", type=int, default=None, help="onnxruntime intra-op threads")
    parser.add_argument("--repeat", type=int, default=15, help="repetitions per case (median)")
    parser.add_argument("--no-ort", action="store_true", help="leave onnxruntime out")
    parser.add_argument("--ort-spin", action="store_true", help="let onnxruntime's threads spin (its default)")
    parser.add_argument("--no-pool", action="store_true", help="fresh results without the output pool")
    parser.add_argument("--quick", action="store_true", help="smaller arrays, for a smoke run")
    args = parser.parse_args(argv)
    global SPIN, ort
    SPIN = args.ort_spin
    if args.no_ort:
        ort = None
    if args.threads is not None:
        fb.set_num_threads(args.threads)
    if args.no_pool:
        fastbits.set_config(output_pool=False)
    sessions = {}
    rows = []
    for label, bar, fast, slow, ort_inputs in cases(args.quick):
        impls = {"numpy": slow, "fastbits": fast}
        if ort is not None and ort_inputs is not None:
            a, b = ort_inputs
            key = a.dtype
            if key not in sessions:
                sessions[key] = ort_session(a.dtype, args.ort_threads)
            session = sessions[key]
            impls["onnxruntime"] = lambda s=session, a=a, b=b: s.run(None, {"a": a, "b": b})
        medians = measure(impls, args.repeat)
        rows.append((label, bar, medians))
        print(f"  measured {label}", file=sys.stderr)

    info = fastbits.runtime_info()
    have_threads = info["threads_available"]
    hits, misses, idle = info["pool_hits"], info["pool_misses"], info["pool_idle_bytes"]
    print(
        f"fastbits compiled, threads={fb.get_num_threads()} (thread team {'on' if have_threads else 'off'}); "
        f"numpy {np.__version__}; onnxruntime {ort.__version__ if ort else 'not installed'} "
        f"(plain run, threads={args.ort_threads or 'default'}, spinning {'on' if SPIN else 'off'}); {platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}; median of {args.repeat}, interleaved"
    )
    print()
    print("| case | numpy | fastbits | onnxruntime | numpy / fastbits | ort / fastbits | bar |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for label, bar, m in rows:
        o = m.get("onnxruntime")
        ratio_ort = f"{o / m['fastbits']:.2f}" if o else "n/a"
        print(
            f"| {label} | {fmt(m['numpy'])} | {fmt(m['fastbits'])} | {fmt(o) if o else 'n/a'} | "
            f"{m['numpy'] / m['fastbits']:.2f} | {ratio_ort} | {bar} |"
        )
    print()
    if args.no_pool:
        print("output pool: off (--no-pool)")
    else:
        print(f"output pool: {hits} reuses, {misses} new blocks, {idle >> 20} MiB idle at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
