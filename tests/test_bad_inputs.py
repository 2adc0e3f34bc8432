"""The bad-input catalogue (``fastbits._bad_inputs``): every class of wrong input and the error
it gets, on every path.

docs/errors.md shows this catalogue: the docs build runs each row for its error and message.
"""

from __future__ import annotations

import pytest

import fastbits
from fastbits._bad_inputs import CATALOGUE, PACKING_CATALOGUE

from support import PATHS


@pytest.mark.parametrize("name, call, error, pattern", CATALOGUE, ids=[row[0] for row in CATALOGUE])
def test_bad_input(ops, name, call, error, pattern):
    with pytest.raises(error, match=pattern) as info:
        call(ops)
    assert isinstance(info.value, fastbits.FastbitsError)
    assert isinstance(info.value, (TypeError, ValueError))


@pytest.mark.parametrize("name, call, error, pattern", PACKING_CATALOGUE, ids=[row[0] for row in PACKING_CATALOGUE])
def test_bad_packing_input(packing, name, call, error, pattern):
    with pytest.raises(error, match=pattern) as info:
        call(packing)
    assert isinstance(info.value, fastbits.FastbitsError)


def _outcome(call, module):
    try:
        call(module)
    except Exception as exc:  # noqa: BLE001 - the comparison is of whatever is raised
        return type(exc), str(exc)
    return None


@pytest.mark.compiled
@pytest.mark.parametrize("name, call", [row[:2] for row in CATALOGUE + PACKING_CATALOGUE],
                         ids=[row[0] for row in CATALOGUE + PACKING_CATALOGUE])
def test_both_paths_word_errors_alike(name, call):
    """Every row of the catalogue raises the same class with the same message on both paths."""
    if "cython" not in PATHS:
        pytest.skip("compiled path not available")
    compiled, pure = _outcome(call, PATHS["cython"]), _outcome(call, PATHS["python"])
    assert compiled is not None
    assert compiled == pure
