"""The benchmark cases: which operator call, on which arrays, in which mode.

A :class:`Case` builds its arrays only when it runs (``Case.build(rng)``), so
that listing the suite costs nothing; ``tiers`` says which modes run it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from fastbits import _cast_py, _packing_py, spec

from .models import int4_matmul_model, int4_weight

K, M = 1 << 10, 1 << 20


def _size(n: int) -> str:
    for unit, scale in (("M", M), ("K", K)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


@dataclass(frozen=True)
class Elementwise:
    """An elementwise operator of the bitwise family, as each implementation calls it."""

    onnx: str                                # the ONNX operator (BitShift: with ``direction``)
    function: str                            # fastbits' function
    numpy: Callable[..., np.ndarray]         # numpy's ufunc: the same bits (shifts: amounts in range)
    symbol: str                              # in case names and layouts
    direction: str | None = None             # BitShift's attribute

    @property
    def arity(self) -> int:
        return 1 if self.onnx == "BitwiseNot" else 2

    def call(self, module: Any, arrays: dict[str, Any]) -> Callable[[], Any]:
        """The call to time of fastbits' ``module`` (compiled or pure) on a case's arrays."""
        args = operands(arrays) + ([self.direction] if self.direction else [])
        return _bound(getattr(module, self.function), args, arrays.get("out"))

    def numpy_call(self, arrays: dict[str, Any]) -> Callable[[], Any]:
        """numpy's call to time on a case's arrays."""
        return _bound(self.numpy, operands(arrays), arrays.get("out"))


def _bound(fn: Callable[..., Any], args: list[Any], out: Any) -> Callable[[], Any]:
    """``fn(*args)`` or ``fn(*args, out=out)`` as a user writes it: the arguments spelt out, for a
    call through ``*args`` and a keyword costs some 100 ns more (a tuple and a dict per call),
    which would hide the difference between tiny calls."""
    if len(args) == 1:
        (x,) = args
        return (lambda: fn(x)) if out is None else (lambda: fn(x, out=out))
    if len(args) == 2:
        x, y = args
        return (lambda: fn(x, y)) if out is None else (lambda: fn(x, y, out=out))
    if len(args) == 3:
        x, y, z = args
        return (lambda: fn(x, y, z)) if out is None else (lambda: fn(x, y, z, out=out))
    args = tuple(args)
    return (lambda: fn(*args)) if out is None else (lambda: fn(*args, out=out))


#: The elementwise operators by Case.op; their operands are ``a`` (and ``b``), their output ``out``.
ELEMENTWISE = {
    "and": Elementwise("BitwiseAnd", "bitwise_and", np.bitwise_and, "&"),
    "or": Elementwise("BitwiseOr", "bitwise_or", np.bitwise_or, "|"),
    "xor": Elementwise("BitwiseXor", "bitwise_xor", np.bitwise_xor, "^"),
    "not": Elementwise("BitwiseNot", "bitwise_not", np.invert, "~"),
    "shl": Elementwise("BitShift", "bitshift", np.left_shift, "<<", "LEFT"),
    "shr": Elementwise("BitShift", "bitshift", np.right_shift, ">>", "RIGHT"),
}

SHIFT_NOTE = ("shift amounts drawn in [0, bits): outside that range numpy's shifts follow numpy's own rules, "
              "not BitShift-28's text, and onnxruntime's uint64 shifted by 64 returns its input (#28262)")


#: The matrix products' inputs, in their functions' order (the arrays' keys).
PRODUCTS = {"matmul_integer": ("a", "b", "za", "zb"),
            "qlinear_matmul": ("a", "sa", "za", "b", "sb", "zb", "ys", "yz")}


def operands(arrays: dict[str, Any]) -> list[Any]:
    """An elementwise case's operands, in order: ``a``, and ``b`` unless the operator is unary."""
    return [arrays[k] for k in ("a", "b") if k in arrays]


