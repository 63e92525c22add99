"""Multiclass and multi-label kernel learners against a literal per-round reference (docs/algorithms/multiclass.md).

The reference (``tests/reference/kernel_multiclass.py``) is written straight from the formulas: explicit
kernel evaluations, the coefficient vectors A_i of every stored point, f_c(x_t) = Σ_i A_i[c] κ(x_i, x_t),
MIRA's QP solved by bisection on θ, and for the M-DUOL forms the cached margins F_i and the directions H_i
kept as the paper's Algorithm 2 does (the exact double update by the independent box-QP enumeration).

Streams have 3–5 classes, ~30 % duplicate rows (with the same and with other labels) and small integer
features, so ties are common and kernel values are exact. Every learner runs on 20 single-label streams
(10 seeds × dense/CSR); the non-default configurations (C = 0.5, ρ = 0.3, …) on 10; the learners that take
label sets on 6 multi-label streams each (4–5 classes, dense and CSR). Asserted: per-round mistake flags,
#SV, #updates (and the DUOL forms' double-update count) identical, per-round scores equal to 1e-9.
Exact-arithmetic margin ties (a repeat of the point just updated) are decided as in exact arithmetic by
the reference (``MARGIN_TIE``), so olkit must not store an SV with a coefficient of rounding size there.
Prop. 5 against the box-QP oracles (≥ 10,000 instances, Δ = 0 included) is tests/test_duol_qp.py.
"""

import functools
import itertools

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from reference.kernel_multiclass import SIGMA, run_reference, stream

# (test id, olkit name, olkit params, reference kwargs)
MAIN = [
    ("perceptron-max", "perceptron", {"multiclass_update": "max"}, {"mode": "max"}),
    ("perceptron-uniform", "perceptron", {"multiclass_update": "uniform"}, {"mode": "uniform"}),
    ("perceptron-prop", "perceptron", {"multiclass_update": "prop"}, {"mode": "prop"}),
    ("mira", "mira", {}, {}),
    ("mira-margin", "mira", {"update": "margin"}, {"update": "margin"}),
    ("pa", "pa", {}, {}),
    ("pa1", "pa1", {}, {}),
    ("pa2", "pa2", {}, {}),
    ("duol", "duol", {}, {}),
    ("duol-appr", "duol-appr", {}, {}),
    ("duol-iter", "duol-iter", {}, {}),
]
EXTRA = [
    ("mira-C0.5", "mira", {"C": 0.5}, {"C": 0.5}),
    ("mira-margin-C0.5", "mira", {"C": 0.5, "update": "margin"}, {"C": 0.5, "update": "margin"}),
    ("mira-margin-C3", "mira", {"C": 3.0, "update": "margin"}, {"C": 3.0, "update": "margin"}),
    ("pa1-C0.5", "pa1", {"C": 0.5}, {"C": 0.5}),
    ("pa2-C0.5", "pa2", {"C": 0.5}, {"C": 0.5}),
    ("duol-rho0.3", "duol", {"rho": 0.3}, {"rho": 0.3}),
    ("duol-C0.5-rho0.3", "duol", {"C": 0.5, "rho": 0.3}, {"C": 0.5, "rho": 0.3}),
    ("duol-appr-rho0.3", "duol-appr", {"rho": 0.3}, {"rho": 0.3}),
    ("duol-appr-C0.5", "duol-appr", {"C": 0.5}, {"C": 0.5}),
    ("duol-iter-rho0.3", "duol-iter", {"rho": 0.3}, {"rho": 0.3}),
    ("duol-iter-C0.5-rho0.3", "duol-iter", {"C": 0.5, "rho": 0.3}, {"C": 0.5, "rho": 0.3}),
]
MULTILABEL = [
    ("pa", "pa", {}, {}),
    ("pa1", "pa1", {}, {}),
    ("pa2", "pa2", {}, {}),
    ("duol", "duol", {}, {}),
    ("duol-appr", "duol-appr", {}, {}),
    ("duol-iter", "duol-iter", {}, {}),
    ("pa1-C0.5", "pa1", {"C": 0.5}, {"C": 0.5}),
    ("pa2-C0.5", "pa2", {"C": 0.5}, {"C": 0.5}),
    ("duol-C0.5-rho0.3", "duol", {"C": 0.5, "rho": 0.3}, {"C": 0.5, "rho": 0.3}),
    ("duol-appr-rho0.3", "duol-appr", {"rho": 0.3}, {"rho": 0.3}),
    ("duol-iter-C0.5-rho0.3", "duol-iter", {"C": 0.5, "rho": 0.3}, {"C": 0.5, "rho": 0.3}),
]
CONFIGS = {c[0]: c for c in MAIN + EXTRA}
ML_CONFIGS = {c[0]: c for c in MULTILABEL}
N_SEEDS_MAIN, N_SEEDS_EXTRA, N_SEEDS_ML = 10, 5, 6


