"""Example weights of the first-order learners (perceptron, PA, PA-I, PA-II, ROMMA, agg-ROMMA, ALMA, MIRA,
Online-SVM) against their slow references with a ``sample_weight`` argument (tests/reference/kernel_binary.py,
kernel_multiclass.py, linear.py), in kernel and primal (``kernel="linear"``) forms.

The weights mix 0 (predicted and counted, not learned), fractions, integers and large values (up to 40).
Asserted as in the unweighted reference tests: identical per-round mistake flags, #SV and #updates, per-round
scores and the final model's ``decision_function`` (linear: ``coef_``) equal to 1e-9. The binary kernel streams of
the learners without a tolerance (PA, ROMMA) are duplicate-free (a repeated point after an update sits exactly on
the trigger boundary, decided by the last bit); the perceptron, ALMA and Online-SVM streams repeat ~20 % of their
rows, and the multiclass streams (integer features, ~30 % repeats, ties decided as in exact arithmetic by
the reference) are those of tests/test_kernel_multiclass_reference.py.

Then: integer weight k equals k repetitions in a row where the page says so (docs/algorithms/pa.md#weights,
pa1.md#weights, romma.md#weights; MIRA with ``update="margin"``, mira.md#weights), and an up-weighted class is
recalled more often. The API, weight 1 = unweighted bit for bit and weight 0 = unlearned for every algorithm are
tests/test_weights.py.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from olkit.spec import SPECS
from reference.kernel_binary import DUAL_LINEAR, LABEL_SETS, random_stream, run_reference
from reference.kernel_multiclass import SIGMA
from reference.kernel_multiclass import run_reference as run_multiclass_reference
from reference.kernel_multiclass import stream as multiclass_stream
from reference.linear import random_stream as linear_stream
from reference.linear import run_linear_reference

TOL = dict(rtol=1e-9, atol=1e-9)
PART = ("perceptron", "pa", "pa1", "pa2", "romma", "agg-romma", "alma", "mira", "online-svm")


def random_weights(rng, n):
    """0, fractions, integers and large weights, mixed."""
    kinds = rng.integers(0, 5, size=n)
    w = np.select(
        [kinds == 0, kinds == 1, kinds == 2, kinds == 3],
        [np.zeros(n), rng.uniform(0.01, 1.0, n), rng.integers(1, 4, n).astype(float), rng.uniform(5.0, 40.0, n)],
        rng.uniform(0.5, 3.0, n),
    )
    w[:2] = (1.0, 2.0)  # the first rounds learn (so that the model is not empty for long)
    return w


def with_duplicates(X, rng, frac=0.2):
    """~frac of the rows replaced by a copy of an earlier row (same row, the label stays that of its round)."""
    X = X.toarray() if sp.issparse(X) else np.array(X)
    for t in np.flatnonzero(rng.random(X.shape[0]) < frac):
        if t > 0:
            X[t] = X[rng.integers(t)]
    return X


# ---- binary kernel forms --------------------------------------------------------------------------------
BINARY = [
    ("perceptron", {}, True),
    ("pa", {}, False),
    ("pa1", {"C": 0.5}, False),
    ("pa2", {"C": 0.5}, False),
    ("romma", {}, False),
    ("agg-romma", {}, False),
    ("agg-romma", {"romma_reset_case": True}, False),
    ("alma", {"alpha": 0.5, "C": 1.0}, True),
    ("online-svm", {"C": 1.0}, True),
    ("online-svm", {"working_set": "all", "tol": 1e-6}, True),
]
BINARY_IDS = [f"{n}-{'-'.join(f'{k}{v}' for k, v in p.items())}" for n, p, _ in BINARY]


def binary_case(i, name, duplicates):
    # ROMMA's dual linear-kernel runs grow ill-conditioned (scores ~1e4 agree to 1e-7 only): Gaussian kernels there
    linear = i % 4 == 3 and "romma" not in name
    kernel = DUAL_LINEAR if linear else {"kernel": "gaussian", "sigma": (0.5, 1.0, 2.0)[i % 3]}
    n = 50 + (i * 13) % 41 if name == "online-svm" else 60 + (i * 37) % 91
    X, y, Xt = random_stream(seed=31 * (i + 1), n=n, d=3 + i % 6, sparse=i % 3 == 1, label_set=LABEL_SETS[i % 3])
    rng = np.random.default_rng(i)
    if duplicates:
        X = with_duplicates(X, rng)
        if i % 3 == 1:
            X = sp.csr_matrix(X)
    return X, y, Xt, kernel, random_weights(rng, n)


@pytest.mark.parametrize("i", range(8))
@pytest.mark.parametrize("name,params,duplicates", BINARY, ids=BINARY_IDS)
def test_binary_kernel_matches_weighted_reference(name, params, duplicates, i):
    X, y, Xt, kernel, w = binary_case(i, name, duplicates)
    full = dict(params, **kernel)
    clf = olkit.make(name, **full)
    res = olkit.evaluate_online(clf, X, y, sample_weight=w)
    ref = run_reference(name, X, y, sample_weight=w, **full)
    label = f"{name} {params} stream {i} {kernel}"
    ref_flags = np.array([(s >= 0) != (yy > 0) for s, yy in zip(ref.scores, ref.y_pm)], np.int8)
    np.testing.assert_array_equal(res.mistake_flags, ref_flags, err_msg=f"{label}: mistake flags")
    assert (res.n_sv, res.n_updates) == (ref.n_sv, ref.n_updates), label
    np.testing.assert_allclose(res.scores, ref.scores, **TOL, err_msg=f"{label}: scores")
    for P in (Xt, X[:5]):
        np.testing.assert_allclose(clf.decision_function(P), ref.decision_function(P), **TOL, err_msg=label)


def test_binary_streams_are_informative():
    """The weighted streams reach updates of weight-0, fractional and large examples, and PA-I's cap sC binds."""
    for name, params, duplicates in BINARY:
        kinds = set()
        for i in range(4):
            X, y, _, kernel, w = binary_case(i, name, duplicates)
            ref = run_reference(name, X, y, sample_weight=w, **dict(params, **kernel))
            flags = [(s >= 0) != (yy > 0) for s, yy in zip(ref.scores, ref.y_pm)]
            kinds |= {("zero-mistake", True) for t in range(len(w)) if w[t] == 0 and flags[t]}
            kinds |= {("stored", float(w[t]) > 5) for t in ref.sv_rows}
            kinds |= {("stored", float(w[t]) < 1) for t in ref.sv_rows}
        assert kinds == {("zero-mistake", True), ("stored", True), ("stored", False)}, (name, kinds)
    X, y, _, kernel, w = binary_case(0, "pa1", False)
    ref = run_reference("pa1", X, y, sample_weight=w, C=0.5, **kernel)
    capped = sum(abs(abs(a) - 0.5 * w[t]) < 1e-12 for t, a in zip(ref.sv_rows, ref.coef))
    assert 0 < capped < len(ref.sv_rows)


