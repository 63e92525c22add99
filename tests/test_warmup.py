"""``olkit warmup`` (compiling ahead of time) and ``OLKIT_NUMBA_CACHE=off`` (no compile cache on disk), issue 25
(docs/guide/reproducibility.md#the-compile-cache).

The commands run in subprocesses, each with a compile cache of its own (a fresh directory, or ``off``): what
a command leaves on disk is only seen from outside the process that compiled.
"""

import json
import os
import subprocess
import sys

import pytest

from olkit import cli
from olkit.learners.kernel.base import dense_is_cheap
from olkit.learners.kernel.support_set import byte_integers
from olkit.warmup import kinds, streams, variants


def olkit(*args, cache, cwd=None, **env_extra):
    """(exit status, stdout, stderr) of ``python -m olkit ARGS`` with ``OLKIT_NUMBA_CACHE=cache`` (the parent's
    ``NUMBA_CACHE_DIR``, which the test process's own olkit set, removed: the child chooses its own)."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "OLKIT_NUMBA_CACHE")}
    env.update(OLKIT_NUMBA_CACHE=str(cache), OLKIT_PROGRESS="0", **env_extra)
    proc = subprocess.run(
        [sys.executable, "-m", "olkit", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=900
    )
    return proc.returncode, proc.stdout, proc.stderr


def files(root):
    """{path: (size, modification time)} of every file under ``root``."""
    out = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            st = os.stat(path)
            out[path] = (st.st_size, st.st_mtime_ns)
    return out


def without_times(doc):
    """The ``--format json`` document without the measured seconds (they differ from run to run)."""
    if isinstance(doc, dict):
        return {k: without_times(v) for k, v in doc.items() if "seconds" not in k}
    if isinstance(doc, list):
        return [without_times(v) for v in doc]
    return doc


RUN = ("run", "pa1", "--data", "german", "--repeats", "1", "--format", "json")


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory, worker_id):
    """A compile cache filled by ``olkit warmup pa1 arow --set covariance=diagonal`` (and that command's stdout),
    once per test session:
    under pytest-xdist the workers share it (the first to take the lock fills it; the others wait, then read it).
    The tests only read the cache (a warm run writes nothing), so sharing it changes nothing they check."""
    import fcntl

    base = tmp_path_factory.getbasetemp()
    root = base if worker_id == "master" else base.parent  # the session's directory, shared by its workers
    cache, out_file = root / "warmup-numba", root / "warmup-stdout.txt"
    with open(root / "warmup.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not out_file.exists():
            code, out, err = olkit("warmup", "pa1", "arow", "--set", "covariance=diagonal", cache=cache)
            assert code == 0, err
            out_file.write_text(out)
    return cache, out_file.read_text()


def test_warmup_prints_a_line_per_algorithm_and_the_total(warm_cache):
    _, out = warm_cache
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == ["pa1", "arow", "total"]
    for line in lines:
        assert float(line.split()[1]) >= 0 and line.split()[2] == "s"
    assert lines[1].endswith("(defaults and covariance=diagonal)")  # pa1 has no covariance: its defaults only
    assert "defaults and" not in lines[0]
    assert "2 algorithm(s)" in lines[-1]


def test_warmup_fills_the_cache_and_a_run_compiles_nothing_new(warm_cache, tmp_path):
    cache, _ = warm_cache
    before = files(cache)
    names = [os.path.basename(path) for path in before]
    assert any(name.endswith(".nbi") for name in names) and any(name.endswith(".nbc") for name in names)
    assert any(os.path.basename(os.path.dirname(path)) == "loops" for path in before)  # compile_loop's modules
    code, out, err = olkit(*RUN, cache=cache)
    assert code == 0, err
    assert json.loads(out)["results"], out
    assert files(cache) == before  # no file added, none rewritten: every loop of the run was loaded
    model = str(tmp_path / "arow.npz")
    for args in (
        ("train", "arow", "--data", "german", "--model", model),
        ("predict", "--model", model, "--data", "german"),
    ):
        code, _, err = olkit(*args, cache=cache)
        assert code == 0, err
    assert files(cache) == before  # the predictions' scores were compiled by the warm-up too
    code, _, err = olkit(
        "run", "arow", "--data", "german", "--repeats", "1", "--set", "covariance=diagonal", cache=cache
    )
    assert code == 0, err
    assert files(cache) == before  # the --set variant was warmed up too


def test_warmup_covers_integer_valued_data(tmp_path):
    """Binary DUOL compiles its loop with a byte copy of its SVs on data of integers 0..255 (SupportSet.admit): the
    warm-up compiles that loop too, so a run on such data (here a LIBSVM file of 0/1 features) compiles nothing."""
    cache = tmp_path / "numba"
    code, _, err = olkit("warmup", "duol", "-q", cache=cache)
    assert code == 0, err
    before = files(cache)
    rows = [f"{'+1' if i % 3 else '-1'} {i % 7 + 1}:1 {8 + (2 * i) % 3}:1 12:{i % 2}" for i in range(40)]
    data = tmp_path / "indicator.libsvm"
    data.write_text("\n".join(rows) + "\n")
    code, _, err = olkit("run", "duol", "--data", str(data), "--repeats", "1", cache=cache)
    assert code == 0, err
    assert files(cache) == before


def test_warmup_quiet_prints_the_total_only(warm_cache):
    cache, _ = warm_cache
    code, out, err = olkit("warmup", "arow", "--quiet", cache=cache)
    assert code == 0, err
    assert len(out.splitlines()) == 1 and out.startswith("total") and err == ""


def test_cache_off_leaves_nothing_on_disk_and_the_same_mistakes(warm_cache, tmp_path):
    cache, _ = warm_cache
    home = tmp_path / "home"
    home.mkdir()
    code, off, err = olkit(
        *RUN, cache="off", cwd=tmp_path, HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), OLKIT_CACHE_DIR="off"
    )
    assert code == 0, err
    assert files(tmp_path) == {}  # nothing under the home directory, its cache directory or the working directory
    code, on, err = olkit(*RUN, cache=cache)
    assert code == 0, err
    assert without_times(json.loads(off)) == without_times(json.loads(on))


def test_warmup_with_the_cache_off_warns():
    assert "olkit: warning: OLKIT_NUMBA_CACHE=off" in olkit("warmup", "romma", cache="off")[2]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["warmup", "pa1", "nosuch"], ["unknown algorithm 'nosuch'", "`olkit list`"]),
        (["warmup", "fogd", "--kernel", "linear"], ["kernel='linear' is not valid", "'gaussian'"]),
        (["warmup", "cw", "--kernel", "gaussian"], ["'kernel'", "belong to none of cw"]),
        (["warmup", "pa1", "--set", "covariance=diagonal"], ["'covariance'", "belong to none of pa1"]),
        (["warmup", "arow", "--set", "covariance=sideways"], ["covariance", "'diagonal'"]),
        (["warmup", "arow", "--set", "covariance"], ["--set expects KEY=VALUE"]),
    ],
)
def test_bad_input_is_one_line_and_status_2(capsys, args, words):
    assert cli.main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("olkit: error: ") and captured.err.count("\n") == 1
    for word in words:
        assert word in captured.err


def test_kernel_without_names_applies_where_the_algorithm_offers_it():
    chosen = variants(None, "linear")
    assert chosen["pa1"] == [{}, {"kernel": "linear"}]
    assert chosen["fogd"] == [{}]  # FOGD: Gaussian only
    assert chosen["scw1"] == [{}]  # already its default
    assert variants(["pa1"]) == {"pa1": [{}]}
    assert variants(["pa1", "arow", "pa1"], "linear") == {"pa1": [{}, {"kernel": "linear"}], "arow": [{}]}


def test_set_values_are_warmed_where_the_algorithm_has_them():
    assert variants(["pa1", "arow"], None, {"covariance": "diagonal"}) == {
        "pa1": [{}],
        "arow": [{}, {"covariance": "diagonal"}],
    }
    assert variants(["arow"], None, {"covariance": "full"}) == {"arow": [{}]}  # its default already
    everyone = variants(None, "linear", {"average": True})
    assert everyone["pa1"] == [{}, {"kernel": "linear", "average": True}]
    assert everyone["fogd"] == [{}, {"average": True}]  # the linear kernel is not FOGD's: the rest applies
    assert all(runs[0] == {} for runs in everyone.values())


def test_synthetic_streams_cover_every_kind_and_storage():
    import olkit

    data = streams()
    assert not dense_is_cheap(data["binary", "sparse"][0])  # the kernel learners keep it sparse
    assert byte_integers(data["binary", "indicator"][0]) and not byte_integers(data["binary", "dense"][0])
    assert kinds(olkit.make("pa1")) == ["binary", "multiclass", "multilabel"]
    assert kinds(olkit.make("pa1", kernel="linear")) == ["binary", "multiclass"]
    assert kinds(olkit.make("romma")) == ["binary"]
    for (kind, _), (X, y) in data.items():
        if kind == "multilabel":
            assert y.shape == (X.shape[0], 3) and y.min(axis=0).max() == 0 and y.max(axis=0).min() == 1
        else:
            assert len(set(y.tolist())) == {"binary": 2, "multiclass": 3}[kind]


def test_generated_loop_module_runs_from_memory_with_the_cache_off(tmp_path, monkeypatch):
    """With the cache off, :func:`olkit._compile.compile_loop` writes no module file: the generated text runs in
    memory, its lines still readable (``inspect``, tracebacks) through ``linecache``."""
    import importlib
    import inspect
    import uuid

    import numba

    from olkit import _compile

    tag = uuid.uuid4().hex[:12]
    (tmp_path / f"olkit_test_template_{tag}.py").write_text("def loop(x):\n    return piece(x)\n")
    (tmp_path / f"olkit_test_piece_{tag}.py").write_text("def piece(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(_compile, "CACHE", False)  # as olkit imported under OLKIT_NUMBA_CACHE=off:
    monkeypatch.setattr(_compile, "njit", numba.njit(cache=False, nogil=True))  # the decorator it builds then
    template = importlib.import_module(f"olkit_test_template_{tag}").loop
    piece = importlib.import_module(f"olkit_test_piece_{tag}").piece
    loop = _compile.compile_loop(template, piece=piece)
    assert loop.py_func(1) == 2
    assert not (tmp_path / "cache").exists()
    assert "return piece(x)" in inspect.getsource(loop.py_func)
    assert inspect.getsourcefile(loop.py_func).startswith("<olkit generated loop ")
