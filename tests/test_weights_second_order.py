"""Weights on the second-order learners (SOP, CW, CW-var, IELLIP, AROW, NHERD, NAROW, SCW-I, SCW-II), each page's
section Weights (docs/algorithms/options.md#weights).

* Every learner with random weights (0, fractional, integer, large) against its weighted slow reference
  (tests/reference/linear.py, ``sample_weight=``): binary and multiclass, full and diagonal covariance, on streams with
  duplicate rows. Asserted as tests/test_linear_reference.py: identical mistake flags, scores, coef_, covariance_
  and decision_function to 1e-9; #updates equal up to the triggers the reference finds decided by rounding (a
  duplicate row after an update whose constraint is active sits exactly on the trigger's boundary).
* Kernel SCW (dual form, the linear kernel) with weights equals the weighted primal form (the same C ← sC).
* Where repetition holds (binary, full covariance): CW, CW-var (on/off: after one step the constraint is active)
  and AROW (a Gaussian update: k updates with r equal one with r/k) give for weight k the model of the example
  repeated k times in a row; IELLIP's weight 0 still decays c_t.
* Behaviour: up-weighting a class raises its recall.
"""

import numpy as np
import pytest

import olkit
from reference.linear import run_linear_reference
from test_linear_invariants import DUAL_LINEAR  # the linear kernel in dual form
from test_linear_reference import assert_same_run

CONFIGS = [
    ("sop", {}),
    ("sop", {"compat": "libol"}),
    ("cw", {}),
    ("cw-var", {"eta": 0.6}),
    ("iellip", {"b": 0.7, "c": 0.3}),
    ("arow", {}),
    ("arow", {"r": 0.5}),
    ("nherd", {}),
    ("nherd", {"C": 0.25}),
    ("narow", {"b": 0.5}),
    ("scw1", {}),
    ("scw1", {"eta": 0.6, "C": 0.25}),
    ("scw2", {}),
    ("scw2", {"C": 4.0, "compat": "libol"}),
]
NHERD_DIAG = [("nherd", {"diagonal": "exact"}), ("nherd", {"diagonal": "drop", "C": 4.0})]


def _cases():
    out = []
    for name, params in CONFIGS:
        for cov in ("full", "diagonal"):
            for kind in ("binary", "multiclass"):
                if name == "sop" and kind == "multiclass":
                    continue
                tag = "-".join(f"{k}{v}" for k, v in params.items())
                out.append(pytest.param(name, {**params, "covariance": cov}, kind, id=f"{name}-{tag}-{cov}-{kind}"))
    for name, params in NHERD_DIAG:
        for kind in ("binary", "multiclass"):
            tag = "-".join(f"{k}{v}" for k, v in params.items())
            out.append(pytest.param(name, {**params, "covariance": "diagonal"}, kind, id=f"{name}-{tag}-{kind}"))
    return out


def weighted_stream(seed, kind, n=80, d=5):
    """A noisy linear rule with duplicate rows (20 %), a few all-zero rows, and weights drawn from 0, fractional,
    integer and large values."""
    rng = np.random.default_rng(seed)
    K = 2 if kind == "binary" else 3
    X = rng.normal(size=(n, d)) * 1.5 / np.sqrt(d)
    X[rng.random(n) < 0.04] = 0.0
    repeat = np.nonzero(rng.random(n) < 0.2)[0]
    repeat = repeat[repeat > 0]
    X[repeat] = X[[rng.integers(0, t) for t in repeat]]
    W = rng.normal(size=(d, K))
    y = np.argmax(X @ W + 0.3 * rng.normal(size=(n, K)), axis=1)
    y = np.where(rng.random(n) < 0.1, (y + 1) % K, y)
    y[:K] = rng.permutation(K)
    kinds = rng.integers(0, 4, size=n)
    s = np.select(
        [kinds == 0, kinds == 1, kinds == 2],
        [np.zeros(n), rng.uniform(0.05, 1.0, n), rng.integers(1, 4, n).astype(float)],
        rng.uniform(5.0, 40.0, n),
    )
    return X, y, s, rng.normal(size=(6, d))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("name", "params", "kind"), _cases())
def test_weighted_matches_reference(name, params, kind, seed):
    X, y, s, Xt = weighted_stream(1000 * seed + 7, kind)
    order = np.random.default_rng(seed).permutation(len(y)) if seed % 2 else None
    clf = olkit.make(name, **params)
    res = olkit.evaluate_online(clf, X, y, order, sample_weight=s)
    ref = run_linear_reference(name, X, y, order, sample_weight=s, **params)
    label = f"{name} {params} {kind} seed {seed}"
    assert_same_run(res, ref, clf, Xt, label, n_updates_slack=ref.events.get("near_ties", 0))


