"""The state of a linear (primal) online model and the protocol hooks that drive its compiled loop.

A :class:`LinearModel` serves two kinds of learners: the second-order learners of the SCW paper
(:mod:`olkit.learners.linear`) and the first-order kernel learners run with ``kernel="linear"``
(docs/dev/architecture.md#algorithm-and-parameter-names: a learner that has a primal form uses it). It holds

* ``W`` (d × n_outputs): the weights (mean μ), one column per output — one for binary data, one per
  class for multiclass data (multi-prototype), times a lazy global scale ``fst[WSCALE]``;
* the covariance: full ``S`` (n_outputs × d × d, block-diagonal across classes) or diagonal ``D``
  (n_outputs × d, times a lazy scale ``fst[CSCALE]``), initialised to a·I;
* the rule's parameters ``prm``, scalar state ``fst`` and the running counters ``cnt``.
"""

from collections import namedtuple

import numpy as np
import scipy.sparse as sp

from ...base import N_COUNTERS, all_finite
from .engine import (
    AUX,
    AVG_N,
    AVG_PENDING,
    AVG_Q,
    AVG_START,
    COV,
    CSCALE,
    DIAG_MODE,
    DIAGONAL,
    FULL,
    LIBOL,
    N_CFG,
    N_FST,
    NO_COV,
    WSCALE,
)

FULL_COVARIANCE_LIMIT_BYTES = 4 * 2**30
"""A full covariance larger than this is refused before anything is allocated (use "diagonal")."""

COVARIANCES = ("full", "diagonal")

LinearState = namedtuple("LinearState", ["prm", "fst", "cnt"])


def with_constant_column(X, c):
    """CSR X with a last column of constant c (sorted indices kept: the new index is the largest)."""
    n, d = X.shape
    indptr = X.indptr.astype(np.int64) + np.arange(n + 1, dtype=np.int64)
    indices = np.empty(X.nnz + n, dtype=np.int64)
    data = np.empty(X.nnz + n)
    last = indptr[1:] - 1  # each row's new entry is its last
    keep = np.ones(X.nnz + n, dtype=bool)
    keep[last] = False
    indices[keep], data[keep] = X.indices, X.data
    indices[last], data[last] = d, c
    return sp.csr_matrix((data, indices, indptr), shape=(n, d + 1))


def covariance_bytes(n_outputs, n_features):
    return 8 * n_outputs * n_features * n_features


def vector_bytes(rule, n_features, n_outputs, covariance=None, average=False):
    """Bytes of the d-sized arrays of a :class:`LinearModel` (all but a full covariance's d × d blocks): the
    weights W, the average's P, a diagonal covariance D and the work vectors u1, u2, as ``LinearModel.__init__``
    allocates them."""
    per_feature = n_outputs * (2 if average else 1)  # W (and P)
    if covariance == "diagonal":
        per_feature += n_outputs  # D
    if covariance == "full" or rule.block is not None:
        per_feature += 1  # u1
    if covariance == "full" and n_outputs > 1:
        per_feature += 1  # u2
    return 8 * per_feature * n_features


def primal_stream(y_internal, weights):
    """The stream of the linear loop: (labels in the internal coding as float64, the weight of each row)."""
    return np.ascontiguousarray(y_internal, dtype=np.float64), np.ascontiguousarray(weights, dtype=np.float64)


