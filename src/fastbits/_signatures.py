"""The public functions' types, as type checkers read them: written once, here.

Each public function of :mod:`fastbits._ops` has a callable Protocol below (its ``__call__``
is the signature, with ``@overload`` where the result's type follows an argument); the
facade's :class:`~fastbits._ops.Path` declares its fields with them, so ``fastbits.bitshift``
is a :class:`BitShiftOperator` to mypy and pyright, whichever path runs.  The compiled
modules' stubs (``_ops_c.pyi``, ``_cast_c.pyi``, ``_quant_c.pyi``, ``_packing_c.pyi``,
``_runtime.pyi``) declare their functions with the same Protocols, and mypy's stubtest holds
those against the compiled functions.
:class:`ConfigUpdate`, :class:`Config` and :class:`RuntimeInfo` are the dicts of the
configuration API (:mod:`fastbits._config`); their keys are the settings table's.

What the types say (:doc:`api`, "Types"): an operator on numpy arrays returns a numpy array,
of the input's dtype for the integer operators, of the target's where ``to`` names one of
numpy's own types, and ``out`` itself where ``out`` is given; on a dask array (anything with
dask's ``__dask_graph__``) it returns the same kind of array.  A string option is a
``Literal`` of every spelling the docs accept.  tests/test_typing.py keeps the Protocols'
parameters, the ``Literal`` types and the dicts' keys in step with the runtime.  Nothing here
runs at call time: checkers and the tests import the module, ``import fastbits`` does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Optional, Protocol, TypedDict, TypeVar, Union, overload

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from .spec.types import DataType

__all__ = [
    "BinaryOperator", "BitCastOperator", "BitShiftOperator", "CastLikeOperator", "CastOperator", "Config",
    "ConfigUpdate", "DataTypeLike", "DequantizeOperator", "Direction", "DynamicQuantizeOperator", "GetNumThreads",
    "LazyArray", "MatMulIntegerOperator", "QLinearMatMulOperator", "Order", "PackFunction", "PackedBytes", "QuantizeOperator", "RoundMode", "RuntimeInfo", "Saturate", "SetNumThreads",
    "Shape", "UnaryOperator", "UnpackFunction",
]

# --------------------------------------------------------------------------
# the arguments

#: BitShift's ``direction``: ONNX's spellings, and the lower-case ones. The runtime takes any
#: case, but a type that listed every mix of cases would fill a checker's messages with them.
Direction = Literal["LEFT", "RIGHT", "left", "right"]

#: The layout of a fresh result: K, C, F or A in either case, or None (K), as numpy reads them.
Order = Literal[None, "K", "C", "F", "A", "k", "c", "f", "a"]

#: Cast's ``round_mode`` (FLOAT8E8M0 targets), as its docstring lists it.
RoundMode = Literal["up", "down", "nearest"]

#: ``saturate``: a bool, or ONNX's int attribute values 1 and 0.
Saturate = Union[bool, np.bool_, Literal[0, 1]]

#: An ONNX data type, in any form ``to`` takes (:func:`fastbits.spec.resolve_to`): a code
#: (``6``, ``TensorProto.INT32``), a :class:`~fastbits.DataType`, a dtype or scalar type
#: (numpy's, ml_dtypes'), or a name (``"FLOAT"``, ``"float8_e4m3fn"``, any case).
DataTypeLike = Union[DataType, int, np.integer[Any], str, DTypeLike]

#: ``unpack``'s packed bytes: bytes, a bytearray, a memoryview of bytes or a 1-D uint8 array.
PackedBytes = Union[bytes, bytearray, memoryview, NDArray[np.uint8]]

#: ``unpack``'s shape: a sequence (a tuple, a list, a range) of ints.
Shape = Sequence[Union[int, np.integer[Any]]]

#: An ``int`` argument that numpy's integers may stand in for.
_Int = Union[int, np.integer[Any]]


class LazyArray(Protocol):
    """A dask array, as a checker sees one: an object with dask's collection protocol.  An
    operator with one as an operand returns a lazy array of the same kind (:doc:`scaling-out`)."""

    def __dask_graph__(self) -> Any: ...


_ScalarT = TypeVar("_ScalarT", bound=np.generic)
_IntT = TypeVar("_IntT", bound=np.integer[Any])
_FloatT = TypeVar("_FloatT", bound=np.floating[Any])
_ArrayT = TypeVar("_ArrayT", bound=NDArray[Any])
_LazyT = TypeVar("_LazyT", bound=LazyArray)

#: An integer operand whose dtype the result takes: an array or a numpy scalar.
_IntOperand = Union[NDArray[_IntT], _IntT]

# The names of numpy's own types, as ``to`` reads them (ONNX's name in either case, numpy's
# name, the DataType, the code): the operators that take ``to`` give an array of that type.
_ToBool = Literal["BOOL", "bool", DataType.BOOL, 9]
_ToInt8 = Literal["INT8", "int8", DataType.INT8, 3]
_ToUInt8 = Literal["UINT8", "uint8", DataType.UINT8, 2]
_ToInt16 = Literal["INT16", "int16", DataType.INT16, 5]
_ToUInt16 = Literal["UINT16", "uint16", DataType.UINT16, 4]
_ToInt32 = Literal["INT32", "int32", DataType.INT32, 6]
_ToUInt32 = Literal["UINT32", "uint32", DataType.UINT32, 12]
_ToInt64 = Literal["INT64", "int64", DataType.INT64, 7]
_ToUInt64 = Literal["UINT64", "uint64", DataType.UINT64, 13]
_ToFloat16 = Literal["FLOAT16", "float16", DataType.FLOAT16, 10]
_ToFloat32 = Literal["FLOAT", "float", "float32", DataType.FLOAT, 1]
_ToFloat64 = Literal["DOUBLE", "double", "float64", DataType.DOUBLE, 11]
_ToComplex64 = Literal["COMPLEX64", "complex64", DataType.COMPLEX64, 14]
_ToComplex128 = Literal["COMPLEX128", "complex128", DataType.COMPLEX128, 15]

# --------------------------------------------------------------------------
# the operators


class BinaryOperator(Protocol):
    """``bitwise_and``, ``bitwise_or``, ``bitwise_xor``: the result has the operands' dtype."""

    @overload
    def __call__(self, a: _LazyT, b: ArrayLike | LazyArray, /, *, out: None = None,
                 order: Order = "K") -> _LazyT: ...
    @overload
    def __call__(self, a: ArrayLike, b: _LazyT, /, *, out: None = None, order: Order = "K") -> _LazyT: ...
    @overload
    def __call__(self, a: _IntOperand[_IntT], b: _IntOperand[_IntT] | int, /, *, out: None = None,
                 order: Order = "K") -> NDArray[_IntT]: ...
    @overload
    def __call__(self, a: int, b: _IntOperand[_IntT], /, *, out: None = None,
                 order: Order = "K") -> NDArray[_IntT]: ...
    @overload
    def __call__(self, a: ArrayLike, b: ArrayLike, /, *, out: _ArrayT, order: Order = "K") -> _ArrayT: ...
    @overload
    def __call__(self, a: ArrayLike, b: ArrayLike, /, *, out: None = None,
                 order: Order = "K") -> NDArray[np.integer[Any]]: ...


