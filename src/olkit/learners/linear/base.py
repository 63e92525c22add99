"""Base class of the linear (primal) learners and the protocol hooks they share with the first-order
kernel learners run with ``kernel="linear"``."""

from typing import Any, ClassVar

import numpy as np

from ...base import OnlineClassifier
from ...limits import RENUMBER, check_state_bytes, width_words
from ...params import POSITIVE, Interval, Options
from ..records import NoParams
from .model import COVARIANCES, LinearModel, primal_stream, vector_bytes

COVARIANCE_DOC = """    a : float > 0, default 1
        Σ₁ = aI (LIBOL default).
    covariance : {{"full", "diagonal"}}, default "full"
        "full" as in the SCW experiments (LIBOL); "diagonal" applies the inverse-form update to the
        diagonal only, Σ_jj ← Σ_jj/(1 + c Σ_jj x_j²) with c = {c}: O(nnz) per update, for
        high-dimensional sparse data."""
"""The parameter docs every second-order learner shares (``c`` is the learner's inverse-form constant)."""

COVARIANCE_CONSTRAINTS = {"a": [POSITIVE], "covariance": [Options(COVARIANCES)]}
"""Constraints of the parameters every second-order learner has."""

CONFIDENCE = Interval(0.5, 1, closed="neither")
"""η ∈ (0.5, 1): φ = Φ⁻¹(η) > 0 (η = 0.5 gives φ = 0, a degenerate rule)."""

LINEAR_BLOCK_SIZE = 1 << 16
"""Examples per call of the compiled loop: a linear step costs ~0.1 µs, so the per-call Python overhead
(~20 µs) must be spread over many examples."""


class PrimalHooks:
    """The protocol hooks of a learner whose state is a :class:`LinearModel` in ``self.model_``.

    The host class provides ``_linear_spec()`` (keyword arguments of LinearModel besides the shape).
    """

    _score_columns_2d = True  # the compiled loop writes the K scores of each round as an (n, K) array

    def _primal_outputs(self):
        """K: one weight vector (and score) per class on multiclass data, one on binary data."""
        return 1 if len(self.classes_) == 2 else len(self.classes_)

    def _new_primal_state(self, X):
        spec = self._linear_spec()
        K = self._primal_outputs()
        check_state_bytes(
            self.algorithm_name,
            lambda: f"the weights of a linear model with {K} output(s) on {width_words(X)}",
            vector_bytes(
                spec["rule"], X.shape[1] + bool(self.fit_intercept), K, spec.get("covariance"), self._averaged()
            ),
            RENUMBER,
            width=X.shape[1],
        )
        self.model_ = LinearModel(
            n_features=X.shape[1],
            n_outputs=K,
            algorithm=self.algorithm_name,
            intercept=self._intercept_constant(),
            average_start=self._average_start() if self._averages() else 0,
            **spec,
        )
        self.state_ = self.model_.state

    def _primal_make_stream(self, X, y_internal, weights):
        return primal_stream(y_internal, weights)

    def _primal_learn_block(self, stream, X, order, start, stop, scores, mistakes):
        self.model_.learn_block(X, stream, order, start, stop, scores, mistakes)

    def _primal_warm_up(self, X, y_internal):
        self.model_.warm_up(X[:1], y_internal[:1])

    def _save_model(self):
        return self.model_.save()

    def _restore_model(self, saved):
        self.model_.restore(saved)

    def _model_is_finite(self):
        return self.model_.is_finite()

    @property
    def coef_(self):
        """Weights (mean μ), shape (1, d) for binary data, (n_classes, d) for multiclass data (without the
        weight of the constant feature of ``fit_intercept``: that is ``intercept_``)."""
        self._check_fitted()
        if getattr(self, "model_", None) is None:
            raise AttributeError(
                "coef_ exists for linear models only (kernel='linear'); a kernel model has "
                "support_vectors_ and dual_coef_"
            )
        return self.model_.weights(self._averaged())[:, : self.n_features_in_]

    def _averaged(self):
        """Whether predictions use the averaged model (``average`` set on a learner that keeps one)."""
        return bool(self._average_start()) and self._averages()

    def _primal_averages(self):
        """A primal model keeps an average when its prediction is a weight vector (all but SOP's, whose rule
        has a block function of its own)."""
        rule = getattr(self, "_rule", None) or getattr(self, "_linear_rule", None)
        return rule is not None and rule.block is None

    def _primal_decision(self, X):
        return self.model_.decision(X, average=self._averaged())

    def _primal_intercept(self):
        """b = c·w_c, the bias of the constant feature c (zeros without ``fit_intercept``), shape (K,)."""
        W = self.model_.weights(self._averaged())
        if W.shape[1] == self.n_features_in_:
            return np.zeros(W.shape[0])
        return self.model_.intercept * W[:, -1]

    @property
    def covariance_(self):
        """Σ: (n_outputs, d, d) for covariance="full", (n_outputs, d) for "diagonal"."""
        self._check_fitted()
        return self.model_.covariance_matrix()


