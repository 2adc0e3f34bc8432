"""The benchmark suite behind ``python -m fastbits bench``.

fastbits' BitwiseAnd and BitCast side by side with numpy, onnxruntime and the
onnx reference evaluator, in one process:

* every case first runs each implementation once and compares its result with
  numpy's, byte for byte; an implementation that differs is reported as
  ``wrong`` and not timed;
* after a warm-up, the implementations are timed interleaved: every
  repetition takes one sample of each, in a fresh random order; a sample is a
  batch of calls that takes at least ``Mode.target`` seconds, or one call for
  big arrays, preceded by one untimed call when calls are short (so that each
  is measured warm, its thread pool awake, whatever ran before it); the
  figures are the median time per call, its spread (interquartile range,
  min..max), the ratios numpy/impl and impl/fastbits, and the bytes of the
  elements read and written per second;
* fastbits compiled runs at its configured thread count (``--threads``) and,
  when that is more than one, also at one thread (``fastbits-c-1t``), the fair
  match for numpy and ``ort-1t``;
* the memory-bandwidth ceiling is a 3-stream ``np.add(a, b, out=c)`` over
  float64 arrays several times larger than the last-level cache, on one
  thread and split over the fastbits thread count.

Nothing here is imported by ``import fastbits``; onnx, onnxruntime and
matplotlib are imported only when the suite runs.  ``benchmarks/suite.py`` runs
the full suite from a checkout.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import re
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import import_module, metadata
from typing import Any, Callable

import numpy as np

import fastbits
from fastbits import _ops

# ---------------------------------------------------------------------------
# Modes

@dataclass(frozen=True)
class Mode:
    name: str
    target: float          # a sample lasts at least this long (seconds), unless one call is longer
    min_reps: int
    max_reps: int
    budget: float          # timing seconds per case, within [min_reps, max_reps]
    ceiling_elems: int     # float64 elements per array of the bandwidth ceiling
    ceiling_reps: int


MODES = {
    "smoke": Mode("smoke", 2e-5, 2, 2, 0.0, 1 << 18, 2),
    "quick": Mode("quick", 2e-4, 5, 25, 0.06, 1 << 23, 7),
    "full": Mode("full", 5e-4, 11, 61, 2.0, 1 << 25, 21),
}


# ---------------------------------------------------------------------------
# Cases

K, M = 1 << 10, 1 << 20


def _size(n: int) -> str:
    for unit, scale in (("M", M), ("K", K)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


@dataclass
class Case:
    """One benchmark: an operator call on arrays that :attr:`build` makes when the case runs."""

    group: str
    name: str
    op: str                                  # "and" or "bitcast"
    build: Callable[[np.random.Generator], dict[str, Any]]
    tiers: str                               # "s": smoke, "q": quick, "f": full
    out: bool = False                        # BitwiseAnd into a preallocated out=
    copy: bool = False                       # BitCast copy=True
    to: str | None = None                    # BitCast target, an ONNX type name
    reference: Callable[..., np.ndarray] | None = None   # numpy's way to the same bits

    def describe(self, arrays: dict[str, Any]) -> str:
        def spec_of(x):
            x = np.asarray(x)
            order = "" if x.flags.c_contiguous else (" F-order" if x.flags.f_contiguous else " strided")
            return f"{x.shape} {x.dtype.str if x.dtype.byteorder == '>' else x.dtype}{order}"

        if self.op == "and":
            dest = "out=" if self.out else "fresh"
            return f"{spec_of(arrays['a'])} & {spec_of(arrays['b'])} -> {dest}"
        mode = "copy=True" if self.copy else "copy=False"
        return f"{spec_of(arrays['x'])} -> {self.to}, {mode}"


def _ints(rng: np.random.Generator, dtype: Any, shape: Any) -> np.ndarray:
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def _and(a_shape, b_shape, dtype=np.int32, a_view=None, b_view=None, out=False):
    """A builder for BitwiseAnd operands: random arrays, optionally viewed (sliced, transposed)."""

    def build(rng):
        a = _ints(rng, dtype, a_shape)
        b = _ints(rng, dtype, b_shape)
        if a_view is not None:
            a = a_view(a)
        if b_view is not None:
            b = b_view(b)
        arrays = {"a": a, "b": b}
        if out:
            arrays["out"] = np.empty(np.broadcast_shapes(a.shape, b.shape), dtype)
        return arrays

    return build


def _bitcast_input(maker):
    return lambda rng: {"x": maker(rng)}


def _float32(n):
    # random bit patterns: NaN payloads, subnormals and infinities included
    return lambda rng: _ints(rng, np.uint32, n).view(np.float32)


def _big_endian_int32(n):
    return lambda rng: _ints(rng, np.int32, n).astype(">i4")


def _int4(n):
    import ml_dtypes

    return lambda rng: rng.integers(-8, 8, size=n, dtype=np.int8).astype(ml_dtypes.int4)


def _uint4_copy(x):
    import ml_dtypes

    return np.bitwise_and(x.view(np.uint8), 0x0F).view(ml_dtypes.uint4)


def cases() -> list[Case]:
    """Every case of the suite; a mode runs those whose ``tiers`` name it."""
    out: list[Case] = []
    T = lambda x: x.T  # noqa: E731
    # contiguous, fresh output
    sizes = [(16, "q"), (K, "sq"), (64 * K, "q"), (M, "q"), (16 * M, "f"), (64 * M, "f")]
    for dtype in (np.int8, np.int32, np.int64):
        name = np.dtype(dtype).name
        for n, tiers in sizes:
            if dtype is not np.int32:
                tiers = {16: "f", K: "f", 64 * K: "f", M: "q"}.get(n, tiers)
                tiers = tiers.replace("s", "")
            out.append(Case("contiguous", f"and {name} n={_size(n)}", "and", _and((n,), (n,), dtype), tiers))
    # broadcasts
    out += [
        Case("broadcast", "and int32 (1M,) & scalar", "and", _and((M,), ()), "q"),
        Case("broadcast", "and int32 (1K,1K) & (1K,) row", "and", _and((K, K), (K,)), "q"),
        Case("broadcast", "and int32 (1K,1K) & (1K,1) column", "and", _and((K, K), (K, 1)), "q"),
        Case("broadcast", "and int32 (200K,5) & (5,)", "and", _and((200_000, 5), (5,)), "q"),
        Case("broadcast", "and int32 (3,4,5) & (5,) spec", "and", _and((3, 4, 5), (5,)), "sq"),
        Case("broadcast", "and int32 (3,4,5,6) & (4,5,6) spec", "and", _and((3, 4, 5, 6), (4, 5, 6)), "q"),
        Case("broadcast", "and int8 (16M,) & scalar", "and", _and((16 * M,), (), np.int8), "f"),
        Case("broadcast", "and int32 (4K,4K) & (4K,1) column", "and", _and((4 * K, 4 * K), (4 * K, 1)), "f"),
    ]
    # strided and transposed inputs
    out += [
        Case("strided", "and int32 [::2] n=1K", "and",
             _and((2 * K,), (2 * K,), a_view=lambda x: x[::2], b_view=lambda x: x[::2]), "s"),
        Case("strided", "and int32 [::2] n=1M", "and",
             _and((2 * M,), (2 * M,), a_view=lambda x: x[::2], b_view=lambda x: x[::2]), "q"),
        Case("strided", "and int32 [::-1] n=1M", "and", _and((M,), (M,), a_view=lambda x: x[::-1]), "q"),
        Case("strided", "and int32 (1K,1K).T & (1K,1K)", "and", _and((K, K), (K, K), a_view=T), "q"),
        Case("strided", "and int32 (1K,1K).T & (1K,1K).T", "and", _and((K, K), (K, K), a_view=T, b_view=T), "q"),
        Case("strided", "and int64 (4K,4K).T & (4K,4K)", "and", _and((4 * K, 4 * K), (4 * K, 4 * K), np.int64, a_view=T), "f"),
    ]
    # out=
    out += [
        Case("out", "and int32 n=1K out=", "and", _and((K,), (K,), out=True), "sq", out=True),
        Case("out", "and int32 n=1M out=", "and", _and((M,), (M,), out=True), "q", out=True),
        Case("out", "and int32 n=16M out=", "and", _and((16 * M,), (16 * M,), out=True), "f", out=True),
        Case("out", "and int32 (1K,1K) & (1K,) row out=", "and", _and((K, K), (K,), out=True), "q", out=True),
        Case("out", "and int32 (1K,1K).T & (1K,1K) out=", "and", _and((K, K), (K, K), a_view=T, out=True), "q", out=True),
    ]
    # BitCast
    out += [
        Case("bitcast", "bitcast float->int32 view n=16", "bitcast", _bitcast_input(_float32(16)), "q",
             to="INT32", reference=lambda x: x.view(np.int32)),
        Case("bitcast", "bitcast float->int32 view n=1M", "bitcast", _bitcast_input(_float32(M)), "q",
             to="INT32", reference=lambda x: x.view(np.int32)),
        Case("bitcast", "bitcast float->int32 copy n=16", "bitcast", _bitcast_input(_float32(16)), "sq",
             to="INT32", copy=True, reference=lambda x: x.view(np.int32).copy()),
        Case("bitcast", "bitcast float->int32 copy n=1M", "bitcast", _bitcast_input(_float32(M)), "q",
             to="INT32", copy=True, reference=lambda x: x.view(np.int32).copy()),
        Case("bitcast", "bitcast float->int32 copy n=16M", "bitcast", _bitcast_input(_float32(16 * M)), "f",
             to="INT32", copy=True, reference=lambda x: x.view(np.int32).copy()),
        Case("bitcast", "bitcast >i4->float n=1M", "bitcast", _bitcast_input(_big_endian_int32(M)), "q",
             to="FLOAT", reference=lambda x: x.astype(np.int32).view(np.float32)),
        Case("bitcast", "bitcast >i4->float n=16M", "bitcast", _bitcast_input(_big_endian_int32(16 * M)), "f",
             to="FLOAT", reference=lambda x: x.astype(np.int32).view(np.float32)),
        Case("bitcast", "bitcast int4->uint4 copy n=1M", "bitcast", lambda rng: {"x": _int4(M)(rng)}, "q",
             to="UINT4", copy=True, reference=_uint4_copy),
    ]
    return out


def select(mode: str, pattern: str | None = None) -> list[Case]:
    tier = mode[0]
    chosen = [c for c in cases() if tier in c.tiers or (tier == "f" and "q" in c.tiers)]
    if pattern:
        chosen = [c for c in chosen if pattern.lower() in f"{c.group} {c.name}".lower()]
    return chosen


def bytes_moved(case: Case, arrays: dict[str, Any]) -> int:
    """Bytes of the elements read and written by one call (0 for a BitCast view)."""
    if case.op == "and":
        a, b = arrays["a"], arrays["b"]
        return a.nbytes + b.nbytes + int(np.prod(np.broadcast_shapes(a.shape, b.shape))) * a.itemsize
    x = arrays["x"]
    if case.copy or x.dtype.byteorder == ">":
        return 2 * x.nbytes
    return 0


# ---------------------------------------------------------------------------
# Implementations

NotApplicable = str   # a prepare() that cannot run the case returns the reason


@dataclass
class Impl:
    name: str
    description: str
    available: bool = True
    reason: str = ""
    prepare: Callable[[Case, dict[str, Any]], Callable[[], Any] | NotApplicable] | None = None


def _fastbits_prepare(module, threads: int | None = None):
    """Calls of ``module``; with ``threads``, each sample first sets the kernels' thread count."""

    def prepare(case, arrays):
        if case.op == "and":
            a, b = arrays["a"], arrays["b"]
            if case.out:
                out = arrays["out"]
                fn = lambda: module.bitwise_and(a, b, out=out)  # noqa: E731
            else:
                fn = lambda: module.bitwise_and(a, b)  # noqa: E731
        else:
            x, to, copy = arrays["x"], case.to, case.copy
            fn = lambda: module.bitcast(x, to, copy=copy)  # noqa: E731
        if threads is not None:
            fn.before = lambda: module.set_num_threads(threads)  # outside the timed batch
        return fn

    return prepare


