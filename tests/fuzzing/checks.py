"""The fuzz's checks of one run (``make fuzz``, tools/fuzz.py; tests/test_properties.py): what must hold
when an algorithm learns a random stream.

* one pass ``olkit.evaluate_online``: only ValueError may be raised (numba's IndexError under bounds
  checking: *out_of_bounds*; any other exception: *crash*);
* a malformed sparse stream: ``fit``, ``partial_fit``, ``evaluate_online``, ``predict`` and
  ``decision_function`` each raise a ValueError saying the matrix is not valid (else *invariant*);
* the per-round scores, the final ``decision_function`` and the model are finite (else *nonfinite*);
* invariants (else *invariant*): counts agree, score shapes, predictions among the classes, budgets
  (|S| ≤ B), a non-negative covariance diagonal;
* the same stream in 1–3 cuts (``partial_fit`` with ``classes``, then ``evaluate_online(reset=False)``) gives
  the one-pass run (else *chunked*), scores to :data:`RTOL` of their scale; a decision at a tie within that
  tolerance ends the comparison;
* a run slower than the time limit (twice: the first may be a first compile) is a *timeout*.

:func:`run_case` is one run with its record; tools/fuzz.py runs many in worker processes.
"""

import itertools
import math
import os
import signal
import threading
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .options import sample_weights
from .streams import build_stream

ROOT = Path(__file__).resolve().parents[2]

FAILURES = ("crash", "out_of_bounds", "nonfinite", "invariant", "chunked", "timeout", "hang")
OUTCOMES = ("ok", "value_error", "config_rejected") + FAILURES
NUMBA_OUT_OF_BOUNDS = "index is out of bounds"
"""The message of the IndexError that numba's bounds checking (NUMBA_BOUNDSCHECK=1) raises in compiled code."""
RTOL = 1e-9
"""Chunked vs one pass: scores equal to RTOL relative to the scale of the run's scores (the kernel tests'
tolerance: chunks differ from one pass only in the rounding of dot products)."""


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
        raise Finding(
            "nonfinite",
            f"NaN/inf in {what}",
            f"{what}: {bad.size} of {arr.size} values NaN/inf "
            f"(first at flat index {int(bad[0])}: {np.ravel(arr)[bad[0]]})",
            where=what,
            first=int(bad[0]),
        )


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
        out["sv_coef"] = np.asarray(support.coef[: support.n])
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


def check_one_pass(name, params, X, y, w=None):
    """One pass with every check (``w``: the examples' weights); returns (clf, result). Raises Finding or the
    learner's exception."""
    import olkit

    clf = olkit.make(name, **params)
    res = olkit.evaluate_online(clf, X, y, sample_weight=w)
    n = X.shape[0]
    scores = np.asarray(res.scores)
    _finite_check(scores, "online scores")
    if scores.shape[0] != n or len(res.mistake_flags) != n:
        raise Finding(
            "invariant", "score shape", f"scores shape {scores.shape}, {len(res.mistake_flags)} flags for {n} rounds"
        )
    flags = np.asarray(res.mistake_flags)
    if not set(np.unique(flags)) <= {0, 1} or int(flags.sum()) != res.mistakes or clf.n_mistakes_ != res.mistakes:
        raise Finding(
            "invariant",
            "mistake counts",
            f"mistakes {res.mistakes}, sum(flags) {int(flags.sum())}, n_mistakes_ {clf.n_mistakes_}",
        )
    if clf.n_seen_ != n:
        raise Finding("invariant", "n_seen_", f"n_seen_ {clf.n_seen_} after {n} rounds")
    for key, arr in model_arrays(clf).items():
        _finite_check(arr, f"model {key}")
        if key == "covariance":
            diag = np.diagonal(arr, axis1=-2, axis2=-1) if np.ndim(arr) == 3 else arr
            if np.any(diag < 0):
                raise Finding(
                    "invariant",
                    "negative covariance diagonal",
                    f"negative covariance diagonal entry {float(diag.min())}",
                )
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
            raise Finding(
                "invariant", "predictions not labels", f"multi-label predictions of shape {pred.shape} not a 0/1 matrix"
            )
    elif not set(pred.tolist()) <= set(np.asarray(clf.classes_).tolist()):
        raise Finding(
            "invariant",
            "predictions not labels",
            f"predictions {sorted(set(pred.tolist()) - set(clf.classes_.tolist()))!r} not among the classes",
        )
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
            value = np.max(np.abs(K) @ np.abs(np.asarray(sv.coef[: sv.n], dtype=float)))
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


