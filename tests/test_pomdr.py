"""POMDR (docs/algorithms/pomdr.md) against the literal per-round reference ``tests/reference/pomdr.py``.

The reference is written from the specification (explicit kernel table, coefficient rows in arrival order, exact
sums, K_S⁻¹ by the block formula, the hint window of the last M examples, the merge of the newer half as a formula)
and asserts the invariants of docs/algorithms/budget-family.md#invariants every round (|S| ≤ B, tracked ‖f‖² =
tr(AᵀK_S A), ‖f‖ ≤ U, multiclass rows summing to 0, K_S⁻¹ the inverse of K_S in phase 1).

Streams: ``reference.budget.stream`` — integer features in {−2..2}³ (exact ‖x − z‖²), ~30 % duplicate rows,
70 rounds; binary (labels ±1) and multiclass (3–5 classes); dense and CSR. Small budgets (B = 8…16), short
phase 1 (B0 = 1…8), ALD thresholds a that project (0.3 only onto duplicates, 0.6 / 0.8 also onto distinct
points) and small radii U so that merges, projections and the projection to U all happen many times per
stream. Every configuration runs on 20 seeds × {binary, multiclass} × {dense, CSR}. Asserted: per-round
mistake flags identical, per-round optimistic scores F̃ to 1e-9, #SV and #updates equal, ``diagnostics()``
equal (floats to 1e-9) and the final model (SV arrival stamps and rows) equal to 1e-9.
"""

import functools
import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from helpers import check_chunks_equal_one_pass, check_diagnostics, check_final_model, first_bad_round, model_norm2
from reference.budget import stream
from reference.pomdr import resolve, run_pomdr

SIGMA = 1.5
N_SEEDS = 20
T = 70

# (test id, params)
CONFIGS = {
    "B8-B0_3-M3-a0.3-U2": {"B": 8, "B0": 3, "M": 3, "a": 0.3, "U": 2.0},
    "B10-B0_4-M5-a0.6-U5": {"B": 10, "B0": 4, "M": 5, "a": 0.6, "U": 5.0},
    "B12-B0_4-M5-a0.6-U5-coe0.5": {"B": 12, "B0": 4, "M": 5, "a": 0.6, "U": 5.0, "coe": 0.5},
    "B16-B0_8-M3-a0.8-U3": {"B": 16, "B0": 8, "M": 3, "a": 0.8, "U": 3.0},  # long phase 1
    "B8-B0_3-M0-a0.6-U2": {"B": 8, "B0": 3, "M": 0, "a": 0.6, "U": 2.0},  # no hint
    "B8-B0_1-M3-U2": {"B": 8, "B0": 1, "M": 3, "a": 0.6, "U": 2.0},  # phase 2 from round 2
    "B8-B0_6-M4-a0.8-U3": {"B": 8, "B0": 6, "M": 4, "a": 0.8, "U": 3.0},  # B0 > B/2: phase-1 SVs merged
    "B10-B0_4-a0": {"B": 10, "B0": 4, "M": 5, "a": 0.0, "U": 5.0},  # only exact duplicates project
    "B10-B0_4-a2": {"B": 10, "B0": 4, "M": 5, "a": 2.0, "U": 5.0},  # always projects: phase 1 forever
    "B10-B0_4-a0.6-U25": {"B": 10, "B0": 4, "a": 0.6},  # U, M, coe at their defaults
    "B9-B0_3-M3-a0.6-U2": {"B": 9, "B0": 3, "M": 3, "a": 0.6, "U": 2.0},  # odd B: ⌊B/2⌋ permanent
    "B12-defaults": {"B": 12},  # B0, a from T (6, 1/√70)
}
MAIN = ["B8-B0_3-M3-a0.3-U2", "B10-B0_4-M5-a0.6-U5", "B12-B0_4-M5-a0.6-U5-coe0.5", "B16-B0_8-M3-a0.8-U3"]


def make_stream(kind, seed):
    """(X, y, K): binary (K=None, labels ±1) or multiclass (3–5 classes)."""
    if kind == "bin":
        X, y = stream(300 + seed, n=T, K=2)
        return X, y, None
    K = 3 + seed % 3
    X, y = stream(100 + seed, n=T, K=K)
    return X, y, K


@functools.cache
def reference(cid, kind, seed):
    X, y, K = make_stream(kind, seed)
    return run_pomdr(X, y, sigma=SIGMA, K=K, **CONFIGS[cid])


def classes_of(K):
    return [-1, 1] if K is None else np.arange(K)