def _numpy_prepare(case, arrays):
    if case.op == "and":
        a, b = arrays["a"], arrays["b"]
        if case.out:
            out = arrays["out"]
            return lambda: np.bitwise_and(a, b, out=out)
        return lambda: np.bitwise_and(a, b)
    x, reference = arrays["x"], case.reference
    return lambda: reference(x)


class _Onnx:
    """One-node models, built with onnx.helper and cached per operator and types."""

    def __init__(self):
        self.onnx = import_module("onnx")
        self.helper = import_module("onnx.helper")
        self.models: dict[tuple, Any] = {}

    def tensor_type(self, dtype) -> int:
        dtype = np.dtype(dtype)
        if dtype.byteorder == ">":      # fed as its native twin: ONNX types have no byte order
            dtype = dtype.newbyteorder("=")
        return fastbits.spec.resolve_to(dtype).value

    def model(self, case: Case, arrays: dict[str, Any]):
        h, TP = self.helper, self.onnx.TensorProto
        if case.op == "and":
            t = self.tensor_type(arrays["a"].dtype)
            key = ("and", t)
            if key not in self.models:
                node = h.make_node("BitwiseAnd", ["a", "b"], ["y"])
                inputs = [h.make_tensor_value_info(n, t, None) for n in ("a", "b")]
                outputs = [h.make_tensor_value_info("y", t, None)]
                self.models[key] = self._make(node, inputs, outputs, 18)
        else:
            src = self.tensor_type(arrays["x"].dtype)
            dst = getattr(TP, case.to)
            key = ("bitcast", src, dst)
            if key not in self.models:
                node = h.make_node("BitCast", ["x"], ["y"], to=dst)
                inputs = [h.make_tensor_value_info("x", src, None)]
                outputs = [h.make_tensor_value_info("y", dst, None)]
                self.models[key] = self._make(node, inputs, outputs, 26)
        return self.models[key]

    def _make(self, node, inputs, outputs, opset):
        h = self.helper
        graph = h.make_graph([node], "bench", inputs, outputs)
        return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])