@dataclass
class Case:
    """One benchmark: an operator call on arrays that :attr:`build` makes when the case runs."""

    group: str
    name: str
    op: str                                  # a key of ELEMENTWISE, "bitcast", "cast", "pack", "unpack",
                                             # "quantize", "dequantize", a key of PRODUCTS,
                                             # "dynamic_quantize", "model-build" or "model-run"
    build: Callable[[np.random.Generator], dict[str, Any]]
    tiers: str                               # "s": smoke, "q": quick, "f": full
    out: bool = False                        # an elementwise operator into a preallocated out=
    copy: bool = False                       # BitCast copy=True
    to: str | None = None                    # BitCast's and Cast's target, an ONNX type name
    saturate: bool = True                    # Cast's saturate
    reference: Callable[..., np.ndarray] | None = None   # numpy's way to the same bits
    # the result every implementation must give, when numpy's timed call is a bar that computes
    # something else (pack/unpack: np.copy of the one-value-per-byte array)
    expected: Callable[[dict[str, Any]], np.ndarray] | None = None
    note: str | None = None                  # what a reader of the case's figures should know
    # the array a timed call's result is checked by, where the call returns something else (the
    # model's construction row: the evaluator built, checked by its output on the case's x)
    result: Callable[[Any, dict[str, Any]], Any] | None = None
    # the implementation the row's ratios divide by where numpy has no column (the model rows:
    # onnx-ref); its rows are tabled apart, as the implementations' times and that ratio
    baseline: str | None = None
    block_size: int = 0                      # QuantizeLinear's and DequantizeLinear's, along ``axis``
    axis: int = 1

    def describe(self, arrays: dict[str, Any]) -> str:
        def spec_of(x):
            x = np.asarray(x)
            order = "" if x.flags.c_contiguous else (" F-order" if x.flags.f_contiguous else " strided")
            return f"{x.shape} {x.dtype.str if x.dtype.byteorder == '>' else x.dtype}{order}"

        if self.op in ELEMENTWISE:
            dest = "out=" if self.out else "fresh"
            symbol = ELEMENTWISE[self.op].symbol
            xs = [spec_of(x) for x in operands(arrays)]
            return (f"{symbol}{xs[0]}" if len(xs) == 1 else f"{xs[0]} {symbol} {xs[1]}") + f" -> {dest}"
        if self.op == "pack":
            return f"{spec_of(arrays['x'])} -> packed uint8"
        if self.op == "unpack":
            return f"{arrays['data'].size} packed bytes -> {arrays['x'].shape} {self.to}"
        if self.op == "cast":
            return f"{spec_of(arrays['x'])} -> {self.to}" + ("" if self.saturate else ", saturate=False")
        if self.op in ("quantize", "dequantize"):
            scale = arrays["scale"]
            how = (f"blocked scales {spec_of(scale)}, block_size={self.block_size} axis={self.axis}" if self.block_size
                   else f"per-tensor scale {scale.dtype} {float(scale):g}")
            return (f"{spec_of(arrays['x'])} -> {self.to}, {how}, no zero point; onnx models: x and the scale "
                    "graph inputs")
        if self.op == "matmul_integer":
            return (f"{spec_of(arrays['a'])} @ {spec_of(arrays['b'])} -> int32, per-tensor zero points "
                    f"{arrays['za']} and {arrays['zb']}; onnx models: every input a graph input")
        if self.op == "qlinear_matmul":
            return (f"{spec_of(arrays['a'])} @ {spec_of(arrays['b'])} -> {arrays['yz'].dtype}, per-tensor float32 "
                    f"scales and zero points; onnx models: every input a graph input")
        if self.op == "dynamic_quantize":
            return f"{spec_of(arrays['x'])} -> uint8 y, its float32 scale and uint8 zero point"
        if self.op in MODEL_OPS:
            w, x = arrays["w"], arrays["x"]
            return (f"y = x {spec_of(x)} @ DequantizeLinear(int4 initializer {w.shape}, float32 scales "
                    f"{arrays['scale'].shape}, block 32 axis 1), opset 21: {MODEL_OPS[self.op]}; onnx-ref: "
                    "onnx.reference.ReferenceEvaluator, onnx-ref+fb: fastbits.onnx_ops.ReferenceEvaluator (the "
                    "subclass: fastbits' operators, initializers read by fastbits.onnx_tensors.to_array)")
        mode = "copy=True" if self.copy else "copy=False"
        return f"{spec_of(arrays['x'])} -> {self.to}, {mode}"


def _ints(rng: np.random.Generator, dtype: Any, shape: Any) -> np.ndarray:
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def _operands(op, a_shape, b_shape, dtype=np.int32, a_view=None, b_view=None, out=False):
    """A builder for an elementwise operator's operands: random arrays, optionally viewed (sliced,
    transposed); BitwiseNot takes ``a`` alone, BitShift amounts are drawn in [0, bits)."""

    def build(rng):
        a = _ints(rng, dtype, a_shape)
        arrays = {"a": a if a_view is None else a_view(a)}
        if ELEMENTWISE[op].arity == 2:
            if ELEMENTWISE[op].direction:
                b = rng.integers(0, 8 * np.dtype(dtype).itemsize, size=b_shape, dtype=dtype)
            else:
                b = _ints(rng, dtype, b_shape)
            arrays["b"] = b if b_view is None else b_view(b)
        if out:
            arrays["out"] = np.empty(np.broadcast_shapes(*(x.shape for x in operands(arrays))), dtype)
        return arrays

    return build


