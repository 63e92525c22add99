"""NOGD (docs/algorithms/nogd.md) against the literal per-round reference ``tests/reference/feature_maps.py``.

Streams have small integer features with ~30 % duplicate rows (``stream`` of the multiclass kernel
reference; exact ‖x − z‖²), binary and 3–5 classes, dense and CSR, 70 rounds; budgets are small (B = 4…10)
so that the switch to the Nyström features happens early and stage 2 runs for most of the stream. Asserted:
per-round mistake flags identical, #updates, #SV, the switch round and the rank equal, per-round scores and
the final W φ(x) equal to 1e-9. The reference eigen-decomposes with numpy, olkit inside its compiled loop:
the eigenvectors may differ in sign (or in basis within a cluster of equal eigenvalues), which W φ does not
see unless the top-k cut splits a cluster — the reference reports the gap at the cut and the streams used
have one.
"""

import itertools
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from olkit.learners.budget.nogd import NOGD
from reference.feature_maps import gaussian, nogd
from reference.kernel_multiclass import stream

SIGMA = 1.5

# (seed, classes, B, k, eta)
CASES = [
    (seed, 2, B, k, eta)
    for seed, B, k, eta in [
        (0, 4, None, 0.3),
        (1, 6, 2, 0.3),
        (2, 10, 3, 0.7),
        (3, 5, 5, 0.3),
        (4, 8, 1, 0.7),
        (5, 10, None, 0.3),
    ]
] + [
    (10 + seed, K, B, k, eta)
    for seed, K, B, k, eta in [
        (0, 3, 4, None, 0.3),
        (1, 4, 6, 2, 0.3),
        (2, 5, 10, 3, 0.7),
        (3, 3, 5, 5, 0.3),
        (4, 4, 8, 1, 0.7),
        (5, 5, 10, None, 0.3),
    ]
]


def labelled_stream(seed, K):
    """Binary: labels ±1; multiclass: class indices 0..K−1."""
    X, y = stream(seed, K=K)
    return X, (np.where(y == 1, 1, -1) if K == 2 else y)


def resolved_k(B, k):
    return max(1, round(0.2 * B)) if k is None else k


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c[0]}-K{c[1]}-B{c[2]}-k{c[3]}-eta{c[4]}")
def test_matches_reference(case, fmt):
    seed, K, B, k, eta = case
    X, y = labelled_stream(seed, K)
    ref = nogd(X, y, eta, B, resolved_k(B, k), SIGMA, n_classes=K)
    assert ref["transition"] > 0 and ref["gap"] > 1e-6 and ref["kept_ratio"] > 1e-6
    clf = olkit.make("nogd", B=B, k=k, eta=eta, sigma=SIGMA)
    res = olkit.evaluate_online(clf, sp.csr_matrix(X) if fmt == "csr" else X, y)
    np.testing.assert_array_equal(res.mistake_flags, ref["mistakes"])
    assert res.n_updates == ref["n_updates"]
    assert res.n_sv == clf.n_support_ == ref["n_sv"] == B
    assert clf.diagnostics() == {"transition": ref["transition"], "rank": ref["rank"]}
    assert clf.stage_ == 2
    scores = res.scores if K > 2 else res.scores.reshape(-1, 1)
    np.testing.assert_allclose(scores, ref["scores"], rtol=0, atol=1e-9)
    # the final model on every stream point: W φ(x) (basis-independent)
    Kx = np.array([[gaussian(x, s, SIGMA) for s in ref["SV"]] for x in X])
    expected = Kx @ ref["M"].T @ ref["W"].T
    got = clf.decision_function(X)
    np.testing.assert_allclose(got if K > 2 else got[:, None], expected, rtol=0, atol=1e-9)


def test_stage_one_is_kernel_ogd():
    """Below the budget NOGD is kernel OGD: every margin error stores x_t with ηy_t."""
    X, y = labelled_stream(7, 2)
    ref = nogd(X, y, 0.3, 1000, 200, SIGMA)
    clf = olkit.make("nogd", B=1000, eta=0.3, sigma=SIGMA)
    res = olkit.evaluate_online(clf, X, y)
    assert clf.stage_ == 1 and clf.diagnostics() == {"transition": 0, "rank": 0} and clf.nystrom_map() is None
    np.testing.assert_array_equal(res.mistake_flags, ref["mistakes"])
    assert res.n_sv == res.n_updates == ref["n_sv"]
    np.testing.assert_allclose(clf.dual_coef_, ref["A"][:, 0], rtol=0, atol=0)
    np.testing.assert_allclose(res.scores, ref["scores"][:, 0], rtol=0, atol=1e-12)


