"""Common machinery of the kernel learners: kernel parameters, support set, compiled block step."""
from collections import namedtuple

import numpy as np
import scipy.sparse as sp

from ...base import EPS, OnlineClassifier, check_number  # noqa: F401  (EPS: re-exported for the rules)
from ...kernels import KernelSpec, row_norms2
from ..linear.base import LINEAR_BLOCK_SIZE, PrimalHooks
from ..linear.model import LinearModel
from .support_set import SupportSet, make_stream

RuleState = namedtuple("RuleState", ["prm", "fst", "cnt", "rng"])
"""State of an update rule as the compiled code sees it: parameters ``prm``, scalar state ``fst``
(e.g. ROMMA's ‖w‖²), counters ``cnt`` and the random generator state ``rng``."""

# counter slots: examples seen, mistakes, updates, then algorithm diagnostics
SEEN, MISTAKES, UPDATES, DIAG = 0, 1, 2, 3
N_COUNTERS = 8

DENSE_MAX_FEATURES = 2000
DENSE_MIN_DENSITY = 0.1
DENSE_MAX_BYTES = 200 * 2**20


def dense_is_cheap(X):
    """Store a sparse stream densely? Only when it is low-dimensional, not very sparse and small.

    Dense rows let every kernel row come from BLAS; on german (24 features) dense is 3x faster than
    CSR. High-dimensional sparse data (dorothea: 100,000 features, 1% dense; w7a: 4%) stay sparse.
    """
    n, d = X.shape
    density = X.nnz / max(n * d, 1)
    return d <= DENSE_MAX_FEATURES and density >= DENSE_MIN_DENSITY and n * d * 8 <= DENSE_MAX_BYTES




