"""The layout of a fresh result: numpy's rule, on both paths.

A new result of BitwiseAnd, Or, Xor, Not and BitShift has the strides numpy's own ufunc gives
the same operands for the same ``order`` ('K' by default: the layout the operands share,
broadcast axes aside, C order where they share none); a BitCast copy has the layout of
``numpy.copy(x)``.  Strides are compared on the axes longer than 1 (support.layout_of).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fastbits
from support import copy_layout, expected_layout, layout_of, random_ints, run_op

OPS = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitshift_left", "bitshift_right"]
ORDERS = ["K", "C", "F", "A"]


def _array(shape, seed=0, dtype=np.int32):
    return random_ints(shape, dtype, seed) & 7  # small values: valid shift amounts too


def _pairs():
    """(name, a, b): operands in every kind of layout, alike and mixed."""
    c, c2 = _array((6, 5)), _array((6, 5), 1)
    f, f2 = np.asfortranarray(c), np.asfortranarray(c2)
    cube, cube2 = _array((2, 3, 4)), _array((2, 3, 4), 1)
    pairs = [("C & C", c, c2), ("F & F", f, f2), (".T & .T", c.T, c2.T), ("C & F", c, f2), ("F & C", f, c2),
             ("C & .T", _array((5, 6)), c2.T)]
    for p in itertools.permutations(range(3)):
        pairs.append((f"3-D {p} & {p}", cube.transpose(p), cube2.transpose(p)))
    pairs += [
        ("3-D (2, 0, 1) & (1, 2, 0)", cube.transpose(2, 0, 1), _array((4, 2, 3), 2).transpose(0, 1, 2)),
        ("3-D (1, 0, 2) & C", cube.transpose(1, 0, 2), _array((3, 2, 4), 3)),
        ("slices", _array((12, 10))[::2, 1::2], _array((12, 10), 1)[1::2, ::2]),
        ("F slices", f[::2], f2[1::2]),
        ("reversed", c[::-1, ::-1], c2[::-1, ::-1]),
        ("reversed .T", c.T[::-1], c2.T[::-1]),
        ("reversed & C", c[::-1], c2),
        ("F & row", f, _array((1, 5), 4)),
        ("F & column", f, _array((6, 1), 4)),
        ("F & 1-D", f, _array((5,), 4)),
        ("column & row", _array((6, 1)), _array((1, 5), 1)),
        ("F & scalar", f, 3),
        ("scalar & .T", 2, c.T),
        ("F & 0-d", f, np.array(3, np.int32)),
        ("0-d & 0-d", np.array(5, np.int32), np.array(1, np.int32)),
        ("size 0 .T", _array((0, 5)).T, _array((0, 5), 1).T),
        ("size 0 F", np.asfortranarray(_array((3, 0, 2))), np.asfortranarray(_array((3, 0, 2), 1))),
        ("size 1 axes", _array((1, 5, 1, 3)).transpose(3, 2, 1, 0), _array((1, 5, 1, 3), 1).transpose(3, 2, 1, 0)),
        ("broadcast 3-D .T", cube.T, _array((4, 1, 2), 5)),
        ("broadcast_to column & C", np.broadcast_to(_array((6, 1), 6), (6, 5)), c2),
        ("broadcast_to row & F", np.broadcast_to(_array((1, 5), 6), (6, 5)), f2),
        ("broadcast_to 3-D & .T", np.broadcast_to(_array((4, 1, 2), 6), (4, 3, 2)), cube2.T),
    ]
    return pairs


PAIRS = _pairs()


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("name, a, b", PAIRS, ids=[p[0] for p in PAIRS])
def test_binary_result_has_numpys_layout(ops, op, name, a, b, order):
    result = run_op(ops, op, a, b, order=order)
    assert layout_of(result) == expected_layout(a, b, order=order), (name, result.strides)
    assert result.flags.owndata and result.flags.writeable
    plain = [np.ascontiguousarray(x) if isinstance(x, np.ndarray) else x for x in (a, b)]
    np.testing.assert_array_equal(result, run_op(ops, op, *plain))


UNARY = [(name, a) for name, a, _ in PAIRS if isinstance(a, np.ndarray)]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("name, x", UNARY, ids=[u[0] for u in UNARY])
def test_not_result_has_numpys_layout(ops, name, x, order):
    result = ops.bitwise_not(x, order=order)
    assert layout_of(result) == expected_layout(x, order=order), (name, result.strides)
    np.testing.assert_array_equal(result, np.invert(x))


@pytest.mark.parametrize("to", ["FLOAT", "UINT32", "INT32"])
@pytest.mark.parametrize("name, x", UNARY, ids=[u[0] for u in UNARY])
def test_bitcast_copy_has_numpy_copys_layout(ops, name, x, to):
    for source in (x, x.astype(">i4")):  # native, and the byte-swapping copy
        result = ops.bitcast(source, to, copy=True)
        assert layout_of(result) == copy_layout(source, result.dtype), (name, result.strides)
        assert not np.shares_memory(result, source)


def test_transposed_inputs_run_as_one_contiguous_run(ops):
    """Inputs that share a layout give a result in it that is contiguous: every byte once."""
    a, b = _array((64, 48)).T, _array((64, 48), 1).T
    result = ops.bitwise_and(a, b)
    assert result.flags.f_contiguous
    np.testing.assert_array_equal(result, a & b)


@pytest.mark.parametrize("order", ["k", "c", "f", "a", None])
def test_order_in_any_case_and_none(ops, order):
    f = np.asfortranarray(_array((6, 5)))
    expected = "K" if order is None else order.upper()
    assert layout_of(ops.bitwise_and(f, f, order=order)) == expected_layout(f, f, order=expected)


@pytest.mark.parametrize("order, error", [("X", fastbits.ArgumentValueError), ("KC", fastbits.ArgumentValueError),
                                          ("", fastbits.ArgumentValueError), (1, fastbits.ArgumentTypeError),
                                          (b"K", fastbits.ArgumentTypeError)])
def test_a_bad_order_names_it(ops, order, error):
    x = _array((3, 4))
    for call in (lambda: ops.bitwise_and(x, x, order=order), lambda: ops.bitwise_not(x, order=order),
                 lambda: ops.bitshift(x, x, "LEFT", order=order)):
        with pytest.raises(error, match=r"^Bit\w+: 'order' "):
            call()


def test_out_keeps_its_own_layout(ops):
    a = _array((6, 5))
    out = np.empty((5, 6), np.int32).T  # Fortran-ordered
    for order in ORDERS:
        assert ops.bitwise_and(a, a, out=out, order=order) is out
        np.testing.assert_array_equal(out, a)
