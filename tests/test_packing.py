"""pack / unpack: ONNX's packed layout of the sub-byte types, on both paths.

The reference is onnx's own ``numpy_helper``: ``pack(x)`` gives the bytes of
``from_array(x).raw_data`` and ``unpack`` equals ``to_array``, for every sub-byte type and
shapes with odd sizes, 0-d and empty ones.  Property tests: round trips exact at any layout and
byte, the compiled path equal to the pure one.  The 6-bit floats (four to three bytes) also
against data carried in tests/support.py, checked against onnx where onnx 1.23 or later is
installed and standing in for it where it is not (the lowest env has no onnx).
"""

from __future__ import annotations

import math
import re

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

import fastbits
from fastbits import spec
from fastbits.spec import DataType

from support import PATHS, REQUIRE_COMPILED
from support import EVERY_CODE, EVERY_CODE_PACKED, SIX_BIT_TYPES, SUBBYTE_TYPES, TAIL_CODES, TAIL_PACKED
from support import bits, laid_out, onnx_6bit, pack6_reference, random_tensor, values_of



@pytest.fixture(scope="module")
def numpy_helper():
    """onnx's packing, the reference (onnx is a test extra; musllinux wheels test without it)."""
    return pytest.importorskip("onnx.numpy_helper")


def _onnx_packs(code):
    """Skip where the installed onnx has no packed layout for ``code`` (the 6-bit floats came
    with onnx 1.23): the carried data stands in for it (the 6-bit tests below)."""
    if code in SIX_BIT_TYPES and onnx_6bit() is None:
        pytest.skip(f"this onnx does not pack {code.name} (onnx 1.23 does)")


IDS = [c.name for c in SUBBYTE_TYPES]
SHAPES = [(), (0,), (1,), (2,), (3,), (4,), (5,), (7,), (8,), (9,), (2, 3), (3, 0, 2), (4, 5, 3), (1001,), (3, 1, 7)]


def _tensor(code, shape, seed=0):
    """Values of ``code`` in the bytes ml_dtypes writes (each byte the bits of its value)."""
    return random_tensor(code, shape=shape, seed=seed)


def _size(code, shape):
    return math.ceil(math.prod(shape) * spec.bit_width(code) / 8)


def test_issue_example(packing):
    x = np.array([1, -2, 7], ml_dtypes.int4)
    assert packing.pack(x).tolist() == [0xE1, 0x07]
    y = packing.unpack(bytes([0xE1, 0x07]), "int4", (3,))
    assert y.dtype == ml_dtypes.int4 and y.tolist() == [1, -2, 7]
    crumbs = np.array([1, 2, 3, 0, 3], ml_dtypes.uint2)
    assert packing.pack(crumbs).tolist() == [0b00111001, 0b11]


