"""QuantizeLinear and DequantizeLinear: their types in each version, their attributes, and the
granularity of a call's scale (per tensor, per axis or blocked); DynamicQuantizeLinear's type and its
scale and zero point, the text's formulas.

The operators' texts (DequantizeLinear-28, QuantizeLinear-28) and their earlier versions'
type constraints (onnx.defs, versions 10, 13, 19, 21, 23, 24, 25 and 28) are written here as
data; the conversions are the pure module's (``fastbits._quant_py``) and the kernels'.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ..errors import ArgumentTypeError, ArgumentValueError, TypeConstraintError
from .bitcast import resolve_to
from .messages import _allowed, describe_dtype
from .types import INTEGER_RANGES, DataType, datatype_of, type_string

__all__ = [
    "DEQUANTIZE", "DEQUANTIZE_VERSIONS", "DYNAMIC_QUANTIZE", "DYNAMIC_QUANTIZE_T", "PRECISIONS", "QUANTIZE",
    "QUANTIZE_VERSIONS", "QUANTIZED_RANGES", "Quantization", "check_dequantize", "check_dynamic_quantize",
    "check_quantize", "check_quantize_version", "dynamic_parameters", "range_parameters",
]

QUANTIZE = "QuantizeLinear"
DEQUANTIZE = "DequantizeLinear"
DYNAMIC_QUANTIZE = "DynamicQuantizeLinear"

D = DataType
_F8 = (D.FLOAT8E4M3FN, D.FLOAT8E4M3FNUZ, D.FLOAT8E5M2, D.FLOAT8E5M2FNUZ)
_FLOATS = (D.FLOAT, D.FLOAT16, D.BFLOAT16)


class Types(NamedTuple):
    """One version's type constraints: the input's (T1), the scale's (T2), the result's (T3)."""

    x: frozenset[DataType]
    scale: frozenset[DataType]
    y: frozenset[DataType]


def _versions(steps: list[tuple[int, tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]]) -> dict[int, Types]:
    """Each version's types, from what each one adds to the one before."""
    table: dict[int, Types] = {}
    x: frozenset[DataType] = frozenset()
    scale: frozenset[DataType] = frozenset()
    y: frozenset[DataType] = frozenset()
    for version, more_x, more_scale, more_y in steps:
        x, scale, y = x | frozenset(more_x), scale | frozenset(more_scale), y | frozenset(more_y)
        table[version] = Types(x, scale, y)
    return table


#: DequantizeLinear's versions and types.  Before version 23 the result is the scale's type.
DEQUANTIZE_VERSIONS: dict[int, Types] = _versions([
    (10, (D.INT8, D.UINT8, D.INT32), (D.FLOAT,), (D.FLOAT,)),
    (13, (), (), ()),
    (19, _F8, (D.FLOAT16, D.BFLOAT16), (D.FLOAT16, D.BFLOAT16)),
    (21, (D.INT16, D.UINT16, D.UINT4, D.INT4), (), ()),
    (23, (D.FLOAT4E2M1,), (), ()),
    (24, (), (D.FLOAT8E8M0,), ()),
    (25, (D.UINT2, D.INT2), (), ()),
    (28, (D.FLOAT6E2M3, D.FLOAT6E3M2), (), ()),
])

#: QuantizeLinear's versions and types.  Before version 23 the scale is the input's type.
QUANTIZE_VERSIONS: dict[int, Types] = _versions([
    (10, (D.FLOAT, D.INT32), (D.FLOAT,), (D.INT8, D.UINT8)),
    (13, (), (), ()),
    (19, (D.FLOAT16, D.BFLOAT16), (D.FLOAT16, D.BFLOAT16), _F8),
    (21, (), (), (D.INT16, D.UINT16, D.UINT4, D.INT4)),
    (23, (), (D.INT32,), (D.FLOAT4E2M1,)),
    (24, (), (D.FLOAT8E8M0,), ()),
    (25, (), (), (D.UINT2, D.INT2)),
    (28, (), (), (D.FLOAT6E2M3, D.FLOAT6E3M2)),
])

#: DynamicQuantizeLinear's T1 (version 11, its only one): its input's type.
DYNAMIC_QUANTIZE_T = frozenset({D.FLOAT})

