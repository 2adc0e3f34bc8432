"""Shared fixtures: every test that takes ``ops`` runs on each available path.

``ops`` is the implementation module (``fastbits._ops_py`` or
``fastbits._ops_c``): both expose ``bitwise_and``, ``bitcast``,
``get_num_threads`` and ``set_num_threads``; ``packing`` likewise is ``fastbits._packing_py``
or ``fastbits._packing_c`` (``pack``, ``unpack``).  The compiled path is "absent"
when the extension was not built; in a compiled tox env (FASTBITS_REQUIRE_EXTENSIONS=1)
``test_compiled_module_loaded`` fails instead.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from support import COMPILED, IMPLEMENTATIONS, PACKING, PURE  # the paths, shared with the tests

# Hypothesis profiles: "default" for the normal run (quick), "long" for nightly-style runs:
# HYPOTHESIS_PROFILE=long tox, or pytest --hypothesis-profile=long.
settings.register_profile(
    "default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "long", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_addoption(parser):
    parser.addoption(
        "--no-compiled",
        action="store_true",
        default=False,
        help="run only the pure-Python path, skip tests marked 'compiled'",
    )


def pytest_collection_modifyitems(config, items):
    if config.getoption("--no-compiled") or COMPILED is None:
        skip = pytest.mark.skip(reason="compiled path not available or deselected")
        for item in items:
            if "compiled" in item.keywords:
                item.add_marker(skip)


def _paths(config):
    if config.getoption("--no-compiled"):
        return {"python": PURE}
    return IMPLEMENTATIONS


def pytest_generate_tests(metafunc):
    if "ops" in metafunc.fixturenames:
        paths = _paths(metafunc.config)
        metafunc.parametrize("ops", list(paths.values()), ids=list(paths), scope="session")
    if "packing" in metafunc.fixturenames:
        paths = {name: PACKING[name] for name in _paths(metafunc.config) if name in PACKING}
        metafunc.parametrize("packing", list(paths.values()), ids=list(paths), scope="session")
