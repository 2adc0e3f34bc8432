"""The public functions' signatures, and one wording of a call that does not fit them on both
paths (Cython's own messages differ from Python's)."""

from __future__ import annotations

import functools
from typing import Any

from ..errors import AllocationError, ArgumentTypeError
from .messages import out_of_memory
from .cast import CAST, CAST_LIKE
from .quantize import DEQUANTIZE, QUANTIZE
from .operators import BITCAST, BITSHIFT, BITWISE_AND, BITWISE_NOT, BITWISE_OR, BITWISE_XOR

__all__ = ["OPTIONAL_POSITIONAL", "SIGNATURES", "call_error", "fits", "public_function", "signature"]


#: Each public function's positional-only parameters and keyword-only ones (with defaults).
SIGNATURES: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "bitwise_and": (("a", "b"), {"out": None, "order": "K"}),
    "bitwise_or": (("a", "b"), {"out": None, "order": "K"}),
    "bitwise_xor": (("a", "b"), {"out": None, "order": "K"}),
    "bitwise_not": (("x",), {"out": None, "order": "K"}),
    "bitshift": (("x", "y", "direction"), {"out": None, "order": "K"}),
    "bitcast": (("x", "to"), {"copy": False}),
    "cast": (("x", "to"), {"saturate": True, "round_mode": "up", "out": None, "order": "K"}),
    "cast_like": (("x", "target_type"), {"saturate": True, "round_mode": "up", "out": None, "order": "K"}),
    "quantize_linear": (("x", "y_scale", "y_zero_point"), {"axis": 1, "block_size": 0, "output_dtype": None,
                                                          "saturate": True, "precision": None}),
    "dequantize_linear": (("x", "x_scale", "x_zero_point"), {"axis": 1, "block_size": 0, "output_dtype": None}),
    "pack": (("x",), {}),
    "unpack": (("data", "to", "shape"), {}),
    "get_num_threads": ((), {}),
    "set_num_threads": (("n",), {}),
}


#: The functions whose last positional parameters may be left out (their default is None).
OPTIONAL_POSITIONAL: dict[str, int] = {"quantize_linear": 1, "dequantize_linear": 1}


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


#: The operator a public function's errors name.
_OPERATORS = {
    "bitwise_and": BITWISE_AND,
    "bitwise_or": BITWISE_OR,
    "bitwise_xor": BITWISE_XOR,
    "bitwise_not": BITWISE_NOT,
    "bitshift": BITSHIFT,
    "bitcast": BITCAST,
    "cast": CAST,
    "cast_like": CAST_LIKE,
    "quantize_linear": QUANTIZE,
    "dequantize_linear": DEQUANTIZE,
}


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
            raise out_of_memory(_OPERATORS.get(name, name), "an array it works in", exc) from None

    return checked
