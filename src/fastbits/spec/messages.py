"""The pieces of fastbits' error messages: dtypes and type lists as the messages show them."""

from __future__ import annotations

import functools
import textwrap

import numpy as np

from ..errors import AllocationError
from .operators import INTEGER_T
from .types import TYPES, DataType, datatype_of, type_string

__all__ = ["allocation_error", "describe_dtype", "out_of_memory"]


def describe_dtype(dtype: np.dtype) -> str:
    """``'int32 (tensor(int32))'``, or ``'float128 (no ONNX type)'``."""
    code = datatype_of(dtype)
    onnx_name = "no ONNX type" if code is None else type_string(code)
    plain = dtype.isnative and (dtype.kind not in "USTV" or code is not None and dtype.kind == "V")
    shown = dtype.name if plain or dtype.kind == "O" else dtype.str
    return f"{shown} ({onnx_name})"


def _kind(code: DataType) -> int:
    """The group of ``code`` in a list of types: floats, narrow floats, ints, uints, the rest."""
    name = code.name
    if name in ("BFLOAT16", "FLOAT16", "FLOAT", "DOUBLE"):
        return 0
    for kind, prefix in enumerate(("FLOAT", "INT", "UINT"), start=1):
        if name.startswith(prefix):
            return kind
    return 4


@functools.cache  # the compiled module's import builds a hundred such messages
def _allowed(types: frozenset[DataType]) -> str:
    """The types of a constraint, for the end of a message.

    BitwiseAnd's ``T`` (or part of it) on one line, in ONNX's order: the signed types, then
    the unsigned ones, narrowest first.  Larger sets (BitCast's 25-type ``T1`` and ``T2``)
    grouped: floats; 8-, 6- and 4-bit floats; signed ints; unsigned ints; the rest.
    Narrowest first within a group, a line per group after the first.
    """
    if types <= INTEGER_T:
        return ", ".join(type_string(t) for t in sorted(types, key=lambda t: (t.name.startswith("U"), TYPES[t].bits)))
    groups: dict[int, list[str]] = {}
    for code in sorted(types, key=lambda t: (TYPES[t].bits or 0, t.name)):
        groups.setdefault(_kind(code), []).append(type_string(code))
    lines = [
        textwrap.fill(
            ", ".join(group), width=96, initial_indent="    ", subsequent_indent="    ",
            break_long_words=False, break_on_hyphens=False,
        )
        for _, group in sorted(groups.items())
    ]
    return ",\n".join(lines).lstrip()


def _code_ranges(codes: list[int]) -> str:
    """``[1, 2, 3, 5]`` -> ``'1..3, 5'``."""
    runs: list[list[int]] = []
    for code in sorted(codes):
        if runs and code == runs[-1][1] + 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return ", ".join(str(a) if a == b else f"{a}..{b}" for a, b in runs)


def out_of_memory(op: str, what: str, exc: BaseException) -> AllocationError:
    """The error of an array beside the result (a copy, a temporary) numpy could not allocate."""
    return AllocationError(f"{op}: {what} cannot be allocated ({exc})")


def allocation_error(op: str, shape: tuple[int, ...], dtype: np.dtype) -> AllocationError:
    """The error of a result that cannot be allocated (a broadcast of stride-0 views can ask
    for more than memory, or the address space, holds)."""
    count = 1
    for size in shape:
        count *= size
    return AllocationError(
        f"{op}: the result of shape {tuple(shape)} and type {type_string(datatype_of(dtype))} "
        f"needs {count * dtype.itemsize} bytes, which cannot be allocated"
    )