@pytest.mark.parametrize("code", SUBBYTE_TYPES, ids=IDS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_pack_is_numpy_helpers_raw_data(packing, code, shape, numpy_helper):
    _onnx_packs(code)
    x = _tensor(code, shape, seed=len(shape) + sum(shape))
    packed = packing.pack(x)
    assert type(packed) is np.ndarray and packed.dtype == np.uint8 and packed.ndim == 1
    assert packed.size == _size(code, shape) and packed.flags.c_contiguous
    assert packed.tobytes() == numpy_helper.from_array(x).raw_data


@pytest.mark.parametrize("code", SUBBYTE_TYPES, ids=IDS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_unpack_is_numpy_helpers_to_array(packing, code, shape, numpy_helper):
    onnx = pytest.importorskip("onnx")
    _onnx_packs(code)
    if shape == () and spec.bit_width(code) == 2 and not onnx.defs.has("BitCast"):
        # onnx 1.20 (Debian's) slices by np.prod(()), a float; fastbits' onnx extra needs 1.21
        pytest.skip(f"onnx {onnx.__version__}'s to_array fails on a 0-d 2-bit tensor")
    tensor = numpy_helper.from_array(_tensor(code, shape, seed=1 + len(shape)))
    expected = numpy_helper.to_array(tensor)
    raw = tensor.raw_data
    for data in (raw, bytearray(raw), memoryview(raw), np.frombuffer(raw, np.uint8),
                 np.repeat(np.frombuffer(raw, np.uint8), 2)[::2]):
        y = packing.unpack(data, int(code), shape)
        assert type(y) is np.ndarray and y.dtype == expected.dtype == spec.numpy_dtype(code)
        assert y.shape == shape and y.flags.c_contiguous and y.flags.writeable
        assert bits(y) == bits(expected)
        if isinstance(data, np.ndarray):
            assert not np.shares_memory(y, data)


@pytest.mark.parametrize("to", ["INT4", "int4", "tensor(int4)", 22, DataType.INT4, ml_dtypes.int4, np.dtype(ml_dtypes.int4)])
def test_unpack_reads_to_as_bitcast_does(packing, to):
    assert packing.unpack(b"\xe1", to, [2]).tolist() == [1, -2]


def test_padding_bits_are_zero_and_ignored(packing):
    x = np.array([0xF, 0xF, 0xF], np.uint8).view(ml_dtypes.uint4)
    assert packing.pack(x).tolist() == [0xFF, 0x0F]
    assert packing.unpack(b"\xff\xff", "uint4", (3,)).view(np.uint8).tolist() == [15, 15, 15]
    five = np.full(5, 3, np.uint8).view(ml_dtypes.int2)
    assert packing.pack(five).tolist() == [0xFF, 0x03]
    assert packing.unpack(b"\xff\xff", "int2", (5,)).tolist() == [-1] * 5


def test_pack_takes_the_bits_of_the_value_read(packing):
    """A byte with high bits set: its bits are those of the value ml_dtypes reads from it."""
    f4 = np.array([0x11, 0x18, 0x10, 0x01], np.uint8).view(ml_dtypes.float4_e2m1fn)  # -0.5, -0, -0, 0.5
    assert packing.pack(f4).tolist() == [0x89, 0x18]
    back = packing.unpack(b"\x89\x18", "float4e2m1", (4,))
    assert back.view(np.uint8).tolist() == [0x9, 0x8, 0x8, 0x1]
    np.testing.assert_array_equal(np.signbit(back.astype(np.float32)), [True, True, True, False])
    assert back.astype(np.float32).tolist() == [-0.5, 0.0, 0.0, 0.5]
    i4 = np.array([0xFF, 0x21], np.uint8).view(ml_dtypes.int4)  # -1, 1
    assert packing.pack(i4).tolist() == [0x1F]


@pytest.mark.parametrize("code", SUBBYTE_TYPES, ids=IDS)
def test_pack_any_layout(packing, code, numpy_helper):
    _onnx_packs(code)
    base = _tensor(code, (6, 10), seed=3)
    for x in (base.T, base[::-1, ::3], base[:, 1::2], np.broadcast_to(base[:1], (4, 10)), base[2, 3]):
        expected = packing.pack(np.ascontiguousarray(x))
        assert bits(packing.pack(x)) == bits(expected)
        assert bits(expected) == numpy_helper.from_array(np.ascontiguousarray(x)).raw_data


def test_large_arrays_every_type(packing, numpy_helper):
    """Large enough for the thread team, odd lengths for the tails."""
    for code in SUBBYTE_TYPES:
        raw = np.random.default_rng(int(code)).integers(0, 256, size=(1 << 20) + 7, dtype=np.uint8)
        x = raw.view(spec.numpy_dtype(code))
        packed = packing.pack(x)
        y = packing.unpack(packed, code, x.shape)
        np.testing.assert_array_equal(y.view(np.uint8), spec.subbyte_bits(code)[raw])
        canonical = y
        if code not in SIX_BIT_TYPES or onnx_6bit() is not None:
            assert packed.tobytes() == numpy_helper.from_array(canonical).raw_data


@pytest.mark.compiled
@pytest.mark.parametrize("threads", [1, 2])
def test_threaded_compiled_equals_pure(threads):
    """4M elements, pieces on the thread team (starts at whole bytes, not 16-byte aligned):
    odd sizes, every type, both directions, unaligned packed data, equal to the pure path."""
    compiled, pure = PATHS["cython"], PATHS["python"]
    before = fastbits.get_num_threads()
    fastbits.set_num_threads(threads)
    try:
        for code, extra in zip(SUBBYTE_TYPES, (13, 1, 7, 3, 0, 5, 2), strict=True):
            raw = np.random.default_rng(int(code)).integers(0, 256, size=(4 << 20) + extra, dtype=np.uint8)
            x = raw.view(spec.numpy_dtype(code))
            packed = pure.pack(x)
            assert bits(compiled.pack(x)) == bits(packed)
            assert bits(compiled.unpack(packed, code, x.shape)) == bits(pure.unpack(packed, code, x.shape))
            odd = compiled.unpack(packed[1:], code, ((packed.size - 1) * 8 // spec.bit_width(code),))  # unaligned data
            assert bits(odd) == bits(pure.unpack(packed[1:], code, odd.shape))
    finally:
        fastbits.set_num_threads(before)


@pytest.mark.compiled
@pytest.mark.parametrize("threads", [1, 2])
def test_mapped_pack_of_own_bits_and_other_bytes(threads):
    """float4e2m1, whose bytes below 16 are their own bits (as ml_dtypes' own results are) and
    whose others are mapped: runs of each kind side by side, odd lengths, equal to the pure path."""
    compiled, pure = PATHS["cython"], PATHS["python"]
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 16, size=(1 << 17) + 5, dtype=np.uint8)
    raw[5000] = 0x93  # reads as 0xB, not its low nibble
    raw[20000:20100] = rng.integers(16, 256, size=100, dtype=np.uint8)
    raw[-1] = 0xF3
    with fastbits.config_context(num_threads=threads):
        for x in (raw, raw[:-1], raw[: 3 * 4096 + 1], raw[30000:]):
            x = x.view(ml_dtypes.float4_e2m1fn)
            assert bits(compiled.pack(x)) == bits(pure.pack(x))


# ----------------------------------------------------------------------- properties


@st.composite
def subbyte_arrays(draw):
    code = draw(st.sampled_from(SUBBYTE_TYPES))
    shape = draw(array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=9))
    return code, draw(laid_out(shape, spec.numpy_dtype(code)))


@given(subbyte_arrays())
def test_round_trip_keeps_the_bits(packing, case):
    """unpack(pack(x)) is x's elements as BitCast copies them: their bits, in C order (for the
    6-bit floats, which BitCast does not take, the bits of spec.subbyte_bits)."""
    code, x = case
    y = packing.unpack(packing.pack(x), code, x.shape)
    if code in SIX_BIT_TYPES:
        assert bits(y) == spec.subbyte_bits(code)[np.ascontiguousarray(x).view(np.uint8)].tobytes()
    else:
        assert bits(y) == bits(fastbits._ops_py.bitcast(x, code, copy=True))
    assert bits(values_of(y)) == bits(values_of(x))  # the values ml_dtypes reads are kept
    assert bits(packing.pack(y)) == bits(packing.pack(x))


@given(st.sampled_from(SUBBYTE_TYPES), st.integers(0, 40), st.integers(0, 2**32 - 1))
def test_pack_of_unpack_is_the_data(packing, code, count, seed):
    """Any packed bytes survive unpack then pack, padding bits cleared."""
    width = spec.bit_width(code)
    data = np.random.default_rng(seed).integers(0, 256, size=_size(code, (count,)), dtype=np.uint8)
    expected = data.copy()
    if count * width % 8:
        expected[-1] &= (1 << (count * width % 8)) - 1
    assert bits(packing.pack(packing.unpack(data, code, (count,)))) == bits(expected)


@pytest.mark.compiled
@given(subbyte_arrays())
def test_compiled_equals_pure(case):
    code, x = case
    compiled, pure = PATHS["cython"], PATHS["python"]
    packed = pure.pack(x)
    assert bits(compiled.pack(x)) == bits(packed)
    assert bits(compiled.unpack(packed, code, x.shape)) == bits(pure.unpack(packed, code, x.shape))


# ----------------------------------------------------------------------- errors

BAD_CALLS = [
    ("pack: not a sub-byte type", lambda m: m.pack(np.zeros(3, np.int8)),
     fastbits.TypeConstraintError, r"^pack: input 'x' has dtype int8 \(tensor\(int8\)\), which is not a sub-byte type; expected one of tensor\(float6e2m3\), tensor\(float6e3m2\), tensor\(float4e2m1\), tensor\(int4\), tensor\(uint4\), tensor\(int2\), tensor\(uint2\)$"),
    ("pack: a list of ints", lambda m: m.pack([1, 2]), fastbits.TypeConstraintError, r"^pack: input 'x' has dtype int64"),
    ("pack: not an array", lambda m: m.pack(object()), fastbits.ArgumentTypeError, r"^pack: input 'x'"),
    ("unpack: to not sub-byte", lambda m: m.unpack(b"\x00", "int8", (1,)),
     fastbits.TypeConstraintError, r"^unpack: argument 'to' = INT8 \(3\) is not a sub-byte type; expected one of tensor\(float6e2m3\), tensor\(float6e3m2\), tensor\(float4e2m1\)"),
    ("unpack: to unknown", lambda m: m.unpack(b"\x00", 99, (1,)), fastbits.UnknownDataTypeError,
     r"^unpack: argument 'to' = 99 names no ONNX data type; expected a sub-byte type"),
    ("unpack: to of the wrong kind", lambda m: m.unpack(b"\x00", None, (1,)), fastbits.ArgumentTypeError,
     r"^unpack: argument 'to' must be an ONNX data type"),
    ("unpack: data too short", lambda m: m.unpack(b"\x00\x00", "int4", (5,)), fastbits.ArgumentValueError,
     r"^unpack: input 'data' has 2 bytes, but shape \(5,\) of tensor\(int4\) packs into 3 bytes \(5 elements of 4 bits"),
    ("unpack: data too long", lambda m: m.unpack(np.zeros(3, np.uint8), "uint2", (2, 2)), fastbits.ArgumentValueError,
     r"^unpack: input 'data' has 3 bytes, but shape \(2, 2\) of tensor\(uint2\) packs into 1 bytes"),
    ("unpack: shape an int", lambda m: m.unpack(b"", "int4", 3), fastbits.ArgumentTypeError,
     r"^unpack: argument 'shape' must be a sequence of ints \(a tuple, a list\), not int 3$"),
    ("unpack: shape of floats", lambda m: m.unpack(b"", "int4", (1.5,)), fastbits.ArgumentTypeError,
     r"^unpack: argument 'shape' must be a sequence of ints \(a tuple, a list\), but \(1\.5,\) holds float 1\.5$"),
    ("unpack: negative size", lambda m: m.unpack(b"", "int4", (2, -1)), fastbits.ArgumentValueError,
     r"^unpack: argument 'shape' \(2, -1\) has a negative size$"),
    ("unpack: too many axes", lambda m: m.unpack(b"\x01", "int4", (1,) * 65), fastbits.ArgumentValueError,
     r"^unpack: argument 'shape' \(1, 1, .*\) is not an array shape: "),
    ("unpack: too large beside a zero", lambda m: m.unpack(b"", "int4", (2**40, 2**40, 0)),
     fastbits.ArgumentValueError, r"^unpack: argument 'shape' \(1099511627776, 1099511627776, 0\) is not an array shape"),
    ("unpack: data a list", lambda m: m.unpack([1, 2], "int4", (4,)), fastbits.ArgumentTypeError,
     r"^unpack: input 'data' must be bytes, a bytearray, a memoryview of bytes or a uint8 numpy array, not list$"),
    ("unpack: data a str", lambda m: m.unpack("ab", "int4", (4,)), fastbits.ArgumentTypeError, r"not str$"),
    ("unpack: data int8", lambda m: m.unpack(np.zeros(1, np.int8), "int4", (2,)), fastbits.TypeConstraintError,
     r"^unpack: input 'data' has dtype int8 \(tensor\(int8\)\); expected packed bytes"),
    ("unpack: data 2-D", lambda m: m.unpack(np.zeros((1, 1), np.uint8), "int4", (2,)), fastbits.ArgumentValueError,
     r"^unpack: input 'data' has shape \(1, 1\); expected the packed bytes as one dimension$"),
    ("unpack: memoryview of int32", lambda m: m.unpack(memoryview(np.zeros(1, np.int32)), "int4", (8,)),
     fastbits.TypeConstraintError, r"^unpack: input 'data' is a memoryview of format 'i' \(itemsize 4\)"),
]


@pytest.mark.parametrize("call, error, pattern", [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS])
def test_errors(packing, call, error, pattern):
    for to in ("int4", "uint2"):  # unpack's fast path knows these 'to' now: errors are the same
        packing.unpack(b"", to, (0,))
    with pytest.raises(error, match=pattern) as info:
        call(packing)
    assert isinstance(info.value, fastbits.FastbitsError)


@pytest.mark.compiled
@pytest.mark.parametrize("call", [c[1] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS])
def test_errors_identical_on_both_paths(call):
    raised = []
    for module in (PATHS["python"], PATHS["cython"]):
        with pytest.raises(fastbits.FastbitsError) as info:
            call(module)
        raised.append((type(info.value), str(info.value)))
    assert raised[0] == raised[1]


def test_length_error_is_a_value_error_naming_both_sizes(packing):
    with pytest.raises(ValueError) as info:
        packing.unpack(bytes(10), "float4e2m1", (4, 4))
    assert re.search(r"\b10 bytes\b", str(info.value)) and re.search(r"\b8 bytes\b", str(info.value))


def test_signatures(packing):
    x = np.zeros(2, ml_dtypes.int4)
    with pytest.raises(TypeError):
        packing.pack(x=x)
    with pytest.raises(TypeError):
        packing.unpack(b"\x00", "int4")
    with pytest.raises(TypeError):
        packing.unpack(data=b"\x00", to="int4", shape=(2,))


def test_bench_cases(numpy_helper):
    """The suite's pack/unpack rows: fastbits on both paths and numpy_helper agree; numpy's
    np.copy is the bar, not checked."""
    from fastbits._bench.cases import packing_case, select
    from fastbits._bench.impls import implementations
    from fastbits._bench.run import run_case
    from fastbits._bench.timing import MODES

    quick = [case.name for case in select("quick")]
    full = [case.name for case in select("full")]
    assert "pack int4 n=4M" in quick and "unpack int4 n=4M" in quick
    assert "pack float6e2m3 n=4M" in quick and "unpack float6e2m3 n=4M" in quick
    assert "pack float6e3m2 n=4M" in full and "unpack float6e3m2 n=4M" in full
    impls = implementations(1)
    for op in ("pack", "unpack"):
        for code in (DataType.INT4, DataType.FLOAT4E2M1, DataType.UINT2, DataType.FLOAT6E2M3, DataType.FLOAT6E3M2):
            record = run_case(packing_case(op, code, 1001, "s"), impls, MODES["smoke"], np.random.default_rng(0))
            results = record["results"]
            assert results["fastbits-py"]["status"] == "ok" and results["numpy"]["status"] == "ok"
            assert results["fastbits-c"]["status"] == ("ok" if "cython" in PATHS else "absent")
            assert results["onnx-ref"]["status"] == ("ok" if code not in SIX_BIT_TYPES or onnx_6bit() else "n/a")
            assert results["ort"]["status"] in ("n/a", "absent")


@pytest.mark.parametrize("shape", [(2, 2), [2, 2], [np.int64(2), 2], range(2, 4, 1)])
def test_unpack_takes_any_sequence_of_ints_as_shape(packing, shape):
    """As numpy takes a shape: a tuple, a list, numpy ints, a range (here (2, 3))."""
    data = bytes([0x21, 0x43, 0x65])[: (int(np.prod(shape)) + 1) // 2]
    got = packing.unpack(data, "uint4", shape).view(np.uint8)
    assert got.shape == tuple(shape) and got.reshape(-1).tolist() == [1, 2, 3, 4, 5, 6][: got.size]


# ----------------------------------------------------------------------- the 6-bit floats

SIX_IDS = [c.name for c in SIX_BIT_TYPES]


def _codes(code, values, shape=None):
    """An array of 6-bit type ``code`` holding the bytes ``values``."""
    x = np.array(values, np.uint8).view(spec.numpy_dtype(code))
    return x if shape is None else x.reshape(shape)


def test_carried_6_bit_data_is_onnxs():
    """The data the 6-bit tests carry is what onnx 1.23's numpy_helper writes and reads: its
    private _pack_6bit / _unpack_6bit, and a TensorProto's raw_data through from_array /
    to_array (the lowest env, without onnx, relies on this data alone)."""
    numpy_helper = onnx_6bit()
    if numpy_helper is None:
        pytest.skip("this onnx has no 6-bit packing (onnx 1.23 has)")
    import onnx

    every = np.array(EVERY_CODE, np.uint8)
    assert numpy_helper._pack_6bit(every).tobytes() == EVERY_CODE_PACKED == pack6_reference(EVERY_CODE)
    assert numpy_helper._unpack_6bit(np.frombuffer(EVERY_CODE_PACKED, np.uint8), (256,)).tolist() == EVERY_CODE
    for n, packed in enumerate(TAIL_PACKED):
        assert numpy_helper._pack_6bit(np.array(TAIL_CODES[:n], np.uint8)).tobytes() == packed
        assert numpy_helper._unpack_6bit(np.frombuffer(packed, np.uint8), (n,)).tolist() == TAIL_CODES[:n]
    for code in SIX_BIT_TYPES:
        tensor = numpy_helper.from_array(_codes(code, EVERY_CODE, (8, 32)))
        assert tensor.data_type == int(code) == getattr(onnx.TensorProto, code.name)
        assert tensor.raw_data == EVERY_CODE_PACKED
        back = numpy_helper.to_array(tensor)
        assert back.dtype == spec.numpy_dtype(code) and back.shape == (8, 32)
        assert back.view(np.uint8).reshape(-1).tolist() == EVERY_CODE


@pytest.mark.parametrize("code", SIX_BIT_TYPES, ids=SIX_IDS)
def test_6_bit_every_code_in_every_position(packing, code):
    """Each of the 64 codes in each of the 4 positions of a group, both ways."""
    for shape in ((256,), (64, 4), (4, 8, 8)):
        x = _codes(code, EVERY_CODE, shape)
        packed = packing.pack(x)
        assert packed.dtype == np.uint8 and packed.shape == (192,)
        assert packed.tobytes() == EVERY_CODE_PACKED
        for data in (EVERY_CODE_PACKED, bytearray(EVERY_CODE_PACKED), memoryview(EVERY_CODE_PACKED),
                     np.frombuffer(EVERY_CODE_PACKED, np.uint8)):
            y = packing.unpack(data, code, shape)
            assert y.dtype == spec.numpy_dtype(code) and y.shape == shape and y.flags.c_contiguous
            assert y.view(np.uint8).reshape(-1).tolist() == EVERY_CODE
    groups = packing.unpack(EVERY_CODE_PACKED, code, (64, 4)).view(np.uint8)
    for position in range(4):
        assert sorted(groups[:, position].tolist()) == list(range(64))


@pytest.mark.parametrize("code", SIX_BIT_TYPES, ids=SIX_IDS)
def test_6_bit_every_length_mod_4(packing, code):
    """0 to 11 elements: the output trimmed to ceil(n * 6 / 8) bytes, the bits after the last
    element zero; unpack ignores those bits when they are set."""
    for n, expected in enumerate(TAIL_PACKED):
        assert spec.packed_size(code, n) == len(expected) == math.ceil(n * 6 / 8)
        assert packing.pack(_codes(code, TAIL_CODES[:n])).tobytes() == expected
        assert packing.unpack(expected, code, (n,)).view(np.uint8).tolist() == TAIL_CODES[:n]
        if n % 4:  # padding bits in the last byte: set them all, they are not read
            used = n * 6 % 8
            noisy = bytearray(expected)
            noisy[-1] |= 0xFF & ~((1 << used) - 1)
            assert packing.unpack(bytes(noisy), code, (n,)).view(np.uint8).tolist() == TAIL_CODES[:n]
    assert packing.pack(_codes(code, [], (0, 3))).shape == (0,)
    assert packing.unpack(b"", code, (2, 0)).shape == (2, 0)


@pytest.mark.parametrize("code", SIX_BIT_TYPES, ids=SIX_IDS)
@pytest.mark.parametrize("to", ["{name}", "{lower}", "tensor({lower})", "{numpy}", "int", "DataType", "dtype", "scalar type"])
def test_6_bit_unpack_reads_to_as_bitcast_does(packing, code, to):
    dtype = spec.numpy_dtype(code)
    given = {"int": int(code), "DataType": code, "dtype": dtype, "scalar type": dtype.type}.get(to)
    if given is None:
        given = to.format(name=code.name, lower=code.name.lower(), numpy=dtype.name)
    y = packing.unpack(TAIL_PACKED[5], given, (5,))
    assert y.dtype == dtype and y.view(np.uint8).tolist() == TAIL_CODES[:5]


@pytest.mark.parametrize("code", SIX_BIT_TYPES, ids=SIX_IDS)
def test_6_bit_any_layout(packing, code):
    """Multi-dimensional, strided, transposed, reversed, broadcast, 0-d, read-only inputs pack in
    logical C order; unpack gives any shape of the same elements."""
    base = _codes(code, EVERY_CODE[:210], (6, 35))
    read_only = base.copy()
    read_only.flags.writeable = False
    layouts = [base.T, base[::-1], base[:, ::-1], base[::-2, 1::3], base.T[::-1, 2:], base[:, 5:6],
               np.broadcast_to(base[:1], (3, 35)), base[2, 3], read_only, base.reshape(5, 7, 6).transpose(2, 0, 1)]
    numpy_helper = onnx_6bit()
    for x in layouts:
        codes = np.ascontiguousarray(x).view(np.uint8).reshape(-1)
        packed = packing.pack(x)
        assert packed.tobytes() == pack6_reference(codes)
        if numpy_helper is not None:
            assert packed.tobytes() == numpy_helper.from_array(np.ascontiguousarray(x)).raw_data
        y = packing.unpack(packed, code, x.shape)
        assert y.shape == x.shape and y.view(np.uint8).reshape(-1).tolist() == codes.tolist()
    # the packed bytes as a strided or unaligned uint8 array
    packed = np.frombuffer(pack6_reference(EVERY_CODE), np.uint8)
    for data in (np.repeat(packed, 2)[::2], np.concatenate([np.uint8([7]), packed])[1:], packed[::-1][::-1]):
        assert packing.unpack(data, code, (16, 16)).view(np.uint8).reshape(-1).tolist() == EVERY_CODE


@pytest.mark.parametrize("code", SIX_BIT_TYPES, ids=SIX_IDS)
def test_6_bit_high_bits_never_leak(packing, code):
    """A byte with high bits set packs as the bits of the value ml_dtypes reads from it (the
    sign if any bit from the sign up is set), never spilling into a neighbour: every byte
    0..255 in each of the 4 positions of a group, between neighbours of all zeros and all ones."""
    table = spec.subbyte_bits(code)
    assert table[0x40] == 0x20 and table[0xFF] == 0x3F and table[0x85] == 0x25 and table[0x1F] == 0x1F
    every = np.arange(256, dtype=np.uint8)
    for position in range(4):
        for fill in (0x00, 0x3F):
            raw = np.full((256, 4), fill, np.uint8)
            raw[:, position] = every
            x = raw.reshape(-1).view(spec.numpy_dtype(code))
            packed = packing.pack(x)
            assert packed.tobytes() == pack6_reference(table[raw.reshape(-1)])
            back = packing.unpack(packed, code, x.shape)
            assert bits(values_of(back)) == bits(values_of(x))  # the values read are kept
            assert int(back.view(np.uint8).max()) < 64  # elements stored as their bits alone
    for n in range(1, 9):  # the last element of every length mod 4 with every high bit set
        raw = np.full(n, 0xC0 | 0x15, np.uint8)  # reads as -(0x15): bits 0x35
        assert packing.pack(raw.view(spec.numpy_dtype(code))).tobytes() == pack6_reference([0x35] * n)


@pytest.mark.parametrize("code", SIX_BIT_TYPES, ids=SIX_IDS)
def test_6_bit_wrong_sizes(packing, code):
    """Data of any other size than ceil(n * 6 / 8) bytes: an ArgumentValueError (a ValueError)
    naming both sizes, also where onnx's _unpack_6bit would read a longer buffer."""
    for n in range(0, 13):
        expected = math.ceil(n * 6 / 8)
        for size in {max(expected - 1, 0), expected + 1, expected + 3, 3 * (n // 4 + 1)} - {expected}:
            for data in (bytes(size), np.zeros(size, np.uint8)):
                with pytest.raises(fastbits.ArgumentValueError) as info:
                    packing.unpack(data, code, (n,))
                message = str(info.value)
                assert isinstance(info.value, ValueError)
                assert message.startswith(f"unpack: input 'data' has {size} bytes, but shape ({n},) of "
                                          f"tensor({code.name.lower()}) packs into {expected} bytes ({n} "
                                          f"elements of 6 bits")
                assert message.endswith(f"expected exactly {expected} bytes")


@pytest.mark.parametrize("code", SIX_BIT_TYPES, ids=SIX_IDS)
@pytest.mark.parametrize("threads", [1, 2])
def test_6_bit_large(packing, code, threads):
    """Enough elements for the thread team and the vector steps, every length mod 8 (the shares
    split at 8 elements: two whole groups), canonical bytes (packed as they are) and any bytes
    (through the byte map), against the definition on the first and last groups."""
    rng = np.random.default_rng(int(code))
    with fastbits.config_context(num_threads=threads):
        for extra in range(8):
            n = (1 << 20) + extra
            raw = rng.integers(0, 64 if extra % 2 else 256, n, dtype=np.uint8)  # canonical or any bytes
            codes = spec.subbyte_bits(code)[raw]
            packed = packing.pack(raw.view(spec.numpy_dtype(code)))
            assert packed.size == spec.packed_size(code, n)
            tail = (n // 4 - 1000) * 4  # the last 1000 whole groups and the rest
            assert packed[:3000].tobytes() == pack6_reference(codes[:4000])
            assert packed[tail // 4 * 3:].tobytes() == pack6_reference(codes[tail:])
            np.testing.assert_array_equal(packing.unpack(packed, code, (n,)).view(np.uint8), codes)


@given(st.sampled_from(SIX_BIT_TYPES), st.lists(st.integers(0, 255), max_size=70))
def test_6_bit_matches_its_definition(packing, code, raw):
    """Any bytes: pack is the definition applied to their bits, unpack its inverse."""
    raw = np.array(raw, np.uint8)
    codes = spec.subbyte_bits(code)[raw]
    packed = packing.pack(raw.view(spec.numpy_dtype(code)))
    assert packed.tobytes() == pack6_reference(codes)
    assert packing.unpack(packed, code, (raw.size,)).view(np.uint8).tolist() == codes.tolist()
