"""BitCast-26 on every path: all 25x25 type pairs, exact bits, views and copies, errors."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import fastbits
from fastbits import spec
from fastbits.spec import DataType

from support import (
    ALL_PAIRS, SAME_WIDTH_PAIRS, T1_TYPES, T2_TYPES, bits, copy_layout, layout_of, onnx_bytes, random_tensor,
)


def test_pair_counts():
    assert len(ALL_PAIRS) == 625
    # 8-bit: 8 types, 16-bit: 4, 32-bit: 3, 64-bit: 4, 128: 1, 4-bit: 3, 2-bit: 2
    assert len(SAME_WIDTH_PAIRS) == 8 * 8 + 4 * 4 + 3 * 3 + 4 * 4 + 1 + 3 * 3 + 2 * 2


@pytest.mark.parametrize("src, dst", ALL_PAIRS, ids=[f"{s.name}-{d.name}" for s, d in ALL_PAIRS])
def test_every_pair(ops, src, dst):
    x = random_tensor(src)
    if spec.bit_width(src) != spec.bit_width(dst):
        with pytest.raises(fastbits.BitWidthError) as info:
            ops.bitcast(x, int(dst))
        message = str(info.value)
        assert message.startswith("BitCast: ")
        assert spec.type_string(src) in message and spec.type_string(dst) in message
        assert f"({spec.bit_width(src)} bits)" in message
        return
    for copy in (False, True):
        y = ops.bitcast(x, int(dst), copy=copy)
        assert y.dtype == spec.numpy_dtype(dst)
        assert y.shape == x.shape
        assert onnx_bytes(y) == onnx_bytes(x)  # the bits, unchanged
        back = ops.bitcast(y, src, copy=copy)
        assert back.dtype == x.dtype and bits(back) == bits(x)


def test_numeric_meaning_of_some_pairs(ops):
    x = np.array([1.0, -2.0, 0.5], np.float16)
    np.testing.assert_array_equal(ops.bitcast(x, "uint16"), [0x3C00, 0xC000, 0x3800])
    b = np.array([1.0, -2.0], ml_dtypes.bfloat16)
    np.testing.assert_array_equal(ops.bitcast(b, DataType.INT16), [0x3F80, -0x4000])
    f8 = np.array([1.0, -0.5], ml_dtypes.float8_e4m3fn)
    np.testing.assert_array_equal(ops.bitcast(f8, "uint8"), [0x38, 0xB0])
    i4 = np.array([-1, 7, -8], ml_dtypes.int4)
    np.testing.assert_array_equal(ops.bitcast(i4, "UINT4").astype(np.int32), [15, 7, 8])
    np.testing.assert_array_equal(ops.bitcast(np.array([0xF, 0x2], ml_dtypes.uint4), "float4e2m1").astype(np.float32), [-6.0, 1.0])
    np.testing.assert_array_equal(ops.bitcast(np.array([3, 2], ml_dtypes.uint2), "int2").astype(np.int32), [-1, -2])
    e8 = ops.bitcast(np.array([127, 128], np.uint8), "FLOAT8E8M0")
    np.testing.assert_array_equal(e8.astype(np.float32), [1.0, 2.0])


@pytest.mark.parametrize("copy", [False, True])
@pytest.mark.parametrize("order", ["=", ">", "<"])
def test_complex_is_read_little_endian(ops, order, copy):
    # ONNX reads the bytes little endian: complex64 (re, im) as int64 has re in the low half,
    # and back, whatever the byte order of the array or of the host (a '>' array holds the
    # bytes of a big-endian host's native one).
    re_bits, im_bits = 0x3F800000, 0x40000000
    z = np.array([1.0 + 2.0j], np.dtype(np.complex64).newbyteorder(order))
    as_int = ops.bitcast(z, "int64", copy=copy)
    assert as_int.dtype == np.int64 and int(as_int[0]) == (im_bits << 32) | re_bits
    i = np.array([(im_bits << 32) | re_bits], np.dtype(np.uint64).newbyteorder(order))
    as_complex = ops.bitcast(i, "complex64", copy=copy)
    assert as_complex.dtype == np.complex64 and as_complex[0] == 1.0 + 2.0j
    z128 = np.array([1.5 - 0.25j], np.complex128)
    assert bits(ops.bitcast(z128, "COMPLEX128")) == bits(z128)


@pytest.mark.parametrize("code", [c for c in T1_TYPES if spec.numpy_dtype(c).itemsize > 1 and spec.numpy_dtype(c).kind in "iufc"])
def test_non_native_byte_order_is_read_by_value(ops, code):
    native = random_tensor(code, seed=3)
    if native.dtype.kind in "fc":
        native = np.nan_to_num(native)  # values, not NaN payloads, survive astype
    swapped = native.astype(native.dtype.newbyteorder("S"))
    for dst in [d for d in T2_TYPES if spec.bit_width(d) == spec.bit_width(code)]:
        for copy in (False, True):
            y = ops.bitcast(swapped, dst, copy=copy)
            assert y.dtype.isnative
            assert layout_of(y) == copy_layout(swapped, y.dtype) and not np.shares_memory(y, swapped)
            assert bits(y) == bits(ops.bitcast(native, dst, copy=True))


def test_bool_bytes_other_than_0_and_1_survive(ops):
    raw = np.array([0, 1, 2, 127, 255], np.uint8)
    for copy in (False, True):
        as_bool = ops.bitcast(raw, "BOOL", copy=copy)
        assert as_bool.dtype == np.bool_
        assert bits(as_bool) == raw.tobytes()
        back = ops.bitcast(as_bool, "uint8", copy=copy)
        np.testing.assert_array_equal(back, raw)
    strided = ops.bitcast(np.repeat(raw, 2)[::2], "bool", copy=True)
    assert bits(strided) == raw.tobytes()


def test_view_shares_memory_and_copy_does_not(ops):
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    view = ops.bitcast(x, "FLOAT")
    assert np.shares_memory(view, x)
    assert view.base is not None
    x[0, 0] = 0x3F800000
    assert view[0, 0] == 1.0
    copied = ops.bitcast(x, "FLOAT", copy=True)
    assert not np.shares_memory(copied, x)
    assert layout_of(copied) == copy_layout(x, copied.dtype) and copied.flags.writeable


def test_view_of_non_contiguous_and_read_only(ops):
    x = np.arange(40, dtype=np.uint16).reshape(5, 8)[::-2, 1::3]
    x.flags.writeable = False
    view = ops.bitcast(x, "float16")
    assert np.shares_memory(view, x)
    assert not view.flags.writeable
    assert view.strides == x.strides
    copied = ops.bitcast(x, "float16", copy=True)
    assert layout_of(copied) == copy_layout(x, copied.dtype) and copied.flags.writeable
    assert bits(copied) == bits(x)


def test_view_keeps_sub_byte_bytes_and_copy_masks(ops):
    raw = np.array([0xFF, 0x10, 0x8A, 0x03], np.uint8)
    int4 = raw.view(ml_dtypes.int4)  # bytes with high bits set: not what ONNX stores
    view = ops.bitcast(int4, "UINT4")
    assert view.view(np.uint8).tobytes() == raw.tobytes()
    copied = ops.bitcast(int4, "UINT4", copy=True)
    assert copied.view(np.uint8).tolist() == [0x0F, 0x00, 0x0A, 0x03]
    two = ops.bitcast(raw.view(ml_dtypes.uint2), "INT2", copy=True)
    assert two.view(np.uint8).tolist() == [0x03, 0x00, 0x02, 0x03]
    # same type, copy=True: a masked copy too
    same = ops.bitcast(int4[::-1], "INT4", copy=True)
    assert same.view(np.uint8).tolist() == [0x03, 0x0A, 0x00, 0x0F]


def test_round_trip_property(ops):
    for i, (src, dst) in enumerate(SAME_WIDTH_PAIRS):
        x = random_tensor(src, shape=(3, 4, 2), seed=i)[:, ::-1]
        there = ops.bitcast(x, dst)
        assert bits(ops.bitcast(there, src)) == bits(x)
        assert bits(ops.bitcast(ops.bitcast(x, dst, copy=True), src, copy=True)) == bits(x)


def test_nan_payloads_survive(ops):
    bits = np.array([0x7FC00001, 0xFFBADBAD, 0x7F800001], np.uint32)
    for copy in (False, True):
        as_float = ops.bitcast(bits, "FLOAT", copy=copy)
        assert as_float.view(np.uint32).tolist() == bits.tolist()
        assert ops.bitcast(as_float, "UINT32", copy=copy).tolist() == bits.tolist()


@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (1,), (2, 1, 3)])
def test_shapes(ops, shape):
    x = np.full(shape, 1.0, np.float32)
    for copy in (False, True):
        y = ops.bitcast(x, 6, copy=copy)
        assert isinstance(y, np.ndarray) and y.shape == shape and y.dtype == np.int32
        assert (y == 0x3F800000).all()


@pytest.mark.parametrize(
    "to",
    [6, np.int32, np.dtype("int32"), "int32", "INT32", "tensor(int32)", DataType.INT32, np.int8(6), "<i4"],
)
def test_to_spellings(ops, to):
    y = ops.bitcast(np.array([1.0], np.float32), to)
    assert y.dtype == np.int32 and y[0] == 0x3F800000


def test_float_name_means_onnx_float(ops):
    y = ops.bitcast(np.array([7], np.int32), "float")
    assert y.dtype == np.float32  # ONNX FLOAT: 32 bits, not numpy's float64
    with pytest.raises(fastbits.BitWidthError):
        ops.bitcast(np.array([7], np.int64), "float")


def test_python_scalars_and_lists(ops):
    assert ops.bitcast(1.0, "int64") == 0x3FF0000000000000  # a Python float is float64
    np.testing.assert_array_equal(ops.bitcast([True, False], "uint8"), [1, 0])


# ----------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "x, shown",
    [
        (np.array(["a", "b"]), np.dtype("U1").str + " \\(tensor\\(string\\)\\)"),
        (np.array([b"ab"]), "tensor\\(string\\)"),
        (np.array(["x"], object), "tensor\\(string\\)"),
        (np.zeros(2, np.longdouble), "no ONNX type"),
        (np.zeros(2, "M8[s]"), "no ONNX type"),
        (np.zeros(2, "V4"), "no ONNX type"),
        (np.zeros(2, ml_dtypes.float6_e2m3fn), "tensor\\(float6e2m3\\)"),
        (np.zeros(2, ml_dtypes.float8_e4m3b11fnuz), "no ONNX type"),
    ],
)
def test_inputs_outside_t1(ops, x, shown):
    with pytest.raises(fastbits.TypeConstraintError, match=rf"^BitCast: input 'input' has dtype .*{shown}.*not in T1(: [^;]*)?; expected one of .*tensor\(bfloat16\)"):
        ops.bitcast(x, "int32")


@pytest.mark.parametrize("to, name", [(8, "STRING"), ("string", "STRING"), (0, "UNDEFINED"), (27, "FLOAT6E2M3"), ("FLOAT6E3M2", "FLOAT6E3M2"), (object, "STRING")])
def test_to_outside_t2(ops, to, name):
    with pytest.raises(fastbits.TypeConstraintError, match=rf"^BitCast: attribute 'to' = {name} \(\d+\) is not in T2"):
        ops.bitcast(np.zeros(2, np.int8), to)


WHY_NOT_6_BIT = ("BitCast-26's T1 and T2 are the tensor types of IR version 13, and the 6-bit floats came "
                 "with IR version 14 (onnx 1.23)")


@pytest.mark.parametrize("dtype", [ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn])
def test_6_bit_refusals_say_why(ops, dtype):
    """The 6-bit floats are ONNX types and sub-byte types (pack takes them), but not BitCast-26's:
    the message says so, as an input and as 'to'; other refusals keep their words."""
    name = spec.datatype_of(np.dtype(dtype)).name
    with pytest.raises(fastbits.TypeConstraintError) as info:
        ops.bitcast(np.zeros(2, dtype), "uint8")
    assert str(info.value).startswith(
        f"BitCast: input 'input' has dtype {np.dtype(dtype).name} (tensor({name.lower()})), which is not in T1: "
        f"{WHY_NOT_6_BIT}; expected one of tensor(bfloat16)")
    for to in (name, np.dtype(dtype), int(spec.DataType[name])):
        with pytest.raises(fastbits.TypeConstraintError) as info:
            ops.bitcast(np.zeros(2, np.uint8), to)
        assert str(info.value).startswith(
            f"BitCast: attribute 'to' = {name} ({int(spec.DataType[name])}) is not in T2: {WHY_NOT_6_BIT}; "
            f"expected one of tensor(bfloat16)")
    for call in (lambda: ops.bitcast(np.zeros(2, np.uint8), "STRING"), lambda: ops.bitcast(np.zeros(2, "V4"), 2)):
        with pytest.raises(fastbits.TypeConstraintError) as info:
            call()
        assert "IR version" not in str(info.value) and "; expected one of tensor(bfloat16)" in str(info.value)


@pytest.mark.parametrize("to", [29, -1, "float128", "int3", np.longdouble])
def test_unknown_to(ops, to):
    with pytest.raises(fastbits.UnknownDataTypeError, match="^BitCast: attribute 'to'"):
        ops.bitcast(np.zeros(2, np.float64), to)


def test_sub_byte_widths_are_onnx_widths(ops):
    x = np.zeros(3, ml_dtypes.int4)
    for to in ("uint8", "int8", "int2", "bool", "float8e4m3fn"):
        with pytest.raises(fastbits.BitWidthError, match=r"tensor\(int4\) \(4 bits\)"):
            ops.bitcast(x, to)
    with pytest.raises(ValueError):  # BitWidthError is a ValueError too
        ops.bitcast(np.zeros(3, ml_dtypes.uint2), "uint4")


@pytest.mark.parametrize("copy", [None, 1, "yes"])
def test_copy_must_be_bool(ops, copy):
    with pytest.raises(fastbits.ArgumentTypeError, match="'copy' must be True or False"):
        ops.bitcast(np.zeros(2, np.int8), "uint8", copy=copy)


def test_signature(ops):
    x = np.zeros(2, np.int8)
    with pytest.raises(TypeError):
        ops.bitcast(x, "uint8", True)  # copy is keyword-only
    with pytest.raises(TypeError):
        ops.bitcast(x=x, to="uint8")
    with pytest.raises(TypeError):
        ops.bitcast(x)


@pytest.mark.parametrize("to", ["UINT4", "INT4", "FLOAT4E2M1"])
def test_zero_d_sub_byte_copy_is_masked(ops, to):
    x = np.array(0xFE, np.uint8).view(ml_dtypes.uint4)  # 0-d, high bits set
    y = ops.bitcast(x, to, copy=True)
    assert y.shape == () and y.view(np.uint8) == 0x0E