def _and(a_shape, b_shape, dtype=np.int32, a_view=None, b_view=None, out=False):
    """A builder for BitwiseAnd operands."""
    return _operands("and", a_shape, b_shape, dtype, a_view, b_view, out)


def PERMUTED(x):
    """A 3-D array with its axes permuted, as a layout change before a bit op makes it."""
    return x.transpose(2, 0, 1)


def _siblings() -> list[Case]:
    """BitwiseOr, BitwiseXor, BitwiseNot and BitShift (LEFT and RIGHT, by an array of amounts and
    by a scalar) on BitwiseAnd's layouts: n=1K and (64K,) by a scalar in smoke, one row an
    operator in quick, all in full. BitwiseNot skips the layouts that broadcast ``b``; shifts run
    on the unsigned types, the ones onnxruntime's BitShift has, and once on int32 (RIGHT:
    arithmetic)."""
    T, half, rev = (lambda x: x.T), (lambda x: x[::2]), (lambda x: x[::-1])  # noqa: E731
    I8, I32, I64 = np.int8, np.int32, np.int64
    # (left of the symbol, right of it or "", a shape, b shape, dtype, a view, b view, out=, tiers)
    layouts = [
        ("n=16", "", (16,), (16,), I32, None, None, False, "f"),
        ("n=1K", "", (K,), (K,), I32, None, None, False, "sf"),
        ("n=64K", "", (64 * K,), (64 * K,), I32, None, None, False, "f"),
        ("n=1M", "", (M,), (M,), I32, None, None, False, "f"),
        ("n=16M", "", (16 * M,), (16 * M,), I32, None, None, False, "f"),
        ("n=1M", "", (M,), (M,), I8, None, None, False, "f"),
        ("n=1M", "", (M,), (M,), I64, None, None, False, "f"),
        ("(64K,)", "scalar", (64 * K,), (), I32, None, None, False, "sf"),
        ("(1M,)", "scalar", (M,), (), I32, None, None, False, "f"),
        ("(1K,1K)", "(1K,) row", (K, K), (K,), I32, None, None, False, "f"),
        ("(1K,1K)", "(1K,1) column", (K, K), (K, 1), I32, None, None, False, "f"),
        ("(200K,5)", "(5,)", (200_000, 5), (5,), I32, None, None, False, "f"),
        ("(3,4,5)", "(5,) spec", (3, 4, 5), (5,), I32, None, None, False, "f"),
        ("[::2] n=1M", "", (2 * M,), (2 * M,), I32, half, half, False, "f"),
        ("[::-1] n=1M", "", (M,), (M,), I32, rev, None, False, "f"),
        ("(1K,1K).T", "(1K,1K)", (K, K), (K, K), I32, T, None, False, "f"),
        ("n=1M out=", "", (M,), (M,), I32, None, None, True, "f"),
        ("n=16M out=", "", (16 * M,), (16 * M,), I32, None, None, True, "f"),
    ]
    # a few seconds of quick mode: fastbits-py's and onnx-ref's shifts take ~40 ms at 1M elements
    quick = {("or", "n=1M", ""), ("xor", "n=1M out=", ""), ("not", "n=64K", ""), ("shl", "n=64K", ""),
             ("shr", "(64K,)", "scalar"), ("not", "(1K,1K).T", "(1K,1K)")}
    unsigned = {I8: np.uint8, I32: np.uint32, I64: np.uint64}
    cases = []
    for op, group, prefix in (("or", "or", "or"), ("xor", "xor", "xor"), ("not", "not", "not"),
                              ("shl", "bitshift", "bitshift LEFT"), ("shr", "bitshift", "bitshift RIGHT")):
        e = ELEMENTWISE[op]
        rows = [row for row in layouts if e.arity == 2 or row[2] == row[3]]
        for left, right, a_shape, b_shape, dtype, a_view, b_view, out, tiers in rows:
            dtype = unsigned[dtype] if e.direction else dtype
            name = f"{prefix} {np.dtype(dtype).name} {left}"
            if right and e.arity == 2:
                name += f" {e.symbol} {right}"
            if (op, left, right) in quick and np.dtype(dtype).itemsize == 4:
                tiers += "q"
            cases.append(Case(group, name, op,
                              _operands(op, a_shape, b_shape, dtype, a_view, b_view, out), tiers, out=out,
                              note=SHIFT_NOTE if e.direction else None))
    # the arithmetic shift of a signed type
    cases.append(Case("bitshift", "bitshift RIGHT int32 n=1M", "shr", _operands("shr", (M,), (M,), I32), "f",
                      note=SHIFT_NOTE))
    return cases


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


