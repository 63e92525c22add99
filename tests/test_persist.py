"""Models on disk without pickle (issue 10): olkit.save / olkit.load and `olkit train` / `olkit predict`.

A model saved mid-stream and loaded predicts bit-identically and continues learning exactly as the saved
one, for every registered algorithm (kernel, primal kernel="linear", linear second-order, budgeted), on
binary and 3-class data; the file holds no pickled object; a damaged or foreign file is refused with one
line naming it.
"""

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from olkit.cli import main as olkit_main
from olkit.persist import HEADER_KEY
from olkit.registry import names, spec

N_FIRST, N_MORE, N_HELD = 60, 40, 40


def stream(k, sparse=False, seed=0):
    rng = np.random.default_rng(seed)
    n = N_FIRST + N_MORE + N_HELD
    X = rng.normal(size=(n, 6))
    if k == 2:
        y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    else:
        y = np.argmax(X[:, :3] + 0.3 * rng.normal(size=(n, 3)), axis=1) * 10  # labels 0, 10, 20
    if sparse:  # high-dimensional and sparse: the support set stores sparse rows
        X = sp.csr_matrix(sp.hstack([sp.csr_matrix(X), sp.csr_matrix((n, 3000))]))
    return X, y


def small(name, **params):
    learner = olkit.make(name, **params)
    small_budget = {"B": 20, "B0": 5} if name == "pomdr" else {"B": 20}
    learner.set_params(**{k: v for k, v in small_budget.items() if k in learner.get_params()})
    return learner


def cases():
    out = []
    for name in names():
        kinds = [2] + ([3] if "multiclass" in spec(name).data else [])
        primal = getattr(spec(name).cls, "_linear_rule", None) is not None
        for k in kinds:
            out.append(pytest.param(name, k, {}, id=f"{name}-{k}"))
            if primal:
                out.append(pytest.param(name, k, {"kernel": "linear"}, id=f"{name}-{k}-linear"))
    return out


def continue_both(a, b, X, y, held):
    """Both models learn the same N_MORE further rows, then must agree on ``held``."""
    more = slice(N_FIRST, N_FIRST + N_MORE)
    a.partial_fit(X[more], y[more])
    b.partial_fit(X[more], y[more])
    assert_same(a, b, held)


def assert_same(a, b, X_held):
    np.testing.assert_array_equal(a.decision_function(X_held), b.decision_function(X_held))
    assert (a.n_seen_, a.n_updates_, a.n_support_, a.n_mistakes_) == (
        b.n_seen_,
        b.n_updates_,
        b.n_support_,
        b.n_mistakes_,
    )
    np.testing.assert_array_equal(a.classes_, b.classes_)


@pytest.mark.parametrize("name, k, params", cases())
def test_round_trip_mid_stream(name, k, params, tmp_path):
    X, y = stream(k)
    a = small(name, **params).partial_fit(X[:N_FIRST], y[:N_FIRST])
    path = tmp_path / "model.npz"
    olkit.save(a, path)
    b = olkit.load(path)
    assert type(b) is type(a) and b.get_params() == a.get_params()
    held = X[-N_HELD:]
    assert_same(a, b, held)
    continue_both(a, b, X, y, held)
    assert b.n_seen_ == N_FIRST + N_MORE


@pytest.mark.parametrize("name", ["duol", "projectron++", "forgetron", "nogd", "fogd", "pomdr", "scw1"])
def test_round_trip_sparse(name, tmp_path):
    """Sparse streams: the support set stores sparse rows (its pool of non-zeros is saved and rebuilt)."""
    X, y = stream(2, sparse=True)
    a = small(name).partial_fit(X[:N_FIRST], y[:N_FIRST])
    olkit.save(a, tmp_path / "m.npz")
    b = olkit.load(tmp_path / "m.npz")
    if getattr(a, "support_", None) is not None:
        assert b.support_.sparse == a.support_.sparse
        assert (b.support_.capacity, len(b.support_.indices)) == (a.support_.capacity, len(a.support_.indices))
    continue_both(a, b, X, y, X[-N_HELD:])


