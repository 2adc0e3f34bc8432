"""The compiled path computes every accepted input with its kernels, never with the pure
reference: each example of the good catalogue (fastbits._examples: the specs' examples and
onnx's node tests of every operator) runs on the compiled path while a profiler notes every
call of a function of the pure modules that computes a result.  The only calls allowed are the
ones the README's Limitations name; a one-byte source's Cast table, which the reference
computes once by design (docs/cast.md), is built before the profiler starts."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from fastbits import _cast_py, _ops_py, _packing_py, _quant_py, spec
from fastbits._examples import EXAMPLES

from support import COMPILED, PURE

# sys.setprofile is the calling thread's; pytest-run-parallel runs these on one thread
pytestmark = [pytest.mark.compiled, pytest.mark.thread_unsafe,
              pytest.mark.skipif(COMPILED is None, reason="the compiled path is not built")]

#: The pure modules' functions that compute a result (not their checks or layout steps).
REFERENCE = {
    getattr(f, "__wrapped__", f).__code__: f"{f.__module__}.{f.__name__}"  # a public one: under spec's wrapper
    for f in (_ops_py.bitwise_and, _ops_py.bitwise_or, _ops_py.bitwise_xor, _ops_py.bitwise_not, _ops_py.bitshift,
              _ops_py.bitcast, _cast_py.cast, _cast_py.cast_like, _cast_py._convert, _quant_py.quantize_linear,
              _quant_py.dequantize_linear, _quant_py.dynamic_quantize_linear, _quant_py.matmul_integer,
              _quant_py.qlinear_matmul, _quant_py.quantize, _quant_py.dequantize, _quant_py.qlinear_product,
              _packing_py.pack, _packing_py.unpack)
}

FLOAT8 = {spec.numpy_dtype(t) for t in spec.FLOAT_FORMATS if spec.bit_width(t) == 8}


def _limitation(example) -> str | None:
    """The README's Limitation an example falls under, if any: QLinearMatMul of a float 8
    operand or result, QuantizeLinear in int32 precision with a float scale that does not round
    to an int32."""
    if example.op == spec.QLINEAR_MATMUL and any(x.dtype in FLOAT8 for x in (*example.inputs, example.expected)):
        return "QLinearMatMul of the float 8 types"
    if example.op == spec.QUANTIZE and example.attributes.get("precision") in (spec.DataType.INT32, "INT32"):
        with np.errstate(all="ignore"):
            scale = np.rint(np.asarray(example.inputs[1]).astype(np.float64))
        if not np.all(np.abs(scale) < 2.0**31):
            return "QuantizeLinear in int32 precision with a float scale that does not round to an int32"
    return None


_X = np.linspace(-3.0, 3.0, 24, dtype=np.float32).reshape(4, 6)
_E8M0, _E4M3 = spec.numpy_dtype(spec.DataType.FLOAT8E8M0), spec.numpy_dtype(spec.DataType.FLOAT8E4M3FN)
_F8 = np.array([[1.0, 2.0], [0.5, -1.0]], np.float32).astype(_E4M3)

#: Accepted calls beyond the examples, in the layouts and precisions that once ran the
#: reference on the compiled path, and the Limitations' own (name, call, limitation or None).
CALLS = [
    ("cast out=", lambda o: o.cast(_X, "FLOAT16", out=np.empty(_X.shape, np.float16)), None),
    ("cast out= byte-swapped", lambda o: o.cast(_X, "INT16", out=np.empty(_X.shape, ">i2")), None),
    ("cast order F", lambda o: o.cast(_X, "FLOAT8E4M3FN", order="F"), None),
    ("cast from >f4", lambda o: o.cast(_X.astype(">f4"), "BFLOAT16"), None),
    ("cast into FLOAT8E8M0, each mode", lambda o: [o.cast(_X, "FLOAT8E8M0", saturate=s, round_mode=m)
                                                  for s in (True, False) for m in ("up", "down", "nearest")], None),
    ("cast_like a numpy scalar", lambda o: o.cast_like(_X, np.float16(0)), None),
    ("quantize_linear float16 precision", lambda o: o.quantize_linear(_X.astype(np.float16), np.float16(0.5),
                                                                       np.int8(1)), None),
    ("quantize_linear bfloat16 precision", lambda o: o.quantize_linear(_X, np.float32(0.5), np.uint8(3),
                                                                        precision="BFLOAT16"), None),
    ("quantize_linear from >f4", lambda o: o.quantize_linear(_X.astype(">f4"), np.float32(0.5), np.int8(0)), None),
    ("dequantize_linear int32", lambda o: o.dequantize_linear(np.arange(-6, 6, dtype=np.int32), np.float32(0.25),
                                                               np.int32(3)), None),
    ("dequantize_linear float8e5m2 less a zero point",
     lambda o: o.dequantize_linear(_F8.astype(np.float32).astype(spec.numpy_dtype(spec.DataType.FLOAT8E5M2)),
                                   np.float32(2.0), np.array(1.0, np.float32).astype(spec.numpy_dtype(
                                       spec.DataType.FLOAT8E5M2))), None),
    ("quantize_linear int32 precision", lambda o: o.quantize_linear(_X, np.int32(2), np.int8(0)), None),
    ("quantize_linear int32 precision, a float scale", lambda o: o.quantize_linear(_X, np.float16(2.5), np.int8(0),
                                                                                    precision="INT32"), None),
    ("quantize_linear int32 precision, a float scale past int32",
     lambda o: o.quantize_linear(_X, np.float32(3e9), np.int8(0), precision="INT32"),
     "QuantizeLinear in int32 precision with a float scale that does not round to an int32"),
    ("qlinear_matmul float8e4m3fn", lambda o: o.qlinear_matmul(_F8, np.float32(0.5), np.zeros((), _E4M3), _F8,
                                                                np.float32(0.25), np.zeros((), _E4M3), np.float32(1.0),
                                                                np.zeros((), _E4M3)),
     "QLinearMatMul of the float 8 types"),
]


def _reference_calls(call) -> list[str]:
    """The reference's functions ``call()`` runs."""
    seen = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in REFERENCE:
            seen.append(REFERENCE[frame.f_code])

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return seen


def test_every_function_is_watched():
    assert len(REFERENCE) == 19  # one code object each


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_the_compiled_path_never_runs_the_reference(example):
    kernels = COMPILED
    example.run(kernels)  # builds a one-byte source's table
    calls = _reference_calls(lambda: example.failure(kernels))
    limitation = _limitation(example)
    if limitation is None:
        assert calls == [], f"{example.name} ran {calls} on the compiled path"
    else:  # still the reference's (README, Limitations): the day it is not, this says so
        assert calls, f"{example.name} no longer runs the reference: take {limitation!r} out of the Limitations"


@pytest.mark.parametrize(("name", "call", "limitation"), CALLS, ids=[c[0] for c in CALLS])
def test_other_accepted_calls_never_run_the_reference(name, call, limitation):
    call(COMPILED)  # builds a one-byte source's table
    calls = _reference_calls(lambda: call(COMPILED))
    if limitation is None:
        assert calls == [], f"{name} ran {calls} on the compiled path"
    else:
        assert calls, f"{name} no longer runs the reference: take {limitation!r} out of the Limitations"


def test_the_profiler_sees_the_reference():
    """The watch works: the pure path's call is seen."""
    x = np.arange(6, dtype=np.int32)
    assert _reference_calls(lambda: PURE.bitwise_and(x, x)) == ["fastbits._ops_py.bitwise_and"]
