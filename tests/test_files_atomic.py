"""Every file olkit writes is atomic (issue 21 item 5): models, `olkit run --out` files, result-store cells.

Real files, real processes and real signals: a saving process is SIGKILLed mid-write; two `olkit run --out
R --resume` run at once; malformed cell files are put in a real store and a real `--resume` rerun reads
them.
"""

import json
import os
import signal
import stat
import subprocess
import sys
import time

import numpy as np
import pytest

import olkit
from olkit import _files
from olkit.cli import main as olkit_main
from olkit.experiment.store import save_cell

CLI = [sys.executable, "-m", "olkit.cli"]


def fitted(n=60, d=4):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    return olkit.make("pa1").fit(X, np.where(X[:, 0] > 0, 1, -1))


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def temporaries(folder):
    return sorted(name for name in os.listdir(folder) if name.endswith(_files.SUFFIX))


def assert_all_json(folder):
    """Every .json under ``folder`` (the run's files and its cells) is complete JSON; no temporary is left."""
    count = 0
    for root, _, names in os.walk(folder):
        assert not [n for n in names if n.endswith(_files.SUFFIX)], f"temporary left in {root}: {names}"
        for name in names:
            if name.endswith(".json"):
                with open(os.path.join(root, name)) as fh:
                    json.load(fh)  # raises on a truncated or interleaved file
                count += 1
    return count


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o002])
def test_new_files_respect_the_umask(tmp_path, umask):
    """Models, cells and --out files get 0o666 & ~umask, as open(path, "w") would (mkstemp gave 0600)."""
    old = os.umask(umask)
    try:
        olkit.save(fitted(), tmp_path / "m.npz")
        save_cell(str(tmp_path / "cell.json"), {"algorithm": "pa1"})
        _files.write_text(tmp_path / "page.md", "text\n")
    finally:
        os.umask(old)
    for name in ("m.npz", "cell.json", "page.md"):
        assert mode(tmp_path / name) == 0o666 & ~umask, name
    assert temporaries(tmp_path) == []


