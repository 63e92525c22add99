"""olkit.river.RiverClassifier: River's estimator checks, and the same mistakes as olkit.evaluate_online
(issue 10, item 4's acceptance) for a linear, a kernel and a budgeted learner, binary and multiclass."""

import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

from helpers import require_data_files

river = pytest.importorskip("river")  # a guard only: `make test` installs the river extra

from river import checks, datasets, evaluate, metrics, stream  # noqa: E402

import olkit  # noqa: E402
from olkit.river import RiverClassifier  # noqa: E402

LEARNERS = ["pa", "scw1", "duol", "ahpatron"]  # linear, second-order linear, kernel, budgeted kernel


def _image_segments():
    """River's bundled ImageSegments (2310 x 18, 7 string labels), features min-max scaled to [-1, 1]."""
    rows = list(datasets.ImageSegments())
    names = list(rows[0][0])
    X = np.array([[x[k] for k in names] for x, _ in rows], dtype=float)
    lo, hi = X.min(axis=0), X.max(axis=0)
    X = 2 * (X - lo) / np.where(hi > lo, hi - lo, 1) - 1
    return X, np.array([y for _, y in rows])


def _german():
    X, y = olkit.load_dataset("german")
    return X.toarray(), y


def _vehicle():
    require_data_files("vehicle")
    X, y = olkit.load_dataset("vehicle")
    return (X.toarray() if hasattr(X, "toarray") else np.asarray(X)), y


DATASETS = {"german": _german, "image-segments": _image_segments, "vehicle": _vehicle}


@pytest.mark.parametrize("dataset", list(DATASETS))
@pytest.mark.parametrize("name", LEARNERS)
def test_progressive_val_score_matches_evaluate_online(name, dataset):
    """progressive_val_score's Accuracy on the stream in file order is exactly evaluate_online's mistakes,
    and the two final models are the same."""
    X, y = DATASETS[dataset]()
    classes = np.unique(y).tolist()
    res = olkit.evaluate_online(olkit.make(name), X, y)
    model = RiverClassifier(olkit.make(name), classes=classes)
    acc = evaluate.progressive_val_score(stream.iter_array(X, y), model, metrics.Accuracy())
    correct = acc.get() * len(y)
    assert abs(correct - round(correct)) < 1e-6
    assert len(y) - round(correct) == res.mistakes
    assert model.learner_.n_mistakes_ == res.mistakes and model.learner_.n_seen_ == len(y)
    # the same model up to rounding (the compiled loop sums in another order over a block of rows than over
    # one row, so the last bits of the weights differ; no prediction above depended on them)
    reference = olkit.make(name).partial_fit(X, y, classes=classes)
    np.testing.assert_allclose(
        model.learner_.decision_function(X[:100]), reference.decision_function(X[:100]), rtol=1e-9, atol=1e-9
    )
    assert model._multiclass == (len(classes) > 2)


def test_predictions_match_example_by_example():
    """predict_one before learn_one is olkit's prediction of that row, including the first one (empty model,
    the binary tie rule: f = 0 predicts classes_[1])."""
    X, y = _german()
    res = olkit.evaluate_online(olkit.make("duol"), X, y)
    model = RiverClassifier(olkit.make("duol"), classes=(-1.0, 1.0))
    flags = []
    for x, label in stream.iter_array(X, y):
        flags.append(model.predict_one(x) != label)
        model.learn_one(x, label)
    np.testing.assert_array_equal(np.array(flags, dtype=np.int8), res.mistake_flags)
    assert RiverClassifier(olkit.make("duol"), classes=(-1, 1)).predict_one({0: 1.0}) == 1


def test_classes_none_is_binary_from_the_first_two_labels():
    """classes=None: examples are kept until the second label, then learned in order — from then on the
    predictions and the model are the learner's own; before, the one label seen is predicted."""
    X, y = _german()
    y = np.where(y > 0, "good", "bad")
    first_other = int(np.argmax(y != y[0]))
    res = olkit.evaluate_online(olkit.make("pa"), X, y)
    model = RiverClassifier(olkit.make("pa"))
    assert model.predict_one({0: 1.0}) is None
    flags = []
    for i, (x, label) in enumerate(stream.iter_array(X, y)):
        pred = model.predict_one(x)
        if 0 < i <= first_other:
            assert pred == y[0]
        flags.append(pred != label)
        model.learn_one(x, label)
    np.testing.assert_array_equal(
        np.array(flags[first_other + 1 :], dtype=np.int8), res.mistake_flags[first_other + 1 :]
    )
    assert model.classes_ == ["bad", "good"]
    reference = olkit.make("pa").partial_fit(X, y)
    np.testing.assert_allclose(
        model.learner_.decision_function(X), reference.decision_function(X), rtol=1e-9, atol=1e-9
    )
    with pytest.raises(ValueError, match="unknown label 'other'.*pass classes"):
        model.learn_one({0: 1.0}, "other")


@pytest.mark.parametrize("multiclass", [False, True], ids=["binary", "multiclass"])
@pytest.mark.parametrize("name", LEARNERS)
def test_river_check_estimator(name, multiclass):
    """River's own checks, binary (classes=None), and multiclass with classes covering both datasets River
    feeds a multiclass classifier (its binary Phishing, labels False/True, and ImageSegments' seven labels)."""
    classes = (False, True, *sorted({y for _, y in datasets.ImageSegments()})) if multiclass else None
    model = RiverClassifier(olkit.make(name), classes=classes)
    assert model._multiclass == multiclass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the emerging-features checks: "ignores feature(s)"
        checks.check_estimator(model)


