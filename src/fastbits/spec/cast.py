"""Cast and CastLike: the types they take, their attributes, and the float formats' rules.

Cast-28's doc and onnx's pages on the narrow types (``docs/docsgen/source/technical/``:
float8, float4, float6, int4, int2) state how a value becomes each type.  Each float
format's widths, bias, infinities, NaN and largest value, and the version of Cast each type
arrived in, are in the type table (:data:`fastbits.spec.TYPES`); this module holds Cast's own
sets and the checks of a call's arguments.  The conversions themselves are the pure module's
(``fastbits._cast_py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ArgumentTypeError, ArgumentValueError, TypeConstraintError
from .bitcast import resolve_to
from .messages import _allowed, describe_dtype
from .types import DERIVED, DataType, datatype_of, type_string

__all__ = [
    "CAST", "CAST_LIKE", "CAST_SINCE", "CAST_T", "ROUND_MODES", "check_cast", "check_cast_version",
    "check_round_mode", "check_saturate",
]

CAST = "Cast"
CAST_LIKE = "CastLike"

#: The types fastbits casts between: Cast-28's T1 and T2 but string, which fastbits leaves to
#: onnx (its parsing and printing of numbers is a text-format question, not a bit-level one):
#: 25 types, 625 ordered pairs.  Cast has no complex type.  Each type's version is in
#: :data:`fastbits.spec.TYPES` (``cast_since``; onnx.defs: Cast-6, 13, 19, 21, 23, 24, 25, 28).
CAST_SINCE: dict[DataType, int] = DERIVED.cast_since
CAST_T: frozenset[DataType] = frozenset(CAST_SINCE)

#: Cast's ``round_mode`` (Cast-24 on), for FLOAT8E8M0 targets: ``up`` rounds away from zero,
#: ``down`` towards zero, ``nearest`` to the nearer power of two, a tie up.
ROUND_MODES = ("up", "down", "nearest")


def _refuse_type(op: str, what: str, code: DataType | None, shown: str) -> TypeConstraintError:
    if code == DataType.STRING:
        why = "; fastbits leaves strings to onnx (its Cast parses and prints numbers as text)"
    elif code in (DataType.COMPLEX64, DataType.COMPLEX128):
        why = "; Cast's types have no complex"
    else:
        why = ""
    return TypeConstraintError(f"{op}: {what} is {shown}, which fastbits does not cast{why}; "
                               f"expected one of {_allowed(CAST_T)}")


def check_cast(op: str, dtype: np.dtype, to: Any) -> tuple[DataType, DataType]:
    """Check the input's dtype and ``to`` (any form :func:`resolve_to` reads); return their
    ONNX types, both in :data:`CAST_T`."""
    src = datatype_of(dtype)
    if src not in CAST_T:
        raise _refuse_type(op, "input 'input'", src, f"dtype {describe_dtype(dtype)}")
    dst = resolve_to(to, op, CAST_T)
    if dst not in CAST_T:
        if op == CAST_LIKE:  # CastLike's target is the type of its input 'target_type'
            raise _refuse_type(op, "input 'target_type'", dst, f"dtype {describe_dtype(np.dtype(to))}")
        raise _refuse_type(op, "attribute 'to'", dst, f"{type_string(dst)} ({int(dst)})")
    return src, dst


def check_saturate(op: str, saturate: Any) -> bool:
    """``saturate``: True or False (numpy bools too), or ONNX's int attribute values 1 and 0."""
    if isinstance(saturate, (bool, np.bool_)):
        return bool(saturate)
    if isinstance(saturate, (int, np.integer)):
        if saturate in (0, 1):
            return bool(saturate)
        raise ArgumentValueError(f"{op}: attribute 'saturate' must be 1 or 0 (True or False), not {int(saturate)}")
    raise ArgumentTypeError(f"{op}: attribute 'saturate' must be True or False (or 1 or 0), not {saturate!r}")


def check_round_mode(op: str, round_mode: Any) -> str:
    """``round_mode``: one of :data:`ROUND_MODES`, any case, spaces around allowed."""
    if not isinstance(round_mode, str):
        raise ArgumentTypeError(f"{op}: attribute 'round_mode' must be one of 'up', 'down' or 'nearest', "
                                f"not {type(round_mode).__name__} {round_mode!r}")
    mode = round_mode.strip().lower()
    if mode not in ROUND_MODES:
        raise ArgumentValueError(f"{op}: attribute 'round_mode' must be one of 'up', 'down' or 'nearest', "
                                 f"not {round_mode!r}")
    return mode


def check_cast_version(op: str, version: int, src: DataType, dst: DataType) -> None:
    """Refuse a type that ``op``'s version ``version`` (Cast-6 ... 28, CastLike-15 ... 25) does
    not take: each arrived in the version :data:`CAST_SINCE` names."""
    for what, code in (("input 'input'", src), ("the output type", dst)):
        if CAST_SINCE[code] > version:
            raise TypeConstraintError(
                f"{op}: {what} is {type_string(code)}, which {op}-{version} does not take: it is in "
                f"{op}'s types from Cast-{CAST_SINCE[code]} on (a model of that opset or later)")