def _subbyte(code, n):
    """Random values of a sub-byte type (ONNX code), in the bytes ml_dtypes writes."""
    return lambda rng: rng.integers(0, 1 << spec.bit_width(code), size=n, dtype=np.uint8).view(spec.numpy_dtype(code))


def packing_case(op, code, n, tiers):
    """pack or unpack of n elements of a sub-byte type; numpy's column is np.copy of the
    one-value-per-byte array (the memory-speed bar), onnx-ref's numpy_helper."""
    make = _subbyte(code, n)

    def build(rng):
        x = make(rng)
        return {"x": x} if op == "pack" else {"x": x, "data": _packing_py.pack(x)}

    if op == "pack":
        expected = lambda arrays: _packing_py.pack(arrays["x"])  # noqa: E731
    else:
        expected = lambda arrays: arrays["x"]  # noqa: E731
    name = f"{op} {spec.DataType(code).name.lower()} n={_size(n)}"
    return Case("packing", name, op, build, tiers, to=spec.DataType(code).name, reference=np.copy,
                expected=expected)


def _cast_case(n: int, src: str, to: str, make, reference, tiers: str, saturate: bool = True) -> Case:
    """Cast of n elements made by ``make(rng, n)`` (values on which numpy's or ml_dtypes' ``astype``,
    the ``reference``, follows the spec: in range where it does not saturate as Cast does)."""
    name = f"cast {src}->{to.lower()} n={_size(n)}" + ("" if saturate else " saturate=0")
    note = INT4_NOTE if to == "INT4" else None
    return Case("cast", name, "cast", lambda rng: {"x": make(rng, n)}, tiers, to=to, saturate=saturate,
                reference=reference, note=note)


INT4_NOTE = ("integer-valued floats: ml_dtypes' astype into int4 truncates toward zero, where Cast rounds "
             "to nearest even (int4.md)")


def _cast_cases() -> list[Case]:
    """Cast: the pairs a model's conversions take most, against numpy's ``astype`` (float16,
    float32, int32) or ml_dtypes' (bfloat16, float8, int4)."""
    import ml_dtypes

    def normal(dtype, scale):
        return lambda rng, n: (rng.standard_normal(n) * scale).astype(dtype)

    f8 = ml_dtypes.float8_e4m3fn
    int64 = lambda rng, n: _ints(rng, np.int64, n)  # noqa: E731
    f8_codes = lambda rng, n: rng.integers(0, 256, n, dtype=np.uint8).view(f8)  # noqa: E731
    # ml_dtypes' int4 truncates toward zero where Cast rounds to nearest even: integer values,
    # on which the two agree
    in_int4 = lambda rng, n: rng.integers(-8, 8, n).astype(np.float32)  # noqa: E731
    rows = [  # (source, target, make, reference, saturate, tiers at 1M, tiers at 16M)
        ("float", "FLOAT16", normal(np.float32, 1000), lambda x: x.astype(np.float16), True, "q", "f"),
        ("float16", "FLOAT", normal(np.float16, 1000), lambda x: x.astype(np.float32), True, "", "f"),
        ("double", "FLOAT", normal(np.float64, 1), lambda x: x.astype(np.float32), True, "", "f"),
        ("int64", "INT32", int64, lambda x: x.astype(np.int32), True, "", "f"),
        ("float", "BFLOAT16", normal(np.float32, 1), lambda x: x.astype(ml_dtypes.bfloat16), True, "", "f"),
        # ml_dtypes does not saturate: the comparison is with saturate=False, its rule
        ("float", "FLOAT8E4M3FN", normal(np.float32, 100), lambda x: x.astype(f8), False, "sq", "f"),
        # Cast's default, saturate=1, on values far inside the range, where ml_dtypes agrees
        ("float", "FLOAT8E4M3FN", normal(np.float32, 30), lambda x: x.astype(f8), True, "", "f"),
        ("float8e4m3fn", "FLOAT", f8_codes, lambda x: x.astype(np.float32), True, "", "f"),
        ("float", "INT4", in_int4, lambda x: x.astype(ml_dtypes.int4), True, "", "f"),
    ]
    cases = []
    for src, to, make, reference, saturate, small, large in rows:
        if small:
            cases.append(_cast_case(M if small != "sq" else K, src, to, make, reference, small, saturate))
            if small == "sq":
                cases.append(_cast_case(M, src, to, make, reference, "q", saturate))
        cases.append(_cast_case(16 * M, src, to, make, reference, large, saturate))
    return cases


