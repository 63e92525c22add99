"""FOGD (docs/algorithms/fogd.md) against the literal per-round reference ``tests/reference/feature_maps.py``.

Streams have small integer features with ~30 % duplicate rows (``stream`` of the multiclass kernel
reference), binary and 3–5 classes, dense and CSR. The reference draws the same directions U the way olkit
documents it and computes z(x) with explicit dot products and the C library's cos/sin; asserted: U
identical, per-round mistake flags and #updates identical, per-round scores and the final weights equal to
1e-9. As a precaution, step sizes satisfy η·m ≠ 1 for small integers m: a margin built only from copies of
one row is an integer multiple of η‖z‖² = η in exact arithmetic, and a tie on the threshold 1 would be
decided by rounding, possibly differently in two correct implementations (with η = 0.5 no such round
occurred on 60 streams, but nothing rules it out).
"""

import itertools
import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from olkit.learners.budget.fogd import FOGD, sincos
from reference.feature_maps import directions, fogd, fourier_features, gaussian
from reference.kernel_multiclass import stream

SIGMA = 1.5

# (seed, classes, D, eta, compat)
CASES = (
    [
        (seed, 2, D, eta, "none")
        for seed, D, eta in [(0, 64, 0.3), (1, 7, 0.3), (2, 200, 0.7), (3, 33, 1.3), (4, 64, 0.15), (5, 120, 0.3)]
    ]
    + [
        (10 + seed, K, D, eta, "none")
        for seed, K, D, eta in [
            (0, 3, 64, 0.3),
            (1, 4, 7, 0.3),
            (2, 5, 200, 0.7),
            (3, 3, 33, 1.3),
            (4, 4, 64, 0.15),
            (5, 5, 120, 0.3),
        ]
    ]
    + [(20, 2, 40, 0.03, "lsokl"), (21, 4, 40, 0.03, "lsokl")]
)


def labelled_stream(seed, K):
    """Binary: labels ±1 (olkit's −1 is the smaller label); multiclass: class indices 0..K−1."""
    X, y = stream(seed, K=K)
    return X, (np.where(y == 1, 1, -1) if K == 2 else y)


def run_olkit(X, y, **params):
    clf = olkit.make("fogd", sigma=SIGMA, **params)
    return clf, olkit.evaluate_online(clf, X, y)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c[0]}-K{c[1]}-D{c[2]}-eta{c[3]}-{c[4]}")