def _ort_impl(onnx_models: _Onnx | None, threads: int | None) -> Impl:
    name = "ort-1t" if threads == 1 else "ort"
    what = "1 intra-op thread" if threads == 1 else "its default intra-op threads"
    description = (f"onnxruntime, CPU provider, {what}: InferenceSession.run; "
                   "I/O binding into the preallocated output for out= cases")
    try:
        ort = import_module("onnxruntime")
    except ImportError as exc:
        return Impl(name, description, False, f"onnxruntime not installed ({exc})")
    if onnx_models is None:
        return Impl(name, description, False, "onnx not installed (needed to build the models)")
    sessions: dict[int, Any] = {}

    def session(model):
        key = id(model)
        if key not in sessions:
            options = ort.SessionOptions()
            if threads is not None:
                options.intra_op_num_threads = threads
                options.inter_op_num_threads = threads
            options.log_severity_level = 3
            sessions[key] = ort.InferenceSession(
                model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        return sessions[key]

    def prepare(case, arrays):
        try:
            sess = session(onnx_models.model(case, arrays))
        except Exception as exc:  # NOT_IMPLEMENTED kernels and the like: the case is n/a
            if "NOT_IMPLEMENTED" in str(exc) and case.op == "bitcast":
                return (f"onnxruntime {ort.__version__} has no BitCast kernel for "
                        f"{arrays['x'].dtype} -> {case.to} (NOT_IMPLEMENTED)")
            return _first_line(exc)
        if case.op == "and":
            a, b = arrays["a"], arrays["b"]
            if case.out:
                out = arrays["out"]
                if not out.flags.c_contiguous:
                    return "I/O binding needs a C-contiguous out"
                io = sess.io_binding()
                io.bind_output("y", "cpu", 0, out.dtype, out.shape, out.ctypes.data)

                def run_bound():
                    io.bind_cpu_input("a", a)
                    io.bind_cpu_input("b", b)
                    sess.run_with_iobinding(io)
                    return out

                return run_bound
            feeds = {"a": a, "b": b}
        else:
            feeds = {"x": arrays["x"]}
        return lambda: sess.run(None, feeds)[0]

    return Impl(name, description, prepare=prepare)


def _reference_impl(onnx_models: _Onnx | None) -> Impl:
    description = "onnx.reference.ReferenceEvaluator (numpy inside); no out= API"
    if onnx_models is None:
        return Impl("onnx-ref", description, False, "onnx not installed")
    from onnx.reference import ReferenceEvaluator

    evaluators: dict[int, Any] = {}

    def prepare(case, arrays):
        if case.out:
            return "no out= API"
        model = onnx_models.model(case, arrays)
        if id(model) not in evaluators:
            try:
                evaluators[id(model)] = ReferenceEvaluator(model)
            except Exception as exc:
                return _first_line(exc)
        ref = evaluators[id(model)]
        feeds = {"a": arrays["a"], "b": arrays["b"]} if case.op == "and" else {"x": arrays["x"]}
        return lambda: ref.run(None, feeds)[0]

    return Impl("onnx-ref", description, prepare=prepare)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:160]


