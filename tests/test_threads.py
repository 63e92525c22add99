"""One learner, many threads (issue 21, item 4): calls on a shared learner run one at a time, whole.

Before the per-learner lock (:func:`olkit.protocol.learner_lock`), 4 threads calling ``partial_fit`` on one
learner crashed the process (duol: SIGSEGV or IndexError; projectron: ``free(): invalid next size``) or
silently lost updates (pa1): the compiled loops release the GIL, so two of them wrote one model at once. The
threaded runs happen in a subprocess, so that a crash fails the test instead of killing pytest.
"""

import copy
import io
import json
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time

import joblib
import numpy as np
import pytest
from sklearn.base import clone

import olkit
from olkit import protocol
from olkit.protocol import learner_lock

LEARNERS = ["duol", "projectron", "pa1", "scw1", "ahpatron"]

SCRIPT = r"""
import json, os, sys, threading
import numpy as np
import olkit
from olkit import protocol

CHUNK, THREADS, PER_THREAD = 4, 4, 50
X, y = olkit.load_dataset("german")
chunks = [(X[i:i + CHUNK], y[i:i + CHUNK]) for i in range(CHUNK, CHUNK * (1 + THREADS * PER_THREAD), CHUNK)]
folder = sys.argv[1]
out = {}
for name in sys.argv[2:]:
    clf = olkit.make(name)
    clf.partial_fit(X[:CHUNK], y[:CHUNK], classes=np.unique(y))
    learned = []  # the thread of each partial_fit, in the order they ran (the hook runs inside the lock)
    protocol._SPAN_HOOK = lambda rounds: learned.append(threading.current_thread().name)
    done = threading.Event()
    errors, saved = [], []

    def learn(k):
        try:
            for X_c, y_c in chunks[k::THREADS]:
                clf.partial_fit(X_c, y_c)
        except BaseException as exc:
            errors.append(repr(exc))

    def use():  # every other call of the API on the same learner, while it learns
        try:
            i = 0
            while not done.is_set():
                assert clf.predict(X[:30]).shape == (30,)
                assert np.isfinite(clf.decision_function(X[:30])).all()
                assert 0 <= clf.score(X[:30], y[:30]) <= 1
                key = sorted(clf.get_params())[i % len(clf.get_params())]
                clf.set_params(**{key: clf.get_params()[key]})  # the same value: nothing changes
                if i < 8:
                    path = os.path.join(folder, f"{name}-{i}.npz")
                    olkit.save(clf, path)
                    saved.append(path)
                i += 1
        except BaseException as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=learn, args=(k,), name=str(k)) for k in range(THREADS)]
    user = threading.Thread(target=use)
    user.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    user.join()
    protocol._SPAN_HOOK = None
    # the same chunks, one call after the other, in the order the threads got the lock
    next_of = {str(k): iter(chunks[k::THREADS]) for k in range(THREADS)}
    again = olkit.make(name).partial_fit(X[:CHUNK], y[:CHUNK], classes=np.unique(y))
    for thread in learned:
        again.partial_fit(*next(next_of[thread]))
    seen_in_files = sorted({olkit.load(p).n_seen_ for p in saved})
    out[name] = {"errors": errors, "calls": len(learned), "n_seen": clf.n_seen_, "seen_in_files": seen_in_files,
                 "files": len(saved),
                 "same_as_sequential": bool(np.array_equal(clf.decision_function(X), again.decision_function(X))
                                            and clf.n_mistakes_ == again.n_mistakes_
                                            and clf.n_updates_ == again.n_updates_ and clf.n_seen_ == again.n_seen_)}
print(json.dumps(out))
"""


