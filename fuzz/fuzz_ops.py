"""Fuzz the public functions with arbitrary bytes, shapes, strides, dtypes, ``to`` and
``direction`` values: bitwise_and, bitwise_or, bitwise_xor, bitwise_not, bitshift, bitcast,
and cast (arbitrary bytes hold NaNs, infinities and values out of every range), with
arbitrary ``saturate`` and ``round_mode``; quantize_linear and dequantize_linear with scales
and zero points of any type and shape, any ``axis``, ``block_size``, ``output_dtype`` and
``precision``; dynamic_quantize_linear of any array; matmul_integer and qlinear_matmul of
operands, scales and zero points of any type and shape, products that fit and that do not; and
fastbits.onnx_tensors.to_array on TensorProtos of any type code, dims,
raw_data and typed entries (when onnx is installed).

Every outcome must be a correct result (the compiled path equal to the pure path,
BitwiseAnd, Or, Xor and Not equal to numpy, BitShift equal to a reference written from
the BitShift-28 text) or a clear fastbits error (a TypeError/ValueError subclass of
FastbitsError, the same on both paths). Anything else, a crash, a hang, a stray
exception or a wrong answer, is a finding.

Run it:
    python fuzz/fuzz_ops.py --seconds 60            # random bytes, no extra dependency
    python fuzz/fuzz_ops.py --atheris -atheris_runs=200000   # coverage-guided (pip install atheris)
The tests run ``check_one`` on a few hundred random inputs (tests/test_fuzz_harness.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import ml_dtypes
import numpy as np

import fastbits
from fastbits import _ops, spec
from fastbits import _ops_py as pure

try:
    from fastbits import _ops_c as compiled
except ImportError:  # a pure install: fuzz the pure path against numpy alone
    compiled = None
try:
    from onnx import TensorProto, numpy_helper

    from fastbits import onnx_tensors
except ImportError:  # no onnx: no tensors to read
    onnx_tensors = None

DTYPES = [
    np.dtype(t)
    for t in (
        "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", ">i2", ">i4", ">u8", "?", "f2", "f4", "f8",
        ">f4", ">f8", "c8", "c16", ">c8", "g", "M8[s]", "V4", "<U1", "S2",
        ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2,
        ml_dtypes.float8_e5m2fnuz, ml_dtypes.float8_e8m0fnu, ml_dtypes.float4_e2m1fn, ml_dtypes.int4,
        ml_dtypes.uint4, ml_dtypes.int2, ml_dtypes.uint2, ml_dtypes.float6_e2m3fn,
    )
]
INT_DTYPES = [d for d in DTYPES if d.kind in "iu"]
TO_VALUES = [
    *range(-2, 31), "float", "FLOAT", "double", "int4", "tensor(int4)", "float8_e4m3fn", "bfloat16",
    "string", "", "float128", "int3", None, 1.5, True, np.int32, np.longdouble, ml_dtypes.int2,
    np.dtype(">i4"), object, [6],
]
JUNK = [None, "abc", 1.5, [1, 2, 3], [[1], [2, 3]], object(), {"a": 1}, b"xy", 3, -1, 2**70, True]
INTEGER_OPS = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitshift"]
NUMPY_OPS = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
             "bitwise_not": np.invert}
CAST_TO = [*sorted(spec.CAST_T)] * 3 + ["STRING", "COMPLEX64", 99, "int3", None]
SATURATES = [True, False] * 4 + [0, 1, 2, None, "yes"]
ROUND_MODES = ["up", "down", "nearest"] * 3 + ["UP", " nearest ", "sideways", None, 1]
DIRECTIONS = ["LEFT", "RIGHT"] * 4 + ["left", "Right", " RIGHT ", b"LEFT", "UP", "", None, 1, "LEFT\x00", b"\xff"]


class Bytes:
    """Reads decisions from a byte string; past its end, every read is 0."""

    def __init__(self, data: bytes):
        self.data = data
        self.position = 0

    def byte(self) -> int:
        value = self.data[self.position] if self.position < len(self.data) else 0
        self.position += 1
        return value

    def integer(self, low: int, high: int) -> int:
        span = high - low + 1
        value = 0
        for _ in range(1 + (span > 256) + (span > 65536) * 6):
            value = value * 256 + self.byte()
        return low + value % span

    def pick(self, options):
        return options[self.integer(0, len(options) - 1)]

    def chunk(self, count: int) -> bytes:
        return bytes(self.byte() for _ in range(count))


def _array(src: Bytes, dtype: np.dtype) -> np.ndarray:
    ndim = src.integer(0, 4)
    shape = [src.integer(0, 5) for _ in range(ndim)]
    steps = [src.pick([1, 1, 2, -1, -2, 3]) for _ in range(ndim)]
    base_shape = [max(size, 1) * abs(step) for size, step in zip(shape, steps)]
    count = int(np.prod(base_shape, dtype=np.int64))
    if dtype.kind == "O":
        base = np.array([src.pick(JUNK) for _ in range(count)] or [0], dtype=object)[:count]
    else:
        raw = src.chunk(count * dtype.itemsize)
        base = np.frombuffer(raw, dtype=dtype).copy() if count else np.empty(0, dtype)
    base = base.reshape(base_shape)
    view = base[tuple(slice(None, None, step) for step in steps)] if ndim else base
    view = view[tuple(slice(0, size) for size in shape)] if ndim else view
    if ndim > 1 and src.byte() % 3 == 0:
        view = view.transpose(np.roll(np.arange(ndim), 1))
    if ndim and src.byte() % 4 == 0:
        axis = src.integer(0, ndim - 1)
        squeezed = view.take([0], axis=axis) if view.shape[axis] else view
        view = np.broadcast_to(squeezed, view.shape)
    if src.byte() % 2 and view.flags.writeable:
        view = view.view()
        view.flags.writeable = False
    return view


def _same_width_to(src: Bytes, dtype: np.dtype):
    """A ``to`` of the same ONNX width as ``dtype`` (when it has one), in one of its spellings."""
    code = spec.datatype_of(dtype)
    width = spec.bit_width(code) if code is not None else None
    targets = [t for t in spec.BITCAST_T2 if spec.bit_width(t) == width] or list(spec.BITCAST_T2)
    target = src.pick(sorted(targets))
    return src.pick([int(target), target, target.name.lower(), spec.numpy_dtype(target), spec.numpy_dtype(target).name])


def _operand(src: Bytes, dtype: np.dtype):
    kind = src.integer(0, 9)
    if kind == 0:
        return src.pick(JUNK)
    if kind == 1:
        return src.integer(-(2**65), 2**65)
    return _array(src, dtype if kind > 3 else src.pick(DTYPES))


def _amounts(y: np.ndarray) -> np.ndarray:
    """Most of ``y``'s values brought into -1 .. W+1 (W its bit width), where shifts happen."""
    width = y.dtype.itemsize * 8
    low = -1 if y.dtype.kind == "i" else 0
    return (np.remainder(y.astype(np.int64), width + 2 - low) + low).astype(y.dtype)


