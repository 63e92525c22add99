"""Every kernel binary learner against its slow reference (tests/reference/kernel_binary.py).

For each configuration, 20 random streams mixing dense and sparse (CSR, ~30 % density) inputs, mostly the
Gaussian kernel with a small σ (0.5–2, so margins vary) and a few linear and polynomial kernels; stream
lengths 60–200, d = 3–10, labels from a noisy linear rule. Asserted: identical mistakes (count and
per-round flags), #SV, #updates and diagnostics, per-round scores equal to 1e-9 (relative + absolute), and
the final model's ``decision_function`` equal to the reference model's on new points and stream points.

The streams contain no duplicate points: a repeated point makes a margin exactly 1 (or a score exactly 0,
or DUOL_rand's QP non-unique) in exact arithmetic, so for the algorithms without a tolerance the outcome
is decided by the last bit of a kernel value and two correct implementations may differ. Duplicates are
exercised separately for the DUOL variants that have the ``tol`` guard (degenerate Δ = 0 double updates).
"""

import numpy as np
import pytest

import olkit
from reference.kernel_binary import DUAL_LINEAR, LABEL_SETS, random_stream, run_reference

N_STREAMS = 20
SIGMAS = (0.5, 0.7, 1.0, 1.5, 2.0)

# (test id, olkit name, olkit params)
CONFIGS = [
    ("perceptron", "perceptron", {}),
    ("pa", "pa", {}),
    ("pa1", "pa1", {}),
    ("pa1-C0.5", "pa1", {"C": 0.5}),
    ("pa2", "pa2", {}),
    ("pa2-C0.5", "pa2", {"C": 0.5}),
    ("romma", "romma", {}),
    ("romma-libol", "romma", {"compat": "libol"}),
    ("agg-romma", "agg-romma", {}),
    ("agg-romma-reset", "agg-romma", {"romma_reset_case": True}),
    ("agg-romma-libol", "agg-romma", {"compat": "libol"}),
    ("alma", "alma", {}),
    ("alma-a0.5", "alma", {"alpha": 0.5, "C": 1.0}),
    ("duol", "duol", {}),
    ("duol-rho0.2", "duol", {"rho": 0.2}),
    ("duol-C0.5", "duol", {"C": 0.5, "tol": 1e-9}),
    ("duol-nips2009", "duol", {"variant": "nips2009"}),
    ("duol-nips2009-rho0", "duol", {"variant": "nips2009", "rho": 0.0, "C": 0.8}),
    ("duol-appr", "duol-appr", {}),
    ("duol-appr-rho0.2-C1", "duol-appr", {"rho": 0.2, "C": 1.0}),
    ("duol-iter", "duol-iter", {}),
    ("duol-iter-rho0.2-C0.5", "duol-iter", {"rho": 0.2, "C": 0.5}),
    ("duol-rand", "duol-rand", {}),
    ("duol-rand-seed-C1", "duol-rand", {"seed": 123456789, "C": 1.0}),
    ("online-svm", "online-svm", {}),
    ("online-svm-all", "online-svm", {"working_set": "all"}),
    ("online-svm-1sweep", "online-svm", {"max_sweeps": 1, "C": 1.0}),
    ("online-svm-all-3sweeps-tol1e-6", "online-svm", {"working_set": "all", "max_sweeps": 3, "tol": 1e-6}),
]


