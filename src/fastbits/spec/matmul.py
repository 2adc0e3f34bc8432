"""MatMulInteger (version 10) and QLinearMatMul (10 and 21): their types, and the shapes of their
operands, scales and zero points.

The operator's text (MatMulInteger-10) reads: a matrix product "that behaves like
numpy.matmul" of 8-bit integers into int32, each operand less its zero point: a scalar (per
tensor), or one per row of A (shape ``(M,)`` for a 2-D A, ``(..., M, 1)`` for an N-D one) and
one per column of B (``(N,)``, or ``(..., 1, N)``).  The products are exact and "the
accumulation may overflow if and only if in 32 bits": fastbits' sums are exact modulo 2**32,
the same on every host (:doc:`quantize`).

QLinearMatMul's text (QLinearMatMul-21) reads: numpy.matmul's product of the operands less their
zero points, each scaled ("per tensor", per row of A or per column of B: the same shapes as
MatMulInteger's zero points, a scale and its zero point of one shape), then quantized by
``y = saturate((x / y_scale) + y_zero_point)``, rounded half to even.  The result's scale and zero
point are one each.  Version 10 takes int8 and uint8 with float32 scales; 21 adds the four
float 8 types and float16 and bfloat16 scales.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..errors import ArgumentValueError, TypeConstraintError
from .messages import _allowed, describe_dtype
from .types import DataType, datatype_of, type_string

__all__ = ["MATMUL_INTEGER", "MATMUL_INTEGER_T", "QLINEAR_MATMUL", "QLINEAR_MATMUL_VERSIONS", "QLinearMatMulCall",
           "check_matmul_integer", "check_qlinear_matmul", "check_qlinear_matmul_version"]

MATMUL_INTEGER = "MatMulInteger"
QLINEAR_MATMUL = "QLinearMatMul"

D = DataType
#: T1 (A and its zero point) and T2 (B and its zero point): int8 and uint8.
MATMUL_INTEGER_T = frozenset({D.INT8, D.UINT8})


class QLinearTypes(NamedTuple):
    """One version of QLinearMatMul's type constraints: T1, T2 and T3 (the operands', the
    result's, each with its zero point) are one set; TS is the scales'."""

    quantized: frozenset[DataType]
    scale: frozenset[DataType]


#: QLinearMatMul's versions and their types.
QLINEAR_MATMUL_VERSIONS: dict[int, QLinearTypes] = {
    10: QLinearTypes(MATMUL_INTEGER_T, frozenset({D.FLOAT})),
    21: QLinearTypes(MATMUL_INTEGER_T | {D.FLOAT8E4M3FN, D.FLOAT8E4M3FNUZ, D.FLOAT8E5M2, D.FLOAT8E5M2FNUZ},
                     frozenset({D.FLOAT, D.FLOAT16, D.BFLOAT16})),
}
_QLINEAR_LATEST = QLINEAR_MATMUL_VERSIONS[21]


class QLinearMatMulCall(NamedTuple):
    """A checked QLinearMatMul call: the operands; the scales and zero points of A and of B shaped
    to broadcast against them (0-d for one, ``(..., M, 1)`` one per row of A, ``(..., 1, N)`` one
    per column of B); the result's scale and zero point (0-d); the result's shape."""

    a: np.ndarray
    a_scale: np.ndarray
    a_zero: np.ndarray
    b: np.ndarray
    b_scale: np.ndarray
    b_zero: np.ndarray
    y_scale: np.ndarray
    y_zero: np.ndarray
    shape: tuple[int, ...]


def _operand(op: str, name: str, value: Any, allowed: frozenset[DataType]) -> np.ndarray:
    from .elementwise import as_array

    array = as_array(op, value, name, allowed)
    if datatype_of(array.dtype) not in allowed:
        raise TypeConstraintError(f"{op}: input '{name}' has dtype {describe_dtype(array.dtype)}; "
                                  f"expected one of {_allowed(allowed)}")
    return array


def _per_row_or_column(op: str, name: str, value: Any, of: str, operand: np.ndarray, rows: bool,
                       allowed: frozenset[DataType], what: str) -> np.ndarray:
    """The zero point or scale ``value`` of ``operand`` (input ``of``), shaped to broadcast
    against it: ``()`` for one, else one per row of A (``rows``) or one per column of B."""
    array = _operand(op, name, value, allowed)
    if array.ndim == 0 or (array.ndim == 1 and array.shape[0] == 1):
        return array.reshape(())
    shape = operand.shape
    if len(shape) >= 2:
        length = shape[-2] if rows else shape[-1]
        if array.shape == (length,):
            return array.reshape(length, 1) if rows else array
        inner = (length, 1) if rows else (1, length)
        if array.ndim == len(shape) and array.shape[-2:] == inner and all(
                z in (1, n) for z, n in zip(array.shape[:-2], shape[:-2])):
            return array
        more = (f"one per row of '{of}' (shape ({length},) or {shape[:-2] + inner})" if rows else
                f"one per column of '{of}' (shape ({length},) or {shape[:-2] + inner})")
    else:
        more = f"no more: '{of}' is 1-D"
    raise ArgumentValueError(f"{op}: input '{name}' has shape {array.shape}; expected one {what} "
                             f"(shape () or (1,)), or {more}")


def _same_type(op: str, name: str, value: np.ndarray, of: str, other: np.ndarray, constraint: str) -> None:
    if value.dtype != other.dtype:
        raise TypeConstraintError(f"{op}: input '{name}' is {type_string(datatype_of(value.dtype))} "
                                  f"and input '{of}' {type_string(datatype_of(other.dtype))}; they must be of "
                                  f"one type ({constraint})")


def _zero_point(name: str, value: Any, of: str, operand: np.ndarray, rows: bool) -> np.ndarray | None:
    """MatMulInteger's zero point of ``operand``, shaped (:func:`_per_row_or_column`)."""
    if value is None:
        return None
    zero = _per_row_or_column(MATMUL_INTEGER, name, value, of, operand, rows, MATMUL_INTEGER_T, "zero point")
    _same_type(MATMUL_INTEGER, name, zero, of, operand, "T1" if rows else "T2")
    return zero