def test_round_trip_multilabel(tmp_path):
    X, _ = stream(2)
    Y = (X[:, :3] > 0).astype(int)
    a = olkit.make("duol").partial_fit(X[:N_FIRST], Y[:N_FIRST])
    olkit.save(a, tmp_path / "m.npz")
    b = olkit.load(tmp_path / "m.npz")
    assert b.multilabel_
    continue_both(a, b, X, Y, X[-N_HELD:])


def test_string_labels_and_infinite_parameter(tmp_path):
    X, y = stream(3)
    labels = np.array(["cat", "dog", "emu"])[y // 10]
    a = olkit.make("avp").partial_fit(X[:N_FIRST], labels[:N_FIRST])  # avp's U defaults to infinity
    olkit.save(a, tmp_path / "m.npz")
    b = olkit.load(tmp_path / "m.npz")
    assert b.U == a.U == float("inf")
    assert b.classes_.dtype == a.classes_.dtype and list(b.predict(X[-5:])) == list(a.predict(X[-5:]))


def header_of(path):
    with np.load(path, allow_pickle=False) as npz:
        return json.loads(npz[HEADER_KEY].tobytes().decode())


def test_file_holds_no_pickle(tmp_path):
    X, y = stream(3)
    path = tmp_path / "m.npz"
    olkit.save(small("duol").partial_fit(X[:N_FIRST], y[:N_FIRST]), path)
    with np.load(path, allow_pickle=False) as npz:
        arrays = {key: npz[key] for key in npz.files}
    assert all(a.dtype != object for a in arrays.values())
    header = header_of(path)
    assert header["format"] == "olkit-model" and header["format_version"] == 3
    assert header["algorithm"] == "duol" and header["classes"] == {
        "kind": "int",
        "dtype": arrays["classes_"].dtype.str,
        "values": [0, 10, 20],
    }
    assert header["n_features_in"] == 6 and header["multilabel"] is False and header["params"]["C"] is None
    assert set(header["arrays"]) == set(arrays) - {HEADER_KEY}
    for key, entry in header["arrays"].items():
        assert entry == {"dtype": arrays[key].dtype.str, "shape": list(arrays[key].shape)}
    with zipfile.ZipFile(path) as zf:  # nothing but .npy arrays
        assert all(info.filename.endswith(".npy") for info in zf.infolist())


def rewrite(path, header=None, arrays=None, drop=()):
    """The file at ``path`` with a changed header / arrays (a tampered file)."""
    with np.load(path, allow_pickle=False) as npz:
        content = {key: npz[key] for key in npz.files}
    if header is not None:
        content[HEADER_KEY] = np.frombuffer(json.dumps(header).encode(), np.uint8)
    content.update(arrays or {})
    for key in drop:
        del content[key]
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **content)


@pytest.fixture
def saved(tmp_path):
    X, y = stream(2)
    path = tmp_path / "m.npz"
    olkit.save(small("duol").partial_fit(X[:N_FIRST], y[:N_FIRST]), path)
    return path


def test_refuses_foreign_files(tmp_path):
    text = tmp_path / "data.libsvm"
    text.write_text("+1 1:0.5\n")
    with pytest.raises(ValueError, match=r"data\.libsvm: not an olkit model file"):
        olkit.load(text)
    other = tmp_path / "other.npz"
    np.savez(other, a=np.arange(3))
    with pytest.raises(ValueError, match=r"other\.npz: invalid olkit model file: not an olkit model file"):
        olkit.load(other)
    with pytest.raises(FileNotFoundError, match="missing.npz"):
        olkit.load(tmp_path / "missing.npz")


def test_refuses_newer_format(saved):
    header = header_of(saved)
    header["format_version"] = 4
    rewrite(saved, header)
    with pytest.raises(ValueError, match=r"m\.npz: .*format version 4 is not readable.*reads version 3"):
        olkit.load(saved)


def test_refuses_the_format_with_positional_rule_parameters(saved):
    """Format 1 saved a rule's parameters as a float array read by position; format 2 saves the named record
    (olkit.learners.records). A format-1 file is refused with what to do, not misread."""
    header = header_of(saved)
    header["format_version"] = 1
    rewrite(saved, header)
    with pytest.raises(ValueError, match=r"m\.npz: .*format version 1 .* no longer read .*fit the model again"):
        olkit.load(saved)