def test_matches_reference(case, fmt):
    seed, K, D, eta, compat = case
    X, y = labelled_stream(seed, K)
    Xin = sp.csr_matrix(X) if fmt == "csr" else X
    clf, res = run_olkit(Xin, y, D=D, eta=eta, seed=seed, compat=compat)
    U = directions(X.shape[1], D, SIGMA, seed)
    np.testing.assert_array_equal(clf.directions_, U)
    ref = fogd(X, y, U, eta, n_classes=K, scaled=compat != "lsokl")
    assert res.mistakes > 0 and ref["n_updates"] > 10
    np.testing.assert_array_equal(res.mistake_flags, ref["mistakes"])
    assert res.n_updates == clf.n_updates_ == ref["n_updates"]
    scores = res.scores if K > 2 else res.scores.reshape(-1, 1)
    np.testing.assert_allclose(scores, ref["scores"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(clf.coef_, ref["W"], rtol=0, atol=1e-9)
    assert res.n_sv == clf.n_support_ == D


@pytest.mark.parametrize("K", [2, 4])
def test_dense_and_csr_give_the_same_bits(K):
    X, y = labelled_stream(3, K)
    a = run_olkit(X, y, D=50, eta=0.3)[1]
    b = run_olkit(sp.csr_matrix(X), y, D=50, eta=0.3)[1]
    np.testing.assert_array_equal(a.scores, b.scores)


@pytest.mark.parametrize("K", [2, 3])
def test_decision_function_and_features(K):
    X, y = labelled_stream(7, K)
    clf = olkit.make("fogd", D=40, eta=0.3, sigma=SIGMA, seed=7, shuffle=False).fit(X, y)
    U = directions(X.shape[1], 40, SIGMA, 7)
    Z = np.array([fourier_features(x, U) for x in X])
    np.testing.assert_allclose(clf.fourier_features(X), Z, rtol=0, atol=1e-13)
    W = fogd(X, y, U, 0.3, n_classes=K)["W"]
    scores = clf.decision_function(X)
    if K == 2:
        assert scores.shape == (len(y),)
        np.testing.assert_allclose(scores, Z @ W[0], rtol=0, atol=1e-9)
        np.testing.assert_array_equal(clf.predict(X), np.where(scores >= 0, 1, -1))
    else:
        assert scores.shape == (len(y), K)
        np.testing.assert_allclose(scores, Z @ W.T, rtol=0, atol=1e-9)
        np.testing.assert_array_equal(clf.predict(X), np.argmax(scores, axis=1))


@pytest.mark.parametrize("K", [2, 4])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_chunks_equal_one_pass_exactly(K, fmt):
    X, y = labelled_stream(30 + K, K)
    X = np.vstack([X] * 4)  # 280 rows
    y = np.concatenate([y] * 4)
    Xin = sp.csr_matrix(X) if fmt == "csr" else X
    one = olkit.make("fogd", D=64, eta=0.3, sigma=SIGMA)
    whole = olkit.evaluate_online(one, Xin, y)
    chunked = olkit.make("fogd", D=64, eta=0.3, sigma=SIGMA)
    bounds = [0, 37, 38, 39, 150, 279, 280]  # the first chunk sets the classes
    parts = [
        olkit.evaluate_online(chunked, Xin[lo:hi], y[lo:hi], reset=lo == 0) for lo, hi in itertools.pairwise(bounds)
    ]
    np.testing.assert_array_equal(np.concatenate([p.scores for p in parts]), whole.scores)
    np.testing.assert_array_equal(np.concatenate([p.mistake_flags for p in parts]), whole.mistake_flags)
    np.testing.assert_array_equal(chunked.coef_, one.coef_)
    assert (chunked.n_seen_, chunked.n_mistakes_, chunked.n_updates_) == (one.n_seen_, one.n_mistakes_, one.n_updates_)
    # partial_fit in chunks ≡ fit
    fitted = olkit.make("fogd", D=64, eta=0.3, sigma=SIGMA, shuffle=False).fit(Xin, y)
    partial = olkit.make("fogd", D=64, eta=0.3, sigma=SIGMA)
    for lo, hi in itertools.pairwise(bounds):
        partial.partial_fit(Xin[lo:hi], y[lo:hi], classes=np.unique(y))
    np.testing.assert_array_equal(partial.coef_, fitted.coef_)
    np.testing.assert_array_equal(partial.decision_function(Xin), fitted.decision_function(Xin))


@pytest.mark.parametrize("K", [2, 5])
def test_pickle_mid_stream_continues_identically(K):
    X, y = labelled_stream(40 + K, K)
    clf = olkit.make("fogd", D=30, eta=0.3, sigma=SIGMA, seed=3)
    olkit.evaluate_online(clf, X[:35], y[:35])
    copy = pickle.loads(pickle.dumps(clf))
    a = olkit.evaluate_online(clf, X[35:], y[35:], reset=False)
    b = olkit.evaluate_online(copy, X[35:], y[35:], reset=False)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.mistake_flags, b.mistake_flags)
    np.testing.assert_array_equal(clf.coef_, copy.coef_)
    assert clf.n_mistakes_ == copy.n_mistakes_ and clf.n_updates_ == copy.n_updates_
    one = olkit.evaluate_online(olkit.make("fogd", D=30, eta=0.3, sigma=SIGMA, seed=3), X, y)
    np.testing.assert_array_equal(one.scores[35:], a.scores)


def test_features_approximate_the_gaussian_kernel():
    """z(x)·z(x') → κ(x, x') (Rahimi & Recht): each of the D terms cos(u_j·(x − x')) has variance ≤ ½,
    so the error is O(1/√D); ‖z(x)‖² = 1 for every D."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 5)) * 0.8
    y = np.arange(12) % 2
    kappa = np.array([[gaussian(a, b, SIGMA) for b in X] for a in X])
    errors = {}
    for D in (50, 20000):
        Z = olkit.make("fogd", D=D, sigma=SIGMA, seed=1).fit(X, y).fourier_features(X)
        np.testing.assert_allclose(np.sum(Z * Z, axis=1), 1.0, rtol=0, atol=1e-12)
        errors[D] = np.abs(Z @ Z.T - kappa)
    assert errors[20000].max() < 6 / math.sqrt(2 * 20000)  # 6 standard deviations
    assert errors[20000].mean() < errors[50].mean() / 5


def test_lsokl_omits_the_scale():
    X, y = labelled_stream(1, 2)
    a = olkit.make("fogd", D=25, sigma=SIGMA).fit(X, y).fourier_features(X)
    b = olkit.make("fogd", D=25, sigma=SIGMA, compat="lsokl").fit(X, y).fourier_features(X)
    np.testing.assert_allclose(b, a * 5.0, rtol=1e-15, atol=0)
    # without the 1/√D the run is the default rule's with step η·D
    lsokl = olkit.evaluate_online(olkit.make("fogd", D=25, eta=0.012, sigma=SIGMA, compat="lsokl"), X, y)
    scaled = olkit.evaluate_online(olkit.make("fogd", D=25, eta=0.3, sigma=SIGMA), X, y)
    np.testing.assert_array_equal(lsokl.mistake_flags, scaled.mistake_flags)
    np.testing.assert_allclose(lsokl.scores, scaled.scores, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_two_classes_as_multiclass_equal_binary_with_twice_the_step(seed, monkeypatch):
    """docs/algorithms/fogd.md#multiclass-and-multi-label: the multiclass rule on 2 classes (+1 ↔ class index 0)
    with step η is the binary rule with 2η: every prediction agrees and f_binary = F_0 − F_1 (exactly: the two runs
    differ by powers of two)."""
    X, y = labelled_stream(50 + seed, 2)
    binary = olkit.evaluate_online(olkit.make("fogd", D=40, eta=0.6, sigma=SIGMA), X, y)
    monkeypatch.setattr(FOGD, "_binary_as_multiclass", True)
    y_mc = np.where(y == 1, 0, 1)
    mc_clf = olkit.make("fogd", D=40, eta=0.3, sigma=SIGMA)
    multi = olkit.evaluate_online(mc_clf, X, y_mc)
    assert multi.scores.shape == (len(y), 2) and mc_clf.coef_.shape == (2, 80)
    np.testing.assert_array_equal(multi.mistake_flags, binary.mistake_flags)
    np.testing.assert_array_equal(multi.scores[:, 0] - multi.scores[:, 1], binary.scores)
    assert multi.n_updates == binary.n_updates


def test_sincos_within_one_ulp():
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            rng.uniform(-10, 10, 2000),
            rng.uniform(-1e9, 1e9, 2000),
            np.arange(-200, 200) * (np.pi / 2),
            np.arange(-200, 200) * (np.pi / 4),
            [0.0, -0.0],
        ]
    )
    got = np.array([sincos(v) for v in x])
    np.testing.assert_allclose(got[:, 0], np.sin(x), rtol=0, atol=4e-16)
    np.testing.assert_allclose(got[:, 1], np.cos(x), rtol=0, atol=4e-16)


def test_huge_arguments_use_the_library():
    """|u·x| > 1e9 takes math.cos / math.sin (the fast reduction needs |2x/π| < 2^51: beyond ~3.5e15 it would
    return garbage). Rows with one non-zero make u_j·x a single product, the same bits as the reference's."""
    rng = np.random.default_rng(5)
    X = np.zeros((40, 3))
    X[np.arange(40), rng.integers(0, 3, 40)] = rng.choice([1e16, -3e17, 2.5e10, 7.0, -0.5], 40)
    y = np.where(rng.random(40) < 0.5, 1, -1)
    clf = olkit.make("fogd", D=10, sigma=SIGMA, shuffle=False).fit(X, y)
    U = directions(X.shape[1], 10, SIGMA, 0)
    Z = np.array([fourier_features(x, U) for x in X])
    np.testing.assert_allclose(clf.fourier_features(X), Z, rtol=0, atol=1e-16)
    assert np.all(np.isfinite(clf.coef_))


def test_sparse_high_dimensional_stream_stays_sparse():
    rng = np.random.default_rng(1)
    X = sp.random(60, 100_000, density=5e-5, random_state=2, format="csr") * 3
    y = rng.integers(0, 2, 60)
    res = olkit.evaluate_online(olkit.make("fogd", D=20), X, y)
    assert res.n_examples == 60 and res.n_sv == 20


@pytest.mark.parametrize(
    "params,name",
    [
        ({"D": 0}, "D"),
        ({"D": 2.5}, "D"),
        ({"D": -3}, "D"),
        ({"eta": 0}, "eta"),
        ({"eta": -0.1}, "eta"),
        ({"sigma": 0}, "sigma"),
        ({"sigma": 1e-320}, "sigma"),
        ({"kernel": "linear"}, "kernel"),
        ({"compat": "ahp-r"}, "compat"),
        ({"seed": -1}, "seed"),
        ({"seed": 0.5}, "seed"),
    ],
)
def test_parameter_errors(params, name):
    with pytest.raises(ValueError, match=f"fogd: parameter {name}="):
        olkit.make("fogd", **params)


def test_model_too_large_is_refused_before_allocating():
    with pytest.raises(ValueError, match="parameter D=.*too large"):
        olkit.make("fogd", D=10**9).fit(np.eye(3), [0, 1, 1])


def test_cli_run_and_list(capsys):
    import json

    from olkit.cli import main

    assert main(["run", "fogd", "--data", "german", "--repeats", "1", "--format", "json", "--set", "D=300"]) == 0
    doc = json.loads(capsys.readouterr().out)
    result = doc["results"][0]
    assert result["algorithm"] == "fogd" and result["params"]["D"] == 300
    run = result["runs"][0]
    assert run["n_sv"] == 300 and 0.2 < run["mistake_rate"] < 0.45
    assert main(["list", "fogd"]) == 0
    out = capsys.readouterr().out
    assert "fogd" in out and "D" in out and "eta" in out