class UnaryOperator(Protocol):
    """``bitwise_not``: the result has the operand's dtype."""

    @overload
    def __call__(self, x: _LazyT, /, *, out: None = None, order: Order = "K") -> _LazyT: ...
    @overload
    def __call__(self, x: _IntOperand[_IntT], /, *, out: None = None, order: Order = "K") -> NDArray[_IntT]: ...
    @overload
    def __call__(self, x: ArrayLike, /, *, out: _ArrayT, order: Order = "K") -> _ArrayT: ...
    @overload
    def __call__(self, x: ArrayLike, /, *, out: None = None, order: Order = "K") -> NDArray[np.integer[Any]]: ...


class BitShiftOperator(Protocol):
    """``bitshift``: the result has the operands' dtype; ``direction`` is required."""

    @overload
    def __call__(self, x: _LazyT, y: ArrayLike | LazyArray, direction: Direction, /, *, out: None = None,
                 order: Order = "K") -> _LazyT: ...
    @overload
    def __call__(self, x: ArrayLike, y: _LazyT, direction: Direction, /, *, out: None = None,
                 order: Order = "K") -> _LazyT: ...
    @overload
    def __call__(self, x: _IntOperand[_IntT], y: _IntOperand[_IntT] | int, direction: Direction, /, *,
                 out: None = None, order: Order = "K") -> NDArray[_IntT]: ...
    @overload
    def __call__(self, x: int, y: _IntOperand[_IntT], direction: Direction, /, *, out: None = None,
                 order: Order = "K") -> NDArray[_IntT]: ...
    @overload
    def __call__(self, x: ArrayLike, y: ArrayLike, direction: Direction, /, *, out: _ArrayT,
                 order: Order = "K") -> _ArrayT: ...
    @overload
    def __call__(self, x: ArrayLike, y: ArrayLike, direction: Direction, /, *, out: None = None,
                 order: Order = "K") -> NDArray[np.integer[Any]]: ...


