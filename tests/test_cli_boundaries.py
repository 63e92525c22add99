"""The command's boundaries (issue 21 item 6, the CLI rows): Ctrl-C, lazy orderings and a cap on --repeats,
"no such file", empty paths, conflicting options, FIFOs and devices as data, a model wider than its data.

Real subprocesses of the CLI, real signals, real FIFOs.
"""

import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import pytest

from olkit.experiment.orders import MAX_REPEATS, make_orders

CLI = [sys.executable, "-m", "olkit.cli"]


def olkit(*args, cwd=None, timeout=300):
    return subprocess.run(CLI + list(args), capture_output=True, text=True, cwd=cwd, timeout=timeout)


def one_error_line(proc, needle):
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("olkit: error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert needle in proc.stderr, proc.stderr


def old_make_orders(n, repeats=20, seed=0):
    """make_orders as it was before issue 21: every ordering built up front."""
    return [(f"seed:{seed + r}", np.random.default_rng(seed + r).permutation(n)) for r in range(repeats)]


@pytest.mark.parametrize("n,repeats,seed", [(1, 1, 0), (7, 5, 3), (1000, 20, 0), (4000, 3, 11)])
def test_lazy_orderings_are_the_old_ones_bit_for_bit(n, repeats, seed):
    old, new = old_make_orders(n, repeats, seed), make_orders(n, repeats, seed)
    assert len(new) == repeats and [label for label, _ in new] == [label for label, _ in old] == new.labels
    for (_, a), (_, b) in zip(old, new):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert new[-1][0] == old[-1][0] and np.array_equal(new[0][1], old[0][1])


def test_many_orderings_are_not_built_up_front():
    """10^4 orderings of 10^6 examples would be 80 GB built up front; lazily, one ordering (8 MB) at a time."""
    tracemalloc.start()
    try:
        orders = make_orders(10**6, MAX_REPEATS, 0)
        label, first = orders[0]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert label == "seed:0" and first.size == 10**6 and peak < 3 * 8 * 10**6


def test_repeats_above_the_cap_is_one_line():
    """Issue 21: --repeats 1000000 built every ordering up front (MemoryError)."""
    one_error_line(
        olkit("run", "pa1", "--data", "german", "--repeats", "1000000"),
        f"--repeats must be <= {MAX_REPEATS}, got 1000000",
    )


def _interruptible():
    """In the child: SIGINT's default action. A command started where SIGINT is ignored (under GNU time, or a
    non-interactive shell's background job) inherits the ignoring, and Ctrl-C would never reach it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_cells(proc, cells, count, timeout=240):
    deadline = time.monotonic() + timeout
    while len(list(cells.glob("*.json"))) < count:
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "no finished run stored in time"
        time.sleep(0.02)


def peak_rss_bytes(pid):
    with open(f"/proc/{pid}/status") as fh:
        return 1024 * next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="peak RSS read from /proc")
def test_a_large_repeats_starts_without_building_every_ordering(tmp_path):
    """10,000 orderings of 20,000 examples: 1.6 GB built up front before; now the runs start at once and
    the process stays small (each ordering is drawn when its run is dispatched)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20_000, 2))
    (tmp_path / "big.libsvm").write_text("".join(f"{1 if a > 0 else -1} 1:{a:.3f} 2:{b:.3f}\n" for a, b in X))
    cmd = ["run", "arow", "--data", "big.libsvm", "--repeats", str(MAX_REPEATS), "--jobs", "1", "--out", "R", "-q"]
    proc = subprocess.Popen(
        CLI + cmd,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "OLKIT_CACHE_DIR": "off"},  # no parsed copy in the user's cache
        preexec_fn=_interruptible,
    )
    try:
        wait_for_cells(proc, tmp_path / "R" / ".cells", 1)
        peak = peak_rss_bytes(proc.pid)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert peak < 600e6, f"peak RSS {peak / 1e6:.0f} MB"
    assert proc.returncode == 130 and err.startswith("olkit: interrupted") and err.count("\n") == 1, err


