"""Multiclass and multi-label kernel learners against a literal per-round reference (ALGORITHMS.md B0–B4).

The reference below is written straight from the formulas: explicit kernel evaluations, the coefficient
vectors A_i of every stored point, f_c(x_t) = Σ_i A_i[c] κ(x_i, x_t), and for M-DUOL the cached margins
F_i and the directions H_i kept as the paper's Algorithm 2 does. Streams have 3–5 classes, duplicate rows
(with the same and with other labels) and small integer features, so ties are common.
"""
import itertools

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from olkit.learners.kernel.duol import solve_box_qp

SIGMA = 1.5


GAMMA = 1.0 / (2 * SIGMA ** 2)


def kern(a, b):
    # integer features: ‖a − b‖² is exact, so this equals the engine's value bit for bit, and rounding
    # cannot decide a "loss > 0" test differently in the reference and in olkit
    return float(np.exp(-np.sum((a - b) ** 2) * GAMMA))


def pair(Yrow, f):
    rel = [c for c in range(len(f)) if Yrow[c]]
    irr = [c for c in range(len(f)) if not Yrow[c]]
    if not rel or not irr:
        return -1, -1
    r = min(rel, key=lambda c: (f[c], c))
    s = max(irr, key=lambda c: (f[c], -c))
    return r, s


def hdot(a, b):
    return (a[0] == b[0]) + (a[1] == b[1]) - (a[0] == b[1]) - (a[1] == b[0])


def reference(name, X, Y, K, C=10.0, mode="max", tol=1e-9, multilabel=False):
    pts, A, H, F = [], [], [], []
    flags, scores = [], []
    for t in range(len(X)):
        x = X[t]
        k = np.array([kern(p, x) for p in pts])
        f = np.zeros(K)
        for j in range(len(pts)):  # the engine's summation order
            f = f + A[j] * k[j]
        scores.append(f.copy())
        Yrow = Y[t]
        if multilabel:
            r, s = pair(Yrow, f)
            flags.append(int(r >= 0 and f[r] <= f[s]))
        else:
            y = int(np.flatnonzero(Yrow)[0])
            flags.append(int(int(np.argmax(f)) != y))
        kt = kern(x, x)
        if name == "perceptron":
            y = int(np.flatnonzero(Yrow)[0])
            E = [c for c in range(K) if c != y and f[c] >= f[y]]
            if not E:
                continue
            tau = np.zeros(K)
            tau[y] = 1.0
            if mode == "max":
                tau[max(E, key=lambda c: (f[c], -c))] = -1.0
            else:
                tot = sum(f[c] - f[y] for c in E)
                for c in E:
                    tau[c] = -(f[c] - f[y]) / tot if (mode == "prop" and tot > 0) else -1.0 / len(E)
            pts.append(x), A.append(tau), H.append((-1, -1)), F.append(0.0)
            continue
        r, s = pair(Yrow, f)
        if r < 0:
            continue
        loss = 1.0 - (f[r] - f[s])
        if name == "pa1":
            if loss <= 0:
                continue
            g = min(C, loss / (2 * kt))
            a = np.zeros(K)
            a[r], a[s] = g, -g
            pts.append(x), A.append(a), H.append((r, s)), F.append(0.0)
            continue
        # M-DUOL (exact), Algorithm 2 with the relative tie rule (first of the tied set)
        if loss <= tol:
            continue
        Ht = (r, s)
        w = [hdot(Ht, H[i]) * k[i] for i in range(len(pts))]
        cand = [i for i in range(len(pts)) if F[i] <= 1 + tol]
        b = -1
        if cand:
            wmin = min(w[i] for i in cand)
            b = next(i for i in cand if w[i] <= wmin + tol * abs(wmin))
        newF = f[r] - f[s]
        if b >= 0 and w[b] <= 0.0:
            kb = kern(pts[b], pts[b])
            gb = A[b][H[b][0]]
            ga, d = solve_box_qp(loss, 1 - F[b], 2 * kt, 2 * kb, w[b], 0.0, C, -gb, C - gb)
        else:
            ga, d = min(C, loss / (2 * kt)), 0.0
        pts.append(x), H.append(Ht), F.append(newF)
        a = np.zeros(K)
        a[r], a[s] = ga, -ga
        A.append(a)
        if d != 0.0:
            A[b] = np.zeros(K)
            A[b][H[b][0]], A[b][H[b][1]] = gb + d, -(gb + d)
        for i in range(len(pts)):
            F[i] += ga * hdot(Ht, H[i]) * kern(x, pts[i])
            if d != 0.0:
                F[i] += d * hdot(H[b], H[i]) * kern(pts[b], pts[i])
    n_sv = sum(1 for a in A if np.any(a != 0))
    return np.array(flags), np.array(scores), n_sv