def shift_reference(x: np.ndarray, y: np.ndarray, direction: str) -> np.ndarray:
    """BitShift-28 on Python ints: 0 <= amount < W shifts (RIGHT arithmetic for signed types,
    LEFT dropping the bits past the top); other amounts give 0, or -1 for RIGHT of x < 0."""
    x, y = np.broadcast_arrays(x, y)
    dtype = x.dtype.newbyteorder("=")
    width = dtype.itemsize * 8
    results = []
    for value, amount in zip(x.ravel().tolist(), y.ravel().tolist()):
        if 0 <= amount < width:
            result = (value << amount if direction == "LEFT" else value >> amount) & ((1 << width) - 1)
            if dtype.kind == "i" and result >> (width - 1):
                result -= 1 << width
        else:
            result = -1 if direction == "RIGHT" and value < 0 else 0
        results.append(result)
    return np.array(results, dtype).reshape(x.shape)


def _expected(op: str, operands, direction):
    """What ``op`` must give for array ``operands``, or None when the call cannot succeed."""
    if op != "bitshift":
        return NUMPY_OPS[op](*operands)
    try:
        direction = spec.check_direction(direction)
    except fastbits.FastbitsError:
        return None
    return shift_reference(*operands, direction)


def _outcome(function, *args, **kwargs):
    try:
        return "ok", function(*args, **kwargs)
    except fastbits.FastbitsError as exc:
        assert isinstance(exc, (TypeError, ValueError)), repr(exc)
        return "error", (type(exc), str(exc))


def _same(first, second, context):
    kind_a, value_a = first
    kind_b, value_b = second
    assert kind_a == kind_b, (context, first, second)
    if kind_a == "error":
        assert value_a == value_b, (context, value_a, value_b)
        return
    assert value_a.dtype == value_b.dtype and value_a.shape == value_b.shape, context
    assert np.ascontiguousarray(value_a).tobytes() == np.ascontiguousarray(value_b).tobytes(), context