class BitCastOperator(Protocol):
    """``bitcast``: an array of the type ``to`` names (numpy's types by name, code or dtype)."""

    @overload
    def __call__(self, x: _LazyT, to: DataTypeLike, /, *, copy: bool | np.bool_ = False) -> _LazyT: ...
    @overload
    def __call__(self, x: ArrayLike, to: type[_ScalarT] | np.dtype[_ScalarT], /, *,
                 copy: bool | np.bool_ = False) -> NDArray[_ScalarT]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToBool, /, *, copy: bool | np.bool_ = False) -> NDArray[np.bool_]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToInt8, /, *, copy: bool | np.bool_ = False) -> NDArray[np.int8]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToUInt8, /, *, copy: bool | np.bool_ = False) -> NDArray[np.uint8]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToInt16, /, *, copy: bool | np.bool_ = False) -> NDArray[np.int16]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToUInt16, /, *, copy: bool | np.bool_ = False) -> NDArray[np.uint16]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToInt32, /, *, copy: bool | np.bool_ = False) -> NDArray[np.int32]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToUInt32, /, *, copy: bool | np.bool_ = False) -> NDArray[np.uint32]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToInt64, /, *, copy: bool | np.bool_ = False) -> NDArray[np.int64]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToUInt64, /, *, copy: bool | np.bool_ = False) -> NDArray[np.uint64]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToFloat16, /, *, copy: bool | np.bool_ = False) -> NDArray[np.float16]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToFloat32, /, *, copy: bool | np.bool_ = False) -> NDArray[np.float32]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToFloat64, /, *, copy: bool | np.bool_ = False) -> NDArray[np.float64]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToComplex64, /, *,
                 copy: bool | np.bool_ = False) -> NDArray[np.complex64]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToComplex128, /, *,
                 copy: bool | np.bool_ = False) -> NDArray[np.complex128]: ...
    @overload
    def __call__(self, x: ArrayLike, to: DataTypeLike, /, *, copy: bool | np.bool_ = False) -> NDArray[Any]: ...