def test_refuses_the_format_without_averages(saved):
    """Format 2 had no averaged models (a linear model's state was smaller): refused with what to do."""
    header = header_of(saved)
    header["format_version"] = 2
    rewrite(saved, header)
    with pytest.raises(
        ValueError, match=r"m\.npz: .*format version 2 .*averaged.* no longer read .*fit the model again"
    ):
        olkit.load(saved)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda h: h.update(algorithm="no-such-algo"), "unknown algorithm 'no-such-algo'"),
        (lambda h: h["params"].update(C=-1), "C=-1 is not valid"),
        (lambda h: h["params"].update(nonsense=1), "unknown parameter"),
        (lambda h: h["arrays"]["support_.coef"].update(shape=[1, 1]), "support_.coef"),
        (lambda h: h["arrays"]["state_.cnt"].update(dtype="<f8"), "state_.cnt"),
        (lambda h: h["classes"].update(values=[0, 1]), "classes"),
        (lambda h: h["state"].pop("state_"), "no state_"),
    ],
)
def test_refuses_tampered_header(saved, change, message):
    header = header_of(saved)
    change(header)
    rewrite(saved, header)
    with pytest.raises(ValueError, match=message) as info:
        olkit.load(saved)
    assert str(saved) in str(info.value) and "\n" not in str(info.value)


def test_refuses_missing_or_reshaped_array(saved):
    rewrite(saved, drop=["support_.coef"])
    with pytest.raises(ValueError, match=r"array 'support_.coef' of the manifest is missing"):
        olkit.load(saved)


def test_refuses_arrays_disagreeing_with_the_model(saved):
    header = header_of(saved)
    header["arrays"]["state_.cnt"]["shape"] = [3]
    rewrite(saved, header, arrays={"state_.cnt": np.zeros(3, np.int64)})
    with pytest.raises(ValueError, match=r"state_\.cnt has shape"):
        olkit.load(saved)


def test_refuses_unfitted_model(tmp_path):
    with pytest.raises(ValueError, match="not fitted.*m.npz"):
        olkit.save(olkit.make("pa1"), tmp_path / "m.npz")
    assert not (tmp_path / "m.npz").exists()


# ---- the command line -------------------------------------------------------------------------------------
def write_libsvm(path, n, d, seed, labels=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] > 0, 1, -1) if labels is None else np.full(n, labels)
    with open(path, "w") as fh:
        fh.writelines(
            f"{label} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row)) + "\n" for row, label in zip(X, y)
        )
    return X, y


def test_cli_train_predict_continue(tmp_path, capsys):
    for name, n, d, seed in [("train", 200, 6, 0), ("more", 80, 6, 1), ("test", 50, 4, 2)]:
        write_libsvm(tmp_path / f"{name}.libsvm", n, d, seed)
    (X, y), (X2, y2), (X3, y3) = (
        olkit.load_dataset(str(tmp_path / f"{name}.libsvm")) for name in ("train", "more", "test")
    )
    assert X3.shape[1] == 4  # fewer columns than the training file: padded to the model's 6
    model, out = str(tmp_path / "m.npz"), str(tmp_path / "pred.txt")
    assert (
        olkit_main(["train", "pa1", "--data", str(tmp_path / "train.libsvm"), "--model", model, "--set", "C=0.5"]) == 0
    )
    text = capsys.readouterr().out
    ref = olkit.evaluate_online(olkit.make("pa1", C=0.5), X, y)
    assert f"{100 * ref.mistake_rate:.3f}" in text and "model saved to" in text
    assert olkit_main(["predict", "--model", model, "--data", str(tmp_path / "test.libsvm"), "--out", out]) == 0
    clf = olkit.make("pa1", C=0.5).partial_fit(X, y)
    X3p = np.hstack([X3.toarray(), np.zeros((50, 2))])
    pred = clf.predict(X3p)
    assert [float(v) for v in Path(out).read_text().split()] == pred.tolist()
    assert f"accuracy {np.mean(pred == y3):.4f}" in capsys.readouterr().out
    assert olkit_main(["train", "--continue", "--model", model, "--data", str(tmp_path / "more.libsvm")]) == 0
    capsys.readouterr()
    clf.partial_fit(X2, y2)
    np.testing.assert_array_equal(olkit.load(model).decision_function(X3p), clf.decision_function(X3p))
    assert olkit.load(model).n_seen_ == 280


