"""fastbits.spec: the ONNX type tables and argument resolution, held against onnx itself."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import fastbits
from fastbits import spec
from fastbits.spec import BITCAST_T1, BITCAST_T2, BITWISE_AND_T, DataType

ONNX_WIDTHS = {
    "BOOL": 8, "INT8": 8, "UINT8": 8, "INT16": 16, "UINT16": 16, "INT32": 32, "UINT32": 32,
    "INT64": 64, "UINT64": 64, "FLOAT16": 16, "BFLOAT16": 16, "FLOAT": 32, "DOUBLE": 64,
    "COMPLEX64": 64, "COMPLEX128": 128, "FLOAT8E4M3FN": 8, "FLOAT8E4M3FNUZ": 8,
    "FLOAT8E5M2": 8, "FLOAT8E5M2FNUZ": 8, "FLOAT8E8M0": 8, "FLOAT4E2M1": 4, "INT4": 4,
    "UINT4": 4, "INT2": 2, "UINT2": 2, "FLOAT6E2M3": 6, "FLOAT6E3M2": 6,
}


def test_datatype_codes_are_tensorproto_codes():
    onnx = pytest.importorskip("onnx")
    assert {m.name: int(m) for m in DataType} == dict(onnx.TensorProto.DataType.items())


def test_bit_widths():
    assert {t.name: spec.bit_width(t) for t in DataType if spec.bit_width(t)} == ONNX_WIDTHS
    assert spec.bit_width(DataType.STRING) is None
    assert spec.bit_width(DataType.UNDEFINED) is None


def test_numpy_dtypes_match_onnx_helper():
    onnx = pytest.importorskip("onnx")
    for code in DataType:
        if code in (DataType.UNDEFINED,):
            continue
        expected = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(int(code)))
        assert spec.numpy_dtype(code) == expected, code


def _schema_types(op, param):
    onnx = pytest.importorskip("onnx")
    schema = onnx.defs.get_schema(op, spec.SINCE_VERSION[op])
    assert schema.since_version == spec.SINCE_VERSION[op]
    (constraint,) = [c for c in schema.type_constraints if c.type_param_str == param]
    return set(constraint.allowed_type_strs)


@pytest.mark.parametrize(
    "op, param, types",
    [("BitwiseAnd", "T", BITWISE_AND_T), ("BitCast", "T1", BITCAST_T1), ("BitCast", "T2", BITCAST_T2)],
)
def test_type_constraints_match_onnx_schema(op, param, types):
    assert {spec.type_string(t) for t in types} == _schema_types(op, param)


def test_type_constraint_sizes():
    assert len(BITWISE_AND_T) == 8
    assert len(BITCAST_T1) == len(BITCAST_T2) == 25


def test_since_versions():
    assert spec.SINCE_VERSION == {"BitwiseAnd": 18, "BitCast": 26}


@pytest.mark.parametrize("code", sorted(BITCAST_T1))
def test_datatype_of_round_trips(code):
    assert spec.datatype_of(spec.numpy_dtype(code)) is code


@pytest.mark.parametrize(
    "dtype, code",
    [
        (">i4", DataType.INT32), ("<u8", DataType.UINT64), (">c8", DataType.COMPLEX64),
        ("l", DataType.INT64), ("q", DataType.INT64), ("<U1", DataType.STRING),
        ("S3", DataType.STRING), (object, DataType.STRING), ("?", DataType.BOOL),
    ],
)
def test_datatype_of_aliases_and_byte_order(dtype, code):
    assert spec.datatype_of(np.dtype(dtype)) is code


@pytest.mark.parametrize("dtype", ["float128", "M8[s]", "m8[s]", "V4", [("a", "i4")]])
def test_datatype_of_non_onnx(dtype):
    assert spec.datatype_of(np.dtype(dtype)) is None


@pytest.mark.parametrize(
    "to, code",
    [
        (6, DataType.INT32),
        (np.int64(1), DataType.FLOAT),
        (DataType.BFLOAT16, DataType.BFLOAT16),
        (np.int32, DataType.INT32),
        (np.dtype("float64"), DataType.DOUBLE),
        (ml_dtypes.bfloat16, DataType.BFLOAT16),
        (np.dtype(ml_dtypes.int4), DataType.INT4),
        ("FLOAT8E4M3FN", DataType.FLOAT8E4M3FN),
        ("float8e4m3fn", DataType.FLOAT8E4M3FN),
        ("float8_e4m3fn", DataType.FLOAT8E4M3FN),
        ("Float", DataType.FLOAT),  # ONNX FLOAT, 32 bits, not numpy's float64
        ("float", DataType.FLOAT),
        ("double", DataType.DOUBLE),
        ("float32", DataType.FLOAT),
        ("float64", DataType.DOUBLE),
        (" int4 ", DataType.INT4),
        ("tensor(uint2)", DataType.UINT2),
        ("f2", DataType.FLOAT16),
        ("<i8", DataType.INT64),
        ("float4_e2m1fn", DataType.FLOAT4E2M1),
        ("float8_e8m0fnu", DataType.FLOAT8E8M0),
        ("bool", DataType.BOOL),
        ("string", DataType.STRING),
        (0, DataType.UNDEFINED),
        (28, DataType.FLOAT6E3M2),
    ],
)
def test_resolve_to(to, code):
    assert spec.resolve_to(to) is code


def test_resolve_to_tensorproto_constant():
    onnx = pytest.importorskip("onnx")
    assert spec.resolve_to(onnx.TensorProto.INT32) is DataType.INT32
    assert spec.resolve_to(onnx.TensorProto.FLOAT8E8M0) is DataType.FLOAT8E8M0


@pytest.mark.parametrize("to", [29, -1, 1000, "float128", "int3", "", "tensor(foo)", np.dtype("M8[s]"), np.longdouble])
def test_resolve_to_unknown(to):
    with pytest.raises(fastbits.UnknownDataTypeError, match=r"BitCast: attribute 'to'") as info:
        spec.resolve_to(to)
    assert isinstance(info.value, ValueError)
    assert not isinstance(info.value, KeyError)


@pytest.mark.parametrize("to", [None, 1.5, True, [6], object()])
def test_resolve_to_wrong_kind(to):
    with pytest.raises(fastbits.ArgumentTypeError, match=r"BitCast: attribute 'to'"):
        spec.resolve_to(to)


def test_broadcast_shape_rules():
    assert spec.broadcast_shape("BitwiseAnd", (3, 4, 5), (5,)) == (3, 4, 5)
    assert spec.broadcast_shape("BitwiseAnd", (3, 1, 5), (4, 1)) == (3, 4, 5)
    assert spec.broadcast_shape("BitwiseAnd", (), (2, 0)) == (2, 0)
    assert spec.broadcast_shape("BitwiseAnd", (1, 0), (3, 1)) == (3, 0)
    with pytest.raises(fastbits.BroadcastError, match=r"\(3, 4\).*\(3,\)"):
        spec.broadcast_shape("BitwiseAnd", (3, 4), (3,))
    with pytest.raises(fastbits.BroadcastError):
        spec.broadcast_shape("BitwiseAnd", (0,), (2,))


def test_error_hierarchy():
    assert issubclass(fastbits.TypeConstraintError, TypeError)
    assert issubclass(fastbits.BitWidthError, fastbits.TypeConstraintError)
    assert issubclass(fastbits.BitWidthError, ValueError)
    assert issubclass(fastbits.BroadcastError, ValueError)
    assert issubclass(fastbits.UnknownDataTypeError, ValueError)
    assert issubclass(fastbits.ArgumentTypeError, TypeError)
    assert issubclass(fastbits.ArgumentValueError, ValueError)
    for cls in (
        fastbits.TypeConstraintError, fastbits.BitWidthError, fastbits.BroadcastError,
        fastbits.UnknownDataTypeError, fastbits.ArgumentTypeError, fastbits.ArgumentValueError,
    ):
        assert issubclass(cls, fastbits.FastbitsError)


@pytest.mark.parametrize("n", [0, -1, 1.5, True, "2", None])
def test_check_num_threads_refuses(n):
    with pytest.raises(fastbits.ArgumentValueError, match="set_num_threads"):
        spec.check_num_threads(n)
