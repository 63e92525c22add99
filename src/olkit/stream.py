"""Out-of-core online learning: the online protocol over a stream of chunks (issue 10, item 6).

:func:`evaluate_stream` runs the predict-then-update protocol of :func:`olkit.protocol.evaluate_online`
over ``(X_chunk, y_chunk)`` pairs (e.g. from :func:`olkit.data.iter_libsvm`) in the order given, each chunk
continuing the learner's stream (``reset=False`` semantics after the first), with the same per-chunk
function (:func:`olkit.protocol.run_online`): the mistakes, updates and final model are those of one
in-memory pass in file order. Only the current chunk and the model are in memory (the mistake-rate curve is
filled checkpoint by checkpoint, not from per-example flags).

The classes must be known before the first chunk (a binary learner's -1/+1 coding depends on both labels):
pass ``classes`` (``olkit run --stream`` takes them from the scanning pass that also finds the width).
"""

import time

import numpy as np

from .protocol import OnlineResult, checkpoints, run_online, serialised
from .weights import example_weights

__all__ = ["evaluate_libsvm_stream", "evaluate_stream"]


@serialised
def evaluate_stream(
    learner, chunks, classes, *, reset=True, n_examples=None, n_checkpoints=20, order_label="file order (streamed)"
):
    """Run ``learner`` online over the ``(X, y)`` pairs of ``chunks``, from an empty model (``reset=False``:
    continuing the learner's current stream, if it has one).

    ``classes``: every label of the stream (fixes the label set up front, as ``partial_fit(classes=...)``).
    Returns an :class:`~olkit.protocol.OnlineResult` whose ``scores`` and ``mistake_flags`` are empty (not
    kept: they grow with the stream) and whose ``seconds`` count learning time only (not reading or parsing).
    The mistake-rate curve needs the stream's length up front (``n_examples``, e.g. from
    :func:`olkit.data.scan_libsvm`); without it the curve is empty.
    """
    learner._validate_params()
    new = reset or not hasattr(learner, "classes_")
    seconds, n, first = 0.0, 0, True
    ck = checkpoints(n_examples, n_checkpoints) if n_examples else np.empty(0, np.int64)
    at_ck = np.zeros(len(ck), np.int64)  # cumulative mistakes at each checkpoint, filled chunk by chunk
    mistakes = 0
    before = None
    for X, y in chunks:
        X = learner._validate_X(X, reset=first and new)
        y = learner._validate_y(y, X.shape[0])
        if first and new:
            learner._set_classes(y, classes)
            learner._reset_model(X)
        y_internal = learner._encode_labels(y)
        X = learner._engine_input(X)
        if first:
            learner._warm_up(X, y_internal)
            before = learner._counts()
            first = False
        start = time.perf_counter()
        weights = example_weights(learner, y, None, whole_stream=False)  # class_weight (a dict: per chunk)
        _, flags = run_online(learner, X, y_internal, np.arange(X.shape[0]), weights)
        seconds += time.perf_counter() - start
        inside = (ck > n) & (ck <= n + len(flags))
        at_ck[inside] = mistakes + np.cumsum(flags, dtype=np.int64)[ck[inside] - n - 1]
        mistakes += int(flags.sum())
        n += X.shape[0]
    if first:
        raise ValueError("the stream holds no examples")
    after = learner._counts()
    keep = ck <= n
    return OnlineResult(
        algorithm=learner.algorithm_name,
        params=learner.resolved_params(),
        n_examples=n,
        mistakes=mistakes,
        mistake_rate=mistakes / n,
        n_updates=int(after[2] - before[2]),
        n_sv=learner.n_support_,
        seconds=seconds,
        curve_x=ck[keep],
        curve_y=at_ck[keep] / ck[keep],
        scores=np.empty(0),
        mistake_flags=np.empty(0, np.int8),
        diagnostics=learner.diagnostics(),
        order=order_label,
    )


def evaluate_libsvm_stream(
    learner, path, chunk_size=100_000, n_features=None, classes=None, reset=True, n_examples=None, zero_based=False
):
    """:func:`evaluate_stream` over a LIBSVM file read in chunks (:func:`olkit.data.iter_libsvm`).

    Unless both ``n_features`` and ``classes`` are given, a first scanning pass (bounded memory) finds them
    (and the length, for the curve; else give ``n_examples``). ``zero_based``: the file's feature indices,
    as in :func:`olkit.data.read_libsvm` (``"auto"`` is resolved by the scanning pass). Returns (result,
    info) with info = {"n_examples", "n_features", "labels"}.
    """
    from .data.libsvm import iter_libsvm, scan_libsvm

    if n_features is None or classes is None or zero_based == "auto":
        info = scan_libsvm(path, chunk_size, zero_based)
        n_features = n_features or info["n_features"]
        classes = info["labels"] if classes is None else classes
        n_examples = info["n_examples"]
        zero_based = info["zero_based"]
    info = {"n_features": n_features, "labels": np.unique(np.asarray(classes))}
    res = evaluate_stream(
        learner,
        iter_libsvm(path, chunk_size, n_features=n_features, zero_based=zero_based),
        classes,
        reset=reset,
        n_examples=n_examples,
    )
    info["n_examples"] = res.n_examples
    return res, info