def test_cli_errors(tmp_path, capsys):
    write_libsvm(tmp_path / "train.libsvm", 100, 6, 0)
    write_libsvm(tmp_path / "wide.libsvm", 20, 8, 1)
    write_libsvm(tmp_path / "unlabelled.libsvm", 20, 6, 1, labels=0)
    model = str(tmp_path / "m.npz")
    assert olkit_main(["train", "pa1", "--data", str(tmp_path / "train.libsvm"), "--model", model]) == 0
    capsys.readouterr()
    assert olkit_main(["predict", "--model", model, "--data", str(tmp_path / "unlabelled.libsvm")]) == 0
    assert "no accuracy: the file's labels (0) are not among the model's classes (-1, 1)" in capsys.readouterr().out
    for argv, message in [
        (["predict", "--model", model, "--data", str(tmp_path / "wide.libsvm")], "has 8 features, but the model"),
        (
            ["train", "duol", "--continue", "--model", model, "--data", str(tmp_path / "train.libsvm")],
            "is a pa1 model, not duol",
        ),
        (["train", "--model", model, "--data", str(tmp_path / "train.libsvm")], "train needs an algorithm"),
        (
            ["predict", "--model", str(tmp_path / "train.libsvm"), "--data", str(tmp_path / "train.libsvm")],
            "not an olkit model file",
        ),
        (["predict", "--model", str(tmp_path / "none.npz"), "--data", str(tmp_path / "train.libsvm")], "no such file"),
    ]:
        assert olkit_main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("olkit: error: ") and message in err and err.count("\n") == 1


def test_python_dash_m_is_the_same_program(tmp_path, capsys):
    """`python -m olkit train/predict` writes the same model and predictions as the `olkit` command."""
    write_libsvm(tmp_path / "train.libsvm", 100, 5, 0)
    run = [sys.executable, "-m", "olkit"]
    done = subprocess.run(
        run + ["train", "arow", "--data", "train.libsvm", "--model", "m.npz"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    done = subprocess.run(
        run + ["predict", "--data", "train.libsvm", "--model", "m.npz", "--out", "p.txt"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "accuracy" in done.stdout
    data, model, out = (str(tmp_path / name) for name in ("train.libsvm", "direct.npz", "direct.txt"))
    assert olkit_main(["train", "arow", "--data", data, "--model", model]) == 0
    assert olkit_main(["predict", "--data", data, "--model", model, "--out", out]) == 0
    assert (tmp_path / "p.txt").read_text() == Path(out).read_text()
    X = olkit.load_dataset(data)[0]
    np.testing.assert_array_equal(
        olkit.load(tmp_path / "m.npz").decision_function(X), olkit.load(model).decision_function(X)
    )


FORMAT3 = Path(__file__).parent / "data" / "format3"


@pytest.mark.parametrize("name", ["duol", "arow"])
def test_format3_file_of_an_earlier_olkit_loads(name, tmp_path):
    """A file written before the examples' weights (tests/data/format3/README.md says how): no ``support_.sw``
    and no ``class_weight`` in its record of parameters. It loads with every SV's weight 1 and no class weights
    (what its model was learnt with), predicts bit for bit what the earlier olkit printed, continues learning
    as that olkit did, and is written back in today's layout."""
    expected = json.loads((FORMAT3 / "expected.json").read_text())
    X, y = np.array(expected["X"]), np.array(expected["y"])
    e = expected[name]
    clf = olkit.load(FORMAT3 / f"{name}.npz")
    assert clf.class_weight is None and dict(clf._state_params)["class_weight"] is None
    if name == "duol":
        n = clf.support_.n
        assert n > 0 and np.array_equal(clf.support_.sw[:n], np.ones(n))
    assert clf.predict(X).tolist() == e["predict"]
    assert clf.decision_function(X).tolist() == e["decision_function"]
    clf.partial_fit(X[20:], y[20:])
    assert clf.decision_function(X).tolist() == e["decision_function_after_partial_fit"]
    olkit.save(clf, tmp_path / "again.npz")
    back = olkit.load(tmp_path / "again.npz")
    assert back.decision_function(X).tolist() == e["decision_function_after_partial_fit"]
    if name == "duol":
        assert "support_.sw" in json.loads(np.load(tmp_path / "again.npz")[HEADER_KEY].tobytes())["arrays"]
