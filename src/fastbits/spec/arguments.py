"""The public functions, each named once (:data:`FUNCTIONS`): its signature, the operator its
errors name, the operands an adapter may take and the implementation modules that hold it;
and one wording of a call that does not fit a signature on both paths (Cython's own messages
differ from Python's)."""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from ..errors import AllocationError, ArgumentTypeError
from .messages import out_of_memory
from .cast import CAST, CAST_LIKE
from .matmul import MATMUL_INTEGER, QLINEAR_MATMUL
from .quantize import DEQUANTIZE, DYNAMIC_QUANTIZE, QUANTIZE
from .operators import BITCAST, BITSHIFT, BITWISE_AND, BITWISE_NOT, BITWISE_OR, BITWISE_XOR
from .subbyte import PACK, UNPACK

__all__ = ["FUNCTIONS", "OPTIONAL_POSITIONAL", "SIGNATURES", "PublicFunction", "call_error", "fits",
           "public_function", "signature"]


class PublicFunction(NamedTuple):
    """What everyone asks of one public function."""

    #: Its positional-only parameters.
    positional: tuple[str, ...]
    #: Its keyword-only parameters, with their defaults.
    keywords: dict[str, Any]
    #: The operator its errors name (ONNX's name, or its own).
    operator: str
    #: The concern whose implementation modules hold it: "ops" (``_ops_py``, ``_ops_c``),
    #: "cast", "quant", "packing", or "runtime" (the runtime modules').
    concern: str
    #: Its first positional arguments that are operands: arrays an adapter may take.
    operands: int = 0
    #: Its last positional parameters that may be left out (their default is None).
    optional: int = 0


_ELEMENTWISE = {"out": None, "order": "K"}
_CAST = {"saturate": True, "round_mode": "up", "out": None, "order": "K"}
_QUANT = {"axis": 1, "block_size": 0, "output_dtype": None}

#: Every public function of :mod:`fastbits` that each path implements, by name: the facade's
#: paths, the compiled entry points, the dispatch point's operand counts and the messages of a
#: wrong call are built from this table.
FUNCTIONS: dict[str, PublicFunction] = {
    "bitwise_and": PublicFunction(("a", "b"), _ELEMENTWISE, BITWISE_AND, "ops", operands=2),
    "bitwise_or": PublicFunction(("a", "b"), _ELEMENTWISE, BITWISE_OR, "ops", operands=2),
    "bitwise_xor": PublicFunction(("a", "b"), _ELEMENTWISE, BITWISE_XOR, "ops", operands=2),
    "bitwise_not": PublicFunction(("x",), _ELEMENTWISE, BITWISE_NOT, "ops", operands=1),
    "bitshift": PublicFunction(("x", "y", "direction"), _ELEMENTWISE, BITSHIFT, "ops", operands=2),
    "bitcast": PublicFunction(("x", "to"), {"copy": False}, BITCAST, "ops", operands=1),
    "cast": PublicFunction(("x", "to"), _CAST, CAST, "cast", operands=1),
    "cast_like": PublicFunction(("x", "target_type"), _CAST, CAST_LIKE, "cast", operands=1),
    "quantize_linear": PublicFunction(("x", "y_scale", "y_zero_point"),
                                      {**_QUANT, "saturate": True, "precision": None}, QUANTIZE, "quant",
                                      operands=3, optional=1),
    "dequantize_linear": PublicFunction(("x", "x_scale", "x_zero_point"), _QUANT, DEQUANTIZE, "quant", operands=3,
                                        optional=1),
    "dynamic_quantize_linear": PublicFunction(("x",), {}, DYNAMIC_QUANTIZE, "quant", operands=1),
    "matmul_integer": PublicFunction(("a", "b", "a_zero_point", "b_zero_point"), {}, MATMUL_INTEGER, "quant",
                                     operands=4, optional=2),
    "qlinear_matmul": PublicFunction(("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale",
                                      "y_zero_point"), {}, QLINEAR_MATMUL, "quant", operands=8),
    "pack": PublicFunction(("x",), {}, PACK, "packing", operands=1),
    "unpack": PublicFunction(("data", "to", "shape"), {}, UNPACK, "packing", operands=1),
    "get_num_threads": PublicFunction((), {}, "get_num_threads", "runtime"),
    "set_num_threads": PublicFunction(("n",), {}, "set_num_threads", "runtime"),
}

