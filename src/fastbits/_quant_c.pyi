"""Signatures of the compiled module ``fastbits._quant_c`` (its docstrings are ``_quant_py``'s), as
:mod:`fastbits._signatures` types them; stubtest holds them against the module."""

from ._signatures import DequantizeOperator, QuantizeOperator

__all__ = ["dequantize_linear", "quantize_linear"]

quantize_linear: QuantizeOperator
dequantize_linear: DequantizeOperator
