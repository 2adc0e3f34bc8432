"""The benchmark cases: which operator call, on which arrays, in which mode.

A :class:`Case` builds its arrays only when it runs (``Case.build(rng)``), so
that listing the suite costs nothing; ``tiers`` says which modes run it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

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
    """The cases ``mode`` runs (full runs the quick ones too), those whose group or name contains ``pattern``."""
    tier = mode[0]
    chosen = [c for c in all_cases() if tier in c.tiers or (tier == "f" and "q" in c.tiers)]
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
