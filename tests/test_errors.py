"""Bad input gets a clear ValueError naming the problem and the valid choice."""

import re

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
import olkit.registry
from helpers import bad_compressed_files

SIGMA_RULE = "sigma must be a number >= 1e-154 and <= 1e+153"
"""What a bad sigma is told (olkit.params.SIGMA)."""

rng = np.random.default_rng(0)
X = rng.normal(size=(40, 4))
y = np.where(X[:, 0] > 0, 1, -1)


@pytest.mark.parametrize(
    "bad,needle",
    [
        (np.where(np.arange(160).reshape(40, 4) == 7, np.nan, X), "NaN or infinity"),
        (np.where(np.arange(160).reshape(40, 4) == 9, np.inf, X), "NaN or infinity"),
    ],
)
def test_nonfinite_features(bad, needle):
    for data in (bad, sp.csr_matrix(np.nan_to_num(bad, nan=np.nan, posinf=np.inf))):
        with pytest.raises(ValueError, match=needle):
            olkit.evaluate_online(olkit.make("duol"), data, y)


def test_label_problems():
    with pytest.raises(ValueError, match="only one class"):
        olkit.evaluate_online(olkit.make("pa1"), X, np.ones(40))
    with pytest.raises(ValueError, match="mismatched lengths: 40 samples in X, 39 labels"):
        olkit.evaluate_online(olkit.make("pa1"), X, y[:39])
    with pytest.raises(ValueError, match="Only binary classification is supported by duol-rand; the data have 3"):
        olkit.evaluate_online(olkit.make("duol-rand"), X, np.arange(40) % 3)
    with pytest.raises(ValueError, match="is a label matrix; perceptron learns from one label per example"):
        olkit.evaluate_online(olkit.make("perceptron"), X, np.eye(4)[np.arange(40) % 4])
    with pytest.raises(ValueError, match="indicator matrix of 0/1"):
        olkit.evaluate_online(olkit.make("duol"), X, 2 * np.eye(4)[np.arange(40) % 4])
    with pytest.raises(ValueError, match="continuous"):
        olkit.evaluate_online(olkit.make("pa1"), X, rng.normal(size=40))
    clf = olkit.make("pa1").fit(X, y)
    with pytest.raises(ValueError, match="unknown label"):
        clf.partial_fit(X[:3], [1, -1, 7])
    with pytest.raises(ValueError, match="expecting 4 features"):
        clf.predict(X[:, :3])


@pytest.mark.parametrize(
    "name,params,needle",
    [
        ("pa1", {"C": -1}, "C=.* is not valid; C must be a number > 0"),
        ("pa1", {"C": 0}, "C=.* is not valid; C must be a number > 0"),
        ("duol", {"sigma": -8}, re.escape("sigma=-8 is not valid; " + SIGMA_RULE)),
        ("duol", {"sigma": 0}, re.escape("sigma=0 is not valid; " + SIGMA_RULE)),
        ("duol", {"rho": 1.0}, "rho must be a number >= 0 and < 1"),
        ("duol", {"tol": -1e-9}, "tol must be a number >= 0"),
        ("alma", {"alpha": 0}, "alpha must be a number > 0 and <= 1"),
        ("alma", {"p": 3}, "p=3 is not valid; p must be one of 2"),
        ("perceptron", {"kernel": "rbf"}, "kernel must be one of 'gaussian', 'linear', 'poly'"),
        ("perceptron", {"kernel": "poly", "degree": 0}, "degree must be an integer >= 1"),
        ("online-svm", {"working_set": "some"}, "working_set must be one of 'margin', 'all'"),
        ("romma", {"compat": "matlab"}, "compat='matlab' is not valid; compat must be one of 'none', 'libol'"),
    ],
)
def test_bad_parameters(name, params, needle):
    with pytest.raises(ValueError, match=needle):
        olkit.make(name, **params)
    clf = olkit.registry.get(name)(**params)  # scikit-learn style: validated at fit time
    with pytest.raises(ValueError, match=needle):
        clf.fit(X, y)


def test_unknown_algorithm_and_parameter():
    with pytest.raises(ValueError, match="unknown algorithm 'svm'; valid algorithms: perceptron"):
        olkit.make("svm")
    with pytest.raises(ValueError, match="unknown algorithm 'Duol-Appr'; did you mean 'duol-appr'"):
        olkit.make("Duol-Appr")
    with pytest.raises(ValueError, match=r"duol: unknown parameter\(s\) gamma; valid parameters: C"):
        olkit.make("duol", gamma=1)


def test_bad_orders():
    with pytest.raises(ValueError, match="outside 0..39"):
        olkit.evaluate_online(olkit.make("pa1"), X, y, order=[0, 40])
    with pytest.raises(ValueError, match="integer"):
        olkit.evaluate_online(olkit.make("pa1"), X, y, order=[0.5, 1])


def test_zero_vectors_never_nan():
    Z = X.copy()
    Z[::3] = 0.0
    for name in olkit.algorithms():
        kernel = olkit.registry.spec(name).constraints.get("kernel", [])
        linear_ok = any(c is not None and c.accepts("linear") for c in kernel)  # fogd: Gaussian only
        params = {"kernel": "linear"} if linear_ok else {}
        res = olkit.evaluate_online(olkit.make(name, **params), Z, y)
        assert np.all(np.isfinite(res.scores)), name