# ---- primal forms (kernel="linear"), binary and multiclass -------------------------------------------------
LINEAR = [
    ("perceptron", {}),
    ("pa", {}),
    ("pa1", {"C": 0.3}),
    ("pa2", {"C": 0.3}),
    ("romma", {}),
    ("agg-romma", {}),
    ("alma", {}),
    ("alma", {"compat": "libol"}),
]


@pytest.mark.parametrize("i", range(8))
@pytest.mark.parametrize("kind", ["binary", "multiclass"])
@pytest.mark.parametrize("name,params", LINEAR, ids=[f"{n}-{p}" for n, p in LINEAR])
def test_primal_matches_weighted_reference(name, params, kind, i):
    k = 2 if kind == "binary" else 3 + i % 2
    n = 50 + (i * 37) % 101
    X, y, Xt = linear_stream(seed=7 * i + k, n=n, d=3 + i % 8, n_classes=k, sparse=i % 3 == 1)
    w = random_weights(np.random.default_rng(100 + i), n)
    order = np.random.default_rng(i).permutation(n) if i % 4 == 3 else None
    full = dict(params, kernel="linear")
    clf = olkit.make(name, **full)
    res = olkit.evaluate_online(clf, X, y, order, sample_weight=w)
    ref = run_linear_reference(name, X, y, order, sample_weight=w, **full)
    label = f"{name} {params} {kind} stream {i}"
    np.testing.assert_array_equal(res.mistake_flags, ref.flags, err_msg=f"{label}: mistake flags")
    assert res.n_updates == ref.n_updates, label
    np.testing.assert_allclose(res.scores, ref.scores, **TOL, err_msg=f"{label}: scores")
    np.testing.assert_allclose(np.asarray(clf.coef_, float), ref.coef, **TOL, err_msg=f"{label}: coef_")