def test_replacing_a_file_keeps_its_mode(tmp_path):
    """`olkit train --continue` rewrites the model: a 0604 model stays 0604 (it became 0600)."""
    model = tmp_path / "m.npz"
    assert olkit_main(["train", "pa1", "--data", "german", "--model", str(model), "-q"]) == 0
    os.chmod(model, 0o604)
    proc = subprocess.run(
        CLI + ["train", "--continue", "--model", str(model), "--data", "german", "-q"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert mode(model) == 0o604 and olkit.load(model).n_seen_ == 2000


@pytest.mark.parametrize("error", [ValueError, KeyboardInterrupt])
def test_a_failed_write_removes_its_temporary_and_keeps_the_target(tmp_path, error):
    target = tmp_path / "out.json"
    target.write_text("old\n")
    with pytest.raises(error), _files.atomic_open(target) as fh:
        fh.write("half of the new")
        raise error("interrupted")
    assert target.read_text() == "old\n" and temporaries(tmp_path) == []


SAVER = """
import sys
import numpy as np
import olkit

rng = np.random.default_rng(0)
X = rng.normal(size=(800, 1000))  # ~800 SVs of 1000 random doubles: a model of ~6 MB, slow to compress
clf = olkit.make("pa1").fit(X, rng.choice([-1, 1], size=800))
print("fitted", flush=True)
while True:
    olkit.save(clf, sys.argv[1])
"""


def test_kill_9_during_a_save_leaves_a_stale_temporary_that_the_next_save_removes(tmp_path):
    target = tmp_path / "big.npz"
    proc = subprocess.Popen([sys.executable, "-c", SAVER, str(target)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "fitted\n"
        deadline = time.monotonic() + 120
        while not any(
            os.path.getsize(tmp_path / n) > 100_000 for n in temporaries(tmp_path) if os.path.exists(tmp_path / n)
        ):  # mid-write: a temporary holding part of the model
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.005)
        # a live writer's temporary is not stale
        assert _files.remove_stale_temporaries(tmp_path) == []
        proc.kill()  # SIGKILL: the writer cannot clean up
        assert proc.wait(timeout=60) == -signal.SIGKILL
    finally:
        proc.kill()
        proc.wait()
    (stale,) = temporaries(tmp_path)
    assert stale.startswith(".big.npz.") and f".{proc.pid}." in stale  # recognisable: target and pid
    if target.exists():  # an earlier save of the loop finished: it is complete
        assert olkit.load(target).support_.n > 0
    olkit.save(fitted(), target)  # the next write into the directory removes the dead process's temporary
    assert temporaries(tmp_path) == [] and olkit.load(target).n_features_in_ == 4


def test_two_concurrent_resume_runs_never_write_invalid_json(tmp_path):
    """Issue 21: 1 in 15 pairs of `olkit run --out R --resume` at once left R/german.json invalid (plain
    open('w')). Two rounds of two concurrent processes; every JSON file is valid after each."""
    out = tmp_path / "R"
    cmd = CLI + [
        "run",
        "pa1",
        "perceptron",
        "--data",
        "german",
        "--repeats",
        "3",
        "--jobs",
        "1",
        "--out",
        str(out),
        "--resume",
        "--format",
        "json",
        "-q",
    ]
    for _ in range(2):
        procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        for proc in procs:
            stdout, stderr = proc.communicate(timeout=300)
            assert proc.returncode == 0, stderr
            assert json.loads(stdout)["dataset"] == "german"
        assert assert_all_json(out) == 1 + 6  # german.json and the 2 x 3 cells
    assert json.loads((out / "german.json").read_text())["results"][0]["algorithm"] == "pa1"


MALFORMED = {
    "empty object": "{}",
    "array": "[]",
    "string": '"x"',
    "number": "12",
    "truncated": None,  # the first half of the real cell
    "wrong field types": None,  # the real cell with run["mistakes"] = "many"
    "no curve": None,  # the real cell without run["curve"]
}


def test_malformed_cells_are_recomputed_with_one_warning_each(tmp_path, monkeypatch, capsys):
    """Issue 21: `{}` (or `[]`, `"x"`, `12`) in a cell file, then --resume: a KeyError traceback. Each kind
    of malformed cell now gets one warning line naming its file, and its run is computed again."""
    monkeypatch.chdir(tmp_path)
    args = [
        "run",
        "pa1",
        "--data",
        "german",
        "--repeats",
        str(len(MALFORMED)),
        "--jobs",
        "1",
        "--out",
        "R",
        "--format",
        "json",
        "-q",
    ]
    assert olkit_main(args) == 0
    first = json.loads(capsys.readouterr().out)
    cells = sorted((tmp_path / "R" / ".cells").glob("*.json"))
    assert len(cells) == len(MALFORMED)
    for path, (kind, text) in zip(cells, MALFORMED.items()):
        real = path.read_text()
        if kind == "truncated":
            text = real[: len(real) // 2]
        elif kind == "wrong field types":
            cell = json.loads(real)
            cell["run"]["mistakes"] = "many"
            text = json.dumps(cell)
        elif kind == "no curve":
            cell = json.loads(real)
            del cell["run"]["curve"]
            text = json.dumps(cell)
        path.write_text(text)
    proc = subprocess.run(CLI + args + ["--resume"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    warned = [line for line in lines if line.startswith("olkit: warning: result store: ignoring the malformed cell")]
    assert len(warned) == len(MALFORMED) and "Traceback" not in proc.stderr
    for path in cells:
        assert sum(os.path.join("R", ".cells", path.name) in line for line in warned) == 1
    assert f"0 finished run(s) reused, {len(MALFORMED)} computed" in proc.stderr
    again = json.loads(proc.stdout)
    for a, b in zip(again["results"][0]["runs"], first["results"][0]["runs"]):
        assert {k: v for k, v in a.items() if k != "seconds"} == {k: v for k, v in b.items() if k != "seconds"}
    assert assert_all_json(tmp_path / "R") == 1 + len(MALFORMED)  # recomputed cells are valid again


def test_a_long_target_name_still_fits(tmp_path):
    """A temporary's name is the target's plus ~30 bytes: a 250-byte (non-ASCII) target name must still work."""
    target = tmp_path / ("é" * 120 + ".json")  # 245 bytes in UTF-8
    with _files.atomic_open(target) as fh:
        fh.write("{}")
        (tmp,) = temporaries(tmp_path)
        assert len(os.fsencode(tmp)) <= 255
    assert target.read_text() == "{}" and temporaries(tmp_path) == []
