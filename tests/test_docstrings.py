"""Every learner's docstring: scikit-learn's rule that every ``__init__`` parameter is documented, and the parts
written once (olkit.base.OnlineClassifier._complete_docstring): ``shuffle`` and ``random_state`` in the Parameters
section and the line naming the specification page.

The Parameters section lists exactly the parameters of ``__init__`` (what the documentation build's numpydoc
validation checks, PR01/PR02), read by olkit's own parser (:func:`olkit.spec.parameter_meanings`: the meanings
``olkit list NAME`` shows; it runs without the docs extra) and, when numpydoc is installed, by numpydoc's.
"""

import inspect
import re

import pytest

from olkit import registry
from olkit.base import FIT_ORDER_PARAMS, SPEC_PAGE, _normalised_docstring
from olkit.spec import parameter_meanings


@pytest.mark.parametrize("name", registry.names())
def test_shared_parameters_and_specification_line(name):
    doc = registry.get(name).__doc__
    for param in FIT_ORDER_PARAMS:
        assert len(re.findall(rf"^\s*{param} : ", doc, re.MULTILINE)) == 1, f"{name}: {param} documented once"
    page = SPEC_PAGE.format(slug=name.replace("+", "p"))
    assert f"Specification: {page}." in doc
    assert page.startswith("docs/algorithms/") and "+" not in page


@pytest.mark.parametrize("name", registry.names())
def test_every_init_parameter_is_documented(name):
    """scikit-learn's rule (sklearn.utils._testing.check_docstring_parameters): no parameter of ``__init__`` is
    missing from the Parameters section, none documented is not one, and every entry says something."""
    cls = registry.get(name)
    meanings = parameter_meanings(cls.__doc__)
    expected = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    missing = [p for p in expected if p not in meanings]
    unknown = [p for p in meanings if p not in expected]
    assert not missing, f"{name}: __init__ parameters not in the docstring's Parameters section: {missing}"
    assert not unknown, f"{name}: the Parameters section documents what __init__ does not take: {unknown}"
    assert all(meanings[p].strip() for p in expected), f"{name}: an empty Parameters entry: {meanings}"


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
    doc = """Summary.

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
    """
    once = _normalised_docstring(doc)
    assert once == _normalised_docstring(once)
    params = once[once.index("Parameters") : once.index("Notes")]
    assert "a : int" in params and "shuffle : bool" in params and "Prose" not in params
    assert once.index("Notes") < once.index("Prose") < once.index("Examples")
