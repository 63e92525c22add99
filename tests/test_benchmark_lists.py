"""The benchmarks' learner lists are derived from the registry: every learner of a benchmarked family is
benchmarked or listed as deliberately excluded, with a reason (issue 23: the registry is the only list)."""

import sys
from pathlib import Path

import pytest

from olkit import registry

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def bench_modules():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import budget
        import linear

        yield linear, budget
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_every_linear_learner_is_benchmarked_or_excluded(bench_modules):
    linear, _ = bench_modules
    family = [n for n in registry.names() if linear.is_linear(registry.get(n))]
    assert "pa1" in family and "arow" in family and "scw1" in family and "duol" not in family
    benchmarked = set(linear.FIRST_ORDER) | set(linear.SECOND_ORDER)
    assert all(reason for reason in linear.EXCLUDED.values())
    assert sorted(family) == sorted(benchmarked | set(linear.EXCLUDED))
    assert not set(linear.FIRST_ORDER) & set(linear.SECOND_ORDER)
    jobs = {spec["algorithm"] for kind, spec in linear.jobs(quick=False) if kind == "linear"}
    assert jobs == benchmarked


def test_every_budget_learner_is_benchmarked_or_excluded(bench_modules):
    _, budget = bench_modules
    family = [n for n in registry.names() if budget.is_budget_family(registry.get(n))]
    assert set(registry.budgeted()) <= set(family) and "projectron" in family
    assert all(reason for reason in budget.EXCLUDED.values())
    assert sorted(family) == sorted(set(budget.LEARNERS) | set(budget.EXCLUDED))
    assert {spec["algorithm"] for spec in budget.jobs(quick=False)} == set(budget.LEARNERS)
    # the named selections are subsets of what runs; the unbudgeted ones have no B under their defaults
    assert set(budget.BOUND_TARGET) <= set(budget.LEARNERS) and set(budget.LONG) <= set(budget.LEARNERS)
    assert set(budget.UNBUDGETED) == set(budget.LEARNERS) - set(registry.budgeted())
