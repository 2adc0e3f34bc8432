"""fastbits.spec: the ONNX type tables and argument resolution, held against onnx itself."""

from __future__ import annotations

import re

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


def _onnx_with_every_type():
    """onnx, where its TensorProto knows every type fastbits does (Debian's onnx 1.20 does not)."""
    onnx = pytest.importorskip("onnx")
    missing = [t.name for t in DataType if int(t) not in onnx.TensorProto.DataType.values()]
    if missing:
        pytest.skip(f"onnx {onnx.__version__} has no {', '.join(missing)}")
    return onnx


def test_datatype_codes_are_tensorproto_codes():
    onnx = _onnx_with_every_type()
    assert {m.name: int(m) for m in DataType} == dict(onnx.TensorProto.DataType.items())


def test_bit_widths():
    assert {t.name: spec.bit_width(t) for t in DataType if spec.bit_width(t)} == ONNX_WIDTHS
    assert spec.bit_width(DataType.STRING) is None
    assert spec.bit_width(DataType.UNDEFINED) is None


def test_numpy_dtypes_match_onnx_helper():
    onnx = _onnx_with_every_type()
    for code in DataType:
        if code in (DataType.UNDEFINED,):
            continue
        expected = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(int(code)))
        assert spec.numpy_dtype(code) == expected, code


def _finfo(code):
    """numpy's or ml_dtypes' finfo of a float type's dtype."""
    dtype = spec.numpy_dtype(code)
    return np.finfo(dtype) if dtype.kind == "f" and not spec.TYPES[code].ml else ml_dtypes.finfo(dtype)


@pytest.mark.parametrize("code", list(DataType))
def test_type_table_agrees_with_the_dtypes(code):
    """Each entry of the one type table says of its type what its numpy / ml_dtypes dtype says."""
    info = spec.TYPES[code]
    assert info.kind in (None, *spec.KINDS)
    if info.kind == "integer":
        iinfo = (np.iinfo if not info.ml else ml_dtypes.iinfo)(spec.numpy_dtype(code))
        assert info.range == (int(iinfo.min), int(iinfo.max))
        assert info.signed == (int(iinfo.min) < 0)
        assert info.bits == iinfo.bits
    else:
        assert info.range is None and not info.signed
    if info.kind == "float":
        finfo = _finfo(code)
        fmt = info.format
        assert float(finfo.max) == fmt.max
        assert (fmt.ebits, fmt.mbits, 1 + fmt.ebits + fmt.mbits) == (finfo.nexp, finfo.nmant, info.bits)
        assert fmt.min_exponent == int(finfo.minexp)
    else:
        assert info.format is None
    if info.kind in ("complex", "string", None):
        assert info.cast_since is None and info.c_number is None


def test_derived_tables_come_from_the_type_table():
    derived = spec.derive(spec.TYPES)
    assert derived == spec.DERIVED
    assert spec.ML_TYPES == derived.ml_types
    assert spec.FLOAT_FORMATS == derived.float_formats
    assert spec.INTEGER_RANGES == derived.integer_ranges
    assert spec.SUBBYTE_TYPES == derived.subbyte_types
    assert spec.CAST_SINCE == derived.cast_since and spec.CAST_T == frozenset(derived.cast_since)
    assert spec.QUANTIZED_RANGES == {c: derived.integer_ranges[c] for c in spec.QUANTIZED_RANGES}


def test_a_new_float8_type_is_one_entry_of_the_table():
    """A scratch float 8 type (code 29, not shipped: ml_dtypes' float8_e4m3b11fnuz) added to a
    copy of the table reaches every derived table as its entry says, and changes no other."""
    scratch = 29
    fmt = spec.FloatFormat(4, 3, 11, "uz", 30.0, saturable=True, signed_zero=False)
    table = {**spec.TYPES, scratch: spec.TypeInfo(8, "float8_e4m3b11fnuz", "float", ml=True, format=fmt,
                                                  cast_since=29)}
    derived, shipped = spec.derive(table), spec.DERIVED
    assert derived.float_formats == {**shipped.float_formats, scratch: fmt}
    assert derived.ml_types == shipped.ml_types | {scratch}
    assert derived.cast_since == {**shipped.cast_since, scratch: 29}
    assert derived.integer_ranges == shipped.integer_ranges
    assert derived.subbyte_types == shipped.subbyte_types
    # its format is ml_dtypes' float8_e4m3b11fnuz's
    finfo = ml_dtypes.finfo(ml_dtypes.float8_e4m3b11fnuz)
    assert (fmt.ebits, fmt.mbits, fmt.max, fmt.min_exponent) == (finfo.nexp, finfo.nmant, float(finfo.max),
                                                                 int(finfo.minexp))


@pytest.mark.compiled
def test_a_type_code_beyond_the_c_tables_fails_the_import():
    """The C tables hold NUM_CODES codes; a 30th type must fail before anything is written."""
    from fastbits import _common

    _common.check_codes(DataType)  # what the import checks
    with pytest.raises(ImportError, match=r"code 29, beyond the 29 codes .* NUM_CODES"):
        _common.check_codes([*DataType, 29])
    with pytest.raises(ImportError, match="code -1"):
        _common.check_codes([-1])