def implementations(threads: int = 1) -> list[Impl]:
    """Every implementation, available or not; fastbits compiled runs at ``threads`` threads,
    and also at one thread when ``threads`` is more than one."""
    impls = []
    compiled = f"fastbits compiled (Cython kernels, fastbits._ops_c), {threads} thread(s)"
    if _ops.PURE_PYTHON:
        impls.append(Impl("fastbits-c", compiled, False, "FASTBITS_PURE_PYTHON is set"))
    else:
        try:
            module = import_module("fastbits._ops_c")
            impls.append(Impl("fastbits-c", compiled, prepare=_fastbits_prepare(module, threads)))
            if threads > 1 and module.get_num_threads() > 1:
                impls.append(Impl("fastbits-c-1t", "fastbits compiled, 1 thread",
                                  prepare=_fastbits_prepare(module, 1)))
        except ImportError as exc:
            impls.append(Impl("fastbits-c", compiled, False, f"not built ({exc})"))
    impls.append(Impl("fastbits-py", "fastbits pure Python (numpy + ml_dtypes, fastbits._ops_py)",
                      prepare=_fastbits_prepare(import_module("fastbits._ops_py"))))
    impls.append(Impl("numpy", "numpy: np.bitwise_and; BitCast by ndarray.view / astype / copy",
                      prepare=_numpy_prepare))
    try:
        onnx_models: _Onnx | None = _Onnx()
    except ImportError:
        onnx_models = None
    impls.append(_ort_impl(onnx_models, 1))
    impls.append(_ort_impl(onnx_models, None))
    impls.append(_reference_impl(onnx_models))
    return impls


def fastbits_name() -> str:
    """The implementation the impl/fastbits ratios divide by: the active backend."""
    return "fastbits-c" if fastbits.BACKEND == "cython" else "fastbits-py"


# ---------------------------------------------------------------------------
# Checking and timing

def _native(r: np.ndarray) -> np.ndarray:
    r = np.asarray(r)
    if r.dtype.byteorder == ">":
        r = r.astype(r.dtype.newbyteorder("="))
    return r


def differs(result: Any, expected: np.ndarray) -> str | None:
    """Why ``result`` is not bit for bit ``expected``, or None."""
    if not isinstance(result, np.ndarray):
        return f"returned {type(result).__name__}"
    r = _native(result)
    if r.shape != expected.shape:
        return f"shape {r.shape}, expected {expected.shape}"
    if r.dtype != expected.dtype:
        return f"dtype {result.dtype}, expected {expected.dtype}"
    rb = np.ascontiguousarray(r).reshape(-1).view(np.uint8)
    eb = np.ascontiguousarray(expected).reshape(-1).view(np.uint8)
    if not np.array_equal(rb, eb):
        bad = np.flatnonzero(rb != eb)
        return f"differs from numpy in {bad.size} of {rb.size} bytes"
    return None


