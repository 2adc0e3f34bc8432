"""Cast and CastLike: the types they take, their attributes, and the float formats' rules.

Cast-28's doc and onnx's pages on the narrow types (``docs/docsgen/source/technical/``:
float8, float4, float6, int4, int2) state how a value becomes each type.  This module holds
what those texts say in data: each float format's widths, bias, infinities, NaN and largest
value (:data:`FLOAT_FORMATS`), the version of Cast each type arrived in, and the checks of a
call's arguments.  The conversions themselves are the pure module's (``fastbits._cast_py``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..errors import ArgumentTypeError, ArgumentValueError, TypeConstraintError
from .bitcast import resolve_to
from .messages import _allowed, describe_dtype
from .types import DataType, datatype_of, type_string

__all__ = [
    "CAST", "CAST_LIKE", "CAST_SINCE", "CAST_T", "FLOAT_FORMATS", "FloatFormat", "ROUND_MODES", "check_cast",
    "check_cast_version", "check_round_mode", "check_saturate",
]

CAST = "Cast"
CAST_LIKE = "CastLike"

#: The types fastbits casts between: Cast-28's T1 and T2 but string, which fastbits leaves to
#: onnx (its parsing and printing of numbers is a text-format question, not a bit-level one):
#: 25 types, 625 ordered pairs.  Cast has no complex type.
CAST_T: frozenset[DataType] = frozenset(DataType) - {
    DataType.UNDEFINED, DataType.STRING, DataType.COMPLEX64, DataType.COMPLEX128}

#: The version of Cast (and of CastLike, where it is later: CastLike starts at 15) from which
#: each type is in its T1 and T2 (onnx.defs: Cast-6, 13, 19, 21, 23, 24, 25, 28).
CAST_SINCE: dict[DataType, int] = {
    **{t: 6 for t in (DataType.FLOAT, DataType.UINT8, DataType.INT8, DataType.UINT16, DataType.INT16,
                      DataType.INT32, DataType.INT64, DataType.BOOL, DataType.FLOAT16, DataType.DOUBLE,
                      DataType.UINT32, DataType.UINT64)},
    DataType.BFLOAT16: 13,
    **{t: 19 for t in (DataType.FLOAT8E4M3FN, DataType.FLOAT8E4M3FNUZ, DataType.FLOAT8E5M2,
                       DataType.FLOAT8E5M2FNUZ)},
    DataType.UINT4: 21,
    DataType.INT4: 21,
    DataType.FLOAT4E2M1: 23,
    DataType.FLOAT8E8M0: 24,
    DataType.UINT2: 25,
    DataType.INT2: 25,
    DataType.FLOAT6E2M3: 28,
    DataType.FLOAT6E3M2: 28,
}

#: Cast's ``round_mode`` (Cast-24 on), for FLOAT8E8M0 targets: ``up`` rounds away from zero,
#: ``down`` towards zero, ``nearest`` to the nearer power of two, a tie up.
ROUND_MODES = ("up", "down", "nearest")


class FloatFormat(NamedTuple):
    """A binary float format as Cast writes it: ``ebits`` exponent and ``mbits`` mantissa bits
    after a sign bit, the exponent ``bias``, and what the codes beyond its finite values mean."""

    ebits: int
    mbits: int
    bias: int
    #: ``"ieee"``: the largest exponent holds the infinities and the NaNs; ``"fn"``: only NaN,
    #: the all-ones code of either sign (E4M3FN); ``"uz"``: one NaN, the code of -0 (the FNUZ
    #: types); ``None``: neither (float4, float6), where NaN and infinities saturate.
    special: str | None
    #: The largest finite value.
    max: float
    #: The format takes ``saturate``: the float 8 types (out of range and infinities go to
    #: the largest value, or to infinity or NaN with ``saturate=False``).
    saturable: bool = False
    #: A zero result keeps its sign.  The FNUZ types have no -0; float6.md casts -0 to 0.
    signed_zero: bool = True

    @property
    def min_exponent(self) -> int:
        """The exponent of the smallest normal value (subnormals share it)."""
        return 1 - self.bias


def _ieee(ebits: int, mbits: int) -> FloatFormat:
    bias = (1 << (ebits - 1)) - 1
    return FloatFormat(ebits, mbits, bias, "ieee", float((2 - 2.0**-mbits) * 2.0**bias))


#: Every float format Cast writes but FLOAT8E8M0, whose codes are powers of two (see
#: ``fastbits._cast_py``).  float4.md, float6.md and float8.md give the bits, biases and maxima.
FLOAT_FORMATS: dict[DataType, FloatFormat] = {
    DataType.FLOAT16: _ieee(5, 10),
    DataType.BFLOAT16: _ieee(8, 7),
    DataType.FLOAT: _ieee(8, 23),
    DataType.DOUBLE: _ieee(11, 52),
    DataType.FLOAT8E4M3FN: FloatFormat(4, 3, 7, "fn", 448.0, saturable=True),
    DataType.FLOAT8E4M3FNUZ: FloatFormat(4, 3, 8, "uz", 240.0, saturable=True, signed_zero=False),
    DataType.FLOAT8E5M2: FloatFormat(5, 2, 15, "ieee", 57344.0, saturable=True),
    DataType.FLOAT8E5M2FNUZ: FloatFormat(5, 2, 16, "uz", 57344.0, saturable=True, signed_zero=False),
    DataType.FLOAT4E2M1: FloatFormat(2, 1, 1, None, 6.0),
    DataType.FLOAT6E2M3: FloatFormat(2, 3, 1, None, 7.5, signed_zero=False),
    DataType.FLOAT6E3M2: FloatFormat(3, 2, 3, None, 28.0, signed_zero=False),
}


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
