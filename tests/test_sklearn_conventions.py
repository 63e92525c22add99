"""scikit-learn's input conventions (issue 21, item 7): column names, the ``classes`` argument, and the
parameters a fitted model was built with."""

import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import GridSearchCV

import olkit
from olkit.persist import HEADER_KEY


@pytest.fixture(scope="module")
def german():
    X, y = olkit.load_dataset("german")
    return X.toarray()[:300], y[:300]


def frame(X, columns):
    return pd.DataFrame(X[:, : len(columns)], columns=columns)


NAMES = [f"f{j}" for j in range(6)]


# ---- feature_names_in_ ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["pa1", "scw1", "ahpatron"])
def test_feature_names_recorded_and_checked_as_sklearn(german, name):
    """Fitted on a DataFrame: feature_names_in_ are its columns; reordered, unknown or missing columns raise
    scikit-learn's ValueError at predict, decision_function, score and partial_fit (they used to give other
    decisions without a word)."""
    X, y = german
    df = frame(X, NAMES)
    clf = olkit.make(name).fit(df, y)
    assert list(clf.feature_names_in_) == NAMES and clf.feature_names_in_.dtype.kind == "U"
    reordered = df[NAMES[::-1]]
    renamed = df.rename(columns={"f5": "g5"})
    for bad, detail in [
        (reordered, "Feature names must be in the same order as they were in fit"),
        (renamed, ("Feature names unseen at fit time:\n- g5\nFeature names seen at fit time, yet now missing:\n- f5")),
    ]:
        for call in (
            clf.predict,
            clf.decision_function,
            lambda X_: clf.score(X_, y),
            lambda X_: clf.partial_fit(X_, y),
        ):
            with pytest.raises(
                ValueError, match="The feature names should match those that were passed during fit"
            ) as info:
                call(bad)
            assert detail in str(info.value)
    seen = clf.n_seen_
    clf.partial_fit(df, y)  # the same columns: learned
    assert clf.n_seen_ == seen + len(y)
    with pytest.warns(
        UserWarning,
        match=f"X does not have valid feature names, but {type(clf).__name__} was fitted with feature names",
    ):
        np.testing.assert_array_equal(clf.predict(X[:, :6]), clf.predict(df))
    clf.fit(X[:, :6], y)  # fitted again without names: the names are gone, as in scikit-learn
    assert not hasattr(clf, "feature_names_in_")
    with pytest.warns(UserWarning, match="X has feature names, but"):
        clf.predict(df)


def test_feature_names_first_partial_fit_and_non_string_columns(german):
    X, y = german
    clf = olkit.make("duol").partial_fit(frame(X, NAMES), y[:300], classes=[-1, 1])
    assert list(clf.feature_names_in_) == NAMES
    with pytest.raises(ValueError, match="seen at fit time, yet now missing:\n- f5"):
        clf.partial_fit(frame(X, NAMES[:5]), y)
    numbered = olkit.make("pa1").fit(pd.DataFrame(X[:, :6]), y)  # integer column names: no names (sklearn)
    assert not hasattr(numbered, "feature_names_in_")


def test_feature_names_survive_save_and_load(german, tmp_path):
    X, y = german
    df = frame(X, NAMES)
    clf = olkit.make("pa1").fit(df, y)
    path = tmp_path / "named.npz"
    olkit.save(clf, path)
    again = olkit.load(path)
    np.testing.assert_array_equal(again.feature_names_in_, clf.feature_names_in_)
    np.testing.assert_array_equal(again.decision_function(df), clf.decision_function(df))
    with pytest.raises(ValueError, match="The feature names should match"):
        again.predict(df[NAMES[::-1]])


def rewrite_model(path, edit_header, edit_arrays=None):
    """Rewrite an olkit model file with its JSON header (and optionally its arrays) edited."""
    with np.load(path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    header = json.loads(arrays.pop(HEADER_KEY).tobytes().decode("utf-8"))
    edit_header(header)
    if edit_arrays:
        edit_arrays(arrays)
        header["arrays"] = {k: {"dtype": a.dtype.str, "shape": list(a.shape)} for k, a in arrays.items()}
    blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **{HEADER_KEY: blob}, **arrays)


def test_a_file_with_feature_names_of_the_wrong_length_is_refused(german, tmp_path):
    X, y = german
    clf = olkit.make("pa1").fit(frame(X, NAMES), y)
    path = tmp_path / "named.npz"
    olkit.save(clf, path)
    rewrite_model(path, lambda h: None, lambda a: a.__setitem__("feature_names_in_", np.array(["a", "b"])))
    with pytest.raises(ValueError, match="feature_names_in_ must be a 1-D array of text, one entry per feature"):
        olkit.load(path)
    assert zipfile.is_zipfile(path)


# ---- the classes argument ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "classes,message",
    [
        ([-1, 1, np.nan], r"classes=\[-1.0, 1.0, nan\] holds NaN or infinity"),
        ([-1, 1, np.inf], "holds NaN or infinity"),
        (
            [1, 1, 2],
            (
                r"classes=\[1, 1, 2\] repeats 1; the classes must be "
                "distinct labels"
            ),
        ),
        (["a", "b", "a"], "repeats a"),
        ([[-1, 1]], "classes must be a 1-D list of labels"),
    ],
)
def test_nan_or_duplicate_classes_are_refused(german, classes, message):
    X, y = german
    clf = olkit.make("pa1")
    with pytest.raises(ValueError, match=message):
        clf.partial_fit(X[:20], y[:20], classes=classes)
    assert not hasattr(clf, "state_")
    clf.partial_fit(X[:20], y[:20], classes=[-1, 1])
    with pytest.raises(ValueError, match=message):  # a later call checks them too
        clf.partial_fit(X[20:40], y[20:40], classes=classes)
    assert clf.n_seen_ == 20