def check_run(clf, res, ref, label=""):
    bad = np.flatnonzero(res.mistake_flags != ref.flags)
    assert bad.size == 0, (
        f"{label}first differing mistake flag at round {bad[0]}: olkit "
        f"{res.mistake_flags[bad[0]]}, reference {ref.flags[bad[0]]}; scores olkit "
        f"{res.scores[bad[0]]} reference {ref.scores[bad[0]]}"
    )
    scores = np.asarray(res.scores)
    assert scores.reshape(len(scores), -1).shape == ref.scores.reshape(len(ref.scores), -1).shape
    t = first_bad_round(scores, ref.scores)
    assert t is None, (
        f"{label}first differing score at round {t}: olkit {scores[t]}, reference {ref.scores[t]} "
        f"(reference after that round: {ref.trace[t]})"
    )
    check_final_model(clf, ref, label)
    assert (res.n_sv, res.n_updates) == (ref.n_sv, ref.n_updates), (
        f"{label}olkit (#SV, #updates) = {(res.n_sv, res.n_updates)}, reference {(ref.n_sv, ref.n_updates)}"
    )
    check_diagnostics(clf.diagnostics(), ref.diagnostics, label)
    assert clf.support_.n <= int(clf.get_params()["B"])


PARAMS = [(cid, seed) for cid in CONFIGS for seed in range(N_SEEDS)]


