"""The registry is the only list of algorithms (issue 23, item 3).

Every other list is derived from :data:`olkit.spec.SPECS`: the learner modules are found by
:mod:`olkit.learners` (every module of the family subpackages), the listing order is the specs' ``position``,
the options of the property tests and of the fuzz are the specs' sweeps. These tests fail when a learner is
missing from a derived list, or when a spec names something its learner does not have.
"""

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest

import olkit
from fuzzing.options import sample_params, sample_run
from olkit import registry
from olkit.spec import FAMILIES, SPECS

LEARNERS = Path(olkit.__file__).resolve().parent / "learners"


def _registered_in_source():
    """{name: module path} of every ``@register("name", ...)`` in the learner modules' source."""
    found = {}
    for path in sorted(LEARNERS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                for deco in node.decorator_list:
                    if isinstance(deco, ast.Call) and getattr(deco.func, "id", None) == "register":
                        found[deco.args[0].value] = path
    return found


def test_every_learner_module_is_registered():
    """Importing olkit.learners registers every ``@register`` of its modules (no import list to extend)."""
    in_source = _registered_in_source()
    assert len(in_source) >= 30
    assert set(in_source) == set(registry.names())
    for name, path in in_source.items():
        assert Path(inspect.getfile(registry.get(name))) == path


def test_family_of_every_learner():
    """A learner's family is the subpackage of olkit.learners its module is in."""
    for name in registry.names():
        spec = registry.spec(name)
        assert spec.family in FAMILIES, (name, spec.cls.__module__)
        assert spec.cls.__module__.startswith(f"olkit.learners.{spec.family}.")
    assert {registry.spec(n).family for n in registry.names()} == set(FAMILIES)


def test_listing_order_is_the_positions():
    """``olkit list`` and registry.names() list by position (distinct for the built-in learners), whatever the
    order in which the modules were imported; SPECS is kept in that order."""
    names = registry.names()
    positions = [registry.spec(n).position for n in names]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    assert list(SPECS) == names
    assert names[:4] == ["perceptron", "pa", "pa1", "pa2"] and names[-2:] == ["nherd", "narow"]


@pytest.mark.parametrize("name", registry.names())
def test_sweep_names_only_parameters_of_the_learner(name):
    """The sweep's grid, small defaults, cases and compat options name parameters of the learner, with
    values it accepts; its compat entries name compat modes it has."""
    spec = registry.spec(name)
    params = set(spec.defaults)
    sweep = spec.sweep
    for where, keys in (
        ("grid", sweep.grid),
        ("small", sweep.small),
        ("length_dependent", sweep.length_dependent),
        *((f"case {c}", c) for c in sweep.cases),
        *((f"compat {m}", o) for m, o in sweep.compat.items()),
    ):
        assert set(keys) <= params, f"{name}: sweep {where} names {sorted(set(keys) - params)}, not parameters"
    for key, values in sweep.grid.items():
        assert values, f"{name}: empty grid for {key}"
        for value in values:
            olkit.make(name, **{**sweep.small, key: value})
    assert set(sweep.compat) <= set(spec.cls(**sweep.small).compat_choices[1:])
    for mode, options in sweep.compat.items():
        olkit.make(name, **{**sweep.small, **options, "compat": mode})
    for case in sweep.cases:
        olkit.make(name, **{**sweep.small, **case})


def test_fuzz_runs_every_learner():
    """The fuzz's options come from the registry: a round-robin session reaches every algorithm, and each
    is sampled with options that olkit.make accepts."""
    names = registry.names()
    cases = [sample_run(0, i, names, round_robin=True) for i in range(len(names))]
    assert [c["algorithm"] for c in cases] == names
    rng = np.random.default_rng(0)
    for name in names:
        for _ in range(5):
            params = sample_params(name, rng, 0, 3)
            assert set(params) <= set(registry.defaults(name)), (name, params)


def test_property_tests_cover_every_learner():
    """The property tests' configurations (tests/test_properties.py CONFIGS) derive from the registry."""
    import test_properties

    assert [n for n in dict.fromkeys(name for name, _ in test_properties.CONFIGS)] == registry.names()