#: Each public function's positional-only parameters and keyword-only ones (with defaults).
SIGNATURES: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    name: (function.positional, function.keywords) for name, function in FUNCTIONS.items()}

#: The functions whose last positional parameters may be left out (their default is None).
OPTIONAL_POSITIONAL: dict[str, int] = {name: function.optional for name, function in FUNCTIONS.items()
                                       if function.optional}


def fits(function: str, args: tuple[Any, ...], keywords: Any) -> bool:
    """A call of ``function`` with ``args`` and keyword names ``keywords`` fits its signature."""
    names, options = SIGNATURES[function]
    return (len(names) - OPTIONAL_POSITIONAL.get(function, 0) <= len(args) <= len(names)
            and keywords <= options.keys())


def signature(function: str) -> str:
    """``'bitshift(x, y, direction, /, *, out=None)'``."""
    names, options = SIGNATURES[function]
    optional = OPTIONAL_POSITIONAL.get(function, 0)
    shown = [*names[:len(names) - optional], *(f"{name}=None" for name in names[len(names) - optional:])]
    parts = [*shown, "/"] if names else []
    if options:
        parts += ["*", *(f"{name}={default!r}" for name, default in options.items())]
    return f"{function}({', '.join(parts)})"


def _names(names: Any) -> str:
    return ", ".join(repr(name) for name in names)


def call_error(function: str, args: tuple[Any, ...], keywords: dict[str, Any]) -> ArgumentTypeError:
    """The error of a call of ``function`` (a key of :data:`SIGNATURES`) that does not fit its
    signature: ``args`` the positional arguments, ``keywords`` the keyword arguments it does not
    take.  Both paths raise it."""
    names, _ = SIGNATURES[function]
    given = list(args)
    misplaced = [name for name in keywords if name in names]
    if misplaced:
        what = f"{_names(misplaced)} {'is' if len(misplaced) == 1 else 'are'} positional-only, not " + (
            "a keyword" if len(misplaced) == 1 else "keywords")
    elif keywords:
        what = f"unexpected keyword argument{'s' if len(keywords) > 1 else ''} {_names(keywords)}"
    elif len(given) < len(names) - OPTIONAL_POSITIONAL.get(function, 0):
        what = f"missing {_names(names[len(given):len(names) - OPTIONAL_POSITIONAL.get(function, 0)])}"
    else:
        taken = len(names) - OPTIONAL_POSITIONAL.get(function, 0)
        what = (f"{len(given)} positional argument{'s' if len(given) != 1 else ''} given, "
                f"{taken if taken == len(names) else f'{taken} to {len(names)}'} taken")
    return ArgumentTypeError(f"{function}: {what}; expected {signature(function)}")


def public_function(function: Any) -> Any:
    """A public function of the pure path, as the compiled path's behaves: a call that does not
    fit :data:`SIGNATURES` gets :func:`call_error`, word for word, and a MemoryError of numpy's
    is an :class:`AllocationError`."""
    name = function.__name__
    _, options = SIGNATURES[name]

    @functools.wraps(function)
    def checked(*args: Any, **keywords: Any) -> Any:
        if not fits(name, args, keywords.keys()):
            unexpected = {key: value for key, value in keywords.items() if key not in options}
            raise call_error(name, args, unexpected)
        try:
            return function(*args, **keywords)
        except MemoryError as exc:
            if isinstance(exc, AllocationError):
                raise
            raise out_of_memory(FUNCTIONS[name].operator, "an array it works in", exc) from None

    return checked
