"""The exceptions fastbits raises.

Every error is a :class:`FastbitsError` and also a builtin ``TypeError`` or
``ValueError``, so code written against numpy or the onnx reference evaluator
keeps catching what it caught before.  Each message names the operator, the
input and what was expected.
"""

from __future__ import annotations

__all__ = [
    "AllocationError",
    "ArgumentTypeError",
    "ArgumentValueError",
    "BitWidthError",
    "BroadcastError",
    "FastbitsError",
    "OpsetError",
    "TensorDataError",
    "TypeConstraintError",
    "UnknownDataTypeError",
]


class FastbitsError(Exception):
    """Base class of every error fastbits raises."""


class TypeConstraintError(FastbitsError, TypeError):
    """An input's type is outside the operator's ONNX type constraint.

    Raised for a dtype outside BitwiseAnd's ``T`` or BitCast's ``T1``/``T2``,
    for BitwiseAnd operands of two different types, and for an ``out`` array
    of the wrong dtype.
    """


class BitWidthError(TypeConstraintError, ValueError):
    """BitCast between two types whose ONNX bit widths differ.

    Also a ``ValueError``, which is what the onnx reference evaluator raises.
    """


class BroadcastError(FastbitsError, ValueError):
    """Shapes that do not broadcast, or an ``out`` of the wrong shape."""


class UnknownDataTypeError(FastbitsError, ValueError):
    """A ``to`` that names no ONNX data type at all (29, -1, "float128")."""


class ArgumentTypeError(FastbitsError, TypeError):
    """An argument of a Python type the function does not take."""


class ArgumentValueError(FastbitsError, ValueError):
    """An argument of the right type with a value the function refuses.

    For example a read-only ``out`` or a Python int operand outside the range
    of the other operand's dtype.
    """


class AllocationError(FastbitsError, ValueError, MemoryError):
    """A result too large to allocate (a huge broadcast of stride-0 views, say).

    Also a ``MemoryError``, which is what numpy raises in its place.
    """


class OpsetError(FastbitsError, ValueError):
    """A model whose opset has no version of an operator that fastbits implements
    (:mod:`fastbits.onnx_ops`): BitCast in an opset-25 model, say, where it does not exist yet;
    or a node with an attribute its operator's version does not have (Cast-13's ``saturate``)."""


class TensorDataError(FastbitsError, ValueError):
    """A TensorProto whose data do not fit its type and shape: a payload of the wrong size,
    padding bits set, an entry out of its type's range, external data that cannot be read."""
