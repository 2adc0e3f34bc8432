"""Sphinx configuration of fastbits' documentation.

Build: ``sphinx-build -b html docs docs/_build/html`` with the ``docs`` extra installed (README,
"Documentation"; tox: ``./dev test -e docs``, warnings as errors). The pages are Markdown (MyST);
the API reference comes from the numpydoc docstrings.
"""

from __future__ import annotations

import os
import pathlib
import sys

# autodoc documents the pure-Python functions: their docstrings are the ones help() shows on
# either path (the compiled operators carry the same text), and they have real signatures.
os.environ["FASTBITS_PURE_PYTHON"] = "1"
# The fastbits documented is the checkout's, on that path: its kernels need not be built, and
# an edited docstring shows at the next build without a reinstall.
DOCS = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS.parent / "src"), str(DOCS / "_ext")]

import fastbits  # noqa: E402

project = "fastbits"
author = "the fastbits developers"
copyright = "the fastbits developers"
release = fastbits.__version__
version = release

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "generated_pages",
]

# The pages are Markdown; the API reference is reStructuredText, the language of autodoc.
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
# _generated/ holds what generated_pages writes; the pages include it.
exclude_patterns = ["_build", "_generated", "_ext", "Thumbs.db", ".DS_Store"]
myst_heading_anchors = 3
# Quotes stay as typed: error messages are quoted exactly.
smartquotes = False

autodoc_typehints = "none"
autodoc_member_order = "bysource"
autosummary_generate = False
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "pydata_sphinx_theme"
html_title = f"fastbits {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
# The pages are one flat list, in the top bar: no left sidebar, so tables and the chart get the width.
html_sidebars = {"**": []}
html_static_path: list[str] = []
