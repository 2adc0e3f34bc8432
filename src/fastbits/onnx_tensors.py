"""ONNX tensors and numpy arrays: onnx's ``numpy_helper.to_array`` and ``from_array``, value for
value and byte for byte, with fastbits' packed layout and its checks.

Every type but string: ``raw_data`` (little-endian bytes; the 4-, 2- and 6-bit types packed,
read and written by :func:`fastbits.unpack` and :func:`fastbits.pack`), the typed fields as
onnx.proto lays them out (:data:`fastbits.spec.FIELDS`), and external data.  A string tensor is
onnx's own functions' to read and write.

A model file is untrusted input, so :func:`to_array` is strict where onnx's reader is lax: a
payload of the wrong size, padding bits set, an entry beyond its type's range (a float6 entry
above 63, an int8 one above 127), or external data outside ``base_dir`` or shorter than the
tensor raise :class:`~fastbits.TensorDataError`, naming the tensor and what is wrong.  Nothing
is read past the end of a payload or a file.  Requires onnx (the ``onnx`` extra).
"""

from __future__ import annotations

import math
import os
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _ops, spec
from .errors import ArgumentTypeError, TensorDataError, TypeConstraintError, UnknownDataTypeError
from .spec import DataType

if TYPE_CHECKING:  # the onnx extra: imported when a call needs it (_onnx)
    import onnx
    from numpy.typing import NDArray

__all__ = ["from_array", "to_array"]

_LITTLE_ENDIAN = sys.byteorder == "little"  # raw_data's order: read in place, else swapped


def _onnx() -> Any:
    import onnx  # the onnx extra: TensorProto is onnx's

    return onnx


class _Described:
    """``to_array: tensor 'w' (INT4, dims [3])``, the start of to_array's errors: written out only
    when one is raised (most models' tensors are small, and reading one costs a few µs)."""

    __slots__ = ("code", "dims", "tensor")

    def __init__(self, tensor: Any, code: DataType, dims: tuple[int, ...]) -> None:
        self.tensor, self.code, self.dims = tensor, code, dims

    def __str__(self) -> str:
        name = repr(self.tensor.name) if self.tensor.name else "(unnamed)"
        return f"to_array: tensor {name} ({self.code.name}, dims {list(self.dims)})"


def _external_bytes(tensor: Any, base_dir: str, what: object) -> bytes:
    """The bytes of a tensor's external data: ``location`` relative to ``base_dir`` and inside
    it, ``offset`` and ``length`` within the file."""
    info = {entry.key: entry.value for entry in tensor.external_data}
    location = info.get("location", "")
    try:
        offset = int(info.get("offset", "0"))
        length = int(info["length"]) if "length" in info else None
    except ValueError:
        raise TensorDataError(f"{what}: external data offset {info.get('offset')!r} or length "
                              f"{info.get('length')!r} is not an integer") from None
    if not location:
        raise TensorDataError(f"{what}: its external data has no 'location' (the file that holds its bytes)")
    if os.path.isabs(location):
        raise TensorDataError(f"{what}: external data location {location!r} must be a relative path")
    if offset < 0 or (length is not None and length < 0):
        raise TensorDataError(f"{what}: external data offset {offset} and length {length} must not be negative")
    root = os.path.realpath(base_dir or os.curdir)
    path = os.path.realpath(os.path.join(root, location))
    if os.path.commonpath([root, path]) != root:
        raise TensorDataError(f"{what}: external data location {location!r} is outside base_dir {base_dir!r}")
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            end = size if length is None else offset + length
            if end > size or offset > size:
                raise TensorDataError(f"{what}: external data file {location!r} has {size} bytes, the tensor's "
                                      f"data end at byte {end}")
            f.seek(offset)
            return f.read(end - offset)
    except OSError as exc:
        raise TensorDataError(f"{what}: cannot read external data file {location!r}: {exc}") from None


def _check_padding(packed: np.ndarray, count: int, bits: int, what: object) -> None:
    """The bits of the last byte beyond ``count`` values of ``bits`` bits must be zero."""
    used = count * bits % 8
    if used and packed.size and packed[-1] >> used:
        raise TensorDataError(f"{what}: the padding bits of the last byte (0x{int(packed[-1]):02x}) are not zero")


