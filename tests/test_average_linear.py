"""``average`` on the linear (primal) learners (docs/algorithms/options.md#average).

The reference is naive: a twin learner without ``average`` learns the same stream one example at a time, and
after every averaged round its ``decision_function`` on fixed probe points is summed; the mean of those
per-round scores is the averaged model's score (a score is linear in the weights). The averaged learner must
give it to 1e-12 (relative to the scores' size). Streams repeat rows and hold all-zero rows; binary and
multiclass; average=True (from the first example) and average=5. Also: the online protocol is untouched
(mistakes and per-round scores bit for bit those without ``average``), chunks and a save/load mid-stream give the
one-pass average, scikit-learn's PassiveAggressiveClassifier(average=...) agrees with linear PA-I, and SOP, which
has no weight vector, refuses it.
"""

import numpy as np
import pytest

import olkit
from olkit import registry


def primal_learners():
    """(name, params) of every learner with a primal form that keeps an average (all but SOP)."""
    out = []
    for name in registry.names():
        cls = registry.get(name)
        if registry.spec(name).family == "linear":
            if name != "sop":
                out.append((name, {}))
        elif getattr(cls, "_linear_rule", None) is not None:
            out.append((name, {"kernel": "linear"}))
    return out


PRIMAL = primal_learners()


def stream(seed, n=120, d=5, K=2):
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(n, d)).astype(float)
    X[rng.random(n) < 0.08] = 0.0
    repeat = rng.random(n) < 0.25
    X[repeat] = X[rng.integers(0, n, size=repeat.sum())]
    w = rng.normal(size=(d, K))
    y = np.argmax(X @ w + rng.normal(scale=0.7, size=(n, K)), axis=1)
    if K == 2:
        y = np.where(y == 1, 1, -1)
    return X, y


def naive_average(name, params, X, y, start, probes):
    """The mean of the per-round models' scores on ``probes``, from a learner without average."""
    twin = olkit.make(name, **params)
    classes = np.unique(y)
    total, n = 0.0, 0
    for t in range(len(y)):
        twin.partial_fit(X[t : t + 1], y[t : t + 1], classes=classes)
        if t + 1 >= start:
            total = total + twin.decision_function(probes)
            n += 1
    return total / n


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("start", [True, 5])
@pytest.mark.parametrize("name,params", PRIMAL, ids=[n for n, _ in PRIMAL])
def test_average_equals_the_mean_of_the_per_round_models(name, params, start, K):
    if K > 2 and "multiclass" not in registry.spec(name).data and not params:
        pytest.skip(f"{name} is binary only")
    covariances = ["full", "diagonal"] if "covariance" in registry.defaults(name) else [None]
    for seed, covariance in enumerate(covariances):
        p = dict(params, **({"covariance": covariance} if covariance else {}))
        X, y = stream(seed, K=K)
        probes = np.vstack([X[:10], np.random.default_rng(9).normal(size=(5, X.shape[1]))])
        clf = olkit.make(name, average=start, **p).partial_fit(X, y)
        expected = naive_average(name, p, X, y, 1 if start is True else start, probes)
        got = clf.decision_function(probes)
        scale = max(1.0, float(np.abs(expected).max()))
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize("name,params", PRIMAL[::3], ids=[n for n, _ in PRIMAL[::3]])
def test_average_with_an_intercept(name, params):
    X, y = stream(4)
    p = dict(params, fit_intercept=True, intercept_scaling=0.5)
    clf = olkit.make(name, average=True, **p).partial_fit(X, y)
    expected = naive_average(name, p, X, y, 1, X)
    np.testing.assert_allclose(clf.decision_function(X), expected, rtol=0, atol=1e-12 * max(1, abs(expected).max()))
    # coef_ and intercept_ are the averaged model's
    if name != "alma":  # ALMA scores x/‖x‖
        np.testing.assert_allclose(X @ clf.coef_[0] + clf.intercept_[0], expected, rtol=0, atol=1e-10)