def check_chunks(name, params, X, y, cuts, one, one_dec, cond=0.0, w=None):
    """The stream fed in chunks equals the one-pass run. Returns "tie" when the two runs part at a decision
    tied within rounding (then nothing after it is compared), else None."""
    import olkit

    multilabel = np.ndim(y) == 2

    clf = olkit.make(name, **params)
    edges = [0, *[c for c in cuts if 0 < c < X.shape[0]], X.shape[0]]
    classes = None if np.ndim(y) == 2 else np.unique(y)
    first = edges[1]
    clf.partial_fit(X[:first], y[:first], classes=classes, sample_weight=_part(w, 0, first))
    one_flags = np.asarray(one.mistake_flags)
    if clf.n_mistakes_ != int(one_flags[:first].sum()):
        raise Finding(
            "chunked",
            "mistakes of the first chunk differ",
            f"partial_fit(X[:{first}]): {clf.n_mistakes_} mistakes, one pass {int(one_flags[:first].sum())}",
            chunk=[0, first],
        )
    scale = max(_scale(one.scores), _scale(one_dec), cond, 1e-300)
    tol = RTOL * scale
    for lo, hi in itertools.pairwise(edges[1:]):
        res = olkit.evaluate_online(clf, X[lo:hi], y[lo:hi], reset=False, sample_weight=_part(w, lo, hi))
        got, want = np.asarray(res.scores), np.asarray(one.scores)[lo:hi]
        if got.shape != want.shape:
            raise Finding(
                "chunked",
                "score shape differs",
                f"scores of chunk {lo}:{hi} have shape {got.shape}, one pass {want.shape}",
                chunk=[lo, hi],
            )
        differ = np.flatnonzero(np.asarray(res.mistake_flags) != one_flags[lo:hi])
        close = np.isclose(got, want, rtol=RTOL, atol=tol)
        close = close.all(axis=1) if close.ndim == 2 else close
        bad_score = np.flatnonzero(~close)
        first_flag = int(differ[0]) if differ.size else hi
        first_score = int(bad_score[0]) if bad_score.size else hi
        if first_score < first_flag:
            i = first_score
            raise Finding(
                "chunked",
                "a score differs",
                f"score of round {lo + i} differs: one pass {_fmt(want[i])}, chunks {_fmt(got[i])} (scale {scale:.3g})",
                chunk=[lo, hi],
                round=lo + i,
            )
        if differ.size:
            i = first_flag
            if _near_tie(want[i], tol, multilabel) and _near_tie(got[i], tol, multilabel):
                return "tie"  # a decision at a tie within rounding: the two runs legitimately part here
            raise Finding(
                "chunked",
                "a mistake flag differs (not at a tie)",
                f"mistake flag of round {lo + i} differs: scores one pass {_fmt(want[i])}, chunks {_fmt(got[i])}",
                chunk=[lo, hi],
                round=lo + i,
            )
    dec = np.asarray(clf.decision_function(X))
    if not np.allclose(dec, one_dec, rtol=RTOL, atol=tol, equal_nan=True):
        i = int(np.argmax(np.abs(dec - one_dec).reshape(len(dec), -1).max(axis=1)))
        raise Finding(
            "chunked",
            "final decision_function differs",
            f"final decision_function of row {i} differs: one pass {_fmt(one_dec[i])}, chunks {_fmt(dec[i])} "
            f"(scale {scale:.3g})",
            row=i,
        )
    if clf.n_mistakes_ != one.mistakes or clf.n_updates_ != one.n_updates:
        raise Finding(
            "chunked",
            "update counts differ (flags and scores agree)",
            f"counts: chunks {clf.n_mistakes_} mistakes / {clf.n_updates_} updates, one pass "
            f"{one.mistakes} / {one.n_updates}",
        )


def _chunks_comparable(name, params):
    """Chunks equal one pass unless a default depends on the length of the first data given and is left to it
    (:attr:`olkit.spec.Sweep.length_dependent`: POMDR's B0 and a, documented)."""
    from olkit import registry

    return all(params.get(p) is not None for p in registry.spec(name).sweep.length_dependent)


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
    return outcome, {
        "kind": f"{type(exc).__name__} at {where}",
        "type": type(exc).__name__,
        "message": first_line,
        "traceback": _short_tb(exc),
        "phase": phase,
    }


