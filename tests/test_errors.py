"""Bad input gets a clear ValueError naming the problem and the valid choice."""
import numpy as np
import pytest
import scipy.sparse as sp

import olkit
import olkit.registry

rng = np.random.default_rng(0)
X = rng.normal(size=(40, 4))
y = np.where(X[:, 0] > 0, 1, -1)


@pytest.mark.parametrize("bad,needle", [
    (np.where(np.arange(160).reshape(40, 4) == 7, np.nan, X), "NaN or infinity"),
    (np.where(np.arange(160).reshape(40, 4) == 9, np.inf, X), "NaN or infinity"),
])
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


@pytest.mark.parametrize("name,params,needle", [
    ("pa1", {"C": -1}, "C=.* is not valid; C must be a number > 0"),
    ("pa1", {"C": 0}, "C=.* is not valid; C must be a number > 0"),
    ("duol", {"sigma": -8}, "sigma=-8 is not valid; sigma must be a number > 0"),
    ("duol", {"sigma": 0}, "sigma=0 is not valid; sigma must be a number > 0"),
    ("duol", {"rho": 1.0}, "rho must be a number >= 0 and < 1"),
    ("duol", {"tol": -1e-9}, "tol must be a number >= 0"),
    ("alma", {"alpha": 0}, "alpha must be a number > 0 and <= 1"),
    ("alma", {"p": 3}, "p=3 is not valid; p must be one of 2"),
    ("perceptron", {"kernel": "rbf"}, "kernel must be one of 'gaussian', 'linear', 'poly'"),
    ("perceptron", {"kernel": "poly", "degree": 0}, "degree must be an integer >= 1"),
    ("online-svm", {"working_set": "some"}, "working_set must be one of 'margin', 'all'"),
    ("romma", {"compat": "matlab"}, "compat='matlab' is not valid; compat must be one of 'none', 'libol'"),
])
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
