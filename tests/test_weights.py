"""``sample_weight`` and ``class_weight`` on every learner (docs/algorithms/options.md#weights).

What holds for every algorithm, checked on each: weight 1 everywhere (None, ones, a scalar 1, a list) is the
unweighted learner bit for bit; weight 0 is predicted and counted but not learned (all-zero weights leave the empty
model; zero weights on a stream's tail leave the model of its head); a weight other than 1 changes the model of
every algorithm whose rule a weight enters; ``class_weight`` is the per-class ``sample_weight``; bad weights are a
ValueError naming the entry, with the model left as it was; the entry points agree (fit, partial_fit,
evaluate_online, River's ``learn_one(x, y, w)``, a saved model). What a weight does per algorithm, and its slow
references, are in the per-family files (tests/test_weights_*.py).
"""

import numpy as np
import pytest

import olkit
from olkit import registry


def configurations():
    """(id, name, params) of every algorithm, plus the linear (primal) form of the kernel learners that have one."""
    out = []
    for name in registry.names():
        out.append(pytest.param(name, {}, id=name))
        cls = registry.get(name)
        if registry.spec(name).family == "kernel" and getattr(cls, "_linear_rule", None) is not None:
            out.append(pytest.param(name, {"kernel": "linear"}, id=f"{name}-linear"))
    return out


CONFIGS = configurations()


def small(name, params):
    """The learner with the property tests' small settings (a budget of a few SVs, few random features)."""
    return {**registry.spec(name).sweep.small, **params}


def stream(seed, n=90, d=4, K=2):
    """A stream with duplicate rows and all-zero rows; binary labels ±1 or K classes."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random(n) < 0.05] = 0.0
    repeat = rng.random(n) < 0.2
    X[repeat] = X[rng.integers(0, n, size=repeat.sum())]
    w = rng.normal(size=(d, K))
    y = np.argmax(X @ w + rng.normal(scale=0.8, size=(n, K)), axis=1)
    return X, (np.where(y == 1, 1, -1) if K == 2 else y)


def run(name, params, X, y, **kw):
    clf = olkit.make(name, **small(name, params), shuffle=False)
    res = olkit.evaluate_online(clf, X, y, **kw)
    return clf, res


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_weight_one_is_bit_identical(name, params):
    """None, ones, the scalar 1 and a list of 1.0: the same scores, mistakes and final model, bit for bit."""
    X, y = stream(1)
    base, ref = run(name, params, X, y)
    for weights in (np.ones(len(y)), 1, [1.0] * len(y), np.ones(len(y), np.int64)):
        clf, res = run(name, params, X, y, sample_weight=weights)
        assert np.array_equal(res.scores, ref.scores)
        assert np.array_equal(res.mistake_flags, ref.mistake_flags)
        assert res.n_updates == ref.n_updates
        assert np.array_equal(clf.decision_function(X), base.decision_function(X))
    fitted = olkit.make(name, **small(name, params), shuffle=False).fit(X, y, sample_weight=np.ones(len(y)))
    assert np.array_equal(fitted.decision_function(X), base.decision_function(X))


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_zero_weight_is_predicted_not_learned(name, params):
    """All-zero weights: every example is predicted and counted, nothing is learned (the empty model's scores,
    no update, no SV). Zero weights on the tail: the model after the head, and the tail's mistakes counted."""
    X, y = stream(2)
    clf, res = run(name, params, X, y, sample_weight=np.zeros(len(y)))
    empty = olkit.make(name, **small(name, params)).partial_fit(X[:1], y[:1], classes=np.unique(y), sample_weight=[0.0])
    assert res.n_updates == 0 and clf.n_updates_ == 0
    assert np.array_equal(clf.decision_function(X), empty.decision_function(X))
    assert res.mistakes == int(res.mistake_flags.sum()) and res.n_examples == len(y)

    head = 50
    weights = np.r_[np.ones(head), np.zeros(len(y) - head)]
    clf, res = run(name, params, X, y, sample_weight=weights)
    ref = olkit.make(name, **small(name, params), shuffle=False)
    olkit.evaluate_online(ref, X[:head], y[:head])
    assert res.n_updates == ref.n_updates_
    assert np.array_equal(clf.decision_function(X), ref.decision_function(X))
    # the tail is predicted by the head's model: its mistakes count (POMDR's online score adds its optimistic hint,
    # docs/algorithms/pomdr.md, so its online predictions are not predict's)
    if name != "pomdr":
        tail_pred = ref.predict(X[head:])
        assert int(res.mistake_flags[head:].sum()) == int(np.sum(tail_pred != y[head:]))


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_a_weight_changes_the_model(name, params):
    """Weights far from 1 (0.02 .. 20) give another model than no weights, for every algorithm whose rule a weight
    enters; an on/off rule (the registry's line says so) gives the same model for every positive weight."""
    X, y = stream(9)
    base, _ = run(name, params, X, y)
    w = np.random.default_rng(0).choice([0.02, 0.1, 3.0, 20.0], size=len(y))
    clf, _ = run(name, params, X, y, sample_weight=w)
    same = np.array_equal(clf.decision_function(X), base.decision_function(X))
    assert same == registry.spec(name).weight.startswith("on/off"), registry.spec(name).weight


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_every_algorithm_records_what_a_weight_does(name, params):
    """The registry says what a weight does (one line); the algorithm's page has a section Weights."""
    spec = registry.spec(name)
    assert spec.weight.strip(), f"{name}: register(..., weight=...) is empty"
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / spec.page
    assert "\n## Weights" in page.read_text(encoding="utf-8"), f"{spec.page} has no section 'Weights'"