#: The integer results' ranges, which QuantizeLinear saturates to.
QUANTIZED_RANGES: dict[DataType, tuple[int, int]] = {
    code: INTEGER_RANGES[code] for code in sorted(QUANTIZE_VERSIONS[max(QUANTIZE_VERSIONS)].y)
    if code in INTEGER_RANGES
}

#: ``precision``'s values (QuantizeLinear-23 on): the types a scale may have but FLOAT8E8M0.
PRECISIONS = frozenset({D.FLOAT, D.FLOAT16, D.BFLOAT16, D.INT32})

_LATEST = 28


class Quantization(NamedTuple):
    """A checked call: the types, and where each element's scale is.

    The input is read as ``(outer, axis length, inner)`` around ``axis``; element ``(o, i, n)``
    takes the scale at ``(o, i // block, n)`` of the scale read as ``(outer, blocks, inner)``
    (blocked), at ``i`` (per axis: ``outer`` and ``inner`` of the scale are 1), or its one value
    (per tensor, ``block`` 0).
    """

    x: DataType
    scale: DataType
    y: DataType
    #: QuantizeLinear: the precision of the division; DequantizeLinear: the result's type.
    precision: DataType
    kind: str  # "tensor", "axis" or "blocked"
    axis: int  # in [0, rank); 0 for a per-tensor call
    block: int  # elements of the axis per scale (1 per axis; 0 per tensor)
    saturate: bool