# ---- multiclass and multi-label kernel forms (streams with repeated rows and ties) ------------------------
MULTICLASS = [
    ("perceptron", {"multiclass_update": "max"}, {"mode": "max"}),
    ("perceptron", {"multiclass_update": "uniform"}, {"mode": "uniform"}),
    ("perceptron", {"multiclass_update": "prop"}, {"mode": "prop"}),
    ("pa", {}, {}),
    ("pa1", {"C": 0.5}, {"C": 0.5}),
    ("pa2", {"C": 0.5}, {"C": 0.5}),
    ("mira", {}, {}),
    ("mira", {"update": "margin", "C": 0.5}, {"update": "margin", "C": 0.5}),
]


def _check_multi(clf, res, ref, label):
    np.testing.assert_array_equal(res.mistake_flags, ref.flags, err_msg=f"{label}: mistake flags")
    np.testing.assert_allclose(res.scores, ref.scores, **TOL, err_msg=f"{label}: scores")
    assert (res.n_sv, res.n_updates) == (ref.n_sv, ref.n_updates), label


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("name,params,kw", MULTICLASS, ids=[f"{n}-{p}" for n, p, _ in MULTICLASS])
def test_multiclass_kernel_matches_weighted_reference(name, params, kw, seed):
    K = 3 + seed % 3
    X, y = multiclass_stream(seed, K=K)
    w = random_weights(np.random.default_rng(seed), len(y))
    clf = olkit.make(name, sigma=SIGMA, **params)
    res = olkit.evaluate_online(clf, sp.csr_matrix(X) if seed % 2 else X, y, sample_weight=w)
    ref = run_multiclass_reference(name, X, np.eye(K, dtype=int)[y], sample_weight=w, **kw)
    _check_multi(clf, res, ref, f"{name} {params} seed {seed}")


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("name", ["pa", "pa1", "pa2"])
def test_multilabel_kernel_matches_weighted_reference(name, seed):
    X, Y = multiclass_stream(100 + seed, K=4 + seed % 2, multilabel=True)
    w = random_weights(np.random.default_rng(seed), len(Y))
    clf = olkit.make(name, sigma=SIGMA, C=0.5) if name != "pa" else olkit.make(name, sigma=SIGMA)
    res = olkit.evaluate_online(clf, X, Y, sample_weight=w)
    ref = run_multiclass_reference(name, X, Y, multilabel=True, sample_weight=w, C=0.5)
    _check_multi(clf, res, ref, f"{name} multi-label seed {seed}")


# ---- integer weights = repetitions ------------------------------------------------------------------------
def repeated(X, y, w):
    """The stream with row t repeated w[t] times in a row (w integer)."""
    rows = np.repeat(np.arange(len(y)), w.astype(int))
    return X[rows], np.asarray(y)[rows]


REPEATS = [
    ("pa", {}),
    ("pa1", {"C": 0.2}),
    ("pa1", {"C": 0.2, "kernel": "linear"}),
    ("pa", {"kernel": "linear"}),
    ("romma", {}),
    ("romma", {"kernel": "linear"}),
    ("agg-romma", {}),
    ("agg-romma", {"kernel": "linear"}),
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("name,params", REPEATS, ids=[f"{n}-{p}" for n, p in REPEATS])
def test_integer_weight_equals_repetition(name, params, seed):
    """weight_repeats=True (binary): weight k gives the model of the example repeated k times in a row."""
    assert SPECS[name].weight_repeats
    X, y, Xt = random_stream(5 + seed, 70, 4)
    w = np.random.default_rng(seed).integers(0, 5, size=len(y)).astype(float)
    full = dict({"sigma": 1.0}, **params)
    weighted = olkit.make(name, shuffle=False, **full).fit(X, y, sample_weight=w)
    Xr, yr = repeated(X, y, w)
    repeats = olkit.make(name, shuffle=False, **full).fit(Xr, yr)
    a, b = weighted.decision_function(Xt), repeats.decision_function(Xt)
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * np.abs(b).max())


def test_pa1_repetition_binds_the_cap():
    """The PA-I repetition test above reaches examples whose step k·C is the cap (the case the proof is about)."""
    X, y, _ = random_stream(5, 70, 4)
    w = np.random.default_rng(0).integers(0, 5, size=len(y)).astype(float)
    ref = run_reference("pa1", X, y, C=0.2, sigma=1.0, sample_weight=w)
    capped = [t for t, a in zip(ref.sv_rows, ref.coef) if w[t] > 1 and abs(abs(a) - 0.2 * w[t]) < 1e-12]
    assert capped


