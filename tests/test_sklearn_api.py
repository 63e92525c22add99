"""Every learner is a scikit-learn classifier: the real `sklearn.utils.estimator_checks` suite."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

import olkit

EXPECTED_FAILED_CHECKS = {
    check: (
        "an online learner's model depends on the order of the examples: fit draws a permutation of the n rows, "
        "and the repeated data have more rows, hence another order (where the rule allows it, weight k equals k "
        "repetitions in a row: tests/test_weights*.py)"
    )
    for check in ("check_sample_weight_equivalence_on_dense_data", "check_sample_weight_equivalence_on_sparse_data")
}
EXPECTED_FAILED_CHECKS["check_class_weight_classifiers"] = (
    "the papers' learners have no bias (fit_intercept=False by default): on this check's noisy blobs a linear model "
    "through the origin predicts the up-weighted class on about half of the test points whatever the weights (measured "
    "0.50-0.62; the Gaussian-kernel learners pass, 0.90-1.00); with fit_intercept=True the weighted learners reach "
    "0.98-1.00 (perceptron, PA-I, DUOL, AROW, FOGD, Ahpatron, BOGD, SOP). An expected failure that passes is reported "
    "as passed"
)
"""scikit-learn's checks that fail by design for online learners, with the reason."""


@pytest.mark.parametrize("name", olkit.algorithms())
def test_estimator_checks(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(olkit.make(name), on_fail=None, expected_failed_checks=EXPECTED_FAILED_CHECKS)
    failed = [(r["check_name"], repr(r["exception"])[:200]) for r in results if r["status"] == "failed"]
    assert not failed, failed


PRIMAL = [(name, {"kernel": "linear"}) for name in ("perceptron", "pa", "pa1", "pa2", "romma", "agg-romma", "alma")]


@pytest.mark.parametrize(
    "name,params",
    PRIMAL + [("scw1", {"covariance": "diagonal"}), ("nherd", {"covariance": "diagonal", "diagonal": "drop"})],
    ids=lambda v: v if isinstance(v, str) else "-".join(map(str, v.values())),
)
def test_estimator_checks_linear_forms(name, params):
    """The primal (multiclass-capable) forms and diagonal covariance pass the same suite."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(
            olkit.make(name, **params), on_fail=None, expected_failed_checks=EXPECTED_FAILED_CHECKS
        )
    failed = [(r["check_name"], repr(r["exception"])[:200]) for r in results if r["status"] == "failed"]
    assert not failed, failed


def test_pipeline_clone_and_cross_validation():
    X, y = olkit.load_dataset("german")
    # A fixed ordering: with random_state=None the last hypothesis of one fold in ~2 % of the orderings scores
    # below 0.55 (measured over 60 seeds: mean 0.71, lowest fold 0.44), which made this test flaky.
    pipe = make_pipeline(StandardScaler(with_mean=False), olkit.make("duol", sigma=4.0, random_state=0))
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.55)
    cloned = clone(olkit.make("pa1", C=2.0))
    assert cloned.get_params()["C"] == 2.0 and not hasattr(cloned, "classes_")


def test_partial_fit_equals_fit():
    X, y = olkit.load_dataset("german")
    one = olkit.make("duol", shuffle=False).fit(X, y)
    chunked = olkit.make("duol")
    for lo, hi in [(0, 100), (100, 517), (517, 1000)]:
        chunked.partial_fit(X[lo:hi], y[lo:hi], classes=np.unique(y))
    np.testing.assert_allclose(one.decision_function(X), chunked.decision_function(X), rtol=0, atol=1e-10)
    assert one.n_mistakes_ == chunked.n_mistakes_ and one.n_seen_ == chunked.n_seen_ == 1000


def test_string_labels_and_tie_rule():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] > 0, "spam", "ham")
    clf = olkit.make("perceptron").fit(X, y)
    assert list(clf.classes_) == ["ham", "spam"]  # smallest label -> -1
    assert set(clf.predict(X)) <= {"ham", "spam"}
    # before any update f = 0, which predicts the positive class
    # (docs/algorithms/conventions.md#prediction-and-mistakes)
    res = olkit.evaluate_online(olkit.make("perceptron"), X[:2], ["ham", "spam"])
    assert res.scores[0] == 0.0 and res.mistake_flags[0] == 1