DEQUANTIZE_NOTE = ("numpy's column: the numpy formula (w.astype(np.float32) - zero point, here none) * "
                   "np.repeat(scales, 32, axis), bit-identical for a float32 result; the issue's bar is "
                   "np.copy of the float32 result on one thread")
QUANTIZE_INT4_NOTE = ("numpy's column is a bar: np.clip(np.rint(x / s), -8, 7).astype(np.int8) computes int8 "
                      "(numpy has no int4); every result must equal that formula stored as int4 "
                      "(fastbits._cast_py.cast)")
QUANTIZE_F8_NOTE = ("numpy's column: (x / s).astype(ml_dtypes.float8_e4m3fn), on |x / s| < 200, far inside the "
                    "range, where ml_dtypes (which does not saturate) agrees with saturate=True")


def _quantize_int4(x, s):
    return np.clip(np.rint(x / s), -8, 7).astype(np.int8)


def _quantize_f8(x, s):
    import ml_dtypes

    return (x / s).astype(ml_dtypes.float8_e4m3fn)


def _dequantize_blocked(w, s, axis=1):
    return w.astype(np.float32) * np.repeat(s, 32, axis=axis)


def _quantize_cases() -> list[Case]:
    """QuantizeLinear float32 -> int4 and -> float8e4m3fn (a per-tensor scale), and DequantizeLinear
    of an int4 weight with blocked float32 scales -> float32, blocks of 32 along axis 1 and, as
    onnxruntime's MatMulNBitsQuantizer lays out a K x N weight, along axis 0; against the numpy
    formula; the onnx implementations run one-node models, opset 21."""

    def dequantize_case(size, tiers, axis=1):
        def build(rng):
            w, scale = int4_weight(size, rng)
            return {"x": w, "scale": scale if axis == 1 else np.ascontiguousarray(scale.T)}

        name = f"dequantize int4->float ({_size(size)},{_size(size)}) block 32" + (" axis 0" if axis == 0 else "")
        return Case("quantize", name, "dequantize", build, tiers, to="FLOAT",
                    reference=functools.partial(_dequantize_blocked, axis=axis), block_size=32,
                    axis=axis, note=DEQUANTIZE_NOTE)

    def quantize_case(n, to, tiers):
        def build(rng):   # a realistic scale; float 8: |x / s| stays under 200 (6 sigma: 160)
            spread = 1.0 if to == "INT4" else 10.0
            return {"x": (rng.standard_normal(n) * spread).astype(np.float32), "scale": np.array(0.37, np.float32)}

        if to == "INT4":
            reference, note = _quantize_int4, QUANTIZE_INT4_NOTE
            expected = lambda arrays: _cast_py.cast(_quantize_int4(arrays["x"], arrays["scale"]), "INT4")  # noqa: E731
        else:
            reference, note, expected = _quantize_f8, QUANTIZE_F8_NOTE, None
        return Case("quantize", f"quantize float->{to.lower()} n={_size(n)}", "quantize", build, tiers, to=to,
                    reference=reference, expected=expected, note=note)

    return [dequantize_case(64, "s"), dequantize_case(K, "q"), dequantize_case(4 * K, "f"), dequantize_case(4 * K, "f", 0),
            quantize_case(K, "INT4", "s"), quantize_case(M, "INT4", "q"), quantize_case(16 * M, "INT4", "f"),
            quantize_case(K, "FLOAT8E4M3FN", "s"), quantize_case(M, "FLOAT8E4M3FN", "q"),
            quantize_case(16 * M, "FLOAT8E4M3FN", "f")]


MATMUL_NOTE = ("numpy's column: numpy.matmul in float64 (BLAS) of the operands less their zero points, then "
               "int32: exact, every sum being under 2**53; onnx's reference multiplies in int32 without BLAS. "
               "A product, not a stream: no rate and no ceiling")
DYNAMIC_NOTE = ("numpy's column: the text's formulas in numpy (x.min(), x.max(), the scale and zero point in "
                "float32, then np.clip(np.rint(x / scale) + zero, 0, 255) as uint8); every column's y, "
                "the first output, is checked")


def _matmul_integer(a, b, za, zb):
    return ((a.astype(np.float64) - za) @ (b.astype(np.float64) - zb)).astype(np.int32)


QLINEAR_NOTE = ("numpy's column: MatMulInteger's sums as numpy's (float64 BLAS), then np.rint(sums * (a_scale * "
                "b_scale) / y_scale) in float64 plus y_zero_point, clipped: the exact quotient's rounding "
                "wherever it lies more than 2**-45 from a tie (onnx's reference and onnxruntime take the "
                "scales' quotient in float32, which moves a quotient within about 2**-24 of one); onnx's "
                "reference multiplies in int32 without BLAS. A product: no rate and no ceiling")