class CastOperator(Protocol):
    """``cast``: an array of the type ``to`` names (numpy's types by name, code or dtype), or ``out``."""

    @overload
    def __call__(self, x: _LazyT, to: DataTypeLike, /, *, saturate: Saturate = True, round_mode: RoundMode = "up",
                 out: None = None, order: Order = "K") -> _LazyT: ...
    @overload
    def __call__(self, x: ArrayLike, to: DataTypeLike, /, *, saturate: Saturate = True,
                 round_mode: RoundMode = "up", out: _ArrayT, order: Order = "K") -> _ArrayT: ...
    @overload
    def __call__(self, x: ArrayLike, to: type[_ScalarT] | np.dtype[_ScalarT], /, *, saturate: Saturate = True,
                 round_mode: RoundMode = "up", out: None = None, order: Order = "K") -> NDArray[_ScalarT]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToBool, /, *, saturate: Saturate = True, round_mode: RoundMode = "up",
                 out: None = None, order: Order = "K") -> NDArray[np.bool_]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToInt8, /, *, saturate: Saturate = True, round_mode: RoundMode = "up",
                 out: None = None, order: Order = "K") -> NDArray[np.int8]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToUInt8, /, *, saturate: Saturate = True, round_mode: RoundMode = "up",
                 out: None = None, order: Order = "K") -> NDArray[np.uint8]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToInt16, /, *, saturate: Saturate = True, round_mode: RoundMode = "up",
                 out: None = None, order: Order = "K") -> NDArray[np.int16]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToUInt16, /, *, saturate: Saturate = True, round_mode: RoundMode = "up",
                 out: None = None, order: Order = "K") -> NDArray[np.uint16]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToInt32, /, *, saturate: Saturate = True, round_mode: RoundMode = "up",
                 out: None = None, order: Order = "K") -> NDArray[np.int32]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToUInt32, /, *, saturate: Saturate = True, round_mode: RoundMode = "up",
                 out: None = None, order: Order = "K") -> NDArray[np.uint32]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToInt64, /, *, saturate: Saturate = True, round_mode: RoundMode = "up",
                 out: None = None, order: Order = "K") -> NDArray[np.int64]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToUInt64, /, *, saturate: Saturate = True, round_mode: RoundMode = "up",
                 out: None = None, order: Order = "K") -> NDArray[np.uint64]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToFloat16, /, *, saturate: Saturate = True, round_mode: RoundMode = "up",
                 out: None = None, order: Order = "K") -> NDArray[np.float16]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToFloat32, /, *, saturate: Saturate = True, round_mode: RoundMode = "up",
                 out: None = None, order: Order = "K") -> NDArray[np.float32]: ...
    @overload
    def __call__(self, x: ArrayLike, to: _ToFloat64, /, *, saturate: Saturate = True, round_mode: RoundMode = "up",
                 out: None = None, order: Order = "K") -> NDArray[np.float64]: ...
    @overload
    def __call__(self, x: ArrayLike, to: DataTypeLike, /, *, saturate: Saturate = True,
                 round_mode: RoundMode = "up", out: None = None, order: Order = "K") -> NDArray[Any]: ...


class CastLikeOperator(Protocol):
    """``cast_like``: an array of ``target_type``'s dtype, or ``out``."""

    @overload
    def __call__(self, x: _LazyT, target_type: ArrayLike | LazyArray, /, *, saturate: Saturate = True,
                 round_mode: RoundMode = "up", out: None = None, order: Order = "K") -> _LazyT: ...
    @overload
    def __call__(self, x: ArrayLike, target_type: ArrayLike | LazyArray, /, *, saturate: Saturate = True,
                 round_mode: RoundMode = "up", out: _ArrayT, order: Order = "K") -> _ArrayT: ...
    @overload
    def __call__(self, x: ArrayLike, target_type: NDArray[_ScalarT] | _ScalarT, /, *, saturate: Saturate = True,
                 round_mode: RoundMode = "up", out: None = None, order: Order = "K") -> NDArray[_ScalarT]: ...
    @overload
    def __call__(self, x: ArrayLike, target_type: ArrayLike | LazyArray, /, *, saturate: Saturate = True,
                 round_mode: RoundMode = "up", out: None = None, order: Order = "K") -> NDArray[Any]: ...