def test_threads_share_one_learner_as_some_sequential_order():
    """4 threads × 50 ``partial_fit`` chunks on one learner, while a fifth predicts, scores, sets parameters and
    saves: no crash, no lost update (n_seen_ = every row), and the model equals a sequential run of the
    same chunks in the order the threads got the lock."""
    with tempfile.TemporaryDirectory() as folder:
        proc = subprocess.run(
            [sys.executable, "-c", SCRIPT, folder, *LEARNERS],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
            env={**os.environ, "PYTHONFAULTHANDLER": "1"},
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for name in LEARNERS:
        run = out[name]
        assert run["errors"] == [], (name, run["errors"])
        assert run["calls"] == 200 and run["n_seen"] == 4 + 200 * 4, (name, run)
        assert run["same_as_sequential"], name
        assert run["files"] >= 1 and all(n % 4 == 0 and 4 <= n <= 804 for n in run["seen_in_files"]), (name, run)


def test_the_lock_is_held_for_the_whole_call():
    """``set_params`` from another thread waits until a running ``partial_fit`` has finished (the lock covers the
    whole call, not only the compiled loop); the change then makes the next ``predict`` refuse."""
    X, y = olkit.load_dataset("german")
    clf = olkit.make("duol").partial_fit(X[:10], y[:10])
    inside = threading.Event()
    finished = []

    def slow_span(rounds):  # runs inside partial_fit, holding the lock
        inside.set()
        time.sleep(0.3)

    def learn():
        clf.partial_fit(X[10:200], y[10:200])
        finished.append(time.perf_counter())

    protocol._SPAN_HOOK = slow_span
    try:
        worker = threading.Thread(target=learn)
        worker.start()
        assert inside.wait(30)
        clf.set_params(kernel="linear")
        changed = time.perf_counter()
        worker.join()
    finally:
        protocol._SPAN_HOOK = None
    assert finished and changed >= finished[0]
    assert clf.n_seen_ == 200
    with pytest.raises(
        ValueError, match="parameter kernel is 'linear', but the model was built with kernel='gaussian'"
    ):
        clf.predict(X[:5])


def test_copies_pickles_and_saves_carry_no_lock():
    """The lock lives outside the learner: pickle, joblib, deepcopy, clone and olkit.save work after threaded
    use, and every copy has a lock of its own."""
    X, y = olkit.load_dataset("german")
    clf = olkit.make("pa1")
    threads = [threading.Thread(target=clf.partial_fit, args=(X[:100], y[:100])) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert clf.n_seen_ == 200
    assert not any("lock" in key.lower() for key in vars(clf))
    expected = clf.decision_function(X)
    buffer = io.BytesIO()
    joblib.dump(clf, buffer)
    buffer.seek(0)
    copies = [pickle.loads(pickle.dumps(clf)), copy.deepcopy(clf), joblib.load(buffer)]
    with tempfile.TemporaryDirectory() as folder:
        olkit.save(clf, os.path.join(folder, "m.npz"))
        copies.append(olkit.load(os.path.join(folder, "m.npz")))
    for other in copies:
        np.testing.assert_array_equal(other.decision_function(X), expected)
        assert learner_lock(other) is not learner_lock(clf)
    assert learner_lock(clf) is learner_lock(clf)
    fresh = clone(clf)
    assert fresh.get_params() == clf.get_params() and not hasattr(fresh, "classes_")


def test_threads_building_one_loop_at_once_all_get_it(tmp_path, monkeypatch):
    """Two learners learning in two threads on a cold cache (e.g. a Dask cluster of thread workers) build the
    same compiled loop at once. The loop's generated module is registered in ``sys.modules`` before it runs;
    without the lock of :func:`olkit._compile.compile_loop` a second thread found it half-built
    (``AttributeError: module 'olkit_loop_...' has no attribute ...``). Here the generated module's first
    import takes 0.3 s, so every other thread asks for the loop while it is being built."""
    import importlib
    import uuid

    from olkit import _compile

    tag = uuid.uuid4().hex[:12]
    (tmp_path / f"olkit_test_template_{tag}.py").write_text("def loop(x):\n    return piece(x)\n")
    (tmp_path / f"olkit_test_slow_{tag}.py").write_text(
        "import time\ntime.sleep(0.3)\n\n\ndef piece(x):\n    return x + 1\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))  # the generated module goes there
    template = importlib.import_module(f"olkit_test_template_{tag}").loop

    def piece(x):  # stands for the slow module's function: compile_loop only reads its module and name
        return x + 1

    piece.__module__ = f"olkit_test_slow_{tag}"
    barrier = threading.Barrier(4)
    loops, errors = [], []

    def build():
        barrier.wait()
        try:
            loops.append(_compile.compile_loop(template, piece=piece))
        except Exception as exc:  # noqa: BLE001 — the test reports it
            errors.append(repr(exc))

    threads = [threading.Thread(target=build) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(loops) == 4 and all(loop is loops[0] for loop in loops)
    assert loops[0].py_func(1) == 2  # the loop's piece is the slow module's (not compiled: no cache written)
