"""The integer operators' checks: operands (Python ints included), BitShift's direction and
opset, multidirectional broadcasting, ``out=`` and BitCast's ``copy``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ArgumentTypeError, ArgumentValueError, BroadcastError, TypeConstraintError
from .messages import _allowed, describe_dtype
from .operators import BITSHIFT, BITSHIFT_11_T, DIRECTIONS, INPUT_NAMES, SINCE_VERSION, TYPE_CONSTRAINT
from .types import DataType, datatype_of, type_string

__all__ = [
    "ORDERS", "as_array", "broadcast_shape", "check_bitshift_version", "check_copy", "check_direction",
    "check_operand", "check_operands", "check_order", "check_out",
]

#: The memory layouts a fresh result may be asked for, as numpy's ufuncs take them: ``"K"``
#: (the operands' own, where they share one), ``"C"``, ``"F"``, ``"A"`` (F where every input is
#: F-contiguous, else C).
ORDERS = ("K", "C", "F", "A")


def as_array(op: str, value: Any, name: str, allowed: frozenset[DataType]) -> np.ndarray:
    """``value`` as an ndarray (:func:`numpy.asarray` for array-likes), or a clear error."""
    if isinstance(value, np.ndarray):
        return value
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise ArgumentTypeError(
            f"{op}: input '{name}' cannot be read as an array ({exc}); "
            f"expected a numpy array of one of {_allowed(allowed)}"
        ) from None
    if array.dtype.kind == "O":
        raise ArgumentTypeError(
            f"{op}: input '{name}' ({type(value).__name__}) cannot be read as a numeric array; "
            f"expected a numpy array of one of {_allowed(allowed)}"
        )
    return array


def _int_operand(op: str, value: int, name: str, dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise ArgumentValueError(
            f"{op}: input '{name}' is the Python int {value}, outside the "
            f"range [{info.min}, {info.max}] of the other input's type "
            f"{type_string(datatype_of(dtype))}"
        )
    return np.asarray(value, dtype=dtype.newbyteorder("="))


def _is_python_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_operands(op: str, a: Any, b: Any) -> tuple[np.ndarray, np.ndarray, DataType]:
    """Check and convert the two operands of a binary integer operator (BitwiseAnd,
    BitwiseOr, BitwiseXor, BitShift); return them as arrays and their type.

    Both must have the same type in the operator's T.  A Python int takes the other
    operand's type (as numpy's NEP 50 does) and must fit in it.  Array-likes are read with
    :func:`numpy.asarray`; nothing is promoted.
    """
    allowed = TYPE_CONSTRAINT[op]
    name_a, name_b = INPUT_NAMES[op]
    if _is_python_int(a) and _is_python_int(b):
        raise TypeConstraintError(
            f"{op}: inputs '{name_a}' and '{name_b}' are both Python ints, so T is unknown; "
            f"expected at least one array of one of {_allowed(allowed)}"
        )
    if _is_python_int(a):
        b = as_array(op, b, name_b, allowed)
        code = _operand_types(op, (name_b, b), (name_b, b))
        return _int_operand(op, a, name_a, b.dtype), b, code
    if _is_python_int(b):
        a = as_array(op, a, name_a, allowed)
        code = _operand_types(op, (name_a, a), (name_a, a))
        return a, _int_operand(op, b, name_b, a.dtype), code
    a = as_array(op, a, name_a, allowed)
    b = as_array(op, b, name_b, allowed)
    return a, b, _operand_types(op, (name_a, a), (name_b, b))


def check_operand(op: str, x: Any) -> tuple[np.ndarray, DataType]:
    """Check and convert the operand of a unary integer operator (BitwiseNot)."""
    (name,) = INPUT_NAMES[op]
    x = as_array(op, x, name, TYPE_CONSTRAINT[op])
    return x, _operand_types(op, (name, x), (name, x))


def _operand_types(op: str, *operands: tuple[str, np.ndarray]) -> DataType:
    allowed = TYPE_CONSTRAINT[op]
    codes = []
    for name, array in operands:
        code = datatype_of(array.dtype)
        if code not in allowed:
            raise TypeConstraintError(
                f"{op}: input '{name}' has dtype {describe_dtype(array.dtype)}, "
                f"which is not in T; expected one of {_allowed(allowed)}"
            )
        codes.append(code)
    (name_a, _), (name_b, _) = operands
    if codes[0] != codes[1]:
        raise TypeConstraintError(
            f"{op}: inputs '{name_a}' and '{name_b}' must have the same type T, but '{name_a}' is "
            f"{type_string(codes[0])} and '{name_b}' is {type_string(codes[1])}; fastbits "
            f"does not promote (cast one of them first)"
        )
    return codes[0]


def check_direction(direction: Any) -> str:
    """BitShift's ``direction``: ``"LEFT"`` or ``"RIGHT"``, in any case; returned upper-case."""
    if isinstance(direction, bytes):  # onnx attributes may arrive as bytes
        try:
            direction = direction.decode("ascii")
        except UnicodeDecodeError:
            pass
    if isinstance(direction, str) and direction.strip().upper() in DIRECTIONS:
        return direction.strip().upper()
    raise ArgumentValueError(
        f"{BITSHIFT}: attribute 'direction' is {direction!r}; expected 'LEFT' or 'RIGHT' "
        f"(in any case)"
    )


