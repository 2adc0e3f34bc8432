"""MatMulInteger (version 10): its types, and the shapes of its operands and zero points.

The operator's text (MatMulInteger-10) reads: a matrix product "that behaves like
numpy.matmul" of 8-bit integers into int32, each operand less its zero point: a scalar (per
tensor), or one per row of A (shape ``(M,)`` for a 2-D A, ``(..., M, 1)`` for an N-D one) and
one per column of B (``(N,)``, or ``(..., 1, N)``).  The products are exact and "the
accumulation may overflow if and only if in 32 bits": fastbits' sums are exact modulo 2**32,
the same on every host (:doc:`quantize`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ArgumentValueError, TypeConstraintError
from .messages import _allowed, describe_dtype
from .types import DataType, datatype_of, type_string

__all__ = ["MATMUL_INTEGER", "MATMUL_INTEGER_T", "check_matmul_integer"]

MATMUL_INTEGER = "MatMulInteger"

#: T1 (A and its zero point) and T2 (B and its zero point): int8 and uint8.
MATMUL_INTEGER_T = frozenset({DataType.INT8, DataType.UINT8})


def _operand(name: str, value: Any) -> np.ndarray:
    from .elementwise import as_array

    array = as_array(MATMUL_INTEGER, value, name, MATMUL_INTEGER_T)
    if datatype_of(array.dtype) not in MATMUL_INTEGER_T:
        raise TypeConstraintError(f"{MATMUL_INTEGER}: input '{name}' has dtype {describe_dtype(array.dtype)}; "
                                  f"expected one of {_allowed(MATMUL_INTEGER_T)}")
    return array


def _zero_point(name: str, value: Any, of: str, operand: np.ndarray, rows: bool) -> np.ndarray | None:
    """The zero point ``value`` of ``operand`` (input ``of``), shaped to broadcast against it:
    ``()`` for one, else one per row of A (``rows``) or one per column of B."""
    if value is None:
        return None
    zero = _operand(name, value)
    if zero.dtype != operand.dtype:
        raise TypeConstraintError(f"{MATMUL_INTEGER}: input '{name}' is {type_string(datatype_of(zero.dtype))} "
                                  f"and input '{of}' {type_string(datatype_of(operand.dtype))}; they must be of "
                                  f"one type ({'T1' if rows else 'T2'})")
    if zero.ndim == 0 or (zero.ndim == 1 and zero.shape[0] == 1):
        return zero.reshape(())
    shape = operand.shape
    if len(shape) >= 2:
        length = shape[-2] if rows else shape[-1]
        if zero.shape == (length,):
            return zero.reshape(length, 1) if rows else zero
        inner = (length, 1) if rows else (1, length)
        if zero.ndim == len(shape) and zero.shape[-2:] == inner and all(
                z in (1, n) for z, n in zip(zero.shape[:-2], shape[:-2])):
            return zero
        what = (f"one per row of '{of}' (shape ({length},) or {shape[:-2] + inner})" if rows else
                f"one per column of '{of}' (shape ({length},) or {shape[:-2] + inner})")
    else:
        what = f"no more: '{of}' is 1-D"
    raise ArgumentValueError(f"{MATMUL_INTEGER}: input '{name}' has shape {zero.shape}; expected one zero point "
                             f"(shape () or (1,)), or {what}")


def check_matmul_integer(a: Any, b: Any, a_zero_point: Any, b_zero_point: Any
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None, tuple[int, ...]]:
    """MatMulInteger's operands as arrays, their zero points shaped to broadcast against them
    (:func:`_zero_point`), and the result's shape (numpy.matmul's)."""
    op = MATMUL_INTEGER
    a, b = _operand("A", a), _operand("B", b)
    for name, x in (("A", a), ("B", b)):
        if x.ndim == 0:
            raise ArgumentValueError(f"{op}: input '{name}' is a scalar (shape ()); expected an array of at least "
                                     f"one axis, as numpy.matmul takes")
    k_b = b.shape[-2] if b.ndim >= 2 else b.shape[0]
    if a.shape[-1] != k_b:
        raise ArgumentValueError(f"{op}: inputs 'A' of shape {a.shape} and 'B' of shape {b.shape} do not multiply: "
                                 f"A's last axis has {a.shape[-1]} elements, B's "
                                 f"{'second to last' if b.ndim >= 2 else 'only'} axis {k_b}")
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ArgumentValueError(f"{op}: inputs 'A' of shape {a.shape} and 'B' of shape {b.shape}: their leading "
                                 f"(batch) axes {a.shape[:-2]} and {b.shape[:-2]} do not broadcast") from None
    za = _zero_point("a_zero_point", a_zero_point, "A", a, rows=True)
    zb = _zero_point("b_zero_point", b_zero_point, "B", b, rows=False)
    shape = tuple(batch) + (a.shape[-2:-1] if a.ndim >= 2 else ()) + (b.shape[-1:] if b.ndim >= 2 else ())
    return a, b, za, zb, shape
