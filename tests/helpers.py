"""Small helpers shared by several test files."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from olkit.data import CATALOG


def require_data_files(spec_name):
    """Skip unless OLKIT_DATA holds every file of the catalog dataset ``spec_name``."""
    data_dir = os.environ.get("OLKIT_DATA")
    if not data_dir:
        pytest.skip("OLKIT_DATA is not set")
    missing = [f for f in CATALOG[spec_name].files if not (Path(data_dir) / f).is_file()]
    if missing:
        pytest.skip(f"not in OLKIT_DATA={data_dir}: {', '.join(missing)}")


def check_diagnostics(got, want, label="", tol=1e-9):
    """Every reference diagnostic is in ``got``: floats to ``tol`` (relative and absolute), the rest equal."""
    for key, v in want.items():
        assert key in got, f"{label}diagnostics() lacks {key!r}: {got}"
        if isinstance(v, float):
            assert math.isclose(got[key], v, rel_tol=tol, abs_tol=tol), f"{label}{key}: olkit {got[key]}, reference {v}"
        else:
            assert got[key] == v, f"{label}diagnostics {key}: olkit {got[key]}, reference {v}"


def check_final_model(clf, ref, label=""):
    """The stored SVs (by arrival stamp: the examples seen before the SV's round, i.e. its 0-based stream
    position) and their coefficient rows equal the reference's (``ref.pts``, ``ref.rows``), to 1e-9."""
    s = clf.support_
    n = s.n
    coef = np.asarray(s.coef[:n], float).reshape(n, -1)
    added = np.asarray(s.added[:n])
    order = np.argsort(added, kind="stable")
    assert [int(a) for a in added[order]] == list(ref.pts), f"{label}stored SVs (arrival) differ"
    if n:
        np.testing.assert_allclose(
            coef[order],
            np.array(ref.rows).reshape(n, -1),
            rtol=1e-9,
            atol=1e-9,
            err_msg=f"{label}final coefficient rows",
        )


