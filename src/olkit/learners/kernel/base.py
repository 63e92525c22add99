"""Common machinery of the kernel learners: kernel parameters, support set, compiled block step."""

from collections import namedtuple
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ...base import (  # noqa: F401  (re-exported for the rules)
    EPS,
    MARGIN_TIE,
    MISTAKES,
    N_COUNTERS,
    SEEN,
    UPDATES,
    OnlineClassifier,
    all_finite,
)
from ...kernels import KernelSpec, row_norms2
from ...limits import RENUMBER, check_state_bytes, warn_support_growth, width_words
from ...params import SIGMA, Interval, Options
from ..linear.base import LINEAR_BLOCK_SIZE, PrimalHooks
from ..records import NoParams
from .stream import make_stream
from .support_set import SupportSet

RuleState = namedtuple("RuleState", ["prm", "fst", "cnt", "rng"])
"""State of an update rule as the compiled code sees it: its parameter record ``prm``
(:mod:`olkit.learners.records`), scalar state ``fst``
(e.g. ROMMA's ‖w‖²), counters ``cnt`` and the random generator state ``rng``."""

# counter slots: examples seen, mistakes, updates, then algorithm diagnostics
DIAG = 3  # the first counter slot of algorithm diagnostics (olkit.base: SEEN, MISTAKES, UPDATES)