def _int_attribute(op: str, name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ArgumentTypeError(f"{op}: attribute '{name}' must be an int, not {type(value).__name__} {value!r}")
    return int(value)


def _type_attribute(op: str, name: str, value: Any, allowed: frozenset[DataType]) -> DataType | None:
    """An ONNX type attribute: None (or 0, ONNX's "not given"), else one of ``allowed``."""
    if value is None or (isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
                         and int(value) == 0):
        return None
    code = resolve_to(value, op, allowed, attribute=name)
    if code not in allowed:
        raise TypeConstraintError(f"{op}: attribute '{name}' is {type_string(code)} ({int(code)}); "
                                  f"expected one of {_allowed(allowed)}")
    return code


def _input_type(op: str, name: str, array: np.ndarray, allowed: frozenset[DataType]) -> DataType:
    code = datatype_of(array.dtype)
    if code not in allowed:
        raise TypeConstraintError(f"{op}: input '{name}' has dtype {describe_dtype(array.dtype)}, which is not "
                                  f"among its types; expected one of {_allowed(allowed)}")
    return code


def _granularity(op: str, x_shape: tuple[int, ...], scale: str, scale_shape: tuple[int, ...],
                 zero: str, zero_shape: tuple[int, ...] | None, axis: Any, block_size: Any) -> tuple[str, int, int]:
    """``(kind, axis, block)`` of a call (see :class:`Quantization`), or an error that says which
    shape is wrong."""
    axis = _int_attribute(op, "axis", axis)
    block_size = _int_attribute(op, "block_size", block_size)
    if block_size < 0:
        raise ArgumentValueError(f"{op}: attribute 'block_size' must be 0 (no blocks) or positive, not {block_size}")
    per_tensor = len(scale_shape) == 0 or (len(scale_shape) == 1 and scale_shape[0] == 1 and block_size == 0)
    granularity = _scale_granularity(op, x_shape, scale, scale_shape, per_tensor, axis, block_size)
    # the zero point after the scale: a scale that fits no granularity is the error to name
    if zero_shape is not None and zero_shape != scale_shape and not (
            per_tensor and len(zero_shape) <= 1 and math.prod(zero_shape) == 1):
        raise ArgumentValueError(f"{op}: input '{zero}' has shape {zero_shape}, input '{scale}' {scale_shape}; "
                                 f"they must be the same")
    return granularity


def _scale_granularity(op: str, x_shape: tuple[int, ...], scale: str, scale_shape: tuple[int, ...],
                       per_tensor: bool, axis: int, block_size: int) -> tuple[str, int, int]:
    """:func:`_granularity` of the scale alone."""
    rank = len(x_shape)
    if per_tensor:
        if block_size:
            raise ArgumentValueError(f"{op}: attribute 'block_size' is {block_size}, but input '{scale}' has "
                                     f"shape {scale_shape} (one scale); blocked quantization takes a scale of "
                                     f"the input's rank {rank}")
        return "tensor", 0, 0
    if not -rank <= axis < rank:
        raise ArgumentValueError(f"{op}: attribute 'axis' is {axis}, outside [-{rank}, {rank - 1}] for an input "
                                 f"of shape {x_shape}" if rank else
                                 f"{op}: input '{scale}' has shape {scale_shape}, but the input is a scalar; "
                                 f"expected one scale")
    axis %= rank
    length = x_shape[axis]
    if block_size == 0:
        if len(scale_shape) != 1 or scale_shape[0] != length:
            raise ArgumentValueError(
                f"{op}: input '{scale}' has shape {scale_shape}; expected one scale (shape () or (1,)), or one per "
                f"element of axis {axis} (shape ({length},)), or a 'block_size' for blocked quantization")
        return "axis", axis, 1
    expected = tuple(-(-length // block_size) if d == axis else n for d, n in enumerate(x_shape))
    if tuple(scale_shape) != expected:
        raise ArgumentValueError(
            f"{op}: input '{scale}' has shape {scale_shape}; blocks of {block_size} along axis {axis} of an "
            f"input of shape {x_shape} take a scale of shape {expected}")
    return "blocked", axis, block_size


def _arrays(op: str, names: tuple[str, str, str], x: Any, scale: Any, zero: Any,
            types: Types) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, DataType, DataType, DataType | None]:
    from .elementwise import as_array

    x = as_array(op, x, names[0], types.x)
    scale = as_array(op, scale, names[1], types.scale)
    zero = None if zero is None else as_array(op, zero, names[2], types.y if op == QUANTIZE else types.x)
    tx = _input_type(op, names[0], x, types.x)
    ts = _input_type(op, names[1], scale, types.scale)
    tz = None if zero is None else _input_type(op, names[2], zero, types.y if op == QUANTIZE else types.x)
    return x, scale, zero, tx, ts, tz


def check_dequantize(x: Any, scale: Any, zero: Any, axis: Any, block_size: Any, output_dtype: Any,
                     types: Types = DEQUANTIZE_VERSIONS[_LATEST]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None,
                                                                           Quantization]:
    """DequantizeLinear's arguments as arrays, and the checked call."""
    op = DEQUANTIZE
    x, scale, zero, tx, ts, tz = _arrays(op, ("x", "x_scale", "x_zero_point"), x, scale, zero, types)
    if tz is not None and tz != tx:
        raise TypeConstraintError(f"{op}: input 'x_zero_point' is {type_string(tz)} and input 'x' "
                                  f"{type_string(tx)}; they must be of one type (T1)")
    y = _type_attribute(op, "output_dtype", output_dtype, types.y)
    if y is None:
        if ts not in types.y:
            raise TypeConstraintError(f"{op}: input 'x_scale' is {type_string(ts)}, which is not a type of the "
                                      f"result; give attribute 'output_dtype', one of {_allowed(types.y)}")
        y = ts
    kind, ax, block = _granularity(op, x.shape, "x_scale", scale.shape, "x_zero_point",
                                   None if zero is None else zero.shape, axis, block_size)
    return x, scale, zero, Quantization(tx, ts, y, y, kind, ax, block, True)


def check_quantize(x: Any, scale: Any, zero: Any, axis: Any, block_size: Any, output_dtype: Any, saturate: Any,
                   precision: Any, types: Types = QUANTIZE_VERSIONS[_LATEST]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, Quantization]:
    """QuantizeLinear's arguments as arrays, and the checked call."""
    from .cast import check_saturate

    op = QUANTIZE
    saturate = check_saturate(op, saturate)
    x, scale, zero, tx, ts, tz = _arrays(op, ("x", "y_scale", "y_zero_point"), x, scale, zero, types)
    y = _type_attribute(op, "output_dtype", output_dtype, types.y)
    if y is not None and tz is not None and y != tz:
        raise TypeConstraintError(f"{op}: attribute 'output_dtype' is {type_string(y)} and input 'y_zero_point' "
                                  f"{type_string(tz)}; they must be the same type")
    y = y or tz or D.UINT8
    p = _type_attribute(op, "precision", precision, PRECISIONS)
    if p is None:  # the scale's type; a power of two (FLOAT8E8M0) divides in float32 (docs/quantize.md)
        p = D.FLOAT if ts == D.FLOAT8E8M0 else ts
    kind, ax, block = _granularity(op, x.shape, "y_scale", scale.shape, "y_zero_point",
                                   None if zero is None else zero.shape, axis, block_size)
    return x, scale, zero, Quantization(tx, ts, y, p, kind, ax, block, saturate)


def check_quantize_version(op: str, version: int, x: DataType, scale: DataType, y: DataType) -> None:
    """Refuse a type that ``op``'s ``version`` does not take (QuantizeLinear and DequantizeLinear
    10 to 28), and, before version 23, a QuantizeLinear scale of another type than its input."""
    table = QUANTIZE_VERSIONS if op == QUANTIZE else DEQUANTIZE_VERSIONS
    known = max(v for v in table if v <= version)
    types = table[known]
    for what, code, allowed in (("input 'x'", x, types.x), ("the scale", scale, types.scale),
                                ("the result", y, types.y)):
        if code not in allowed:
            raise TypeConstraintError(f"{op}: {what} is {type_string(code)}, which {op}-{known} does not take; "
                                      f"it takes {_allowed(allowed)}")
    if op == QUANTIZE and 19 <= known < 23 and scale != x:
        raise TypeConstraintError(f"{op}: the scale is {type_string(scale)} and input 'x' {type_string(x)}; "
                                  f"{op}-{known} takes one type for both (T1)")
    if op == DEQUANTIZE and known < 23 and y != scale:
        raise TypeConstraintError(f"{op}: attribute 'output_dtype' is {op}-23's; {op}-{known} gives the scale's "
                                  f"type")


def check_dynamic_quantize(x: Any) -> np.ndarray:
    """DynamicQuantizeLinear's input (version 11: float32, T1) as an array."""
    from .elementwise import as_array

    x = as_array(DYNAMIC_QUANTIZE, x, "x", DYNAMIC_QUANTIZE_T)
    _input_type(DYNAMIC_QUANTIZE, "x", x, DYNAMIC_QUANTIZE_T)
    return x


def dynamic_parameters(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DynamicQuantizeLinear's scale and zero point (:func:`range_parameters`) of float32 ``x``:
    of its least and greatest elements (NaN where x holds one: numpy's min and max), 0 and 0
    for an empty x."""
    with np.errstate(all="ignore"):
        return range_parameters(x.min(), x.max()) if x.size else range_parameters(np.float32(0), np.float32(0))


def range_parameters(low: Any, high: Any) -> tuple[np.ndarray, np.ndarray]:
    """DynamicQuantizeLinear's scale (float32) and zero point (uint8), 0-d, from x's least
    element ``low`` and greatest ``high`` (float32):

    * ``y_scale = (maximum(0, max(x)) - minimum(0, min(x))) / 255``, each operation a float32
      one (IEEE's, correctly rounded; maximum and minimum keep a NaN); where the range is
      empty (x all zeros) the scale is 1, as onnxruntime gives (onnx's reference gives 1 / 255),
      where the text's formula would give 0 and a zero point of 0 / 0; a NaN scale is the
      positive quiet NaN, whichever NaN of x the range met;
    * ``y_zero_point = round(saturate(0 - min(x) / y_scale))``, float32 too, saturated to
      [0, 255], then rounded half to even; a NaN counts as 0, as in QuantizeLinear.
      (The text's ``min(x)`` gives the same zero point as the scale's ``minimum(0, min(x))``:
      where they differ, min(x) is positive and both saturate to 0.)
    """
    f32 = np.float32
    with np.errstate(all="ignore"):
        low, high = np.minimum(f32(0), f32(low)), np.maximum(f32(0), f32(high))
        scale = f32(1) if high == low else (high - low) / f32(255)
        zero = f32(0) - low / scale
    zero = f32(0) if np.isnan(zero) else np.rint(np.clip(zero, f32(0), f32(255)))
    if np.isnan(scale):  # one NaN, whichever of x's NaNs (and payload) the range kept
        scale = f32(np.nan)
    return np.array(scale, np.float32), np.array(zero, np.uint8)
