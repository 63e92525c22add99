"""``average`` on the dual (support-vector) kernel learners (docs/algorithms/options.md#kernel-learners)
against its definition, computed naively.

The reference runs the learner one example at a time (``partial_fit``) with ``average=False`` and, after each
round t ≥ the start, reads the last model: its support vectors and their coefficients. The averaged model is
then

* as functions (the learners that never remove an SV): the mean over the averaged rounds of the per-round
  decision functions, each evaluated on fixed probe points;
* over the SVs kept (every learner, the budgeted ones' definition: a removed SV takes its past with it): per SV,
  identified by its arrival round and its input, the sum of its coefficient rows over the averaged rounds, the
  final SVs' sums divided by the number of averaged rounds N, evaluated as one model.

``average=True`` (from the first example) and ``average=5`` must give the same ``decision_function`` as the
reference to 1e-12 relative, on random streams with repeated rows, binary and multiclass. Also: averaging does
not change the learning (the last model is bit for bit the one without ``average``), a saved model keeps its
average (and a file with a damaged average is refused), ``partial_fit`` in chunks equals one pass, and the
command line's ``--set average=true`` predicts with the average.
"""

import numpy as np
import pytest

import olkit
from olkit import registry
from olkit.learners.kernel.base import KernelLearner

N_ROUNDS = 48
BUDGET = 6

# (name, params): every dual kernel learner with an averaged model (NOGD: its average across the switch to the
# Nyström features is a kernel expansion on its B SVs, docs/algorithms/nogd.md#averaging; FOGD: below)
LEARNERS = [
    ("perceptron", {}),
    ("pa", {}),
    ("pa1", {}),
    ("pa2", {}),
    ("romma", {}),
    ("agg-romma", {}),
    ("alma", {}),
    ("duol", {}),
    ("duol-appr", {}),
    ("duol-iter", {}),
    ("duol-rand", {}),
    ("online-svm", {}),
    ("mira", {}),
    ("scw1", {"kernel": "gaussian"}),
    ("scw2", {"kernel": "gaussian"}),
    ("ahpatron", {"B": BUDGET}),
    ("avp", {}),
    ("bogd", {"B": BUDGET}),
    ("bogd++", {"B": BUDGET}),
    ("forgetron", {"B": BUDGET}),
    ("projectron", {}),
    ("projectron++", {}),
    ("pomdr", {"B": BUDGET}),
    ("rbp", {"B": BUDGET}),
    ("duol-budget", {"B": BUDGET}),
    ("nogd", {"B": BUDGET, "k": 3}),
]


def learner(name, params, **more):
    return registry.make(name, sigma=1.0, shuffle=False, **params, **more)


CHAOTIC = {"online-svm", "pomdr"}
"""Learners whose last model itself (without ``average``) differs between a row-by-row run and one pass beyond
rounding on these streams (Online-SVM's sweeps stop at a tolerance; POMDR's multiclass merges): the one-pass
check is left out for them."""
CASES = [
    pytest.param(name, params, kind, id=f"{name}-{kind}")
    for name, params in LEARNERS
    for kind in ("binary", "multiclass")
    if kind == "binary" or learner(name, params)._multiclass
]
WRITTEN = {"duol", "duol-appr", "duol-iter", "duol-rand", "duol-budget", "rbp"}
"""The rules that record each coefficient write at once (sv_edit.set_coef): their averaged model must also be
the one the row-by-row comparison ("all") gives."""


