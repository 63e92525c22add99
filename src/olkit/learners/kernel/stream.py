"""The in-memory stream record of the kernel learners' compiled loops: :data:`Stream`, the data kinds and
:func:`make_stream`, which packs validated data (dense rows or CSR, labels in the learner's internal coding)
into it. A sparse stream is never densified."""

from collections import namedtuple

import numpy as np
import scipy.sparse as sp

Stream = namedtuple("Stream", ["X", "indptr", "indices", "data", "norm2", "y", "Y", "info", "kp", "work", "sw"])
"""An in-memory stream as the compiled code sees it: dense ``X`` (n × d) or CSR arrays, squared row
norms, labels in the learner's internal coding (``y``: binary ±1 or the class index; ``Y``: the n × K
0/1 label-set matrix of multiclass and multi-label data), ``info`` = [data kind, K, average start] (the
example count from which the rounds are averaged, 0: no average; docs/algorithms/options.md#kernel-learners),
kernel parameters, a length-d scatter buffer and the weight of each row (``sw``,
docs/algorithms/options.md#weights: a rule reads ``s.sw[t]``; the loop never passes a round of weight 0 to it).

A dense stream has None for the CSR arrays and the scatter buffer (``indptr``, ``indices``, ``data``, ``work``), as a
support set of dense SVs has for its pool of non-zeros (:data:`~olkit.learners.kernel.support_set.SVArrays`): the
stream's storage follows the support set's (``KernelLearner._engine_input``), so the branches that read them are
those numba leaves out of a dense run."""

BINARY, MULTICLASS, MULTILABEL = 0, 1, 2
"""Data kinds (``Stream.info[0]``)."""


def make_stream(X, y_internal, kp, n_outputs=1, average_start=0, weights=None):
    """Pack validated data (dense float64 C array or CSR) for the compiled loop.

    ``y_internal``: binary ±1 labels, class indices (multiclass, ``n_outputs`` = K classes) or an n × K
    0/1 matrix (multi-label). ``average_start``: the learner's ``_average_start()`` (0: no average).
    ``weights``: the weight of each row (None: all 1).
    """
    from ...kernels import row_norms2

    norm2 = row_norms2(X)
    y_internal = np.asarray(y_internal)
    if y_internal.ndim == 2:
        kind, Y = MULTILABEL, np.ascontiguousarray(y_internal, dtype=np.int8)
        y = np.zeros(Y.shape[0])
    elif n_outputs > 1:
        kind, y = MULTICLASS, np.ascontiguousarray(y_internal, dtype=np.float64)
        Y = np.zeros((y.shape[0], n_outputs), np.int8)
        Y[np.arange(y.shape[0]), y.astype(np.int64)] = 1
    else:
        kind, y, Y = BINARY, np.ascontiguousarray(y_internal, dtype=np.float64), np.zeros((0, 1), np.int8)
    info = np.array([kind, n_outputs, average_start], np.int64)
    sw = np.ones(norm2.shape[0]) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    if sp.issparse(X):
        X = X.tocsr()
        return Stream(
            np.empty((0, X.shape[1])),
            X.indptr.astype(np.int64),
            X.indices.astype(np.int64),
            X.data.astype(np.float64),
            norm2,
            y,
            Y,
            info,
            kp,
            np.zeros(X.shape[1]),
            sw,
        )
    return Stream(np.ascontiguousarray(X, dtype=np.float64), None, None, None, norm2, y, Y, info, kp, None, sw)