def mc_stream(seed):
    K = 3 + seed % 3
    X, y = stream(seed, K=K)
    return X, y, K


def ml_stream(seed):
    K = 4 + seed % 2
    return stream(100 + seed, K=K, multilabel=True)


@functools.cache
def mc_reference(cid, seed):
    _, name, _, kw = CONFIGS[cid]
    X, y, K = mc_stream(seed)
    return run_reference(name, X, np.eye(K, dtype=int)[y], **kw)


@functools.cache
def ml_reference(cid, seed):
    _, name, _, kw = ML_CONFIGS[cid]
    X, Y = ml_stream(seed)
    return run_reference(name, X, Y, multilabel=True, **kw)


def check(clf, res, ref):
    bad = np.flatnonzero(res.mistake_flags != ref.flags)
    assert bad.size == 0, (
        f"first differing round {bad[0]}: olkit {res.mistake_flags[bad[0]]}, reference {ref.flags[bad[0]]}"
    )
    np.testing.assert_allclose(res.scores, ref.scores, rtol=1e-9, atol=1e-9)
    if clf.support_ is not None and (res.n_sv, res.n_updates) != (ref.n_sv, ref.n_updates):
        coef = np.abs(clf.support_.coef[: clf.support_.n]).max(axis=1)
        tiny = np.flatnonzero((coef > 0) & (coef <= 1e-12))
        pytest.fail(
            f"olkit (#SV, #updates) = {(res.n_sv, res.n_updates)}, reference {(ref.n_sv, ref.n_updates)}; "
            f"olkit SVs with 0 < max|A_i| ≤ 1e-12 (rounding-decided ties): positions {tiny.tolist()} "
            f"max|A_i| {coef[tiny].tolist()}"
        )
    if res.algorithm.startswith("duol"):
        assert clf.diagnostics()["double_updates"] == ref.events["double"]


MC_PARAMS = [(cid, seed) for cid, *_ in MAIN for seed in range(N_SEEDS_MAIN)] + [
    (cid, seed) for cid, *_ in EXTRA for seed in range(N_SEEDS_EXTRA)
]


@pytest.mark.parametrize("cid,seed", MC_PARAMS, ids=[f"{c}-{s}" for c, s in MC_PARAMS])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_multiclass_matches_literal_reference(cid, seed, sparse):
    _, name, params, _ = CONFIGS[cid]
    X, y, K = mc_stream(seed)
    ref = mc_reference(cid, seed)
    clf = olkit.make(name, sigma=SIGMA, **params)
    res = olkit.evaluate_online(clf, sp.csr_matrix(X) if sparse else X, y)
    check(clf, res, ref)
    assert clf.decision_function(X).shape == (len(y), K)


ML_PARAMS = [(cid, seed) for cid in ML_CONFIGS for seed in range(N_SEEDS_ML)]


@pytest.mark.parametrize("cid,seed", ML_PARAMS, ids=[f"{c}-{s}" for c, s in ML_PARAMS])
def test_multilabel_matches_literal_reference(cid, seed):
    _, name, params, _ = ML_CONFIGS[cid]
    X, Y = ml_stream(seed)
    ref = ml_reference(cid, seed)
    clf = olkit.make(name, sigma=SIGMA, **params)
    res = olkit.evaluate_online(clf, sp.csr_matrix(X) if seed % 2 else X, Y)
    check(clf, res, ref)
    pred = clf.predict(X)
    assert pred.shape == Y.shape and np.all(pred.sum(axis=1) >= 1)