class LinearModel:
    """Weights, covariance and rule state of one linear learner (see the module docstring).

    Parameters
    ----------
    rule : the algorithm's :class:`.engine.PrimalRule` (its compiled pieces and decision).
    prm : the rule's parameter record (:mod:`olkit.learners.records`).
    aux : initial rule-specific scalar (ALMA's k, IELLIP's c).
    n_features, n_outputs : shape of the model (n_outputs = 1 for binary data).
    covariance : None (first-order), "full" or "diagonal"; a : initial covariance a·I.
    diag_mode : diagonal update form (0 inverse form, 1 NHERD "exact", 2 NHERD "drop").
    libol : count LIBOL's triggered rounds as updates.
    intercept : c > 0: the rows get a constant last feature c (``fit_intercept``, docs/algorithms/options.md); the
        model has n_features + 1 weights per output. 0: none.
    """

    def __init__(
        self,
        rule,
        prm,
        n_features,
        n_outputs,
        covariance=None,
        a=1.0,
        aux=0.0,
        diag_mode=0,
        libol=False,
        algorithm="",
        intercept=0.0,
        average_start=0,
    ):
        self.intercept = float(intercept)
        n_features += self.intercept != 0.0
        cov = {None: NO_COV, "full": FULL, "diagonal": DIAGONAL}[covariance]
        if cov == FULL:
            need = covariance_bytes(n_outputs, n_features)
            if need > FULL_COVARIANCE_LIMIT_BYTES:
                shape = (
                    f"{n_outputs} x {n_features} x {n_features}" if n_outputs > 1 else f"{n_features} x {n_features}"
                )
                raise ValueError(
                    f"covariance='full' for {algorithm or rule.name} on {n_features} features needs a {shape} "
                    f"matrix ({need / 2**30:.1f} GiB, more than the {FULL_COVARIANCE_LIMIT_BYTES / 2**30:.0f} "
                    f"GiB limit) and O(d²) time per update; use covariance='diagonal' (O(d) memory, O(nnz) "
                    f"per update)"
                )
        self.rule = rule
        self.covariance = covariance
        self.cfg = np.zeros(N_CFG, np.int64)
        self.cfg[COV] = cov
        self.cfg[DIAG_MODE] = diag_mode
        self.cfg[LIBOL] = int(bool(libol))
        self.cfg[AVG_START] = average_start
        fst = np.zeros(N_FST)
        fst[WSCALE] = 1.0
        fst[CSCALE] = 1.0
        fst[AUX] = aux
        self.state = LinearState(prm, fst, np.zeros(N_COUNTERS, np.int64))
        self.W = np.zeros((n_features, n_outputs))
        # the average's correction (docs/algorithms/options.md#average): Σ_t w_t = P + q·W
        self.P = np.zeros((n_features, n_outputs) if average_start else (0, 0))
        self.S = np.zeros((n_outputs, n_features, n_features) if cov == FULL else (0, 0, 0))
        if cov == FULL:
            for o in range(n_outputs):
                np.fill_diagonal(self.S[o], a)
        self.D = np.full((n_outputs, n_features), float(a)) if cov == DIAGONAL else np.zeros((0, 0))
        # work vectors: u = Σx for a full covariance, and SOP's A⁻¹x (a rule with a block of its own)
        self.u1 = np.zeros(n_features if cov == FULL or rule.block is not None else 0)
        self.u2 = np.zeros(n_features if cov == FULL and n_outputs > 1 else 0)
        self.fs = np.zeros(n_outputs)

    # ---- the protocol's hooks ---------------------------------------------------------------------
    def engine_input(self, X):
        """The stream as CSR (float64, sorted indices); dense rows become rows with their non-zeros. With an
        intercept every row gets the constant c as its last feature (once: rows that already have the model's
        width are engine input already)."""
        if sp.issparse(X):
            X = X.tocsr()
            if not X.has_sorted_indices:
                X = X.sorted_indices()
        else:
            X = sp.csr_matrix(np.asarray(X, dtype=np.float64))
        if self.intercept == 0.0 or X.shape[1] == self.W.shape[0]:
            return X
        return with_constant_column(X, self.intercept)

    def learn_block(self, X, stream, order, start, stop, scores, mistakes):
        """``stream``: (labels in the internal coding, weight of each row), see :func:`primal_stream`."""
        st = self.state
        y_internal, sw = stream
        self.rule.loop()(
            self.cfg,
            st.prm,
            st.fst,
            st.cnt,
            self.W,
            self.P,
            self.S,
            self.D,
            self.u1,
            self.u2,
            self.fs,
            X.indptr,
            X.indices,
            X.data,
            y_internal,
            sw,
            order,
            start,
            stop,
            scores,
            mistakes,
        )

    def _arrays(self):
        return (self.W, self.P, self.S, self.D, self.fs, self.state.fst, self.state.cnt)  # not the parameter record

    def save(self):
        """A copy of the model and the rule state (for undoing a refused round, see olkit.protocol)."""
        return [a.copy() for a in self._arrays()]

    def restore(self, saved):
        for a, b in zip(self._arrays(), saved):
            a[...] = b

    def is_finite(self):
        return all_finite(
            (self.W, self.P, self.S, self.D, self.fs, self.state.fst)
        )  # not the parameters (C = ∞ is valid)

    def warm_up(self, X, y_internal):
        """Load (or compile) the compiled loop before any timing starts (runs no example)."""
        stream = primal_stream(y_internal, np.ones(len(y_internal)))
        self.learn_block(X, stream, np.zeros(1, np.int64), 0, 0, np.empty((0, self.W.shape[1])), np.empty(0, np.int8))

    # ---- the model -----------------------------------------------------------------------------------
    def weights(self, average=False):
        """(n_outputs, d): the weight vectors (mean μ), or their average; for SOP the current w = A⁻¹v."""
        W = self.averaged_weights() if average else None
        return self.rule.weights(self) if W is None else W.T.copy()

    def covariance_matrix(self):
        """Full: (n_outputs, d, d); diagonal: (n_outputs, d) — the true Σ (scale applied)."""
        if self.covariance == "full":
            return self.S.copy()
        if self.covariance == "diagonal":
            return self.D * self.state.fst[CSCALE]
        return None

    def averaged_weights(self):
        """The averaged model (d × n_outputs): the mean of the models after each averaged round, (P + q'W)/N with
        the model after the last round added (docs/algorithms/options.md#average); None before the first
        averaged round (the last model is then the model, as in scikit-learn)."""
        fst = self.state.fst
        pending = fst[AVG_PENDING]
        n = fst[AVG_N] + pending
        if not self.P.shape[0] or n == 0.0:
            return None
        return (self.P + (fst[AVG_Q] + pending * fst[WSCALE]) * self.W) / n

    def decision(self, X, average=False):
        """Scores of the rows of X under the current model (or its average): (n,) binary, (n, n_outputs)
        multiclass."""
        W = self.averaged_weights() if average else None
        scores = self.rule.decision(self, self.engine_input(X), W)
        return scores[:, 0] if scores.ndim == 2 and scores.shape[1] == 1 else scores