class LinearLearner(PrimalHooks, OnlineClassifier):
    """Base class of the second-order linear learners (SOP, CW, IELLIP, AROW, NHERD, NAROW).

    Each algorithm's file gives its compiled rule as ``_rule`` (a :class:`.engine.PrimalRule`), its rule
    parameters (``_rule_params()``; ``_aux()`` for the rule's initial scalar state) and its parameter
    constraints. Parameters common to all: ``a`` (Σ₁ = a·I), ``covariance`` ("full" or "diagonal"),
    ``compat``.

    Multiclass data (the SCW paper's future work; docs/algorithms/linear-family.md#multiclass, the EMNLP 2009 text
    was not available): multi-prototype weights, one covariance per class (the block-diagonal approximation
    of the joint kd × kd Σ) and the single-constraint update on the highest-scoring wrong class s:
    Δ = e_y⊗x − e_s⊗x, m = f_y − f_s, v = xᵀΣ_y x + xᵀΣ_s x, then the binary rule with (m, v). This is not
    LIBOL's M_CW/M_SCW (one shared Σ and constants of unknown provenance). Because β comes from the joint
    v, full and diagonal covariance differ on multiclass data even when every row has one non-zero.
    """

    _rule: ClassVar[Any] = None
    """The compiled rule, a :class:`.engine.PrimalRule` (None in this base class)."""
    _multiclass = True
    _block_size = LINEAR_BLOCK_SIZE
    compat_choices = ("none", "libol")
    _parameter_constraints = COVARIANCE_CONSTRAINTS

    def _set_linear_params(self, a, covariance, compat):
        """Store the parameters every linear learner has (called by each subclass's __init__)."""
        self.a = a
        self.covariance = covariance
        self.compat = compat

    def _rule_params(self):
        """The rule's parameter record (:mod:`olkit.learners.records`)."""
        return NoParams()

    def _aux(self):
        return 0.0

    def _diag_mode(self):
        return 0

    def _linear_spec(self):
        return dict(
            rule=self._rule,
            prm=self._rule_params(),
            covariance=self.covariance,
            a=float(self.a),
            aux=self._aux(),
            diag_mode=self._diag_mode(),
            libol=self.compat == "libol",
        )

    # ---- the protocol's hooks ------------------------------------------------------------------------
    def _score_columns(self):
        return self._primal_outputs()

    def _new_state(self, X):
        self._new_primal_state(X)

    def _engine_input(self, X):
        return self.model_.engine_input(X)

    def _make_stream(self, X, y_internal, weights):
        return self._primal_make_stream(X, y_internal, weights)

    def _learn_block(self, stream, X, order, start, stop, scores, mistakes):
        self._primal_learn_block(stream, X, order, start, stop, scores, mistakes)

    def _warm_up(self, X, y_internal):
        self._primal_warm_up(X, y_internal)

    def _decision(self, X):
        return self._primal_decision(X)

    def _averages(self):
        return self._primal_averages()

    # ---- the model -----------------------------------------------------------------------------------
    @property
    def intercept_(self):
        """The bias b = c·w_c of ``fit_intercept`` (c = ``intercept_scaling``), shape (1,) binary, (K,)
        multiclass; zeros without it."""
        self._check_fitted()
        return self._primal_intercept()

    @property
    def n_support_(self):
        """A linear model has no support set; like LIBOL's ``nb_SV`` this is the number of updates."""
        return self.n_updates_


def phi_of(eta):
    """φ = Φ⁻¹(η), the standard normal quantile (η ∈ (0.5, 1) gives φ > 0)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(float(eta))
