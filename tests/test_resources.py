"""Bounded resources, clear words (issue 21 item 6): a width or a state size that cannot fit is refused before
allocating, naming where it comes from and the cheaper choice; an unbudgeted kernel learner warns once when
its support set grows past olkit.limits.SV_WARNING_THRESHOLD; the parsed-data cache is bounded, evicts least
recently used entries, survives corrupt entries and is inspectable (``olkit cache info|clear``)."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from olkit import limits, registry
from olkit.cli import main
from olkit.data import cache, read_libsvm

WIDE = "+1 1:1\n-1 2:1 2147483647:1\n+1 3:1 4:2\n-1 1:2\n"
"""A tiny file 2**31 - 1 features wide (line 2): a dense d-vector of it would take 16 GiB."""


@pytest.fixture
def wide_file(tmp_path, monkeypatch):
    """The WIDE file, with the state limit pinned to 8 GiB (below the 16 GiB of one d-vector on any machine)."""
    monkeypatch.setenv("OLKIT_MAX_STATE_BYTES", "8G")
    monkeypatch.setenv("OLKIT_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "wide.libsvm"
    path.write_text(WIDE)
    return path


def one_line_error(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    return err


# ---- widths and state sizes ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "pa1", "--stream"],
        ["train", "pa1", "--model", "M"],
        ["train", "pa1", "--model", "M", "--stream"],
        ["run", "scw1", "--set", "covariance=diagonal", "--stream"],
    ],
)
def test_cli_names_the_line_of_the_widest_index(capsys, wide_file, tmp_path, argv):
    argv = [str(tmp_path / "m.npz") if a == "M" else a for a in argv]
    err = one_line_error(capsys, [*argv, "--data", str(wide_file)])
    assert f"{wide_file}:2: feature index 2147483647" in err
    assert "d=2147483647" in err and ("16.0 GiB" in err or "32.0 GiB" in err)
    assert "renumber the features" in err and "OLKIT_MAX_STATE_BYTES" in err
    assert not (tmp_path / "m.npz").exists()


def test_in_memory_wide_data_is_refused_by_the_learner_not_the_reader(wide_file):
    X, y = read_libsvm(wide_file)  # CSR: a width of 2**31 - 1 costs nothing here
    assert X.shape == (4, 2147483647) and X.nnz == 6
    X, y = olkit.load_dataset(str(wide_file))
    for name, params, need in [
        ("pa1", {}, "16.0 GiB"),
        ("pa1", {"kernel": "linear"}, "16.0 GiB"),
        ("scw1", {"covariance": "diagonal"}, "32.0 GiB"),
        ("duol", {}, "16.0 GiB"),
        ("nogd", {}, "16.0 GiB"),
    ]:
        with pytest.raises(limits.StateTooLarge) as info:
            olkit.make(name, **params).fit(X, y)
        message = str(info.value)
        assert message.startswith(f"{name}: ") and need in message, message
        assert "d=2147483647 (largest feature: column 2147483646, row 1 of X; 5 columns in use)" in message
        assert info.value.width == 2147483647


def test_state_limit_is_half_the_physical_memory_or_the_environment(monkeypatch):
    monkeypatch.delenv("OLKIT_MAX_STATE_BYTES", raising=False)
    assert limits.state_limit_bytes() == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    monkeypatch.setenv("OLKIT_MAX_STATE_BYTES", "1.5G")
    assert limits.state_limit_bytes() == 3 * 2**29
    monkeypatch.setenv("OLKIT_MAX_STATE_BYTES", "lots")
    with pytest.raises(ValueError, match="OLKIT_MAX_STATE_BYTES='lots' is not a size"):
        olkit.make("pa1", kernel="linear").fit(sp.csr_matrix(np.eye(2)), [0, 1])


def test_parameter_sizes_are_refused_at_the_parameter_check():
    with pytest.raises(
        ValueError,
        match=r"nogd: parameter B=1000000000000: the k x B Nyström map .* would take "
        r".* TiB, more than .*; use a smaller B \(the default is 600",
    ):
        olkit.make("nogd", B=10**12)  # was numpy's raw "array is too big"
    with pytest.raises(
        ValueError,
        match=r"parameter degree=1000000000 is not valid; degree must be an integer >= 1 "
        r"and <= 100 \(\(x·z \+ coef0\)\^degree overflows float64",
    ):
        olkit.make("pa1", kernel="poly", degree=10**9)  # was "cannot learn example 27 ... feature magnitudes"
    X = np.random.RandomState(0).rand(30, 4)
    y = (X[:, 0] > 0.5).astype(int)
    assert olkit.make("pa1", kernel="poly", degree=100, coef0=0.0).fit(X, y).n_seen_ == 30
    with pytest.raises(ValueError, match=r"fogd: parameter D=1000000000000 is too large .* d=4: .*use a smaller D"):
        olkit.make("fogd", D=10**12).fit(X, y)


def test_full_covariance_on_a_very_wide_sparse_matrix_names_the_diagonal():
    X = sp.csr_matrix((np.ones(3), [5, 70_000, 999_999], [0, 1, 2, 3]), shape=(3, 1_000_000))
    with pytest.raises(
        ValueError,
        match=r"covariance='full' for scw1 on 1000000 features .*7450.6 GiB.* use "
        r"covariance='diagonal'",
    ):
        olkit.make("scw1").fit(X, [0, 1, 0])
    assert olkit.make("scw1", covariance="diagonal").fit(X, [0, 1, 0]).n_seen_ == 3


def test_support_set_growth_that_cannot_fit_is_refused(monkeypatch):
    monkeypatch.setenv("OLKIT_MAX_STATE_BYTES", "4M")  # duol's Gram cache: 4 MiB is about 700 SVs
    rng = np.random.RandomState(0)
    X, y = rng.randn(3000, 5), rng.randint(0, 2, 3000)
    clf = olkit.make("duol")
    with pytest.raises(
        limits.StateTooLarge,
        match=r"duol: the support set grown to \d+ SVs \(its Gram cache: "
        r"O\(#SV²\) memory\) would take .*use a budgeted learner \(ahpatron",
    ):
        clf.partial_fit(X, y)
    assert 0 < clf.n_seen_ < 3000 and clf.support_.nbytes(clf.support_.capacity, 0) <= 4 * 2**20
    with pytest.raises(
        limits.StateTooLarge,
        match=r"ahpatron: the support set grown to .*; use a smaller budget B "
        r"\(B=1000000000 now\)",
    ):
        olkit.make("ahpatron", B=10**9).partial_fit(X, y)
    assert olkit.make("forgetron", B=100).fit(X, y).n_seen_ == 3000


# ---- the support-set growth warning ---------------------------------------------------------------------------


def test_unbudgeted_kernel_learner_warns_once(monkeypatch):
    monkeypatch.setattr(limits, "SV_WARNING_THRESHOLD", 100)
    rng = np.random.RandomState(1)
    X, y = rng.randn(1200, 5), rng.randint(0, 2, 1200)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = olkit.make("pa1")
        for lo in range(0, 1200, 300):
            clf.partial_fit(X[lo : lo + 300], y[lo : lo + 300], classes=[0, 1])
        olkit.make("forgetron", B=150).fit(X, y)  # a budget: never
        olkit.make("pa1", kernel="linear").fit(X, y)  # primal: no support set
    growth = [w for w in caught if issubclass(w.category, olkit.SupportSetGrowthWarning)]
    assert clf.support_.n > 400 and len(growth) == 1
    message = str(growth[0].message)
    assert message.startswith("pa1: the kernel model holds") and "olkit warns from 100" in message
    assert f"({', '.join(registry.budgeted())})" in message and "nogd" in registry.budgeted()
    assert issubclass(olkit.SupportSetGrowthWarning, UserWarning)


def test_command_line_shows_the_growth_warning_as_one_line(tmp_path):
    rng = np.random.RandomState(2)
    path = tmp_path / "noise.libsvm"
    path.write_text("".join(f"{rng.choice([-1, 1])} 1:{a:.4f} 2:{b:.4f}\n" for a, b in rng.randn(400, 2)))
    code = (
        "import sys, olkit.limits as L; L.SV_WARNING_THRESHOLD = 50; from olkit.cli import run; "
        f"sys.argv = ['olkit', 'run', 'pa1', '--data', {str(path)!r}, '--stream', '-q']; run()"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "OLKIT_CACHE_DIR": "off"},
    )
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("olkit: warning: pa1: the kernel model holds"), proc.stderr


# ---- the parsed-data cache ------------------------------------------------------------------------------------


def _libsvm(path, rows, seed):
    rng = np.random.RandomState(seed)
    path.write_text(
        "".join(
            f"{rng.choice([-1, 1])} " + " ".join(f"{j}:{rng.rand():.6f}" for j in range(1, 40)) + "\n"
            for _ in range(rows)
        )
    )
    return path


def test_cache_is_bounded_least_recently_used_and_drops_stale_versions(tmp_path, monkeypatch):
    monkeypatch.setenv("OLKIT_CACHE_DIR", str(tmp_path / "cache"))
    files = [_libsvm(tmp_path / f"f{i}.libsvm", 200, i) for i in range(3)]
    read_libsvm(files[0])
    one = cache.info()["total_bytes"]
    assert len(cache.info()["entries"]) == 1 and one > 50_000
    monkeypatch.setenv("OLKIT_CACHE_MAX_BYTES", str(int(2.5 * one)))  # room for two entries
    read_libsvm(files[1])
    entry = {e["name"].split(".")[0]: tmp_path / "cache" / e["name"] for e in cache.info()["entries"]}
    os.utime(entry["f0"], (1, 1))  # f0: long unused ...
    os.utime(entry["f1"], (2, 2))
    X0, _ = read_libsvm(files[0])  # ... until this load marks it used: f1 is now the least recently used
    read_libsvm(files[2])
    names = [e["name"].split(".")[0] for e in cache.info()["entries"]]
    assert sorted(names) == ["f0", "f2"] and cache.info()["total_bytes"] <= 2.5 * one
    # a changed file: its new parse replaces the entry of the old version
    _libsvm(files[0], 100, 7)
    os.utime(files[0], ns=(10**18, 10**18))
    assert read_libsvm(files[0])[0].shape[0] == 100
    names = [e["name"].split(".")[0] for e in cache.info()["entries"]]
    assert sorted(names) == ["f0", "f2"]
    # a parse larger than the cap is not stored; a cap of 0 stores nothing
    monkeypatch.setenv("OLKIT_CACHE_MAX_BYTES", "0")
    read_libsvm(files[1])
    assert "f1" not in [e["name"].split(".")[0] for e in cache.info()["entries"]]


@pytest.mark.parametrize("damage", ["truncate", "garbage", "bad_indices", "nan"])
def test_corrupt_cache_entry_is_ignored_and_rebuilt(tmp_path, monkeypatch, damage):
    monkeypatch.setenv("OLKIT_CACHE_DIR", str(tmp_path / "cache"))
    path = _libsvm(tmp_path / "f.libsvm", 50, 3)
    X_ref, y_ref = read_libsvm(path)
    entry = tmp_path / "cache" / cache.info()["entries"][0]["name"]
    if damage == "truncate":
        entry.write_bytes(entry.read_bytes()[:300])
    elif damage == "garbage":
        entry.write_bytes(b"PK\x03\x04" + os.urandom(2000))
    else:
        with np.load(entry) as z:
            arrays = dict(z)
        if damage == "bad_indices":
            arrays["indices"][3] = 10**6  # out of range: must never reach compiled code
        else:
            arrays["data"][0] = np.nan
        np.savez(entry, **arrays)
    X, y = read_libsvm(path)
    assert (X != X_ref).nnz == 0 and np.array_equal(y, y_ref)
    with np.load(entry) as z:  # rebuilt
        assert np.isfinite(z["data"]).all() and z["indices"].max() < X.shape[1]


def test_cache_writes_are_atomic_and_clean_up(tmp_path, monkeypatch):
    monkeypatch.setenv("OLKIT_CACHE_DIR", str(tmp_path / "cache"))
    path = _libsvm(tmp_path / "f.libsvm", 20, 4)

    def fail(*args, **kwargs):
        raise KeyboardInterrupt  # e.g. Ctrl-C in the middle of writing the entry

    monkeypatch.setattr(np, "savez", fail)
    with pytest.raises(KeyboardInterrupt):
        read_libsvm(path)
    assert list((tmp_path / "cache").iterdir()) == []  # no entry, no temporary file
    monkeypatch.undo()
    monkeypatch.setenv("OLKIT_CACHE_DIR", str(tmp_path / "cache"))
    read_libsvm(path)
    assert [p.name.startswith("f.libsvm.") for p in (tmp_path / "cache").iterdir()] == [True]


def test_cache_info_and_clear_commands(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OLKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OLKIT_CACHE_MAX_BYTES", "500M")
    for i in range(2):
        read_libsvm(_libsvm(tmp_path / f"g{i}.libsvm", 30, i))
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"parsed-data cache: {tmp_path / 'cache'}" in out
    assert "2 entries" in out and "of at most 500.0 MiB (OLKIT_CACHE_MAX_BYTES)" in out
    assert out.count("g0.libsvm.") == 1 and out.count("g1.libsvm.") == 1 and "last used" in out
    assert main(["cache", "clear"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("removed 2 file(s), ") and str(tmp_path / "cache") in out
    assert list((tmp_path / "cache").iterdir()) == []
    monkeypatch.setenv("OLKIT_CACHE_DIR", "off")
    assert main(["cache", "info"]) == 0 and "off (OLKIT_CACHE_DIR=off)" in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0 and "nothing to remove" in capsys.readouterr().out
    monkeypatch.setenv("OLKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OLKIT_CACHE_MAX_BYTES", "2X")
    assert "OLKIT_CACHE_MAX_BYTES='2X' is not a size" in one_line_error(capsys, ["cache", "info"])


def test_cache_info_lists_the_most_recent_entries_and_all_on_request(tmp_path, monkeypatch, capsys):
    """A cache of many entries is summed up: the 20 most recently used, then the count and size of the rest
    (``--all`` lists every entry, and ``clear --all`` names every file removed)."""
    monkeypatch.setenv("OLKIT_CACHE_DIR", str(tmp_path / "cache"))
    for i in range(23):
        read_libsvm(_libsvm(tmp_path / f"h{i}.libsvm", 5, i))
    for entry in (tmp_path / "cache").iterdir():  # last used: h0 first, h22 last, one second apart
        i = int(entry.name.split(".")[0][1:])
        os.utime(entry, (1_700_000_000 + i, 1_700_000_000 + i))
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert "23 entries" in out and out.count(" last used ") == 20 and "... and 3 more" in out
    assert out.splitlines()[2].lstrip().startswith("h22.libsvm.")  # most recently used first
    assert main(["cache", "info", "--all"]) == 0
    assert capsys.readouterr().out.count(" last used ") == 23
    assert main(["cache", "clear", "--all"]) == 0
    assert capsys.readouterr().out.count(".npz") == 23


class WorkerWarning(UserWarning):
    """A warning raised in a joblib worker process."""


def _warn_twice_and_square(value):
    warnings.warn(f"task {value} warns", WorkerWarning)  # noqa: B028  (the worker's own line is the point)
    warnings.warn(f"task {value} warns", WorkerWarning)  # noqa: B028  (the same warning again: kept once per task)
    return value * value


def test_worker_warnings_are_raised_again_in_the_calling_process(capfd):
    """Issue 21: a warning raised by a run in a joblib worker (a second process) is raised again in the
    command's process, once per task, so it prints as a one-line warning there; the worker prints nothing."""
    from olkit.experiment import backend

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        squares = list(backend.run_tasks(2, _warn_twice_and_square, [(1,), (3,), (4,)]))
    assert squares == [1, 9, 16]
    mine = [str(w.message) for w in caught if issubclass(w.category, WorkerWarning)]
    assert mine == ["task 1 warns", "task 3 warns", "task 4 warns"]
    assert "WorkerWarning" not in capfd.readouterr().err
