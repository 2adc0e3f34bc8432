"""Shared fixtures: every test that takes ``ops`` (or ``packing``) runs on each available path;
``config`` points the configuration API at that path's runtime.

``ops`` and ``packing`` are a ``fastbits._ops.Path`` (support.PATHS): the operators, ``pack``
and ``unpack``, ``get_num_threads``/``set_num_threads`` and the runtime of the pure path or of
the compiled one, behind the dispatch point as ``fastbits`` has them.  The compiled path is
absent when the extension was not built; in a compiled tox env (FASTBITS_REQUIRE_EXTENSIONS=1)
``test_compiled_module_loaded`` fails instead.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from fastbits import _config
from support import COMPILED, PATHS, PURE

# Hypothesis profiles: "default" for the normal run (quick), "long" for nightly-style runs:
# HYPOTHESIS_PROFILE=long tox, or pytest --hypothesis-profile=long.
settings.register_profile(
    "default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "long", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def config(ops, monkeypatch):
    """fastbits' configuration API (get_config, set_config, config_context, ...) bound to
    ``ops``' runtime; its settings are put back after the test."""
    runtime = ops.runtime
    monkeypatch.setattr(_config, "_runtime", runtime)
    before = runtime.current_config()
    yield runtime
    runtime.configure(**before)
    assert runtime.current_config() == before


def pytest_addoption(parser):
    parser.addoption(
        "--no-compiled",
        action="store_true",
        default=False,
        help="run only the pure-Python path, skip tests marked 'compiled'",
    )


def pytest_collection_modifyitems(config, items):
    # A fixture's config_context belongs to the thread that set the fixture up, not to the threads
    # pytest-run-parallel runs the test on; and a test that takes a ``threads`` argument (the
    # fixture, or a parameter) sets thread counts process-wide in its body. pytest-run-parallel
    # runs these on one thread.
    for item in items:
        if {"threads", "small_pool"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.thread_unsafe)
    if config.getoption("--no-compiled") or COMPILED is None:
        skip = pytest.mark.skip(reason="compiled path not available or deselected")
        for item in items:
            if "compiled" in item.keywords:
                item.add_marker(skip)


def pytest_generate_tests(metafunc):
    paths = {"python": PURE} if metafunc.config.getoption("--no-compiled") else PATHS
    for name in ("ops", "packing"):
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, list(paths.values()), ids=list(paths), scope="session")
