"""fastbits.onnx_tensors against onnx's numpy_helper: every non-string type in both storage
forms (raw_data and the typed fields), every odd shape, external data; and the malformed tensors
onnx's reader takes and fastbits refuses."""

from __future__ import annotations

import numpy as np
import pytest

import fastbits
from fastbits import DataType, spec

from support import import_required, onnx_6bit, random_tensor

onnx = import_required("onnx")

import onnx.defs  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from fastbits import onnx_tensors  # noqa: E402

SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 0, 3)]
CODES = sorted(spec.FIELDS)


def random_array(code: DataType, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """:func:`support.random_tensor` (every bit pattern of the floats, NaNs too), bools 0 or 1."""
    x = random_tensor(code, shape, seed)
    return np.asarray(x.view(np.uint8) & 1).view(bool) if code == DataType.BOOL else x


def same(got: np.ndarray, expected: np.ndarray) -> bool:
    return got.dtype == expected.dtype and got.shape == expected.shape and got.tobytes() == expected.tobytes()


def test_fields_cover_every_non_string_type():
    assert set(spec.FIELDS) == set(DataType) - {DataType.UNDEFINED, DataType.STRING}


SIX_BITS = {DataType.FLOAT6E2M3, DataType.FLOAT6E3M2}


@pytest.mark.parametrize("code", CODES, ids=lambda c: c.name)
def test_from_array_writes_onnx_s_bytes_and_to_array_reads_both_forms(code):
    if code in SIX_BITS and not onnx_6bit():
        pytest.skip(f"onnx {onnx.__version__} has no {code.name} (onnx 1.23 has)")
    # onnx 1.20 (Debian's) slices a 0-d 2-bit tensor by np.prod(()), a float; the extra needs 1.21
    broken_0d = spec.bit_width(code) == 2 and not onnx.defs.has("BitCast")
    for seed, shape in enumerate(SHAPES):
        x = random_array(code, shape, seed)
        ours = onnx_tensors.from_array(x, "t")
        assert ours.SerializeToString() == numpy_helper.from_array(x, "t").SerializeToString(), shape
        if shape == () and broken_0d:
            assert same(onnx_tensors.to_array(ours), x), shape
            continue
        assert same(onnx_tensors.to_array(ours), numpy_helper.to_array(ours)), shape
        typed = helper.make_tensor("t", int(code), shape, x.reshape(-1), raw=False)
        assert not typed.HasField("raw_data")
        assert same(onnx_tensors.to_array(typed), numpy_helper.to_array(typed)), shape


def test_from_array_of_any_layout_and_byte_order():
    x = np.arange(12, dtype=">i4").reshape(3, 4).T
    tensor = onnx_tensors.from_array(x)
    assert tensor.raw_data == np.ascontiguousarray(x).astype("<i4").tobytes()
    assert np.array_equal(onnx_tensors.to_array(tensor), x)
    assert onnx_tensors.to_array(tensor).dtype == np.dtype("=i4")


def test_strings_are_onnx_s():
    x = np.array(["a", "bc"], dtype=object)
    tensor = onnx_tensors.from_array(x, "s")
    assert tensor.SerializeToString() == numpy_helper.from_array(x, "s").SerializeToString()
    assert onnx_tensors.to_array(tensor).tolist() == ["a", "bc"]


def test_external_data(tmp_path):
    x = np.arange(10, dtype=np.float32)
    (tmp_path / "weights.bin").write_bytes(b"\0" * 16 + x.astype("<f4").tobytes() + b"tail")  # ONNX's order
    tensor = onnx_tensors.from_array(x, "w")
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "weights.bin"), ("offset", "16"), ("length", str(x.nbytes))):
        tensor.external_data.add(key=key, value=value)
    assert np.array_equal(onnx_tensors.to_array(tensor, str(tmp_path)), x)
    assert same(onnx_tensors.to_array(tensor, str(tmp_path)), numpy_helper.to_array(tensor, str(tmp_path)))


# --------------------------------------------------------------------------
# malformed tensors: a fastbits error naming the tensor and what is wrong


def _int4(values, count=None) -> TensorProto:
    tensor = TensorProto(name="w", data_type=TensorProto.INT4, dims=[count if count is not None else len(values)])
    tensor.raw_data = bytes(values)
    return tensor


def _typed(code: int, dims, field: str, entries) -> TensorProto:
    tensor = TensorProto(name="w", data_type=code, dims=dims)
    getattr(tensor, field).extend(entries)
    return tensor


