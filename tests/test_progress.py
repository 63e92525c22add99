"""Progress on stderr (issue 10, item 3): tqdm bars for ``olkit run`` / ``tune`` / ``train``, the first-compile
notice, and silence when stderr is not a terminal or with ``--quiet``."""

import json
import os
import subprocess
import sys

import pytest

from olkit import progress, protocol

NOTICE = "olkit: compiling"


def olkit(*args, progress_env=None, cache_dir=None):
    env = {k: v for k, v in os.environ.items() if k != "OLKIT_PROGRESS"}
    if progress_env is not None:
        env["OLKIT_PROGRESS"] = progress_env
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    proc = subprocess.run([sys.executable, "-m", "olkit", *args], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def without_times(text):
    """The ``--format json`` document with the measured seconds removed (they differ from run to run)."""

    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "seconds"}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return strip(json.loads(text))


RUN = ("run", "pa1", "--data", "german", "--repeats", "3", "--format", "json")


def test_forced_bar_on_stderr_and_same_stdout():
    pytest.importorskip("tqdm")
    plain_out, plain_err = olkit(*RUN)  # also warms the compile cache
    out, err = olkit(*RUN, progress_env="1")
    assert plain_err == ""  # no TTY in a subprocess: no progress
    assert "runs:" in err and "0/3" in err and "run/s" in err  # tqdm's bar, one step per finished repeat
    assert without_times(out) == without_times(plain_out)


def test_quiet_and_no_tty_print_nothing():
    out, err = olkit(*RUN, "--quiet", progress_env="1")
    assert err == ""
    _, err = olkit("run", "pa1", "--data", "german", "--repeats", "1")  # not a terminal, nothing forced
    assert err == ""
    json.loads(out)


def test_single_run_bar_counts_examples():
    pytest.importorskip("tqdm")
    _, err = olkit("run", "pa1", "--data", "german", "--repeats", "1", progress_env="1")
    assert "pa1 run:" in err and "/1000" in err


def test_compile_notice_once_then_cached(tmp_path):
    args = ("run", "pa1", "--data", "german", "--repeats", "1")  # an empty compile cache: pa's loop compiles
    _, err = olkit(*args, progress_env="1", cache_dir=tmp_path)
    notices = [line for line in err.replace("\r", "\n").splitlines() if line.startswith(NOTICE)]
    assert notices == ["olkit: compiling pa's loop for the first time (cached afterwards) ..."]
    _, err = olkit(*args, progress_env="1", cache_dir=tmp_path)  # loaded from the cache now
    assert NOTICE not in err


def test_off_by_default_and_hook_restored(monkeypatch):
    monkeypatch.setenv("OLKIT_PROGRESS", "1")
    try:
        assert progress.activate(quiet=True) is False
        with progress.example_bar(10, "x") as bar:  # off: nothing hooked into the protocol's loop
            assert protocol._SPAN_HOOK is None
            bar.update(5)
        assert progress.activate() is True
        pytest.importorskip("tqdm")
        with progress.example_bar(10, "x"):
            assert protocol._SPAN_HOOK is not None
        assert protocol._SPAN_HOOK is None
        monkeypatch.setitem(sys.modules, "tqdm", None)  # tqdm missing: no bar (never a hand-written one)
        with progress.bar(3, "runs", "run") as bar:
            assert isinstance(bar, progress._Off)
    finally:
        progress.deactivate()