TENSOR_FIELDS = ["int32_data", "int64_data", "uint64_data", "float_data", "double_data"]
#: The type codes the installed onnx reads.
ONNX_CODES = set(TensorProto.DataType.values()) if onnx_tensors is not None else set()


def _check_tensor(src: "Bytes", data: bytes) -> None:
    """A TensorProto of any type code, dims and payload: to_array gives what onnx's reader
    gives, and from_array gives it back, or it raises a fastbits error."""
    code = src.integer(0, 30)
    dims = [src.integer(0, 4) for _ in range(src.integer(0, 3))]
    tensor = TensorProto(name="t", data_type=code, dims=dims)
    form = src.byte() % 3
    if form == 0:
        tensor.raw_data = src.chunk(src.integer(0, 40))
    elif form == 1:
        field = src.pick(TENSOR_FIELDS)
        count = src.integer(0, 30)
        if field in ("float_data", "double_data"):
            entries = [float(v) for v in np.frombuffer(src.chunk(8 * count).ljust(8 * count, b"\0"), "<f8")]
        else:
            entries = [src.integer(-300, 300) for _ in range(count)]
            entries = [abs(v) for v in entries] if field == "uint64_data" else entries
        getattr(tensor, field).extend(entries)
    kind, value = _outcome(onnx_tensors.to_array, tensor)
    if kind == "error":
        return
    assert value.shape == tuple(dims), ("to_array", data)
    if code in ONNX_CODES:  # an older onnx has no float6
        expected = numpy_helper.to_array(tensor)
        assert value.dtype == expected.dtype and value.tobytes() == expected.tobytes(), ("to_array", data)
    again = onnx_tensors.to_array(onnx_tensors.from_array(value))
    assert again.dtype == value.dtype and again.tobytes() == value.tobytes(), ("from_array", data)


SCALE_DTYPES = [np.dtype(t) for t in ("f4", "f2", ">f4", "i4", ml_dtypes.bfloat16, ml_dtypes.float8_e8m0fnu)]


