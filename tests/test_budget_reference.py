"""Budgeted kernel learners against a literal per-round reference (docs/algorithms/avp.md … bogdpp.md,
lifted by docs/algorithms/multiclass.md#budgeted-learners).

The reference (``tests/reference/budget.py``) is written straight from the specification: explicit kernel
evaluations, the coefficient row A_i of every SV kept in arrival order, the halving / projection / removal
steps as formulas (Θ* by a dense solve, K_S⁻¹ by the block recursion, SplitMix64 draws), and the invariants
of docs/algorithms/budget-family.md#invariants asserted inside its loop every round.

Streams: small integer features (exact ‖x − z‖²), ~30 % duplicate rows, 70 rounds; binary (labels ±1) and
multiclass (3–5 classes); dense and CSR. Budgets are small (B = 3…10) so that removals, halvings, projections
and clips happen many times per stream. Every main configuration runs on 10 seeds × {binary, multiclass} ×
{dense, CSR}, the non-default ones on 5 seeds. Asserted: per-round mistake flags identical, #SV and #updates
equal, per-round scores to 1e-9, ``diagnostics()`` equal (floats to 1e-9), and the final model (SV arrival
stamps and rows) equal to 1e-9.
"""

import functools
import math

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from helpers import check_chunks_equal_one_pass, check_diagnostics, check_final_model, first_bad_round, model_norm2
from olkit.learners.kernel.support_set import GSYNC, HAS_GRAM
from reference.budget import run_reference, stream

SIGMA = 1.5
N_MAIN, N_EXTRA = 10, 5

# (test id, olkit name, params)
MAIN = [
    ("avp", "avp", {}),
    ("ahpatron-B4", "ahpatron", {"B": 4}),
    ("ahpatron-B6", "ahpatron", {"B": 6}),
    ("projectron", "projectron", {}),
    ("projectron++", "projectron++", {}),
    ("forgetron-B4", "forgetron", {"B": 4}),
    ("rbp-B4", "rbp", {"B": 4}),
    ("bogd-B4", "bogd", {"B": 4}),
    ("bogd++-B4", "bogd++", {"B": 4}),
]
EXTRA = [
    ("avp-U2", "avp", {"U": 2.0}),
    ("avp-lam0.3-eps0.5", "avp", {"lam": 0.3, "epsilon": 0.5}),
    ("ahpatron-B10-eta0.1-eps0.8", "ahpatron", {"B": 10, "eta": 0.1, "epsilon": 0.8}),
    ("ahpatron-B4-U0.5", "ahpatron", {"B": 4, "U": 0.5}),
    ("ahpatron-B6-lam0.3", "ahpatron", {"B": 6, "lam": 0.3, "U": 3.0}),
    ("projectron-eta0.3-sq", "projectron", {"eta": 0.3, "threshold_on_squared": True}),
    ("projectron-eta0.1", "projectron", {"eta": 0.1}),
    ("projectron++-paper", "projectron++", {"margin_rule": "paper"}),
    ("projectron++-eta0.3-sq", "projectron++", {"eta": 0.3, "threshold_on_squared": True}),
    ("projectron++-paper-eta0.3", "projectron++", {"eta": 0.3, "margin_rule": "paper"}),
    ("forgetron-B5", "forgetron", {"B": 5}),
    ("forgetron-B10", "forgetron", {"B": 10}),
    ("rbp-B6-seed3", "rbp", {"B": 6, "seed": 3}),
    ("rbp-B10", "rbp", {"B": 10}),
    ("bogd-B6-g0.6-l0.01", "bogd", {"B": 6, "gamma": 0.6, "lam": 0.01}),
    ("bogd-B10-seed5-eta0.2", "bogd", {"B": 10, "seed": 5, "eta": 0.2}),
    ("bogd++-B3", "bogd++", {"B": 3}),
    ("bogd++-B6-g0.6-l0.01", "bogd++", {"B": 6, "gamma": 0.6, "lam": 0.01}),
    ("bogd++-B10-seed5-eta0.2", "bogd++", {"B": 10, "seed": 5, "eta": 0.2}),
    ("bogd++-B6-lam1", "bogd++", {"B": 6, "lam": 1.0}),  # p clamped on most budget rounds
    ("bogd++-B4-eta1-lam0.2", "bogd++", {"B": 4, "eta": 1.0, "lam": 0.2}),  # p clamped sometimes, and clips
]
CONFIGS = {c[0]: c for c in MAIN + EXTRA}
BUDGETED = {"ahpatron", "forgetron", "rbp", "bogd", "bogd++"}