def stream_spec(i, name):
    """Stream i of every configuration: kernel, sparsity, length, dimension, raw labels."""
    if i % 10 == 3:
        kernel = DUAL_LINEAR
    elif i % 10 == 7:
        kernel = {"kernel": "poly", "degree": 2 + (i // 10) % 2, "coef0": (1.0, 0.5)[(i // 10) % 2]}
    else:
        kernel = {"kernel": "gaussian", "sigma": SIGMAS[i % 5]}
    sparse = i % 3 == 1
    n = 60 + (i * 37) % 141
    if name == "online-svm":  # O(t²) per round in the reference: keep these short
        n = 60 + (i * 13) % 41
    d = 3 + i % 8
    return dict(seed=7919 * (i + 1), n=n, d=d, sparse=sparse, label_set=LABEL_SETS[i % 3]), kernel


def assert_same_run(res, ref, clf, X, Xt, label=""):
    """The comparison shared by the reference tests."""
    assert res.mistakes == ref.mistakes, f"{label}: mistakes olkit {res.mistakes} vs reference {ref.mistakes}"
    ref_flags = np.array([(s >= 0) != (yy > 0) for s, yy in zip(ref.scores, ref.y_pm)], np.int8)
    np.testing.assert_array_equal(res.mistake_flags, ref_flags, err_msg=f"{label}: mistake flags")
    assert res.n_sv == ref.n_sv, f"{label}: #SV olkit {res.n_sv} vs reference {ref.n_sv}"
    assert res.n_updates == ref.n_updates, f"{label}: #updates olkit {res.n_updates} vs reference {ref.n_updates}"
    for key, value in ref.diagnostics.items():
        assert res.diagnostics[key] == value, f"{label}: diagnostics[{key!r}] olkit {res.diagnostics[key]} vs {value}"
    np.testing.assert_allclose(res.scores, ref.scores, rtol=1e-9, atol=1e-9, err_msg=f"{label}: scores")
    points = [Xt, X[:3]]
    for P in points:
        np.testing.assert_allclose(
            clf.decision_function(P),
            ref.decision_function(P),
            rtol=1e-9,
            atol=1e-9,
            err_msg=f"{label}: decision_function of the final model",
        )


def _run(name, params, kernel, spec):
    X, y, Xt = random_stream(**spec)
    full = dict(params, **kernel)
    clf = olkit.make(name, **full)
    res = olkit.evaluate_online(clf, X, y)
    ref = run_reference(name, X, y, **full)
    return res, ref, clf, X, Xt


@pytest.mark.parametrize("i", range(N_STREAMS))
@pytest.mark.parametrize("cid,name,params", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_matches_reference(cid, name, params, i):
    spec, kernel = stream_spec(i, name)
    res, ref, clf, X, Xt = _run(name, params, kernel, spec)
    assert_same_run(res, ref, clf, X, Xt, label=f"{cid} stream {i} {kernel} sparse={spec['sparse']}")


@pytest.mark.parametrize("cid,name,params", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_streams_are_informative(cid, name, params):
    """The streams exercise the update rules: mistakes, margin errors, both sparse and dense inputs, and
    (DUOL) double updates whose box-QP solutions lie inside and on the boundary of the box."""
    n_sparse = sum(stream_spec(i, name)[0]["sparse"] for i in range(N_STREAMS))
    assert 5 <= n_sparse <= N_STREAMS - 5
    total_m = total_u = total_n = 0
    events, diags = {}, {}
    for i in (0, 1, 5, 10):
        spec, kernel = stream_spec(i, name)
        res, ref, *_ = _run(name, params, kernel, spec)
        total_m += res.mistakes
        total_u += res.n_updates
        total_n += res.n_examples
        for key, value in getattr(ref, "events", {}).items():
            events[key] = events.get(key, 0) + value
        for key, value in res.diagnostics.items():
            diags[key] = diags.get(key, 0) + value
    assert 0 < total_m < total_n
    assert 0 < total_u < total_n
    if name.startswith("duol"):
        assert diags["double_updates"] > 0 and diags["weak_double_updates"] > 0
        assert events["ga inside"] + events["ga=C"] + events["ga=0"] == diags["double_updates"]
    if name in ("duol", "duol-iter") and params.get("variant") != "nips2009" and "C" not in params:
        assert events["d=hi"] > 0 and events["d inside"] > 0  # both kinds of box solution
    if name == "duol-rand":
        assert events["d=lo"] > 0  # γ_b driven to 0 (#SV < #updates)


# ---- degenerate double updates (duplicates with flipped labels: k_a k_b = w_ab²) ------------------------
DUP_CONFIGS = [
    c for c in CONFIGS if c[1] in ("duol", "duol-appr", "duol-iter") and c[2].get("variant", "jmlr") == "jmlr"
]


def duplicate_stream(seed, sparse):
    """60 distinct points, then 60 copies of random ones (half with the opposite label), shuffled."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    n, d = 60, 4
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) >= 0, 1, -1)
    idx = rng.integers(0, n, size=n)
    X2 = np.vstack([X, X[idx]])
    y2 = np.concatenate([y, np.where(rng.random(n) < 0.5, -y[idx], y[idx])])
    perm = rng.permutation(2 * n)
    X2, y2 = X2[perm], y2[perm]
    Xt = rng.normal(size=(5, d)) / np.sqrt(d)
    return (sp.csr_matrix(X2) if sparse else X2), y2, Xt


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("cid,name,params", DUP_CONFIGS, ids=[c[0] for c in DUP_CONFIGS])
def test_duol_duplicates_match_reference(cid, name, params, seed):
    kernel = [{"sigma": 0.7}, DUAL_LINEAR, {"kernel": "poly", "degree": 2}, {"sigma": 1.5}][seed]
    X, y, Xt = duplicate_stream(100 + seed, sparse=seed % 2 == 1)
    full = dict(params, **kernel)
    clf = olkit.make(name, **full)
    res = olkit.evaluate_online(clf, X, y)
    ref = run_reference(name, X, y, **full)
    assert res.diagnostics["double_updates"] > 0
    assert ref.events["degenerate"] > 0  # double updates with k_a k_b = w_ab² exactly happened
    assert_same_run(res, ref, clf, X, Xt, label=f"{cid} duplicates seed {seed} {kernel}")


# ---- zero vectors under the linear kernel (the κ(x_t, x_t) ≤ 1e-12 guard) ----------------------------------
ZERO_CONFIGS = [c for c in CONFIGS if c[1] not in ("online-svm",)] + [
    ("online-svm", "online-svm", {}),
    ("online-svm-all", "online-svm", {"working_set": "all"}),
]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("cid,name,params", ZERO_CONFIGS, ids=[c[0] for c in ZERO_CONFIGS])
def test_zero_rows_linear_kernel_match_reference(cid, name, params, sparse):
    import scipy.sparse as sp

    rng = np.random.default_rng(4242)
    n, d = 100, 5
    X = rng.normal(size=(n, d))
    X[rng.random(n) < 0.15] = 0.0
    X[0] = 0.0
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) >= 0, 1, -1)
    y[1] = -y[2]
    Xs = sp.csr_matrix(X) if sparse else X
    full = dict(params, **DUAL_LINEAR)
    clf = olkit.make(name, **full)
    res = olkit.evaluate_online(clf, Xs, y)
    assert np.all(np.isfinite(res.scores))
    assert np.all(np.isfinite(clf.decision_function(Xs)))
    ref = run_reference(name, Xs, y, **full)
    assert_same_run(res, ref, clf, Xs, Xs[:5], label=f"{cid} zero rows")


# ---- ROMMA corner cases: agg-ROMMA's reset case (A3 case 1) and the parallel-vector skip (A2 D ≤ eps) ------
ROMMA_CONFIGS = [c for c in CONFIGS if c[1] in ("romma", "agg-romma")] + [
    ("agg-romma-reset-libol", "agg-romma", {"romma_reset_case": True, "compat": "libol"})
]


def shrinking_stream(seed, n=80, d=4):
    """Points in a cone around a direction u (labels ±1 with the point mirrored, 10 % flipped) whose norms
    shrink geometrically: κ_t ‖w‖² ≤ y_t f < 1 happens often, so agg-ROMMA's reset case is exercised."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    s = np.where(rng.random(n) < 0.5, 1, -1)
    s[0], s[1] = -1, 1
    r = 3.0 * np.exp(-np.cumsum(rng.uniform(0.0, 0.15, n)))
    X = (s * r)[:, None] * (u + 0.6 * rng.normal(size=(n, d)) / np.sqrt(d))
    y = np.where(rng.random(n) < 0.1, -s, s)
    return X, y


@pytest.mark.parametrize("cid,name,params", ROMMA_CONFIGS, ids=[c[0] for c in ROMMA_CONFIGS])
def test_romma_reset_case_matches_reference(cid, name, params):
    import scipy.sparse as sp

    resets = 0
    for seed in range(8):
        X, y = shrinking_stream(seed, d=3 + seed % 4)
        if seed % 2:
            X = sp.csr_matrix(X)
        kernel = DUAL_LINEAR if seed < 6 else {"kernel": "poly", "degree": 2, "coef0": 0.0}
        full = dict(params, **kernel)
        clf = olkit.make(name, **full)
        res = olkit.evaluate_online(clf, X, y)
        ref = run_reference(name, X, y, **full)
        assert_same_run(res, ref, clf, X, X[-5:], label=f"{cid} shrinking stream {seed}")
        resets += ref.events["resets"]
    if params.get("romma_reset_case"):
        assert resets >= 5  # the reset case really happened (and matched)
    else:
        assert resets == 0


@pytest.mark.parametrize("cid,name,params", ROMMA_CONFIGS, ids=[c[0] for c in ROMMA_CONFIGS])
def test_romma_parallel_skip_matches_reference(cid, name, params):
    """x_t = c·x_1 right after the first update: D = κ_t‖w‖² − f² = 0, the round is skipped (A2)."""
    import scipy.sparse as sp

    skips = 0
    for seed in range(4):
        # short: on a long noisy linear stream ROMMA's ‖w‖ diverges and the scores lose their precision
        X, y, _ = random_stream(seed=500 + seed, n=30, d=5, sparse=seed % 2 == 1)
        X = X.toarray() if sp.issparse(X) else X
        y = np.where(y > 0, 1, -1)
        y[0] = -1  # first update on round 0 (f = 0 predicts +1)
        for j, c in enumerate((2.0, 0.5, 3.0), start=1):  # parallel copies, all mistakes / margin errors
            X[j] = c * X[0]
            y[j] = 1
        Xs = sp.csr_matrix(X) if seed % 2 else X
        full = dict(params, **DUAL_LINEAR)
        clf = olkit.make(name, **full)
        res = olkit.evaluate_online(clf, Xs, y)
        ref = run_reference(name, Xs, y, **full)
        assert_same_run(res, ref, clf, Xs, Xs[-5:], label=f"{cid} parallel stream {seed}")
        skips += ref.events["parallel_skips"]
    assert skips >= 4