def _from_raw(raw: bytes, code: DataType, dims: tuple[int, ...], count: int, what: object) -> np.ndarray:
    if code in spec.SUBBYTE_TYPES:
        expected = spec.packed_size(code, count)
        if len(raw) != expected:
            raise TensorDataError(f"{what}: raw_data holds {len(raw)} bytes, expected {expected}")
        packed = np.frombuffer(raw, np.uint8)
        _check_padding(packed, count, spec.bit_width(code), what)
        return _ops.unpack(packed, code, dims)
    dtype = spec.numpy_dtype(code)
    if len(raw) != count * dtype.itemsize:
        raise TensorDataError(f"{what}: raw_data holds {len(raw)} bytes, expected {count * dtype.itemsize}")
    if code == DataType.BOOL and np.frombuffer(raw, np.uint8).max(initial=0) > 1:
        raise TensorDataError(f"{what}: raw_data holds a byte other than 0 and 1")
    if _LITTLE_ENDIAN:
        return np.frombuffer(raw, dtype).reshape(dims)
    values = np.frombuffer(raw, dtype.newbyteorder("<"))
    return (values if values.dtype.isnative else values.astype(dtype)).reshape(dims)  # native, as onnx's


#: The array type each field's entries are read into (the checked fields' entries as int64 or
#: uint64, then range-checked and narrowed).
_FIELD_KINDS = {"float_data": np.float32, "double_data": np.float64, "int32_data": np.int64, "int64_data": np.int64,
                "uint64_data": np.uint64}
#: Up to this many entries (a zero point, a scale, a shape) are read and checked one by one:
#: numpy's conversion of a repeated field and its reductions cost about 2 µs and 1 µs before
#: their first entry, Python's iteration about 0.4 µs and 30 ns an entry.
_FEW = 16