@pytest.mark.parametrize("name,params", PRIMAL, ids=[n for n, _ in PRIMAL])
def test_the_online_protocol_is_the_last_models(name, params):
    """average changes no update, mistake or per-round score: the mistake rate is the last iterate's."""
    X, y = stream(7, n=200)
    plain = olkit.evaluate_online(olkit.make(name, **params), X, y)
    averaged = olkit.evaluate_online(olkit.make(name, average=True, **params), X, y)
    np.testing.assert_array_equal(plain.scores, averaged.scores)
    np.testing.assert_array_equal(plain.mistake_flags, averaged.mistake_flags)
    assert plain.n_updates == averaged.n_updates


@pytest.mark.parametrize("name,params", PRIMAL[::2], ids=[n for n, _ in PRIMAL[::2]])
def test_chunks_and_a_saved_model_continue_the_average(name, params, tmp_path):
    X, y = stream(11, n=150)
    one = olkit.make(name, average=3, **params).partial_fit(X, y)
    chunked = olkit.make(name, average=3, **params)
    for lo in range(0, 150, 40):
        chunked.partial_fit(X[lo : lo + 40], y[lo : lo + 40], classes=[-1, 1])
    np.testing.assert_array_equal(one.decision_function(X), chunked.decision_function(X))
    first = olkit.make(name, average=3, **params).partial_fit(X[:70], y[:70])
    olkit.save(first, tmp_path / "m.npz")
    back = olkit.load(tmp_path / "m.npz").partial_fit(X[70:], y[70:])
    np.testing.assert_array_equal(one.decision_function(X), back.decision_function(X))


def test_average_before_the_start_is_the_last_model():
    X, y = stream(2, n=20)
    averaged = olkit.make("arow", average=50).partial_fit(X, y)
    plain = olkit.make("arow").partial_fit(X, y)
    np.testing.assert_array_equal(averaged.decision_function(X), plain.decision_function(X))


@pytest.mark.filterwarnings("ignore:Class PassiveAggressiveClassifier is deprecated:FutureWarning")
@pytest.mark.parametrize("average", [True, 10])
def test_pa1_average_equals_scikit_learn(average):
    """scikit-learn's PassiveAggressiveClassifier (PA-I, hinge loss, no intercept) over one pass in file order:
    the same averaged weights (its averaging starts at the average-th example, as olkit's)."""
    from sklearn.linear_model import PassiveAggressiveClassifier

    X, y = olkit.load_dataset("german")
    sk = PassiveAggressiveClassifier(
        C=0.5, fit_intercept=False, average=average, shuffle=False, max_iter=1, tol=None, loss="hinge"
    )
    sk.partial_fit(X, y, classes=np.unique(y))
    ours = olkit.make("pa1", kernel="linear", C=0.5, average=average).partial_fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X), rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.coef_, sk.coef_, rtol=0, atol=1e-13)


@pytest.mark.parametrize("value", [True, 3])
def test_sop_and_kernel_forms_without_an_average_refuse_it(value):
    X, y = stream(0, n=20)
    with pytest.raises(
        ValueError,
        match=r"sop: parameter average=.* average must be one of False, 0 \(this learner keeps no averaged model",
    ):
        olkit.make("sop", average=value).fit(X, y)


@pytest.mark.parametrize("value", [-1, 1.5, "yes", None, float("nan")])
def test_bad_average_is_refused(value):
    with pytest.raises(ValueError, match="average"):
        olkit.make("arow", average=value).fit(*stream(0, n=20))


def test_train_and_predict_on_the_command_line_use_the_average(tmp_path):
    from olkit.cli import main

    X, y = olkit.load_dataset("german")
    model = tmp_path / "m.npz"
    assert (
        main(
            [
                "train",
                "pa1",
                "--kernel",
                "linear",
                "--data",
                "german",
                "--set",
                "average=true",
                "--model",
                str(model),
                "-q",
            ]
        )
        == 0
    )
    clf = olkit.load(model)
    assert clf.average is True
    expected = olkit.make("pa1", kernel="linear", average=True).partial_fit(X, y)  # one pass in file order
    np.testing.assert_array_equal(clf.coef_, expected.coef_)
