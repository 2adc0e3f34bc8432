"""The public Cython API, ``fastbits/kernels.pxd``, as another package uses it.

A small extension is written to a temporary directory, cimports the kernels from the installed
fastbits (its ``kernels.pxd`` must ship with the package: pyproject.toml's package-data), is
built with setuptools and Cython in a subprocess, and is imported here.  It calls each kernel
with typed memoryviews (``const T[::1]`` inputs, a ``T[::1]`` output) without the GIL; the
results are compared with numpy's.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import fastbits

from support import INT_DTYPES, bitshift_reference, random_ints

pytestmark = pytest.mark.compiled

PACKAGE_DIR = os.path.dirname(os.path.abspath(fastbits.__file__))
# The directory holding the installed package: site-packages under tox, the checkout in a dev tree.
INSTALL_ROOT = os.path.dirname(PACKAGE_DIR)
OPS = ("and", "or", "xor", "not", "shl", "shr")

CONSUMER_PYX = """\
# cython: language_level=3, boundscheck=False, wraparound=False
from fastbits.kernels cimport (
    bitshift_left, bitshift_right, bitwise_and, bitwise_not, bitwise_or, bitwise_xor,
)
# the API's fused type: the eight integer types
from fastbits.kernels cimport integer as T

OPS = {"and": 0, "or": 1, "xor": 2, "not": 3, "shl": 4, "shr": 5}


cdef int _run(int op, const T[::1] a, const T[::1] b, T[::1] out) noexcept nogil:
    if op == 0:
        return bitwise_and(a, b, out)
    if op == 1:
        return bitwise_or(a, b, out)
    if op == 2:
        return bitwise_xor(a, b, out)
    if op == 3:
        return bitwise_not(a, out)
    if op == 4:
        return bitshift_left(a, b, out)
    return bitshift_right(a, b, out)


def apply(str name, const T[::1] a, const T[::1] b, T[::1] out):
    \"\"\"out = a <name> b (b unused by "not"); the kernel's return value.\"\"\"
    cdef int op = OPS[name]
    cdef int status
    with nogil:
        status = _run(op, a, b, out)
    return status


def apply_in_place(str name, T[::1] x, const T[::1] b, bint into_second):
    \"\"\"The kernel with ``out`` being one of its inputs (the first, or the second).\"\"\"
    cdef int op = OPS[name]
    cdef int status
    with nogil:
        if into_second:
            status = _run(op, b, x, x)
        else:
            status = _run(op, x, b, x)
    return status
"""

SETUP_PY = """\
import sys
from Cython.Build import cythonize
from setuptools import Extension, setup

