"""Signatures of the compiled module ``fastbits._ops_c`` (its docstrings are ``_ops_py``'s,
``_cast_py``'s and ``_quant_py``'s): the public functions' types of :mod:`fastbits._signatures`,
which the facade's ``Path`` declares too.  stubtest holds them against the compiled module
(tests/test_typing.py)."""

from ._signatures import (
    BinaryOperator,
    BitCastOperator,
    BitShiftOperator,
    CastLikeOperator,
    CastOperator,
    DequantizeOperator,
    QuantizeOperator,
    UnaryOperator,
)

# As the module's own __all__: QuantizeLinear and DequantizeLinear are there, but not in it.
__all__ = ["bitcast", "bitshift", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "cast", "cast_like"]

bitwise_and: BinaryOperator
bitwise_or: BinaryOperator
bitwise_xor: BinaryOperator
bitwise_not: UnaryOperator
bitshift: BitShiftOperator
bitcast: BitCastOperator
cast: CastOperator
cast_like: CastLikeOperator
quantize_linear: QuantizeOperator
dequantize_linear: DequantizeOperator
