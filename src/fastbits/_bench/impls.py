"""The implementations the suite compares, each a ``prepare(case, arrays)`` that
returns the call to time (or why it cannot run the case).

fastbits compiled (at the configured thread count, and at one thread), fastbits
pure Python, numpy, onnxruntime (one thread and its default) and the onnx
reference evaluator; onnx and onnxruntime are imported only by
:func:`implementations`.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable

import numpy as np

import fastbits
from fastbits import _ops, spec

from . import ort as _ort
from .cases import ELEMENTWISE, MODEL_OPS, PRODUCTS, Case, operands

NotApplicable = str   # a prepare() that cannot run the case returns the reason


@dataclass
class Impl:
    name: str
    description: str
    available: bool = True
    reason: str = ""
    prepare: Callable[[Case, dict[str, Any]], Callable[[], Any] | NotApplicable] | None = None
    threads: int | None = 1     # threads it runs on; None: its own default, one per core (as all)


def _fastbits_prepare(module, packing, threads: int | None = None):
    """Calls of ``module`` (pack and unpack: of ``packing``); with ``threads``, each sample first
    sets the kernels' thread count."""

    def prepare(case, arrays):
        if case.op in MODEL_OPS:
            return MODEL_ONLY
        if case.op == "pack":
            x = arrays["x"]
            fn = lambda: packing.pack(x)  # noqa: E731
        elif case.op == "unpack":
            data, to, shape = arrays["data"], case.to, arrays["x"].shape
            fn = lambda: packing.unpack(data, to, shape)  # noqa: E731
        elif case.op in ELEMENTWISE:
            fn = ELEMENTWISE[case.op].call(module, arrays)
        elif case.op == "cast":
            x, to, saturate = arrays["x"], case.to, case.saturate
            fn = lambda: module.cast(x, to, saturate=saturate)  # noqa: E731
        elif case.op == "quantize":
            x, scale, to = arrays["x"], arrays["scale"], case.to
            fn = lambda: module.quantize_linear(x, scale, output_dtype=to)  # noqa: E731
        elif case.op == "dequantize":
            x, scale, block, axis = arrays["x"], arrays["scale"], case.block_size, case.axis
            fn = lambda: module.dequantize_linear(x, scale, axis=axis, block_size=block)  # noqa: E731
        elif case.op in PRODUCTS:
            product, inputs = getattr(module, case.op), [arrays[name] for name in PRODUCTS[case.op]]
            fn = lambda: product(*inputs)  # noqa: E731
        elif case.op == "dynamic_quantize":
            x = arrays["x"]
            fn = lambda: module.dynamic_quantize_linear(x)[0]  # noqa: E731  y, which every column gives
        else:
            x, to, copy = arrays["x"], case.to, case.copy
            fn = lambda: module.bitcast(x, to, copy=copy)  # noqa: E731
        if threads is not None:
            fn.before = lambda: module.set_num_threads(threads)  # outside the timed batch
        return fn

    return prepare


#: Why an implementation other than onnx's evaluators has no figure in the model rows.
MODEL_ONLY = "the model rows time onnx's evaluators only: onnx-ref, and onnx-ref+fb (fastbits' subclass)"


def numpy_prepare(case, arrays):
    """numpy's call: the reference every other result must equal (unless the case gives
    ``expected``); none for the model rows."""
    if case.op in ELEMENTWISE:
        return ELEMENTWISE[case.op].numpy_call(arrays)
    if case.op in MODEL_OPS:
        return MODEL_ONLY
    if case.op in ("quantize", "dequantize"):
        x, scale, reference = arrays["x"], arrays["scale"], case.reference
        return lambda: reference(x, scale)
    if case.op in PRODUCTS:
        inputs, reference = [arrays[name] for name in PRODUCTS[case.op]], case.reference
        return lambda: reference(*inputs)
    x, reference = arrays["x"], case.reference
    return lambda: reference(x)


def _model(models: _ort.Models, case: Case, arrays: dict[str, Any]):
    if case.op in ELEMENTWISE:
        return models.model(case.op, arrays["a"].dtype)
    if case.op in ("quantize", "dequantize"):
        return models.quantize(case.op, arrays["x"].dtype, arrays["scale"].dtype, case.to, case.axis, case.block_size)
    if case.op == "matmul_integer":
        return models.matmul_integer(arrays["a"].dtype, arrays["b"].dtype)
    if case.op == "qlinear_matmul":
        return models.qlinear_matmul(arrays["a"].dtype, arrays["b"].dtype, arrays["yz"].dtype)
    if case.op == "dynamic_quantize":
        return models.dynamic_quantize()
    return models.model(case.op, arrays["x"].dtype, case.to, case.saturate)