def _events(refs):
    tot = {}
    for r in refs:
        for key, v in r.events.items():
            tot[key] = tot.get(key, 0) + v
    return tot


def test_streams_exercise_the_edge_cases():
    """The reference streams reach the cases that matter: double updates (with tied auxiliary candidates,
    degenerate Δ = 0, γ_a and γ_b clipped at C, blocked by ρ), MIRA's τ_y = C bound and its τ = 0 rounds."""

    def mc(cid):
        n = N_SEEDS_MAIN if cid in {c[0] for c in MAIN} else N_SEEDS_EXTRA
        return _events(mc_reference(cid, s) for s in range(n))

    for cid in ("duol", "duol-appr", "duol-iter"):
        ev = mc(cid)
        assert ev["double"] > 50 and ev["single"] > 0 and ev["tie_b"] > 0 and ev["degenerate"] > 0, (cid, ev)
    duol = mc("duol")
    assert duol["ga=C"] > 0 and duol["gb=C"] > 0 and duol["d=0"] > 0, duol
    for cid in ("duol-C0.5-rho0.3", "duol-appr-rho0.3", "duol-iter-C0.5-rho0.3"):
        ev = mc(cid)
        assert ev["rho_blocked"] > 0 and ev["double"] > 0, (cid, ev)
    assert mc("duol-appr-C0.5")["gb=C"] > 0 and mc("duol-iter-C0.5-rho0.3")["gb=C"] > 0
    assert mc("mira-C0.5")["tau_y=C"] > 0 and mc("mira-margin")["mira_skip"] > 0
    ml = _events(ml_reference("duol", s) for s in range(N_SEEDS_ML))
    assert ml["double"] > 20, ml


@pytest.mark.parametrize("name", ["duol", "pa1", "perceptron", "mira"])
def test_multiclass_chunks_equal_one_pass(name):
    X, y = stream(7, n=90, K=4)
    one = olkit.make(name, sigma=SIGMA, shuffle=False).fit(X, y)
    chunked = olkit.make(name, sigma=SIGMA)
    for lo, hi in itertools.pairwise([0, 25, 60, 90]):
        chunked.partial_fit(X[lo:hi], y[lo:hi], classes=np.arange(4))
    np.testing.assert_allclose(chunked.decision_function(X), one.decision_function(X), rtol=1e-12, atol=1e-12)
    assert chunked.n_mistakes_ == one.n_mistakes_


def mira_instances(seed, n=2000):
    """Random MIRA QPs (K, f, y, A = κ_t, C): 2–6 classes, scores of three scales."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        K = int(rng.integers(2, 7))
        yield (
            K,
            rng.normal(size=K) * rng.choice([0.1, 1, 5]),
            int(rng.integers(K)),
            float(rng.uniform(0.1, 2)),
            float(rng.choice([0.5, 1.0, 3.0])),
        )


def test_mira_kkt():
    """MIRA's τ solves its QP: Σ τ = 0, τ_r ≤ C δ_{r,y}, and τ_r = min(Cδ, θ − B_r/A) for one θ."""
    from olkit.learners.kernel.mira import mira_tau

    for K, f, y, A, C in mira_instances(seed=0):
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


def test_mira_tau_matches_bisection():
    """olkit's sorted-breakpoint θ and the reference's bisection on θ give the same τ."""
    from olkit.learners.kernel.mira import mira_tau
    from reference.kernel_multiclass import mira_tau_bisect

    n_solved = 0
    for K, f, y, A, C in mira_instances(seed=1):
        tau = np.zeros(K)
        ref = mira_tau_bisect(f, y, A, C, tie=0.0)
        assert mira_tau(f, y, A, C, tau) == (ref is not None)
        if ref is not None:
            n_solved += 1
            np.testing.assert_allclose(tau, ref, rtol=0, atol=1e-12 * (1 + np.abs(f).max() / A))
    assert n_solved > 1000