def stream(kind, seed=0, n=N_ROUNDS):
    """n rows of 3 features (every fourth row repeats an earlier one), binary ±1 or 3 classes, and probe points."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    for i in range(3, n, 4):
        X[i] = X[rng.integers(0, i)]
    if kind == "binary":
        y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.normal(size=n) > 0, 1, -1)
    else:
        y = np.argmax(X[:, :3] + 0.5 * rng.normal(size=(n, 3)), axis=1)
    probes = np.vstack([rng.normal(size=(12, 3)), X[:4]])
    return X, y, probes


def decision_with(clf, coef, probes):
    """``clf``'s decision function on ``probes`` with the SV coefficients ``coef`` (n_SV × K) in place of its
    own (the learner's own scoring: ALMA's normalisation, a 2-class model's f_+ − f_−; NOGD's stage 2 scores
    through the same expansion)."""
    clf._model_coef = lambda: coef
    nogd = clf.algorithm_name == "nogd"
    if nogd:
        clf._scores_from_kernel = lambda K, norms, kp: K @ coef
    try:
        return clf.decision_function(probes)
    finally:
        del clf._model_coef
        if nogd:
            del clf._scores_from_kernel


def last_coef(clf):
    """The last model's coefficients on the SVs: the stored rows A, or after NOGD's switch to W φ(x) = W M k_S(x)
    the rows Mᵀ Wᵀ (docs/algorithms/nogd.md#averaging)."""
    sv = clf.support_
    if clf.algorithm_name == "nogd" and clf.stage_ == 2:
        return clf.state_.M[:, : sv.n].T @ clf.state_.W.T
    return sv.coef[: sv.n].copy()


def sv_keys(clf):
    """A key per SV (its arrival round and its input), in slot order."""
    sv = clf.support_
    vectors = sv.vectors()
    vectors = vectors.toarray() if hasattr(vectors, "toarray") else np.asarray(vectors)
    keys = [(int(sv.added[i]), vectors[i].tobytes()) for i in range(sv.n)]
    assert len(set(keys)) == len(keys), "two SVs with the same arrival round and input"
    return keys


def naive_average(name, params, X, y, probes, start):
    """(mean of the per-round decision functions or None if an SV was removed, the average over the SVs kept,
    the learner after the pass) for rounds start.. (1-based)."""
    clf = learner(name, params)
    classes = np.unique(y)
    mean, rounds, sums, removed, before = 0.0, 0, {}, False, set()
    for t in range(len(y)):
        clf.partial_fit(X[t : t + 1], y[t : t + 1], classes=classes)
        keys = sv_keys(clf)
        removed |= not before <= set(keys)
        before = set(keys)
        if t + 1 < start:
            continue
        coef = last_coef(clf)
        mean = mean + decision_with(clf, coef, probes)
        rounds += 1
        for i, key in enumerate(keys):
            sums[key] = sums.get(key, 0.0) + coef[i]
    keys = sv_keys(clf)
    kept = np.array([sums[k] for k in keys]).reshape(len(keys), -1) / rounds
    over_kept = decision_with(clf, kept, probes)
    return (None if removed else mean / rounds), over_kept, clf


def assert_close(got, ref):
    scale = max(float(np.max(np.abs(ref))), 1e-300)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-13 * scale)


@pytest.mark.slow
@pytest.mark.parametrize("average", [True, 5])
@pytest.mark.parametrize("name, params, kind", CASES)
def test_average_equals_the_naive_mean(name, params, kind, average):
    X, y, probes = stream(kind)
    start = 1 if average is True else average
    as_functions, over_kept, last = naive_average(name, params, X, y, probes, start)
    clf = learner(name, params, average=average)
    for t in range(len(y)):  # the reference's rounds, in the same blocks (the same rounding of dot products)
        clf.partial_fit(X[t : t + 1], y[t : t + 1], classes=np.unique(y))
    got = clf.decision_function(probes)
    assert_close(got, over_kept)
    if as_functions is not None:
        assert_close(got, as_functions)
    # averaging changes nothing of the learning: the last model and the mistakes are the same
    np.testing.assert_array_equal(clf.support_.coef[: clf.support_.n], last.support_.coef[: last.support_.n])
    assert clf.n_mistakes_ == last.n_mistakes_
    if name == "nogd":
        np.testing.assert_array_equal(clf.state_.W, last.state_.W)
        assert clf.stage_ == 2, "the stream does not reach NOGD's switch"
    whole = learner(name, params, average=average).fit(X, y)  # one pass: the same up to that rounding
    assert_close(whole.decision_function(probes), got) if name not in CHAOTIC else None


def test_every_dual_kernel_learner_averages():
    covered = {name for name, _ in LEARNERS}
    assert all(not learner(name, params)._primal() for name, params in LEARNERS)
    for name in registry.names():
        clf = registry.make(name)
        if isinstance(clf, KernelLearner) and not clf._primal():
            assert clf._averages(), name
            assert name in covered, name
    assert registry.make("fogd")._averages()
    assert not registry.make("nogd", compat="ahp-r")._averages()  # its switching round scores x_t twice


@pytest.mark.parametrize("name", sorted(WRITTEN))
@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_recorded_writes_equal_the_row_comparison(name, kind):
    """The DUOL family records its writes at once (O(1) a round); the row-by-row comparison of every SV ("all",
    O(#SV·K) a round) must find the same averaged model, and the learning is the same bit for bit."""
    params = {"B": BUDGET} if name in ("duol-budget", "rbp") else {}
    if kind == "multiclass" and not learner(name, params)._multiclass:
        pytest.skip("binary only")
    X, y, probes = stream(kind, seed=3)
    fast = learner(name, params, average=2)
    assert fast._average_writes == "written"
    slow = learner(name, params, average=2)
    slow._average_writes = "all"
    for clf in (fast, slow):
        for lo in range(0, len(y), 5):
            clf.partial_fit(X[lo : lo + 5], y[lo : lo + 5], classes=np.unique(y))
    np.testing.assert_array_equal(fast.support_.coef[: fast.support_.n], slow.support_.coef[: slow.support_.n])
    np.testing.assert_array_equal(fast.support_.avg, slow.support_.avg)
    assert_close(fast.decision_function(probes), slow.decision_function(probes))


