"""Invariants of the kernel learners on random streams.

* DUOL's cached margins F_i equal y_i f(x_i) recomputed from the final model; every γ_i ∈ [0, C]
  (and > 0 except for DUOL_rand, whose generic QP can drive a weight to 0);
* the SV Gram cache equals the recomputed kernel matrix;
* a stream fed in chunks (``partial_fit`` / ``evaluate_online(reset=False)``), a stream pickled and
  resumed, and a stream processed with other block sizes give the result of one pass;
* long streams (> one block of ``olkit.protocol.BLOCK_SIZE`` examples) still match the reference;
* sparse and dense versions of the same data agree; zero vectors never produce NaN.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
import olkit.protocol
from reference.kernel_binary import DUAL_LINEAR, KernelParams, kernel_matrix, random_stream, run_reference

ALL = [
    "perceptron",
    "pa",
    "pa1",
    "pa2",
    "romma",
    "agg-romma",
    "alma",
    "duol",
    "duol-appr",
    "duol-iter",
    "duol-rand",
    "online-svm",
]
DUOL_CONFIGS = [
    ("duol", {}),
    ("duol", {"rho": 0.2}),
    ("duol", {"C": 0.5}),
    ("duol", {"variant": "nips2009"}),
    ("duol-appr", {}),
    ("duol-appr", {"rho": 0.2, "C": 1.0}),
    ("duol-iter", {}),
    ("duol-iter", {"C": 0.5}),
    ("duol-rand", {}),
    ("duol-rand", {"C": 1.0, "seed": 5}),
]
DUOL_IDS = [f"{n}-{'-'.join(f'{k}{v}' for k, v in p.items()) or 'default'}" for n, p in DUOL_CONFIGS]
KERNELS = [
    {"kernel": "gaussian", "sigma": 0.7},
    {"kernel": "gaussian", "sigma": 1.5},
    DUAL_LINEAR,
    {"kernel": "poly", "degree": 2, "coef0": 1.0},
]


def kernel_params(clf):
    return KernelParams(clf.kernel, float(clf.sigma), int(clf.degree), float(clf.coef0))


def sv_inputs(clf):
    S = clf.support_vectors_
    return S.toarray() if sp.issparse(S) else np.asarray(S)


def assert_same_result(a, b, exact=True, label=""):
    """Two OnlineResults (or lists of chunk results) describe the same run."""
    if exact:
        np.testing.assert_array_equal(a["scores"], b["scores"], err_msg=f"{label}: scores")
    else:
        np.testing.assert_allclose(a["scores"], b["scores"], rtol=1e-12, atol=1e-12, err_msg=f"{label}: scores")
    np.testing.assert_array_equal(a["flags"], b["flags"], err_msg=f"{label}: mistake flags")
    assert a["coef"].shape == b["coef"].shape, f"{label}: stored SVs {a['coef'].shape} vs {b['coef'].shape}"
    if exact:
        np.testing.assert_array_equal(a["coef"], b["coef"], err_msg=f"{label}: coefficients")
    else:
        np.testing.assert_allclose(a["coef"], b["coef"], rtol=1e-12, atol=1e-12, err_msg=f"{label}: coefficients")
    for key in ("mistakes", "n_sv", "n_updates", "diagnostics"):
        assert a[key] == b[key], f"{label}: {key} {a[key]} vs {b[key]}"


def summary(results, clf, Xt):
    """Concatenate chunk results of one learner into one record."""
    if not isinstance(results, list):
        results = [results]
    return {
        "scores": np.concatenate([r.scores for r in results]),
        "flags": np.concatenate([r.mistake_flags for r in results]),
        "mistakes": sum(r.mistakes for r in results),
        "n_updates": sum(r.n_updates for r in results),
        "n_sv": results[-1].n_sv,
        "diagnostics": results[-1].diagnostics,
        "decision": clf.decision_function(Xt),
        "coef": clf.support_.coef[: clf.support_.n, 0].copy(),
    }


# ---------------------------------------------------------------------------------------------------------
# DUOL caches
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("name,params", DUOL_CONFIGS, ids=DUOL_IDS)
def test_duol_cached_margins_and_weights(name, params, sparse):
    for j, kernel in enumerate(KERNELS):
        X, y, _ = random_stream(seed=300 + j, n=150, d=4 + j, sparse=sparse)
        clf = olkit.make(name, **params, **kernel)
        res = olkit.evaluate_online(clf, X, y)
        s = clf.support_
        n = s.n
        assert n == clf.support_vectors_.shape[0] == res.n_updates
        F, coef, ysv = s.F[:n].copy(), s.coef[:n, 0].copy(), s.y[:n].copy()
        assert set(np.unique(ysv)) <= {-1.0, 1.0}
        # cached margins F_i = y_i f(x_i) of the final model (duol.md step 5/6 cache update)
        f_sv = clf.decision_function(clf.support_vectors_)
        np.testing.assert_allclose(F, ysv * f_sv, rtol=1e-9, atol=1e-9, err_msg=f"{name} {params} {kernel}: F")
        # ... and the reference's own caches
        ref = run_reference(name, X, y, **params, **kernel)
        np.testing.assert_allclose(F, ref.F, rtol=1e-9, atol=1e-9, err_msg=f"{name} {kernel}: F vs reference")
        np.testing.assert_allclose(coef, ref.coef, rtol=1e-9, atol=1e-9, err_msg=f"{name} {kernel}: coef")
        # the labels stored with the SVs are the stream labels of the SVs
        np.testing.assert_array_equal(ysv, ref.y_pm[ref.sv_rows])
        # weights γ_i = a_i y_i ∈ [0, C] (duol.md state), > 0 for the deterministic variants
        gamma = coef * ysv
        C = clf.resolved_params()["C"]
        assert np.all(gamma >= 0.0) and np.all(gamma <= C), (name, params, kernel, gamma.min(), gamma.max() - C)
        if name != "duol-rand":
            assert np.all(gamma > 0.0), (name, params, kernel)
            assert res.n_sv == n
        else:
            assert res.n_sv == int(np.count_nonzero(coef))


GRAM_LEARNERS = ["duol", "duol-appr", "duol-iter", "duol-rand", "online-svm"]


def _gram_runs(name):
    for j, kernel in enumerate(KERNELS):
        X, y, _ = random_stream(seed=310 + j, n=90, d=5, sparse=j % 2 == 1)
        clf = olkit.make(name, **kernel)
        olkit.evaluate_online(clf, X, y)
        s = clf.support_
        assert s.use_gram, f"{name} should keep the SV Gram cache"
        n = s.n
        S = sv_inputs(clf)
        K = kernel_matrix(S, S, kernel_params(clf), same=True)
        yield kernel, np.asarray(s.gram_matrix()).copy(), K, np.asarray(s.kself[:n]).copy()


@pytest.mark.parametrize("name", GRAM_LEARNERS)
def test_gram_cache_lower_triangle_equals_kernel_matrix(name):
    """Row i of the cache, filled when SV i is added: gram[i, j] = κ(x_i, x_j) for j ≤ i."""
    for kernel, G, K, kself in _gram_runs(name):
        low = np.tril_indices(G.shape[0])
        np.testing.assert_allclose(G[low], K[low], rtol=1e-12, atol=1e-12, err_msg=f"{name} {kernel}: Gram cache")
        np.testing.assert_allclose(kself, np.diag(K), rtol=1e-12, atol=1e-12)
        if kernel["kernel"] == "gaussian":
            np.testing.assert_array_equal(np.diag(G), 1.0)  # κ(x, x) = 1 exactly (conventions.md#kernels)


@pytest.mark.parametrize("name", GRAM_LEARNERS)
def test_gram_cache_full_matrix_equals_kernel_matrix(name):
    """The documented cache: gram[i, j] = κ(x_i, x_j) for all i, j < n (symmetric)."""
    for kernel, G, K, _ in _gram_runs(name):
        np.testing.assert_allclose(G, K, rtol=1e-12, atol=1e-12, err_msg=f"{name} {kernel}: Gram cache")
        np.testing.assert_array_equal(G, G.T, err_msg=f"{name} {kernel}: Gram cache not symmetric")


# ---------------------------------------------------------------------------------------------------------
# Chunks, pickling, blocks
# ---------------------------------------------------------------------------------------------------------
CHUNKS = [(0, 37), (37, 251), (251, 330)]  # uneven, one chunk crossing a 256-block boundary


def _one_pass(name, X, y, Xt, **params):
    clf = olkit.make(name, **params)
    return summary(olkit.evaluate_online(clf, X, y), clf, Xt)


def _chunked(name, X, y, Xt, **params):
    clf = olkit.make(name, **params)
    out = [olkit.evaluate_online(clf, X[a:b], y[a:b], reset=(a == 0)) for a, b in CHUNKS]
    return summary(out, clf, Xt)


def _partial_fit(name, X, y, Xt, **params):
    clf = olkit.make(name, **params)
    for a, b in CHUNKS:
        clf.partial_fit(X[a:b], y[a:b], classes=np.unique(y))
    return clf


def _integer_stream(seed, n=330, d=5, sparse=False):
    """Small-integer features: every dot product is exact, so no arithmetic path can round differently."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(float)
    y = np.where(X @ rng.normal(size=d) + 0.5 * rng.normal(size=n) >= 0, 1, -1)
    Xt = rng.integers(-3, 4, size=(6, d)).astype(float)
    return (sp.csr_matrix(X) if sparse else X), y, (sp.csr_matrix(Xt) if sparse else Xt)