def test_ctrl_c_ends_a_parallel_run_with_one_line_and_keeps_the_finished_runs(tmp_path):
    """Issue 21: Ctrl-C during `olkit run duol pa1 --data a9a` (joblib workers) printed a 25-line traceback.
    Ctrl-C reaches the whole foreground process group (the command and its workers): so does this SIGINT."""
    proc = subprocess.Popen(
        CLI + ["run", "duol", "pa1", "--data", "german", "--repeats", "300", "--jobs", "2", "--out", "R"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_interruptible,
    )
    cells = tmp_path / "R" / ".cells"
    try:
        wait_for_cells(proc, cells, 4)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert (
        err == f"olkit: interrupted (the finished runs are kept in {os.path.join('R', '.cells')}; rerun with "
        "--resume to reuse them)\n"
    )
    kept = list(cells.glob("*.json"))
    assert len(kept) >= 4 and not [p for p in cells.iterdir() if p.suffix != ".json"]
    for path in kept:  # complete runs, reusable by --resume
        assert {"mistakes", "n_sv", "curve"} <= set(json.loads(path.read_text())["run"])


def test_missing_path_says_no_such_file(tmp_path):
    """Issue 21: a path-looking --data that does not exist was "unknown dataset … not a catalog name"."""
    for data in (str(tmp_path / "no" / "such" / "file.libsvm"), "nosuch.libsvm.bz2", os.path.join("sub", "x")):
        one_error_line(olkit("run", "pa1", "--data", data, cwd=tmp_path), f"--data {data}: no such file")
    one_error_line(olkit("run", "pa1", "--data", "germn"), "unknown dataset 'germn'")  # a name: the catalog's words


def test_empty_out_is_an_error(tmp_path):
    """Issue 21: --out '' created ./.cells."""
    one_error_line(olkit("run", "pa1", "--data", "german", "--out", "", cwd=tmp_path), "--out is empty")
    one_error_line(
        olkit("predict", "--model", "m.npz", "--data", "german", "--out", "", cwd=tmp_path), "--out is empty"
    )
    assert os.listdir(tmp_path) == []


def test_conflicting_values_of_one_parameter(tmp_path):
    """Issue 21: --set kernel=linear --kernel gaussian: --kernel won silently."""
    one_error_line(
        olkit("run", "pa1", "--data", "german", "--set", "kernel=linear", "--kernel", "gaussian"),
        "--set kernel=linear and --kernel gaussian give kernel two different values",
    )
    one_error_line(
        olkit("tune", "pa1", "--data", "german", "--set", "C=1", "--set", "C=2"),
        "--set C=1 and --set C=2 give C two different values",
    )
    same = olkit(
        "run",
        "pa1",
        "--data",
        "german",
        "--set",
        "kernel=linear",
        "--kernel",
        "linear",
        "--set",
        "C=1",
        "--set",
        "C=1.0",
        "--repeats",
        "1",
        "--format",
        "json",
    )
    assert same.returncode == 0, same.stderr
    assert json.loads(same.stdout)["results"][0]["params"]["kernel"] == "linear"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifos_and_devices_are_refused_as_data(tmp_path):
    """Reading a FIFO blocks until a writer comes (forever); a device is not a LIBSVM file."""
    fifo = tmp_path / "data.libsvm"
    os.mkfifo(fifo)
    one_error_line(olkit("run", "pa1", "--data", str(fifo), timeout=120), "is a FIFO (named pipe), not a regular file")
    one_error_line(
        olkit("train", "pa1", "--data", str(fifo), "--model", str(tmp_path / "m.npz"), timeout=120),
        "is a FIFO (named pipe)",
    )
    one_error_line(
        olkit("run", "pa1", "--data", "german", "--order", str(fifo), timeout=120),
        f"--order {fifo} is a FIFO (named pipe), not a regular file",
    )
    if os.path.exists("/dev/zero"):
        one_error_line(olkit("tune", "pa1", "--data", "/dev/zero", timeout=120), "is a character device")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifos_are_refused_by_the_python_readers(tmp_path):
    """The library's readers refuse a FIFO unopened too (in the test process: a hang would time the test out)."""
    from olkit.data.libsvm import iter_libsvm, read_libsvm, scan_libsvm

    fifo = tmp_path / "data.libsvm"
    os.mkfifo(fifo)
    for read in (read_libsvm, scan_libsvm, lambda p: next(iter_libsvm(p))):
        with pytest.raises(ValueError, match=r"is a FIFO \(named pipe\), not a regular file; a LIBSVM file is"):
            read(fifo)


def test_predict_width_mismatch(tmp_path):
    """Issue 21: a 123-feature model on a 24-feature file was padded silently. Narrower: one warning line
    and padded (LIBSVM files need not reach the last features); wider: refused."""
    model = tmp_path / "m.npz"
    wide = tmp_path / "wide.libsvm"
    wide.write_text("+1 1:0.5 30:1\n-1 2:0.25\n")
    assert olkit("train", "pa1", "--data", str(wide), "--model", str(model), "-q").returncode == 0
    narrow = olkit("predict", "--model", str(model), "--data", "german")
    assert narrow.returncode == 0 and "1000 examples predicted" in narrow.stdout
    assert narrow.stderr.count("\n") == 1 and narrow.stderr.startswith("olkit: warning: --data german has 24 features")
    assert "the 6 missing feature(s) are taken as 0" in narrow.stderr
    (tmp_path / "wider.libsvm").write_text("+1 31:1\n")
    one_error_line(
        olkit("predict", "--model", str(model), "--data", str(tmp_path / "wider.libsvm")),
        "has 31 features, but the model",
    )
    assert "padded with zeros, with a warning" in " ".join(olkit("predict", "--help").stdout.split())


def test_ctrl_c_ends_a_reproduction_with_one_line(tmp_path):
    (tmp_path / "config.toml").write_text(
        'title = "t"\npaper = "duol_jmlr_table2"\noutput = "out/page.md"\n'
        'datasets = ["german"]\nalgorithms = ["pa1", "duol"]\nrepeats = 200\n'
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "olkit.experiment.reproduce", "config.toml", "--jobs", "1"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_interruptible,
    )
    try:
        wait_for_cells(proc, tmp_path / "out" / ".cells" / "page", 2)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130 and out == "" and err.count("\n") == 1, err
    assert err.startswith("reproduce: interrupted (the finished runs are kept in the result store")
    assert not (tmp_path / "out" / "page.md").exists()