def test_class_weight_is_a_per_class_sample_weight():
    """class_weight={label: w} gives the model of sample_weight = w for that label's examples (bit for bit),
    for binary and multiclass data; "balanced" the weights n / (K n_c) of scikit-learn."""
    from sklearn.utils.class_weight import compute_class_weight

    for name, K in (("pa1", 2), ("arow", 3), ("duol", 3), ("perceptron", 2)):
        X, y = stream(3, K=K)
        labels = np.unique(y)
        cw = {labels[0].item(): 2.5, labels[-1].item(): 0.25}
        a = olkit.make(name, class_weight=cw, random_state=4).fit(X, y)
        sw = np.where(y == labels[0], 2.5, np.where(y == labels[-1], 0.25, 1.0))
        b = olkit.make(name, random_state=4).fit(X, y, sample_weight=sw)
        assert np.array_equal(a.decision_function(X), b.decision_function(X)), name
        c = olkit.make(name, class_weight="balanced", random_state=4).fit(X, y, sample_weight=np.full(len(y), 0.5))
        bal = compute_class_weight("balanced", classes=labels, y=y)
        d = olkit.make(name, random_state=4).fit(X, y, sample_weight=0.5 * bal[np.searchsorted(labels, y)])
        assert np.allclose(c.decision_function(X), d.decision_function(X), rtol=1e-12, atol=1e-12), name


def test_balanced_class_weight_raises_minority_recall():
    """An imbalanced stream (5 % positives, overlapping classes): class_weight="balanced" raises the online
    recall of the positive class, for linear and kernel learners (docs/algorithms/options.md#weights)."""
    rng = np.random.default_rng(0)
    n = 4000
    y = np.where(rng.random(n) < 0.05, 1, -1)
    X = rng.normal(size=(n, 5)) + np.outer(y == 1, [1.2, 0.8, 0, 0, 0])
    configs = (
        ("perceptron", {"kernel": "linear"}),
        ("pa1", {"kernel": "linear", "C": 0.05}),  # a small C: PA-I's box sC binds (with C = 5 it never does here)
        ("arow", {}),
        ("scw1", {}),
        ("perceptron", {}),
        ("pa1", {"C": 0.05}),
        ("fogd", {}),
    )
    for name, params in configs:
        recall = {}
        for cw in (None, "balanced"):
            res = olkit.evaluate_online(olkit.make(name, class_weight=cw, fit_intercept=True, **params), X, y)
            pred = np.where(res.mistake_flags == 1, -y, y)
            recall[cw] = float(np.mean(pred[y == 1] == 1))
        assert recall["balanced"] > recall[None] + 0.1, (name, params, recall)


def test_bad_weights_are_refused_and_leave_the_model():
    """Negative, NaN, infinite, boolean, string, wrongly shaped weights: one ValueError naming the problem; a
    fitted model is left exactly as it was."""
    X, y = stream(4)
    clf = olkit.make("pa1", random_state=0).fit(X, y)
    before = clf.decision_function(X).copy()
    n = len(y)
    bad = {
        "negative": (np.r_[np.ones(n - 1), -1.0], "sample_weight[89] = -1.0"),
        "nan": (np.r_[np.nan, np.ones(n - 1)], "sample_weight[0] = nan"),
        "inf": (np.r_[np.ones(3), np.inf, np.ones(n - 4)], "sample_weight[3] = inf"),
        "short": (np.ones(n - 1), "expected (90,)"),
        "2d": (np.ones((n, 1)), "expected (90,)"),
        "strings": (["a"] * n, "must be numbers"),
        "booleans": (np.ones(n, bool), "must be numbers"),
        "scalar negative": (-2.0, "sample_weight[0] = -2.0"),
    }
    for what, (weights, text) in bad.items():
        for call in (
            lambda w: clf.partial_fit(X, y, sample_weight=w),
            lambda w: olkit.evaluate_online(clf, X, y, sample_weight=w, reset=False),
        ):
            with pytest.raises(ValueError, match="sample_weight") as info:
                call(weights)
            assert text in str(info.value), (what, str(info.value))
            assert np.array_equal(clf.decision_function(X), before), what
    with pytest.raises(ValueError, match="sample_weight"):
        olkit.make("pa1").fit(X, y, sample_weight=-np.ones(n))


