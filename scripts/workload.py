"""A short workload over every kernel path and error class, for valgrind and sanitizer runs.

Compares the active path with the pure one and with numpy; exits non-zero on a mismatch.
"""

from __future__ import annotations

import pathlib
import sys

import ml_dtypes
import numpy as np

import fastbits
from fastbits import _ops_py as pure
from fastbits import spec
from fastbits._examples import EXAMPLES


def main() -> int:
    print(f"fastbits {fastbits.__version__}, backend {fastbits.BACKEND}")
    rng = np.random.default_rng(0)
    for example in EXAMPLES:
        assert example.failure(fastbits) is None, example.name
    shapes = [
        ((3, 4, 5), (5,)), ((1000, 5), (5,)), ((64, 2), (64, 1)), ((33, 65), (1, 65)), ((33, 65), (33, 1)),
        ((7,), ()), ((), ()), ((0, 3), (3,)), ((2, 3, 1, 4, 1, 2, 3), (1, 4, 5, 2, 1)), ((300, 300), (300, 300)),
    ]
    for dtype in ("i1", "u2", "i4", "u8"):
        info = np.iinfo(dtype)
        for shape_a, shape_b in shapes:
            a = rng.integers(info.min, info.max, size=shape_a, dtype=dtype, endpoint=True)
            b = rng.integers(info.min, info.max, size=shape_b, dtype=dtype, endpoint=True)
            for x, y in ((a, b), (b, a), (a[..., ::-1] if a.ndim else a, b), (a.T, b.T)):
                try:
                    expected = np.bitwise_and(x, y)
                except ValueError:
                    continue
                assert np.array_equal(fastbits.bitwise_and(x, y), expected)
                out = np.empty(expected.shape, dtype)
                assert np.array_equal(fastbits.bitwise_and(x, y, out=out), expected)
            if a.shape == np.broadcast_shapes(a.shape, b.shape) and a.size:
                expected = a & b
                fastbits.bitwise_and(a, b, out=a)
                assert np.array_equal(a, expected)
    big = rng.integers(0, 2**31, size=(1 << 20), dtype=np.int32)
    assert np.array_equal(fastbits.bitwise_and(big, big[::-1]), big & big[::-1])
    assert np.array_equal(fastbits.bitwise_and(big.reshape(1024, 1024).T, 0x0F0F), big.reshape(1024, 1024).T & 0x0F0F)
    for src in sorted(spec.BITCAST_T1):
        dtype = spec.numpy_dtype(src)
        raw = rng.integers(0, 256, size=(9, 5, dtype.itemsize), dtype=np.uint8)
        x = raw.view(dtype).reshape(9, 5)
        for dst in sorted(spec.BITCAST_T2):
            for copy in (False, True):
                for view in (x, x[::-2, 1:], x.T):
                    try:
                        expected = pure.bitcast(view, dst, copy=copy)
                    except fastbits.FastbitsError as exc:
                        try:
                            fastbits.bitcast(view, dst, copy=copy)
                        except type(exc):
                            continue
                        raise AssertionError((src, dst))
                    result = fastbits.bitcast(view, dst, copy=copy)
                    assert np.ascontiguousarray(result).tobytes() == np.ascontiguousarray(expected).tobytes()
        if dtype.itemsize > 1 and dtype.kind in "iufc":
            swapped = x.astype(dtype.newbyteorder(">"))
            assert np.array_equal(fastbits.bitcast(swapped, src, copy=True).view(np.uint8), x.view(np.uint8))
    harness = pathlib.Path(__file__).resolve().parents[1] / "fuzz" / "fuzz_ops.py"
    namespace: dict = {"__name__": "fuzz_ops"}
    exec(compile(harness.read_text(), str(harness), "exec"), namespace)
    for _ in range(300):
        namespace["check_one"](rng.integers(0, 256, size=int(rng.integers(0, 2000)), dtype=np.uint8).tobytes())
    assert ml_dtypes  # the workload uses ml_dtypes through spec
    print("workload: all results equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
