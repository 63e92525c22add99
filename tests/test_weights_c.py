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
from helpers import check_final_model, first_bad_round
from reference.budget import run_reference, stream
from reference.kernel_binary import duol, random_stream

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
    ref = duol(X, y, solver=solver, sigma=SIGMA, weights=w, variant=variant, **p)
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
    ref = run_reference(name, X, y, sigma=SIGMA, K=K, weights=w, **params)
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
