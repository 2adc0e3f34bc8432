"""Signatures of the compiled module ``fastbits._cast_c`` (its docstrings are ``_cast_py``'s), as
:mod:`fastbits._signatures` types them; stubtest holds them against the module."""

from ._signatures import CastLikeOperator, CastOperator

__all__ = ["cast", "cast_like"]

cast: CastOperator
cast_like: CastLikeOperator