def _single(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _before(fn: Callable[[], Any]) -> None:
    hook = getattr(fn, "before", None)
    if hook is not None:
        hook()


#: Calls shorter than this get an untimed call before each sample (see time_interleaved).
WARM_CALL_BELOW = 0.01


def time_interleaved(fns: dict[str, Callable[[], Any]], mode: Mode,
                     rng: np.random.Generator | None = None,
                     warm_below: float = WARM_CALL_BELOW) -> dict[str, dict[str, Any]]:
    """Median and spread of the time per call of each function.

    Every repetition takes one sample of each function, in a fresh random order
    (so that no function always follows the same one: thread pools that spin
    after a call slow down whatever runs next). A function faster than
    :data:`WARM_CALL_BELOW` is called once, untimed, before each of its samples,
    so that its own thread pool is awake and its data in cache whatever ran
    before it: the figures are the speed of back-to-back calls. ``warm_below=0``
    leaves that call out: each sample then follows whatever ran before it.
    """
    names = list(fns)
    rng = rng or np.random.default_rng(0)
    batch, per_sample, per_call = {}, {}, {}
    for name in names:                     # warm-up, and the batch size
        fn = fns[name]
        _before(fn)
        fn()
        one = min(_single(fn) for _ in range(2))
        if one < mode.target:
            n = max(1, math.ceil(mode.target / max(one, 1e-8)))
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            one = (time.perf_counter() - t0) / n
            batch[name] = max(1, math.ceil(mode.target / max(one, 1e-8)))
        else:
            batch[name] = 1
        per_call[name] = one
        per_sample[name] = one * batch[name]
    round_time = sum(per_sample[n] + (per_call[n] if per_call[n] < warm_below else 0) for n in names) or 1e-9
    reps = int(min(mode.max_reps, max(mode.min_reps, mode.budget // round_time)))
    samples: dict[str, list[float]] = {name: [] for name in names}
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(reps):
            for i in rng.permutation(len(names)):
                name = names[i]
                fn, n = fns[name], batch[name]
                _before(fn)
                if per_call[name] < warm_below:
                    fn()    # untimed: thread pools awake and caches warm, whatever ran before
                t0 = time.perf_counter()
                for _ in range(n):
                    fn()
                samples[name].append((time.perf_counter() - t0) / n)
    finally:
        if gc_was_enabled:
            gc.enable()
    stats = {}
    for name in names:
        s = sorted(samples[name])
        q1, median, q3 = _quantiles(s)
        stats[name] = {
            "median_s": median, "q1_s": q1, "q3_s": q3, "min_s": s[0], "max_s": s[-1],
            "batch": batch[name], "reps": reps, "samples_s": [float(f"{x:.4g}") for x in s],
        }
    return stats


def _quantiles(s: list[float]) -> tuple[float, float, float]:
    if len(s) < 2:
        return s[0], s[0], s[0]
    q = statistics.quantiles(s, n=4, method="inclusive")
    return q[0], statistics.median(s), q[2]


def run_case(case: Case, impls: list[Impl], mode: Mode, rng: np.random.Generator) -> dict[str, Any]:
    arrays = case.build(rng)
    numpy_fn = _numpy_prepare(case, arrays)
    expected = np.array(_native(numpy_fn()), copy=True)
    nbytes = bytes_moved(case, arrays)
    results: dict[str, dict[str, Any]] = {}
    fns: dict[str, Callable[[], Any]] = {}
    notes: dict[str, str] = {}
    for impl in impls:
        if not impl.available:
            results[impl.name] = {"status": "absent", "reason": impl.reason}
            continue
        try:
            fn = impl.prepare(case, arrays)
        except Exception as exc:
            results[impl.name] = {"status": "n/a", "reason": _first_line(exc)}
            continue
        if isinstance(fn, str):
            results[impl.name] = {"status": "n/a", "reason": fn}
            continue
        try:
            _before(fn)
            result = fn()
            why = differs(result, expected)
            if not why and case.op == "bitcast" and result is not arrays["x"]:
                if np.shares_memory(result, arrays["x"]) and (case.copy or case.reference(arrays["x"]).base is None):
                    notes[impl.name] = "returns a view of its input, not a copy"
            del result
        except Exception as exc:
            results[impl.name] = {"status": "error", "reason": _first_line(exc)}
            continue
        if why:
            results[impl.name] = {"status": "wrong", "reason": why}
            continue
        fns[impl.name] = fn
    del expected
    for name, stats in time_interleaved(fns, mode, rng).items():
        results[name] = {"status": "ok", **stats}
        if name in notes:
            results[name]["note"] = notes[name]
    base = results.get("numpy", {}).get("median_s")
    fb = results.get(fastbits_name(), {}).get("median_s")
    for res in results.values():
        if res["status"] != "ok":
            continue
        t = res["median_s"]
        res["speedup_vs_numpy"] = base / t if base else None
        res["ratio_to_fastbits"] = t / fb if fb else None
        res["gbps"] = nbytes / t / 1e9 if nbytes and t > 0 else None
    return {
        "group": case.group, "name": case.name, "op": case.op, "layout": case.describe(arrays),
        "out": case.out, "copy": case.copy, "to": case.to, "bytes": nbytes, "results": results,
    }


# ---------------------------------------------------------------------------
# Bandwidth ceiling

def bandwidth_ceiling(mode: Mode, threads: int) -> dict[str, Any]:
    """GB/s of np.add(a, b, out=c) on float64 arrays, one thread and ``threads`` threads."""
    n = mode.ceiling_elems
    a = np.full(n, 1.0)
    b = np.full(n, 2.0)
    c = np.zeros(n)
    nbytes = 3 * a.nbytes

    def one():
        np.add(a, b, out=c)

    chunks = [slice(i * n // threads, (i + 1) * n // threads) for i in range(threads)]
    pool = ThreadPoolExecutor(threads) if threads > 1 else None

    def parallel():
        futures = [pool.submit(np.add, a[s], b[s], out=c[s]) for s in chunks]
        for f in futures:
            f.result()

    result = {"method": "np.add(a, b, out=c), float64, bytes = 3 arrays (reads a, b; writes c)",
              "array_bytes": a.nbytes, "elements": n, "threads": threads}
    try:
        samples1, samplesT = [], []
        one()
        if pool:
            parallel()
        for _ in range(mode.ceiling_reps):
            samples1.append(_single(one))
            if pool:
                samplesT.append(_single(parallel))
        result["gbps_1_thread"] = nbytes / statistics.median(samples1) / 1e9
        result["gbps_threads"] = (nbytes / statistics.median(samplesT) / 1e9) if pool else result["gbps_1_thread"]
    finally:
        if pool:
            pool.shutdown()
    return result


# ---------------------------------------------------------------------------
# Metadata and output

def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def metadata_dict(mode: Mode, threads: int) -> dict[str, Any]:
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    return {
        "machine": {"cpu": _cpu_model(), "cores": os.cpu_count(), "usable_cores": usable,
                    "arch": platform.machine(), "system": platform.system(), "release": platform.release()},
        "python": platform.python_version(),
        "versions": {name: _version(name) for name in ("numpy", "ml_dtypes", "onnx", "onnxruntime", "matplotlib")}
        | {"fastbits": fastbits.__version__},
        "fastbits_backend": fastbits.BACKEND,
        "threads": {"fastbits": threads, "numpy": 1, "ort-1t": 1,
                    "ort": "onnxruntime default (intra_op_num_threads=0: one per physical core)",
                    "ceiling": threads},
        "environment": {k: os.environ[k] for k in sorted(os.environ)
                        if k.startswith(("FASTBITS_", "OMP_", "GOMP_", "ORT_"))},
        "load_average": _load_average(),
        "mode": mode.name,
        "method": {"target_sample_s": mode.target, "min_reps": mode.min_reps, "max_reps": mode.max_reps,
                   "budget_per_case_s": mode.budget, "interleaved": "one sample of each implementation per repetition, in a random order",
                   "warm_call": f"one untimed call before each sample of calls under {WARM_CALL_BELOW * 1e3:g} ms",
                   "statistic": "median time per call; spread = interquartile range",
                   "gbps": "bytes of the elements read + written per call / median time"},
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def _fmt_time(t: float | None) -> str:
    if t is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if t >= scale:
            return f"{t / scale:.3g} {unit}"
    return f"{t / 1e-9:.3g} ns"


def _fmt_ratio(x: float | None) -> str:
    return "-" if x is None else (f"{x:.3g}x" if x < 100 else f"{x:.0f}x")


def header_lines(meta: dict[str, Any], ceiling: dict[str, Any] | None) -> list[str]:
    m, v = meta["machine"], meta["versions"]
    lines = [
        f"machine: {m['cpu']}, {m['cores']} cores ({m['usable_cores']} usable), {m['arch']} {m['system']}",
        f"python {meta['python']}, numpy {v['numpy']}, ml_dtypes {v['ml_dtypes']}, "
        f"onnxruntime {v['onnxruntime'] or 'absent'}, onnx {v['onnx'] or 'absent'}",
        f"fastbits {v['fastbits']}, backend {meta['fastbits_backend']}; threads: fastbits "
        f"{meta['threads']['fastbits']}, numpy 1, ort-1t 1, ort default",
        f"mode: {meta['mode']}; load average at start: "
        + (" ".join(f"{x:g}" for x in meta["load_average"]) if meta["load_average"] else "unknown")
        + "".join(f"; {k}={v}" for k, v in meta["environment"].items()),
    ]
    if ceiling:
        par = (f", {ceiling['gbps_threads']:.1f} GB/s split over {ceiling['threads']} threads"
               if ceiling["threads"] > 1 else "")
        lines.append(
            f"memory-bandwidth ceiling (np.add 3-stream copy, 3 x {ceiling['array_bytes'] / 1e6:.0f} MB float64): "
            f"{ceiling['gbps_1_thread']:.1f} GB/s on 1 thread{par}"
            + (" (smoke mode: arrays fit in cache, not a real ceiling)" if meta["mode"] == "smoke" else ""))
    return lines


def table_lines(report: dict[str, Any]) -> list[str]:
    """The per-case detail, then the summary of speed-ups against numpy."""
    impls = [i["name"] for i in report["implementations"]]
    fb = report["fastbits"]
    lines = []
    for case in report["cases"]:
        moved = f"{case['bytes'] / 1e6:.3g} MB moved" if case["bytes"] else "no bytes moved"
        lines.append(f"[{case['group']}] {case['name']}: {case['layout']}; {moved}")
        lines.append(f"  {'implementation':<14} {'median':>10} {'±IQR/2':>8} {'min..max':>21} "
                     f"{'numpy/impl':>10} {'impl/' + fb:>16} {'GB/s':>7}")
        for name in impls:
            r = case["results"].get(name)
            if r is None:
                continue
            if r["status"] != "ok":
                lines.append(f"  {name:<14} {r['status']}: {r['reason']}")
                continue
            iqr = (r["q3_s"] - r["q1_s"]) / r["median_s"] * 100 if r["median_s"] else 0.0
            gbps = f"{r['gbps']:.1f}" if r.get("gbps") else "-"
            minmax = f"{_fmt_time(r['min_s'])}..{_fmt_time(r['max_s'])}"
            lines.append(
                f"  {name:<14} {_fmt_time(r['median_s']):>10} {f'±{iqr / 2:.1f}%':>8} {minmax:>21} "
                f"{_fmt_ratio(r.get('speedup_vs_numpy')):>10} {_fmt_ratio(r.get('ratio_to_fastbits')):>16} {gbps:>7}"
                + (f"  ({r['note']})" if r.get("note") else ""))
        lines.append("")
    lines += summary_lines(report)
    return lines


def summary_lines(report: dict[str, Any]) -> list[str]:
    """A markdown table: numpy's median, each implementation's speed-up over numpy, fastbits' GB/s."""
    others = [i["name"] for i in report["implementations"] if i["name"] != "numpy"]
    fb = report["fastbits"]
    ceiling = report.get("ceiling")
    rate_cols = [n for n in (fb, "fastbits-c-1t") if n in others or n == fb]
    cols = ["case", "numpy"] + [f"{n} ×" for n in others] + [f"{n} GB/s" for n in rate_cols]
    rows = []
    for case in report["cases"]:
        res = case["results"]
        row = [case["name"], _fmt_time(res.get("numpy", {}).get("median_s"))]
        for name in others:
            r = res.get(name, {})
            st = r.get("status")
            cell = _fmt_ratio(r.get("speedup_vs_numpy")) if st == "ok" else (st or "-")
            row.append(cell + ("*" if r.get("note") else ""))
        for name in rate_cols:
            g = res.get(name, {}).get("gbps")
            row.append(f"{g:.1f}" if g else "-")
        rows.append(row)
    widths = [max(len(str(r[i])) for r in rows + [cols]) for i in range(len(cols))]

    def fmt(r):
        cells = [f"{str(c):<{w}}" if i == 0 else f"{str(c):>{w}}" for i, (c, w) in enumerate(zip(r, widths))]
        return "| " + " | ".join(cells) + " |"

    lines = ["Summary: numpy's median time per call; for the others numpy time / their time "
             "(>1: faster than numpy); absent, n/a, wrong and * (a note) are explained above."]
    if ceiling:
        lines[0] += (f" Ceiling: {ceiling['gbps_1_thread']:.1f} GB/s (1 thread), "
                     f"{ceiling['gbps_threads']:.1f} GB/s ({ceiling['threads']} threads).")
    lines += ["", fmt(cols), "|" + "|".join(("-" * (w + 1) + ":") if i else ("-" * (w + 2)) for i, w in enumerate(widths)) + "|"]
    lines += [fmt(r) for r in rows]
    return lines


def dumps(report: dict[str, Any]) -> str:
    """The report as JSON, indented, with each list of numbers (the samples) on one line."""
    text = json.dumps(report, indent=1)
    return re.sub(r"\[\s*([-0-9.e+,\s]+?)\s*\]",
                  lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text) + "\n"


def plot(report: dict[str, Any], path: str) -> None:
    """A PNG of each implementation's speed-up over numpy per case: bars from 1 (numpy), log scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [i["name"] for i in report["implementations"] if i["name"] != "numpy" and i["available"]]
    rows = report["cases"]
    per = max(1, len(names))
    height = 0.84 / per
    fig, ax = plt.subplots(figsize=(9, 1.4 + 0.075 * len(rows) * per), dpi=72)
    colors = plt.get_cmap("tab10")
    for j, name in enumerate(names):
        ys, widths = [], []
        for i, case in enumerate(rows):
            r = case["results"].get(name, {})
            y = i + (j - (per - 1) / 2) * height
            if r.get("status") == "ok" and r.get("speedup_vs_numpy"):
                ys.append(y)
                widths.append(r["speedup_vs_numpy"] - 1.0)
                if r.get("note"):
                    ax.text(r["speedup_vs_numpy"], y, f" {r['note']}", va="center", fontsize=5,
                            color=colors(j))
            elif r.get("status") in ("wrong", "n/a", "error"):
                ax.text(1.0, y, f" {r['status']}", va="center", fontsize=5, color=colors(j))
        ax.barh(ys, widths, left=1.0, height=height, label=name, color=colors(j))
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([c["name"] for c in rows], fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("speed-up over numpy: numpy time / implementation time (log scale; right of 1 is faster)",
                  fontsize=8)
    meta = report["meta"]
    ceiling = report.get("ceiling") or {}
    ax.set_title(f"fastbits {meta['versions']['fastbits']} ({meta['fastbits_backend']}, "
                 f"{meta['threads']['fastbits']} threads), {meta['machine']['cpu']}, "
                 f"{meta['machine']['cores']} cores; python -m fastbits bench"
                 + (" --full" if meta["mode"] == "full" else ""), fontsize=8)
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=72)
    plt.close(fig)


# ---------------------------------------------------------------------------
# Command line

class _Progress:
    def __init__(self, total: int, stream=None):
        self.total, self.stream = total, stream or sys.stderr
        self.tty = getattr(self.stream, "isatty", lambda: False)()
        self.start = time.perf_counter()

    def show(self, i: int, text: str) -> None:
        line = f"[{i}/{self.total} {time.perf_counter() - self.start:5.1f}s] {text}"
        if self.tty:
            self.stream.write("\r\033[K" + line[:120])
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def done(self) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(f"done in {time.perf_counter() - self.start:.1f}s\n")
        self.stream.flush()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m fastbits bench",
        description="Time fastbits' BitwiseAnd and BitCast against numpy, onnxruntime and the onnx "
                    "reference evaluator, interleaved in one process, after checking that every result "
                    "equals numpy's bit for bit. Quick by default (a few seconds); --full for the whole suite.",
    )
    p.add_argument("--full", action="store_true", help="the whole suite (arrays up to 64M elements; minutes)")
    p.add_argument("--smoke", action="store_true", help=argparse.SUPPRESS)  # one tiny case per group, 2 reps
    p.add_argument("--json", metavar="PATH", help="write the raw figures and the metadata as JSON")
    p.add_argument("--plot", metavar="PATH", help="write a PNG chart of the speed-ups over numpy (needs matplotlib)")
    p.add_argument("--threads", type=int, metavar="N",
                   help="threads of fastbits' compiled kernels and of the parallel bandwidth ceiling "
                        "(default: fastbits.get_num_threads())")
    p.add_argument("--filter", metavar="SUBSTRING", help="run only the cases whose group or name contains it")
    args = p.parse_args(argv)
    if args.full and args.smoke:
        p.error("--full and --smoke exclude each other")
    if args.threads is not None and args.threads < 1:
        p.error("--threads must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the suite; print the table; return 1 if fastbits differs from numpy anywhere."""
    args = parse_args(argv)
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("--plot needs matplotlib: pip install 'fastbits[bench]' (or pip install matplotlib)",
                  file=sys.stderr)
            return 2
    mode = MODES["full" if args.full else "smoke" if args.smoke else "quick"]
    chosen = select(mode.name, args.filter)
    if args.smoke:   # one case per group
        seen: set[str] = set()
        chosen = [c for c in chosen if not (c.group in seen or seen.add(c.group))]
    if not chosen:
        print(f"no case matches --filter {args.filter!r}", file=sys.stderr)
        return 2
    threads_before = fastbits.get_num_threads()
    try:
        if args.threads is not None:
            fastbits.set_num_threads(args.threads)
        return _run(args, mode, chosen)
    finally:
        fastbits.set_num_threads(threads_before)


def _run(args: argparse.Namespace, mode: Mode, chosen: list[Case]) -> int:
    threads = fastbits.get_num_threads()    # what the kernels will use (1 when built without threads)
    progress = _Progress(len(chosen) + 2)
    progress.show(0, "loading onnx and onnxruntime")
    impls = implementations(threads)
    meta = metadata_dict(mode, threads)
    progress.show(1, "measuring the memory-bandwidth ceiling")
    ceiling = bandwidth_ceiling(mode, args.threads or threads)
    for line in header_lines(meta, ceiling):
        print(line)
    absent = [i for i in impls if not i.available]
    for impl in impls:
        print(f"  {impl.name:<14} {impl.description}" + ("" if impl.available else f"  [absent: {impl.reason}]"))
    print(flush=True)

    rng = np.random.default_rng(2026)
    results = []
    for k, case in enumerate(chosen, start=2):
        progress.show(k, case.name)
        results.append(run_case(case, impls, mode, rng))
        fastbits.set_num_threads(threads)   # whatever fastbits-c-1t set last
        gc.collect()
    progress.done()
    report = {
        "meta": meta,
        "ceiling": ceiling,
        "fastbits": fastbits_name(),
        "implementations": [{"name": i.name, "description": i.description, "available": i.available,
                             "reason": i.reason} for i in impls],
        "cases": results,
    }
    for line in table_lines(report):
        print(line)
    if absent:
        print()
        print("absent: " + "; ".join(f"{i.name} ({i.reason})" for i in absent))
    if args.json:
        with open(args.json, "w") as f:
            f.write(dumps(report))
        print(f"wrote {args.json}")
    if args.plot:
        plot(report, args.plot)
        print(f"wrote {args.plot}")
    wrong = [(c["name"], n) for c in results for n in ("fastbits-c", "fastbits-c-1t", "fastbits-py")
             if c["results"].get(n, {}).get("status") in ("wrong", "error")]
    if wrong:
        print("fastbits differs from numpy: " + ", ".join(f"{n} in {c}" for c, n in wrong), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
