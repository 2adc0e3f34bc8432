"""The bits of a sub-byte element, and BitCast between sub-byte types for every byte 0..255.

The bits of an element are the 4, 2 or 6 bits of the value ml_dtypes reads from its byte.  BitCast
(which takes the 4- and 2-bit types, not the 6-bit ones) keeps exactly those bits on both paths: a view where the target reads every byte as the value
of those bits, a normalizing copy where it would not.  These tests find each byte's bits from
ml_dtypes directly (not from ``spec.subbyte_bits``) and hold docs/bitcast.md's table of which
pairs view and which copy.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from fastbits import spec
from fastbits.spec import DataType

from support import SUBBYTE_PAIRS, SUBBYTE_TYPES, bits, copy_layout, layout_of, values_of

#: The table of docs/bitcast.md: the pairs whose copy=False is a view; the others copy.
VIEW_GROUPS = [
    {DataType.INT4, DataType.UINT4},
    {DataType.FLOAT4E2M1},
    {DataType.INT2, DataType.UINT2},
]
VIEWS = {(src, dst) for group in VIEW_GROUPS for src in group for dst in group}

ALL_BYTES = np.arange(256, dtype=np.uint8)

#: The types whose ml_dtypes bytes read as negative when any high bit is set: the bytes that
#: read another value than their low bits, and those whose bits differ from their low bits.
SIGNED_BY_HIGH_BITS = {DataType.FLOAT4E2M1: (105, 120), DataType.FLOAT6E2M3: (93, 96), DataType.FLOAT6E3M2: (93, 96)}


def _bits_of_every_byte(code):
    """For each byte 0..255: the bits c (0 <= c < 2**bits) whose canonical byte reads as the
    value that byte reads as, found by matching values read by ml_dtypes."""
    dtype = spec.numpy_dtype(code)
    width = spec.bit_width(code)
    canonical = values_of(np.arange(1 << width, dtype=np.uint8).view(dtype)).tolist()
    assert len(set(canonical)) == 1 << width
    return np.array([canonical.index(v) for v in values_of(ALL_BYTES.view(dtype)).tolist()], np.uint8)


def test_the_issue_example(ops):
    """uint4 1 (bits 0001) is FLOAT4E2M1 +0.5; a view of the byte 0x11 read as -0.5."""
    x = np.array([0x11], np.uint8).view(ml_dtypes.uint4)
    for copy in (False, True):
        y = ops.bitcast(x, "FLOAT4E2M1", copy=copy)
        assert y.dtype == ml_dtypes.float4_e2m1fn
        assert y.astype(np.float32).tolist() == [0.5]
        assert y.view(np.uint8).tolist() == [0x01]
        assert not np.shares_memory(y, x)


def test_pair_table():
    assert len(SUBBYTE_PAIRS) == 13
    assert len(VIEWS) == 9
    for src, dst in SUBBYTE_PAIRS:
        assert (spec.subbyte_byte_map(src, dst) is None) == ((src, dst) in VIEWS), (src, dst)


@pytest.mark.parametrize("code", SUBBYTE_TYPES, ids=[c.name for c in SUBBYTE_TYPES])
def test_subbyte_bits_is_what_ml_dtypes_reads(code):
    table = spec.subbyte_bits(code)
    assert table.dtype == np.uint8 and table.shape == (256,) and not table.flags.writeable
    np.testing.assert_array_equal(table, _bits_of_every_byte(code))
    width = spec.bit_width(code)
    # the bytes ml_dtypes writes are the bits of their values: the canonical bytes
    np.testing.assert_array_equal(table[: 1 << width], np.arange(1 << width))
    values = np.arange(1 << width, dtype=np.uint8).view(spec.numpy_dtype(code)).astype(np.float32)
    written = values.astype(spec.numpy_dtype(code)).view(np.uint8)
    np.testing.assert_array_equal(written, np.arange(1 << width))
    if code in SIGNED_BY_HIGH_BITS:
        low = ALL_BYTES & ((1 << width) - 1)
        # a high bit makes a float4e2m1 or 6-bit float byte negative: 105 (93) bytes read
        # another value than their low 4 (6) bits, 120 (96) other bits (-0.0 is not +0.0)
        low_values = values_of(low.view(spec.numpy_dtype(code))).view(np.float32)
        read = values_of(ALL_BYTES.view(spec.numpy_dtype(code))).view(np.float32)
        assert int(np.sum(read != low_values)) == SIGNED_BY_HIGH_BITS[code][0]
        assert int(np.sum(table != low)) == SIGNED_BY_HIGH_BITS[code][1]
        sign = 1 << (width - 1)  # the bits: the sign if any bit from the sign up is set
        np.testing.assert_array_equal(table, np.where(ALL_BYTES >= sign, sign | (ALL_BYTES & (sign - 1)), ALL_BYTES))
    else:
        np.testing.assert_array_equal(table, ALL_BYTES & ((1 << width) - 1))


def test_bitcast_pairs_leave_out_the_6_bit_types():
    """The 6-bit floats are sub-byte types (pack and unpack take them), not BitCast types."""
    six = {DataType.FLOAT6E2M3, DataType.FLOAT6E3M2}
    assert six <= spec.SUBBYTE_TYPES and not six & spec.BITCAST_T1
    assert not any(src in six or dst in six for src, dst in SUBBYTE_PAIRS)


def test_subbyte_bits_refuses_other_types():
    with pytest.raises(TypeError, match=r"tensor\(int8\) is not a sub-byte type"):
        spec.subbyte_bits(DataType.INT8)


@pytest.mark.parametrize("src, dst", SUBBYTE_PAIRS, ids=[f"{s.name}-{d.name}" for s, d in SUBBYTE_PAIRS])
def test_every_byte_every_pair(ops, src, dst):
    """All 256 bytes of ``src`` to ``dst`` and back, view and copy: the value read is that of
    the bits, a view exactly where docs/bitcast.md says, a copy holds the bits alone."""
    x = ALL_BYTES.view(spec.numpy_dtype(src))
    x.flags.writeable = False
    expected_bits = _bits_of_every_byte(src)
    dst_dtype = spec.numpy_dtype(dst)
    value_of_bits = values_of(np.arange(1 << spec.bit_width(dst), dtype=np.uint8).view(dst_dtype))
    for copy in (False, True):
        y = ops.bitcast(x, dst, copy=copy)
        assert y.dtype == dst_dtype and y.shape == (256,)
        # the value read is the value of the bits
        np.testing.assert_array_equal(values_of(y), value_of_bits[expected_bits])
        if not copy and (src, dst) in VIEWS:
            assert np.shares_memory(y, x) and bits(y) == bits(x)
        else:
            assert not np.shares_memory(y, x) and layout_of(y) == copy_layout(x, y.dtype)
            np.testing.assert_array_equal(y.view(np.uint8), expected_bits)
        # both ways: back to src reads the values x reads
        back = ops.bitcast(y, src, copy=copy)
        assert back.dtype == x.dtype
        np.testing.assert_array_equal(values_of(back), values_of(x))


@pytest.mark.parametrize("src, dst", SUBBYTE_PAIRS, ids=[f"{s.name}-{d.name}" for s, d in SUBBYTE_PAIRS])
def test_every_byte_strided_and_zero_d(ops, src, dst):
    """The byte map applies at any layout: reversed, strided, 2-D transposed, 0-d."""
    raw = np.tile(ALL_BYTES, 3)
    expected = _bits_of_every_byte(src)
    for layout in (raw[::-1], raw[::3], raw.reshape(16, 48).T, raw[5:6].reshape(())):
        x = layout.view(spec.numpy_dtype(src))
        for copy in (False, True):
            y = ops.bitcast(x, dst, copy=copy)
            assert y.shape == x.shape
            if copy or (src, dst) not in VIEWS:
                assert layout_of(y) == copy_layout(x, y.dtype)
                np.testing.assert_array_equal(y.view(np.uint8), expected[layout])


def test_large_copy_with_byte_map(ops):
    """Large enough for the thread team and the vector loops; odd length for the tails."""
    raw = np.random.default_rng(7).integers(0, 256, size=(1 << 20) + 13, dtype=np.uint8)
    x = raw.view(ml_dtypes.float4_e2m1fn)
    expected = _bits_of_every_byte(DataType.FLOAT4E2M1)[raw]
    for to, copy in (("INT4", False), ("UINT4", True), ("FLOAT4E2M1", True)):
        np.testing.assert_array_equal(ops.bitcast(x, to, copy=copy).view(np.uint8), expected)
    back = ops.bitcast(raw.view(ml_dtypes.uint4), "FLOAT4E2M1")
    np.testing.assert_array_equal(back.view(np.uint8), raw & 0x0F)
    square = raw[: 1 << 20].reshape(1024, 1024).T  # transposed: the engine's blocked loop
    y = ops.bitcast(square.view(ml_dtypes.float4_e2m1fn), "UINT4")
    assert y.flags.f_contiguous  # numpy.copy's layout of a transposed array
    np.testing.assert_array_equal(y.view(np.uint8), _bits_of_every_byte(DataType.FLOAT4E2M1)[square])