# ---- issue 9: every bad input a clear ValueError (the CLI cases are in tests/test_errors_cli.py) ----------


def test_corrupt_or_truncated_compressed_file_names_the_file(tmp_path):
    from olkit.data import read_libsvm

    for what, path in bad_compressed_files(tmp_path).items():
        for load in (read_libsvm, olkit.load_dataset):
            with pytest.raises(ValueError, match=f"{path.name}: corrupt or truncated (gzip|bzip2) file") as info:
                load(path)
            assert "expected a complete LIBSVM file" in str(info.value), what


def test_malformed_libsvm_line_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("+1 1:0.5\n-1 1:0.25\n+1 2:x\n")
    with pytest.raises(ValueError, match=r"bad.txt:3: malformed LIBSVM line: value 'x' of index 2"):
        olkit.load_dataset(bad)


def test_directory_as_data_says_so(tmp_path):
    from olkit.data import read_libsvm

    for load in (read_libsvm, olkit.load_dataset):
        with pytest.raises(ValueError, match="is a directory; expected a LIBSVM file"):
            load(tmp_path)


@pytest.mark.parametrize(
    "name,params,needle",
    [
        ("duol", {"sigma": "abc"}, re.escape("duol: parameter sigma='abc' is not valid; " + SIGMA_RULE)),
        ("forgetron", {"B": 10**23}, "B=100000000000000000000000 is not valid; B must be an integer >= 2"),
        ("forgetron", {"B": 10**400}, "B must be an integer >= 2"),  # no TypeError from numpy
        ("scw1", {"C": float("nan")}, "C=nan is not valid; C must be a number > 0"),
    ],
)
def test_unparsable_or_unrepresentable_values(name, params, needle):
    with pytest.raises(ValueError, match=needle):
        olkit.make(name, **params)


def test_tuning_keeps_the_parameters_it_is_given():
    from olkit.experiment.tuning import tune

    order = np.arange(40)
    params, trace = tune("scw1", X, y, order, {"C": 1.0}, n_jobs=1)
    assert params["C"] == 1.0 and {t["parameter"] for t in trace} == {"eta"}
    params, trace = tune("scw1", X, y, order, {"C": 1.0, "eta": 0.7}, n_jobs=1)
    assert (params, trace) == ({"C": 1.0, "eta": 0.7}, [])  # nothing left to tune: no error


def test_mixed_label_types():
    for labels in ([1, "a"] * 20, np.array([1, "a"] * 20, dtype=object), np.array([None, 1] * 20, dtype=object)):
        with pytest.raises(ValueError, match="y mixes label types: .* the labels must be all numbers or all strings"):
            olkit.make("pa1").fit(X, labels)
    with pytest.raises(ValueError, match=r"y mixes label types: 1 \(number\) and 'a' \(string\)"):
        olkit.make("pa1").fit(X, [1, "a"] * 20)
    with pytest.raises(ValueError, match="classes mixes label types"):
        olkit.make("pa1").partial_fit(X, y, classes=[-1, "a"])
    assert olkit.make("pa1").fit(X, np.where(y > 0, "yes", "no").tolist()).classes_.tolist() == ["no", "yes"]


def test_score_and_partial_fit_label_messages():
    clf = olkit.make("pa1").fit(X, y)
    with pytest.raises(ValueError, match="X and y have mismatched lengths: 40 samples in X, 10 labels in y"):
        clf.score(X, y[:10])
    with pytest.raises(
        ValueError,
        match=r"^classes=\[-1, 2\] differs from the classes of the first partial_fit "
        r"call \(\[-1, 1\]\)$",
    ):
        clf.partial_fit(X, y, classes=np.array([-1, 2]))
    with pytest.raises(ValueError, match=r"^unknown label\(s\) 7; the classifier was set up with classes -1, 1$"):
        clf.partial_fit(X[:3], np.array([1, -1, 7]))
    fresh = olkit.make("pa1")
    with pytest.raises(ValueError, match=r"unknown label\(s\) 3; the classifier was set up with classes 1, 2"):
        fresh.partial_fit(X[:3], [1, 2, 3], classes=[1, 2])
    with pytest.raises(ValueError, match=r"only one class is present \(found class 5\)"):
        olkit.make("pa1").fit(X, np.full(40, 5))


@pytest.mark.parametrize(
    "call,needle",
    [
        (
            lambda: olkit.make("pa1", c=1),
            r"pa1: unknown parameter\(s\) c; valid parameters: C, average, class_weight, coef0, .*; "
            r"did you mean 'C' for 'c'\?",
        ),
        (lambda: olkit.make("duol", sigm=1), r"did you mean 'sigma' for 'sigm'\?"),
        (
            lambda: olkit.make("pa1").set_params(sigm=1, zzzz=2),
            r"unknown parameter\(s\) sigm, zzzz; valid parameters: "
            r"C, .*did you mean 'sigma' for 'sigm'\?$",
        ),
        (lambda: olkit.make("duoll"), r"unknown algorithm 'duoll'; did you mean 'duol'\?"),
        (lambda: olkit.make("SCW1"), r"unknown algorithm 'SCW1'; did you mean 'scw1'\?"),
    ],
)
def test_typos_get_the_nearest_name(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()
