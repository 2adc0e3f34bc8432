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
performance bar plus the BitCast rows.  Every BitwiseAnd result is checked
against numpy's before it is timed.

``--ops or,xor,not,shl,shr`` also times fastbits' BitwiseOr, BitwiseXor,
BitwiseNot and BitShift LEFT/RIGHT on BitwiseAnd's cases, in the same
interleaved repetitions as AND (each checked against numpy's np.bitwise_or,
np.bitwise_xor, np.invert, np.left_shift, np.right_shift first), and prints a
second table: each operator's median time over AND's on the same case, against
issue 10's bar (at most 1.10).  NOT takes the first operand alone; the shifts
take ``b & (bits - 1)`` laid out as ``b`` is (amounts in range, where numpy
and ONNX agree), so the 0-d row is a shift by a scalar amount.

onnxruntime runs a one-node model (BitwiseAnd, opset 18) built by the
suite's ``fastbits._bench.ort``, through plain ``InferenceSession.run`` with
numpy inputs (no I/O binding): its time includes the copy of non-contiguous
inputs and the allocation of the output, as a user of ``run`` pays them.

Usage::

    python benchmarks/bench_kernels.py [--threads N] [--ort-threads N] [--repeat R]
                                       [--no-ort] [--ort-spin] [--no-pool] [--quick]
                                       [--ops or,xor,not,shl,shr]

``--threads`` sets fastbits' threads (default: its own default, or
FASTBITS_NUM_THREADS); onnxruntime keeps its default intra-op threads unless
``--ort-threads`` is given.  numpy is single-threaded.  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np

import fastbits
from fastbits import _ops_c as fb
from fastbits._bench.cases import ELEMENTWISE
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


@dataclass
class Row:
    """A case: BitwiseAnd's operands (``arrays``: a, b and out=), or a BitCast's two calls."""

    label: str
    bar: str
    arrays: dict | None = None      # an elementwise case
    ort: bool = False               # onnxruntime runs it too (plain run: no out=)
    fast: Callable | None = None    # a BitCast case: fastbits' call
    slow: Callable | None = None    # and numpy's

    def calls(self, op: str = "and") -> tuple[Callable, Callable]:
        """fastbits' and numpy's calls of ``op`` on this case's operands (see :func:`operands_of`)."""
        if self.arrays is None:
            return self.fast, self.slow
        e, arrays = ELEMENTWISE[op], operands_of(op, self.arrays)
        return e.call(fb, arrays), e.numpy_call(arrays)


def in_range(b: np.ndarray) -> np.ndarray:
    """``b & (bits - 1)``, laid out as ``b`` is (its strides and offset in a masked copy of its
    base): shift amounts in range, on the same memory layout as BitwiseAnd's operand."""
    base = b if b.base is None else b.base
    masked = np.ascontiguousarray(base & base.dtype.type(8 * base.itemsize - 1))
    offset = b.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return np.ndarray(b.shape, b.dtype, masked, offset, b.strides)


_AMOUNTS: dict[int, np.ndarray] = {}


