"""Build fastbits: the Cython kernels, or a pure install.

Environment variables read at build time:

* ``FASTBITS_NO_EXTENSIONS=1``: build no extension (a pure-Python install).
* ``FASTBITS_REQUIRE_EXTENSIONS=1``: a failed compile is an error; without it
  fastbits falls back to the pure path with a warning.
* ``FASTBITS_DEBUG_BUILD=1``: ``-O0 -g3``, Cython bounds and wraparound
  checks on, for debuggers and sanitizers (add ``CFLAGS=-fsanitize=...``).
* ``FASTBITS_NO_THREADS=1``: build single-threaded kernels (no thread team).
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip() not in ("", "0")


NO_EXTENSIONS = _flag("FASTBITS_NO_EXTENSIONS")
REQUIRE_EXTENSIONS = _flag("FASTBITS_REQUIRE_EXTENSIONS")
DEBUG_BUILD = _flag("FASTBITS_DEBUG_BUILD")
NO_THREADS = _flag("FASTBITS_NO_THREADS")

if NO_EXTENSIONS and REQUIRE_EXTENSIONS:
    sys.exit("FASTBITS_NO_EXTENSIONS and FASTBITS_REQUIRE_EXTENSIONS contradict each other")


def _extensions() -> list[Extension]:
    if NO_EXTENSIONS:
        print("fastbits: FASTBITS_NO_EXTENSIONS is set, building the pure-Python package")
        return []
    import numpy
    from Cython.Build import cythonize

    threads = [] if NO_THREADS or sys.platform == "win32" else ["-pthread"]
    if DEBUG_BUILD:
        compile_args = ["-O0", "-g3"]
    else:
        compile_args = ["-O3"]
    extension = Extension(
        "fastbits._ops_c",
        ["fastbits/_ops_c.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("FB_NO_THREADS", "1")] * NO_THREADS + [
            ("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"),
            # The oldest numpy C API the module may run against: the memory-handler API
            # (PyDataMem_SetHandler) is 1.22's; fastbits requires numpy >= 1.24 anyway.
            ("NPY_TARGET_VERSION", "NPY_1_22_API_VERSION"),
        ],
        # An undeclared function (a numpy API hidden by the target version) must fail the
        # build, not produce a module that cannot be imported.
        extra_compile_args=compile_args + threads + ["-Werror=implicit-function-declaration"],
        extra_link_args=threads,
    )
    print(
        "fastbits: building the Cython kernels"
        f" ({'debug' if DEBUG_BUILD else 'release'},"
        f" threads {'off' if NO_THREADS else 'on'})"
    )
    return cythonize(
        [extension],
        compiler_directives={
            "language_level": 3,
            "boundscheck": DEBUG_BUILD,
            "wraparound": DEBUG_BUILD,
            "initializedcheck": DEBUG_BUILD,
            "embedsignature": True,
        },
    )


class OptionalBuildExt(build_ext):
    """Fall back to the pure path with a warning when the compile fails,
    unless FASTBITS_REQUIRE_EXTENSIONS is set."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # a missing compiler raises several kinds
            self._fail(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            self._fail(exc)

    def _fail(self, exc: Exception) -> None:
        if REQUIRE_EXTENSIONS:
            raise
        print(
            f"WARNING: fastbits: the Cython kernels failed to build ({exc}); installing "
            "the pure-Python path. Set FASTBITS_REQUIRE_EXTENSIONS=1 to make this an error.",
            file=sys.stderr,
        )


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