def _params(name):
    p = {"kernel": "gaussian", "sigma": 2.0}
    if name == "online-svm":
        p["working_set"] = "margin"
    return p


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("name", ALL)
def test_chunks_equal_one_pass_integer_data(name, sparse):
    """With exact dot products the chunked stream and fit/partial_fit are bit-for-bit one pass."""
    X, y, Xt = _integer_stream(11, sparse=sparse)
    p = _params(name)
    one = _one_pass(name, X, y, Xt, **p)
    assert_same_result(one, _chunked(name, X, y, Xt, **p), exact=True, label=f"{name} chunks")
    np.testing.assert_array_equal(one["decision"], _chunked(name, X, y, Xt, **p)["decision"])
    fitted = olkit.make(name, **p, shuffle=False).fit(X, y)
    np.testing.assert_array_equal(fitted.decision_function(Xt), one["decision"])
    np.testing.assert_array_equal(_partial_fit(name, X, y, Xt, **p).decision_function(Xt), one["decision"])


@pytest.mark.parametrize("name", ALL)
def test_chunks_equal_one_pass_float_data(name):
    """Real-valued data: identical mistakes, #SV, #updates, diagnostics; scores and the final model equal
    to 1e-12 (see the strict test below for bit-for-bit equality)."""
    X, y, Xt = random_stream(seed=21, n=330, d=6)
    p = _params(name)
    one = _one_pass(name, X, y, Xt, **p)
    chunked = _chunked(name, X, y, Xt, **p)
    assert_same_result(one, chunked, exact=False, label=f"{name} chunks")
    np.testing.assert_allclose(chunked["decision"], one["decision"], rtol=1e-12, atol=1e-12)
    fitted = olkit.make(name, **p, shuffle=False).fit(X, y)
    np.testing.assert_array_equal(fitted.decision_function(Xt), one["decision"])  # same blocks as one pass
    pf = _partial_fit(name, X, y, Xt, **p)
    np.testing.assert_allclose(pf.decision_function(Xt), one["decision"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ALL)
def test_pickle_mid_stream_resumes_identically(name):
    X, y, Xt = random_stream(seed=31, n=200, d=5, sparse=name in ("pa", "duol", "alma"))
    p = dict(_params(name), sigma=1.0)
    clf = olkit.make(name, **p)
    first = olkit.evaluate_online(clf, X[:90], y[:90])
    clone = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clone.decision_function(Xt), clf.decision_function(Xt))
    rest_a = olkit.evaluate_online(clf, X[90:], y[90:], reset=False)
    rest_b = olkit.evaluate_online(clone, X[90:], y[90:], reset=False)
    a, b = summary([first, rest_a], clf, Xt), summary([first, rest_b], clone, Xt)
    assert_same_result(a, b, exact=True, label=f"{name} pickled")
    np.testing.assert_array_equal(a["decision"], b["decision"])
    # and the resumed stream is the one-pass stream
    one = _one_pass(name, X, y, Xt, **p)
    assert_same_result(one, a, exact=False, label=f"{name} pickled vs one pass")


