"""Signatures of the compiled module ``fastbits._quant_c`` (its docstrings are ``_quant_py``'s), as
:mod:`fastbits._signatures` types them; stubtest holds them against the module."""

from ._signatures import (DequantizeOperator, DynamicQuantizeOperator, MatMulIntegerOperator, QLinearMatMulOperator,
                          QuantizeOperator)

__all__ = ["dequantize_linear", "dynamic_quantize_linear", "matmul_integer", "qlinear_matmul", "quantize_linear"]

quantize_linear: QuantizeOperator
dequantize_linear: DequantizeOperator
dynamic_quantize_linear: DynamicQuantizeOperator
matmul_integer: MatMulIntegerOperator
qlinear_matmul: QLinearMatMulOperator