def _schema(op, version=None):
    onnx = pytest.importorskip("onnx")
    version = spec.SINCE_VERSION[op] if version is None else version
    if onnx.defs.onnx_opset_version() < version:  # BitShift-28 needs onnx >= 1.23 (opset 28)
        pytest.skip(f"onnx {onnx.__version__} stops at opset {onnx.defs.onnx_opset_version()}")
    schema = onnx.defs.get_schema(op, version)
    assert schema.since_version == version
    return schema


def _schema_types(op, param, version=None):
    (constraint,) = [c for c in _schema(op, version).type_constraints if c.type_param_str == param]
    return set(constraint.allowed_type_strs)


@pytest.mark.parametrize(
    "op, param, types, version",
    [
        ("BitwiseAnd", "T", BITWISE_AND_T, None),
        ("BitwiseOr", "T", spec.INTEGER_T, None),
        ("BitwiseXor", "T", spec.INTEGER_T, None),
        ("BitwiseNot", "T", spec.INTEGER_T, None),
        ("BitShift", "T", spec.BITSHIFT_T, None),  # BitShift-28: the eight integer types
        ("BitShift", "T", spec.BITSHIFT_11_T, 11),  # BitShift-11: the unsigned ones
        ("BitCast", "T1", BITCAST_T1, None),
        ("BitCast", "T2", BITCAST_T2, None),
    ],
)
def test_type_constraints_match_onnx_schema(op, param, types, version):
    assert {spec.type_string(t) for t in types} == _schema_types(op, param, version)


@pytest.mark.parametrize("op", sorted(spec.TYPE_CONSTRAINT))
def test_integer_operators_match_onnx_schema(op):
    """T, the inputs' names (which messages use) and one output, as the schema says."""
    schema = _schema(op)
    assert {spec.type_string(t) for t in spec.TYPE_CONSTRAINT[op]} == _schema_types(op, "T")
    assert tuple(i.name for i in schema.inputs) == spec.INPUT_NAMES[op]
    assert all(i.type_str == "T" for i in schema.inputs) and [o.type_str for o in schema.outputs] == ["T"]


def test_since_versions_are_onnx_latest():
    """fastbits implements the latest version onnx knows of each operator."""
    onnx = pytest.importorskip("onnx")
    latest = onnx.defs.onnx_opset_version()
    for op, since in spec.SINCE_VERSION.items():
        if since <= latest:
            assert onnx.defs.get_schema(op, latest).since_version == since, op


def test_bitshift_versions_in_onnx():
    """BitShift-11 serves opsets 11 to 27 and BitShift-28 from 28; there is none before 11."""
    onnx = pytest.importorskip("onnx")
    for opset in (11, 18, 27):
        assert onnx.defs.get_schema("BitShift", opset).since_version == 11
    with pytest.raises(onnx.defs.SchemaError):
        onnx.defs.get_schema("BitShift", 10)
    assert _schema("BitShift", 11).attributes["direction"].required
    assert _schema("BitShift", 28).attributes["direction"].required
    for op in ("BitwiseOr", "BitwiseXor", "BitwiseNot"):
        with pytest.raises(onnx.defs.SchemaError):
            onnx.defs.get_schema(op, 17)


def test_type_constraint_sizes():
    assert len(BITWISE_AND_T) == 8
    assert len(BITCAST_T1) == len(BITCAST_T2) == 25
    assert spec.TYPE_CONSTRAINT == {
        "BitwiseAnd": spec.INTEGER_T, "BitwiseOr": spec.INTEGER_T, "BitwiseXor": spec.INTEGER_T,
        "BitwiseNot": spec.INTEGER_T, "BitShift": spec.INTEGER_T,
    }
    assert len(spec.BITSHIFT_11_T) == 4 and spec.BITSHIFT_11_T < spec.INTEGER_T
    assert all(spec.numpy_dtype(t).kind == "u" for t in spec.BITSHIFT_11_T)


def test_since_versions():
    assert spec.SINCE_VERSION == {
        "BitwiseAnd": 18, "BitwiseOr": 18, "BitwiseXor": 18, "BitwiseNot": 18, "BitShift": 28, "BitCast": 26,
    }


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


@pytest.mark.parametrize(
    "direction, expected",
    [("LEFT", "LEFT"), ("RIGHT", "RIGHT"), ("left", "LEFT"), ("Right", "RIGHT"), (" right ", "RIGHT"),
     (b"LEFT", "LEFT"), (b"right", "RIGHT")],
)
def test_check_direction(direction, expected):
    assert spec.check_direction(direction) == expected


@pytest.mark.parametrize("direction", ["UP", "", "L", "LEFTRIGHT", None, 1, True, b"UP", b"\xff", ["LEFT"]])
def test_check_direction_refuses(direction):
    with pytest.raises(fastbits.ArgumentValueError, match=r"^BitShift: attribute 'direction' is .*; expected 'LEFT' or 'RIGHT'"):
        spec.check_direction(direction)


@pytest.mark.parametrize("code", sorted(spec.INTEGER_T))
def test_check_bitshift_version(code):
    spec.check_bitshift_version(28, code)
    spec.check_bitshift_version(29, code)
    for version in (11, 20, 27):
        if code in spec.BITSHIFT_11_T:
            spec.check_bitshift_version(version, code)
        else:
            with pytest.raises(fastbits.TypeConstraintError, match=rf"^BitShift: input 'X' is {re.escape(spec.type_string(code))}, which BitShift-{version} does not take"):
                spec.check_bitshift_version(version, code)
