"""The parts of every learner's docstring that are written once (olkit.base.OnlineClassifier._complete_docstring):
``shuffle`` and ``random_state`` in the Parameters section, the line naming the specification page, and a
Parameters section that lists exactly the parameters of ``__init__`` (what the documentation build's
numpydoc validation checks, PR01/PR02); and the generated benchmarks page of the site."""
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

from olkit import registry
from olkit.base import FIT_ORDER_PARAMS, SPEC_PAGE, _normalised_docstring

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", registry.names())
def test_shared_parameters_and_specification_line(name):
    doc = registry.get(name).__doc__
    for param in FIT_ORDER_PARAMS:
        assert len(re.findall(rf"^\s*{param} : ", doc, re.MULTILINE)) == 1, f"{name}: {param} documented once"
    page = SPEC_PAGE.format(slug=name.replace("+", "p"))
    assert f"Specification: {page}." in doc
    assert page.startswith("docs/algorithms/") and "+" not in page


@pytest.mark.parametrize("name", registry.names())
def test_parameters_section_matches_init(name):
    docscrape = pytest.importorskip("numpydoc.docscrape")
    cls = registry.get(name)
    documented = []
    for param in docscrape.ClassDoc(cls, config={"show_class_members": False})["Parameters"]:
        documented += [p.strip() for p in param.name.split(",")]
    expected = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    assert sorted(documented) == sorted(expected)


def test_normalised_docstring_moves_prose_and_is_idempotent():
    doc = '''Summary.

    Parameters
    ----------
    a : int
        The a.

    Prose about the parameters, which is no parameter.
    It goes on.

    Examples
    --------
    >>> 1
    1
    '''
    once = _normalised_docstring(doc)
    assert once == _normalised_docstring(once)
    params = once[once.index("Parameters"): once.index("Notes")]
    assert "a : int" in params and "shuffle : bool" in params and "Prose" not in params
    assert once.index("Notes") < once.index("Prose") < once.index("Examples")


def test_benchmarks_page_renders_every_result_file():
    spec = importlib.util.spec_from_file_location("olkit_benchmarks", ROOT / "docs" / "_ext" / "olkit_benchmarks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = ROOT / "benchmarks" / "results"
    text = module.page(results)
    assert "layout is not rendered" not in text and "could not be read" not in text
    for path in results.glob("*.json"):
        if not path.stem.endswith("_quick"):
            assert f"`benchmarks/results/{path.name}`" in text