def operands_of(op: str, arrays: dict) -> dict:
    """BitwiseAnd's operands as ``op`` takes them: NOT the first alone, shifts by ``b`` in range."""
    if op == "not":
        return {k: v for k, v in arrays.items() if k != "b"}
    if ELEMENTWISE[op].direction:
        b = arrays["b"]
        if id(b) not in _AMOUNTS:   # one masked copy for LEFT and RIGHT, kept alive with the case
            _AMOUNTS[id(b)] = in_range(b)
        return {**arrays, "b": _AMOUNTS[id(b)]}
    return arrays


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
    # BitwiseAnd (and, with --ops, its siblings): label, issue 3's bar, operands, onnxruntime too
    yield Row("16 x int32", "1.5", {"a": a16, "b": b16}, ort=True)
    yield Row("16 x int32, out=", "3", {"a": a16, "b": b16, "out": o16})
    yield Row("4096 x int32", "1.3", {"a": a4k, "b": b4k}, ort=True)
    yield Row("(3,4,5) uint64 & (5,)", "2.5", {"a": x345, "b": y5}, ort=True)
    yield Row(f"{mb} int32, out=", "1.8", {"a": abig, "b": bbig, "out": obig})
    yield Row(f"{mb} int32, fresh", "1.5", {"a": abig, "b": bbig}, ort=True)
    yield Row(f"({big // 16 >> 10}K,5) & (5,) int32", "4", {"a": m5, "b": r5}, ort=True)
    yield Row(f"({side},{side}) & ({side},1) int32", "2.5", {"a": M, "b": col}, ort=True)
    yield Row(f"({side},{side}) & (1,{side}) int32", "2.5", {"a": M, "b": row}, ort=True)
    yield Row(f"({side},{side}) & 0-d int32", "2.5", {"a": M, "b": zero}, ort=True)
    yield Row(f"({side},{side})[:, ::2] & [:, 1::2] int32", "2", {"a": M[:, ::2], "b": M2[:, 1::2]}, ort=True)
    half = np.ascontiguousarray(M2[:, : side // 2])
    yield Row(f"({side},{side})[:, ::2] & contiguous int32", "2", {"a": M[:, ::2], "b": half}, ort=True)
    yield Row(f"({side},{side}).T & ({side},{side}) int32", "4", {"a": M.T, "b": M2}, ort=True)
    # BitCast rows: numpy's equivalents are x.view, np.copy and astype to native order
    f16 = a16.view(np.float32)
    yield Row("bitcast view, 16 x float32", "< 2 µs", fast=lambda: fb.bitcast(f16, 6), slow=lambda: f16.view(np.int32))
    yield Row(f"bitcast view, {mb} float32", "< 2 µs", fast=lambda: fb.bitcast(f_big, 6),
              slow=lambda: f_big.view(np.int32))
    yield Row(f"bitcast copy=True, {mb} float32", "0.9", fast=lambda: fb.bitcast(f_big, 6, copy=True),
              slow=lambda: np.copy(f_big))
    yield Row(f"bitcast copy=True, ({side},{side}).T int32", "0.9", fast=lambda: fb.bitcast(M.T, 1, copy=True),
              slow=lambda: np.copy(M.T, order="C"))
    yield Row(f"bitcast byte swap, {mb} >i4", "1", fast=lambda: fb.bitcast(swapped, 6),
              slow=lambda: swapped.astype(swapped.dtype.newbyteorder("=")))


def parse_ops(text: str | None) -> list[str]:
    """``--ops or,xor,not,shl,shr``: the operators timed beside AND (which is always)."""
    if not text:
        return []
    ops = [op.strip().lower() for op in text.split(",") if op.strip()]
    unknown = [op for op in ops if op not in ELEMENTWISE]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown op(s) {', '.join(unknown)}; choose from {', '.join(ELEMENTWISE)}")
    return [op for op in dict.fromkeys(ops) if op != "and"]


def check(op: str, fast: Callable, slow: Callable) -> str | None:
    """Why fastbits' ``op`` differs from numpy's on a case, or None (out= cases share ``out``: copied first)."""
    got = np.array(fast(), copy=True)
    want = np.asarray(slow())
    if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
        return f"{op}: fastbits differs from numpy ({got.dtype}{got.shape} against {want.dtype}{want.shape})"
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=None, help="fastbits threads (default: its own)")
    parser.add_argument("--ort-threads", type=int, default=None, help="onnxruntime intra-op threads")
    parser.add_argument("--repeat", type=int, default=15, help="repetitions per case (median)")
    parser.add_argument("--no-ort", action="store_true", help="leave onnxruntime out")
    parser.add_argument("--ort-spin", action="store_true", help="let onnxruntime's threads spin (its default)")
    parser.add_argument("--no-pool", action="store_true", help="fresh results without the output pool")
    parser.add_argument("--quick", action="store_true", help="smaller arrays, for a smoke run")
    parser.add_argument("--ops", type=parse_ops, default=[], metavar="OP,...",
                        help="also time fastbits' " + ", ".join(op for op in ELEMENTWISE if op != "and")
                             + " on BitwiseAnd's cases, interleaved with AND, and print each one's time "
                               "relative to AND's (not: the first operand alone; shl/shr: amounts b & (bits-1))")
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
    rows, wrong = [], []
    for case in cases(args.quick):
        fast, slow = case.calls()
        impls = {"numpy": slow, "fastbits": fast}
        if ort is not None and case.ort:
            a, b = case.arrays["a"], case.arrays["b"]
            if a.dtype not in sessions:
                sessions[a.dtype] = ort_session(a.dtype, args.ort_threads)
            impls["onnxruntime"] = lambda s=sessions[a.dtype], a=a, b=b: s.run(None, {"a": a, "b": b})
        for op in (["and", *args.ops] if case.arrays is not None else []):
            fast_op, slow_op = case.calls(op)
            why = check(op, fast_op, slow_op)
            if why:
                wrong.append(f"{case.label}: {why}")
            elif op != "and":
                impls[f"fastbits {op}"] = fast_op
        medians = measure(impls, args.repeat)
        rows.append((case.label, case.bar, medians))
        print(f"  measured {case.label}", file=sys.stderr)

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
    if args.ops:
        print()
        ops_table(rows, args.ops)
    print()
    if args.no_pool:
        print("output pool: off (--no-pool)")
    else:
        print(f"output pool: {hits} reuses, {misses} new blocks, {idle >> 20} MiB idle at the end")
    for line in wrong:
        print(line, file=sys.stderr)
    return 1 if wrong else 0


#: Issue 10's bar: each operator within 10% of BitwiseAnd on the same case.
OPS_BAR = 1.10


def ops_table(rows: list, ops: list[str]) -> None:
    """Each op's median time over AND's on the same case, fastbits at its threads, interleaved."""
    print(f"fastbits: each operator's median time / BitwiseAnd's on the same case (bar: at most {OPS_BAR:.2f}; "
          "* over it; not: the first operand alone; shl/shr: b & (bits-1), the 0-d row a scalar amount)")
    print()
    print("| case | and | " + " | ".join(f"{op} / and" for op in ops) + " |")
    print("|---|---:|" + "---:|" * len(ops))
    worst = None
    for label, _, m in rows:
        if not any(f"fastbits {op}" in m for op in ops):
            continue   # BitCast rows
        cells = []
        for op in ops:
            t = m.get(f"fastbits {op}")
            if t is None:
                cells.append("wrong")
                continue
            r = t / m["fastbits"]
            cells.append(f"{r:.2f}" + ("*" if r > OPS_BAR else ""))
            if worst is None or r > worst[0]:
                worst = (r, op, label)
        print(f"| {label} | {fmt(m['fastbits'])} | " + " | ".join(cells) + " |")
    if worst:
        print()
        print(f"worst: {worst[1]} at {worst[0]:.2f} x AND on {worst[2]}")


if __name__ == "__main__":
    sys.exit(main())
