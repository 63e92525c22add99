#!/usr/bin/env python
"""Property fuzzer of olkit (issue 9, item 5; issue 21, item 3): random streams through every registered
algorithm, with numba's bounds checking on.

Each *run* is one algorithm with sampled options (kernels, σ fixed or at the data's scale, covariance
forms, small budgets B = 2…8, D ≤ 16 random features, compat modes, ...) on one random stream; the stream
and the options derive from ``(--seed, run index)`` alone, so any run can be replayed on its own
(``--replay``). A stream has n ≤ 60 rows, d ≤ 8 features, a magnitude 10^e with e uniform in [-300, 300]
(a quarter of the streams in [-4, 4]) applied to all rows, to a tenth of the rows, per feature
(10^(e+s_j), |s_j| ≤ 3) or to small integers; duplicate rows, zero rows, sparse rows; dense or CSR storage,
float64 or float32, or (5 %) another scipy format (csc, coo, bsr, dia, lil, dok; matrix or array); 1–5
classes with ±1, integer, float or string labels, or a multi-label matrix. 5 % of the streams are
structurally invalid sparse matrices (:data:`MALFORMED`: indices out of range or negative, indptr
decreasing, short or past the end, data too short, float indices; CSR, CSC, COO).

The compiled code runs with numba's bounds checking (``NUMBA_BOUNDSCHECK=1``, set here before numba is
imported, compiled into a cache directory of its own; ``--no-boundscheck`` turns it off): an index outside
an array raises an IndexError, recorded as *out_of_bounds* with a reproducer, never silent memory damage.
A worker process that dies (a crash outside the checked code) is recorded as *crash*. Checks:

* one pass ``olkit.evaluate_online``: only ValueError may be raised (numba's IndexError: *out_of_bounds*;
  any other exception: *crash*);
* a malformed stream: ``fit``, ``partial_fit``, ``evaluate_online``, ``predict`` and ``decision_function``
  each raise a ValueError saying the matrix is not valid (else *invariant*);
* the per-round scores, the final ``decision_function`` and the model (weights, SV coefficients,
  covariance) are finite (else *nonfinite*);
* invariants (else *invariant*): counts agree (mistakes = Σ flags = ``n_mistakes_``, ``n_seen_`` = n),
  score shapes, predictions among the classes, budgets (|S| ≤ B), a non-negative covariance diagonal;
* the same stream in 1–3 random cuts (``partial_fit`` with ``classes`` for the first chunk, then
  ``evaluate_online(reset=False)``) gives the one-pass run (else *chunked*): the same mistake flags, update
  counts and final scores, scores to RTOL of their scale (the largest Σ|terms| of a score, so that scores
  that cancel are compared at the precision of their terms); when the runs part at a decision tied within
  that tolerance, the rest is not compared. A ValueError in one pass must be one in chunks too;
* a run slower than ``--time-limit`` seconds, twice (the first time may be a first compile), is a *timeout*;
  a run that never returns to Python is ended by a watchdog after 2 × the limit + 30 s and recorded as *hang*.

A ValueError (too few classes, multiclass data for a binary learner, ...) is an accepted outcome; its
messages are counted in the summary. The summary (JSON, ``--out``) has the counts per outcome, per
algorithm and per magnitude, the issue's acceptance counts, the distinct ValueError messages, a *work
list* (one entry per algorithm and kind of failure: runs, magnitudes, options, a reproducer) and the first
``--examples`` runs of each outcome with a reproducer: a self-contained snippet on the shortest failing
prefix of the stream (literal data when small). The exit status is 1 when any run failed (after the summary
is written), 0 otherwise.

    python tools/fuzz.py                      # 20,000 runs, bounds-checked (make fuzz)
    python tools/fuzz.py --runs 2000 --jobs 2 --algorithms pa,scw2 --exponents=-4,4
    python tools/fuzz.py --replay 1234        # one run, in this process: its record and reproducer
"""
import argparse
import collections
import itertools
import json
import math
import os
import re
import signal
import sys
import tempfile
import threading
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "fuzz.json"

FAILURES = ("crash", "out_of_bounds", "nonfinite", "invariant", "chunked", "timeout", "hang")
OUTCOMES = ("ok", "value_error", "config_rejected") + FAILURES
EXPONENTS = (-300, 300)
NUMBA_OUT_OF_BOUNDS = "index is out of bounds"
"""The message of the IndexError that numba's bounds checking (NUMBA_BOUNDSCHECK=1) raises in compiled code."""
RTOL = 1e-9
"""Chunked vs one pass: scores equal to RTOL relative to the scale of the run's scores (the kernel tests'
tolerance: chunks differ from one pass only in the rounding of dot products)."""


# ---------------------------------------------------------------------------------------------------------
# Streams
# ---------------------------------------------------------------------------------------------------------
LABEL_WORDS = ("ant", "bee", "cat", "dog", "emu")


KINDS = ("uniform", "outlier-rows", "feature-scales", "integer")

OTHER_FORMATS = ("csc", "coo", "bsr", "dia", "lil", "dok")
"""scipy formats other than CSR, as ``*_matrix`` or ``*_array`` (a stream in one of them is converted by the
learner's input validation; the chunked comparison slices its CSR form)."""

MALFORMED = ("index-too-large", "index-negative", "indptr-decreasing", "indptr-past-end", "indptr-short",
             "data-short", "indices-float", "coo-row-too-large", "csc-index-negative")
"""Structural defects of a sparse stream (issue 21, see :func:`malform`). Every learner must refuse such a
stream with a ValueError naming the defect, at every entry point, and never read out of bounds."""


def sample_stream(rng, multilabel_ok, exponents=EXPONENTS, kinds=KINDS, variants=True):
    """A stream description (plain JSON values): everything :func:`build_stream` needs. A quarter of the
    streams have magnitudes 1e-4..1e4, the others any 10^e with e in ``exponents`` (inclusive). With
    ``variants`` a tenth are in another scipy format or malformed; without, no draw is spent on that, so the
    streams of a seed are those of the generator before those variants (tests/test_properties.py keeps its
    streams)."""
    lo, hi = exponents
    r = rng.random()
    near = (max(lo, -4), min(hi, 4))
    if r < 0.25 and near[0] <= near[1]:
        exponent = int(rng.integers(near[0], near[1] + 1))
    else:
        exponent = int(rng.integers(lo, hi + 1))
    kind = str(rng.choice([kinds[0], *kinds]))  # the first kind twice as often
    fmt = str(rng.choice(["dense", "dense", "csr", "dense32", "csr32"]))
    if fmt.endswith("32") and abs(exponent) > 30:  # float32 cannot hold the magnitude: store float64
        fmt = fmt[:-2]
    labels = str(rng.choice(["pm1", "int", "float", "str"]))
    if multilabel_ok and rng.random() < 0.05:
        labels = "multilabel"
    extra = {}
    r = rng.random() if variants else 1.0
    if r < 0.05:  # another scipy format (matrix or array)
        extra["format"] = f"{rng.choice(OTHER_FORMATS)}_{rng.choice(['matrix', 'array'])}"
    elif r < 0.10:  # a structurally invalid sparse matrix
        extra["malformed"] = str(rng.choice(sorted(MALFORMED)))
    return {
        "seed": int(rng.integers(2**31)),
        "n": int(rng.integers(2, 61)),
        "d": int(rng.integers(1, 9)),
        "exponent": exponent,
        "kind": kind,
        "duplicates": float(rng.choice([0.0, 0.0, 0.2, 0.5])),
        "zero_rows": float(rng.choice([0.0, 0.0, 0.1, 0.4])),
        "sparsity": float(rng.choice([0.0, 0.0, 0.5])),
        "format": fmt,
        "classes": int(rng.choice([2, 2, 2, 3, 4, 5])) if rng.random() > 0.02 else 1,
        "labels": labels,
        **extra,
    }


