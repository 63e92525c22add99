"""The online protocol: the one predict-then-update loop, and its result.

For t = 1..T the learner sees x_t, predicts with the model of round t−1 (ŷ_t = +1 iff f(x_t) ≥ 0), is
told y_t, and updates. A mistake is ŷ_t ≠ y_t; the online mistake rate is #mistakes / T.

The stream is processed in blocks: for each block the learner's engine does the vectorisable work once
(for kernel learners, the dot products of the block's examples with the current support vectors in one
BLAS product), then a compiled loop runs the examples of the block one by one. Python only runs once
per block, never per example. The same loop serves ``fit``, ``partial_fit`` and
:func:`evaluate_online`, so a stream fed in chunks gives the result of one pass: the same decisions, and
scores equal up to the rounding of dot products (~1e-14 of Σ|terms|: entries from the block's BLAS product
and from the compiled loop are summed in different orders). "Up to rounding" is the whole exception: the
runs part only where that rounding decides (a decision tied in exact arithmetic; a solve or a score whose
terms cancel, e.g. a near-singular Projectron Gram matrix; a sum within a few decades of float64's
overflow, refused on one path). The Gaussian kernel of near pairs, where the rounding used to be large, is
computed from the differences (:data:`olkit.kernels.NEAR`). ``make fuzz`` counts the rest.
"""

import functools
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import scipy.sparse as sp

from .weights import check_sample_weight, example_weights

if TYPE_CHECKING:
    from ._typing import ArrayLike, MatrixLike
    from .base import OnlineClassifier

BLOCK_SIZE = 256
"""Examples per block of the kernel learners: large enough for BLAS-3 efficiency, small enough that the
entries for SVs added inside a block (computed one by one) stay a small fraction of the work. A learner
may choose its own (``_block_size``; the linear learners use much larger blocks)."""