def _from_field(tensor: Any, code: DataType, dims: tuple[int, ...], count: int, what: object) -> np.ndarray:
    field = spec.FIELDS[code]
    complex_ = code in (DataType.COMPLEX64, DataType.COMPLEX128)
    entries = getattr(tensor, field.name)
    expected = 2 * count if complex_ else -(-count // field.per_entry)
    if len(entries) != expected:
        raise TensorDataError(f"{what}: {field.name} holds {len(entries)} entries, expected {expected}")
    dtype = spec.numpy_dtype(code)
    few = len(entries) <= _FEW
    kind = _FIELD_KINDS[field.name]
    values = np.fromiter(entries, kind, len(entries)) if few else np.array(entries, kind)
    if field.low is None:  # float_data, double_data
        return (values.view(dtype) if complex_ else values).reshape(dims)
    low, high = (min(entries, default=0), max(entries, default=0)) if few else (
        int(values.min(initial=0)), int(values.max(initial=0)))
    if low < field.low or high > field.high:
        bad = int(values[(values < field.low) | (values > field.high)][0])
        raise TensorDataError(f"{what}: {field.name} holds {bad}, outside [{field.low}, {field.high}]")
    if field.per_entry > 1:  # packed bytes
        packed = values.astype(np.uint8)
        _check_padding(packed, count, spec.bit_width(code), what)
        return _ops.unpack(packed, code, dims)
    if dtype.itemsize <= 2 and field.low == 0:  # bits (checked in range): those of a float, a uint, a bool
        return values.astype(np.uint16 if dtype.itemsize == 2 else np.uint8).view(dtype).reshape(dims)
    return values.astype(dtype).reshape(dims)


def to_array(tensor: onnx.TensorProto, base_dir: str = "") -> NDArray[Any]:
    """The values of an ONNX ``TensorProto`` as a numpy array, as onnx's
    ``numpy_helper.to_array`` gives them.

    Parameters
    ----------
    tensor : onnx.TensorProto
        A tensor of any type (a string tensor is read by onnx's ``to_array``).
    base_dir : str
        The directory external data are relative to (the model file's).

    Returns
    -------
    numpy.ndarray
        An array of the tensor's dims and type (ml_dtypes' types for the narrow ones, one value
        a byte), in native byte order.  From ``raw_data`` of a type of a byte or more, a
        read-only array over the tensor's bytes (on a little-endian host), as onnx's.

    Raises
    ------
    TensorDataError
        The data do not fit the type and dims (see the module's notes); a segment.
    UnknownDataTypeError
        ``data_type`` is no ONNX type code.
    TypeConstraintError
        ``data_type`` is UNDEFINED.
    ArgumentTypeError
        ``tensor`` is not a TensorProto.

    Examples
    --------
    >>> import numpy as np, ml_dtypes
    >>> from onnx import helper, TensorProto
    >>> from fastbits.onnx_tensors import to_array
    >>> to_array(helper.make_tensor("w", TensorProto.INT4, [3], [1, -2, 7])).astype(np.int8)
    array([ 1, -2,  7], dtype=int8)
    """
    onnx = _onnx()
    if not isinstance(tensor, onnx.TensorProto):
        raise ArgumentTypeError(f"to_array: tensor must be an onnx.TensorProto, not {type(tensor).__name__}")
    try:
        code = DataType(tensor.data_type)
    except ValueError:
        raise UnknownDataTypeError(f"to_array: tensor {tensor.name!r} has data_type {tensor.data_type}, "
                                   "which is no ONNX data type") from None
    dims = tuple(tensor.dims)
    what = _Described(tensor, code, dims)
    if code == DataType.STRING:
        from onnx import numpy_helper

        if min(dims, default=0) < 0 or len(tensor.string_data) != math.prod(dims):
            raise TensorDataError(f"{what}: string_data holds {len(tensor.string_data)} strings, expected "
                                  f"{math.prod(dims)}")
        return numpy_helper.to_array(tensor, base_dir)
    if code == DataType.UNDEFINED:
        raise TypeConstraintError(f"{what}: the element type is UNDEFINED")
    if tensor.HasField("segment"):
        raise TensorDataError(f"{what}: segments are not supported")
    if min(dims, default=0) < 0:
        raise TensorDataError(f"{what}: a negative dimension")
    count = math.prod(dims)
    if tensor.data_location == onnx.TensorProto.EXTERNAL:
        return _from_raw(_external_bytes(tensor, base_dir, what), code, dims, count, what)
    if tensor.HasField("raw_data"):
        return _from_raw(tensor.raw_data, code, dims, count, what)
    return _from_field(tensor, code, dims, count, what)


def from_array(array: NDArray[Any], name: str | None = None) -> onnx.TensorProto:
    """An ONNX ``TensorProto`` of ``array``, byte for byte as onnx's ``numpy_helper.from_array``
    writes it: dims, ``data_type``, and ``raw_data`` (little-endian; the 4-, 2- and 6-bit
    types packed by :func:`fastbits.pack`).

    Parameters
    ----------
    array : numpy.ndarray or numpy scalar
        An array of an ONNX type (ml_dtypes' for the narrow ones), any layout and byte order, or
        a scalar of one (a 0-d tensor); strings and objects go to onnx's ``from_array``.
    name : str, optional
        The tensor's name.

    Returns
    -------
    onnx.TensorProto

    Raises
    ------
    TypeConstraintError
        ``array``'s dtype is no ONNX type.
    ArgumentTypeError
        ``array`` is neither a numpy array nor a numpy scalar.

    Examples
    --------
    >>> import numpy as np, ml_dtypes
    >>> from fastbits.onnx_tensors import from_array
    >>> from_array(np.array([1, -2, 7], ml_dtypes.int4), "w").raw_data
    b'\\xe1\\x07'
    """
    onnx = _onnx()
    if isinstance(array, np.generic):  # a numpy scalar: a 0-d tensor, as onnx's from_array takes it
        array = np.asarray(array)
    if not isinstance(array, np.ndarray):
        raise ArgumentTypeError(f"from_array: array must be a numpy.ndarray or a numpy scalar, not "
                                f"{type(array).__name__}")
    if array.dtype == object or array.dtype.kind in "SU":
        from onnx import numpy_helper

        return numpy_helper.from_array(array, name)
    code = spec.datatype_of(array.dtype)
    if code is None or code == DataType.STRING:
        raise TypeConstraintError(f"from_array: array has dtype {spec.describe_dtype(array.dtype)}, which is no "
                                  "ONNX type")
    tensor = onnx.TensorProto()
    tensor.dims.extend(array.shape)
    if name:
        tensor.name = name
    tensor.data_type = int(code)
    if code in spec.SUBBYTE_TYPES:
        tensor.raw_data = _ops.pack(array).tobytes()
    else:
        tensor.raw_data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
    return tensor
