"""Budgeted DUOL (docs/algorithms/duol-budget.md) against its literal per-round reference, and against ``duol``.

The reference (``tests/reference/duol_budget.py``) is written from the page: explicit kernel values, the SVs in
arrival order, the auxiliary search with its arrival-order tie rule, problem (1) by enumeration, each removal rule
as a formula, and the invariants (|S| ≤ B, cached margins equal recomputed ones, 0 ≤ γ_i ≤ C) asserted every
round. Streams: ``reference.budget.stream`` (small integer features, ~30 % duplicate rows, so exact ties of the
auxiliary search and of the removal keys), 70 rounds, budgets B = 2…10, dense and CSR.

Asserted: identical per-round mistake flags, scores to 1e-9, #SV and #updates, diagnostics, and the final model
(arrival stamps and coefficients); with B ≥ T the learner equals ``duol`` bit for bit; fed one example at a time
the budget holds and the cached margins F_i equal y_i f(x_i) of the stored model after every round; chunks equal
one pass.
"""

import functools

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from helpers import check_chunks_equal_one_pass, check_diagnostics, check_final_model, first_bad_round
from reference.budget import stream
from reference.duol_budget import run_reference
from reference.kernel_binary import random_stream

SIGMA = 1.5
SEEDS = 10

CONFIGS = {
    "B4": {"B": 4},
    "B2": {"B": 2},
    "B6-C0.5": {"B": 6, "C": 0.5},
    "B10-rho0.2": {"B": 10, "rho": 0.2},
    "B4-smallest": {"B": 4, "removal": "smallest"},
    "B6-smallest-C0.5": {"B": 6, "removal": "smallest", "C": 0.5},
    "B4-margin": {"B": 4, "removal": "margin"},
    "B5-dual": {"B": 5, "removal": "dual"},
    "B3-dual-C0.5": {"B": 3, "removal": "dual", "C": 0.5},
}


def make_stream(seed):
    return stream(300 + seed, K=2)


@functools.cache
def reference(cid, seed):
    X, y = make_stream(seed)
    return run_reference(X, y, sigma=SIGMA, **CONFIGS[cid])


def check_run(clf, res, ref, label=""):
    bad = np.flatnonzero(res.mistake_flags != ref.flags)
    assert bad.size == 0, (
        f"{label}first differing mistake flag at round {bad[0]}: scores olkit {res.scores[bad[0]]}, "
        f"reference {ref.scores[bad[0]]}"
    )
    t = first_bad_round(res.scores, ref.scores)
    assert t is None, f"{label}first differing score at round {t}: olkit {res.scores[t]}, reference {ref.scores[t]}"
    check_final_model(clf, ref, label)
    assert (res.n_sv, res.n_updates) == (ref.n_sv, ref.n_updates), label
    check_diagnostics(clf.diagnostics(), ref.diagnostics, label)


@pytest.mark.parametrize("seed", range(SEEDS))
@pytest.mark.parametrize("cid", list(CONFIGS))
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_matches_literal_reference(cid, seed, sparse):
    X, y = make_stream(seed)
    ref = reference(cid, seed)
    clf = olkit.make("duol-budget", sigma=SIGMA, **CONFIGS[cid])
    res = olkit.evaluate_online(clf, sp.csr_matrix(X) if sparse else X, y)
    check_run(clf, res, ref, f"{cid} seed {seed}: ")
    assert clf.support_.n <= CONFIGS[cid]["B"]


def test_streams_exercise_the_cases():
    """The streams reach removals, exact ties in the auxiliary search, and removals that had to skip the
    auxiliary SV (the oldest was the one just updated)."""
    for cid, params in CONFIGS.items():
        ev = {k: sum(reference(cid, s).events[k] for s in range(SEEDS)) for k in ("removals", "ties", "double")}
        assert ev["removals"] > 50 and ev["ties"] > 5 and ev["double"] > 50, (cid, ev)
        assert max(reference(cid, s).max_sv for s in range(SEEDS)) == params["B"], cid
    assert sum(reference(c, s).events["aux_kept"] for c in ("B4", "B2") for s in range(SEEDS)) > 0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_equals_duol_without_removals(seed, sparse):
    """B ≥ T: no removal, the learner is ``duol`` bit for bit (scores, mistakes, model, diagnostics)."""
    if seed < 3:
        X, y = make_stream(seed)
        X = sp.csr_matrix(X) if sparse else X
    else:
        X, y, _ = random_stream(seed, 150, 6, sparse=sparse)
    for params in ({}, {"C": 0.5, "rho": 0.2}):
        a = olkit.make("duol", sigma=SIGMA, **params)
        b = olkit.make("duol-budget", sigma=SIGMA, B=len(y), **params)
        ra, rb = olkit.evaluate_online(a, X, y), olkit.evaluate_online(b, X, y)
        np.testing.assert_array_equal(np.asarray(ra.scores), np.asarray(rb.scores))
        np.testing.assert_array_equal(ra.mistake_flags, rb.mistake_flags)
        assert (ra.n_sv, ra.n_updates) == (rb.n_sv, rb.n_updates)
        np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
        da, db = a.diagnostics(), b.diagnostics()
        assert db.pop("removals") == 0 and da == db


@pytest.mark.parametrize("cid", ["B4", "B4-smallest", "B4-margin", "B5-dual"])
def test_one_example_at_a_time(cid):
    """partial_fit one example at a time: the scores before each round equal the reference's, |S| ≤ B after
    every round, and the cached margins F_i equal y_i f(x_i) computed from the stored model."""
    params = CONFIGS[cid]
    X, y = make_stream(3)
    ref = reference(cid, 3)
    clf = olkit.make("duol-budget", sigma=SIGMA, **params)
    for t in range(len(y)):
        if t > 0:
            got = float(clf.decision_function(X[t : t + 1])[0])
            assert abs(got - ref.scores[t]) <= 1e-9 * (1 + abs(ref.scores[t])), f"round {t}"
        clf.partial_fit(X[t : t + 1], y[t : t + 1], classes=[-1, 1])
        s = clf.support_
        assert s.n <= params["B"], f"round {t}: |S| = {s.n}"
        if s.n:
            exact = s.y[: s.n] * clf.decision_function(s.vectors())
            np.testing.assert_allclose(s.F[: s.n], exact, rtol=1e-9, atol=1e-9, err_msg=f"round {t}")
    assert clf.n_mistakes_ == int(ref.flags.sum()) and clf.n_updates_ == ref.n_updates


@pytest.mark.parametrize("cid", ["B4", "B6-smallest-C0.5", "B5-dual"])
def test_chunks_equal_one_pass(cid):
    X, y = make_stream(7)
    one_clf = olkit.make("duol-budget", sigma=SIGMA, **CONFIGS[cid])
    one = olkit.evaluate_online(one_clf, X, y)
    clf = olkit.make("duol-budget", sigma=SIGMA, **CONFIGS[cid])
    clf.partial_fit(X[:9], y[:9], classes=[-1, 1])
    check_chunks_equal_one_pass(clf, one_clf, one, X, y)


def test_multiclass_refused():
    """Binary only for now (docs/algorithms/duol-budget.md#multiclass): multiclass data raise a ValueError."""
    X, y = stream(1, K=3)
    with pytest.raises(ValueError):
        olkit.make("duol-budget", B=4).fit(X, y)