@functools.cache
def _blas_controller():
    """One threadpoolctl controller per process (discovering the BLAS libraries costs milliseconds)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread():
    """Context in which BLAS uses one thread. The per-block products are small, and with 2 cores threaded
    BLAS inside a per-step loop is much slower; parallelism comes from running repeats in separate
    processes."""
    return _blas_controller().limit(limits=1)


_LOCKS: weakref.WeakKeyDictionary[object, threading.RLock] = weakref.WeakKeyDictionary()
"""{learner: its lock} (see :func:`learner_lock`): outside the learner, so that nothing that copies or saves a
learner (pickle, joblib, ``copy.deepcopy``, ``sklearn.clone``, :func:`olkit.save`) ever meets a lock."""
_LOCKS_GUARD = threading.Lock()


def learner_lock(learner):
    """The learner's own re-entrant lock, created on first use.

    Every call that reads or changes a learner's model (``fit``, ``partial_fit``, ``predict``,
    ``decision_function``, ``score``, ``set_params``, :func:`evaluate_online`, :func:`run_online`,
    :func:`olkit.save`) holds it from start to end: calls on one learner from several threads run one at a
    time, whole, in some order (the compiled loops release the GIL, so two of them on one model would
    otherwise write the same arrays at once). Copies of a learner have locks of their own; an object that is not
    a learner (no weak reference to it can be made) gets a lock of its own, and the call refuses it."""
    try:
        lock = _LOCKS.get(learner)  # without the guard: a dictionary look-up is atomic
    except TypeError:
        return threading.RLock()
    if lock is None:
        with _LOCKS_GUARD:  # two threads creating the first lock of one learner: one wins
            lock = _LOCKS.get(learner)
            if lock is None:
                lock = _LOCKS[learner] = threading.RLock()
    return lock


_Function = TypeVar("_Function", bound=Callable[..., Any])


def serialised(function: _Function) -> _Function:
    """Decorator: ``function(learner, ...)`` runs holding :func:`learner_lock` of its first argument."""

    @functools.wraps(function)
    def locked(learner, *args, **kwargs):
        with learner_lock(learner):
            return function(learner, *args, **kwargs)

    return locked  # type: ignore[return-value]  # functools.wraps keeps the signature


@serialised
def run_online(learner, X, y_internal, order, weights=None):
    """Run the protocol over ``X[order]`` with the learner's current state.

    Returns (scores, mistakes): the score f_t(x_t) before each update and a 0/1 mistake flag, in stream
    order. ``y_internal`` holds labels in the learner's internal coding; ``weights`` the weight of each row of
    X (``olkit.weights.example_weights``; None: all 1).
    """
    if weights is None:
        weights = np.ones(X.shape[0])
    order = np.ascontiguousarray(order, dtype=np.int64)
    X = learner._engine_input(X)
    columns = learner._score_columns()
    scores = np.empty((len(order), columns)) if columns > 1 else np.empty(len(order))
    mistakes = np.zeros(len(order), np.int8)
    stream = learner._make_stream(X, y_internal, np.ascontiguousarray(weights, dtype=np.float64))
    scores_view = scores.reshape(len(order), 1) if learner._score_columns_2d and columns == 1 else scores
    with one_blas_thread():
        block = learner._block_size or BLOCK_SIZE
        span = max(block, CHECK_EVERY)
        for start in range(0, len(order), span):
            _learn_refusing_nonfinite(
                learner, stream, X, order, start, min(start + span, len(order)), block, scores_view, mistakes
            )
            if _SPAN_HOOK is not None:  # progress (olkit.progress.example_bar): once per span, never per example
                _SPAN_HOOK(min(span, len(order) - start))
    return scores, mistakes


_SPAN_HOOK = None
"""Called with the number of rounds after each span of :func:`run_online` when set (the command line's
progress bar, :func:`olkit.progress.example_bar`); None otherwise."""


CHECK_EVERY = 4096
"""Rounds between two copies of the learner's state (see :func:`_learn_refusing_nonfinite`): the copy and
the model check cost O(model) each, here below 1 % of the learning time; a refused round costs a replay of
at most this many rounds."""


class UnlearnableExample(ValueError):
    """A round whose score or update is not finite in float64 (NaN or infinity): the example is refused
    and the model is left as it was before it. ``index`` is its row in X, ``position`` its place in the
    pass (0-based; the examples before it were learned)."""

    def __init__(self, message, index, position):
        super().__init__(message)
        self.index, self.position = index, position


NUMERIC_FAILURES = (ArithmeticError, np.linalg.LinAlgError)
"""What a compiled rule raises when its arithmetic fails (e.g. a division by zero)."""


def _learn_refusing_nonfinite(learner, stream, X, order, start, stop, block, scores, mistakes):
    """Positions start..stop-1 in blocks, never letting NaN or infinity into the model (never a silent
    wrong number).

    The learner's state is copied first (``_save_model``: what the rounds can change); the scores are
    checked after each block and the model at the end. If either is not finite, or a rule raised an
    arithmetic error, the copy is restored and the rounds are replayed one at a time to find the first
    that fails: the rounds before it are learned, the model is put back to the state before it, and
    :class:`UnlearnableExample` names it.
    """
    saved = learner._save_model()
    failure = None
    for lo in range(start, stop, block):
        failure = _learn_checked(
            learner, stream, X, order, lo, min(lo + block, stop), scores, mistakes, check_model=lo + block >= stop
        )
        if failure is not None:
            break
    if failure is None:
        return
    learner._restore_model(saved)
    for pos in range(start, stop):
        saved = learner._save_model()
        failure = _learn_checked(learner, stream, X, order, pos, pos + 1, scores, mistakes, check_model=True)
        if failure is not None:
            learner._restore_model(saved)
            raise _refusal(learner, X, order, pos, failure)


def _learn_checked(learner, stream, X, order, start, stop, scores, mistakes, check_model):
    """Learn positions start..stop-1; None if the scores (and with ``check_model`` the model) are finite,
    else the reason."""
    try:
        learner._learn_block(stream, X, order, start, stop, scores, mistakes)
    except NUMERIC_FAILURES as exc:
        return f"its update failed ({type(exc).__name__}: {exc})"
    if not np.isfinite(scores[start:stop]).all():
        return "its score is NaN or infinite"
    if check_model and not learner._model_is_finite():
        return "its update would put NaN or infinity into the model"
    return None


def _refusal(learner, X, order, pos, reason):
    index = int(order[pos])
    row = X[index]
    values = np.abs(row.data if sp.issparse(row) else row)
    nonzero = values[values > 0]
    if nonzero.size == 0:
        scale = "It is a zero row."
    else:
        low, high = nonzero.min(), nonzero.max()
        scale = f"Its non-zero feature magnitudes are {low:.3g}..{high:.3g}"
        scale += (
            ": values that far from 1 overflow or underflow this learner's arithmetic; rescale the features "
            "(e.g. sklearn.preprocessing.MaxAbsScaler) or drop the example."
            if high > 1e50 or low < 1e-50
            else "."
        )
    return UnlearnableExample(
        f"{learner.algorithm_name}: cannot learn example {index} (round {pos + 1} of this pass; the rounds before it "
        f"were learned): {reason} in float64. The model is as it was before this example. {scale}",
        index,
        pos,
    )


@dataclass
class OnlineResult:
    """What one online run measured (docs/dev/architecture.md#the-olkit-run-command, the ``runs`` entries).

    ``curve_x`` are checkpoints (number of examples seen) and ``curve_y`` the cumulative mistake rate
    at each, as in the papers' online-curve figures; ``scores`` are the per-round scores f_t(x_t) and
    ``mistake_flags`` the per-round mistakes, in stream order.
    """

    algorithm: str
    params: dict
    n_examples: int
    mistakes: int
    mistake_rate: float
    n_updates: int
    n_sv: int
    seconds: float
    curve_x: np.ndarray
    curve_y: np.ndarray
    scores: np.ndarray = field(repr=False)
    mistake_flags: np.ndarray = field(repr=False)
    diagnostics: dict = field(default_factory=dict)
    order: str = ""

    def to_dict(self):
        """The JSON form of a run (without the per-round arrays)."""
        out = {
            "order": self.order,
            "mistakes": self.mistakes,
            "mistake_rate": self.mistake_rate,
            "n_updates": self.n_updates,
            "n_sv": self.n_sv,
            "seconds": self.seconds,
        }
        if self.diagnostics:
            out["diagnostics"] = self.diagnostics
        return out


def checkpoints(n, count=20):
    """``count`` evenly spaced checkpoints 1..n (at least 15 when n allows, always ending at n)."""
    pts = np.unique(np.ceil(np.linspace(n / count, n, count)).astype(np.int64))
    return pts[pts >= 1]


@serialised
def evaluate_online(
    learner: "OnlineClassifier",
    X: "MatrixLike",
    y: "ArrayLike",
    order: "ArrayLike | None" = None,
    *,
    sample_weight: "ArrayLike | None" = None,
    reset: bool = True,
    n_checkpoints: int = 20,
    order_label: str | None = None,
) -> "OnlineResult":
    """Run ``learner`` online over (X, y) and measure it.

    Parameters
    ----------
    learner : an olkit learner (e.g. ``olkit.make("duol")``).
    X : array (n, d) or scipy sparse matrix; y : labels (n,).
    order : an ordering of the examples, each 0-based index once (:func:`check_order`; default: file order);
        the stream is ``X[order]``.
    sample_weight : a weight >= 0 per row of X (None: all 1), multiplied by the learner's ``class_weight``
        (docs/algorithms/options.md#weights); a row of weight 0 is predicted and counted, not learned.
    reset : start from an empty model (default) or continue the learner's current stream.
    n_checkpoints : points of the cumulative mistake-rate curve.

    Returns
    -------
    OnlineResult. ``seconds`` is learning time only: validation and compilation happen before the clock
    starts.
    """
    learner._validate_params()
    first = reset or not hasattr(learner, "classes_")
    X = learner._validate_X(X, reset=first)
    y = learner._validate_y(y, X.shape[0])
    if order is None:
        order = np.arange(X.shape[0])
    order = check_order(order, X.shape[0])
    check_sample_weight(sample_weight, X.shape[0], learner.algorithm_name)  # before the model is reset
    if first:
        learner._set_classes(y)
        learner._reset_model(X)
    y_internal = learner._encode_labels(y)
    weights = example_weights(learner, y, sample_weight, whole_stream=first)
    X = learner._engine_input(X)  # storage conversion (e.g. small CSR -> dense) is not learning time
    learner._warm_up(X, y_internal)
    before = learner._counts()
    start = time.perf_counter()
    scores, flags = run_online(learner, X, y_internal, order, weights)
    seconds = time.perf_counter() - start
    after = learner._counts()
    n = len(order)
    mistakes = int(flags.sum())
    ck = checkpoints(n, n_checkpoints)
    cum = np.cumsum(flags, dtype=np.int64)
    return OnlineResult(
        algorithm=learner.algorithm_name,
        params=learner.resolved_params(),
        n_examples=n,
        mistakes=mistakes,
        mistake_rate=mistakes / n if n else 0.0,
        n_updates=int(after[2] - before[2]),
        n_sv=learner.n_support_,
        seconds=seconds,
        curve_x=ck,
        curve_y=cum[ck - 1] / ck if n else np.empty(0),
        scores=scores,
        mistake_flags=flags,
        diagnostics=learner.diagnostics(),
        order=order_label or "",
    )


def _some_indices(indices, limit=5):
    """ "3, 7" or "3, 7, 9, 10, 11, ... (40 in all)"."""
    shown = ", ".join(map(str, indices[:limit].tolist()))
    return shown + (f", ... ({len(indices)} in all)" if len(indices) > limit else "")


def check_order(order, n: int, what: str = "order") -> np.ndarray:
    """``order`` as int64 indices, refused with a ValueError unless it is an ordering of the ``n`` examples:
    a 1-D sequence of integer (or integral float) 0-based indices in which each of 0..n-1 appears exactly
    once. The one rule of :func:`evaluate_online` (``order=``) and of ``olkit run/tune --order FILE`` (which
    names the file in ``what``); an example never repeats, and none is left out (a subset of the examples is
    taken by slicing ``X`` and ``y``)."""
    order = np.asarray(order)
    if order.ndim != 1 or order.size == 0:
        raise ValueError(f"{what} must be a non-empty 1-D sequence of example indices, got shape {order.shape}")
    if order.dtype.kind not in "iu":
        if order.dtype.kind == "f" and np.all(np.isfinite(order)) and np.all(order == np.round(order)):
            order = order.astype(np.int64)
        else:
            raise ValueError(f"{what} must hold integer (0-based) example indices, got dtype {order.dtype}")
    order = order.astype(np.int64)
    inside = (order >= 0) & (order < n)
    counts = np.bincount(order[inside], minlength=n)
    problems = [
        (f"outside 0..{n - 1}", np.unique(order[~inside])),
        ("duplicated", np.flatnonzero(counts > 1)),
        ("missing", np.flatnonzero(counts == 0)),
    ]
    found = [f"{kind}: {_some_indices(indices)}" for kind, indices in problems if indices.size]
    if found:
        raise ValueError(
            f"{what} is not an ordering of the {n} examples: indices {'; '.join(found)} "
            f"(each 0-based index 0..{n - 1} must appear exactly once)"
        )
    return order