def _feeds(case: Case, arrays: dict[str, Any]) -> dict[str, Any]:
    """The inputs of the case's model (:mod:`.ort`): ``a`` and ``b``, or ``x`` (and QuantizeLinear's
    and DequantizeLinear's ``scale``)."""
    if case.op in ("quantize", "dequantize"):
        return {"x": arrays["x"], "scale": arrays["scale"]}
    if case.op in PRODUCTS:
        return {name: np.asarray(arrays[name]) for name in PRODUCTS[case.op]}
    return dict(zip("ab", operands(arrays))) if case.op in ELEMENTWISE else {"x": arrays["x"]}


def _ort_impl(models: _ort.Models | None, threads: int | None) -> Impl:
    name = "ort-1t" if threads == 1 else "ort"
    what = "1 intra-op thread" if threads == 1 else "its default intra-op threads"
    # Spinning off: onnxruntime's default keeps a core busy for tens of milliseconds after each
    # run, which takes a core from whatever the interleaved repetitions run next, fastbits'
    # second thread included.
    description = (f"onnxruntime, CPU provider, {what}, spinning off: InferenceSession.run; "
                   "I/O binding into the preallocated output for out= cases")
    try:
        ort = import_module("onnxruntime")
    except ImportError as exc:
        return Impl(name, description, False, f"onnxruntime not installed ({exc})")
    if models is None:
        return Impl(name, description, False, "onnx not installed (needed to build the models)")
    sessions: dict[int, Any] = {}

    def session(model):
        key = id(model)
        if key not in sessions:
            sessions[key] = _ort.make_session(model, threads, spin=False)
        return sessions[key]

    def prepare(case, arrays):
        if case.op in ("pack", "unpack"):
            return "onnxruntime has no Python API for ONNX's packed layout"
        if case.op in MODEL_OPS:
            return MODEL_ONLY
        try:
            sess = session(_model(models, case, arrays))
        except Exception as exc:  # NOT_IMPLEMENTED kernels and the like: the case is n/a
            if "NOT_IMPLEMENTED" in str(exc) and case.op in ("bitcast", "cast"):
                return (f"onnxruntime {ort.__version__} has no {'BitCast' if case.op == 'bitcast' else 'Cast'} "
                        f"kernel for {arrays['x'].dtype} -> {case.to} (NOT_IMPLEMENTED)")
            if "NOT_IMPLEMENTED" in str(exc) and case.op in ELEMENTWISE:
                return (f"onnxruntime {ort.__version__} has no {ELEMENTWISE[case.op].onnx} kernel for "
                        f"{arrays['a'].dtype} (NOT_IMPLEMENTED)")
            if "Type Error" in str(exc) and case.op in ("shl", "shr"):
                return (f"onnxruntime {ort.__version__} refuses BitShift on {arrays['a'].dtype}: before opset 28 "
                        "it takes unsigned types only (onnxruntime's kernels: uint8, uint32, uint64)")
            return first_line(exc)
        feeds = _feeds(case, arrays)
        if case.out:
            out = arrays["out"]
            if not out.flags.c_contiguous:
                return "I/O binding needs a C-contiguous out"
            io = sess.io_binding()
            io.bind_output("y", "cpu", 0, out.dtype, out.shape, out.ctypes.data)

            def run_bound():
                for name, x in feeds.items():
                    io.bind_cpu_input(name, x)
                sess.run_with_iobinding(io)
                return out

            return run_bound
        if case.op in ("cast", "quantize") and spec.numpy_dtype(spec.DataType[case.to]).itemsize == 1:
            dtype = spec.numpy_dtype(spec.DataType[case.to])
            run = lambda: sess.run(None, feeds)[0].view(dtype)  # noqa: E731  the float 8 types come out as uint8 bits
        else:
            run = lambda: sess.run(None, feeds)[0]  # noqa: E731
        if case.op in ("quantize", "dequantize"):
            try:     # onnxruntime's Python API takes no int4 array in and gives none out (and, before
                run()  # 1.24 or so, no float 8 out): n/a, said why
            except Exception as exc:
                if case.op == "dequantize" and arrays["x"].dtype.name == "int4":
                    return f"onnxruntime {ort.__version__} takes no int4 numpy input from Python: {first_line(exc)}"
                if case.op == "quantize":
                    return (f"onnxruntime {ort.__version__} returns no {case.to.lower()} output to Python: "
                            f"{first_line(exc)}")
                return first_line(exc)
        return run

    return Impl(name, description, prepare=prepare, threads=threads)


