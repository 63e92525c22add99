"""The docstring examples of every olkit module (learners included) run as doctests.

Each module under ``src/olkit`` is imported and its doctests (module, class, function and method
docstrings, including learner docstrings built from shared templates) are run with ``doctest`` under
ELLIPSIS and NORMALIZE_WHITESPACE. A module whose examples load a catalog dataset that is not bundled in
the package is skipped when ``OLKIT_DATA`` is unset.
"""

import doctest
import importlib
import importlib.util
import os
import pkgutil
import re
from pathlib import Path

import pytest

import olkit
from olkit.data.catalog import CATALOG, DATA_ENV

_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
_LOAD = re.compile(r"""load_dataset\(\s*["']([^"']+)["']""")


def _module_names():
    """The olkit modules whose source holds an example (``>>>``; read, not imported, at collection)."""
    names = [olkit.__name__] if ">>>" in Path(olkit.__file__).read_text() else []
    for info in pkgutil.walk_packages(olkit.__path__, prefix=olkit.__name__ + "."):
        if info.name.endswith("__main__"):
            continue  # importing it runs the command line
        spec = importlib.util.find_spec(info.name)
        if spec.origin and ">>>" in Path(spec.origin).read_text(encoding="utf-8"):
            names.append(info.name)
    return sorted(names)


def _needs_data(tests):
    """Non-bundled catalog datasets the examples load (a file path is not a catalog name: ignored)."""
    wanted = {name for t in tests for ex in t.examples for name in _LOAD.findall(ex.source)}
    return sorted(name for name in wanted if name in CATALOG and not CATALOG[name].bundled)


@pytest.mark.parametrize("name", _module_names())
def test_doctests(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    tests = [t for t in finder.find(module, name) if t.examples]
    # A class's docstring is found once per module that defines it; the re-exports are skipped by
    # DocTestFinder already (it keeps objects whose __module__ is this module).
    if not tests:
        pytest.skip("no doctests")
    missing = _needs_data(tests)
    if missing and not os.environ.get(DATA_ENV):
        pytest.skip(f"needs {DATA_ENV} for {', '.join(missing)}")
    runner = doctest.DocTestRunner(optionflags=_FLAGS)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest example(s) failed in {name}"