def stream(seed, n=70, K=4, d=3, multilabel=False):
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(n, d)).astype(float)
    dup = rng.random(n) < 0.3
    for t in np.flatnonzero(dup):
        if t > 0:
            X[t] = X[rng.integers(t)]
    if multilabel:
        Y = (rng.random((n, K)) < 0.35).astype(int)
        Y[np.arange(n), rng.integers(K, size=n)] = 1
        return X, Y
    y = (X @ rng.normal(size=d) * 1.3 + rng.normal(size=n)).round().astype(int) % K
    y[:K] = np.arange(K)
    return X, y


CASES = [("perceptron", {"multiclass_update": m}) for m in ("max", "uniform", "prop")] + \
        [("pa1", {}), ("duol", {})]


@pytest.mark.parametrize("name,params", CASES, ids=[f"{n}-{p.get('multiclass_update', '')}" for n, p in CASES])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_multiclass_matches_literal_reference(name, params, seed, sparse):
    K = 3 + seed % 3
    X, y = stream(seed, K=K)
    ref_flags, ref_scores, ref_sv = reference(name, X, np.eye(K)[y], K, mode=params.get("multiclass_update", "max"))
    clf = olkit.make(name, sigma=SIGMA, **params)
    res = olkit.evaluate_online(clf, sp.csr_matrix(X) if sparse else X, y)
    np.testing.assert_array_equal(res.mistake_flags, ref_flags)
    np.testing.assert_allclose(res.scores, ref_scores, rtol=1e-9, atol=1e-9)
    assert res.n_sv == ref_sv
    assert clf.decision_function(X).shape == (len(y), K)


@pytest.mark.parametrize("name", ["pa1", "duol"])
@pytest.mark.parametrize("seed", range(3))
def test_multilabel_matches_literal_reference(name, seed):
    X, Y = stream(100 + seed, K=5, multilabel=True)
    ref_flags, ref_scores, ref_sv = reference(name, X, Y, 5, multilabel=True)
    clf = olkit.make(name, sigma=SIGMA)
    res = olkit.evaluate_online(clf, X, Y)
    np.testing.assert_array_equal(res.mistake_flags, ref_flags)
    np.testing.assert_allclose(res.scores, ref_scores, rtol=1e-9, atol=1e-9)
    assert res.n_sv == ref_sv
    pred = clf.predict(X)
    assert pred.shape == Y.shape and np.all(pred.sum(axis=1) >= 1)


@pytest.mark.parametrize("name", ["duol", "pa1", "perceptron", "mira"])
def test_multiclass_chunks_equal_one_pass(name):
    X, y = stream(7, n=90, K=4)
    one = olkit.make(name, sigma=SIGMA).fit(X, y)
    chunked = olkit.make(name, sigma=SIGMA)
    for lo, hi in itertools.pairwise([0, 25, 60, 90]):
        chunked.partial_fit(X[lo:hi], y[lo:hi], classes=np.arange(4))
    np.testing.assert_allclose(chunked.decision_function(X), one.decision_function(X), rtol=1e-12, atol=1e-12)
    assert chunked.n_mistakes_ == one.n_mistakes_


def test_mira_kkt():
    """MIRA's τ solves its QP: Σ τ = 0, τ_r ≤ C δ_{r,y}, and τ_r = min(Cδ, θ − B_r/A) for one θ."""
    from olkit.learners.kernel.mira import mira_tau

    rng = np.random.default_rng(0)
    for _ in range(2000):
        K = int(rng.integers(2, 7))
        f = rng.normal(size=K) * rng.choice([0.1, 1, 5])
        y = int(rng.integers(K))
        A = float(rng.uniform(0.1, 2))
        C = float(rng.choice([0.5, 1.0, 3.0]))
        tau = np.zeros(K)
        if not mira_tau(f, y, A, C, tau):
            assert f[y] - 1 >= np.delete(f, y).max()
            continue
        assert abs(tau.sum()) < 1e-9
        bound = np.where(np.arange(K) == y, C, 0.0)
        assert np.all(tau <= bound + 1e-12)
        B = f - (np.arange(K) == y)
        free = tau < bound - 1e-12
        theta = (tau + B / A)[free]
        assert np.ptp(theta) < 1e-9
        assert np.all(bound[~free] <= theta[0] - B[~free] / A + 1e-9)