@pytest.mark.parametrize("tensor, match", [
    (_int4([0x21], 3), r"tensor 'w' \(INT4, dims \[3\]\): raw_data holds 1 bytes, expected 2"),
    (_int4([0x21, 0x10], 3), r"padding bits of the last byte \(0x10\)"),
    (TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2], raw_data=b"\0" * 7), r"holds 7 bytes, expected 8"),
    (TensorProto(name="b", data_type=TensorProto.BOOL, dims=[2], raw_data=b"\x01\x02"), r"a byte other than 0 and 1"),
    (_typed(int(DataType.FLOAT6E2M3), [2], "int32_data", [1, 64]), r"int32_data holds 64, outside \[0, 63\]"),
    (_typed(TensorProto.INT8, [1], "int32_data", [200]), r"holds 200, outside \[-128, 127\]"),
    (_typed(TensorProto.FLOAT16, [1], "int32_data", [70000]), r"holds 70000, outside \[0, 65535\]"),
    # many entries (read by numpy, not one by one): the bad one last
    (_typed(TensorProto.INT8, [40], "int32_data", [0] * 39 + [-129]), r"holds -129, outside \[-128, 127\]"),
    (_typed(TensorProto.UINT32, [20], "uint64_data", [1] * 19 + [2**32]),
     r"holds 4294967296, outside \[0, 4294967295\]"),
    (_typed(TensorProto.UINT4, [3], "int32_data", [0x21, 0xF0]), r"padding bits"),
    (_typed(TensorProto.INT32, [3], "int32_data", [1, 2]), r"int32_data holds 2 entries, expected 3"),
    (_typed(TensorProto.COMPLEX64, [1], "float_data", [1.0]), r"float_data holds 1 entries, expected 2"),
    (TensorProto(name="w", data_type=TensorProto.INT32, dims=[-1]), r"a negative dimension"),
])
def test_malformed_tensors_are_refused(tensor, match):
    with pytest.raises(fastbits.TensorDataError, match=match):
        onnx_tensors.to_array(tensor)


def test_what_onnx_takes_and_fastbits_refuses():
    """onnx's reader keeps the low bits of an out-of-range entry; fastbits says what is wrong."""
    tensor = _typed(TensorProto.INT8, [1], "int32_data", [200])
    assert numpy_helper.to_array(tensor).tolist() == [-56]
    with pytest.raises(fastbits.TensorDataError):
        onnx_tensors.to_array(tensor)
    if onnx_6bit():
        tensor = _typed(int(DataType.FLOAT6E2M3), [1], "int32_data", [64 + 5])
        assert numpy_helper.to_array(tensor).view(np.uint8).tolist() == [5]
        with pytest.raises(fastbits.TensorDataError):
            onnx_tensors.to_array(tensor)


@pytest.mark.parametrize("location, offset, length, match", [
    ("../outside.bin", "0", "4", "outside base_dir"),
    ("/etc/passwd", "0", "4", "must be a relative path"),
    ("weights.bin", "0", "400", "has 8 bytes, the tensor's data end at byte 400"),
    ("weights.bin", "-4", "4", "offset -4 and length 4 must not be negative"),
    ("", "0", "4", "its external data has no 'location'"),
    ("weights.bin", "x", "4", "is not an integer"),
    ("missing.bin", "0", "4", "cannot read external data file 'missing.bin'"),
])
def test_bad_external_data(tmp_path, location, offset, length, match):
    (tmp_path / "weights.bin").write_bytes(b"\0" * 8)
    (tmp_path.parent / "outside.bin").write_bytes(b"\0" * 8)
    tensor = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1], data_location=TensorProto.EXTERNAL)
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        tensor.external_data.add(key=key, value=value)
    with pytest.raises(fastbits.TensorDataError, match=match):
        onnx_tensors.to_array(tensor, str(tmp_path))


def test_type_errors():
    with pytest.raises(fastbits.UnknownDataTypeError, match="data_type 99"):
        onnx_tensors.to_array(TensorProto(name="w", data_type=99))
    with pytest.raises(fastbits.TypeConstraintError, match="UNDEFINED"):
        onnx_tensors.to_array(TensorProto(name="w", data_type=0))
    with pytest.raises(fastbits.ArgumentTypeError, match="onnx.TensorProto"):
        onnx_tensors.to_array(b"bytes")
    with pytest.raises(fastbits.ArgumentTypeError, match="numpy.ndarray"):
        onnx_tensors.from_array([1, 2])
    with pytest.raises(fastbits.TypeConstraintError, match="no ONNX type"):
        onnx_tensors.from_array(np.zeros(2, np.float128) if hasattr(np, "float128") else np.zeros(2, "M8[s]"))


@pytest.mark.parametrize("scalar", [np.float32(1.5), np.int8(-3), np.uint64(2**63), np.bool_(True)])
def test_from_array_takes_numpy_scalars_as_onnx_does(scalar):
    """A numpy scalar is a 0-d tensor: little-endian bytes, and onnx's tensor of the same 0-d array.

    onnx's own ``from_array(scalar)`` writes a scalar's native bytes on a big-endian host (its
    ``astype('<f4')`` of a numpy scalar gives a native scalar back), so the comparison goes through
    ``np.asarray``, whose byte order onnx honours.
    """
    tensor = onnx_tensors.from_array(scalar, "s")
    assert tensor.dims == [] and tensor.raw_data == np.asarray(scalar, scalar.dtype.newbyteorder("<")).tobytes()
    assert tensor == numpy_helper.from_array(np.asarray(scalar), "s")
    assert onnx_tensors.to_array(onnx_tensors.from_array(scalar)).tolist() == scalar.item()
