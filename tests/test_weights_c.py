"""Example weights of part C (DUOL family, budgeted learners) against the slow references with weights.

Each learner's meaning is its page's section *Weights* (docs/algorithms/duol.md#weights,
docs/algorithms/avp.md#weights, …): DUOL's box [0, s_t C] with each SV's own bound s_b C; the budgeted learners'
steps times s_t. Random weights include 0, fractions, integers and large values, on streams with duplicate rows
(ties). Asserted: identical mistake flags, scores to 1e-9 relative, and the final model. The cross-algorithm
checks (weight 1 bit-identical, weight 0 unlearned, class weights) are tests/test_weights.py's.
"""

import numpy as np
import pytest

import olkit
from helpers import check_diagnostics, check_final_model, first_bad_round
from reference.budget import run_reference, stream
from reference.duol_budget import run_reference as duol_budget_reference
from reference.duol_budget import run_reference_multi as duol_budget_reference_multi
from reference.feature_maps import nogd as nogd_reference
from reference.kernel_binary import duol, random_stream
from reference.kernel_multiclass import run_reference as multiclass_reference
from reference.kernel_multiclass import stream as multiclass_stream
from reference.pomdr import run_pomdr

SIGMA = 1.5


def random_weights(seed, n):
    rng = np.random.default_rng(1000 + seed)
    return rng.choice([0.0, 0.3, 1.0, 2.0, 3.0, 0.75, 10.0], size=n)


def _check(res, ref_flags, ref_scores):
    bad = np.flatnonzero(np.asarray(res.mistake_flags) != np.asarray(ref_flags))
    assert bad.size == 0, f"first differing mistake flag at round {bad[0]}"
    t = first_bad_round(res.scores, ref_scores)
    assert t is None, f"first differing score at round {t}: {res.scores[t]} vs {ref_scores[t]}"


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    "name,solver,params",
    [
        ("duol", "exact", {"C": 0.5}),
        ("duol", "exact", {"C": 0.5, "rho": 0.2, "variant": "nips2009"}),
        ("duol-appr", "appr", {"C": 0.5, "rho": 0.2}),
        ("duol-iter", "iter", {"C": 0.5}),
        ("duol-rand", "rand", {"C": 0.5, "seed": 3}),
    ],
)
def test_duol_weighted_matches_reference(name, solver, params, seed):
    X, y, _ = random_stream(seed, 60, 3)
    X = np.round(X, 1)
    X[10:20] = X[:10]  # duplicate rows: ties
    w = random_weights(seed, len(y))
    p = dict(params)
    variant = p.pop("variant", "jmlr")
    kw = {"variant": variant} if name == "duol" else {}
    ref = duol(X, y, solver=solver, sigma=SIGMA, sample_weight=w, variant=variant, **p)
    clf = olkit.make(name, sigma=SIGMA, **kw, **p)
    res = olkit.evaluate_online(clf, X, y, sample_weight=w)
    flags = (np.where(ref.scores >= 0, 1, -1) != y).astype(int)
    _check(res, flags, ref.scores)
    assert np.allclose(clf.decision_function(X), ref.decision_function(X), rtol=1e-9, atol=1e-9)


