"""BitCast's ``to``: what it may name, how it resolves, and which pairs of types BitCast allows."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ArgumentTypeError, BitWidthError, TypeConstraintError, UnknownDataTypeError
from .messages import _allowed, _code_ranges, describe_dtype
from .operators import BITCAST, BITCAST_T1, BITCAST_T2
from .types import _BY_NUMPY_NAME, TYPES, DataType, datatype_of, type_string

__all__ = ["bitcast_allowed", "check_bitcast", "check_bitcast_to", "resolve_to"]

#: The ONNX tensor types newer than BitCast-26: the 6-bit floats (IR version 14).
_NEWER_TYPES: frozenset[DataType] = frozenset(DataType) - BITCAST_T1 - {DataType.UNDEFINED, DataType.STRING}


def _why_not(code: DataType | None) -> str:
    """Why ``code`` is not in BitCast's T1 and T2, where the type list alone does not say."""
    if code not in _NEWER_TYPES:
        return ""
    return (": BitCast-26's T1 and T2 are the tensor types of IR version 13, and the 6-bit "
            "floats came with IR version 14 (onnx 1.23)")


def resolve_to(to: Any, op: str = BITCAST, allowed: frozenset[DataType] = BITCAST_T2,
               attribute: str = "to") -> DataType:
    """Resolve the ``to`` attribute of ``op`` (BitCast, Cast; or another type attribute, which
    the messages name) into a :class:`DataType`, in ``allowed`` (the operator's T2) or not.

    ``to`` may be an ONNX code (``6``, ``TensorProto.INT32``), a
    :class:`DataType`, a numpy / ml_dtypes dtype or scalar type, or a name:
    ONNX style first (``"FLOAT"`` is 32 bits, ``"tensor(float)"`` too), then
    numpy style (``"float8_e4m3fn"``, ``"f4"``), case-insensitive.  Raises
    :class:`UnknownDataTypeError` when ``to`` names no ONNX type and
    :class:`ArgumentTypeError` when it is of no such kind; the messages name ``op`` and list
    ``allowed``.
    """
    if isinstance(to, DataType):
        return to
    if isinstance(to, (bool, np.bool_)):
        raise ArgumentTypeError(
            f"{op}: attribute '{attribute}' must be an ONNX data type (an int code, a "
            f"DataType, a dtype or a name), not the bool {to!r}"
        )
    if isinstance(to, (int, np.integer)):
        try:
            return DataType(int(to))
        except ValueError:
            *others, last = [f"{int(t)} {t.name}" for t in sorted(set(DataType) - allowed)]
            raise UnknownDataTypeError(
                f"{op}: attribute '{attribute}' = {int(to)} is not an ONNX data type code; "
                f"expected one of {_code_ranges(list(allowed))} (the TensorProto.DataType "
                f"codes of T2; {', '.join(others)} and {last} are codes too, but not of T2)"
            ) from None
    if isinstance(to, str):
        return _resolve_name(to, op, allowed, attribute)
    try:
        dtype = np.dtype(to)
    except TypeError:
        raise ArgumentTypeError(
            f"{op}: attribute '{attribute}' must be an ONNX data type (an int code, a "
            f"DataType, a dtype or a name), not {type(to).__name__} {to!r}"
        ) from None
    if to is None:
        raise ArgumentTypeError(
            f"{op}: attribute '{attribute}' is required: an ONNX data type (an int code, a "
            f"DataType, a dtype or a name), not None"
        )
    code = datatype_of(dtype)
    if code is None:
        raise UnknownDataTypeError(
            f"{op}: attribute '{attribute}' = dtype {dtype} has no ONNX data type; "
            f"expected one of {_allowed(allowed)}"
        )
    return code


def _resolve_name(name: str, op: str, allowed: frozenset[DataType], attribute: str) -> DataType:
    key = name.strip()
    if key.lower().startswith("tensor(") and key.endswith(")"):
        key = key[len("tensor(") : -1]
    if key.upper() in DataType.__members__:
        return DataType[key.upper()]
    code = _BY_NUMPY_NAME.get(key.lower())
    if code is not None:
        return code
    try:
        dtype = np.dtype(key)
    except TypeError:
        dtype = None
    code = None if dtype is None else datatype_of(dtype)
    if code is None:
        raise UnknownDataTypeError(
            f"{op}: attribute '{attribute}' = {name!r} names no ONNX data type; expected "
            f"an ONNX name such as 'INT32' or 'FLOAT8E4M3FN' or a numpy name such as "
            f"'int32' or 'float8_e4m3fn'. T2 is {_allowed(allowed)}"
        )
    return code


def check_bitcast(dtype: np.dtype, to: Any) -> tuple[DataType, DataType]:
    """Check BitCast's input dtype and ``to``; return their two ONNX types.

    The input must be in T1, ``to`` in T2 and their ONNX bit widths equal
    (int4 and float4e2m1: 4 bits; int2: 2 bits; bool: 8 bits), whatever
    numpy's itemsize says.
    """
    src = datatype_of(dtype)
    if src is None or src not in BITCAST_T1:
        raise TypeConstraintError(
            f"{BITCAST}: input 'input' has dtype {describe_dtype(dtype)}, which is not "
            f"in T1{_why_not(src)}; expected one of {_allowed(BITCAST_T1)}"
        )
    return src, check_bitcast_to(src, to)


def bitcast_allowed(src: DataType, dst: DataType) -> bool:
    """BitCast-26 takes an input of type ``src`` (in T1) to ``dst``: ``dst`` is in T2 and of the
    same ONNX bit width."""
    return dst in BITCAST_T2 and TYPES[src].bits == TYPES[dst].bits


def check_bitcast_to(src: DataType, to: Any) -> DataType:
    """Check BitCast's ``to`` for an input of type ``src`` (in T1); return its ONNX type."""
    dst = resolve_to(to)
    if bitcast_allowed(src, dst):
        return dst
    if dst not in BITCAST_T2:
        raise TypeConstraintError(
            f"{BITCAST}: attribute 'to' = {dst.name} ({int(dst)}) is not in T2{_why_not(dst)}; "
            f"expected one of {_allowed(BITCAST_T2)}"
        )
    same = sorted(t for t in BITCAST_T2 if bitcast_allowed(src, t))
    raise BitWidthError(
        f"{BITCAST}: input 'input' is {type_string(src)} ({TYPES[src].bits} bits) but "
        f"'to' is {type_string(dst)} ({TYPES[dst].bits} bits); the widths must be "
        f"equal, so 'to' must be one of {', '.join(type_string(t) for t in same)}"
    )