@pytest.mark.parametrize("name, params", [("pa1", {}), ("duol", {}), ("forgetron", {"B": BUDGET})])
def test_no_average_is_the_learner_itself(name, params):
    """average=False and 0 run exactly the loop without averaging: bit-identical models and scores."""
    X, y, probes = stream("binary")
    plain = learner(name, params).fit(X, y)
    for off in (False, 0):
        other = learner(name, params, average=off).fit(X, y)
        np.testing.assert_array_equal(other.decision_function(probes), plain.decision_function(probes))
        assert other.support_.avg_sum.shape[0] == 0


@pytest.mark.parametrize(
    "name, params",
    [("pa1", {}), ("duol", {}), ("ahpatron", {"B": BUDGET}), ("duol-budget", {"B": BUDGET}), ("nogd", {"B": BUDGET})],
)
@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_chunks_equal_one_pass(name, params, kind):
    X, y, probes = stream(kind, seed=1)
    whole = learner(name, params, average=3).fit(X, y)
    chunks = learner(name, params, average=3)
    for lo in range(0, len(y), 7):
        chunks.partial_fit(X[lo : lo + 7], y[lo : lo + 7], classes=np.unique(y))
    assert_close(chunks.decision_function(probes), whole.decision_function(probes))
    np.testing.assert_array_equal(chunks.support_.avg, whole.support_.avg)


def assert_reload_continues(clf, X_rest, y_rest, probes, tmp_path):
    """Saved and loaded, the model predicts as ``clf`` does, and both continued on the rest of the stream still
    agree bit for bit (the average included). Returns the loaded model."""
    olkit.save(clf, tmp_path / "m.npz")
    back = olkit.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.decision_function(probes), clf.decision_function(probes))
    clf.partial_fit(X_rest, y_rest)
    back.partial_fit(X_rest, y_rest)
    np.testing.assert_array_equal(back.decision_function(probes), clf.decision_function(probes))
    return back


@pytest.mark.parametrize(
    "name, params",
    [("pa1", {}), ("duol", {}), ("bogd", {"B": BUDGET}), ("duol-budget", {"B": BUDGET}), ("nogd", {"B": BUDGET})],
)
def test_save_load_keeps_the_average(name, params, tmp_path):
    X, y, probes = stream("multiclass", seed=2)
    clf = learner(name, params, average=True).fit(X[:30], y[:30])
    assert_reload_continues(clf, X[30:], y[30:], probes, tmp_path)


def test_damaged_average_is_refused(tmp_path):
    from test_persist_hostile import setitem, tamper

    X, y, _ = stream("binary")
    clf = learner("pa1", {}, average=True).fit(X, y)
    olkit.save(clf, tmp_path / "m.npz")
    cases = {
        "avg_sum": ({"support_.avg_sum": setitem((0, 0), np.nan)}, r"support_\.avg_sum holds NaN"),
        "avg_last": ({"support_.avg_last": setitem((0, 0), np.inf)}, r"support_\.avg_last holds NaN"),
        "avg": ({"support_.avg": setitem(1, 2.5)}, r"support_\.avg"),
        "negative N": ({"support_.avg": setitem(1, -1.0)}, r"support_\.avg"),
    }
    for case, (change, message) in cases.items():
        bad = tamper(tmp_path / "m.npz", tmp_path / f"{case}.npz", change)
        with pytest.raises(ValueError, match=message):
            olkit.load(bad)


def test_average_before_the_start_is_the_last_model():
    """Until a round is averaged (average=n, fewer than n examples seen) predict uses the last model."""
    X, y, probes = stream("binary")
    late = learner("pa1", {}, average=1000).fit(X, y)
    plain = learner("pa1", {}).fit(X, y)
    np.testing.assert_array_equal(late.decision_function(probes), plain.decision_function(probes))
    assert late.support_.avg[1] == 0