def make_stream(kind, seed):
    """(X, y, K): binary (K=None, labels ±1) or multiclass (3–5 classes)."""
    if kind == "bin":
        X, y = stream(200 + seed, K=2)
        return X, y, None
    K = 3 + seed % 3
    X, y = stream(seed, K=K)
    return X, y, K


@functools.cache
def reference(cid, kind, seed):
    _, name, params = CONFIGS[cid]
    X, y, K = make_stream(kind, seed)
    return run_reference(name, X, y, sigma=SIGMA, K=K, **params)


def check_run(clf, res, ref, label=""):
    """Flags, scores, the final model, #SV / #updates and diagnostics() against the reference."""
    bad = np.flatnonzero(res.mistake_flags != ref.flags)
    assert bad.size == 0, (
        f"{label}first differing mistake flag at round {bad[0]}: olkit {res.mistake_flags[bad[0]]}, "
        f"reference {ref.flags[bad[0]]}; scores olkit {res.scores[bad[0]]} reference {ref.scores[bad[0]]}"
    )
    scores = np.asarray(res.scores)
    assert scores.reshape(len(scores), -1).shape == ref.scores.reshape(len(ref.scores), -1).shape
    t = first_bad_round(scores, ref.scores)
    assert t is None, f"{label}first differing score at round {t}: olkit {scores[t]}, reference {ref.scores[t]}"
    check_final_model(clf, ref, label)
    if (res.n_sv, res.n_updates) != (ref.n_sv, ref.n_updates):
        s = clf.support_
        mx = np.abs(np.asarray(s.coef[: s.n], float)).max(axis=1)
        residue = sorted(int(s.added[i]) for i in range(s.n) if 0 < mx[i] <= 1e-12)
        pytest.fail(
            f"{label}olkit (#SV, #updates) = {(res.n_sv, res.n_updates)}, reference {(ref.n_sv, ref.n_updates)}; "
            f"olkit rows with 0 < max|A_i| <= 1e-12 (arrival {residue}); reference rows exactly 0 (arrival "
            f"{[p for p, a in zip(ref.pts, ref.rows) if not np.any(a)]}); diagnostics olkit {clf.diagnostics()} "
            f"reference {ref.diagnostics}"
        )
    check_diagnostics(clf.diagnostics(), ref.diagnostics, label)


PARAMS = [(cid, seed) for cid, *_ in MAIN for seed in range(N_MAIN)] + [
    (cid, seed) for cid, *_ in EXTRA for seed in range(N_EXTRA)
]


