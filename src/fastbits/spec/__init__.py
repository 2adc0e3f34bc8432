"""What ONNX allows: the one place that encodes ONNX's types and the operators' rules.

Both implementations (the pure-Python path and the compiled one) take every check from here,
so they cannot disagree on what is allowed.  One concern a module:

* ``types``: :class:`DataType`, every ``TensorProto.DataType`` code of onnx 1.23 (0 to 28),
  with each type's ONNX bit width and its numpy / ml_dtypes dtype (ml_dtypes is imported only
  when a call needs one of its types);
* ``operators``: BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot (opset 18), BitShift (11
  and 28) and BitCast (26): their since-versions, input names and type constraints;
* ``messages``: dtypes and type lists as the error messages show them;
* ``bitcast``: BitCast's ``to`` and the pairs of types it allows;
* ``cast``: Cast's and CastLike's types and attributes, and the float formats Cast writes;
* ``quantize``: QuantizeLinear's and DequantizeLinear's types by version, their attributes and
  the granularity of a scale; DynamicQuantizeLinear's type;
* ``matmul``: MatMulInteger's and QLinearMatMul's types and the shapes of their operands, scales
  and zero points;
* ``subbyte``: the bits of the 4-, 2- and 6-bit types and ONNX's packed layout;
* ``tensors``: how a TensorProto's fields store each type (onnx.proto);
* ``elementwise``: the integer operators' operands, broadcasting, ``out=`` and ``copy``;
* ``arguments``: the public functions, each named once (:data:`FUNCTIONS`: its signature,
  operator, operands and implementation modules), and the error of a call that does not fit
  its signature.

Every ``check_*``/``resolve_*`` function either returns or raises one of the errors of
:mod:`fastbits.errors` with a message that names the operator, the input and what was
expected.  This package re-exports every public name of its modules.
"""

from .arguments import (
    FUNCTIONS,
    OPTIONAL_POSITIONAL,
    SIGNATURES,
    PublicFunction,
    call_error,
    fits,
    public_function,
    signature,
)
from .bitcast import bitcast_allowed, check_bitcast, check_bitcast_to, resolve_to
from .cast import (
    CAST,
    CAST_LIKE,
    CAST_SINCE,
    CAST_T,
    ROUND_MODES,
    check_cast,
    check_cast_version,
    check_round_mode,
    check_saturate,
)
from .elementwise import (
    ORDERS,
    as_array,
    broadcast_shape,
    check_bitshift_version,
    check_copy,
    check_direction,
    check_operand,
    check_operands,
    check_order,
    check_out,
)
from .messages import allocation_error, describe_dtype, out_of_memory
from .operators import (
    BITCAST,
    BITCAST_T1,
    BITCAST_T2,
    BITSHIFT,
    BITSHIFT_11_T,
    BITSHIFT_T,
    BITWISE_AND,
    BITWISE_AND_T,
    BITWISE_NOT,
    BITWISE_OR,
    BITWISE_XOR,
    DIRECTIONS,
    INPUT_NAMES,
    INTEGER_T,
    SINCE_VERSION,
    TYPE_CONSTRAINT,
)
from .matmul import (
    MATMUL_INTEGER,
    MATMUL_INTEGER_T,
    QLINEAR_MATMUL,
    QLINEAR_MATMUL_VERSIONS,
    QLinearMatMulCall,
    check_matmul_integer,
    check_qlinear_matmul,
    check_qlinear_matmul_version,
)
from .quantize import (
    DEQUANTIZE,
    DEQUANTIZE_VERSIONS,
    DYNAMIC_QUANTIZE,
    DYNAMIC_QUANTIZE_T,
    PRECISIONS,
    QUANTIZE,
    QUANTIZE_VERSIONS,
    QUANTIZED_RANGES,
    Quantization,
    check_dequantize,
    check_dynamic_quantize,
    check_quantize,
    dynamic_parameters,
    range_parameters,
    check_quantize_version,
)
from .subbyte import PACK, SUBBYTE_TYPES, UNPACK, check_pack, check_unpack, packed_size, subbyte_bits, subbyte_byte_map
from .tensors import FIELDS, Field
from .types import (
    DERIVED,
    FLOAT_FORMATS,
    INTEGER_RANGES,
    KINDS,
    ML_TYPES,
    TYPES,
    DataType,
    Derived,
    FloatFormat,
    TypeInfo,
    bit_width,
    datatype_of,
    derive,
    numpy_dtype,
    order_unit,
    type_string,
)

__all__ = [
    "DEQUANTIZE",
    "DEQUANTIZE_VERSIONS",
    "DYNAMIC_QUANTIZE",
    "DYNAMIC_QUANTIZE_T",
    "MATMUL_INTEGER",
    "MATMUL_INTEGER_T",
    "QLINEAR_MATMUL",
    "QLINEAR_MATMUL_VERSIONS",
    "QLinearMatMulCall",
    "check_qlinear_matmul",
    "check_qlinear_matmul_version",
    "FUNCTIONS",
    "OPTIONAL_POSITIONAL",
    "PublicFunction",
    "PRECISIONS",
    "QUANTIZE",
    "QUANTIZE_VERSIONS",
    "QUANTIZED_RANGES",
    "Quantization",
    "check_dequantize",
    "check_dynamic_quantize",
    "check_matmul_integer",
    "dynamic_parameters",
    "range_parameters",
    "check_quantize",
    "check_quantize_version",
    "fits",
    "FIELDS",
    "Field",
    "BITCAST",
    "CAST",
    "CAST_LIKE",
    "CAST_SINCE",
    "CAST_T",
    "DERIVED",
    "Derived",
    "FLOAT_FORMATS",
    "INTEGER_RANGES",
    "KINDS",
    "FloatFormat",
    "ROUND_MODES",
    "check_cast",
    "check_cast_version",
    "check_round_mode",
    "check_saturate",
    "BITCAST_T1",
    "BITCAST_T2",
    "BITSHIFT",
    "BITSHIFT_11_T",
    "BITSHIFT_T",
    "BITWISE_AND",
    "BITWISE_AND_T",
    "BITWISE_NOT",
    "BITWISE_OR",
    "BITWISE_XOR",
    "DIRECTIONS",
    "DataType",
    "INPUT_NAMES",
    "INTEGER_T",
    "ORDERS",
    "ML_TYPES",
    "PACK",
    "SIGNATURES",
    "SINCE_VERSION",
    "SUBBYTE_TYPES",
    "TYPES",
    "TYPE_CONSTRAINT",
    "TypeInfo",
    "UNPACK",
    "allocation_error",
    "as_array",
    "bit_width",
    "bitcast_allowed",
    "broadcast_shape",
    "call_error",
    "check_bitcast",
    "check_bitcast_to",
    "check_bitshift_version",
    "check_copy",
    "check_direction",
    "check_operand",
    "check_operands",
    "check_order",
    "check_out",
    "check_pack",
    "check_unpack",
    "datatype_of",
    "derive",
    "describe_dtype",
    "numpy_dtype",
    "order_unit",
    "out_of_memory",
    "packed_size",
    "public_function",
    "resolve_to",
    "signature",
    "subbyte_bits",
    "subbyte_byte_map",
    "type_string",
]