def test_cli_train_predict_uses_the_average(tmp_path):
    from olkit.cli import main

    X, y, _ = stream("binary", n=60)
    probes = np.random.default_rng(5).normal(size=(300, 3))
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    for path, rows, labels in ((train, X, y), (test, probes, np.ones(len(probes), int))):
        with open(path, "w") as fh:
            for row, label in zip(rows, labels):
                fh.write(f"{label} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(row)) + "\n")
    model = tmp_path / "m.npz"
    argv = ["train", "pa1", "--data", str(train), "--set", "average=true", "--set", "sigma=1", "--model", str(model)]
    assert main(argv) == 0
    clf = olkit.load(model)
    assert clf.average is True and clf.support_.avg[1] == 60
    reference = learner("pa1", {}, average=True).fit(X, y)
    assert_close(clf.decision_function(probes), reference.decision_function(probes))
    out = tmp_path / "labels.txt"
    assert main(["predict", "--model", str(model), "--data", str(test), "--out", str(out)]) == 0
    predicted = np.loadtxt(out)
    np.testing.assert_array_equal(predicted, reference.predict(probes))
    last = learner("pa1", {}).fit(X, y)
    assert np.any(predicted != last.predict(probes)), "the probes do not tell the average from the last model"


# ---- FOGD (docs/algorithms/fogd.md#averaging): the weights W on the random features, Σ W_t = P + q·W -----------
def fogd(**more):
    return registry.make("fogd", D=8, sigma=1.0, shuffle=False, **more)


@pytest.mark.parametrize("average", [True, 5])
@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_fogd_average_equals_the_naive_mean(kind, average):
    X, y, probes = stream(kind, seed=4)
    start = 1 if average is True else average
    plain, mean, rounds = fogd(), 0.0, 0
    for t in range(len(y)):
        plain.partial_fit(X[t : t + 1], y[t : t + 1], classes=np.unique(y))
        if t + 1 >= start:
            mean, rounds = mean + plain.decision_function(probes), rounds + 1
    clf = fogd(average=average).fit(X, y)
    assert_close(clf.decision_function(probes), mean / rounds)
    np.testing.assert_array_equal(clf.state_.W, plain.state_.W)  # the learning is unchanged
    assert clf.n_mistakes_ == plain.n_mistakes_
    np.testing.assert_array_equal(clf.coef_, ((clf.state_.P + rounds * clf.state_.W) / rounds)[:, :16])
    chunks = fogd(average=average)
    for lo in range(0, len(y), 7):
        chunks.partial_fit(X[lo : lo + 7], y[lo : lo + 7], classes=np.unique(y))
    np.testing.assert_array_equal(chunks.decision_function(probes), clf.decision_function(probes))


def test_fogd_average_with_weights_and_intercept():
    """Weighted steps (η s_t; weight 0: no step, the round still averaged) and the constant feature."""
    X, y, probes = stream("binary", seed=5)
    w = np.random.default_rng(5).choice([0.0, 0.5, 1.0, 3.0], size=len(y))
    plain, mean = fogd(fit_intercept=True), 0.0
    for t in range(len(y)):
        plain.partial_fit(X[t : t + 1], y[t : t + 1], classes=np.unique(y), sample_weight=w[t : t + 1])
        mean = mean + plain.decision_function(probes)
    clf = fogd(fit_intercept=True, average=True).fit(X, y, sample_weight=w)
    assert_close(clf.decision_function(probes), mean / len(y))
    assert_close(clf.intercept_, (clf.state_.P[:, -1] + len(y) * clf.state_.W[:, -1]) / len(y))


def test_fogd_save_load_keeps_the_average(tmp_path):
    from test_persist_hostile import setitem, tamper

    X, y, probes = stream("multiclass", seed=6)
    clf = fogd(average=3).fit(X[:30], y[:30])
    assert_reload_continues(clf, X[30:], y[30:], probes, tmp_path)
    bad = tamper(tmp_path / "m.npz", tmp_path / "bad.npz", {"state_.avg": setitem(1, 2.5)})
    with pytest.raises(ValueError, match=r"state_\.avg"):
        olkit.load(bad)
    plain = fogd().fit(X, y)  # without average: the state of files written before FOGD averaged
    assert type(plain.state_).__name__ == "FOGDState"
    olkit.save(plain, tmp_path / "plain.npz")
    np.testing.assert_array_equal(
        olkit.load(tmp_path / "plain.npz").decision_function(probes), plain.decision_function(probes)
    )


def test_nogd_save_load_mid_stream_across_the_switch(tmp_path):
    """Saved before NOGD's switch and continued past it: the same average as one run."""
    X, y, probes = stream("binary", seed=7)
    clf = learner("nogd", {"B": BUDGET, "k": 3}, average=2).fit(X[:4], y[:4])
    assert clf.stage_ == 1
    back = assert_reload_continues(clf, X[4:], y[4:], probes, tmp_path)
    assert back.stage_ == 2
    whole = learner("nogd", {"B": BUDGET, "k": 3}, average=2).fit(X, y)
    assert_close(whole.decision_function(probes), clf.decision_function(probes))