def test_class_weight_values_and_uses_that_are_refused():
    X, y = stream(5)
    for value in ("unbalanced", {1: -1.0}, {1: float("nan")}, {1: True}, [1.0, 2.0], 3):
        with pytest.raises(ValueError, match="class_weight"):
            olkit.make("pa1", class_weight=value).fit(X, y)
    with pytest.raises(ValueError, match="not among the classes"):
        olkit.make("pa1", class_weight={7: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="whole stream"):
        olkit.make("pa1", class_weight="balanced").partial_fit(X, y)
    fitted = olkit.make("pa1", class_weight="balanced").fit(X, y)
    with pytest.raises(ValueError, match="whole stream"):
        fitted.partial_fit(X, y)
    Y = np.stack([X[:, 0] > 0, X[:, 1] > 0], axis=1).astype(int)
    with pytest.raises(ValueError, match="multi-label"):
        olkit.make("pa1", class_weight={0: 2.0}).fit(X, Y)
    olkit.make("pa1").fit(X, Y, sample_weight=np.linspace(0, 2, len(Y)))  # multi-label takes sample_weight


def test_entry_points_agree():
    """fit(shuffle=False), partial_fit in chunks and evaluate_online with the same weights give one model; a saved
    weighted model (class_weight dict with string labels) loads with its class_weight and predicts the same."""
    X, y = stream(6, K=3)
    rng = np.random.default_rng(0)
    w = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], size=len(y))
    for name in ("pa1", "arow", "duol", "ahpatron"):
        a = olkit.make(name, shuffle=False).fit(X, y, sample_weight=w)
        b = olkit.make(name)
        for lo in range(0, len(y), 25):
            b.partial_fit(X[lo : lo + 25], y[lo : lo + 25], classes=np.unique(y), sample_weight=w[lo : lo + 25])
        c = olkit.make(name)
        olkit.evaluate_online(c, X, y, sample_weight=w)
        for other in (b, c):
            assert np.allclose(a.decision_function(X), other.decision_function(X), rtol=1e-9, atol=1e-12), name


def test_saved_model_keeps_class_weight(tmp_path):
    X, y = stream(7)
    labels = np.where(y == 1, "spam", "ham")
    clf = olkit.make("pa1", class_weight={"spam": 4.0}, random_state=0).fit(X, labels)
    path = tmp_path / "m.olkit"
    olkit.save(clf, path)
    back = olkit.load(path)
    assert back.class_weight == {"spam": 4.0}
    assert np.array_equal(back.decision_function(X), clf.decision_function(X))
    back.partial_fit(X[:10], labels[:10])
    clf.partial_fit(X[:10], labels[:10])
    assert np.array_equal(back.decision_function(X), clf.decision_function(X))


def test_river_learn_one_weight():
    """River's learn_one(x, y, w): w is the example's sample_weight (0: not learned); a class_weight dict keyed by
    the wrapper's labels is applied to them."""
    pytest.importorskip("river")
    from olkit.river import RiverClassifier

    X, y = stream(8)
    labels = np.where(y == 1, "yes", "no")
    rng = np.random.default_rng(1)
    w = rng.choice([0.0, 0.5, 1.0, 3.0], size=len(y))
    model = RiverClassifier(olkit.make("pa1", kernel="linear", class_weight={"yes": 2.0}), classes=["no", "yes"])
    for xi, yi, wi in zip(X, labels, w):
        model.learn_one({f"x{j}": v for j, v in enumerate(xi)}, yi, w=wi)
    ref = olkit.make("pa1", kernel="linear")
    ref.partial_fit(X, labels, classes=["no", "yes"], sample_weight=w * np.where(labels == "yes", 2.0, 1.0))
    got = model.learner_.decision_function(X)
    assert np.allclose(got, ref.decision_function(X), rtol=1e-12, atol=1e-12)


def test_command_line_class_weight(capsys):
    """``olkit run --set class_weight=balanced`` and a JSON dict keyed by the file's labels; the run JSON records
    it; a label that is not a class is a one-line error."""
    import json

    from olkit.cli import main

    code = main(
        ["run", "arow", "--data", "german", "--repeats", "2", "--set", "class_weight=balanced", "--format", "json"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["results"][0]["params"]["class_weight"] == "balanced"
    code = main(
        ["run", "arow", "--data", "german", "--repeats", "2", "--set", 'class_weight={"1": 2}', "--format", "json"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["results"][0]["params"]["class_weight"] == {"1": 2}
    assert main(["run", "arow", "--data", "german", "--set", 'class_weight={"7": 2}']) != 0
    err = capsys.readouterr().err
    assert "class_weight names label(s) 7" in err and "\n" not in err.strip()