@pytest.mark.parametrize("cid,seed", PARAMS, ids=[f"{c}-{s}" for c, s in PARAMS])
@pytest.mark.parametrize("kind", ["bin", "mc"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_pomdr_matches_literal_reference(cid, seed, kind, sparse):
    X, y, _ = make_stream(kind, seed)
    ref = reference(cid, kind, seed)
    clf = olkit.make("pomdr", sigma=SIGMA, **CONFIGS[cid])
    res = olkit.evaluate_online(clf, sp.csr_matrix(X) if sparse else X, y)
    check_run(clf, res, ref)


def test_defaults_resolve_from_the_stream_length():
    """B0 = None → min(round(10 ln T), B//2), a = None → 1/√T, T the length of the data given
    (docs/algorithms/pomdr.md#parameters)."""
    X, y, _ = make_stream("bin", 0)
    for B in (12, 200):
        clf = olkit.make("pomdr", B=B, sigma=SIGMA).fit(X, y)
        B0, a = resolve(T, B)
        assert (B0, a) == (min(42, B // 2), 1 / math.sqrt(70))
        got = clf.resolved_params()
        assert got["B0"] == B0 and math.isclose(got["a"], a, rel_tol=1e-15)


# ---------------------------------------------------------------------------------------------------------
# One example at a time, chunks, pickling
# ---------------------------------------------------------------------------------------------------------
ROUND_CONFIGS = MAIN + ["B8-B0_3-M0-a0.6-U2", "B8-B0_1-M3-U2", "B8-B0_6-M4-a0.8-U3", "B10-B0_4-a2"]


@pytest.mark.parametrize("kind", ["bin", "mc"])
@pytest.mark.parametrize("cid", ROUND_CONFIGS)
def test_one_example_at_a_time(cid, kind):
    """partial_fit one example at a time (B0 and a explicit): before every round decision_function is the
    hint-free F(x_t) of the reference; after every round the mistake, |S| ≤ B, every diagnostic (phase,
    merges, projections, additions, Σδ, ‖f‖) equals the reference's, the tracked ‖f‖² equals tr(AᵀK_S A)
    of the stored model, ‖f‖ ≤ U, and multiclass rows sum to 0."""
    params = CONFIGS[cid]
    seed = 3
    X, y, K = make_stream(kind, seed)
    ref = reference(cid, kind, seed)
    clf = olkit.make("pomdr", sigma=SIGMA, **params)
    U = params.get("U", 25.0)
    for t in range(len(y)):
        if t > 0:
            got = np.asarray(clf.decision_function(X[t : t + 1]), float).ravel()
            np.testing.assert_allclose(got, np.ravel(ref.raw_scores[t]), rtol=1e-9, atol=1e-9, err_msg=f"round {t}")
        before = clf.n_mistakes_ if t > 0 else 0
        clf.partial_fit(X[t : t + 1], y[t : t + 1], classes=classes_of(K))
        assert clf.n_mistakes_ - before == ref.flags[t], f"round {t}"
        assert clf.n_updates_ == ref.trace[t]["updates"], f"round {t}"
        s = clf.support_
        assert s.n == ref.trace[t]["n"] <= params["B"], f"round {t}: |S| = {s.n}"
        diag = clf.diagnostics()
        check_diagnostics(diag, {k: v for k, v in ref.trace[t].items() if k not in ("n", "updates")}, f"round {t}: ")
        coef = np.asarray(s.coef[: s.n], float)
        # docs/algorithms/multiclass.md#budgeted-learners: rows built from H's sum to zero (projections and merges
        # keep it)
        if K is not None:
            assert np.all(np.abs(coef.sum(axis=1)) <= 1e-9 * np.maximum(1.0, np.abs(coef).max(axis=1))), f"round {t}"
        tracked = diag["norm"] ** 2
        exact = model_norm2(clf, SIGMA)
        assert abs(tracked - exact) <= 1e-9 * max(1.0, exact), f"round {t}: tracked {tracked}, tr(AᵀKA) {exact}"
        assert diag["norm"] <= U * (1 + 1e-12)
    check_final_model(clf, ref)


@pytest.mark.parametrize("kind", ["bin", "mc"])
@pytest.mark.parametrize("cid", ROUND_CONFIGS)
def test_chunks_equal_one_pass(cid, kind):
    """A stream fed in chunks (partial_fit, then evaluate_online(reset=False)) gives the one-pass run (B0 and
    a explicit: the defaults depend on the length of the first data given)."""
    params = CONFIGS[cid]
    X, y, K = make_stream(kind, 7)
    one_clf = olkit.make("pomdr", sigma=SIGMA, **params)
    one = olkit.evaluate_online(one_clf, X, y)
    clf = olkit.make("pomdr", sigma=SIGMA, **params)
    clf.partial_fit(X[:2], y[:2], classes=classes_of(K))
    clf.partial_fit(X[2:9], y[2:9])
    check_chunks_equal_one_pass(clf, one_clf, one, X, y)
    check_final_model(clf, reference(cid, kind, 7))


@pytest.mark.parametrize("kind", ["bin", "mc"])
@pytest.mark.parametrize("cut", [2, 6, 25, 50])  # phase 1, right after it, before / after merges
def test_pickle_mid_stream_continues_identically(cut, kind):
    """A learner pickled mid-stream continues exactly as the original (the hint window, λ's merge factor,
    Σδ, ‖f‖², K_S⁻¹ and the phase travel with it), and both equal the reference."""
    cid = "B10-B0_4-M5-a0.6-U5"
    X, y, K = make_stream(kind, 5)
    ref = reference(cid, kind, 5)
    clf = olkit.make("pomdr", sigma=SIGMA, **CONFIGS[cid])
    clf.partial_fit(X[:cut], y[:cut], classes=classes_of(K))
    copy = pickle.loads(pickle.dumps(clf))
    a = olkit.evaluate_online(clf, X[cut:], y[cut:], reset=False)
    b = olkit.evaluate_online(copy, X[cut:], y[cut:], reset=False)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.mistake_flags, b.mistake_flags)
    assert clf.diagnostics() == copy.diagnostics()
    np.testing.assert_array_equal(clf.decision_function(X), copy.decision_function(X))
    t = first_bad_round(b.scores, ref.scores[cut:])
    assert t is None, f"round {cut + t}"
    np.testing.assert_array_equal(b.mistake_flags, ref.flags[cut:])
    check_diagnostics(copy.diagnostics(), ref.diagnostics)
    check_final_model(copy, ref)


# ---------------------------------------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "bad",
    [
        {"B": 8, "B0": 8},
        {"B": 8, "B0": 9},
        {"B": 2, "B0": 2},
        {"B0": 0},
        {"M": -1},
        {"U": 0.0},
        {"U": -1.0},
        {"coe": 0.0},
        {"a": -0.1},
    ],
    ids=lambda d: "-".join(f"{k}{v}" for k, v in d.items()),
)
@pytest.mark.parametrize("kind", ["bin", "mc"])
def test_parameter_errors(bad, kind):
    """B0 ≥ B (phase 1 would never end before the budget), B0 < 1, M < 0, U ≤ 0, coe ≤ 0, a < 0: ValueError
    from make or from fit — never a run."""
    X, y, _ = make_stream(kind, 0)
    with pytest.raises(ValueError):
        olkit.make("pomdr", sigma=SIGMA, **bad).fit(X, y)
    with pytest.raises(ValueError):
        olkit.make("pomdr", sigma=SIGMA).set_params(**bad).fit(X, y)


# ---------------------------------------------------------------------------------------------------------
# The streams reach the cases; the specification's K = 2 claim holds for the reference
# ---------------------------------------------------------------------------------------------------------
def _events(cid, kind):
    tot = {}
    for seed in range(N_SEEDS):
        for key, v in reference(cid, kind, seed).events.items():
            tot[key] = tot.get(key, 0) + int(v)
    return tot


@pytest.mark.parametrize("kind", ["bin", "mc"])
def test_streams_exercise_the_cases(kind):
    for cid in MAIN:
        ev = _events(cid, kind)
        assert ev["merges"] > 40 and ev["scaled_to_U"] > 40 and ev["phase2_rounds"] > 500, (cid, ev)
        assert ev["projections"] > 10 and ev["dup_projections"] > 10 and ev["additions"] > 200, (cid, ev)
        assert all(reference(cid, kind, s).diagnostics["phase"] == 2 for s in range(N_SEEDS)), cid
        # the largest |S| at the end of a round is B − 1 (a round that reaches B merges down to B/2)
        assert max(reference(cid, kind, s).max_sv for s in range(N_SEEDS)) == CONFIGS[cid]["B"] - 1, cid
    for cid, least in (("B10-B0_4-M5-a0.6-U5", 3), ("B16-B0_8-M3-a0.8-U3", 20), ("B8-B0_6-M4-a0.8-U3", 20)):
        ev = _events(cid, kind)  # ALD projections onto the span of distinct points (δ² > 0)
        assert ev["projections"] - ev["dup_projections"] >= least, (cid, ev)
    ev = _events("B10-B0_4-a0", kind)
    assert ev["projections"] == ev["dup_projections"] > 10, ev
    ev = _events("B8-B0_6-M4-a0.8-U3", kind)
    assert ev["merged_phase1_rows"] > 10 and ev["merges"] > 20, ev
    ev = _events("B8-B0_1-M3-U2", kind)
    assert ev["projections"] == 0 and ev["merges"] > 40, ev
    for s in range(N_SEEDS):  # a = 2 ≥ √δ²: every step projects, |S| = 1, phase 1 throughout
        ref = reference("B10-B0_4-a2", kind, s)
        assert ref.diagnostics["phase"] == 1 and ref.diagnostics["additions"] == 1 and ref.max_sv == 1
    assert _events("B9-B0_3-M3-a0.6-U2", kind)["merges"] > 40
    # λ carries coe after the first merge: the step drops by about 1/coe at the merge round
    ref = reference("B12-B0_4-M5-a0.6-U5-coe0.5", kind, 0)
    t = next(i for i, d in enumerate(ref.trace) if d["merges"] == 1)
    cD = 1 if kind == "bin" else 2
    assert ref.trace[t]["sum_delta"] == 0.0
    assert math.isclose(ref.lams[t + 1], 0.5 * 5.0 / math.sqrt(3 * cD))


@pytest.mark.parametrize("seed", range(6))
def test_reference_two_classes_as_multiclass_equal_binary(seed):
    """docs/algorithms/pomdr.md#multiclass-and-multi-label: with K = 2 the rule is binary POMDR with U_b = √2U
    (λ_t = λ_b,t/2 and Σδ = 2Σδ_b) — the reference's multiclass
    path on two classes (+1 ↔ class 0) against its binary path: the same mistakes, f_b = F̃_0 − F̃_1, and
    Σδ, ‖f‖, #updates, the SVs in the same relation."""
    cid = MAIN[seed % len(MAIN)]
    params = dict(CONFIGS[cid])
    X, y, _ = make_stream("bin", seed)
    multi = run_pomdr(X, np.where(y == 1, 0, 1), sigma=SIGMA, K=2, **params)
    params["U"] = params["U"] * math.sqrt(2)
    binary = run_pomdr(X, y, sigma=SIGMA, **params)
    np.testing.assert_array_equal(multi.flags, binary.flags)
    np.testing.assert_allclose(multi.scores[:, 0] - multi.scores[:, 1], binary.scores, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(np.array(multi.lams) * 2, binary.lams, rtol=1e-9)
    assert multi.n_updates == binary.n_updates and multi.pts == binary.pts
    for a, b in zip(multi.trace, binary.trace):
        assert a["phase"] == b["phase"] and a["merges"] == b["merges"] and a["projections"] == b["projections"]
        assert math.isclose(a["sum_delta"], 2 * b["sum_delta"], rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(a["norm"] * math.sqrt(2), b["norm"], rel_tol=1e-9, abs_tol=1e-9)