@pytest.mark.parametrize("name", ["scw1", "scw2"])
def test_kernel_scw_weighted_equals_linear_scw(name):
    """Kernel SCW in dual form (the linear kernel) with weights: the weighted primal form, round by round."""
    for seed in range(4):
        X, y, s, Xt = weighted_stream(seed + 50, "binary", n=70)
        y = np.where(y == 1, 1, -1)
        for params in ({}, {"eta": 0.6, "C": 0.25}, {"C": 4.0, "a": 0.5}):
            linear = olkit.make(name, **params)
            kernel = olkit.make(name, **DUAL_LINEAR, **params)
            lin = olkit.evaluate_online(linear, X, y, sample_weight=s)
            ker = olkit.evaluate_online(kernel, X, y, sample_weight=s)
            assert np.array_equal(lin.mistake_flags, ker.mistake_flags)
            np.testing.assert_allclose(lin.scores, ker.scores, rtol=1e-9, atol=1e-9)
            np.testing.assert_allclose(linear.decision_function(Xt), kernel.decision_function(Xt), rtol=1e-9, atol=1e-9)


def _repeated(k):
    """The order presenting row t k[t] times in a row."""
    return np.repeat(np.arange(len(k)), k)


@pytest.mark.parametrize(("name", "params"), [("cw", {}), ("cw-var", {}), ("arow", {}), ("arow", {"r": 0.25})])
def test_integer_weight_is_repetition_binary_full(name, params):
    """Binary, full covariance: weight k is the example repeated k times (CW, CW-var: after one step the constraint
    is active, the repeats change nothing but rounding; AROW: k Gaussian updates with r are one with r/k)."""
    for seed in range(5):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(40, 4))
        y = np.where(X @ rng.normal(size=4) + 0.5 * rng.normal(size=40) >= 0, 1, -1)
        k = rng.integers(1, 5, size=40)
        weighted = olkit.make(name, **params)
        olkit.evaluate_online(weighted, X, y, sample_weight=k.astype(float))
        repeated = olkit.make(name, **params)
        rep = _repeated(k)
        olkit.evaluate_online(repeated, X[rep], y[rep])
        Z = rng.normal(size=(10, 4))
        np.testing.assert_allclose(weighted.decision_function(Z), repeated.decision_function(Z), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(weighted.covariance_, repeated.covariance_, rtol=1e-9, atol=1e-12)


def test_sop_weight_is_copies_of_a_mistake():
    """SOP: a mistake of weight k adds k·y x to v and k·x xᵀ to A (docs/algorithms/sop.md#weights), checked on
    one example against A⁻¹v built by hand."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=4)
    clf = olkit.make("sop", a=2.0)
    clf.partial_fit(x[None, :], [1], classes=[-1, 1], sample_weight=[3.0])  # f = 0 → ŷ = +1: no mistake
    assert clf.n_updates_ == 0
    clf.partial_fit(x[None, :], [-1], sample_weight=[3.0])  # ŷ = +1 ≠ −1: a mistake of weight 3
    A = 2.0 * np.eye(4) + 3.0 * np.outer(x, x)
    v = -3.0 * x
    np.testing.assert_allclose(clf.coef_[0], np.linalg.solve(A, v), rtol=1e-12)


def test_iellip_zero_weight_decays_c():
    """IELLIP's c_t is a schedule by round number: a round of weight 0 is not learned but c_t decays
    (docs/algorithms/iellip.md#weights) — the model equals the stream with that example's row zeroed."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 4))
    y = np.where(X @ rng.normal(size=4) >= 0, 1, -1)
    s = np.where(rng.random(60) < 0.3, 0.0, 1.0)
    a = olkit.make("iellip")
    olkit.evaluate_online(a, X, y, sample_weight=s)
    b = olkit.make("iellip")
    Xz = np.where(s[:, None] == 0.0, 0.0, X)  # a zero row: never a mistake-driven step, c_t decays
    olkit.evaluate_online(b, Xz, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(a.covariance_, b.covariance_, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["scw1", "scw2", "arow", "nherd", "narow", "sop"])
def test_up_weighted_class_gains_recall(name):
    """Weight 5 on the positive class of an overlapping stream: its online recall rises."""
    rng = np.random.default_rng(11)
    n = 1500
    y = np.where(rng.random(n) < 0.25, 1, -1)
    X = rng.normal(size=(n, 4)) + np.outer(y == 1, [1.0, 0.6, 0.0, 0.0])
    recall = []
    for cw in (None, {1: 5.0}):
        res = olkit.evaluate_online(olkit.make(name, class_weight=cw, fit_intercept=True), X, y)
        pred = np.where(res.mistake_flags == 1, -y, y)
        recall.append(np.mean(pred[y == 1] == 1))
    assert recall[1] > recall[0] + 0.02, (name, recall)