class KernelLearner(PrimalHooks, OnlineClassifier):
    """Base class of support-vector learners f(·) = Σ_i a_i κ(x_i, ·).

    Subclasses set ``_rule`` (the name of their compiled update rule in :mod:`.engine`) and provide
    ``_rule_params`` / ``_initial_fst``. ``_gram`` says whether the rule reads SV–SV kernel values:
    "none", "cache" (always keep the SV Gram cache) or "bounded" (keep it up to
    SupportSet.GRAM_LIMIT_BYTES, then compute rows on demand; measured: the cache is 1.2–1.8x faster
    than on-demand rows on w7a and dorothea).
    """

    _rule = None
    _gram = "none"
    _pair = False  # keep the SV-pair matrix (kernel SCW's π)
    _linear_rule = None
    """Name of the primal rule (:mod:`olkit.learners.linear.engine`) run when kernel="linear"."""
    _kernel_compat = ("none",)

    # ---- primal form (kernel="linear"): an explicit weight vector, multiclass-capable ------------------
    def _primal(self):
        return self._linear_rule is not None and self.kernel == "linear"

    @property
    def _multiclass(self):
        return self._primal()

    _primal_poor_score = False  # True where one pass of the primal form (no bias) fits toy blobs poorly

    @property
    def _poor_score(self):
        return self._primal() and self._primal_poor_score

    @property
    def _block_size(self):
        return LINEAR_BLOCK_SIZE if self._primal() else None

    @property
    def compat_choices(self):
        """"libol" (LIBOL's documented behaviours, ALGORITHMS.md C0) is accepted by every primal form."""
        return ("none", "libol") if self._primal() else self._kernel_compat

    def _linear_spec(self):
        return dict(rule=self._linear_rule, prm=self._rule_params(), libol=self.compat == "libol")

    def _set_kernel_params(self, kernel, sigma, degree, coef0, compat):
        """Store the parameters every kernel learner has (called by each subclass's __init__)."""
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.compat = compat

    def _kernel_spec(self):
        return KernelSpec(self.kernel, self.sigma, self.degree, self.coef0)

    def _check_params(self):
        self._kernel_spec()

    def _rule_params(self):
        return []

    def _initial_fst(self):
        return [0.0]

    def _seed(self):
        return 0

    # ---- state -----------------------------------------------------------------------------------
    def _new_state(self, X):
        self.model_ = None
        if self._primal():
            self.support_ = None
            return self._new_primal_state(X)
        sparse = sp.issparse(X) and not dense_is_cheap(X)
        n_features = X.shape[1]
        cache = self._gram in ("cache", "bounded")
        limit = SupportSet.GRAM_LIMIT_BYTES if self._gram == "bounded" else None
        self.support_ = SupportSet(n_features, sparse, n_outputs=1, gram=cache, gram_limit_bytes=limit,
                                   pair=self._pair)
        seed = np.uint64(self._seed() & 0xFFFFFFFFFFFFFFFF)
        self.state_ = RuleState(np.array(self._rule_params() + [0.0], dtype=np.float64),
                                np.array(self._initial_fst(), dtype=np.float64),
                                np.zeros(N_COUNTERS, np.int64), np.array([seed], dtype=np.uint64))

    @property
    def n_support_(self):
        """Number of support vectors: stored points with a non-zero coefficient."""
        if self._primal():
            return self.n_updates_  # like LIBOL's nb_SV: a linear model has no support set
        n = self.support_.n
        return int(np.count_nonzero(np.any(self.support_.coef[:n] != 0.0, axis=1)))

    @property
    def support_vectors_(self):
        return self.support_.vectors()

    @property
    def dual_coef_(self):
        """Signed coefficients a_i of the support vectors."""
        return self.support_.coef[: self.support_.n, 0].copy()

    # ---- the protocol's hooks ------------------------------------------------------------------------
    def _engine_input(self, X):
        """X in the storage format of the support set (chosen on the first data, see dense_is_cheap)."""
        if self._primal():
            return LinearModel.engine_input(X)
        if self.support_.sparse:
            return X if sp.issparse(X) else sp.csr_matrix(X)
        return X.toarray() if sp.issparse(X) else X

    def _make_stream(self, X, y_internal):
        if self._primal():
            return self._primal_make_stream(X, y_internal)
        return make_stream(X, y_internal, self._kernel_spec().params())

    def _learn_block(self, stream, X, order, start, stop, scores, mistakes):
        if self._primal():
            return self._primal_learn_block(stream, X, order, start, stop, scores, mistakes)
        from .engine import RULE_IDS, kernel_block

        rows = X[order[start:stop]]
        self.support_.reserve(stop - start, rows.nnz if sp.issparse(rows) else 0)
        G = self.support_.dots(rows)
        kernel_block(RULE_IDS[self._rule], self.support_.arrays(), self.state_, stream, G, order,
                     start, stop, scores, mistakes)

    def _warm_up(self, X, y_internal):
        """Load (or compile) the compiled loop before any timing starts."""
        if self._primal():
            return self._primal_warm_up(X, y_internal)
        from .engine import RULE_IDS, kernel_block

        stream = self._make_stream(X, y_internal)
        G = np.zeros((0, self.support_.n))
        kernel_block(RULE_IDS[self._rule], self.support_.arrays(), self.state_, stream, G,
                     np.zeros(1, np.int64), 0, 0, np.empty(0), np.empty(0, np.int8))

    def _decision(self, X):
        if self._primal():
            return self.model_.decision(X)
        X = self._engine_input(X)
        kp = self._kernel_spec().params()
        n = self.support_.n
        if n == 0:
            return np.zeros(X.shape[0])
        scores = np.empty(X.shape[0])
        norms = row_norms2(X)
        step = max(1, 2_000_000 // max(n, 1))  # bound the memory of one kernel block
        for lo in range(0, X.shape[0], step):
            hi = min(lo + step, X.shape[0])
            K = self.support_.kernel(X[lo:hi], norms[lo:hi], kp)
            scores[lo:hi] = self._scores_from_kernel(K, norms[lo:hi], kp)
        return scores

    def _scores_from_kernel(self, K, norms, kp):
        return K @ self.support_.coef[: self.support_.n, 0]


def check_C(C):
    check_number("C", C, low=0, low_open=True)