def _qlinear_matmul(a, sa, za, b, sb, zb, ys, yz):
    sums = _matmul_integer(a, b, za, zb)
    info = np.iinfo(yz.dtype)
    quotient = sums * (np.float64(sa) * np.float64(sb)) / np.float64(ys)  # the scales' product is exact
    return np.clip(np.rint(quotient) + int(yz), info.min, info.max).astype(yz.dtype)


def _dynamic_quantize(x):
    f32 = np.float32
    low, high = np.minimum(f32(0), x.min()), np.maximum(f32(0), x.max())
    scale = (high - low) / f32(255)
    zero = np.rint(np.clip(f32(0) - low / scale, f32(0), f32(255)))
    return np.clip(np.rint(x / scale) + zero, 0, 255).astype(np.uint8)


def _quantized_arithmetic_cases() -> list[Case]:
    """MatMulInteger of uint8 activations by an int8 weight, as onnxruntime's quantize_dynamic
    makes it (M = 16 rows), the same as QLinearMatMul into uint8 (quantize_static's QOperator
    format), and DynamicQuantizeLinear of float32 activations."""

    def matmul_case(m, k, n, tiers):
        def build(rng):
            return {"a": rng.integers(0, 256, (m, k), dtype=np.uint8),
                    "b": rng.integers(-128, 128, (k, n), dtype=np.int8),
                    "za": np.uint8(131), "zb": np.int8(0)}

        return Case("quantize", f"matmul_integer uint8@int8 ({_size(m)},{_size(k)})@({_size(k)},{_size(n)})",
                    "matmul_integer", build, tiers, to="INT32", reference=_matmul_integer, note=MATMUL_NOTE)

    def qlinear_case(m, k, n, tiers):
        def build(rng):
            return {"a": rng.integers(0, 256, (m, k), dtype=np.uint8), "sa": np.float32(0.02), "za": np.uint8(131),
                    "b": rng.integers(-128, 128, (k, n), dtype=np.int8), "sb": np.float32(0.003),
                    "zb": np.int8(0), "ys": np.float32(0.25 * np.sqrt(k)), "yz": np.uint8(128)}

        return Case("quantize", f"qlinear_matmul uint8@int8 ({_size(m)},{_size(k)})@({_size(k)},{_size(n)})",
                    "qlinear_matmul", build, tiers, to="UINT8", reference=_qlinear_matmul, note=QLINEAR_NOTE)

    def dynamic_case(n, tiers):
        def build(rng):
            return {"x": (rng.standard_normal(n) * 3.0 + 0.5).astype(np.float32)}

        return Case("quantize", f"dynamic_quantize float n={_size(n)}", "dynamic_quantize", build, tiers,
                    to="UINT8", reference=_dynamic_quantize, note=DYNAMIC_NOTE)

    return [matmul_case(4, 64, 64, "s"), matmul_case(16, K, K, "q"), matmul_case(16, 4 * K, 4 * K, "f"),
            qlinear_case(4, 64, 64, "s"), qlinear_case(16, K, K, "q"), qlinear_case(16, 4 * K, 4 * K, "f"),
            dynamic_case(K, "s"), dynamic_case(M, "q"), dynamic_case(16 * M, "f")]


#: The model rows' operations, by Case.op: what the timed call does.
MODEL_OPS = {"model-build": "the evaluator's construction, ReferenceEvaluator(model)",
             "model-run": "one run of an evaluator built before, evaluator.run(None, {'x': x})"}


MODEL_NOTE = ("numpy, fastbits' functions and onnxruntime have no figure here; the MatMul is onnx's in both "
              "evaluators (np.matmul, on BLAS's own threads): they differ in DequantizeLinear and, in the "
              "construction, in reading the initializers; the result is checked against np.matmul of x and the "
              "numpy formula's weight (the construction row: the evaluator built, by its output)")


def _model_arrays(size):
    def build(rng):
        w, scale = int4_weight(size, rng)
        arrays = {"x": rng.standard_normal((8, size)).astype(np.float32), "w": w, "scale": scale}
        try:
            arrays["model"] = int4_matmul_model(w, scale)
        except ImportError:   # no onnx: the evaluators are absent too
            arrays["model"] = None
        return arrays

    return build


def _model_output(arrays: dict[str, Any]) -> np.ndarray:
    """The int4 model's output, as onnx's MatMul computes it (np.matmul) from the weight the
    numpy formula dequantizes, bit-identical to it."""
    return np.matmul(arrays["x"], _dequantize_blocked(arrays["w"], arrays["scale"]))