LONG_CONFIGS = [(n, {}) for n in ALL if n != "online-svm"] + [
    ("agg-romma", {"romma_reset_case": True}),
    ("duol", {"variant": "nips2009"}),
    ("duol", {"rho": 0.2}),
    ("online-svm", {"working_set": "margin"}),
]
LONG_IDS = [f"{n}-{'-'.join(f'{k}{v}' for k, v in p.items()) or 'default'}" for n, p in LONG_CONFIGS]


@pytest.mark.parametrize("name,params", LONG_CONFIGS, ids=LONG_IDS)
def test_long_stream_blocks_match_reference(name, params, monkeypatch):
    """A stream longer than a block (256) against the reference, with the default and odd block sizes."""
    n = 300 if name == "online-svm" else 600
    assert n > olkit.protocol.BLOCK_SIZE
    X, y, Xt = random_stream(seed=41, n=n, d=6, sparse=name in ("pa1", "duol", "duol-iter", "romma"))
    p = dict(params, kernel="gaussian", sigma=1.0)
    ref = run_reference(name, X, y, **p)
    runs = {}
    for bs in (olkit.protocol.BLOCK_SIZE, 1, 7):
        monkeypatch.setattr(olkit.protocol, "BLOCK_SIZE", bs)
        clf = olkit.make(name, **p)
        res = olkit.evaluate_online(clf, X, y)
        assert res.mistakes == ref.mistakes, (bs, res.mistakes, ref.mistakes)
        assert res.n_sv == ref.n_sv and res.n_updates == ref.n_updates, (bs, res.n_sv, ref.n_sv)
        for key, value in ref.diagnostics.items():
            assert res.diagnostics[key] == value, (bs, key)
        np.testing.assert_allclose(res.scores, ref.scores, rtol=1e-9, atol=1e-9, err_msg=f"block size {bs}")
        np.testing.assert_allclose(clf.decision_function(Xt), ref.decision_function(Xt), rtol=1e-9, atol=1e-9)
        runs[bs] = summary(res, clf, Xt)
    for bs in (1, 7):
        assert_same_result(runs[256], runs[bs], exact=False, label=f"block size {bs} vs 256")


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("name", ["pa", "duol", "duol-rand"])
def test_block_size_irrelevant_for_integer_data(name, sparse, monkeypatch):
    """Exact dot products: block sizes 1, 7 and 256 give bit-for-bit the same run."""
    X, y, Xt = _integer_stream(12, n=400, sparse=sparse)
    p = _params(name)
    runs = {}
    for bs in (256, 1, 7):
        monkeypatch.setattr(olkit.protocol, "BLOCK_SIZE", bs)
        runs[bs] = _one_pass(name, X, y, Xt, **p)
    for bs in (1, 7):
        assert_same_result(runs[256], runs[bs], exact=True, label=f"block size {bs}")
        np.testing.assert_array_equal(runs[256]["decision"], runs[bs]["decision"])