def _reference_impl(models: _ort.Models | None, with_fastbits: bool = False) -> Impl:
    """onnx's reference evaluator alone, or with fastbits' operators (``new_ops``)."""
    if with_fastbits:
        name = "onnx-ref+fb"
        description = ("onnx.reference.ReferenceEvaluator with new_ops=fastbits.onnx_ops.OPS: fastbits' "
                       "kernels (the active path) inside onnx's evaluator; no out= API; the model rows: "
                       "fastbits.onnx_ops.ReferenceEvaluator, the subclass, which also reads the initializers "
                       "with fastbits.onnx_tensors.to_array")
    else:
        name = "onnx-ref"
        description = ("onnx.reference.ReferenceEvaluator (numpy inside); no out= API; pack/unpack: "
                       "onnx.numpy_helper.from_array / to_array")
    if models is None:
        return Impl(name, description, False, "onnx not installed")
    from onnx.reference import ReferenceEvaluator

    new_ops, evaluator = None, ReferenceEvaluator
    if with_fastbits:
        try:
            onnx_ops = import_module("fastbits.onnx_ops")
        except ImportError as exc:  # an onnx older than fastbits.onnx_ops needs
            return Impl(name, description, False, first_line(exc))
        new_ops = list(onnx_ops.OPS)  # a copy: onnx 1.21 appends to it
        evaluator = onnx_ops.ReferenceEvaluator   # the model rows': fastbits' subclass
    evaluators: dict[int, Any] = {}

    def prepare(case, arrays):
        if case.op in MODEL_OPS:
            return _model_prepare(evaluator, case, arrays)
        if case.op in ("pack", "unpack"):
            return "no operator: pack and unpack are not nodes" if with_fastbits else _numpy_helper_prepare(case, arrays)
        if case.out:
            return "no out= API"
        model = _model(models, case, arrays)
        if id(model) not in evaluators:
            try:
                evaluators[id(model)] = ReferenceEvaluator(model, new_ops=new_ops)
            except Exception as exc:
                return first_line(exc)
        ref = evaluators[id(model)]
        feeds = _feeds(case, arrays)
        return lambda: ref.run(None, feeds)[0]

    return Impl(name, description, prepare=prepare)


def _model_prepare(evaluator, case: Case, arrays: dict[str, Any]):
    """The model rows: the evaluator's construction (the call returns the evaluator, which the
    case checks by its output), or one run of an evaluator built here."""
    model = arrays["model"]
    if case.op == "model-build":
        build = lambda: evaluator(model)  # noqa: E731
        # an evaluator holds reference cycles, and the samples run with the collector off: the
        # evaluators of earlier samples, each holding the weight, are collected before each
        # sample, outside the timed calls, as a process that builds one evaluator has none
        build.before = gc.collect  # type: ignore[attr-defined]
        return build
    built = evaluator(model)
    feeds = {"x": arrays["x"]}
    return lambda: built.run(None, feeds)[0]


def _numpy_helper_prepare(case: Case, arrays: dict[str, Any]):
    """onnx's own pack (``from_array``, its raw_data read as bytes) and unpack (``to_array``)."""
    numpy_helper = import_module("onnx.numpy_helper")
    if spec.bit_width(spec.DataType[case.to]) == 6 and not hasattr(numpy_helper, "_pack_6bit"):
        return f"onnx {import_module('onnx').__version__} has no 6-bit packing (onnx 1.23 has)"
    if case.op == "pack":
        x = arrays["x"]
        return lambda: np.frombuffer(numpy_helper.from_array(x).raw_data, np.uint8)
    tensor = numpy_helper.from_array(arrays["x"])
    return lambda: numpy_helper.to_array(tensor)


def first_line(exc: BaseException) -> str:
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
            path = _ops.load("cython")
            impls.append(Impl("fastbits-c", compiled, prepare=_fastbits_prepare(path, path, threads),
                              threads=threads))
            if threads > 1 and path.get_num_threads() > 1:
                impls.append(Impl("fastbits-c-1t", "fastbits compiled, 1 thread",
                                  prepare=_fastbits_prepare(path, path, 1)))
        except ImportError as exc:
            impls.append(Impl("fastbits-c", compiled, False, f"not built ({exc})"))
    impls.append(Impl("fastbits-py", "fastbits pure Python (numpy + ml_dtypes, fastbits._ops_py)",
                      prepare=_fastbits_prepare(_ops.load("python"), _ops.load("python"))))
    impls.append(Impl("numpy", "numpy: np.bitwise_and/or/xor, np.invert, np.left_shift/right_shift; "
                      "BitCast by ndarray.view / astype / copy; QuantizeLinear / DequantizeLinear: the numpy formula; "
                      "pack/unpack: np.copy of the one-value-per-byte array (a bar: not the same result)",
                      prepare=numpy_prepare))
    try:
        models: _ort.Models | None = _ort.Models()
    except ImportError:
        models = None
    impls.append(_ort_impl(models, 1))
    impls.append(_ort_impl(models, None))
    impls.append(_reference_impl(models))
    impls.append(_reference_impl(models, with_fastbits=True))
    return impls


def fastbits_name() -> str:
    """The implementation the impl/fastbits ratios divide by: the active backend."""
    return "fastbits-c" if fastbits.BACKEND == "cython" else "fastbits-py"