def build_stream(desc):
    """(X, y) of a stream description (deterministic)."""
    rng = np.random.default_rng(desc["seed"])
    n, d, K = desc["n"], desc["d"], desc["classes"]
    base = rng.normal(size=(n, d))
    if desc["kind"] == "integer":
        base = rng.integers(-3, 4, size=(n, d)).astype(float)
    base[rng.random((n, d)) < desc["sparsity"]] = 0.0
    # labels from the unscaled rows: a noisy linear (multiclass: argmax) rule
    if desc["labels"] == "multilabel":
        W = rng.normal(size=(d, max(K, 2)))
        Y = (base @ W + 0.3 * rng.normal(size=(n, W.shape[1])) > 0).astype(np.int64)
    else:
        W = rng.normal(size=(d, max(K, 1)))
        idx = np.argmax(base @ W + 0.3 * rng.normal(size=(n, W.shape[1])), axis=1) if K > 1 else np.zeros(n, int)
    scale = 10.0 ** desc["exponent"]
    if desc["kind"] == "outlier-rows":
        X = base.copy()
        rows = rng.choice(n, size=max(1, n // 10), replace=False)
        X[rows] *= scale
    elif desc["kind"] == "feature-scales":
        spread = desc.get("spread", 3)  # feature j at 10^(e + s_j), |s_j| <= spread
        shifts = rng.integers(-spread, spread + 1, size=d)
        X = base * np.array([10.0 ** int(np.clip(desc["exponent"] + s, -300, 300)) for s in shifts])
    else:
        X = base * scale
    if desc["duplicates"] and n > 1:
        for i in np.flatnonzero(rng.random(n) < desc["duplicates"]):
            if i > 0:
                j = int(rng.integers(i))
                X[i] = X[j]
                if desc["labels"] == "multilabel":
                    Y[i] = Y[j]
                else:
                    idx[i] = idx[j] if rng.random() < 0.7 else idx[i]  # mostly the same label, sometimes not
    if desc["zero_rows"]:
        X[rng.random(n) < desc["zero_rows"]] = 0.0
    if desc["labels"] != "multilabel" and K > 1 and len(np.unique(idx)) < min(K, n):
        if n >= K:  # every class present (a duplicate may now carry another label than its original)
            idx[rng.choice(n, size=K, replace=False)] = np.arange(K)
        else:
            idx[rng.choice(n, size=2, replace=False)] = [0, 1]
    if desc["labels"] == "multilabel":
        y = Y
    else:
        kinds = {"pm1": np.array([-1, 1]) if K == 2 else np.arange(K),
                 "int": np.sort(rng.choice(np.arange(-5, 100), size=max(K, 1), replace=False)),
                 "float": np.arange(max(K, 1), dtype=float) + 1.0,
                 "str": np.array(LABEL_WORDS[:max(K, 1)])}
        labels = kinds[desc["labels"]] if K > 1 else kinds[desc["labels"]][:1]
        y = labels[idx]
    if desc["format"].endswith("32"):
        X = X.astype(np.float32)
    if desc["format"].startswith("csr"):
        X = sp.csr_matrix(X)
    elif desc["format"].split("_")[0] in OTHER_FORMATS:
        fmt, kind = desc["format"].split("_")
        X = getattr(sp, f"{fmt}_{kind}")(X, **({"blocksize": (1, 1)} if fmt == "bsr" else {}))
    if desc.get("malformed"):
        X = malform(sp.csr_matrix(X), desc["malformed"], desc["seed"])
    return X, y


def malform(X, defect, seed):
    """A copy of the CSR ``X`` with the structural defect ``defect`` (one of MALFORMED) at a random stored
    entry k (of row i)."""
    rng = np.random.default_rng([seed, 1])
    X = X.copy()
    if X.nnz == 0:  # a defect needs a stored entry
        X = sp.csr_matrix((np.ones(1), np.zeros(1, np.int32), np.r_[0, np.ones(X.shape[0], np.int32)]), shape=X.shape)
    k = int(rng.integers(X.nnz))
    i = int(np.searchsorted(X.indptr, k, side="right") - 1)
    big = int(rng.integers(1, 10**6))
    if defect == "index-too-large":
        X.indices[k] = X.shape[1] - 1 + big
    elif defect == "index-negative":
        X.indices[k] = -big
    elif defect == "indptr-decreasing":
        X.indptr[i + 1] = X.indptr[i] - 1
    elif defect == "indptr-past-end":
        X.indptr[i + 1] = X.nnz + big
    elif defect == "indptr-short":
        X.indptr = X.indptr[:-1]
    elif defect == "data-short":
        X.data = X.data[:-1]
    elif defect == "indices-float":
        X.indices = X.indices.astype(float)
    elif defect == "coo-row-too-large":
        X = sp.coo_matrix(X)
        X.row[k] = X.shape[0] - 1 + big
    elif defect == "csc-index-negative":
        X = sp.csc_matrix(X)
        X.indices[k] = -1
    else:
        raise KeyError(defect)
    return X


# ---------------------------------------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------------------------------------
def _pick(rng, values):
    return values[int(rng.integers(len(values)))]


def _kernel_options(rng, spec_defaults, exponent, d, allow_linear=True):
    """kernel, sigma (a fixed width, or one scaled to the data's magnitude), degree, coef0."""
    kernels = ["gaussian", "gaussian", "linear", "poly"] if allow_linear else ["gaussian", "gaussian", "poly"]
    kernel = _pick(rng, kernels)
    out = {"kernel": kernel}
    if kernel == "gaussian":
        sigma = _pick(rng, ["default", 0.5, 4.0, "scaled", "scaled"])
        if sigma == "scaled":  # σ at the scale of the rows, the width a user would choose
            sigma = float(10.0 ** exponent * math.sqrt(d) * _pick(rng, [0.5, 2.0]))
        if sigma != "default":
            out["sigma"] = sigma
    elif kernel == "poly":
        out["degree"] = _pick(rng, [1, 2, 3])
        out["coef0"] = _pick(rng, [0.0, 1.0])
    return out


def sample_params(name, rng, exponent, d):
    """Main options of algorithm ``name`` (a plain dict for olkit.make)."""
    from olkit import registry

    defaults = registry.defaults(name)
    p = {}
    has = defaults.__contains__
    if name in ("scw1", "scw2"):
        if rng.random() < 0.7:
            p["covariance"] = _pick(rng, ["full", "diagonal"])
        else:
            p.update(_kernel_options(rng, defaults, exponent, d, allow_linear=False))
        p["C"] = _pick(rng, [1.0, 0.1, 10.0])
        p["eta"] = _pick(rng, [0.75, 0.9, 0.6])
        if p.get("kernel", "linear") == "linear" and rng.random() < 0.2:
            p["compat"] = "libol"
        return p
    if has("kernel") and name != "fogd":
        p.update(_kernel_options(rng, defaults, exponent, d))
    elif name == "fogd":
        g = _kernel_options(rng, defaults, exponent, d)
        if "sigma" in g and g["kernel"] == "gaussian":
            p["sigma"] = g["sigma"]
    if has("covariance"):
        p["covariance"] = _pick(rng, ["full", "diagonal"])
    if has("B"):
        if name == "ahpatron":
            p["B"] = _pick(rng, [2, 4, 6, 8])
        elif name in ("projectron", "projectron++"):
            p["B"] = _pick(rng, [None, 2, 3, 5, 8])
        else:
            p["B"] = _pick(rng, [2, 3, 4, 6, 8])
    if name == "fogd":
        p["D"] = _pick(rng, [1, 4, 16])
        p["eta"] = _pick(rng, [0.5, 0.1, 2.0])
    extra = {
        "perceptron": {"multiclass_update": ["max", "uniform", "prop"]},
        "pa": {"C": [None, None, 0.1, 10.0]},
        "pa1": {"C": [None, 0.1, 10.0]},
        "pa2": {"C": [None, 0.1, 10.0]},
        "agg-romma": {"romma_reset_case": [False, True]},
        "alma": {"alpha": [0.9, 1.0, 0.5], "C": [math.sqrt(2), 1.0]},
        "duol": {"variant": ["jmlr", "nips2009"], "rho": [None, 0.2], "C": [None, 0.5]},
        "duol-appr": {"rho": [None, 0.2], "C": [None, 1.0]},
        "duol-iter": {"rho": [None, 0.2], "C": [None, 0.5]},
        "duol-rand": {"rho": [None, 0.2], "C": [None, 1.0], "seed": [0, 5]},
        "online-svm": {"working_set": ["margin", "all"], "C": [5.0, 0.5]},
        "mira": {"update": ["mistake", "margin"], "C": [1.0, 0.1]},
        "cw": {"eta": [0.7, 0.9]},
        "cw-var": {"eta": [0.7, 0.9]},
        "iellip": {"b": [0.3, 0.7], "c": [0.1, 0.5]},
        "arow": {"r": [1.0, 0.1, 10.0]},
        "nherd": {"diagonal": ["project", "exact", "drop"], "C": [1.0, 0.1]},
        "narow": {"b": [1.0, 0.1]},
        "ahpatron": {"U": [None, None, 0.5, math.inf], "lam": [None, 0.3], "epsilon": [0.5, 0.8],
                     "eta": [0.0005, 0.1]},
        "avp": {"U": [math.inf, 2.0], "lam": [None, 0.3], "epsilon": [0.75, 0.5]},
        "bogd": {"gamma": [1.0, 0.6], "lam": [1e-5, 0.01], "eta": [0.5, 0.2], "seed": [0, 5]},
        "bogd++": {"gamma": [1.0, 0.6], "lam": [1e-5, 0.01, 1.0], "eta": [0.5, 1.0]},
        "fogd": {"seed": [0, 3]},
        "forgetron": {},
        "nogd": {"k": [None, 1, 2], "eta": [0.5, 0.1]},
        "projectron": {"eta": [0.9, 0.3, 0.0], "threshold_on_squared": [False, True]},
        "projectron++": {"eta": [0.9, 0.3], "threshold_on_squared": [False, True],
                         "margin_rule": ["dogma", "paper"]},
        "pomdr": {"B0": [1, 2, 3, None], "a": [0.1, 0.5, None], "M": [15, 0, 3], "U": [25.0, 1.0]},
        "rbp": {"seed": [0, 3]},
    }.get(name, {})
    for key, values in extra.items():
        if has(key):
            p[key] = _pick(rng, values)
    if name == "nogd" and p.get("k") is not None:
        p["k"] = min(p["k"], p.get("B", 2))
    if name == "pomdr" and p.get("B0") is not None:
        p["B0"] = min(p["B0"], max(1, p["B"] // 2))
    # compat modes: sometimes one of the learner's reference modes (some are binary-only or need kernel forms)
    try:
        choices = list(registry.get(name)(**p).compat_choices)
    except Exception:  # noqa: BLE001  (options a learner's constructor refuses: no compat mode then)
        choices = ["none"]
    if len(choices) > 1 and rng.random() < 0.2:
        p["compat"] = _pick(rng, choices[1:])
    return p


def sample_run(master_seed, index, algorithms, exponents=EXPONENTS, kinds=KINDS, round_robin=False, variants=True):
    """The run ``index`` of a fuzz session: algorithm, options and stream (from the seeds alone). The
    algorithm is drawn at random, or with ``round_robin`` taken in turn (every algorithm in the fewest runs)."""
    import olkit
    from olkit import registry

    rng = np.random.default_rng([master_seed, index])
    name = algorithms[int(rng.integers(len(algorithms)))]
    if round_robin:
        name = algorithms[index % len(algorithms)]
    stream = sample_stream(rng, "multilabel" in registry.spec(name).data, exponents, kinds, variants)
    for _ in range(10):  # options that make() refuses together (e.g. compat modes without a budget): again
        params = sample_params(name, rng, stream["exponent"], stream["d"])
        try:
            olkit.make(name, **params)
            break
        except ValueError:
            continue
    return {"index": index, "algorithm": name, "params": params, "stream": stream,
            "cuts": sorted({int(c) for c in rng.integers(1, max(stream["n"], 2), size=int(rng.integers(1, 4)))})}


# ---------------------------------------------------------------------------------------------------------
# One run
# ---------------------------------------------------------------------------------------------------------
class RunTimeout(BaseException):
    """Raised by the soft time limit (a BaseException so that no ``except Exception`` swallows it)."""


class Finding(Exception):
    """A failed check: ``outcome`` (one of FAILURES), ``kind`` (what failed, for grouping), a message."""

    def __init__(self, outcome, kind, message, **detail):
        super().__init__(message)
        self.outcome, self.message, self.detail = outcome, message, {"kind": kind, **detail}


def _fmt(v):
    """Scores for a message: 17 significant digits, no numpy reprs."""
    a = np.asarray(v, dtype=float)
    if a.ndim == 0:
        return f"{float(a):.17g}"
    return "[" + ", ".join(f"{float(x):.17g}" for x in a.ravel()) + "]"


def _finite_check(values, what):
    arr = np.asarray(values, dtype=float) if not sp.issparse(values) else values.data
    if arr.size and not np.all(np.isfinite(arr)):
        bad = np.flatnonzero(~np.isfinite(np.ravel(arr)))
        raise Finding("nonfinite", f"NaN/inf in {what}", f"{what}: {bad.size} of {arr.size} values NaN/inf "
                      f"(first at flat index {int(bad[0])}: {np.ravel(arr)[bad[0]]})", where=what,
                      first=int(bad[0]))


def model_arrays(clf):
    """{name: array} of the learned model (weights, SV coefficients, covariance, scalar state)."""
    out = {}
    model = getattr(clf, "model_", None)
    if model is not None:
        out["weights"] = model.weights()
        cov = model.covariance_matrix()  # None for first-order rules
        if cov is not None:
            out["covariance"] = cov
    support = getattr(clf, "support_", None)
    if support is not None:
        out["sv_coef"] = np.asarray(support.coef[:support.n])
    if model is None and support is None and hasattr(clf, "coef_"):
        try:
            out["coef"] = clf.coef_
        except (AttributeError, ValueError):
            pass
    return out


def _budget(clf, params):
    B = params.get("B", getattr(clf, "B", None))
    return None if B is None or not hasattr(clf, "support_") or clf.support_ is None else int(B)


def _scale(values):
    a = np.abs(np.asarray(values, dtype=float))
    return float(a.max()) if a.size else 0.0


def check_one_pass(name, params, X, y):
    """One pass with every check; returns (clf, result). Raises Finding or the learner's exception."""
    import olkit

    clf = olkit.make(name, **params)
    res = olkit.evaluate_online(clf, X, y)
    n = X.shape[0]
    scores = np.asarray(res.scores)
    _finite_check(scores, "online scores")
    if scores.shape[0] != n or len(res.mistake_flags) != n:
        raise Finding("invariant", "score shape",
                      f"scores shape {scores.shape}, {len(res.mistake_flags)} flags for {n} rounds")
    flags = np.asarray(res.mistake_flags)
    if not set(np.unique(flags)) <= {0, 1} or int(flags.sum()) != res.mistakes or clf.n_mistakes_ != res.mistakes:
        raise Finding("invariant", "mistake counts", f"mistakes {res.mistakes}, sum(flags) {int(flags.sum())}, "
                      f"n_mistakes_ {clf.n_mistakes_}")
    if clf.n_seen_ != n:
        raise Finding("invariant", "n_seen_", f"n_seen_ {clf.n_seen_} after {n} rounds")
    for key, arr in model_arrays(clf).items():
        _finite_check(arr, f"model {key}")
        if key == "covariance":
            diag = np.diagonal(arr, axis1=-2, axis2=-1) if np.ndim(arr) == 3 else arr
            if np.any(diag < 0):
                raise Finding("invariant", "negative covariance diagonal",
                              f"negative covariance diagonal entry {float(diag.min())}")
    B = _budget(clf, params)
    if B is not None and clf.support_.n > B:
        raise Finding("invariant", "budget exceeded", f"{clf.support_.n} stored SVs with budget B={B}")
    if B is not None and clf.n_support_ > B:
        raise Finding("invariant", "budget exceeded (n_support_)", f"n_support_ {clf.n_support_} with budget B={B}")
    dec = np.asarray(clf.decision_function(X))
    _finite_check(dec, "decision_function")
    pred = np.asarray(clf.predict(X))
    if getattr(clf, "multilabel_", False):
        if pred.shape != np.shape(y) or not np.all((pred == 0) | (pred == 1)):
            raise Finding("invariant", "predictions not labels",
                          f"multi-label predictions of shape {pred.shape} not a 0/1 matrix")
    elif not set(pred.tolist()) <= set(np.asarray(clf.classes_).tolist()):
        raise Finding("invariant", "predictions not labels",
                      f"predictions {sorted(set(pred.tolist()) - set(clf.classes_.tolist()))!r} "
                      f"not among the classes")
    return clf, res, dec


def condition_scale(clf, X):
    """max over rows of Σ |terms| of the final model's scores: |X||W|ᵀ for a weight vector, |K(X, S)||A| for
    a kernel expansion (0 when unknown or not finite). Scores that cancel (Σ|terms| ≫ |f|) carry rounding
    errors of ~1e-16 Σ|terms|: chunks and one pass may differ by that much."""
    try:
        model = getattr(clf, "model_", None)
        if model is not None:
            W = np.abs(np.asarray(model.weights(), dtype=float))
            A = abs(X) if sp.issparse(X) else np.abs(np.asarray(X, dtype=float))
            value = np.max(A @ W.T) if W.size else 0.0
        else:
            sv = getattr(clf, "support_", None)
            if sv is None or sv.n == 0:
                return 0.0
            from olkit.kernels import row_norms2

            Xe = clf._engine_input(clf._validate_X(X, reset=False))
            K = sv.kernel(Xe, row_norms2(Xe), clf._kernel_spec().params())
            value = np.max(np.abs(K) @ np.abs(np.asarray(sv.coef[:sv.n], dtype=float)))
        value = float(value)
        return value if math.isfinite(value) else 0.0
    except Exception:  # noqa: BLE001  (a learner without these internals: the scores' own scale is used)
        return 0.0


def _near_tie(scores, tol, multilabel):
    """A score at the decision boundary within ``tol``: binary |f| ≤ tol; multiclass the two largest scores
    within tol; multi-label some |f_c| ≤ tol."""
    s = np.ravel(np.asarray(scores, dtype=float))
    if s.size == 1 or multilabel:
        return bool(np.any(np.abs(s) <= tol))
    top = np.sort(s)[-2:]
    return bool(top[1] - top[0] <= tol)


def check_chunks(name, params, X, y, cuts, one, one_dec, cond=0.0):
    """The stream fed in chunks equals the one-pass run. Returns "tie" when the two runs part at a decision
    tied within rounding (then nothing after it is compared), else None."""
    import olkit

    multilabel = np.ndim(y) == 2

    clf = olkit.make(name, **params)
    edges = [0, *[c for c in cuts if 0 < c < X.shape[0]], X.shape[0]]
    classes = None if np.ndim(y) == 2 else np.unique(y)
    first = edges[1]
    clf.partial_fit(X[:first], y[:first], classes=classes)
    one_flags = np.asarray(one.mistake_flags)
    if clf.n_mistakes_ != int(one_flags[:first].sum()):
        raise Finding("chunked", "mistakes of the first chunk differ",
                      f"partial_fit(X[:{first}]): {clf.n_mistakes_} mistakes, one pass "
                      f"{int(one_flags[:first].sum())}", chunk=[0, first])
    scale = max(_scale(one.scores), _scale(one_dec), cond, 1e-300)
    tol = RTOL * scale
    for lo, hi in itertools.pairwise(edges[1:]):
        res = olkit.evaluate_online(clf, X[lo:hi], y[lo:hi], reset=False)
        got, want = np.asarray(res.scores), np.asarray(one.scores)[lo:hi]
        if got.shape != want.shape:
            raise Finding("chunked", "score shape differs",
                          f"scores of chunk {lo}:{hi} have shape {got.shape}, one pass {want.shape}",
                          chunk=[lo, hi])
        differ = np.flatnonzero(np.asarray(res.mistake_flags) != one_flags[lo:hi])
        close = np.isclose(got, want, rtol=RTOL, atol=tol)
        close = close.all(axis=1) if close.ndim == 2 else close
        bad_score = np.flatnonzero(~close)
        first_flag = int(differ[0]) if differ.size else hi
        first_score = int(bad_score[0]) if bad_score.size else hi
        if first_score < first_flag:
            i = first_score
            raise Finding("chunked", "a score differs",
                          f"score of round {lo + i} differs: one pass {_fmt(want[i])}, chunks {_fmt(got[i])} "
                          f"(scale {scale:.3g})", chunk=[lo, hi], round=lo + i)
        if differ.size:
            i = first_flag
            if _near_tie(want[i], tol, multilabel) and _near_tie(got[i], tol, multilabel):
                return "tie"  # a decision at a tie within rounding: the two runs legitimately part here
            raise Finding("chunked", "a mistake flag differs (not at a tie)",
                          f"mistake flag of round {lo + i} differs: "
                          f"scores one pass {_fmt(want[i])}, chunks {_fmt(got[i])}", chunk=[lo, hi], round=lo + i)
    dec = np.asarray(clf.decision_function(X))
    if not np.allclose(dec, one_dec, rtol=RTOL, atol=tol, equal_nan=True):
        i = int(np.argmax(np.abs(dec - one_dec).reshape(len(dec), -1).max(axis=1)))
        raise Finding("chunked", "final decision_function differs",
                      f"final decision_function of row {i} differs: one pass {_fmt(one_dec[i])}, chunks {_fmt(dec[i])} "
                      f"(scale {scale:.3g})", row=i)
    if clf.n_mistakes_ != one.mistakes or clf.n_updates_ != one.n_updates:
        raise Finding("chunked", "update counts differ (flags and scores agree)",
                      f"counts: chunks {clf.n_mistakes_} mistakes / {clf.n_updates_} updates, one pass "
                      f"{one.mistakes} / {one.n_updates}")


def _chunks_comparable(name, params):
    """POMDR's defaults B0 and a depend on the length of the first data (documented)."""
    return not (name == "pomdr" and (params.get("B0") is None or params.get("a") is None))


def _short_tb(exc, limit=6):
    """The last ``limit`` entries of the traceback, file names relative to the checkout (a committed summary
    names no machine's paths)."""
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return "".join(lines[-limit:]).replace(f"{ROOT}{os.sep}", "")[-2000:]


def _crash(exc, phase):
    """(outcome, record) of an exception other than ValueError: "out_of_bounds" for the IndexError of numba's
    bounds checking (compiled code indexed outside an array), else "crash"; the record has its type, where it
    was raised, a short traceback."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno} {frames[-1].name}" if frames else "?"
    first_line = (str(exc).strip().splitlines() or [""])[0][:200]
    outcome = "out_of_bounds" if type(exc) is IndexError and str(exc) == NUMBA_OUT_OF_BOUNDS else "crash"
    return outcome, {"kind": f"{type(exc).__name__} at {where}", "type": type(exc).__name__, "message": first_line,
                     "traceback": _short_tb(exc), "phase": phase}


def _sliceable(X):
    """``X`` in a form that can be cut into chunks (other scipy formats as CSR)."""
    return X if not sp.issparse(X) or X.format in ("csr", "csc", "lil") else sp.csr_matrix(X)


def evaluate_run(name, params, X, y, cuts):
    """(outcome, info) of one run on (X, y): the checks of this module, exceptions classified."""
    import olkit

    info = {}
    try:
        olkit.make(name, **params)
    except ValueError as exc:
        return "config_rejected", {"message": str(exc)}
    Xc = _sliceable(X)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            clf, one, dec = check_one_pass(name, params, X, y)
        except Finding as f:
            return f.outcome, {"message": f.message, **f.detail}
        except ValueError as exc:
            info = {"message": str(exc)}
            # the same ValueError is expected when the stream is fed in chunks
            try:
                check_chunks_error(name, params, Xc, y, cuts)
            except Finding as f:
                return f.outcome, {"message": f.message, **f.detail, "one_pass_error": str(exc)}
            except Exception as exc2:  # noqa: BLE001  (any other exception is a finding)
                return _crash(exc2, "chunks")
            return "value_error", info
        except RunTimeout:
            raise
        except Exception as exc:  # noqa: BLE001  (every other exception is what the fuzzer looks for)
            return _crash(exc, "one pass")
        if np.ndim(one.scores) and not np.any(one.scores) and one.n_updates > 0:
            info["all_zero_scores"] = True
        if _chunks_comparable(name, params) and X.shape[0] > 1:
            try:
                if check_chunks(name, params, Xc, y, cuts, one, dec, condition_scale(clf, Xc)) == "tie":
                    info["chunks_parted_at_tie"] = True
            except Finding as f:
                return f.outcome, {"message": f.message, **f.detail}
            except ValueError as exc:
                return "chunked", {"kind": "ValueError in chunks only",
                                   "message": f"chunks raised ValueError, one pass did not: {exc}"}
            except RunTimeout:
                raise
            except Exception as exc:  # noqa: BLE001
                return _crash(exc, "chunks")
        else:
            info["chunks_skipped"] = True
        runtime = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
        if runtime:
            info["runtime_warnings"] = sorted(set(runtime))[:3]
    return "ok", info


def evaluate_malformed(name, params, desc):
    """(outcome, info) of a structurally invalid sparse stream (``desc["malformed"]``): fit, partial_fit,
    evaluate_online and, on a learner fitted to the valid stream, predict and decision_function must each raise
    a ValueError saying the matrix is not valid; an entry point that accepts the matrix is an *invariant*
    failure, any other exception a crash (or *out_of_bounds*)."""
    import olkit

    try:
        olkit.make(name, **params)
    except ValueError as exc:
        return "config_rejected", {"message": str(exc)}
    X, y = build_stream(desc)
    valid, _ = build_stream({k: v for k, v in desc.items() if k != "malformed"})
    classes = None if np.ndim(y) == 2 else np.unique(y)
    fitted = olkit.make(name, **params)
    try:
        fitted.partial_fit(valid, y, classes=classes)
    except ValueError:
        fitted = None  # e.g. a binary learner on multiclass data: no fitted learner to predict with
    calls = {"fit": lambda: olkit.make(name, **params).fit(X, y),
             "partial_fit": lambda: olkit.make(name, **params).partial_fit(X, y, classes=classes),
             "evaluate_online": lambda: olkit.evaluate_online(olkit.make(name, **params), X, y)}
    if fitted is not None:
        calls.update(predict=lambda: fitted.predict(X), decision_function=lambda: fitted.decision_function(X))
    messages = {}
    for entry, call in calls.items():
        try:
            call()
        except ValueError as exc:
            messages[entry] = str(exc)
            if "not a valid" not in str(exc):
                return "invariant", {"kind": f"malformed sparse input: another ValueError in {entry}",
                                     "message": f"{entry}: {exc}"}
            continue
        except RunTimeout:
            raise
        except Exception as exc:  # noqa: BLE001
            return _crash(exc, entry)
        return "invariant", {"kind": f"malformed sparse input accepted by {entry}",
                             "message": f"{entry} accepted a matrix with the defect {desc['malformed']}"}
    return "value_error", {"message": next(iter(messages.values()))}


def check_chunks_error(name, params, X, y, cuts):
    """One pass raised ValueError: so must the chunked stream (at some chunk)."""
    import olkit

    clf = olkit.make(name, **params)
    edges = [0, *[c for c in cuts if 0 < c < X.shape[0]], X.shape[0]]
    classes = None if np.ndim(y) == 2 else np.unique(y)
    try:
        clf.partial_fit(X[:edges[1]], y[:edges[1]], classes=classes)
        for lo, hi in itertools.pairwise(edges[1:]):
            olkit.evaluate_online(clf, X[lo:hi], y[lo:hi], reset=False)
    except ValueError:
        return
    raise Finding("chunked", "ValueError in one pass only", "one pass raised ValueError, the chunked stream ran")


# ---------------------------------------------------------------------------------------------------------
# Workers: soft time limit (SIGALRM), hard watchdog (a run that never returns to Python)
# ---------------------------------------------------------------------------------------------------------
_CURRENT = {"case": None, "start": 0.0}


def _alarm(signum, frame):
    raise RunTimeout()


def _watchdog(hard_limit, hang_dir):
    while True:
        time.sleep(1.0)
        case, start = _CURRENT["case"], _CURRENT["start"]
        if case is not None and time.monotonic() - start > hard_limit:
            path = Path(hang_dir) / f"hang-{os.getpid()}-{case['index']}.json"
            path.write_text(json.dumps({"case": case, "seconds": time.monotonic() - start}))
            os._exit(70)


_WATCHDOG = []


def run_case(case, time_limit):
    """The record of one run (case: a dict from :func:`sample_run`). A run over the time limit is run once
    more before it counts as a *timeout*: its first time may have been a first compile (numba caches it)."""
    rec = _run_case_once(case, time_limit)
    if rec["outcome"] == "timeout":
        first = rec["seconds"]
        rec = _run_case_once(case, time_limit)
        rec["info"]["first_attempt_seconds"] = first
    return rec


def _run_case_once(case, time_limit):
    use_alarm = threading.current_thread() is threading.main_thread() and time_limit
    if use_alarm:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, time_limit)
    start = time.perf_counter()
    try:
        if case["stream"].get("malformed"):
            outcome, info = evaluate_malformed(case["algorithm"], case["params"], case["stream"])
        else:
            X, y = build_stream(case["stream"])
            outcome, info = evaluate_run(case["algorithm"], case["params"], X, y, case["cuts"])
    except RunTimeout:
        outcome, info = "timeout", {"kind": "time limit", "message": f"no result after {time_limit} s"}
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    seconds = time.perf_counter() - start
    if outcome != "timeout" and time_limit and seconds > time_limit:
        outcome, info = "timeout", {"kind": "time limit", "message": f"took {seconds:.1f} s (limit {time_limit} s)",
                                    "was": outcome}
    return {**case, "outcome": outcome, "info": info, "seconds": round(seconds, 4)}


def run_batch(cases, time_limit, hang_dir):
    """Run ``cases`` in this (worker) process. Before each run the case is written to
    ``hang_dir/current-<pid>.json``: if the process dies, the parent knows which runs were under way."""
    if hang_dir and not _WATCHDOG:
        hard = 2 * (time_limit or 60) + 30
        thread = threading.Thread(target=_watchdog, args=(hard, hang_dir), daemon=True)
        thread.start()
        _WATCHDOG.append(thread)
    warnings.simplefilter("ignore")
    marker = Path(hang_dir) / f"current-{os.getpid()}.json" if hang_dir else None
    out = []
    for case in cases:
        if marker is not None:
            marker.write_text(json.dumps(case))
        _CURRENT["case"], _CURRENT["start"] = case, time.monotonic()
        out.append(run_case(case, time_limit))
        _CURRENT["case"] = None
    if marker is not None:
        marker.unlink(missing_ok=True)
    return out


def _importable_self():
    """This module as an importable module: run as a script it is ``__main__``, whose functions loky would
    send by value, with fresh globals for every task (a new watchdog thread per batch); imported by name,
    the workers import it once."""
    if __name__ != "__main__":
        return sys.modules[__name__]
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import fuzz

    return fuzz


def _died(case, message):
    return {**case, "outcome": "crash", "seconds": None,
            "info": {"kind": "the worker process died", "type": "WorkerDied", "message": message}}


def run_all(cases, jobs, time_limit, batch_size=25, progress=True):
    """Records of every case, in parallel worker processes (joblib's loky executor). When a worker dies
    (the watchdog ended a hung run, or the process crashed), the runs under way are found from the
    workers' marker files: a hung run is recorded as "hang", a run that kills its process on its own
    (replayed alone to find out) as a crash; the other cases are resubmitted."""
    from joblib.externals.loky import get_reusable_executor

    worker = _importable_self()
    batches = {i: cases[i:i + batch_size] for i in range(0, len(cases), batch_size)}
    records = {}
    start = time.monotonic()

    shown = [0.0]

    def show():
        if progress and (time.monotonic() - shown[0] > 10 or len(records) == len(cases)):
            shown[0] = time.monotonic()
            print(f"{len(records)}/{len(cases)} runs, {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)

    stalls = 0
    with tempfile.TemporaryDirectory(prefix="olkit-fuzz-") as hang_dir:
        while batches:
            if stalls > 3:  # workers keep dying without a culprit: give up on the rest, recorded as crashes
                for batch in batches.values():
                    for case in batch:
                        records.setdefault(case["index"], _died(case, "workers kept dying; not run"))
                break
            before = len(records)
            executor = get_reusable_executor(max_workers=jobs, timeout=600)
            futures = {executor.submit(worker.run_batch, batch, time_limit, hang_dir): key
                       for key, batch in batches.items()}
            broken = False
            for fut in _as_completed(futures):
                try:
                    recs = fut.result()
                except Exception:  # noqa: BLE001  (a worker died)
                    broken = True
                    continue
                for rec in recs:
                    records[rec["index"]] = rec
                del batches[futures[fut]]
                show()
            if not broken:
                break
            hung = set()
            for path in Path(hang_dir).glob("hang-*.json"):
                data = json.loads(path.read_text())
                case = data["case"]
                records[case["index"]] = {**case, "outcome": "hang", "seconds": round(data["seconds"], 1),
                                          "info": {"kind": "never returned",
                                                   "message": "no result after the hard limit, not even by the "
                                                              "soft time limit (the watchdog ended the worker)"}}
                hung.add(case["index"])
                path.unlink()
            suspects = []
            for path in Path(hang_dir).glob("current-*.json"):
                case = json.loads(path.read_text())
                path.unlink()
                if case["index"] not in records:
                    suspects.append(case)
            if not hung:  # no watchdog report: replay each run under way alone to find the one that kills
                for case in suspects:
                    try:
                        alone = get_reusable_executor(max_workers=1, timeout=600, reuse=False)
                        rec = alone.submit(worker.run_batch, [case], time_limit, hang_dir).result()[0]
                    except Exception:  # noqa: BLE001
                        rec = _died(case, "the worker process died during this run")
                    records[case["index"]] = rec
                    for path in Path(hang_dir).glob("current-*.json"):
                        path.unlink()
            for key in list(batches):
                rest = [c for c in batches[key] if c["index"] not in records]
                if rest:
                    batches[key] = rest
                else:
                    del batches[key]
            stalls = stalls + 1 if len(records) == before else 0
            show()
    return [records[c["index"]] for c in cases if c["index"] in records]


def _as_completed(futures):
    from concurrent.futures import as_completed

    return as_completed(list(futures))


# ---------------------------------------------------------------------------------------------------------
# Reproducers and the summary
# ---------------------------------------------------------------------------------------------------------
def prefix_cuts(cuts, m):
    """The cuts of a run restricted to its first m rounds (at least one cut)."""
    return [c for c in cuts if c < m] or [max(1, m // 2)]


def shortest_failing_prefix(rec):
    """The shortest prefix of the stream with the same outcome (and, for crashes, the same exception)."""
    X, y = build_stream(rec["stream"])
    X = _sliceable(X)
    want = (rec["outcome"], rec["info"].get("kind"))
    best = X.shape[0]
    for m in range(2, X.shape[0]):
        cuts = prefix_cuts(rec["cuts"], m)
        try:
            outcome, info = evaluate_run(rec["algorithm"], rec["params"], X[:m], y[:m], cuts)
        except Exception:  # noqa: BLE001, S112  (a prefix that fails otherwise is not the reproducer)
            continue
        if (outcome, info.get("kind")) == want:
            best = m
            break
    return best


def _literal(v):
    v = v.item() if isinstance(v, np.generic) else v
    if isinstance(v, float) and not math.isfinite(v):
        return f"float({str(v)!r})"
    return repr(v)


def reproducer(rec, prefix=None):
    """A Python snippet that replays the run (on its shortest failing prefix)."""
    X, y = build_stream(rec["stream"])
    literal = not rec["stream"].get("malformed") and rec["stream"]["format"].rstrip("32") in ("dense", "csr")
    m = prefix or X.shape[0]
    if literal:
        X, y = X[:m], y[:m]
    dense = X.toarray() if sp.issparse(X) and literal else np.asarray(X) if literal else None
    params = ", ".join(f"{k}={_literal(v)}" for k, v in rec["params"].items())
    found = f"{rec['info'].get('type', '')} {rec['info'].get('message', '')}".strip().replace("\n", " ")[:300]
    lines = [f"# fuzz run {rec['index']}: {rec['outcome']}: {found}",
             "import numpy as np", "import scipy.sparse as sp", "import olkit", ""]
    if literal and dense.size <= 240:
        dtype = "np.float32" if dense.dtype == np.float32 else "float"
        rows = ",\n     ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in dense)
        lines.append(f"X = np.array([{rows}], dtype={dtype})")
        if sp.issparse(X):
            lines.append("X = sp.csr_matrix(X)")
        lines.append(f"y = np.array({np.asarray(y).tolist()!r})")
    else:
        lines += ["import sys; sys.path.insert(0, 'tools')  # from the repository root",
                  "from fuzz import build_stream",
                  f"X, y = build_stream({json.dumps(rec['stream'])})"]
        if literal:
            lines.append(f"X, y = X[:{m}], y[:{m}]")
    lines.append(f"clf = olkit.make({rec['algorithm']!r}{', ' if params else ''}{params})")
    kind = rec["outcome"]
    if kind == "chunked":
        cuts = prefix_cuts(rec["cuts"], m)
        lines += ["one = olkit.evaluate_online(clf, X, y)",
                  f"chunks = olkit.make({rec['algorithm']!r}{', ' if params else ''}{params})",
                  f"edges = [0, *{cuts!r}, {m}]",
                  "chunks.partial_fit(X[:edges[1]], y[:edges[1]], classes=np.unique(y))",
                  ("rest = [olkit.evaluate_online(chunks, X[a:b], y[a:b], reset=False)\n"
                   "        for a, b in zip(edges[1:-1], edges[2:])]"),
                  "print(one.mistake_flags[edges[1]:], np.concatenate([r.mistake_flags for r in rest]))",
                  "print(one.scores[edges[1]:], np.concatenate([r.scores for r in rest]))"]
    else:
        lines += ["res = olkit.evaluate_online(clf, X, y)",
                  "print(res.scores, clf.decision_function(X))"]
    return "\n".join(lines)


def decade_bin(e, width=25):
    lo = (e // width) * width
    return f"1e{lo:+d}..1e{lo + width - 1:+d}"


def _normalise(message):
    """A ValueError message with its numbers and label lists blanked out, to count kinds of messages."""
    message = re.sub(r"classes \([^)]*\)", "classes (...)", message)
    message = re.sub(r"found class [^)]*\)", "found class ...)", message)
    return re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "#", message)[:200]


def _option_summary(recs):
    """The options a group of failing runs had: {parameter: {value: count}} for the parameters that vary."""
    seen = collections.defaultdict(collections.Counter)
    for r in recs:
        for k, v in r["params"].items():
            seen[k][repr(v) if not isinstance(v, float) or k != "sigma" else "…"] += 1
        for k in ("kind", "format", "labels"):
            seen[f"stream.{k}"][r["stream"][k]] += 1
        seen["stream.classes"][r["stream"]["classes"]] += 1
    return {k: dict(c.most_common()) for k, c in sorted(seen.items())}


def _example(r):
    """A failing run with its reproducer. The shortest failing prefix is searched in this process, so not for
    a run that killed its worker (it could kill this process too), nor for a malformed stream (no prefix)."""
    prefix = None
    died = r["info"].get("type") == "WorkerDied"
    if r["outcome"] not in ("timeout", "hang") and not died and not r["stream"].get("malformed"):
        try:
            prefix = shortest_failing_prefix(r)
        except Exception:  # noqa: BLE001
            prefix = None
    return {"index": r["index"], "algorithm": r["algorithm"], "params": r["params"], "stream": r["stream"],
            "cuts": r["cuts"], "info": r["info"], "prefix": prefix, "reproducer": reproducer(r, prefix)}


def summarise(records, args, seconds, examples):
    """The JSON summary of a fuzz session."""
    counts = collections.Counter(r["outcome"] for r in records)
    by_alg = collections.defaultdict(collections.Counter)
    by_exp = collections.defaultdict(collections.Counter)
    by_bin = collections.defaultdict(collections.Counter)
    groups = collections.defaultdict(list)  # (outcome, algorithm, kind) -> failing records
    value_errors = collections.Counter()
    info_counts = collections.Counter()
    info_bins = collections.defaultdict(collections.Counter)
    first = collections.defaultdict(list)
    for r in records:
        o = r["outcome"]
        by_alg[r["algorithm"]][o] += 1
        e = r["stream"]["exponent"]
        by_exp[e][o] += 1
        by_bin[decade_bin(e)][o] += 1
        if o == "value_error":
            value_errors[_normalise(r["info"].get("message", ""))] += 1
        if o in FAILURES:
            groups[(o, r["algorithm"], r["info"].get("kind", "?"))].append(r)
            if len(first[o]) < examples:
                first[o].append(r)
        for flag in ("all_zero_scores", "chunks_skipped", "chunks_parted_at_tie", "runtime_warnings"):
            if r["info"].get(flag):
                info_counts[flag] += 1
                info_bins[flag][decade_bin(e)] += 1
    exps = [r["stream"]["exponent"] for r in records]
    work = []
    for (o, alg, kind), recs in sorted(groups.items(), key=lambda kv: (FAILURES.index(kv[0][0]), kv[0][1], kv[0][2])):
        e = sorted({r["stream"]["exponent"] for r in recs})
        work.append({"outcome": o, "algorithm": alg, "kind": kind, "runs": len(recs), "exponents": [e[0], e[-1]],
                     "exponent_values": e, "options": _option_summary(recs), "example": recs[0]["index"],
                     "message": recs[0]["info"].get("message", "")})
    summary = {
        "command": " ".join(sys.argv),
        "seed": args.seed, "runs": len(records), "jobs": args.jobs, "time_limit": args.time_limit,
        "seconds": round(seconds, 1),
        "streams_tried": len(records),
        "exponent_range": [min(exps), max(exps)] if exps else None,
        "failures": sum(counts[k] for k in FAILURES),
        "acceptance": {  # issue 9: 0 crashes, 0 NaN/inf scores, 0 non-ValueError exceptions
            "non_value_error_exceptions": counts.get("crash", 0),
            "nonfinite_scores_or_model": counts.get("nonfinite", 0),
            "hangs_or_timeouts": counts.get("hang", 0) + counts.get("timeout", 0),
            "other_property_failures": counts.get("invariant", 0) + counts.get("chunked", 0),
        },
        "boundscheck": os.environ.get("NUMBA_BOUNDSCHECK") == "1",
        "acceptance_issue21": {  # issue 21: bounds-checked, 0 out-of-range accesses, 0 crashes, 0 NaN/inf models
            "out_of_range_accesses": counts.get("out_of_bounds", 0),
            "crashes": counts.get("crash", 0),
            "workers_died": sum(r["info"].get("type") == "WorkerDied" for r in records),
            "nonfinite_scores_or_model": counts.get("nonfinite", 0),
            "malformed_sparse_streams": sum(bool(r["stream"].get("malformed")) for r in records),
            "malformed_sparse_refused": sum(bool(r["stream"].get("malformed")) and r["outcome"] == "value_error"
                                            for r in records),
            "other_scipy_format_streams": sum(r["stream"]["format"].split("_")[0] in OTHER_FORMATS for r in records),
        },
        "counts": {k: counts.get(k, 0) for k in OUTCOMES},
        "by_algorithm": {a: dict(c) for a, c in sorted(by_alg.items())},
        "by_decade_bin": {b: dict(c) for b, c in sorted(by_bin.items(), key=lambda kv: int(kv[0][2:].split(".")[0]))},
        "by_exponent": {str(e): dict(c) for e, c in sorted(by_exp.items())},
        "work_list": work,
        "value_error_messages": dict(value_errors.most_common(40)),
        "info": dict(info_counts),
        "info_by_decade_bin": {flag: dict(sorted(c.items(), key=lambda kv: int(kv[0][2:].split(".")[0])))
                               for flag, c in info_bins.items()},
        "slowest": [{"index": r["index"], "algorithm": r["algorithm"], "seconds": r["seconds"]}
                    for r in sorted(records, key=lambda r: -(r["seconds"] or 0))[:5]],
        "examples": {},
    }
    for o, recs in first.items():
        summary["examples"][o] = [_example(r) for r in recs]
    # one reproducer for every entry of the work list (its first run)
    by_index = {r["index"]: r for r in records}
    done = {ex["index"]: ex for exs in summary["examples"].values() for ex in exs}
    for item in work[:200]:
        ex = done.get(item["example"]) or _example(by_index[item["example"]])
        item["prefix"], item["reproducer"] = ex["prefix"], ex["reproducer"]
    return summary


def print_table(summary, file=sys.stdout):
    c = summary["counts"]
    print(f"\nolkit fuzz: {summary['runs']} runs in {summary['seconds']:.0f} s (seed {summary['seed']}), "
          f"magnitudes 1e{summary['exponent_range'][0]}..1e{summary['exponent_range'][1]}", file=file)
    print("  " + ", ".join(f"{k} {c[k]}" for k in OUTCOMES), file=file)
    cols = ("ok", "value_error") + FAILURES
    head = "".join(f"{k:>12}" for k in cols)
    print(f"  {'algorithm':<16}{head}", file=file)
    for alg, cnt in summary["by_algorithm"].items():
        print(f"  {alg:<16}" + "".join(f"{cnt.get(k, 0):>12}" for k in cols), file=file)
    print(f"  {'magnitude':<16}{head}", file=file)
    for b, cnt in summary["by_decade_bin"].items():
        print(f"  {b:<16}" + "".join(f"{cnt.get(k, 0):>12}" for k in cols), file=file)
    if summary["work_list"]:
        print("  failures by algorithm and kind (runs, magnitudes 1e..):", file=file)
        for w in summary["work_list"]:
            span = f"1e{w['exponents'][0]}..1e{w['exponents'][1]}"
            print(f"    {w['outcome']:<10} {w['algorithm']:<13} {w['runs']:>5}  {span}"
                  f"  {w['kind']}", file=file)
    acc = summary["acceptance"]
    print(f"  acceptance (issue 9): {acc['non_value_error_exceptions']} non-ValueError exceptions, "
          f"{acc['nonfinite_scores_or_model']} runs with NaN/inf scores or model, {acc['hangs_or_timeouts']} "
          f"hangs/timeouts; other property failures (invariants, chunks != one pass): "
          f"{acc['other_property_failures']}", file=file)
    acc = summary["acceptance_issue21"]
    print(f"  acceptance (issue 21, bounds checking {'on' if summary['boundscheck'] else 'OFF'}): "
          f"{acc['out_of_range_accesses']} out-of-range accesses, {acc['crashes']} crashes "
          f"({acc['workers_died']} workers died), {acc['nonfinite_scores_or_model']} NaN/inf; malformed sparse "
          f"streams refused {acc['malformed_sparse_refused']}/{acc['malformed_sparse_streams']}; "
          f"{acc['other_scipy_format_streams']} streams in other scipy formats", file=file)
    print(f"  failures: {summary['failures']}", file=file)


def bounds_checked():
    """Turn on numba's bounds checking for this process and the workers it starts (before numba is imported):
    an index outside an array in compiled code then raises IndexError (outcome *out_of_bounds*) instead of
    reading or writing memory the array does not own. The checked code is compiled into a cache directory of
    its own (olkit._compile keys it ``<hash>-boundscheck``; a ``NUMBA_CACHE_DIR`` set by the user gets the
    suffix here), never mixed with the normal cache."""
    if "numba" in sys.modules:
        raise RuntimeError("bounds checking must be set before numba is imported")
    os.environ["NUMBA_BOUNDSCHECK"] = "1"
    if os.environ.get("NUMBA_CACHE_DIR") and not os.environ["NUMBA_CACHE_DIR"].endswith("-boundscheck"):
        os.environ["NUMBA_CACHE_DIR"] += "-boundscheck"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20000, help="algorithm runs (default 20000)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--time-limit", type=float, default=600.0,
                        help="seconds per run before it counts as a timeout (default 600; a first attempt over the "
                             "limit, e.g. a first bounds-checked compile on a busy machine, is run once more)")
    parser.add_argument("--algorithms", default="", help="comma-separated algorithm names (default: all)")
    parser.add_argument("--exponents", default=f"{EXPONENTS[0]},{EXPONENTS[1]}",
                        help="magnitudes 10^e with e in LO,HI (default %(default)s)")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help="stream kinds: uniform (every row at 10^e), outlier-rows (a tenth of the rows at 10^e), "
                             "feature-scales (feature j at 10^(e+s_j), |s_j| <= 3), integer (small integers x 10^e); "
                             "default %(default)s")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help=f"summary JSON (default {DEFAULT_OUT})")
    parser.add_argument("--examples", type=int, default=5, help="reproducers kept per failure kind (default 5)")
    parser.add_argument("--replay", type=int, default=None, help="run one run index in this process and print it")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument("--round-robin", action="store_true",
                        help="take the algorithms in turn instead of at random (every one in the fewest runs)")
    parser.add_argument("--no-boundscheck", dest="boundscheck", action="store_false",
                        help="run the normally compiled code (default: numba's bounds checking on, with its own "
                             "compile cache; the first run compiles every loop again)")
    args = parser.parse_args(argv)
    if args.boundscheck:
        bounds_checked()
    if args.runs < 1 or args.jobs < 1:
        parser.error("--runs and --jobs must be >= 1")

    try:
        exponents = tuple(int(v) for v in args.exponents.split(","))
        assert len(exponents) == 2 and exponents[0] <= exponents[1]
    except (ValueError, AssertionError):
        parser.error(f"--exponents must be LO,HI (integers, LO <= HI), got {args.exponents!r}")

    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    if not kinds or set(kinds) - set(KINDS):
        parser.error(f"--kinds: choose among {', '.join(KINDS)}")

    from olkit import registry

    names = registry.names()
    if args.algorithms:
        chosen = [a.strip() for a in args.algorithms.split(",") if a.strip()]
        unknown = [a for a in chosen if a not in names]
        if unknown:
            parser.error(f"unknown algorithm(s) {', '.join(unknown)}; valid: {', '.join(names)}")
        names = chosen

    if args.replay is not None:
        case = sample_run(args.seed, args.replay, names, exponents, kinds, args.round_robin)
        rec = run_case(case, args.time_limit)
        print(json.dumps(rec, indent=1, default=str))
        print(reproducer(rec))
        return 0 if rec["outcome"] not in FAILURES else 1

    cases = [sample_run(args.seed, i, names, exponents, kinds, args.round_robin) for i in range(args.runs)]
    start = time.monotonic()
    records = run_all(cases, args.jobs, args.time_limit, progress=not args.quiet)
    seconds = time.monotonic() - start
    summary = summarise(records, args, seconds, args.examples)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=1, default=str) + "\n")
    print_table(summary)
    print(f"summary: {out}")
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