def _evaluator_output(evaluator: Any, arrays: dict[str, Any]) -> np.ndarray:
    """What the construction row checks: the evaluator built, by its output on the case's x."""
    return evaluator.run(None, {"x": arrays["x"]})[0]


def _model_cases() -> list[Case]:
    """The int4 model (:func:`.models.int4_matmul_model`) as two rows, its construction and one run, in
    onnx's evaluator alone (onnx-ref) and in fastbits' subclass (onnx-ref+fb); numpy has no column,
    the ratio is onnx-ref's time over onnx-ref+fb's."""
    cases = []
    for size, tiers in ((64, "s"), (K, "q"), (4 * K, "f")):
        for op, what, result in (("model-build", "construction", _evaluator_output), ("model-run", "one run", None)):
            cases.append(Case("model", f"int4 model {what} {size}", op, _model_arrays(size), tiers,
                              expected=_model_output, result=result, baseline="onnx-ref", note=MODEL_NOTE))
    return cases


def all_cases() -> list[Case]:
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
        # layouts the operands share, which a fresh result takes (numpy's order 'K')
        Case("strided", "xor int32 (128,64,128) axes (2,0,1) both", "xor",
             _operands("xor", (128, 64, 128), (128, 64, 128), np.int32, PERMUTED, PERMUTED), "q"),
        Case("strided", "and int32 (2K,2K) Fortran & (2K,1) column", "and",
             _and((2 * K, 2 * K), (2 * K, 1), a_view=np.asfortranarray), "q"),
    ]
    # out=
    out += [
        Case("out", "and int32 n=1K out=", "and", _and((K,), (K,), out=True), "sq", out=True),
        Case("out", "and int32 n=1M out=", "and", _and((M,), (M,), out=True), "q", out=True),
        Case("out", "and int32 n=16M out=", "and", _and((16 * M,), (16 * M,), out=True), "f", out=True),
        Case("out", "and int32 (1K,1K) & (1K,) row out=", "and", _and((K, K), (K,), out=True), "q", out=True),
        Case("out", "and int32 (1K,1K).T & (1K,1K) out=", "and", _and((K, K), (K, K), a_view=T, out=True), "q", out=True),
    ]
    # BitwiseAnd's siblings: BitwiseOr, BitwiseXor, BitwiseNot, BitShift
    out += _siblings()
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
        Case("bitcast", "bitcast float->int32 copy (1K,1K).T", "bitcast",
             _bitcast_input(lambda rng: _float32(M)(rng).reshape(K, K).T), "q",
             to="INT32", copy=True, reference=lambda x: np.copy(x).view(np.int32)),
        Case("bitcast", "bitcast >i4->float n=1M", "bitcast", _bitcast_input(_big_endian_int32(M)), "q",
             to="FLOAT", reference=lambda x: x.astype(np.int32).view(np.float32)),
        Case("bitcast", "bitcast >i4->float n=16M", "bitcast", _bitcast_input(_big_endian_int32(16 * M)), "f",
             to="FLOAT", reference=lambda x: x.astype(np.int32).view(np.float32)),
        Case("bitcast", "bitcast int4->uint4 copy n=1M", "bitcast", lambda rng: {"x": _int4(M)(rng)}, "q",
             to="UINT4", copy=True, reference=_uint4_copy),
    ]
    # Cast
    out += _cast_cases()
    # ONNX's packed layout: pack and unpack, against np.copy of the unpacked array
    D = spec.DataType
    out += [
        packing_case("pack", D.INT4, 4 * M, "q"), packing_case("unpack", D.INT4, 4 * M, "q"),
        packing_case("pack", D.FLOAT4E2M1, 4 * M, "q"),
        packing_case("pack", D.INT2, 4 * M, "f"), packing_case("unpack", D.INT2, 4 * M, "f"),
        # the 6-bit floats, four to three bytes
        packing_case("pack", D.FLOAT6E2M3, 4 * M, "q"), packing_case("unpack", D.FLOAT6E2M3, 4 * M, "q"),
        packing_case("pack", D.FLOAT6E3M2, 4 * M, "f"), packing_case("unpack", D.FLOAT6E3M2, 4 * M, "f"),
    ]
    # QuantizeLinear and DequantizeLinear; the int4 model, built and run in onnx's evaluators
    out += _quantize_cases()
    out += _quantized_arithmetic_cases()
    out += _model_cases()
    return out


