"""Sphinx configuration of the olkit documentation site (``make docs``).

The site is Markdown (MyST) with numpydoc docstrings, an executed sphinx-gallery and the pydata theme. It
is built with ``-W --keep-going``: every warning, broken cross-reference included (``nitpicky``), fails the
build. Pages that must not drift from the code are generated at build time by the extensions in
``docs/_ext/``: the algorithm table (from :mod:`olkit.registry`), the learner API list and the benchmarks
page (from ``benchmarks/results/*.json``).
"""
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(ROOT / "src"))  # the checkout's olkit, also when it is not installed editable

os.environ.setdefault("MPLBACKEND", "Agg")  # gallery figures are rendered without a display

import olkit  # noqa: E402

project = "olkit"
author = "the olkit developers"
copyright = "the olkit developers"  # noqa: A001  (Sphinx's name)
version = release = olkit.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "olkit_docs",  # docs/_ext/olkit_docs.py: generated tables and pages
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "_templates",
    "Thumbs.db",
    ".DS_Store",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.json",
    "auto_examples/*.md5",
    "auto_examples/*.codeobj.json",
    "reproduction/*.notes.md",  # notes the reproduction pages include; not pages of their own
    "sg_execution_times.rst",
]

# ---- MyST --------------------------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True

# ---- API reference: autodoc + autosummary + numpydoc ----------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc Parameters sections say the types
add_module_names = False
numpydoc_show_class_members = False  # the class template lists the methods itself
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# numpydoc validation runs in the build and fails it (-W): every learner class documents exactly the
# parameters of its __init__ (PR01: a parameter not documented; PR02: a documented name that is no
# parameter). It is restricted to the learner classes, the objects whose docstrings are the parameter
# reference of the algorithms.
numpydoc_validation_checks = {"PR01", "PR02"}
numpydoc_validation_exclude = {r"^(?!olkit\.learners\.[\w.]+\.[A-Z]\w*$)"}

# ---- sphinx-gallery -----------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",  # execute every example, not only plot_*.py
    "ignore_pattern": r"(^|/)_",  # helper modules named _*.py are not examples
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "plot_gallery": "True",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "show_memory": False,
    "reset_modules": ("matplotlib",),
}

# ---- math: MathJax 3 served from the site itself (docs/_ext/olkit_docs.py copies it to _static/mathjax),
# so pages render their equations without any network access ---------------------------------------------
mathjax_path = "mathjax/tex-mml-chtml.js"

# ---- HTML ----------------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"olkit {release}"
html_static_path = ["_static"]
html_css_files = ["olkit.css"]
html_show_sourcelink = False
html_last_updated_fmt = None
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": {"**": ["page-toc"], "algorithms/index": []},  # the wide table gets the room
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    # no external resources: the site works offline and the browser check sees no network errors
    "icon_links": [],
}
html_favicon = "_static/olkit-icon.svg"  # also spares the browser a request for /favicon.ico
html_logo = "_static/olkit-icon.svg"
html_context = {"default_mode": "auto"}  # light or dark, as the reader's system prefers
html_sidebars = {"index": [], "benchmarks": [], "getting-started": []}

# ---- warnings ------------------------------------------------------------------------------------------
nitpicky = True
# Types of other projects named in numpydoc "Parameters"/"Returns" lines: there is no intersphinx (the build
# runs offline), so these names cannot resolve; they are ignored by name, never olkit's own.
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|sklearn|matplotlib|pandas|river|dask|joblib)(\..*)?"),
    (r"py:class", r"(array-like|array_like|ndarray|sparse matrix|matrix|callable|optional|default.*|None|"
                  r"int|float|bool|str|dict|list|tuple|object|path-like|Path|pathlib\.Path|.*-like)"),
]
suppress_warnings = []