def test_features_argument_and_new_feature_rules():
    model = RiverClassifier(olkit.make("pa"), features=["b", "a"], new_features="raise")
    assert model.features_ == ["b", "a"]
    model.learn_one({"a": 1.0}, 1)  # missing "b" is 0
    model.learn_one({"b": 1.0}, -1)
    assert model.learner_.n_features_in_ == 2
    with pytest.raises(ValueError, match="not among the 2 fixed columns: 'c'"):
        model.learn_one({"a": 1.0, "c": 2.0}, 1)
    with pytest.raises(ValueError, match="not among the 2 fixed columns: 'c'"):
        model.predict_one({"c": 2.0})

    model = RiverClassifier(olkit.make("pa"))
    model.learn_one({"z": 1.0, "a": 0.5}, 1)
    assert model.features_ == ["a", "z"]  # sorted: independent of the first dict's key order
    with pytest.warns(UserWarning, match="ignores feature.*'new'"):
        model.learn_one({"a": 1.0, "new": 3.0}, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once only
        model.predict_one({"new": 1.0})
        quiet = RiverClassifier(olkit.make("pa"), new_features="ignore")
        quiet.learn_one({"a": 1.0}, 1)
        quiet.learn_one({"b": 1.0}, -1)
    with pytest.raises(ValueError, match="must be numbers: 'a'='x'"):
        model.learn_one({"a": "x"}, 1)


def test_parameter_errors():
    with pytest.raises(TypeError, match="olkit learner"):
        RiverClassifier(object())
    with pytest.raises(ValueError, match="new_features"):
        RiverClassifier(olkit.make("pa"), new_features="drop")
    with pytest.raises(ValueError, match="at least two"):
        RiverClassifier(olkit.make("pa"), classes=[1, 1])
    with pytest.raises(ValueError, match="binary learner"):
        RiverClassifier(olkit.make("sop"), classes=[0, 1, 2])
    with pytest.raises(ValueError, match="distinct"):
        RiverClassifier(olkit.make("pa"), features=["a", "a"])
    model = RiverClassifier(olkit.make("pa"), classes=["x", "y", "z"])
    model.learn_one({"a": 1.0}, "x")
    with pytest.raises(ValueError, match="unknown label 'w'.*fixed by `classes`"):
        model.learn_one({"a": 1.0}, "w")


def test_no_probabilities_and_the_template_is_not_modified():
    learner = olkit.make("duol")
    model = RiverClassifier(learner, classes=(0, 1))
    model.learn_one({"a": 1.0}, 1)
    model.learn_one({"a": -1.0}, 0)
    assert not hasattr(learner, "classes_")  # the wrapper trains a clone
    with pytest.raises(NotImplementedError):
        model.predict_proba_one({"a": 1.0})
    again = pickle.loads(pickle.dumps(model))
    assert again.predict_one({"a": 0.5}) == model.predict_one({"a": 0.5}) == 1
    clone = model.clone()
    assert clone.learner_ is None and clone.predict_one({"a": 1.0}) == 1


@pytest.mark.parametrize("name", ["duol", "ahpatron", "scw1"])
def test_row_buffer_is_not_kept_by_the_learner(name):
    """The wrapper reuses one row buffer; the learner must copy what it keeps of a row."""
    X, y = _german()
    model = RiverClassifier(olkit.make(name), classes=(-1.0, 1.0))
    for x, label in stream.iter_array(X[:60], y[:60]):
        model.learn_one(x, label)
    before = model.learner_.decision_function(X[:20])
    model._row.fill(123.0)
    np.testing.assert_array_equal(model.learner_.decision_function(X[:20]), before)


def test_import_olkit_does_not_import_river():
    code = (
        "import sys, olkit; olkit.make('pa'); olkit.load_dataset('german'); "
        "assert not [m for m in sys.modules if m == 'river' or m.startswith('river.')], 'river imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_memory_usage_skips_compiled_code_and_dead_proxies():
    """River's memory check walks the model's object graph; olkit's learners reach numba's compiled functions,
    whose JIT engine keeps a weak proxy to each code library it compiled. A discarded one leaves a dead proxy,
    on which River's own walk raises ReferenceError (reproduced here with river 0.x); olkit's measure leaves the
    compiled code out (shared by every model, not its state) and counts the model."""
    import gc

    import numba

    small = RiverClassifier(olkit.make("pa"))
    large = RiverClassifier(olkit.make("pa"))
    for i in range(200):
        x = {"a": float(i % 7), "b": float(i % 5)}
        large.learn_one(x, bool(i % 2))
        if i < 10:
            small.learn_one(x, bool(i % 2))
    discarded = numba.njit(lambda a: a + 1)  # compiled in memory, then dropped: its library's proxy dies
    assert discarded(1) == 2
    del discarded
    gc.collect()
    assert 0 < small._raw_memory_usage < large._raw_memory_usage < 1_000_000  # the model, not numba's compiler
    assert large.learner_.n_support_ > small.learner_.n_support_
    assert small._memory_usage.endswith("B")  # River's human-readable form is built on it