def check_order(op: str, order: Any) -> str:
    """The ``order`` of a fresh result: one of :data:`ORDERS` in any case (None: ``"K"``, as
    numpy reads it); returned upper-case."""
    if order is None:
        return "K"
    if not isinstance(order, str):
        raise ArgumentTypeError(f"{op}: 'order' must be a str, one of 'K', 'C', 'F' or 'A', not {type(order).__name__} "
                                f"{order!r}")
    if order.upper() not in ORDERS:
        raise ArgumentValueError(f"{op}: 'order' is {order!r}; expected one of 'K', 'C', 'F' or 'A' (in any case)")
    return order.upper()


def check_bitshift_version(version: int, code: DataType) -> None:
    """BitShift-11 (opsets 11 to 27) takes only unsigned types; BitShift-28 all eight."""
    if version < SINCE_VERSION[BITSHIFT] and code not in BITSHIFT_11_T:
        raise TypeConstraintError(
            f"{BITSHIFT}: input 'X' is {type_string(code)}, which BitShift-{version} does not "
            f"take (its T is {_allowed(BITSHIFT_11_T)}); signed types need BitShift-28 "
            f"(opset 28 or later)"
        )


def broadcast_shape(op: str, shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> tuple[int, ...]:
    """The multidirectional (numpy-style) broadcast of two shapes.

    Shapes are aligned at their last axis; two sizes agree when they are
    equal or one of them is 1.
    """
    names = INPUT_NAMES.get(op, ("A", "B"))
    ndim = max(len(shape_a), len(shape_b))
    padded_a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    padded_b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    result = []
    for size_a, size_b in zip(padded_a, padded_b):
        if size_a == size_b or size_b == 1:
            result.append(size_a)
        elif size_a == 1:
            result.append(size_b)
        else:
            raise BroadcastError(
                f"{op}: inputs '{names[0]}' with shape {tuple(shape_a)} and '{names[1]}' with shape "
                f"{tuple(shape_b)} do not broadcast (multidirectional broadcasting "
                f"needs each pair of trailing sizes to be equal or 1)"
            )
    return tuple(result)


def check_out(op: str, out: Any, shape: tuple[int, ...], code: DataType) -> np.ndarray:
    """Check an ``out=`` array: an ndarray of exactly ``shape`` and type ``code``, writeable.

    Any strides and either byte order are accepted.
    """
    if not isinstance(out, np.ndarray):
        raise ArgumentTypeError(
            f"{op}: 'out' must be a numpy.ndarray of shape {shape} and type "
            f"{type_string(code)}, not {type(out).__name__}"
        )
    if datatype_of(out.dtype) != code:
        raise TypeConstraintError(
            f"{op}: 'out' has dtype {describe_dtype(out.dtype)} but the result is "
            f"{type_string(code)}; expected an 'out' of that type"
        )
    if out.shape != tuple(shape):
        raise BroadcastError(
            f"{op}: 'out' has shape {out.shape} but the result has shape "
            f"{tuple(shape)}; expected exactly that shape"
        )
    if not out.flags.writeable:
        raise ArgumentValueError(f"{op}: 'out' is read-only; expected a writeable array")
    return out


def check_copy(op: str, copy: Any) -> bool:
    """``copy`` must be a bool (numpy bools too)."""
    if not isinstance(copy, (bool, np.bool_)):
        raise ArgumentTypeError(f"{op}: 'copy' must be True or False, not {copy!r}")
    return bool(copy)