# ---- parameters changed after fit ----------------------------------------------------------------------------
CHANGES = [
    ("duol", {"kernel": "linear"}),
    ("scw1", {"covariance": "diagonal"}),
    ("pa1", {"sigma": 2.0}),
    ("pa1", {"C": 3.0}),
    ("ahpatron", {"B": 50}),
    ("pa1", {"kernel": "linear"}),
]


@pytest.mark.parametrize("name,change", CHANGES, ids=lambda v: v if isinstance(v, str) else "-".join(map(str, v)))
def test_a_parameter_changed_after_fit_is_refused_until_fit(german, tmp_path, name, change):
    """``partial_fit``, ``predict`` and ``olkit.save`` refuse a model whose parameters changed since it was
    built (before: save wrote a file that load could not read, predict raised AttributeError); setting it
    back continues; ``fit`` starts afresh with the new value, and that model saves and loads."""
    X, y = german
    clf = olkit.make(name).partial_fit(X[:100], y[:100])
    before = clf.decision_function(X)
    ((key, value),) = change.items()
    built = clf.get_params()[key]
    clf.set_params(**change)
    path = tmp_path / "m.npz"
    expected = (
        f"{name}: parameter {key} is {value!r}, but the model was built with {key}={built!r}; call fit to "
        f"start afresh or set it back (set_params({key}={built!r}))"
    )
    for call in (
        lambda: clf.predict(X),
        lambda: clf.decision_function(X),
        lambda: clf.score(X, y),
        lambda: clf.partial_fit(X[100:], y[100:]),
        lambda: olkit.save(clf, path),
        lambda: olkit.evaluate_online(clf, X[100:], y[100:], reset=False),
    ):
        with pytest.raises(ValueError) as info:
            call()
        assert expected in str(info.value) and "\n" not in str(info.value)  # save adds the file's name
    assert not path.exists() and os.listdir(tmp_path) == []
    assert clf.n_seen_ == 100
    clf.set_params(**{key: built})  # set back: the model continues
    np.testing.assert_array_equal(clf.decision_function(X), before)
    clf.set_params(**change)
    clf.fit(X, y)  # starts afresh with the new value
    assert clf.n_seen_ == len(y)
    olkit.save(clf, path)
    again = olkit.load(path)
    assert again.get_params()[key] == value
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))


def test_an_unchanged_value_of_another_type_is_no_change(german):
    X, y = german
    clf = olkit.make("pa1", C=2).partial_fit(X[:50], y[:50])
    clf.set_params(C=2.0, sigma=np.float64(clf.sigma))
    clf.partial_fit(X[50:100], y[50:100])
    assert clf.n_seen_ == 100


def test_model_files_and_the_record_of_fitted_parameters(german, tmp_path):
    """A file written before the record existed loads (its parameters are those of the model) and refuses a
    later change; a file whose record disagrees with its parameters is refused at load."""
    X, y = german
    clf = olkit.make("duol").partial_fit(X[:100], y[:100])
    path = tmp_path / "m.npz"
    olkit.save(clf, path)

    rewrite_model(path, lambda h: h["state"].pop("_state_params"))
    old = olkit.load(path)
    np.testing.assert_array_equal(old.decision_function(X), clf.decision_function(X))
    old.set_params(kernel="linear")
    with pytest.raises(ValueError, match="parameter kernel is 'linear', but the model was built with kernel="):
        old.predict(X)

    olkit.save(clf, path)
    rewrite_model(path, lambda h: h["params"].update(sigma=3.0))
    with pytest.raises(
        ValueError, match="invalid olkit model file: .*parameter sigma is 3.0, but the model was built with sigma="
    ):
        olkit.load(path)

    olkit.save(clf, path)
    rewrite_model(path, lambda h: h["state"].update(_state_params="x"))
    with pytest.raises(ValueError, match="invalid olkit model file: .*record of the parameters .* is damaged"):
        olkit.load(path)


def test_grid_search_sets_parameters_on_fresh_clones(german):
    X, y = german
    search = GridSearchCV(olkit.make("pa1"), {"C": [0.5, 2.0], "kernel": ["gaussian", "linear"]}, cv=2).fit(X, y)
    assert search.best_estimator_.get_params()["C"] in (0.5, 2.0)
    assert search.best_estimator_.predict(X).shape == (len(y),)


def test_arrays_do_not_import_sklearn_for_column_names():
    """Plain arrays never reach scikit-learn's column-name helper (importing scikit-learn costs a second of
    the command line's start-up)."""
    code = (
        "import sys, numpy as np, olkit; X = np.random.default_rng(0).normal(size=(40, 3)); "
        "y = np.where(X[:, 0] > 0, 1, -1); c = olkit.make('pa1', shuffle=False).fit(X, y); c.predict(X); "
        "c.partial_fit(X, y); print('sklearn' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "False"