# The installed fastbits: Cython finds fastbits/kernels.pxd there.
include = sys.argv.pop(1)
setup(
    name="fastbits_consumer",
    # A consumer that runs without the GIL declares it, as fastbits' own modules do: on a
    # free-threaded Python, importing an undeclared module turns the GIL back on.
    ext_modules=cythonize([Extension("fastbits_consumer", ["fastbits_consumer.pyx"])],
                          include_path=[include], quiet=True,
                          compiler_directives={"freethreading_compatible": True}),
    script_args=["build_ext", "--inplace"],
)
"""


def _compiler_missing() -> str | None:
    """Why no C compiler can build the extension, or None."""
    compiler = sysconfig.get_config_var("CC")
    if not compiler:  # Windows: setuptools finds MSVC itself; a failed build says why
        return None
    if shutil.which(compiler.split()[0]) is None:
        return f"no C compiler: {compiler.split()[0]!r} (sysconfig CC) is not on PATH"
    return None


def test_kernels_pxd_is_installed():
    """The public API ships with the package (pyproject.toml: package-data ``*.pxd``)."""
    pxd = os.path.join(PACKAGE_DIR, "kernels.pxd")
    assert os.path.isfile(pxd), f"{pxd} is missing: fastbits/kernels.pxd is not installed with the package"
    with open(pxd, encoding="utf-8") as f:
        text = f.read()
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitshift_left", "bitshift_right"):
        assert f"cdef int {name}(" in text, name
    import fastbits.kernels  # the module behind it, whose C functions the cimport reaches

    assert hasattr(fastbits.kernels, "__pyx_capi__")


@pytest.fixture(scope="module")
def consumer(tmp_path_factory):
    """The extension built against the installed fastbits, imported."""
    pytest.importorskip("Cython", reason="Cython is not installed (it is in the test extras)")
    pytest.importorskip("setuptools", reason="setuptools is not installed (it is in the test extras)")
    missing = _compiler_missing()
    if missing:
        pytest.skip(missing)
    if not os.path.isfile(os.path.join(PACKAGE_DIR, "kernels.pxd")):
        pytest.fail("fastbits/kernels.pxd is not installed with the package: nothing to cimport")
    where = tmp_path_factory.mktemp("consumer")
    (where / "fastbits_consumer.pyx").write_text(CONSUMER_PYX)
    (where / "setup.py").write_text(SETUP_PY)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([INSTALL_ROOT, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    build = subprocess.run(
        [sys.executable, "setup.py", INSTALL_ROOT], cwd=where, env=env, capture_output=True, text=True,
    )
    assert build.returncode == 0, f"building the consumer failed:\n{build.stdout}\n{build.stderr}"
    built = [name for name in os.listdir(where) if name.startswith("fastbits_consumer.") and name.endswith(
        (".so", ".pyd"))]
    assert len(built) == 1, os.listdir(where)
    spec = importlib.util.spec_from_file_location("fastbits_consumer", where / built[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------
# numpy references: ONNX semantics, the shifts as BitShift-28


def reference(op, x, y):
    if op == "and":
        return x & y
    if op == "or":
        return x | y
    if op == "xor":
        return x ^ y
    if op == "not":
        return ~x
    return bitshift_reference(x, np.broadcast_to(y, x.shape), "LEFT" if op == "shl" else "RIGHT")


def test_shift_reference_is_onnx():
    """The reference itself, on hand-worked values."""
    i8 = np.array([-128, -1, 64, 5, -5], np.int8)
    assert reference("shr", i8, np.array([1, 9, 8, -1, 7], np.int8)).tolist() == [-64, -1, 0, 0, -1]
    assert reference("shl", i8, np.array([1, 0, 1, 8, -3], np.int8)).tolist() == [0, -1, -128, 0, 0]
    u16 = np.array([0xFFFF, 1, 0x8000], np.uint16)
    assert reference("shl", u16, np.array([15, 16, 0], np.uint16)).tolist() == [0x8000, 0, 0x8000]
    assert reference("shr", u16, np.array([15, 16, 65535], np.uint16)).tolist() == [1, 0, 0]
    u64 = np.array([2**63], np.uint64)
    assert reference("shr", u64, np.array([2**63], np.uint64)).tolist() == [0]
    assert reference("shr", u64, np.array([63], np.uint64)).tolist() == [1]


# --------------------------------------------------------------------------
# the kernels, called from Cython


# at least uint8, int16, uint32 and int64; the other four integer types too
DTYPES = [np.dtype(t) for t in INT_DTYPES]


def _operands(dtype, n, seed):
    """x (its extremes first), y, and shift amounts for x: mostly in range, the edges first
    (0, width - 1, width, width + 1, the type's max; for a signed type -1, -width, its min)."""
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    width = dtype.itemsize * 8
    x = random_ints(n, dtype, rng)
    y = random_ints(n, dtype, rng)
    y_shift = rng.integers(0, width, n).astype(dtype)
    edges = [0, width - 1, width, width + 1, info.max] + ([-1, -width, info.min] if dtype.kind == "i" else [])
    extremes = [info.min, info.max, -1 if dtype.kind == "i" else 1, 0]
    y_shift[: len(edges)] = np.array(edges, dtype=dtype)[:n]
    x[: len(extremes)] = np.array(extremes, dtype=dtype)[:n]
    return x, y, y_shift


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("n", [1, 7, 1000, 70001])
def test_kernel_matches_numpy(consumer, dtype, op, n):
    x, y, y_shift = _operands(dtype, n, seed=n)
    second = y_shift if op in ("shl", "shr") else y
    out = np.full(n, 0x5A, dtype=dtype)
    assert consumer.apply(op, x, second, out) == 0
    expected = reference(op, x, second)
    assert out.dtype == dtype and np.array_equal(out, expected), (op, dtype, n)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("op", OPS)
def test_read_only_inputs(consumer, dtype, op):
    x, y, y_shift = _operands(dtype, 513, seed=3)
    second = y_shift if op in ("shl", "shr") else y
    x.flags.writeable = False
    second.flags.writeable = False
    out = np.zeros_like(x)
    assert consumer.apply(op, x, second, out) == 0
    assert np.array_equal(out, reference(op, x, second))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("op", ("and", "or", "xor", "shl", "shr"))
def test_length_one_second_operand(consumer, dtype, op):
    """A second operand of length 1 is one value applied to every element."""
    x, y, y_shift = _operands(dtype, 4099, seed=4)
    width = dtype.itemsize * 8
    values = [y_shift[5], width - 1, width] if op in ("shl", "shr") else [y[0], np.iinfo(dtype).max]
    if dtype.kind == "i" and op in ("shl", "shr"):
        values.append(-1)
    for value in values:
        one = np.array([value], dtype=dtype)
        one.flags.writeable = False
        out = np.empty_like(x)
        assert consumer.apply(op, x, one, out) == 0
        assert np.array_equal(out, reference(op, x, np.full_like(x, one[0]))), (op, dtype, value)


IN_PLACE = [(op, False) for op in OPS] + [(op, True) for op in OPS if op != "not"]  # not: one input


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("op, into_second", IN_PLACE, ids=[f"{op}-out-is-{'second' if s else 'first'}" for op, s in IN_PLACE])
def test_out_is_an_input(consumer, dtype, op, into_second):
    x, y, y_shift = _operands(dtype, 10007, seed=5)
    other = y_shift if op in ("shl", "shr") else y
    inout = other.copy() if into_second else x.copy()
    expected = reference(op, x, other)
    fixed = x if into_second else other
    assert consumer.apply_in_place(op, inout, fixed, into_second) == 0
    assert np.array_equal(inout, expected), (op, dtype, into_second)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("op", OPS)
def test_mismatched_lengths_return_minus_one(consumer, dtype, op):
    x, y, _ = _operands(dtype, 64, seed=6)
    out = np.full(64, 0x21, dtype=dtype)
    cases = [(x[:63], y, out), (x, y[:10], out), (x, y, out[:63].copy()), (x[:2], y[:1], out)]
    if op == "not":
        cases = [(x[:63], y, out), (x, y, out[:10].copy())]
    for a, b, o in cases:
        before = o.copy()
        assert consumer.apply(op, a, b, o) == -1, (op, dtype, len(a), len(b), len(o))
        assert np.array_equal(o, before), "a refused call wrote to out"


@pytest.mark.parametrize("dtype", [np.dtype(np.uint8), np.dtype(np.int64)], ids=str)
def test_empty_arrays(consumer, dtype):
    empty = np.empty(0, dtype=dtype)
    for op in OPS:
        assert consumer.apply(op, empty, empty, empty.copy()) == 0
    # an empty output with a length-1 second operand is fine too (nothing to write)
    assert consumer.apply("and", empty, np.ones(1, dtype), empty.copy()) == 0


def test_mixed_types_are_refused_by_the_signature(consumer):
    """All arguments of one call share one type: a fused signature refuses a mix."""
    with pytest.raises((TypeError, ValueError)):
        consumer.apply("and", np.zeros(4, np.int32), np.zeros(4, np.uint32), np.zeros(4, np.int32))


def test_calls_from_threads(consumer):
    """The kernels hold no state: several Python threads (the GIL released) at once."""
    from concurrent.futures import ThreadPoolExecutor

    x = random_ints(1 << 16, np.uint32, 9)
    y = random_ints(1 << 16, np.uint32, 10)

    def work(i):
        out = np.empty_like(x)
        for _ in range(20):
            assert consumer.apply("xor", x, y, out) == 0
        return np.array_equal(out, x ^ y)

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(work, range(8)))



def test_consumer_build_used_the_installed_pxd(consumer):
    """The extension was built against, and runs with, the fastbits this process imports."""
    import fastbits.kernels

    assert os.path.dirname(os.path.abspath(fastbits.kernels.__file__)) == PACKAGE_DIR
    assert "fastbits.kernels" in sys.modules