# ---------------------------------------------------------------------------------------------------------
# Sparse vs dense, order, zero vectors
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL)
def test_sparse_and_dense_agree(name):
    for j, kernel in enumerate(KERNELS):
        X, y, Xt = random_stream(seed=51 + j, n=120, d=7, sparse=True)
        Xd, Xtd = X.toarray(), Xt.toarray()
        a = olkit.make(name, **kernel)
        b = olkit.make(name, **kernel)
        ra = olkit.evaluate_online(a, X, y)
        rb = olkit.evaluate_online(b, Xd, y)
        assert (ra.mistakes, ra.n_sv, ra.n_updates, ra.diagnostics) == (
            rb.mistakes,
            rb.n_sv,
            rb.n_updates,
            rb.diagnostics,
        ), (name, kernel)
        np.testing.assert_array_equal(ra.mistake_flags, rb.mistake_flags)
        np.testing.assert_allclose(ra.scores, rb.scores, rtol=1e-9, atol=1e-9)
        for P in (Xt, Xtd):  # both models accept both input kinds
            np.testing.assert_allclose(a.decision_function(P), b.decision_function(P), rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(sv_inputs(a), sv_inputs(b))


@pytest.mark.parametrize("name", ALL)
def test_order_argument_is_the_permuted_stream(name):
    X, y, Xt = random_stream(seed=61, n=120, d=5)
    order = np.random.default_rng(0).permutation(len(y))
    a = olkit.make(name, sigma=1.0)
    b = olkit.make(name, sigma=1.0)
    ra = olkit.evaluate_online(a, X, y, order=order)
    rb = olkit.evaluate_online(b, X[order], y[order])
    assert_same_result(summary(ra, a, Xt), summary(rb, b, Xt), exact=False, label=f"{name} order")


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("name", ALL)
def test_zero_vectors_never_nan(name, sparse):
    rng = np.random.default_rng(71)
    n, d = 80, 4
    X = rng.normal(size=(n, d))
    X[rng.random(n) < 0.5] = 0.0
    X[:3] = 0.0  # the stream starts with zero vectors of both labels
    y = np.where(X @ rng.normal(size=d) >= 0, 1, -1)
    y[0], y[1], y[2] = -1, 1, -1
    Xall0 = np.zeros((10, d))
    y0 = np.array([-1, 1] * 5)
    for kernel in (
        DUAL_LINEAR,
        {"kernel": "poly", "degree": 2, "coef0": 0.0},
        {"kernel": "poly", "degree": 3, "coef0": 1.0},
        {"kernel": "gaussian", "sigma": 0.5},
    ):
        for XX, yy in ((X, y), (Xall0, y0)):
            XX = sp.csr_matrix(XX) if sparse else XX
            clf = olkit.make(name, **kernel)
            res = olkit.evaluate_online(clf, XX, yy)
            assert np.all(np.isfinite(res.scores)), (name, kernel)
            assert np.all(np.isfinite(clf.decision_function(XX))), (name, kernel)
            s = clf.support_
            assert np.all(np.isfinite(s.coef[: s.n])), (name, kernel)
            zero_norm = kernel["kernel"] == "linear" or (kernel["kernel"] == "poly" and kernel["coef0"] == 0.0)
            if zero_norm and name not in ("perceptron", "online-svm"):
                # κ(0, ·) ≡ 0: a zero vector cannot change f, the guarded updates never store it (pa.md,
                # conventions.md#numerical-guards)
                zero_rows = [i for i in range(s.n) if not np.any(sv_inputs(clf)[i])]
                assert not zero_rows, (name, kernel, zero_rows)


@pytest.mark.parametrize("variant", ["jmlr", "nips2009"])
def test_duol_ties_do_not_depend_on_the_code_path(variant):
    """docs/algorithms/duol.md#ties: on dense data with many duplicate rows and non-dyadic values, tied kernel
    values differ in their last bit between the block product, single dot products and the Gram cache;
    with the relative tie tolerance the blocked pass, one-by-one partial_fit and chunks agree exactly."""
    rng = np.random.default_rng(11)
    base = rng.choice([0.1, 0.3, 0.7, 1.1, -0.3], size=(60, 5))
    X = base[rng.integers(60, size=900)] * np.array([1.0, 3.0, 0.2, 7.0, 1.3])
    y = np.where(X @ rng.normal(size=5) + 0.4 * rng.normal(size=900) > 0, 1, -1)
    params = dict(variant=variant, sigma=1.7)
    blocked = olkit.evaluate_online(olkit.make("duol", **params), X, y)
    one = olkit.make("duol", **params)
    for t in range(len(y)):
        one.partial_fit(X[t : t + 1], y[t : t + 1], classes=[-1, 1])
    chunked = olkit.make("duol", **params)
    for lo in range(0, len(y), 97):
        chunked.partial_fit(X[lo : lo + 97], y[lo : lo + 97], classes=[-1, 1])
    assert blocked.mistakes == one.n_mistakes_ == chunked.n_mistakes_
    assert blocked.n_sv == one.n_support_ == chunked.n_support_
    np.testing.assert_allclose(one.decision_function(X), blocked_clf_scores(params, X, y), rtol=1e-9, atol=1e-9)


def blocked_clf_scores(params, X, y):
    return olkit.make("duol", **params, shuffle=False).fit(X, y).decision_function(X)
