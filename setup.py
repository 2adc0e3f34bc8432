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


# The compiled modules, each with the C it runs (src/fastbits/_c/).  The runtime owns all C state
# (the settings, the thread team, the output pool) and the engine that uses it; the operator
# and packing modules reach it through Cython's cimport (_runtime.pxd), and share their call
# plumbing (_common).  The loops are compiled once, into the runtime; the public Cython API
# (kernels) reaches them through it too.
MODULES = {
    "fastbits._runtime": [
        "src/fastbits/_runtime.pyx", "src/fastbits/_c/config.c", "src/fastbits/_c/team.c", "src/fastbits/_c/pool.c",
        "src/fastbits/_c/engine.c", "src/fastbits/_c/loops.c", "src/fastbits/_c/bytes.c", "src/fastbits/_c/convert.c",
        "src/fastbits/_c/quant.c", "src/fastbits/_c/cpu.c",
    ],
    "fastbits._common": ["src/fastbits/_common.pyx", "src/fastbits/_c/entries.c", "src/fastbits/_c/layout.c"],
    "fastbits._ops_c": ["src/fastbits/_ops_c.pyx", "src/fastbits/_c/layout.c"],
    "fastbits._cast_c": ["src/fastbits/_cast_c.pyx"],
    "fastbits._quant_c": ["src/fastbits/_quant_c.pyx", "src/fastbits/_c/imatmul.c", "src/fastbits/_c/reduce.c",
                           "src/fastbits/_c/cpu.c"],
    "fastbits._packing_c": ["src/fastbits/_packing_c.pyx", "src/fastbits/_c/pack.c", "src/fastbits/_c/cpu.c"],
    "fastbits.kernels": ["src/fastbits/kernels.pyx"],
}


def _extensions() -> list[Extension]:
    if NO_EXTENSIONS:
        print("fastbits: FASTBITS_NO_EXTENSIONS is set, building the pure-Python package")
        return []
    import numpy
    from Cython.Build import cythonize

    macros = [
        ("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"),
        # The oldest numpy C API the modules may run against: the memory-handler API
        # (PyDataMem_SetHandler) is 1.22's; fastbits requires numpy >= 1.24 anyway.
        ("NPY_TARGET_VERSION", "NPY_1_22_API_VERSION"),
    ]
    if NO_THREADS:
        macros.append(("FB_NO_THREADS", "1"))
    extensions = [
        Extension(name, sources, include_dirs=[numpy.get_include(), "src/fastbits"], define_macros=macros)
        for name, sources in MODULES.items()
    ]
    print(
        "fastbits: building the Cython kernels"
        f" ({'debug' if DEBUG_BUILD else 'release'},"
        f" threads {'off' if NO_THREADS else 'on'})"
    )
    return cythonize(
        extensions,
        compiler_directives={
            "language_level": 3,
            "boundscheck": DEBUG_BUILD,
            "wraparound": DEBUG_BUILD,
            "initializedcheck": DEBUG_BUILD,
            # Safe without the GIL (docs/threads.md): a free-threaded Python keeps it off.
            "freethreading_compatible": True,
        },
    )


def _compiler_flags(compiler_type: str) -> tuple[list[str], list[str]]:
    """Compile and link flags for a compiler family: gcc/clang ("unix") or MSVC."""
    if compiler_type == "msvc":
        return (["/Od", "/Zi"] if DEBUG_BUILD else ["/O2"]), []
    threads = [] if NO_THREADS else ["-pthread"]
    # An undeclared function (a numpy API hidden by the target version) must fail the build,
    # not produce a module that cannot be imported.
    # Hidden visibility: calls between fastbits' own C files go direct, not through the PLT; the
    # module init and the FB_EXPORT symbols (threadpoolctl's) stay visible.
    common = ["-Werror=implicit-function-declaration", "-fvisibility=hidden", *threads]
    if DEBUG_BUILD:
        return ["-O0", "-g3", *common], threads
    # Release: optimized and without debug information; on Linux the linker also drops the
    # static symbol table (the dynamic symbols threadpoolctl looks up stay).
    strip = ["-s"] if sys.platform.startswith("linux") else []
    return ["-O3", "-g0", *common], [*threads, *strip]


class OptionalBuildExt(build_ext):
    """Flags for the compiler in use; fall back to the pure path with a warning when the
    compile fails, unless FASTBITS_REQUIRE_EXTENSIONS is set."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:  # the modules compile independently: one job per core
            self.parallel = os.cpu_count() or 1

    def build_extensions(self) -> None:
        compile_args, link_args = _compiler_flags(self.compiler.compiler_type)
        for ext in self.extensions:
            ext.extra_compile_args = compile_args + ext.extra_compile_args
            ext.extra_link_args = link_args + ext.extra_link_args
        super().build_extensions()

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