def bad_compressed_files(tmp_path):
    """{description: path} of a corrupt and a truncated .bz2 and .gz of a small LIBSVM file (issue 9)."""
    import bz2
    import gzip

    text = "".join(f"{1 if i % 2 else -1} 1:{i / 200:.3f} 2:{1 - i / 200:.3f}\n" for i in range(200)).encode()
    files = {}
    for kind, compress in (("bz2", bz2.compress), ("gz", gzip.compress)):
        data = compress(text)
        files[f"truncated {kind}"] = tmp_path / f"truncated.{kind}"
        files[f"truncated {kind}"].write_bytes(data[: len(data) // 2])
        files[f"corrupt {kind}"] = tmp_path / f"corrupt.{kind}"
        files[f"corrupt {kind}"].write_bytes(data[:20] + b"\x00garbage\xff" * 8 + data[100:])
    return files


# ---- streams on which the fuzzer (tools/fuzz.py) found diagonal CW / SCW-II dividing by zero (issue 9) ----
CW_1E6 = [
    [-1312728.3837081857, -1277770.1056990512],
    [-326582.7267783759, 605350.6029426029],
    [50212.604617254, -103133.31475697157],
    [50212.604617254, -103133.31475697157],
    [-166930.9247144691, 1218898.3915387438],
    [-88987.58009690273, -267486.0099398768],
    [50212.604617254, -103133.31475697157],
    [1880684.566609142, -1485985.8797673146],
    [1369970.1280743418, 552457.081849068],
    [262861.3002127229, 230280.81435792926],
    [-612928.843892751, -786306.0129686362],
    [356779.03468454012, 736001.32774730195],
]
CW_1E6_Y = ["ant", "ant", "ant", "bee", "ant", "bee", "ant", "bee", "bee", "bee", "ant", "bee"]

SCW2_1E13 = [
    [2892869402624.0, -1295693119488.0, -621072416768.0],
    [-6888721743872.0, -8913281875968.0, -964431511552.0],
    [-13806433468416.0, -2981459394560.0, -451919708160.0],
    [9871856500736.0, 7701445214208.0, -637729832960.0],
    [-25252788699136.0, 4260261789696.0, -1281559101440.0],
    [-8705821638656.0, -4054772350976.0, -1047652532224.0],
    [18244169629696.0, 5728060833792.0, 1137030332416.0],
    [5730867871744.0, -8225423360000.0, -1183100174336.0],
    [3397981306880.0, -19602239127552.0, 1448690581504.0],
    [-4538545209344.0, 867150397440.0, 400773480448.0],
    [4144609886208.0, 5981609132032.0, 443622850560.0],
    [-11182259830784.0, 8713196797952.0, 161474101248.0],
    [-18939807531008.0, -24664241864704.0, 78214815744.0],
]
SCW2_1E13_Y = ["ant", "ant", "bee", "bee", "ant", "bee", "ant", "ant", "bee", "bee", "bee", "ant", "bee"]
"""cw covariance='diagonal', eta=0.9 divided by zero on these rows (and scaled by 1e1..1e23); SCW2_1E13: scw2
covariance='diagonal', C=0.1, eta=0.9 likewise (fixed by the cancellation-free closed forms)."""


def run_child_cases(code, cases, timeout=600):
    """Run ``code`` in a child Python process with the JSON of ``cases`` on its standard input, where a case
    that crashes the process (a segmentation fault, an abort) cannot take pytest with it. The child prints
    ``RUN <case>`` before each case and ``RESULT [key, a, b]`` after it; returns {key: (a, b)}, and fails the
    test naming the case that was running if the child died."""
    proc = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
    results = {}
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            key, first, second = json.loads(line[7:])
            results[key] = (first, second)
    if proc.returncode != 0:
        running = [line[4:] for line in proc.stdout.splitlines() if line.startswith("RUN ")]
        pytest.fail(
            f"the child process died (exit {proc.returncode}) during {running[-1] if running else '?'}: "
            f"{proc.stderr[-2000:]}"
        )
    return results


def model_norm2(clf, sigma):
    """tr(AᵀK_S A) of a budgeted Gaussian learner's stored model, from its SV inputs (explicit differences)."""
    S = clf.support_vectors_
    S = S.toarray() if hasattr(S, "toarray") else np.asarray(S, float)
    n = clf.support_.n
    A = np.asarray(clf.support_.coef[:n], float).reshape(n, -1)
    d2 = ((S[:, None, :] - S[None, :, :]) ** 2).sum(axis=2)
    return float(np.trace(A.T @ np.exp(-d2 / (2 * sigma**2)) @ A))


def first_bad_round(a, b, tol=1e-9):
    """The first round whose scores (a row per round) differ from the reference's beyond ``tol`` relative, or None."""
    a = np.asarray(a, float).reshape(len(a), -1)
    b = np.asarray(b, float).reshape(len(b), -1)
    bad = np.flatnonzero(np.any(np.abs(a - b) > tol * (1 + np.abs(b)), axis=1))
    return int(bad[0]) if bad.size else None


def check_chunks_equal_one_pass(clf, one_clf, one, X, y, cuts=(9, 10, 31, 55, 70)):
    """``clf``, fitted on the first ``cuts[0]`` examples, then fed the rest in the chunks ``cuts`` by
    ``evaluate_online(reset=False)``, equals ``one_clf`` after one pass (``one``, its result): the scores and
    mistakes of every chunk, the counts, the diagnostics and the final decision function."""
    import itertools
    import math

    import olkit

    flags = [None] * cuts[0]
    for lo, hi in itertools.pairwise(cuts):
        res = olkit.evaluate_online(clf, X[lo:hi], y[lo:hi], reset=False)
        flags[lo:hi] = list(res.mistake_flags)
        np.testing.assert_allclose(np.asarray(res.scores), np.asarray(one.scores)[lo:hi], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(flags[cuts[0] :], one.mistake_flags[cuts[0] :])
    assert clf.n_mistakes_ == one_clf.n_mistakes_ == one.mistakes
    assert clf.n_updates_ == one_clf.n_updates_
    d_chunks, d_one = clf.diagnostics(), one_clf.diagnostics()
    assert d_chunks.keys() == d_one.keys()
    for key, v in d_one.items():
        assert math.isclose(d_chunks[key], v, rel_tol=1e-12, abs_tol=1e-12), (key, d_chunks[key], v)
    np.testing.assert_allclose(clf.decision_function(X), one_clf.decision_function(X), rtol=1e-12, atol=1e-12)