MAX_DEGREE = 100
"""The largest polynomial degree: (x·z + coef0)^degree is finite in float64 only while |x·z + coef0| <
10^(308/degree), which at degree 100 is 1.2e3 and at degree 10^9 is 1 + 7e-7 (every kernel value then
overflows or vanishes, and the examples would be refused one by one as if the features were at fault)."""

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
    """Base class of support-vector learners f_c(·) = Σ_i coef[i, c] κ(x_i, ·), c = 1..K.

    Each algorithm's file gives its compiled rule as ``_update`` (and, if it predicts with something
    other than the kernel expansion, ``_score_hook``), its rule parameters (``_rule_params``) and
    initial scalar state (``_initial_fst``); the engine compiles the block loop over that rule
    (:func:`olkit.learners.kernel.engine.block_loop`). ``_kernel_data`` are the kinds of data the kernel
    form learns from ("binary", "multiclass", "multilabel"). ``_gram`` says whether the rule reads SV–SV
    kernel values: "none", "cache" (always keep the SV Gram cache) or "bounded" (keep it up to
    SupportSet.GRAM_LIMIT_BYTES, then compute rows on demand; measured: the cache is 1.2–1.8x faster
    than on-demand rows on w7a and dorothea). ``_matrices`` names the SV×SV matrices the rule keeps.
    ``_member_lists`` asks the support set for its per-class member lists on multiclass and multi-label
    data (for a rule that visits only the SVs sharing a class with a direction; they are extended on
    appends, and rebuilt, O(#SV), on the first use after a removal).
    """

    _update: ClassVar[Callable[..., Any] | None] = None
    _update_multi: ClassVar[Callable[..., Any] | None] = None
    """The rule on multiclass / multi-label data, where it is a separate function (None: ``_update``)."""
    _score_hook: ClassVar[Callable[..., Any] | None] = None
    _update_gate: ClassVar[Callable[..., Any] | None] = None
    """The gate of the default rules (``_update``, ``_update_multi``): see
    :mod:`olkit.learners.kernel.engine`; None: every round goes to the rule."""
    _update_gate_multi: ClassVar[Callable[..., Any] | None] = None
    """The gate of ``_update_multi``, where it differs from ``_update_gate`` (None: the same gate)."""
    _kernel_data: ClassVar[tuple[str, ...]] = ("binary",)
    _gram: ClassVar[str] = "none"
    _matrices: ClassVar[tuple[str, ...]] = ()
    _member_lists: ClassVar[bool] = False
    _linear_rule: ClassVar[Any] = None
    """The primal rule (a :class:`olkit.learners.linear.engine.PrimalRule`) run when kernel="linear"."""
    _kernel_compat: ClassVar[tuple[str, ...]] = ("none",)
    _average_writes: ClassVar[str] = "all"
    """Which coefficients the rules write in a round, for the averaged model's bookkeeping
    (docs/algorithms/options.md#kernel-learners): "appended" (only those of the SVs appended in the
    round: O(1) a round), "written" (the rule writes every coefficient it changes through
    :func:`~olkit.learners.kernel.sv_edit.set_coef`, which records the change at once: O(1) a round, O(K) a
    write) or "all" (any SV's: every row is compared with the last one seen, O(#SV·K) a round)."""

    _parameter_constraints = {
        "kernel": [Options(("gaussian", "linear", "poly"))],
        "sigma": [SIGMA],
        "degree": [
            Interval(
                1,
                MAX_DEGREE,
                integer=True,
                why=f"(x·z + coef0)^degree overflows float64 once "
                f"|x·z + coef0| exceeds 10^(308/degree), 1.2e3 at degree {MAX_DEGREE}",
            )
        ],
        "coef0": [Interval()],
    }

    # ---- primal form (kernel="linear"): an explicit weight vector, multiclass-capable ------------------
    def _primal(self):
        return self._linear_rule is not None and self.kernel == "linear"

    @property
    def _multiclass(self):
        return self._primal() or "multiclass" in self._kernel_data

    @property
    def _multilabel(self):
        return not self._primal() and "multilabel" in self._kernel_data

    _primal_poor_score = False  # True where one pass of the primal form (no bias) fits toy blobs poorly

    @property
    def _poor_score(self):
        return self._primal() and self._primal_poor_score

    @property
    def _block_size(self):
        return LINEAR_BLOCK_SIZE if self._primal() else None

    @property
    def compat_choices(self):
        """ "libol" (LIBOL's documented behaviours, docs/algorithms/linear-family.md) is accepted by every primal
        form."""
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

    def _averages(self):
        """The dual form keeps an averaged model (docs/algorithms/options.md#kernel-learners); the
        primal form (kernel="linear") is the linear engine's."""
        return True if not self._primal() else self._primal_averages()

    def _kernel_spec(self):
        c = self._intercept_constant()
        return KernelSpec(self.kernel, self.sigma, self.degree, self.coef0, offset=c * c)

    def _check_params(self):
        self._kernel_spec()  # σ so small that the Gaussian cannot be represented, ...

    def _rule_params(self):
        """The rule's parameter record (:mod:`olkit.learners.records`)."""
        return NoParams()

    def _max_support(self):
        """The most SVs the rule ever holds at once (a budget), or None (no bound): the support set, its
        Gram cache and SV×SV matrices are never allocated beyond it."""
        return None

    def _smaller_support(self):
        """The choice that keeps the support set smaller, for a refusal of its growth."""
        if self._max_support() is None:
            from ...spec import budgeted_names as budgeted

            return f"use a budgeted learner ({', '.join(budgeted())})"
        return (
            f"use a smaller budget B (B={self.B!r} now)"
            if getattr(self, "B", None) is not None
            else "use a smaller budget"
        )

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
        if sparse:  # the compiled loop scatters each sparse row into a dense d-vector (Stream.work)
            check_state_bytes(
                self.algorithm_name,
                lambda: f"the scatter buffer of sparse rows on {width_words(X)}",
                8 * n_features,
                RENUMBER,
                width=n_features,
            )
        cache = self._gram in ("cache", "bounded")
        limit = SupportSet.GRAM_LIMIT_BYTES if self._gram == "bounded" else None
        K = self._n_outputs()
        self.support_ = SupportSet(
            n_features,
            sparse,
            n_outputs=K,
            gram=cache,
            gram_limit_bytes=limit,
            matrices=self._matrices,
            members=self._member_lists and K > 1,
            average=self._average_start() > 0,
        )
        seed = np.uint64(self._seed() & 0xFFFFFFFFFFFFFFFF)
        self.state_ = RuleState(
            self._rule_params(),
            np.array(self._initial_fst(), dtype=np.float64),
            np.zeros(N_COUNTERS, np.int64),
            np.array([seed], dtype=np.uint64),
        )

    _binary_as_multiclass = False
    """True for a learner with no binary form (MIRA): binary data run as 2 classes, K = 2."""

    def _n_outputs(self):
        """K: one score per class on multiclass and multi-label data, one on binary data."""
        if len(self.classes_) == 2 and not self.multilabel_ and not self._binary_as_multiclass:
            return 1
        return len(self.classes_)

    def _score_columns(self):
        return self._n_outputs()

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
    def intercept_(self):
        """The bias b of f(x) = Σ_i a_i κ(x_i, x) + b: c² Σ_i a_i with ``fit_intercept`` (the dual form of the
        constant feature c), shape (1,) binary, (K,) per class; zeros without it. A primal model: c times
        the weight of the constant feature."""
        self._check_fitted()
        if self._primal():
            return self._primal_intercept()
        c = self._intercept_constant()
        return c * c * self._model_coef().sum(axis=0)

    @property
    def dual_coef_(self):
        """Coefficients of the support vectors: the signed a_i (binary, shape (n_SV,)), or one row of K
        class coefficients per SV (multiclass and multi-label, shape (n_SV, K)). With ``average``, those of the
        averaged model that ``predict`` uses (as scikit-learn's ``coef_``); the last model's are
        ``support_.coef``."""
        coef = self._model_coef()
        return (coef[:, 0] if coef.shape[1] == 1 else coef).copy()

    # ---- the protocol's hooks ------------------------------------------------------------------------
    def _engine_input(self, X):
        """X in the storage format of the support set (chosen on the first data, see dense_is_cheap)."""
        if self._primal():
            return self.model_.engine_input(X)
        if self.support_.sparse:
            return X if sp.issparse(X) else sp.csr_matrix(X)
        return X.toarray() if sp.issparse(X) else X

    def _make_stream(self, X, y_internal, weights=None):
        if weights is None:
            weights = np.ones(X.shape[0])
        if self._primal():
            return self._primal_make_stream(X, y_internal, weights)
        if self._binary_as_multiclass and len(self.classes_) == 2 and not self.multilabel_:
            y_internal = (np.asarray(y_internal) > 0).astype(np.float64)  # ±1 → class index 0/1
        start = self._average_start() if self.support_.averaged else 0
        return make_stream(X, y_internal, self._kernel_spec().params(), self._n_outputs(), start, weights)

    def _learn_block(self, stream, X, order, start, stop, scores, mistakes):
        if self._primal():
            return self._primal_learn_block(stream, X, order, start, stop, scores, mistakes)
        rows = X[order[start:stop]]
        self.support_.admit(rows)
        more = stop - start
        cap = self._max_support()
        if cap is not None:  # a budget: room for at most cap SVs, whatever the block size
            more = max(0, min(more, cap - self.support_.n))
        self.support_.reserve(
            more, rows.nnz if sp.issparse(rows) else 0, owner=self.algorithm_name, cheaper=self._smaller_support
        )
        G = self.support_.dots(rows)
        self._loop()(self.support_.arrays(), self.state_, stream, G, order, start, stop, scores, mistakes)
        if cap is None:  # no budget: the support set grows with every update (once per learner, between blocks)
            warn_support_growth(self, self.support_.n)

    # ---- undoing a refused round (olkit.protocol.run_online) -------------------------------------------
    def _save_model(self):
        if self._primal():
            return self.model_.save()
        # a learner with a budget removes and merges SVs: its inputs are saved too; the others only append
        return self.support_.save(inputs=self._max_support() is not None), OnlineClassifier._save_model(self)

    def _restore_model(self, saved):
        if self._primal():
            return self.model_.restore(saved)
        self.support_.restore(saved[0], self._kernel_spec().params())
        OnlineClassifier._restore_model(self, saved[1])

    def _model_is_finite(self):
        if self._primal():
            return self.model_.is_finite()
        return self.support_.is_finite() and all_finite(self._state_arrays())

    def _loop(self):
        from .engine import block_loop, every_round, no_score_hook
        from .sv_edit import average_all, average_appended, average_written, no_average

        rule = self._update_rule()
        if rule is self._update:
            gate = self._update_gate
        elif rule is self._update_multi:
            gate = self._update_gate_multi or self._update_gate
        else:
            gate = None
        average = no_average
        if self.support_.averaged:
            average = {"appended": average_appended, "written": average_written}.get(self._average_writes, average_all)
        return block_loop(rule, self._score_hook or no_score_hook, self._mistake_tests(), gate or every_round, average)

    def _update_rule(self):
        """The compiled rule this run uses (a learner with ``compat`` modes picks its compat's rule)."""
        return self._update_multi if self._n_outputs() > 1 and self._update_multi is not None else self._update

    def _mistake_tests(self):
        """{data kind: compiled mistake test} replacing the loop's mistake test of
        docs/algorithms/conventions.md#prediction-and-mistakes (see :func:`olkit.learners.kernel.engine.block_loop`),
        or None (the default tests)."""
        return None

    def _warm_up(self, X, y_internal):
        """Load (or compile) the compiled loop before any timing starts."""
        if self._primal():
            return self._primal_warm_up(X, y_internal)
        self.support_.admit(X)  # the transposed inputs' type (SupportSet.admit): compile the loop of this run's data
        stream = self._make_stream(X[:1], y_internal[:1])
        G = np.zeros((0, self.support_.n))
        self._loop()(
            self.support_.arrays(),
            self.state_,
            stream,
            G,
            np.zeros(1, np.int64),
            0,
            0,
            np.empty((0, self._n_outputs())),
            np.empty(0, np.int8),
        )

    def _decision(self, X):
        if self._primal():
            return self._primal_decision(X)
        X = self._engine_input(X)
        kp = self._kernel_spec().params()
        n, K = self.support_.n, self.support_.n_outputs
        scores = np.zeros((X.shape[0], K))
        if n > 0:
            norms = row_norms2(X)
            step = max(1, 2_000_000 // max(n, 1))  # bound the memory of one kernel block
            for lo in range(0, X.shape[0], step):
                hi = min(lo + step, X.shape[0])
                K_block = self.support_.kernel(X[lo:hi], norms[lo:hi], kp)
                scores[lo:hi] = self._scores_from_kernel(K_block, norms[lo:hi], kp)
        if K == 1:
            return scores[:, 0]
        if len(self.classes_) == 2 and not self.multilabel_:
            return scores[:, 1] - scores[:, 0]  # a 2-class model on binary data: f_+ − f_−
        return scores

    def _scores_from_kernel(self, K, norms, kp):
        return K @ self._model_coef()

    def _model_coef(self):
        """The coefficients ``predict`` and ``decision_function`` use (n_SV × K): with ``average``, those of
        the averaged model, ā_i = (P_i + q·A_i)/N (docs/algorithms/options.md#kernel-learners; the
        last model's until a round is averaged); else the last model's A_i."""
        sv = self.support_
        n = sv.n
        q, rounds = sv.avg
        if not sv.averaged or rounds == 0:
            return sv.coef[:n]
        return (sv.avg_sum[:n] + q * sv.coef[:n]) / rounds