@pytest.mark.parametrize("seed", range(4))
def test_mira_margin_integer_weight_equals_repetition(seed):
    """MIRA with update="margin": the QP of C_t = kC equals k QPs of C in a row (mira.md#weights)."""
    K = 3 + seed % 2
    X, y = multiclass_stream(seed, K=K)
    w = np.random.default_rng(seed).integers(0, 4, size=len(y)).astype(float)
    params = dict(update="margin", C=0.3, sigma=SIGMA, shuffle=False)
    weighted = olkit.make("mira", **params).fit(X, y, sample_weight=w)
    Xr, yr = repeated(X, y, w)
    repeats = olkit.make("mira", **params).fit(Xr, yr)
    a, b = weighted.decision_function(X), repeats.decision_function(X)
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * np.abs(b).max())


def test_online_svm_integer_weight_near_repetition():
    """Online-SVM: k copies of an example have the dual optimum of one with the box kC; the learner reaches it to
    its KKT tolerance (so weight_repeats is False, online-svm.md#weights)."""
    X, y, Xt = random_stream(3, 60, 4)
    w = np.random.default_rng(3).integers(0, 4, size=len(y)).astype(float)
    params = dict(C=0.3, tol=1e-10, working_set="all", sigma=1.0, shuffle=False)
    weighted = olkit.make("online-svm", **params).fit(X, y, sample_weight=w)
    Xr, yr = repeated(X, y, w)
    repeats = olkit.make("online-svm", **params).fit(Xr, yr)
    np.testing.assert_allclose(weighted.decision_function(Xt), repeats.decision_function(Xt), rtol=1e-6, atol=1e-6)


# ---- what a weight does ---------------------------------------------------------------------------------
BEHAVIOUR = [
    ("perceptron", {"average": True}),  # the last iterate of a perceptron swings with the last mistakes
    ("pa1", {"C": 0.05}),  # a weight matters where the cap sC binds
    ("pa2", {"C": 0.05}),
    ("alma", {}),
    ("mira", {"C": 0.05}),
    ("online-svm", {"C": 0.1}),
]


@pytest.mark.parametrize("name,params", BEHAVIOUR, ids=[n for n, _ in BEHAVIOUR])
def test_upweighted_class_is_recalled_more(name, params):
    """An imbalanced, overlapping stream (15 % positives): class_weight={1: 5} raises the positives' recall on fresh
    data (mean over three shuffles; Gaussian kernel: the models have no intercept)."""
    rng = np.random.default_rng(0)

    def draw(n):
        y = (rng.random(n) < 0.15).astype(int)
        X = rng.normal(size=(n, 2)) + np.where(y[:, None] == 1, 1.0, -0.2) * np.array([1.0, 0.5])
        return X, y

    X, y = draw(600)
    Xt, yt = draw(2000)
    recalls = []
    for cw in (None, {1: 5.0}):
        rec = []
        for seed in range(3):
            clf = olkit.make(name, sigma=2.0, class_weight=cw, random_state=seed, **params).fit(X, y)
            rec.append(np.mean(clf.predict(Xt)[yt == 1] == 1))
        recalls.append(np.mean(rec))
    assert recalls[1] > recalls[0] + 0.05, recalls


def test_specs_say_what_a_weight_does():
    for name in PART:
        assert SPECS[name].weight, name
    assert {n for n in PART if SPECS[n].weight_repeats} == {"pa", "pa1", "romma", "agg-romma"}


# ---- Online-SVM keeps each SV's weight (its box) -----------------------------------------------------------
def test_online_svm_weights_survive_save_and_load(tmp_path):
    """The SVs' weights are part of the model (``support_.sw``): a saved and loaded model continues as the original."""
    X, y, Xt = random_stream(3, 80, 4)
    w = np.random.default_rng(0).uniform(0.0, 3.0, 80)
    a = olkit.make("online-svm", C=0.5, sigma=1.0, shuffle=False)
    a.partial_fit(X[:40], y[:40], classes=np.unique(y), sample_weight=w[:40])
    olkit.save(a, tmp_path / "m.npz")
    b = olkit.load(tmp_path / "m.npz")
    for clf in (a, b):
        clf.partial_fit(X[40:], y[40:], sample_weight=w[40:])
    np.testing.assert_array_equal(a.decision_function(Xt), b.decision_function(Xt))