class QuantizeOperator(Protocol):
    """``quantize_linear``: an array of the zero point's type, or of ``output_dtype``; uint8
    without either."""

    @overload
    def __call__(self, x: _LazyT, y_scale: ArrayLike | LazyArray, y_zero_point: ArrayLike | LazyArray | None = None,
                 /, *, axis: _Int = 1, block_size: _Int = 0, output_dtype: DataTypeLike | None = None,
                 saturate: Saturate = True, precision: DataTypeLike | None = None) -> _LazyT: ...
    @overload
    def __call__(self, x: ArrayLike, y_scale: _LazyT, y_zero_point: ArrayLike | LazyArray | None = None, /, *,
                 axis: _Int = 1, block_size: _Int = 0, output_dtype: DataTypeLike | None = None,
                 saturate: Saturate = True, precision: DataTypeLike | None = None) -> _LazyT: ...
    @overload
    def __call__(self, x: ArrayLike, y_scale: ArrayLike, y_zero_point: _LazyT, /, *, axis: _Int = 1,
                 block_size: _Int = 0, output_dtype: DataTypeLike | None = None, saturate: Saturate = True,
                 precision: DataTypeLike | None = None) -> _LazyT: ...
    @overload
    def __call__(self, x: ArrayLike, y_scale: ArrayLike, y_zero_point: NDArray[_ScalarT] | _ScalarT, /, *,
                 axis: _Int = 1, block_size: _Int = 0, output_dtype: None = None, saturate: Saturate = True,
                 precision: DataTypeLike | None = None) -> NDArray[_ScalarT]: ...
    @overload
    def __call__(self, x: ArrayLike, y_scale: ArrayLike, y_zero_point: None = None, /, *, axis: _Int = 1,
                 block_size: _Int = 0, output_dtype: None = None, saturate: Saturate = True,
                 precision: DataTypeLike | None = None) -> NDArray[np.uint8]: ...
    @overload
    def __call__(self, x: ArrayLike, y_scale: ArrayLike, y_zero_point: ArrayLike | None = None, /, *,
                 axis: _Int = 1, block_size: _Int = 0, output_dtype: DataTypeLike | None = None,
                 saturate: Saturate = True, precision: DataTypeLike | None = None) -> NDArray[Any]: ...


class DequantizeOperator(Protocol):
    """``dequantize_linear``: an array of the scale's type, or of ``output_dtype``."""

    @overload
    def __call__(self, x: _LazyT, x_scale: ArrayLike | LazyArray, x_zero_point: ArrayLike | LazyArray | None = None,
                 /, *, axis: _Int = 1, block_size: _Int = 0, output_dtype: DataTypeLike | None = None) -> _LazyT: ...
    @overload
    def __call__(self, x: ArrayLike, x_scale: _LazyT, x_zero_point: ArrayLike | LazyArray | None = None, /, *,
                 axis: _Int = 1, block_size: _Int = 0, output_dtype: DataTypeLike | None = None) -> _LazyT: ...
    @overload
    def __call__(self, x: ArrayLike, x_scale: ArrayLike, x_zero_point: _LazyT, /, *, axis: _Int = 1,
                 block_size: _Int = 0, output_dtype: DataTypeLike | None = None) -> _LazyT: ...
    @overload
    def __call__(self, x: ArrayLike, x_scale: NDArray[_FloatT] | _FloatT, x_zero_point: ArrayLike | None = None,
                 /, *, axis: _Int = 1, block_size: _Int = 0, output_dtype: None = None) -> NDArray[_FloatT]: ...
    @overload
    def __call__(self, x: ArrayLike, x_scale: ArrayLike, x_zero_point: ArrayLike | None = None, /, *,
                 axis: _Int = 1, block_size: _Int = 0, output_dtype: DataTypeLike | None = None) -> NDArray[Any]: ...


class DynamicQuantizeOperator(Protocol):
    """``dynamic_quantize_linear``: y (uint8), its scale (float32, 0-d) and zero point (uint8, 0-d)."""

    @overload
    def __call__(self, x: _LazyT, /) -> tuple[_LazyT, _LazyT, _LazyT]: ...
    @overload
    def __call__(self, x: ArrayLike, /) -> tuple[NDArray[np.uint8], NDArray[np.float32], NDArray[np.uint8]]: ...


class MatMulIntegerOperator(Protocol):
    """``matmul_integer``: an int32 array."""

    @overload
    def __call__(self, a: _LazyT, b: ArrayLike | LazyArray, a_zero_point: ArrayLike | LazyArray | None = None,
                 b_zero_point: ArrayLike | LazyArray | None = None, /) -> _LazyT: ...
    @overload
    def __call__(self, a: ArrayLike, b: _LazyT, a_zero_point: ArrayLike | LazyArray | None = None,
                 b_zero_point: ArrayLike | LazyArray | None = None, /) -> _LazyT: ...
    @overload
    def __call__(self, a: ArrayLike, b: ArrayLike, a_zero_point: ArrayLike | None = None,
                 b_zero_point: ArrayLike | None = None, /) -> NDArray[np.int32]: ...