@pytest.mark.parametrize("cid,seed", PARAMS, ids=[f"{c}-{s}" for c, s in PARAMS])
@pytest.mark.parametrize("kind", ["bin", "mc"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_budget_matches_literal_reference(cid, seed, kind, sparse):
    _, name, params = CONFIGS[cid]
    X, y, _ = make_stream(kind, seed)
    ref = reference(cid, kind, seed)
    clf = olkit.make(name, sigma=SIGMA, **params)
    res = olkit.evaluate_online(clf, sp.csr_matrix(X) if sparse else X, y)
    check_run(clf, res, ref)
    if name in BUDGETED:
        assert clf.support_.n <= params["B"]


# ---------------------------------------------------------------------------------------------------------
# One example at a time, chunks, invariants of the fast code
# ---------------------------------------------------------------------------------------------------------
ROUND_CONFIGS = [
    "avp-U2",
    "ahpatron-B4",
    "ahpatron-B10-eta0.1-eps0.8",
    "projectron++",
    "forgetron-B4",
    "rbp-B4",
    "bogd-B4",
    "bogd++-B4-eta1-lam0.2",
]


@pytest.mark.parametrize("kind", ["bin", "mc"])
@pytest.mark.parametrize("cid", ROUND_CONFIGS)
def test_one_example_at_a_time(cid, kind):
    """partial_fit one example at a time: scores before each round and mistakes equal the reference, the
    budget holds after every round, and AVP/Ahpatron's tracked norm (diagnostics()["norm"]) equals
    tr(AᵀK_S A) of the stored model after every round."""
    _, name, params = CONFIGS[cid]
    seed = 3
    X, y, K = make_stream(kind, seed)
    ref = reference(cid, kind, seed)
    classes = [-1, 1] if K is None else np.arange(K)
    clf = olkit.make(name, sigma=SIGMA, **params)
    flags = []
    prev = {}
    for t in range(len(y)):
        if t > 0:
            got = np.asarray(clf.decision_function(X[t : t + 1]), float).ravel()
            np.testing.assert_allclose(got, np.ravel(ref.scores[t]), rtol=1e-9, atol=1e-9, err_msg=f"round {t}")
        before = clf.n_mistakes_ if t > 0 else 0
        clf.partial_fit(X[t : t + 1], y[t : t + 1], classes=classes)
        flags.append(clf.n_mistakes_ - before)
        if name in BUDGETED:
            assert clf.support_.n <= params["B"], f"round {t}: |S| = {clf.support_.n}"
        diag = clf.diagnostics()
        s = clf.support_
        coef = np.asarray(s.coef[: s.n], float)
        if K is not None:  # docs/algorithms/multiclass.md#budgeted-learners: rows built from H's sum to zero
            assert np.all(np.abs(coef.sum(axis=1)) <= 1e-9 * np.maximum(1.0, np.abs(coef).max(axis=1))), f"round {t}"
        if name == "ahpatron" and diag["halvings"] > prev.get("halvings", 0):
            assert s.n == params["B"] // 2 + 1, f"round {t}: |S| = {s.n} after a halving"
        if name == "forgetron":
            assert diag["Q"] <= 15 * diag["M"] / 32 + 1e-9 and 0 < diag["phi_min"] <= 1, f"round {t}: {diag}"
            if clf.compat == "none":  # the cached sums F_i (the oldest SV's margin) against a recomputation
                np.testing.assert_allclose(s.F[: s.n], clf._later_sums(), rtol=1e-12, atol=1e-12, err_msg=f"round {t}")
        if name in ("bogd", "bogd++") and diag["removals"] > prev.get("removals", 0):
            bound = params.get("eta", 0.5) * params.get("gamma", 1.0) * (1 + 1e-12)
            newest = int(np.argmax(np.asarray(s.added[: s.n])))
            kept = np.delete(coef, newest, axis=0)  # the new row: clipped by BOGD, appended after the clip by BOGD++
            assert np.abs(kept).max() <= bound and (name == "bogd++" or np.abs(coef).max() <= bound), f"round {t}"
        prev = diag
        if name in ("avp", "ahpatron"):
            tracked = diag["norm"] ** 2
            exact = model_norm2(clf, SIGMA)
            assert abs(tracked - exact) <= 1e-9 * max(1.0, exact), f"round {t}: tracked {tracked}, tr(AᵀKA) {exact}"
            U = clf.resolved_params()["U"]
            assert math.sqrt(tracked) <= U * (1 + 1e-12)
    bad = np.flatnonzero(np.array(flags) != ref.flags)
    assert bad.size == 0, f"first differing round {bad[0]}"
    assert clf.n_updates_ == ref.n_updates


@pytest.mark.parametrize("kind", ["bin", "mc"])
@pytest.mark.parametrize("cid", ROUND_CONFIGS)
def test_chunks_equal_one_pass(cid, kind):
    """A stream fed in chunks (partial_fit, then evaluate_online(reset=False)) gives the one-pass run."""
    _, name, params = CONFIGS[cid]
    X, y, K = make_stream(kind, 7)
    classes = [-1, 1] if K is None else np.arange(K)
    one_clf = olkit.make(name, sigma=SIGMA, **params)
    one = olkit.evaluate_online(one_clf, X, y)
    clf = olkit.make(name, sigma=SIGMA, **params)
    clf.partial_fit(X[:9], y[:9], classes=classes)
    check_chunks_equal_one_pass(clf, one_clf, one, X, y)


# ---------------------------------------------------------------------------------------------------------
# The streams reach the cases
# ---------------------------------------------------------------------------------------------------------
def _events(cid):
    n = N_MAIN if cid in {c[0] for c in MAIN} else N_EXTRA
    tot = {}
    for kind in ("bin", "mc"):
        for seed in range(n):
            for key, v in reference(cid, kind, seed).events.items():
                tot[(kind, key)] = tot.get((kind, key), 0) + int(v)
    return tot


def test_streams_exercise_the_cases():
    for kind in ("bin", "mc"):
        for cid in ("ahpatron-B4", "ahpatron-B6", "ahpatron-B10-eta0.1-eps0.8", "ahpatron-B4-U0.5"):
            ev = _events(cid)
            assert ev[(kind, "halvings")] > 20 and ev[(kind, "n_T")] > 0, (cid, kind, ev)
        assert _events("ahpatron-B4-U0.5")[(kind, "scaled_to_U")] > 20
        assert _events("avp-U2")[(kind, "scaled_to_U")] > 20
        for cid in ("projectron", "projectron-eta0.3-sq", "projectron++", "projectron++-paper"):
            ev = _events(cid)
            assert ev[(kind, "projections")] > 10 and ev[(kind, "additions")] > 10, (cid, kind, ev)
        for cid in ("projectron++", "projectron++-paper", "projectron++-eta0.3-sq"):
            ev = _events(cid)
            assert ev[(kind, "margin_updates")] > 10 and ev[(kind, "margin_rejected")] > 10, (cid, kind, ev)
        for cid in ("forgetron-B4", "forgetron-B5", "forgetron-B10"):
            ev = _events(cid)
            assert ev[(kind, "phi<1")] > 10 and ev[(kind, "removals")] > ev[(kind, "phi<1")], (cid, kind, ev)
        for cid in ("rbp-B4", "bogd-B4", "bogd++-B4"):
            assert _events(cid)[(kind, "removals")] > 50, cid
        for cid in ("bogd-B4", "bogd-B6-g0.6-l0.01", "bogd++-B4", "bogd++-B6-g0.6-l0.01"):
            assert _events(cid)[(kind, "clips")] > 50, cid
        # the p-clamping guard (docs/algorithms/bogdpp.md#settled-questions), with γ = 1 (where BOGD's and BOGD++'s clip
        # orders agree) and with γ < 1
        assert _events("bogd++-B6-lam1")[(kind, "p_clamped")] > 50
        ev = _events("bogd++-B4-eta1-lam0.2")
        assert ev[(kind, "p_clamped")] > 0 and ev[(kind, "clips")] > 50, ev
        assert _events("bogd++-B6-g0.6-l0.01")[(kind, "p_clamped")] > 50
    # every budgeted configuration fills its budget
    for cid, name, params in MAIN + EXTRA:
        if name in BUDGETED:
            assert max(reference(cid, "mc", s).max_sv for s in range(N_EXTRA)) == params["B"], cid


# ---------------------------------------------------------------------------------------------------------
# Parameter validation beyond tests/test_param_validation.py, which derives bad values from every declared range
# (B < 2, ε ∉ (0, 1), η < 0, U ≤ 0, λ ≤ 0, γ ≤ 0, … are covered there for every learner of this file)
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("B", [3, 5, 7, 601])
def test_ahpatron_rejects_odd_budget(B):
    """docs/algorithms/ahpatron.md#parameters: the budget is even (the halving keeps B/2); odd B is rejected by
    make/fit and by set_params + fit."""
    X, y, _ = make_stream("bin", 0)
    with pytest.raises(ValueError, match="B"):
        olkit.make("ahpatron", B=B).fit(X, y)
    with pytest.raises(ValueError, match="B"):
        olkit.make("ahpatron").set_params(B=B).fit(X, y)


@pytest.mark.parametrize("rule", ["dogma", "paper"])
@pytest.mark.parametrize("kind", ["bin", "mc"])
def test_projectron_pp_eta_zero_rejected_or_runs(rule, kind):
    """η = 0 passes validation (docs/algorithms/projectron.md#parameters: η ≥ 0) but Projectron++'s margin tests
    divide by η (δ²/η, 2δ/η): it must either be rejected with a ValueError naming eta, or run (no ZeroDivisionError,
    finite scores)."""
    X, y, _ = make_stream(kind, 1)
    try:
        res = olkit.evaluate_online(olkit.make("projectron++", sigma=SIGMA, eta=0.0, margin_rule=rule), X, y)
    except ValueError as err:
        assert "eta" in str(err)
        return
    assert np.all(np.isfinite(res.scores))


@pytest.mark.parametrize("kind", ["bin", "mc"])
@pytest.mark.parametrize("name", ["ahpatron", "forgetron", "rbp", "bogd", "bogd++"])
def test_budget_two(name, kind):
    """B = 2, the smallest budget (B − 1 = 1 other SV; Ahpatron keeps one SV at a halving)."""
    X, y, K = make_stream(kind, 4)
    ref = run_reference(name, X, y, sigma=SIGMA, K=K, B=2)
    clf = olkit.make(name, sigma=SIGMA, B=2)
    res = olkit.evaluate_online(clf, X, y)
    check_run(clf, res, ref)
    assert clf.support_.n <= 2


@pytest.mark.parametrize("kind", ["bin", "mc"])
def test_forgetron_file_without_cached_sums(kind, tmp_path):
    """A Forgetron model file written before the default rule cached its sums F_i (a Gram cache, F = 0):
    loading computes the sums and drops the cache, and learning continues as with the cached sums."""
    X, y, K = make_stream(kind, 1)
    h = len(y) // 2
    clf = olkit.make("forgetron", B=6, sigma=SIGMA).fit(X[:h], y[:h])
    s = clf.support_
    assert not s.use_gram and s.n == 6
    sums = s.F[: s.n].copy()
    path = tmp_path / "new.npz"
    olkit.save(clf, path)
    old = olkit.load(path)
    o = old.support_  # as the earlier olkit kept it: a mirrored Gram cache and no sums
    o.use_gram, o.meta[HAS_GRAM], o.meta[GSYNC] = True, 1, o.n
    o.gram = np.zeros((o.capacity, o.capacity))
    o.gram[: o.n, : o.n] = o.kernel(o.vectors(), o.norm2[: o.n], old._kernel_spec().params())
    o.F[: o.n] = 0.0
    olkit.save(old, tmp_path / "old.npz")
    loaded = olkit.load(tmp_path / "old.npz")
    assert not loaded.support_.use_gram and loaded.support_.gram.size == 0
    np.testing.assert_allclose(loaded.support_.F[: s.n], sums, rtol=1e-12, atol=1e-12)
    a, b = clf.partial_fit(X[h:], y[h:]), loaded.partial_fit(X[h:], y[h:])
    assert a.n_mistakes_ == b.n_mistakes_
    np.testing.assert_allclose(a.decision_function(X[:20]), b.decision_function(X[:20]), rtol=1e-9, atol=1e-12)