def select(mode: str, pattern: str | None = None) -> list[Case]:
    """The cases ``mode`` runs (full runs the quick ones too), those whose group or name contains ``pattern``."""
    tier = mode[0]
    chosen = [c for c in all_cases() if tier in c.tiers or (tier == "f" and "q" in c.tiers)]
    if pattern:
        chosen = [c for c in chosen if pattern.lower() in f"{c.group} {c.name}".lower()]
    return chosen


def _result_bytes(xs: list[Any]) -> int:
    """Bytes of an elementwise call's result: its operands' broadcast shape, their itemsize."""
    return int(np.prod(np.broadcast_shapes(*(x.shape for x in xs)))) * xs[0].itemsize


def bytes_moved(case: Case, arrays: dict[str, Any]) -> int:
    """Bytes of the elements read and written by one call (0 for a BitCast view)."""
    if case.op in ELEMENTWISE:
        xs = operands(arrays)
        return sum(x.nbytes for x in xs) + _result_bytes(xs)
    if case.op in PRODUCTS:  # a product, not a stream of elements: no rate, no ceiling
        return 0
    x = arrays["x"]
    if case.op == "dynamic_quantize":  # the input and y
        return x.nbytes + x.size
    if case.op == "cast":  # the input and the result
        return x.nbytes + x.size * spec.numpy_dtype(spec.DataType[case.to]).itemsize
    if case.op in ("pack", "unpack"):  # the unpacked elements and the packed bytes
        return x.nbytes + spec.packed_size(spec.datatype_of(x.dtype), x.size)
    if case.op in ("quantize", "dequantize"):  # the input, the scales and the result
        return x.nbytes + arrays["scale"].nbytes + x.size * spec.numpy_dtype(spec.DataType[case.to]).itemsize
    if case.op in MODEL_OPS:  # a model, not a stream of elements: no rate, no ceiling
        return 0
    if case.copy or x.dtype.byteorder == ">":
        return 2 * x.nbytes
    return 0


def bytes_written(case: Case, arrays: dict[str, Any]) -> int:
    """Bytes of the result one call writes (0 for a BitCast view and a model): what fastbits'
    ``stream_threshold`` is compared with, so what decides whether a case is out of cache."""
    if case.op in ELEMENTWISE:
        return _result_bytes(operands(arrays))
    if case.op in PRODUCTS:
        return arrays["a"].shape[0] * arrays["b"].shape[1] * (4 if case.op == "matmul_integer" else 1)
    x = arrays["x"]
    if case.op in ("cast", "quantize", "dequantize", "dynamic_quantize"):
        return x.size * spec.numpy_dtype(spec.DataType[case.to]).itemsize
    if case.op == "pack":
        return spec.packed_size(spec.datatype_of(x.dtype), x.size)
    if case.op == "unpack":
        return x.nbytes
    if case.op in MODEL_OPS:
        return 0
    return x.nbytes if case.copy or x.dtype.byteorder == ">" else 0


def read_streams(case: Case, arrays: dict[str, Any]) -> int:
    """Arrays a call reads as streams the size of its result, 1 or 2: both operands of a binary
    operator when both are about as large as the result (at least half), else one (a unary
    operator, a broadcast row or scalar, a BitCast copy, pack and unpack).  The streaming
    ceiling a case is measured against reads as many."""
    if case.op not in ELEMENTWISE:
        return 1
    xs = operands(arrays)
    out = _result_bytes(xs)
    return max(1, sum(1 for x in xs if 2 * x.nbytes >= out))


def probe_operands(case: Case, arrays: dict[str, Any]) -> tuple[np.ndarray | None, np.ndarray, np.ndarray] | None:
    """The case's own arrays for its streaming ceiling, as flat bytes ``(out, a, b)``: its
    ``out`` (None for a case that returns a fresh result, or whose out is not C-contiguous) and
    the operands it reads as streams (``b`` is ``a`` for one), so that the ceiling reads and
    writes the very memory the case does; None when those operands are not C-contiguous and of
    the result's size (strided and transposed inputs, BitCast, pack and unpack)."""
    if case.op not in ELEMENTWISE:
        return None
    xs = operands(arrays)
    nbytes = _result_bytes(xs)
    streams = [x for x in xs if isinstance(x, np.ndarray) and x.nbytes == nbytes and x.flags.c_contiguous]
    inputs = read_streams(case, arrays)
    if not nbytes or len(streams) < inputs:
        return None
    out = arrays.get("out")

    def flat(x: np.ndarray) -> np.ndarray:
        return x.reshape(-1).view(np.uint8)

    a = flat(streams[0])
    own_out = flat(out) if out is not None and out.flags.c_contiguous else None
    return own_out, a, (flat(streams[1]) if inputs == 2 else a)