MAIN = [
    ("avp", {}),
    ("ahpatron", {"B": 4}),
    ("projectron", {}),
    ("projectron++", {}),
    ("projectron++", {"margin_rule": "paper"}),
    ("forgetron", {"B": 4}),
    ("rbp", {"B": 4}),
    ("bogd", {"B": 4}),
    ("bogd", {"B": 6, "gamma": 0.6, "lam": 0.01}),
    ("bogd++", {"B": 4}),
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", ["bin", "mc"])
@pytest.mark.parametrize("name,params", MAIN, ids=[f"{n}-{p}" for n, p in MAIN])
def test_budget_weighted_matches_reference(name, params, kind, seed):
    if kind == "bin":
        X, y = stream(200 + seed, K=2)
        K = None
    else:
        K = 3 + seed % 3
        X, y = stream(seed, K=K)
    w = random_weights(seed, len(y))
    ref = run_reference(name, X, y, sigma=SIGMA, K=K, sample_weight=w, **params)
    clf = olkit.make(name, sigma=SIGMA, **params)
    res = olkit.evaluate_online(clf, X, y, sample_weight=w)
    _check(res, ref.flags, ref.scores)
    check_final_model(clf, ref, "")


@pytest.mark.parametrize("name", ["duol", "duol-budget"])
def test_duol_auxiliary_keeps_its_own_box(name):
    """An SV stored with weight s keeps its bound sC when a later round picks it as the auxiliary example."""
    X, y, _ = random_stream(3, 80, 3)
    w = np.ones(len(y))
    w[::3] = 4.0
    clf = olkit.make(name, C=0.25, sigma=SIGMA)
    clf.fit(X, y, sample_weight=w)
    s = clf.support_
    gam = np.abs(s.coef[: s.n, 0])
    assert np.all(gam <= 0.25 * s.sw[: s.n] * (1 + 1e-12))
    assert np.any(gam > 0.25 * (1 + 1e-9))  # some SV uses its larger box
    assert set(np.unique(s.sw[: s.n])) <= {1.0, 4.0}


def test_sv_weights_saved_and_loaded(tmp_path):
    X, y, _ = random_stream(1, 50, 3)
    w = random_weights(1, len(y))
    clf = olkit.make("duol", C=0.5, sigma=SIGMA).fit(X, y, sample_weight=w)
    path = tmp_path / "m.npz"
    olkit.save(clf, path)
    back = olkit.load(path)
    n = clf.support_.n
    assert np.array_equal(back.support_.sw[:n], clf.support_.sw[:n])


@pytest.mark.parametrize(
    "name,compat", [("ahpatron", "ahp-r"), ("bogd", "lsokl"), ("projectron", "dogma"), ("forgetron", "lsokl")]
)
def test_compat_modes_refuse_weights(name, compat):
    X, y = stream(200, K=2)
    w = np.ones(len(y))
    olkit.make(name, compat=compat, sigma=SIGMA).fit(X, y, sample_weight=w)  # 0/1 weights: fine
    w[3] = 2.0
    with pytest.raises(ValueError, match="no example weights"):
        olkit.make(name, compat=compat, sigma=SIGMA).fit(X, y, sample_weight=w)


@pytest.mark.parametrize("name", ["duol", "forgetron", "bogd", "avp", "projectron"])
def test_upweighted_class_gets_higher_recall(name):
    """Weighting the positive class up (class_weight) raises its online recall on an overlapping stream.

    Measured on the online predictions (each round's prediction before its update), the quantity the weighted
    loss acts on: the last model of a mistake-driven learner depends on its last few updates and is too noisy."""
    rng = np.random.default_rng(0)
    n = 400
    y = np.where(rng.random(n) < 0.3, 1, -1)
    X = rng.normal(size=(n, 2)) + 0.6 * y[:, None]
    kw = {"B": 50} if name in ("forgetron", "bogd") else {}
    recall = []
    for cw in (None, {1: 5.0}):
        res = olkit.evaluate_online(olkit.make(name, sigma=2.0, random_state=0, class_weight=cw, **kw), X, y)
        predicted = np.where(np.asarray(res.mistake_flags) == 1, -y, y)
        recall.append(np.mean(predicted[y == 1] == 1))
    assert recall[1] > recall[0], recall


def _check_budget_run(clf, res, ref, label=""):
    """Mistakes, scores, final model, (#SV, #updates) and diagnostics of a budgeted run against its reference."""
    _check(res, ref.flags, ref.scores)
    check_final_model(clf, ref, label)
    assert (res.n_sv, res.n_updates) == (ref.n_sv, ref.n_updates), label
    check_diagnostics(clf.diagnostics(), ref.diagnostics, label)


DUOL_BUDGET = [
    {"B": 4},
    {"B": 6, "C": 0.5},
    {"B": 10, "rho": 0.2},
    {"B": 4, "removal": "smallest"},
    {"B": 4, "removal": "margin"},
    {"B": 3, "removal": "dual", "C": 0.5},
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("params", DUOL_BUDGET, ids=[str(p) for p in DUOL_BUDGET])
def test_duol_budget_weighted_matches_reference(params, seed):
    """Budgeted DUOL: the new example's box [0, s_t C], each SV's own [0, s_i C] (the auxiliary one's too), the
    removals unchanged (a removed SV takes its bound with it)."""
    X, y = stream(300 + seed, K=2)
    w = random_weights(seed, len(y))
    ref = duol_budget_reference(X, y, sigma=SIGMA, sample_weight=w, **params)
    clf = olkit.make("duol-budget", sigma=SIGMA, **params)
    res = olkit.evaluate_online(clf, X, y, sample_weight=w)
    _check_budget_run(clf, res, ref, f"{params} seed {seed}: ")
    assert ref.events["double"] > 0 and ref.events["removals"] > 0


@pytest.mark.parametrize("seed", [0, 1, 2, -1, -2])
@pytest.mark.parametrize("params", DUOL_BUDGET[:4], ids=[str(p) for p in DUOL_BUDGET[:4]])
def test_duol_budget_multiclass_weighted_matches_reference(params, seed):
    """Budgeted M-DUOL with weights, multiclass (seed ≥ 0: 3–5 classes) and multi-label (seed < 0)."""
    if seed < 0:
        X, y = multiclass_stream(-seed, K=4, multilabel=True)
    else:
        X, y = stream(500 + seed, K=3 + seed % 3)
    w = random_weights(seed + 10, len(y))
    ref = duol_budget_reference_multi(X, y, sigma=SIGMA, multilabel=seed < 0, sample_weight=w, **params)
    clf = olkit.make("duol-budget", sigma=SIGMA, **params)
    res = olkit.evaluate_online(clf, X, y, sample_weight=w)
    _check_budget_run(clf, res, ref, f"{params} seed {seed}: ")


MDUOL = [
    ("duol", {}),
    ("duol", {"C": 0.5, "rho": 0.3}),
    ("duol-appr", {"C": 0.5}),
    ("duol-appr", {"rho": 0.3}),
    ("duol-iter", {"C": 0.5, "rho": 0.3}),
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("multilabel", [False, True], ids=["multiclass", "multilabel"])
@pytest.mark.parametrize("name,params", MDUOL, ids=[f"{n}-{p}" for n, p in MDUOL])
def test_mduol_weighted_matches_reference(name, params, multilabel, seed):
    """M-DUOL (exact, appr, iter) with weights: boxes [0, s_t C], the auxiliary point's own [0, s_b C]."""
    if multilabel:
        K = 4 + seed % 2
        X, Y = multiclass_stream(100 + seed, K=K, multilabel=True)
        target = Y
    else:
        K = 3 + seed % 3
        X, target = multiclass_stream(seed, K=K)
        Y = np.eye(K, dtype=int)[target]
    w = random_weights(seed + 20, len(Y))
    ref = multiclass_reference(name, X, Y, multilabel=multilabel, sample_weight=w, sigma=SIGMA, **params)
    clf = olkit.make(name, sigma=SIGMA, **params)
    res = olkit.evaluate_online(clf, X, target, sample_weight=w)
    bad = np.flatnonzero(np.asarray(res.mistake_flags) != ref.flags)
    assert bad.size == 0, f"first differing mistake flag at round {bad[0]}"
    np.testing.assert_allclose(res.scores, ref.scores, rtol=1e-9, atol=1e-9)
    assert (res.n_sv, res.n_updates) == (ref.n_sv, ref.n_updates)
    assert clf.diagnostics()["double_updates"] == ref.events["double"]


NOGD_CASES = [(0, 2, 4, None, 0.3), (1, 2, 6, 2, 0.7), (10, 3, 4, None, 0.3), (11, 4, 6, 2, 0.3), (12, 5, 10, 3, 0.7)]


@pytest.mark.parametrize("case", NOGD_CASES, ids=lambda c: f"seed{c[0]}-K{c[1]}-B{c[2]}-k{c[3]}-eta{c[4]}")
def test_nogd_weighted_matches_reference(case):
    """NOGD: the step η s_t in both stages (stage 1's row η s_t D_t, stage 2's W += η s_t D_t φ(x_t)ᵀ)."""
    seed, K, B, k, eta = case
    X, y = stream(seed, K=K)
    if K == 2:
        y = np.where(y == 1, 1, -1)
    w = random_weights(seed + 30, len(y))
    ref = nogd_reference(X, y, eta, B, max(1, round(0.2 * B)) if k is None else k, SIGMA, n_classes=K, sample_weight=w)
    assert ref["transition"] > 0
    clf = olkit.make("nogd", B=B, k=k, eta=eta, sigma=SIGMA)
    res = olkit.evaluate_online(clf, X, y, sample_weight=w)
    np.testing.assert_array_equal(res.mistake_flags, ref["mistakes"])
    assert res.n_updates == ref["n_updates"]
    assert clf.diagnostics() == {"transition": ref["transition"], "rank": ref["rank"]}
    scores = res.scores if K > 2 else res.scores.reshape(-1, 1)
    np.testing.assert_allclose(scores, ref["scores"], rtol=0, atol=1e-9)


POMDR = [
    {"B": 8, "B0": 3, "M": 3, "a": 0.3, "U": 2.0},
    {"B": 12, "B0": 4, "M": 5, "a": 0.6, "U": 5.0, "coe": 0.5},
    {"B": 16, "B0": 8, "M": 3, "a": 0.8, "U": 3.0},
    {"B": 8, "B0": 1, "M": 3, "a": 0.6, "U": 2.0},
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", ["bin", "mc"])
@pytest.mark.parametrize("params", POMDR, ids=[str(p) for p in POMDR])
def test_pomdr_weighted_matches_reference(params, kind, seed):
    """POMDR: the step λ_t s_t (round 1's (U/√(3c_D)) s_t), λ_t, Σδ and the hint from unit directions; a weight-0
    round leaves no window entry, and round 1 is the first learned example (seeds 0 and 2 start with weight 0)."""
    K = None if kind == "bin" else 3 + seed % 3
    X, y = stream(300 + seed if K is None else 100 + seed, n=70, K=2 if K is None else K)
    w = random_weights(seed + 40, len(y))
    if seed % 2 == 0:
        w[:3] = 0.0
    ref = run_pomdr(X, y, sigma=SIGMA, K=K, sample_weight=w, **params)
    clf = olkit.make("pomdr", sigma=SIGMA, **params)
    res = olkit.evaluate_online(clf, X, y, sample_weight=w)
    _check_budget_run(clf, res, ref, f"{params} {kind} seed {seed}: ")
    assert clf.support_.n <= params["B"]