@pytest.mark.parametrize("k", [3, 8])
def test_nystrom_map_whitens_the_support_vectors(k):
    """φ(x_i) over the B SVs: M K̂ Mᵀ = I_k, and with k = B the features reproduce the Gram matrix."""
    X, y = labelled_stream(3, 2)
    clf = olkit.make("nogd", B=8, k=k, sigma=SIGMA, shuffle=False).fit(X, y)
    M = clf.nystrom_map()
    S = clf.support_vectors_
    G = np.array([[gaussian(a, b, SIGMA) for b in S] for a in S])
    Phi = M @ G  # column i = φ(x_i)
    np.testing.assert_allclose(M @ G @ M.T, np.eye(M.shape[0]), rtol=0, atol=1e-9)
    if k == 8:
        np.testing.assert_allclose(Phi.T @ Phi, G, rtol=0, atol=1e-9)


@pytest.mark.parametrize("K", [2, 4])
def test_chunks_equal_one_pass(K):
    """Decisions identical; scores up to the rounding of the block dot products (the kernel engine's BLAS
    products, olkit.protocol)."""
    X, y = labelled_stream(30 + K, K)
    X = np.vstack([X] * 3)
    y = np.concatenate([y] * 3)
    one = olkit.make("nogd", B=6, eta=0.3, sigma=SIGMA)
    whole = olkit.evaluate_online(one, X, y)
    chunked = olkit.make("nogd", B=6, eta=0.3, sigma=SIGMA)
    bounds = [0, 20, 21, 22, 90, 209, 210]
    parts = [olkit.evaluate_online(chunked, X[lo:hi], y[lo:hi], reset=lo == 0) for lo, hi in itertools.pairwise(bounds)]
    np.testing.assert_array_equal(np.concatenate([p.mistake_flags for p in parts]), whole.mistake_flags)
    np.testing.assert_allclose(np.concatenate([p.scores for p in parts]), whole.scores, rtol=0, atol=1e-10)
    assert chunked.diagnostics() == one.diagnostics() and chunked.n_updates_ == one.n_updates_
    np.testing.assert_allclose(chunked.decision_function(X), one.decision_function(X), rtol=0, atol=1e-10)


@pytest.mark.parametrize("cut", [5, 40])  # before and after the switch
def test_pickle_mid_stream_continues_identically(cut):
    X, y = labelled_stream(44, 4)
    clf = olkit.make("nogd", B=8, k=3, eta=0.3, sigma=SIGMA)
    olkit.evaluate_online(clf, X[:cut], y[:cut])
    copy = pickle.loads(pickle.dumps(clf))
    a = olkit.evaluate_online(clf, X[cut:], y[cut:], reset=False)
    b = olkit.evaluate_online(copy, X[cut:], y[cut:], reset=False)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.mistake_flags, b.mistake_flags)
    assert clf.diagnostics() == copy.diagnostics() and clf.diagnostics()["transition"] > 0
    np.testing.assert_array_equal(clf.decision_function(X), copy.decision_function(X))


@pytest.mark.parametrize("seed", range(4))
def test_two_classes_as_multiclass_equal_binary_with_twice_the_step(seed, monkeypatch):
    """docs/algorithms/nogd.md#multiclass-and-multi-label, K = 2: the multiclass rule with η on 2 classes (+1 ↔
    class index 0) is the binary rule with 2η."""
    X, y = labelled_stream(50 + seed, 2)
    binary = olkit.evaluate_online(olkit.make("nogd", B=6, k=2, eta=0.6, sigma=SIGMA), X, y)
    monkeypatch.setattr(NOGD, "_binary_as_multiclass", True)
    clf = olkit.make("nogd", B=6, k=2, eta=0.3, sigma=SIGMA)
    multi = olkit.evaluate_online(clf, X, np.where(y == 1, 0, 1))
    assert multi.scores.shape == (len(y), 2) and clf.diagnostics()["transition"] > 0
    np.testing.assert_array_equal(multi.mistake_flags, binary.mistake_flags)
    np.testing.assert_allclose(multi.scores[:, 0] - multi.scores[:, 1], binary.scores, rtol=0, atol=1e-12)
    assert multi.n_updates == binary.n_updates


@pytest.mark.parametrize(
    "params,name",
    [
        ({"B": 1}, "B"),
        ({"B": 2.5}, "B"),
        ({"k": 0}, "k"),
        ({"k": 1.5}, "k"),
        ({"B": 10, "k": 11}, "k"),
        ({"eta": 0}, "eta"),
        ({"sigma": 0}, "sigma"),
        ({"compat": "dogma"}, "compat"),
    ],
)
def test_parameter_errors(params, name):
    with pytest.raises(ValueError, match=f"nogd: parameter {name}="):
        olkit.make("nogd", **params)


def test_default_rank_and_cli(capsys):
    import json

    from olkit.cli import main

    assert olkit.make("nogd").resolved_params()["k"] == 120
    assert main(["run", "nogd", "--data", "german", "--repeats", "1", "--format", "json", "--set", "B=100"]) == 0
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert result["params"]["k"] == 20
    run = result["runs"][0]
    assert run["n_sv"] == 100 and run["diagnostics"]["rank"] == 20 and 0.2 < run["mistake_rate"] < 0.45
