"""The one dispatch point: an operand that is not a numpy array goes to its adapter.

fastbits' form of numpy's ``array_function_dispatch``: the implementations know nothing of
lazy or foreign arrays.  An adapter (:class:`Adapter`) names the module and the type of the
arrays it takes (dask's: ``dask.array.Array``) and runs fastbits' eager operator on them its
own way.  :func:`adapter_for` asks it only while that module is imported, so fastbits never
imports dask, and a process without it pays one dictionary lookup.

Two gates put the dispatch point in front of the operators, one for each implementation:

* the compiled entry points (``_common.pyx``) ask :func:`adapter_for` only for a call that
  their C-level fast path did not take, so a call on numpy arrays pays nothing for it;
* :func:`gate` wraps the pure path's functions in Python.

Either way the adapter gets the call as the user made it: ``adapter.call(name, func, args,
kwargs)``, ``func`` the eager operator of the path in use.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable, NamedTuple

from .spec import FUNCTIONS, fits

__all__ = ["OPERANDS", "Adapter", "adapter_for", "gate", "register"]

#: The positional arguments of each public operator that are operands (arrays an adapter may take).
OPERANDS: dict[str, int] = {name: function.operands for name, function in FUNCTIONS.items() if function.operands}


class Adapter(NamedTuple):
    """The arrays of one library, and how fastbits' operators run on them."""

    #: The module that defines the array type; the adapter is asked only once it is imported.
    module: str
    #: The array type's name in that module.
    type_name: str
    #: ``call(name, func, args, kwargs)``: the result of public operator ``name`` (a key of
    #: :data:`OPERANDS`) on ``args``/``kwargs``, ``func`` the eager operator to run on blocks.
    call: Callable[[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any]


_ADAPTERS: list[Adapter] = []


def register(adapter: Adapter) -> None:
    """Hand the operands of ``adapter``'s type to it from now on (once per adapter)."""
    if adapter not in _ADAPTERS:
        _ADAPTERS.append(adapter)


def adapter_for(operands: tuple[Any, ...]) -> Adapter | None:
    """The adapter of the first registered type one of ``operands`` is, else None."""
    for adapter in _ADAPTERS:
        module = sys.modules.get(adapter.module)
        if module is not None:
            kind = getattr(module, adapter.type_name)
            if any(isinstance(operand, kind) for operand in operands):
                return adapter
    return None


def gate(func: Callable[..., Any]) -> Callable[..., Any]:
    """The gate of a public operator written in Python (the pure path's): ``func`` with its
    calls on an adapter's arrays handed to the adapter.  A call that does not fit the signature
    goes to ``func``, which says why."""
    name = func.__name__
    count = OPERANDS[name]

    @functools.wraps(func)
    def gated(*args: Any, **kwargs: Any) -> Any:
        if fits(name, args, kwargs.keys()):
            adapter = adapter_for(args[:count])
            if adapter is not None:
                return adapter.call(name, func, args, kwargs)
        return func(*args, **kwargs)

    # what the user calls it, as numpy's set_module does: help() names the package, and pickle
    # finds the gate there by name (the facade makes it fastbits.<name>)
    gated.__module__ = __package__
    return gated
