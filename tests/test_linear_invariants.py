"""Invariants of the linear (primal) learners and of kernel SCW.

* the primal form (kernel="linear") equals the dual form of the linear kernel
  (docs/algorithms/linear-family.md#verified-identities);
* kernel SCW with the linear kernel (in dual form) reproduces linear full-covariance SCW
  (docs/algorithms/scw1.md#kernel-scw);
* chunks (partial_fit), pickling mid-stream and the block size give the one-pass result;
* covariance stays symmetric positive definite, the diagonal stays positive;
* bad parameters and inputs raise clear errors; full covariance too large fails before allocating.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from olkit import registry
from olkit.learners.kernel import base as kernel_base
from olkit.learners.linear import model as linear_model
from olkit.learners.linear.base import LinearLearner
from reference.kernel_binary import DUAL_LINEAR

FIRST_ORDER = [
    ("perceptron", {}),
    ("pa", {}),
    ("pa1", {"C": 0.5}),
    ("pa2", {"C": 0.5}),
    ("romma", {}),
    ("agg-romma", {}),
    ("agg-romma", {"romma_reset_case": True}),
    ("alma", {}),
]
SECOND_ORDER = [name for name in registry.names() if "covariance" in registry.defaults(name)]
"""The second-order learners: those with a covariance (read from the registry)."""


def stream(seed, n=150, d=6, k=2, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if k == 2:
        y = np.where(X @ rng.normal(size=d) + 0.5 * rng.normal(size=n) >= 0, 1, -1)
    else:
        y = np.argmax(X @ rng.normal(size=(d, k)) + 0.5 * rng.normal(size=(n, k)), axis=1)
    if sparse:
        keep = rng.random(X.shape) >= 0.6
        keep[np.arange(n), rng.integers(0, d, n)] = True  # no zero rows (a zero SV is an "update" in dual form)
        X = sp.csr_matrix(X * keep)
    return X, y


@pytest.mark.parametrize("name,params", FIRST_ORDER, ids=[f"{n}{p}" for n, p in FIRST_ORDER])
def test_primal_equals_dual_linear_kernel(name, params):
    for seed in range(5):
        X, y = stream(seed, sparse=seed % 2 == 1)
        primal = olkit.evaluate_online(olkit.make(name, kernel="linear", **params), X, y)
        dual = olkit.evaluate_online(olkit.make(name, **DUAL_LINEAR, **params), X, y)
        assert np.array_equal(primal.mistake_flags, dual.mistake_flags)
        assert primal.n_updates == dual.n_updates
        np.testing.assert_allclose(primal.scores, dual.scores, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", ["scw1", "scw2"])
def test_kernel_scw_with_linear_kernel_equals_linear_scw(name):
    for seed in range(5):
        X, y = stream(seed, n=120, d=5, sparse=seed % 2 == 1)
        for params in ({}, {"eta": 0.6, "C": 0.25}, {"a": 0.5, "C": 4.0}):
            linear = olkit.make(name, **params)
            kernel = olkit.make(name, **DUAL_LINEAR, **params)
            lin = olkit.evaluate_online(linear, X, y)
            ker = olkit.evaluate_online(kernel, X, y)
            assert np.array_equal(lin.mistake_flags, ker.mistake_flags)
            assert lin.n_updates == ker.n_updates == ker.n_sv
            np.testing.assert_allclose(lin.scores, ker.scores, rtol=1e-9, atol=1e-9)
            Z = np.random.default_rng(seed + 99).normal(size=(10, X.shape[1]))
            np.testing.assert_allclose(linear.decision_function(Z), kernel.decision_function(Z), rtol=1e-9, atol=1e-9)


def test_kernel_scw_gaussian_learns_and_stays_finite():
    X, y = olkit.load_dataset("german")
    res = olkit.evaluate_online(olkit.make("scw1", kernel="gaussian", sigma=8.0), X, y)
    assert 0.2 < res.mistake_rate < 0.4 and np.all(np.isfinite(res.scores))
    with pytest.raises(ValueError, match="covariance='full'"):
        olkit.make("scw1", kernel="gaussian", covariance="diagonal")


def _learners():
    out = [(n, dict(p, kernel="linear")) for n, p in FIRST_ORDER]
    for name in SECOND_ORDER:
        for cov in ("full", "diagonal"):
            out.append((name, {"covariance": cov}))
    return out


LEARNERS = _learners()
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in p.items())}" for n, p in LEARNERS]


@pytest.mark.parametrize("name,params", LEARNERS, ids=IDS)
def test_chunks_pickling_and_block_size_give_one_pass(name, params, monkeypatch):
    k = 2 if name == "sop" else 3
    X, y = stream(7, n=300, d=5, k=k, sparse=True)
    whole = olkit.make(name, **params, shuffle=False).fit(X, y)
    chunked = olkit.make(name, **params)
    chunked.partial_fit(X[:100], y[:100], classes=np.unique(y))
    chunked = pickle.loads(pickle.dumps(chunked))  # saved and loaded mid-stream
    chunked.partial_fit(X[100:], y[100:])
    np.testing.assert_allclose(whole.coef_, chunked.coef_, rtol=1e-12, atol=1e-12)
    assert whole.n_mistakes_ == chunked.n_mistakes_ and whole.n_updates_ == chunked.n_updates_
    monkeypatch.setattr(kernel_base, "LINEAR_BLOCK_SIZE", 7)
    monkeypatch.setattr(LinearLearner, "_block_size", 7)
    small = olkit.make(name, **params, shuffle=False).fit(X, y)
    np.testing.assert_allclose(whole.coef_, small.coef_, rtol=1e-12, atol=1e-12)
    Z = X[:20]
    np.testing.assert_allclose(whole.decision_function(Z), small.decision_function(Z), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", [n for n in SECOND_ORDER if n != "sop"])
def test_covariance_stays_positive_definite(name):
    for k in (2, 4):
        X, y = stream(3, n=400, d=6, k=k)
        full = olkit.make(name, covariance="full", shuffle=False).fit(X, y)
        for S in full.covariance_:
            np.testing.assert_allclose(S, S.T, atol=1e-12)
            assert np.linalg.eigvalsh(S).min() > 0
        diag = olkit.make(name, covariance="diagonal", shuffle=False).fit(X, y)
        assert np.all(diag.covariance_ > 0) and np.all(np.isfinite(diag.coef_))


def test_multiclass_predicts_labels_and_linear_learners_are_multiclass():
    X, y = stream(5, n=400, d=6, k=4)
    labels = np.array(["a", "b", "c", "d"])[y]
    for name, params in (("scw1", {}), ("pa1", {"kernel": "linear"}), ("arow", {"covariance": "diagonal"})):
        clf = olkit.make(name, **params, shuffle=False).fit(X, labels)
        assert clf.coef_.shape == (4, X.shape[1])
        assert clf.decision_function(X).shape == (len(X), 4)
        assert set(clf.predict(X)) <= set(labels) and clf.score(X, labels) > 0.5
    with pytest.raises(ValueError, match="binary"):
        olkit.make("sop").fit(X, labels)
    with pytest.raises(ValueError, match="binary"):
        olkit.make("scw1", kernel="gaussian").fit(X, labels)  # kernel SCW is binary
    kernel_pa = olkit.make("pa1").fit(X, labels)  # the Gaussian-kernel form is multi-prototype (pa1.md)
    assert kernel_pa.decision_function(X).shape == (len(X), 4)


def test_parameter_errors():
    for name, params, match in [
        ("cw", {"eta": 0.5}, "eta"),
        ("scw1", {"eta": 0.3}, "eta"),
        ("scw2", {"eta": 1.0}, "eta"),
        ("arow", {"r": 0}, "r"),
        ("arow", {"r": -1.0}, "r"),
        ("narow", {"b": 0}, "b"),
        ("nherd", {"C": 0}, "C"),
        ("iellip", {"b": 1.0}, "b"),
        ("scw1", {"C": -1}, "C"),
        ("cw", {"a": 0}, "a"),
        ("cw", {"covariance": "diag"}, "covariance"),
        ("nherd", {"diagonal": "x"}, "diagonal"),
        ("arow", {"compat": "sol"}, "compat"),
        ("pa1", {"kernel": "linear", "C": float("nan")}, "C"),
    ]:
        with pytest.raises(ValueError, match=match):
            olkit.make(name, **params)


def test_full_covariance_too_large_fails_fast(monkeypatch):
    X = sp.random(5, 100_000, density=1e-4, format="csr", random_state=0)
    y = np.array([0, 1, 0, 1, 1])
    with pytest.raises(ValueError, match="covariance='diagonal'"):
        olkit.make("scw1").fit(X, y)  # 80 GB: refused before allocating anything
    monkeypatch.setattr(linear_model, "FULL_COVARIANCE_LIMIT_BYTES", 1000)
    with pytest.raises(ValueError, match="GiB"):
        olkit.make("arow").fit(np.ones((3, 20)), [0, 1, 0])
    res = olkit.evaluate_online(olkit.make("scw1", covariance="diagonal"), X, y)
    assert res.n_updates >= 1


def test_libol_defaults_and_counting():
    X, y = olkit.load_dataset("german")
    assert olkit.make("pa1", kernel="linear", compat="libol").resolved_params()["C"] == 1.0
    assert olkit.make("pa1").resolved_params()["C"] == 5.0
    # NAROW: LIBOL counts rounds with positive loss even when r = inf leaves the model unchanged
    none = olkit.evaluate_online(olkit.make("narow"), X, y)
    libol = olkit.evaluate_online(olkit.make("narow", compat="libol"), X, y)
    assert none.mistakes == libol.mistakes and libol.n_updates > none.n_updates


def test_linear_learners_run_sparse_high_dimensional_data_without_densifying():
    X = sp.random(300, 50_000, density=2e-4, format="csr", random_state=1)
    y = np.where(np.asarray(X.sum(axis=1)).ravel() > np.median(np.asarray(X.sum(axis=1))), 1, 0)
    for name, params in (
        ("pa1", {"kernel": "linear"}),
        ("scw2", {"covariance": "diagonal"}),
        ("arow", {"covariance": "diagonal"}),
        ("romma", {"kernel": "linear"}),
    ):
        clf = olkit.make(name, **params)
        res = olkit.evaluate_online(clf, X, y)
        assert np.all(np.isfinite(res.scores))
        assert clf.model_.S.size == 0 and clf.model_.W.shape == (50_000, 1)


def test_tuning_in_parallel_processes_equals_sequential():
    """Candidates run in real joblib worker processes give the same selection as one process."""
    from olkit.experiment.tuning import tune, validation_order

    X, y = olkit.load_dataset("splice")
    order = validation_order(X.shape[0], 3)
    seq = tune("scw2", X, y, order, {"covariance": "diagonal"}, n_jobs=1)
    par = tune("scw2", X, y, order, {"covariance": "diagonal"}, n_jobs=2)
    assert seq == par
    params, trace = seq
    assert [t["parameter"] for t in trace] == ["C"] * 9 + ["eta"] * 9 and params["covariance"] == "diagonal"
    best = min(t["mistakes"] for t in trace[9:])
    assert params["eta"] == max(t["value"] for t in trace[9:] if t["mistakes"] == best)


def test_prefetch_is_a_hint_only():
    """olkit._compile.prefetch changes no value and accepts any index
    (docs/algorithms/linear-family.md#sparse-input)."""
    from olkit._compile import njit, prefetch

    @njit
    def touch(a, indices):
        for i in indices:
            prefetch(a, i)
        return a.sum()

    a = np.arange(10.0)
    assert touch(a, np.array([0, 9, -(10**9), 10**12], np.int64)) == 45.0
    np.testing.assert_array_equal(a, np.arange(10.0))


@pytest.mark.parametrize(
    "name,params",
    [
        ("pa1", {"kernel": "linear", "C": 0.5}),
        ("scw1", {"covariance": "diagonal"}),
        ("sop", {"covariance": "diagonal"}),
    ],
)
@pytest.mark.parametrize("k", [2, 3])
def test_rounds_fetched_ahead_give_the_same_bits(name, params, k, monkeypatch):
    """Blocks of one round (nothing fetched ahead) and one block (rows fetched ahead, in a random order): the same
    scores, mistakes, updates and weights to the last bit."""
    if name == "sop" and k == 3:
        pytest.skip("SOP is binary")
    X, y = stream(11, n=400, d=30, k=k, sparse=True)
    order = np.random.default_rng(3).permutation(400)
    whole = olkit.make(name, **params)
    a = olkit.evaluate_online(whole, X, y, order=order)
    monkeypatch.setattr(kernel_base, "LINEAR_BLOCK_SIZE", 1)
    monkeypatch.setattr(LinearLearner, "_block_size", 1)
    one = olkit.make(name, **params)
    b = olkit.evaluate_online(one, X, y, order=order)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.mistake_flags, b.mistake_flags)
    assert a.n_updates == b.n_updates
    np.testing.assert_array_equal(whole.coef_, one.coef_)
