"""Signatures of the compiled module ``fastbits._ops_c`` (its docstrings are ``_ops_py``'s): the
public functions' types of :mod:`fastbits._signatures`, which the facade's ``Path`` declares
too.  stubtest holds them against the compiled module (tests/test_typing.py)."""

from ._signatures import BinaryOperator, BitCastOperator, BitShiftOperator, UnaryOperator

__all__ = ["bitcast", "bitshift", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor"]

bitwise_and: BinaryOperator
bitwise_or: BinaryOperator
bitwise_xor: BinaryOperator
bitwise_not: UnaryOperator
bitshift: BitShiftOperator
bitcast: BitCastOperator
