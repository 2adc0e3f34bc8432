"""fastbits: ONNX's bitwise operators (BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot, BitShift),
BitCast-26, Cast and CastLike for every non-string type, QuantizeLinear, DequantizeLinear,
DynamicQuantizeLinear, MatMulInteger and QLinearMatMul, exact and fast.

>>> import numpy as np, fastbits
>>> fastbits.bitwise_and(np.array([6, 5], np.int32), np.array([3], np.int32))
array([2, 1], dtype=int32)
>>> fastbits.bitcast(np.array([1.0], np.float32), "INT32")
array([1065353216], dtype=int32)
"""

from . import spec
from ._config import config_context, get_config, release_memory, runtime_info, set_config
from ._ops import (
    BACKEND,
    bitcast,
    bitshift,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    cast,
    cast_like,
    dequantize_linear,
    dynamic_quantize_linear,
    get_num_threads,
    matmul_integer,
    pack,
    qlinear_matmul,
    quantize_linear,
    set_num_threads,
    unpack,
)
from ._version import __version__
from .errors import (
    AllocationError,
    ArgumentTypeError,
    ArgumentValueError,
    BitWidthError,
    BroadcastError,
    FastbitsError,
    OpsetError,
    TensorDataError,
    TypeConstraintError,
    UnknownDataTypeError,
)
from .spec import DataType

__all__ = [
    "BACKEND",
    "AllocationError",
    "ArgumentTypeError",
    "ArgumentValueError",
    "BitWidthError",
    "BroadcastError",
    "DataType",
    "FastbitsError",
    "OpsetError",
    "TensorDataError",
    "TypeConstraintError",
    "UnknownDataTypeError",
    "__version__",
    "bitcast",
    "bitshift",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "cast",
    "cast_like",
    "config_context",
    "dequantize_linear",
    "dynamic_quantize_linear",
    "get_config",
    "get_num_threads",
    "matmul_integer",
    "pack",
    "qlinear_matmul",
    "quantize_linear",
    "release_memory",
    "runtime_info",
    "set_config",
    "set_num_threads",
    "spec",
    "unpack",
]