class QLinearMatMulOperator(Protocol):
    """``qlinear_matmul``: an array of ``y_zero_point``'s type."""

    @overload
    def __call__(self, a: _LazyT, a_scale: ArrayLike | LazyArray, a_zero_point: ArrayLike | LazyArray,
                 b: ArrayLike | LazyArray, b_scale: ArrayLike | LazyArray, b_zero_point: ArrayLike | LazyArray,
                 y_scale: ArrayLike | LazyArray, y_zero_point: ArrayLike | LazyArray, /) -> _LazyT: ...
    @overload
    def __call__(self, a: ArrayLike, a_scale: ArrayLike | LazyArray, a_zero_point: ArrayLike | LazyArray, b: _LazyT,
                 b_scale: ArrayLike | LazyArray, b_zero_point: ArrayLike | LazyArray, y_scale: ArrayLike | LazyArray,
                 y_zero_point: ArrayLike | LazyArray, /) -> _LazyT: ...
    @overload
    def __call__(self, a: ArrayLike, a_scale: ArrayLike, a_zero_point: ArrayLike, b: ArrayLike, b_scale: ArrayLike,
                 b_zero_point: ArrayLike, y_scale: ArrayLike, y_zero_point: NDArray[_ScalarT] | _ScalarT, /
                 ) -> NDArray[_ScalarT]: ...
    @overload
    def __call__(self, a: ArrayLike, a_scale: ArrayLike, a_zero_point: ArrayLike, b: ArrayLike, b_scale: ArrayLike,
                 b_zero_point: ArrayLike, y_scale: ArrayLike, y_zero_point: ArrayLike, /) -> NDArray[Any]: ...


class PackFunction(Protocol):
    """``pack``: a 1-D uint8 array of the packed bytes."""

    @overload
    def __call__(self, x: _LazyT, /) -> _LazyT: ...
    @overload
    def __call__(self, x: ArrayLike, /) -> NDArray[np.uint8]: ...


class UnpackFunction(Protocol):
    """``unpack``: an array of the sub-byte type ``to`` (ml_dtypes', one element a byte)."""

    @overload
    def __call__(self, data: _LazyT, to: DataTypeLike, shape: Shape, /) -> _LazyT: ...
    @overload
    def __call__(self, data: PackedBytes, to: DataTypeLike, shape: Shape, /) -> NDArray[Any]: ...


class GetNumThreads(Protocol):
    """``get_num_threads``."""

    def __call__(self) -> int: ...


class SetNumThreads(Protocol):
    """``set_num_threads``: a positive int."""

    def __call__(self, n: _Int, /) -> None: ...


# --------------------------------------------------------------------------
# the configuration API


class ConfigUpdate(TypedDict, total=False):
    """The keyword arguments of ``set_config`` and ``config_context``: the settings table's
    names (:data:`fastbits._config.SETTINGS`); None keeps a setting as it is."""

    num_threads: Optional[_Int]
    grain_cached: Optional[_Int]
    grain_streamed: Optional[_Int]
    grain_strided: Optional[_Int]
    output_pool: Optional[Union[bool, np.bool_]]
    pool_threshold: Optional[_Int]
    stream_threshold: Optional[_Int]
    spin_time: Optional[Union[float, np.integer[Any], np.floating[Any]]]
    task_threads: Optional[_Int]


class Config(TypedDict):
    """What ``get_config`` returns, and ``config_context`` yields: every setting's value."""

    num_threads: int
    grain_cached: int
    grain_streamed: int
    grain_strided: int
    output_pool: bool
    pool_threshold: int
    stream_threshold: int
    spin_time: float
    task_threads: int


class RuntimeInfo(TypedDict):
    """What ``runtime_info`` returns (its docstring says what each key means)."""

    backend: Literal["cython", "python"]
    threads_available: bool
    helper_threads: int
    parallel_calls: int
    helper_shares: int
    last_call_threads: int
    output_pool_available: bool
    pool_hits: int
    pool_misses: int
    pool_idle_bytes: int
    pool_idle_blocks: int
    pool_max_idle_bytes: int
    pool_max_idle_seconds: float
    sanitized_build: bool
    cpu_features: list[str]
    cpus: int