def _sliceable(X):
    """``X`` in a form that can be cut into chunks (other scipy formats as CSR)."""
    return X if not sp.issparse(X) or X.format in ("csr", "csc", "lil") else sp.csr_matrix(X)


def _part(w, lo, hi):
    return None if w is None else w[lo:hi]


def evaluate_run(name, params, X, y, cuts, w=None):
    """(outcome, info) of one run on (X, y) with weights ``w`` (None: unweighted): the checks of this module,
    exceptions classified."""
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
            clf, one, dec = check_one_pass(name, params, X, y, w)
        except Finding as f:
            return f.outcome, {"message": f.message, **f.detail}
        except ValueError as exc:
            info = {"message": str(exc)}
            # the same ValueError is expected when the stream is fed in chunks
            try:
                check_chunks_error(name, params, Xc, y, cuts, w)
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
                if check_chunks(name, params, Xc, y, cuts, one, dec, condition_scale(clf, Xc), w) == "tie":
                    info["chunks_parted_at_tie"] = True
            except Finding as f:
                return f.outcome, {"message": f.message, **f.detail}
            except ValueError as exc:
                return "chunked", {
                    "kind": "ValueError in chunks only",
                    "message": f"chunks raised ValueError, one pass did not: {exc}",
                }
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
    calls = {
        "fit": lambda: olkit.make(name, **params).fit(X, y),
        "partial_fit": lambda: olkit.make(name, **params).partial_fit(X, y, classes=classes),
        "evaluate_online": lambda: olkit.evaluate_online(olkit.make(name, **params), X, y),
    }
    if fitted is not None:
        calls.update(predict=lambda: fitted.predict(X), decision_function=lambda: fitted.decision_function(X))
    messages = {}
    for entry, call in calls.items():
        try:
            call()
        except ValueError as exc:
            messages[entry] = str(exc)
            if "not a valid" not in str(exc):
                return "invariant", {
                    "kind": f"malformed sparse input: another ValueError in {entry}",
                    "message": f"{entry}: {exc}",
                }
            continue
        except RunTimeout:
            raise
        except Exception as exc:  # noqa: BLE001
            return _crash(exc, entry)
        return "invariant", {
            "kind": f"malformed sparse input accepted by {entry}",
            "message": f"{entry} accepted a matrix with the defect {desc['malformed']}",
        }
    return "value_error", {"message": next(iter(messages.values()))}


def check_chunks_error(name, params, X, y, cuts, w=None):
    """One pass raised ValueError: so must the chunked stream (at some chunk)."""
    import olkit

    clf = olkit.make(name, **params)
    edges = [0, *[c for c in cuts if 0 < c < X.shape[0]], X.shape[0]]
    classes = None if np.ndim(y) == 2 else np.unique(y)
    try:
        clf.partial_fit(X[: edges[1]], y[: edges[1]], classes=classes, sample_weight=_part(w, 0, edges[1]))
        for lo, hi in itertools.pairwise(edges[1:]):
            olkit.evaluate_online(clf, X[lo:hi], y[lo:hi], reset=False, sample_weight=_part(w, lo, hi))
    except ValueError:
        return
    raise Finding("chunked", "ValueError in one pass only", "one pass raised ValueError, the chunked stream ran")


# ---------------------------------------------------------------------------------------------------------
# One run with its record, under a soft time limit (SIGALRM in the main thread)
# ---------------------------------------------------------------------------------------------------------
def _alarm(signum, frame):
    raise RunTimeout()


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
            w = sample_weights(case.get("weights"), X.shape[0])
            outcome, info = evaluate_run(case["algorithm"], case["params"], X, y, case["cuts"], w)
    except RunTimeout:
        outcome, info = "timeout", {"kind": "time limit", "message": f"no result after {time_limit} s"}
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    seconds = time.perf_counter() - start
    if outcome != "timeout" and time_limit and seconds > time_limit:
        outcome, info = (
            "timeout",
            {"kind": "time limit", "message": f"took {seconds:.1f} s (limit {time_limit} s)", "was": outcome},
        )
    return {**case, "outcome": outcome, "info": info, "seconds": round(seconds, 4)}
