"""Out-of-core streams (issue 10, item 6): olkit.data.iter_libsvm, olkit.stream and `olkit run/train --stream`."""

import bz2
import gzip
import json
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from helpers import bad_compressed_files
from olkit.cli import main
from olkit.data import iter_libsvm, read_libsvm, scan_libsvm
from olkit.stream import evaluate_libsvm_stream


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch):
    monkeypatch.setenv("OLKIT_CACHE_DIR", "off")  # read_libsvm must parse, not load a cached .npz


def libsvm_text(n, seed=0, d=30, per_row=4):
    """``n`` short rows of a separable-ish binary problem with labels 1 / 2 (raw, as in mushrooms)."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    lines = []
    for _ in range(n):
        idx = np.sort(rng.choice(d, per_row, replace=False))
        val = np.round(rng.normal(size=per_row), 3)
        label = 2 if w[idx] @ val + 0.3 * rng.normal() >= 0 else 1
        lines.append(f"{label} " + " ".join(f"{i + 1}:{v:g}" for i, v in zip(idx, val)) + "\n")
    return "".join(lines)


def write(path, text, kind=None):
    data = text.encode()
    path.write_bytes({"gz": gzip.compress, "bz2": bz2.compress}.get(kind, lambda b: b)(data))
    return path


def stacked(chunks):
    chunks = list(chunks)
    return sp.vstack([X for X, _ in chunks]).tocsr(), np.concatenate([y for _, y in chunks]), chunks


@pytest.mark.parametrize("kind", [None, "gz", "bz2"])
def test_chunks_equal_whole_file(tmp_path, kind):
    text = "# a comment line\n\n" + libsvm_text(1003) + "1 40:0.5  # width 40 only on the last line\n"
    path = write(tmp_path / f"f.libsvm{'.' + kind if kind else ''}", text, kind)
    X, y = read_libsvm(path)
    Xs, ys, chunks = stacked(iter_libsvm(path, chunk_size=100))
    assert [c[0].shape for c in chunks] == [(100, 40)] * 10 + [(4, 40)]  # comments / blank lines do not count
    assert all(isinstance(c[0], sp.csr_matrix) and c[0].dtype == np.float64 for c in chunks)
    assert (Xs != X).nnz == 0 and Xs.shape == X.shape and np.array_equal(ys, y)
    assert set(np.unique(ys)) == {1.0, 2.0}  # raw labels
    info = scan_libsvm(path, chunk_size=7)
    assert info["n_examples"] == 1004 and info["n_features"] == 40 and info["labels"].tolist() == [1.0, 2.0]
    # a given width: one pass, chunks padded; too small: an error naming the file
    assert {c[0].shape[1] for c in iter_libsvm(path, chunk_size=500, n_features=50)} == {50}
    with pytest.raises(ValueError, match="n_features=35 but the data use feature index 40"):
        list(iter_libsvm(path, chunk_size=500, n_features=35))


def test_zero_based(tmp_path):
    path = write(tmp_path / "z.libsvm", "1 0:1 2:3\n-1 1:2\n")
    ((X, y),) = iter_libsvm(path, zero_based=True)
    assert X.toarray().tolist() == [[1, 0, 3], [0, 2, 0]] and y.tolist() == [1, -1]
    with pytest.raises(ValueError, match=r"z.libsvm:1: malformed LIBSVM line: index 0 is < 1"):
        list(iter_libsvm(path))


@pytest.mark.parametrize("kind", [None, "gz", "bz2"])
def test_malformed_line_names_file_and_line(tmp_path, kind):
    lines = libsvm_text(250).splitlines(keepends=True)
    lines[236] = "1 3:0.5 2:0.1\n"  # line 237: decreasing indices, in the 3rd chunk of 100
    path = write(tmp_path / f"bad{'.' + kind if kind else ''}", "".join(lines), kind)
    with pytest.raises(ValueError) as whole:
        read_libsvm(path)
    got = []
    with pytest.raises(ValueError) as streamed:
        for X, _ in iter_libsvm(path, chunk_size=100, n_features=30):
            got.append(X.shape[0])
    assert got == [100, 100]  # the chunks before the bad one were yielded
    assert str(streamed.value) == str(whole.value)
    assert f"{path}:237: malformed LIBSVM line: indices not increasing (2 after 3)" in str(whole.value)
    with pytest.raises(ValueError, match=":237: malformed"):  # the scanning pass (n_features=None) says it too
        list(iter_libsvm(path, chunk_size=100))
    nan = write(tmp_path / "nan.libsvm", "1 1:1\n" * 150 + "2 1:nan\n")
    with pytest.raises(ValueError, match=r"nan.libsvm:151: malformed LIBSVM line: value 'nan' of index 1"):
        list(iter_libsvm(nan, chunk_size=100, n_features=1))


def test_corrupt_compressed_same_errors(tmp_path):
    for what, path in bad_compressed_files(tmp_path).items():
        with pytest.raises(ValueError) as whole:
            read_libsvm(path)
        with pytest.raises(ValueError) as streamed:
            list(iter_libsvm(path, chunk_size=50, n_features=2))
        assert str(streamed.value) == str(whole.value), what
        assert "corrupt or truncated" in str(whole.value), what


def test_bad_arguments(tmp_path):
    path = write(tmp_path / "f.libsvm", "1 1:1\n")
    with pytest.raises(ValueError, match="chunk_size must be an integer >= 1"):
        next(iter_libsvm(path, chunk_size=0))
    with pytest.raises(ValueError, match="n_features must be an integer >= 1"):
        next(iter_libsvm(path, n_features=0))
    with pytest.raises(FileNotFoundError):
        next(iter_libsvm(tmp_path / "missing"))
    empty = write(tmp_path / "empty.libsvm", "# nothing\n\n")
    with pytest.raises(ValueError, match="no examples"):
        next(iter_libsvm(empty, n_features=3))


@pytest.mark.parametrize(
    "algo, params", [("scw1", {}), ("pa1", {"kernel": "linear"}), ("forgetron", {"B": 30}), ("ahpatron", {"B": 30})]
)
def test_stream_equals_in_memory_pass(tmp_path, algo, params):
    path = write(tmp_path / "f.libsvm.gz", libsvm_text(3000, seed=1), "gz")
    X, y = read_libsvm(path)
    mem = olkit.make(algo, **params)
    ref = olkit.evaluate_online(mem, X, y)
    streamed = olkit.make(algo, **params)
    res, info = evaluate_libsvm_stream(streamed, path, chunk_size=257)
    assert info["n_examples"] == 3000 and info["n_features"] == X.shape[1]
    assert (res.mistakes, res.n_updates, res.n_sv, res.n_examples) == (ref.mistakes, ref.n_updates, ref.n_sv, 3000)
    assert np.array_equal(res.curve_x, ref.curve_x) and np.array_equal(res.curve_y, ref.curve_y)
    np.testing.assert_allclose(streamed.decision_function(X), mem.decision_function(X), rtol=1e-12, atol=1e-12)
    assert ref.mistakes > 0


def test_stream_classes_fixed_up_front(tmp_path):
    # the first chunk holds label 1 only: the classes come from the scan, not from the first chunk
    path = write(tmp_path / "f.libsvm", "1 1:1\n" * 300 + "2 2:1\n" * 300)
    res, info = evaluate_libsvm_stream(olkit.make("scw1"), path, chunk_size=100)
    X, y = read_libsvm(path)
    ref = olkit.evaluate_online(olkit.make("scw1"), X, y)
    assert info["labels"].tolist() == [1.0, 2.0] and res.mistakes == ref.mistakes


def test_streamed_peak_memory_bounded_by_chunk(tmp_path):
    n = 200_000
    path = write(tmp_path / "big.libsvm", libsvm_text(n, seed=2, d=20, per_row=3))
    small = write(tmp_path / "small.libsvm", libsvm_text(500, seed=3, d=20, per_row=3))
    evaluate_libsvm_stream(olkit.make("scw1"), small, chunk_size=100)  # compile / import outside the measure
    olkit.evaluate_online(olkit.make("scw1"), *read_libsvm(small))

    tracemalloc.start()
    try:
        res, info = evaluate_libsvm_stream(olkit.make("scw1"), path, chunk_size=2000)
        streamed_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        X, y = read_libsvm(path)
        ref = olkit.evaluate_online(olkit.make("scw1"), X, y)
        whole_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    in_memory = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes + y.nbytes
    assert res.mistakes == ref.mistakes and info["n_examples"] == n
    # streamed: one chunk (+ one int8 mistake flag per example); whole: at least the matrix
    assert whole_peak >= in_memory
    assert streamed_peak < in_memory / 10, (streamed_peak, in_memory, whole_peak)  # ~0.6 MB vs 12.8 MB


# ---- the command -----------------------------------------------------------------------------------


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_run_stream(tmp_path, capsys):
    path = write(tmp_path / "f.libsvm.bz2", libsvm_text(2000, seed=4), "bz2")
    code, out, err = run_cli(
        capsys,
        "run",
        "scw1",
        "forgetron",
        "--data",
        path,
        "--stream",
        "--chunk-size",
        300,
        "--set",
        "B=20",
        "--format",
        "json",
    )
    assert code == 0, err
    doc = json.loads(out)
    X, y = read_libsvm(path)
    for got, (algo, params) in zip(doc["results"], [("scw1", {}), ("forgetron", {"B": 20})]):
        ref = olkit.evaluate_online(olkit.make(algo, **params), X, y)
        assert (got["algorithm"], got["mistakes"], got["n_updates"], got["n_sv"]) == (
            algo,
            ref.mistakes,
            ref.n_updates,
            ref.n_sv,
        )
    code, out, err = run_cli(capsys, "run", "scw1", "--data", path, "--stream")
    assert code == 0, err
    assert "(2000 examples, 30 features, 2 classes; 1 run, file order, streamed)" in out
    assert out.splitlines()[1].split() == ["Algorithm", "Mistake", "(%)", "#SV", "#Updates", "Time", "(s)"]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--repeats", "3"], "--stream is one run in file order; it cannot be combined with --repeats > 1"),
        (["--seed", "0"], "cannot be combined with --seed"),
        (["--order", "ORDER"], "cannot be combined with --order"),
        (["--tune"], "cannot be combined with --tune"),
        (["--chunk-size", "0"], "--chunk-size must be >= 1, got 0"),
        (["--format", "csv"], "--stream prints --format table or json, not csv"),
    ],
)
def test_cli_stream_refusals(tmp_path, capsys, extra, message):
    path = write(tmp_path / "f.libsvm", libsvm_text(50))
    order = tmp_path / "order.txt"
    order.write_text("".join(f"{i}\n" for i in range(50)))
    extra = [str(order) if e == "ORDER" else e for e in extra]
    code, _, err = run_cli(capsys, "run", "scw1", "--data", path, "--stream", *extra)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_cli_stream_other_errors(tmp_path, capsys):
    path = write(tmp_path / "f.libsvm", libsvm_text(50))
    code, _, err = run_cli(capsys, "run", "scw1", "--data", path, "--chunk-size", 10)
    assert code == 2 and "--chunk-size needs --stream" in err
    code, _, err = run_cli(capsys, "run", "scw1", "--data", "german", "--stream")
    assert code == 2 and "--stream reads a LIBSVM file" in err
    bad = write(tmp_path / "bad.libsvm", "1 1:1\n2 x\n")
    code, _, err = run_cli(capsys, "run", "scw1", "--data", bad, "--stream")
    assert code == 2 and f"{bad}:2: malformed LIBSVM line" in err


def test_cli_train_stream(tmp_path, capsys):
    path = write(tmp_path / "f.libsvm", libsvm_text(1500, seed=5))
    rows = {}
    for model, extra in (("s.npz", ["--stream", "--chunk-size", 200]), ("m.npz", [])):
        code, out, err = run_cli(capsys, "train", "scw1", "--data", path, "--model", tmp_path / model, *extra)
        assert code == 0, err
        code, out2, err = run_cli(capsys, "train", "--model", tmp_path / model, "--continue", "--data", path, *extra)
        assert code == 0, err
        if extra:
            assert "1 run, file order, streamed" in out and "continued, file order, streamed" in out2
        # the table row without the time: algorithm, mistake rate, #SV, #updates
        rows[model] = [o.splitlines()[3].split()[:4] for o in (out, out2)]
    assert rows["s.npz"] == rows["m.npz"]
    X, _ = read_libsvm(path)
    a, b = olkit.load(tmp_path / "s.npz"), olkit.load(tmp_path / "m.npz")
    assert a.n_seen_ == b.n_seen_ == 3000
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-12, atol=1e-12)
    other = write(tmp_path / "g.libsvm", "3 1:1\n1 1:1\n")
    code, _, err = run_cli(capsys, "train", "--model", tmp_path / "s.npz", "--continue", "--data", other, "--stream")
    assert code == 2 and "label(s) 3 that are not among the model's classes (1, 2)" in err