def _elements(src: "Bytes", dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """A C-contiguous array of ``shape`` whose elements are the next bytes."""
    count = int(np.prod(shape, dtype=np.int64))
    if dtype.kind == "O":
        return np.zeros(shape, object)
    raw = src.chunk(count * dtype.itemsize).ljust(count * dtype.itemsize, b"\0")
    return np.frombuffer(raw, dtype).reshape(shape).copy()


QUANT_TYPES = [*sorted(spec.QUANTIZE_VERSIONS[28].y | spec.DEQUANTIZE_VERSIONS[28].scale), "STRING", 99, None, 0]


def _check_quantization(src: "Bytes", data: bytes) -> None:
    """QuantizeLinear or DequantizeLinear of arbitrary arrays: both paths give the same bits, of
    the input's shape, or the same fastbits error."""
    name = src.pick(["quantize_linear", "dequantize_linear"])
    x = _array(src, src.pick(DTYPES))
    if src.byte() % 3 == 0:  # a scale that fits a granularity of x
        kind = src.byte() % 3
        axis = src.integer(-x.ndim, x.ndim - 1) if x.ndim else 0
        block = src.integer(1, 5) if kind == 2 else 0
        if kind == 0 or not x.ndim:
            shape: tuple[int, ...] = ()
        elif kind == 1:
            shape = (x.shape[axis],)
        else:
            shape = tuple(-(-n // block) if d == axis % x.ndim else n for d, n in enumerate(x.shape))
        scale = _elements(src, src.pick(SCALE_DTYPES), shape)
    else:
        scale, axis, block = _array(src, src.pick(DTYPES)), src.integer(-3, 3), src.integer(-1, 4)
    zero = None if src.byte() % 2 else _elements(src, src.pick(DTYPES), scale.shape)
    options = {"axis": axis, "block_size": block, "output_dtype": src.pick(QUANT_TYPES)}
    if name == "quantize_linear":
        options.update(saturate=src.pick(SATURATES), precision=src.pick(QUANT_TYPES))
    functions = [getattr(_ops.load("python"), name)] + ([getattr(_ops.load("cython"), name)] if compiled else [])
    outcomes = [_outcome(function, x, scale, zero, **options) for function in functions]
    for other in outcomes[1:]:
        _same(outcomes[0], other, (name, data))
    kind, value = outcomes[0]
    if kind == "ok":
        assert value.shape == x.shape and value.flags.c_contiguous, (name, data)


INT8S = [np.dtype("i1"), np.dtype("u1")]


def _matmul_operands(src: "Bytes"):
    """MatMulInteger's operands: a product that fits (batches, vectors, strided views, k of
    any parity, zero points per tensor, row or column) or arbitrary arrays."""
    if src.byte() % 3 == 0:
        return [_array(src, src.pick(DTYPES)) for _ in range(2)] + [
            None if src.byte() % 2 else _array(src, src.pick(DTYPES)) for _ in range(2)]
    ta, tb = (src.pick(INT8S) if src.byte() % 8 else src.pick(DTYPES) for _ in range(2))
    m, k, n = src.integer(0, 40), src.integer(0, 70), src.integer(0, 300)
    batch = tuple(src.integer(1, 3) for _ in range(src.integer(0, 2)))
    a = _elements(src, ta, batch + (m, k))
    b = _elements(src, tb, (k, 2 * n))[:, ::2] if src.byte() % 2 else _elements(src, tb, (k, n))
    if src.byte() % 4 == 0:
        a = a.reshape(-1)[:k] if a.size >= k else a  # a vector
    zeros = []
    for x, per in ((a, "row"), (b, "column")):
        form = src.byte() % 4
        if form == 0:
            zeros.append(None)
        elif form == 1 or x.ndim < 2:
            zeros.append(_elements(src, x.dtype, ()))
        else:
            zeros.append(_elements(src, x.dtype, (x.shape[-2],) if per == "row" else (x.shape[-1],)))
    return [a, b, *zeros]


SCALE_TYPES = [np.dtype("f4"), np.dtype("f2")]


def _qlinear_arguments(src: "Bytes"):
    """QLinearMatMul's inputs: MatMulInteger's operands and zero points (a float 8 type now and
    then), each zero point with a scale of its shape, and one result scale and zero point; any
    scale value, NaN, the infinities and 0 among them."""
    import ml_dtypes

    a, b, za, zb = _matmul_operands(src)
    if src.byte() % 5 == 0:  # a float 8 operand
        f8 = src.pick([np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2)])
        b = b.view(f8) if isinstance(b, np.ndarray) and b.dtype in INT8S else b  # the same bytes
        zb = zb.view(f8) if isinstance(zb, np.ndarray) and zb.dtype in INT8S else zb
    st = src.pick(SCALE_TYPES)
    za = _elements(src, np.asarray(a).dtype, ()) if za is None else za
    zb = _elements(src, np.asarray(b).dtype, ()) if zb is None else zb
    y_type = src.pick(INT8S + [np.dtype(ml_dtypes.float8_e4m3fn)])
    return [a, _elements(src, st, np.shape(za)), za, b, _elements(src, st, np.shape(zb)), zb, _elements(src, st, ()),
            _elements(src, y_type, ())]


def _check_quantized_arithmetic(src: "Bytes", data: bytes) -> None:
    """DynamicQuantizeLinear, MatMulInteger or QLinearMatMul: both paths give the same bits (y,
    the scale and the zero point; the product), or the same fastbits error."""
    name = src.pick(["dynamic_quantize_linear", "matmul_integer", "qlinear_matmul"])
    if name == "dynamic_quantize_linear":
        args = [_array(src, src.pick([np.dtype("f4")] * 4 + DTYPES))]
    elif name == "matmul_integer":
        args = _matmul_operands(src)
    else:
        args = _qlinear_arguments(src)
    functions = [getattr(_ops.load("python"), name)] + ([getattr(_ops.load("cython"), name)] if compiled else [])
    outcomes = [_outcome(function, *args) for function in functions]
    for other in outcomes[1:]:
        if outcomes[0][0] == "ok" == other[0] and isinstance(other[1], tuple):
            for first, second in zip(outcomes[0][1], other[1], strict=True):
                _same(("ok", first), ("ok", second), (name, data))
        else:
            _same(outcomes[0], other, (name, data))
    kind, value = outcomes[0]
    if kind == "ok" and name == "matmul_integer":
        assert value.dtype == np.int32 and value.flags.c_contiguous, (name, data)
    if kind == "ok" and name == "qlinear_matmul":  # the result's type is its zero point's
        assert value.dtype == np.asarray(args[-1]).dtype and value.flags.c_contiguous, (name, data)


def check_one(data: bytes) -> None:
    """Run one fuzz input through every available path; raise AssertionError on a finding."""
    src = Bytes(data)
    paths = [pure] + ([compiled] if compiled is not None else [])
    branch = src.byte() % 6
    if branch == 5:
        _check_quantized_arithmetic(src, data)
        return
    if branch == 4:
        _check_quantization(src, data)
        return
    if branch == 3:
        if onnx_tensors is not None:
            _check_tensor(src, data)
        return
    if branch == 2:
        x = _array(src, src.pick(DTYPES))
        to, saturate, round_mode = src.pick(CAST_TO), src.pick(SATURATES), src.pick(ROUND_MODES)
        casts = [_ops.load("python").cast] + ([_ops.load("cython").cast] if compiled is not None else [])
        outcomes = [_outcome(cast, x, to, saturate=saturate, round_mode=round_mode) for cast in casts]
        for other in outcomes[1:]:
            _same(outcomes[0], other, ("cast", data))
        kind, value = outcomes[0]
        if kind == "ok":
            assert value.shape == x.shape and value.dtype == spec.numpy_dtype(spec.resolve_to(to)), ("cast", data)
        return
    if branch == 0:
        op = src.pick(INTEGER_OPS)
        dtype = src.pick(INT_DTYPES) if src.byte() % 4 else src.pick(DTYPES)
        operands = [_operand(src, dtype)] if op == "bitwise_not" else [_operand(src, dtype), _operand(src, dtype)]
        direction = src.pick(DIRECTIONS) if op == "bitshift" else None
        if op == "bitshift" and isinstance(operands[1], np.ndarray) and operands[1].dtype.kind in "iu" and src.byte() % 4:
            operands[1] = _amounts(operands[1])
        arrays = all(isinstance(x, np.ndarray) for x in operands)
        a = operands[0]
        out_kind = src.integer(0, 4)
        outcomes = []
        for path in paths:
            out, args = None, list(operands)
            if out_kind == 1 and arrays and a.dtype.kind != "O":
                try:
                    out = np.zeros(np.broadcast_shapes(*(x.shape for x in operands)), a.dtype)
                except ValueError:
                    out = np.zeros(a.shape, a.dtype)
            elif out_kind == 2 and isinstance(a, np.ndarray) and a.dtype.kind != "O":
                args[0] = out = a.copy()  # each path writes into its own copy of a
            if op == "bitshift":
                outcomes.append(_outcome(path.bitshift, *args, direction, out=out))
            else:
                outcomes.append(_outcome(getattr(path, op), *args, out=out))
        for other in outcomes[1:]:
            _same(outcomes[0], other, (op, data))
        kind, value = outcomes[0]
        if kind == "ok" and arrays:
            expected = _expected(op, operands, direction)
            assert expected is not None and np.array_equal(value, expected), (f"{op} != reference", data)
    else:
        x = _array(src, src.pick(DTYPES))
        to = src.pick(TO_VALUES) if src.byte() % 3 == 0 else _same_width_to(src, x.dtype)
        copy = src.pick([False, True] * 4 + [None, 1])
        outcomes = [_outcome(path.bitcast, x, to, copy=copy) for path in paths]
        for other in outcomes[1:]:
            _same(outcomes[0], other, ("bitcast", data))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="random-bytes mode: how long to run")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--atheris", action="store_true", help="coverage-guided, with atheris")
    args, rest = parser.parse_known_args(argv)
    print(f"fuzzing fastbits {fastbits.__version__} ({', '.join(INTEGER_OPS)}, bitcast, cast, quantize_linear, "
          f"dequantize_linear, dynamic_quantize_linear, matmul_integer, qlinear_matmul"
          f"{', to_array' if onnx_tensors is not None else ''}), paths: python"
          + (", cython" if compiled else ""))
    if args.atheris:
        import atheris

        atheris.Setup([sys.argv[0], *rest], check_one)
        atheris.Fuzz()
        return 0
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    rng = np.random.default_rng(seed)
    deadline = time.monotonic() + args.seconds
    runs = 0
    while time.monotonic() < deadline:
        data = rng.integers(0, 256, size=int(rng.integers(64, 3000)), dtype=np.uint8).tobytes()
        try:
            check_one(data)
        except AssertionError:
            print(f"FINDING after {runs} runs (seed {seed}), input: {data.hex()}")
            raise
        runs += 1
    print(f"{runs} inputs in {args.seconds:.0f} s (seed {seed}): no finding")
    return 0


if __name__ == "__main__":
    sys.exit(main())
