"""Shared fixtures: every test that takes ``ops`` (or ``packing``) runs on each available path;
``config`` points the configuration API at that path's runtime.

``ops`` and ``packing`` are a ``fastbits._ops.Path`` (support.PATHS): the operators, ``pack``
and ``unpack``, ``get_num_threads``/``set_num_threads`` and the runtime of the pure path or of
the compiled one, behind the dispatch point as ``fastbits`` has them.  The compiled path is
absent when the extension was not built; in a compiled tox env (FASTBITS_REQUIRE_EXTENSIONS=1)
``test_compiled_module_loaded`` fails instead. ``--paths`` chooses the paths (tox.ini's pure
env and the baseline-loops test use it).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from fastbits import _config
from support import PATHS

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
        "--paths",
        default=",".join(PATHS),
        metavar="NAMES",
        help=f"the paths the tests that take one (ops, packing) run on: a comma-separated subset of "
        f"{','.join(PATHS)} (the default: all of them), or 'none' to deselect those tests; without "
        f"'cython', the tests marked 'compiled' are skipped too",
    )


_PATHS = pytest.StashKey[dict]()


def pytest_configure(config):
    """Read ``--paths`` once: {name: path} of the paths it names, in PATHS' order."""
    value = config.getoption("--paths")
    names = {name.strip() for name in value.split(",") if name.strip()}
    if names == {"none"}:
        config.stash[_PATHS] = {}
    elif names and names <= set(PATHS):
        config.stash[_PATHS] = {name: path for name, path in PATHS.items() if name in names}
    else:
        raise pytest.UsageError(f"--paths={value}: name paths of {', '.join(PATHS)}, or 'none'")


def pytest_collection_modifyitems(config, items):
    # A fixture's config_context belongs to the thread that set the fixture up, not to the threads
    # pytest-run-parallel runs the test on; and a test that takes a ``threads`` argument (the
    # fixture, or a parameter) sets thread counts process-wide in its body. pytest-run-parallel
    # runs these on one thread.
    for item in items:
        if {"threads", "small_pool"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.thread_unsafe)
    paths = config.stash[_PATHS]
    if not paths:  # --paths=none: leave out the tests that take a path
        kept, taking = [], []
        for item in items:
            (taking if {"ops", "packing"} & set(getattr(item, "fixturenames", ())) else kept).append(item)
        if taking:
            config.hook.pytest_deselected(items=taking)
            items[:] = kept
    if "cython" not in paths:
        skip = pytest.mark.skip(reason="compiled path not available or deselected (--paths)")
        for item in items:
            if "compiled" in item.keywords:
                item.add_marker(skip)


def pytest_generate_tests(metafunc):
    paths = metafunc.config.stash[_PATHS]
    for name in ("ops", "packing"):
        if name in metafunc.fixturenames and paths:
            metafunc.parametrize(name, list(paths.values()), ids=list(paths), scope="session")
