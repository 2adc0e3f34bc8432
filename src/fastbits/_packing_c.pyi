"""Signatures of the compiled module ``fastbits._packing_c`` (its docstrings are ``_packing_py``'s):
the types of :mod:`fastbits._signatures`, as the facade's ``Path`` declares them."""

from ._signatures import PackFunction, UnpackFunction

__all__ = ["pack", "unpack"]

pack: PackFunction
unpack: UnpackFunction