def _product_shape(op: str, a: np.ndarray, b: np.ndarray, names: tuple[str, str]) -> tuple[int, ...]:
    """numpy.matmul's result shape for ``a @ b``, or an error naming the operands."""
    for name, x in zip(names, (a, b)):
        if x.ndim == 0:
            raise ArgumentValueError(f"{op}: input '{name}' is a scalar (shape ()); expected an array of at least "
                                     f"one axis, as numpy.matmul takes")
    na, nb = names
    k_b = b.shape[-2] if b.ndim >= 2 else b.shape[0]
    if a.shape[-1] != k_b:
        raise ArgumentValueError(f"{op}: inputs '{na}' of shape {a.shape} and '{nb}' of shape {b.shape} do not "
                                 f"multiply: {na}'s last axis has {a.shape[-1]} elements, {nb}'s "
                                 f"{'second to last' if b.ndim >= 2 else 'only'} axis {k_b}")
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ArgumentValueError(f"{op}: inputs '{na}' of shape {a.shape} and '{nb}' of shape {b.shape}: their "
                                 f"leading (batch) axes {a.shape[:-2]} and {b.shape[:-2]} do not broadcast") from None
    return tuple(batch) + (a.shape[-2:-1] if a.ndim >= 2 else ()) + (b.shape[-1:] if b.ndim >= 2 else ())


def check_matmul_integer(a: Any, b: Any, a_zero_point: Any, b_zero_point: Any
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None, tuple[int, ...]]:
    """MatMulInteger's operands as arrays, their zero points shaped to broadcast against them
    (:func:`_per_row_or_column`), and the result's shape (numpy.matmul's)."""
    op = MATMUL_INTEGER
    a, b = _operand(op, "A", a, MATMUL_INTEGER_T), _operand(op, "B", b, MATMUL_INTEGER_T)
    shape = _product_shape(op, a, b, ("A", "B"))
    za = _zero_point("a_zero_point", a_zero_point, "A", a, rows=True)
    zb = _zero_point("b_zero_point", b_zero_point, "B", b, rows=False)
    return a, b, za, zb, shape


def check_qlinear_matmul(a: Any, a_scale: Any, a_zero_point: Any, b: Any, b_scale: Any, b_zero_point: Any,
                         y_scale: Any, y_zero_point: Any) -> QLinearMatMulCall:
    """QLinearMatMul's inputs (version 21's types) as arrays, shaped (:class:`QLinearMatMulCall`).
    A scale and its zero point have one shape, as the text says; the three scales one type
    (TS)."""
    op = QLINEAR_MATMUL
    quantized, scales = _QLINEAR_LATEST
    a, b = _operand(op, "a", a, quantized), _operand(op, "b", b, quantized)
    shape = _product_shape(op, a, b, ("a", "b"))
    parts = []
    for scale_name, zero_name, scale, zero, of, operand, rows in (
            ("a_scale", "a_zero_point", a_scale, a_zero_point, "a", a, True),
            ("b_scale", "b_zero_point", b_scale, b_zero_point, "b", b, False)):
        s = _per_row_or_column(op, scale_name, scale, of, operand, rows, scales, "scale")
        z = _per_row_or_column(op, zero_name, zero, of, operand, rows, quantized, "zero point")
        _same_type(op, zero_name, z, of, operand, "T1" if rows else "T2")
        if s.shape != z.shape:
            raise ArgumentValueError(f"{op}: inputs '{scale_name}' and '{zero_name}' have shapes "
                                     f"{np.shape(scale)} and {np.shape(zero)}; a scale and its zero point must "
                                     f"have one shape")
        parts += [s, z]
    ys = _operand(op, "y_scale", y_scale, scales)
    yz = _operand(op, "y_zero_point", y_zero_point, quantized)
    for name, value in (("y_scale", ys), ("y_zero_point", yz)):
        if value.size != 1 or value.ndim > 1:
            raise ArgumentValueError(f"{op}: input '{name}' has shape {value.shape}; expected one value (shape () "
                                     f"or (1,)): the result is quantized per tensor")
    for name, value in (("b_scale", parts[2]), ("y_scale", ys)):
        _same_type(op, name, value, "a_scale", parts[0], "TS")
    return QLinearMatMulCall(a, parts[0], parts[1], b, parts[2], parts[3], ys.reshape(()), yz.reshape(()), shape)


def check_qlinear_matmul_version(version: int, a: DataType, b: DataType, y: DataType, scale: DataType) -> None:
    """Refuse a type that QLinearMatMul's ``version`` (10 or 21) does not take."""
    op = QLINEAR_MATMUL
    known = max(v for v in QLINEAR_MATMUL_VERSIONS if v <= version)
    quantized, scales = QLINEAR_MATMUL_VERSIONS[known]
    for what, code, allowed in (("input 'a'", a, quantized), ("input 'b'", b, quantized),
                                ("the result", y, quantized), ("the scales", scale, scales)):
        if code not in allowed:
            raise TypeConstraintError(f"{op}: {what} is {type_string(code)}, which {op}-{known} does not take; "
                                      f"it takes {_allowed(allowed)}")
