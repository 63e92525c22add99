"""Second-order Perceptron (Cesa-Bianchi, Conconi, Gentile 2005): docs/algorithms/sop.md.

Slow reference: tests/reference/linear.py (``sop``)."""

import numpy as np

from ..._compile import njit
from ...base import MISTAKES, SEEN, UPDATES
from ...spec import register
from .base import COVARIANCE_CONSTRAINTS, LinearLearner
from .engine import (
    COV,
    FULL,
    LIBOL,
    WSCALE,
    PrimalRule,
    _bound_by_cauchy_schwarz,
    _full_cov_step,
    _full_times_x,
    _sparse_dot,
    prefetch_rounds,
)


@njit
def sop_block(
    cfg, prm, fst, cnt, W, P, S, D, u1, u2, fs, indptr, idx, val, y, sw, order, start, stop, scores, mistakes
):
    """SOP's block function (the signature of :func:`.engine.linear_block`): SOP predicts with the
    covariance updated by x_t, so its round has a shape of its own. It keeps no average (``P`` is empty): its
    prediction is not a fixed weight vector (docs/algorithms/options.md#average)."""
    n_seen = n_mistakes = n_updates = 0
    for pos in range(start, stop):
        prefetch_rounds(indptr, idx, val, y, sw, order, pos, stop)
        t = order[pos]
        n_seen += 1
        lo, hi = indptr[t], indptr[t + 1]
        mistake, updated = _sop_round(cfg, W, S, D, u1, idx, val, y, sw[t], t, lo, hi, pos, scores, mistakes)
        n_mistakes += mistake
        n_updates += updated
    cnt[SEEN] += n_seen
    cnt[MISTAKES] += n_mistakes
    cnt[UPDATES] += n_updates


@njit
def _sop_round(cfg, W, S, D, u, idx, val, y, wt, t, lo, hi, pos, scores, mistakes):
    """SOP (docs/algorithms/sop.md#update-rule): f = vᵀ(A + xxᵀ)⁻¹x with A⁻¹ kept in S (full) or D
    (diagonal); W holds v = Σ y x.
    Returns (mistake, counted as an update).

    Full: with u = A⁻¹x and q = xᵀu, f = (v·u)/(1 + q) (Sherman–Morrison). Diagonal: A is kept
    diagonal and f = Σ_j v_j x_j/(A_jj + x_j²). On a mistake v ← v + y x and A ← A + xxᵀ;
    compat="libol" commits A ← A + xxᵀ on every round (LIBOL SOP.m, docs/algorithms/sop.md#compat-modes).

    Weight s = ``wt`` > 0 (docs/algorithms/sop.md#weights): the example counts s times in v and in the correlation
    matrix, v ← v + s·y x and A ← A + s·xxᵀ (A⁻¹ ← A⁻¹ − s·uuᵀ/(1 + s·q)); the prediction does not use it.
    """
    cov, libol = cfg[COV], cfg[LIBOL]
    if cov == FULL:
        _full_times_x(S, 0, idx, val, 1.0, lo, hi, u)
        q = _sparse_dot(u, idx, val, 1.0, lo, hi)
        _bound_by_cauchy_schwarz(S[0], u, q)  # u_i² ≤ A⁻¹_ii q (issue 9, item 1; a no-op unless A⁻¹ cancelled)
        f = 0.0
        for j in range(W.shape[0]):
            f += W[j, 0] * u[j]
        f /= 1.0 + q
    else:
        f = 0.0
        for p in range(lo, hi):
            j = idx[p]
            x = val[p]
            f += W[j, 0] * x * D[0, j] / (1.0 + D[0, j] * x * x)
    yt = y[t]
    mistake = (1.0 if f >= 0.0 else -1.0) != yt
    scores[pos, 0] = f
    mistakes[pos] = mistake
    if wt == 0.0:  # weight 0: predicted and counted, not learned (docs/algorithms/options.md#weights)
        return mistake, False
    if hi == lo or not (mistake or libol):
        return mistake, mistake and libol
    zero = True
    for p in range(lo, hi):
        if val[p] != 0.0:
            zero = False
    if zero:
        return mistake, mistake and libol
    if mistake:
        for p in range(lo, hi):
            W[idx[p], 0] += wt * yt * val[p]
    if cov == FULL:
        # A⁻¹ ← A⁻¹ − s uuᵀ/(1 + sq): the engine's rank-one downdate with c = s (A += s xxᵀ), β = s/(1 + sq),
        # ρ = 1/(1 + sq) — for s = 1 the same products as before, and a diagonal that cancels to ≤ 0 becomes its
        # exact bound A⁻¹_ii/(1 + sq) (see _full_cov_step; issue 9, item 1)
        b = wt / (1.0 + wt * q)
        _full_cov_step(S[0], b, 1.0, u, 1.0 / (1.0 + wt * q))
    else:
        for p in range(lo, hi):
            j = idx[p]
            x = val[p]
            D[0, j] = D[0, j] / (1.0 + wt * D[0, j] * x * x)
    return mistake, mistake


class _SOPRule(PrimalRule):
    def weights(self, model):
        """The current w = A⁻¹v (without the next instance's term)."""
        v = model.W[:, 0] * model.state.fst[WSCALE]
        if model.covariance == "full":
            return (model.S[0] @ v)[None, :]
        return (model.D[0] * v)[None, :]

    def decision(self, model, X, W=None):
        """SOP's own prediction vᵀ(A + xxᵀ)⁻¹x for each row (it keeps no average: ``W`` is always None)."""
        v = model.W[:, 0] * model.state.fst[WSCALE]
        if model.covariance == "full":
            U = np.asarray(X @ model.S[0])
            q = np.asarray(X.multiply(U).sum(axis=1)).ravel()
            return ((U @ v) / (1.0 + q))[:, None]
        Dx = X.copy()
        d = model.D[0][Dx.indices]
        Dx.data = v[Dx.indices] * Dx.data * d / (1.0 + d * Dx.data * Dx.data)
        return np.asarray(Dx.sum(axis=1))


SOP_RULE = _SOPRule("sop", block=sop_block)


@register(
    "sop",
    "Second-order Perceptron: perceptron in the metric of the data correlation matrix (Cesa-Bianchi et al. 2005)",
    sources={"a": "LIBOL default (a = 1); the SCW experiments fix it"},
    position=280,
    weight="v ← v + s·y x, A ← A + s·xxᵀ: the example counts s times in v and in the correlation matrix",
)
class SOP(LinearLearner):
    """Second-order Perceptron (binary).

    Predicts ŷ_t = sign(vᵀ(A + x_t x_tᵀ)⁻¹x_t) with v = Σ y_s x_s and A = aI + Σ x_s x_sᵀ over the past
    mistakes (Sherman–Morrison keeps A⁻¹); on a mistake v ← v + y_t x_t and A ← A + x_t x_tᵀ.

    Parameters
    ----------
    a : float > 0, default 1
        Regulariser, A = aI initially (docs/algorithms/sop.md#settled-questions). LIBOL initialises its SOP
        matrix, which holds A⁻¹, to aI instead; the two agree for LIBOL's default a = 1, the only value its
        experiments use.
    covariance : {"full", "diagonal"}, default "full"
        "diagonal" keeps A diagonal (A_jj += x_j²) and predicts with diag(A + x∘x)⁻¹: O(nnz) per round.
    compat : {"none", "libol"}, default "none"
        "libol": commit A ← A + x_t x_tᵀ on *every* round, as LIBOL's SOP.m and SOP_c.cpp do (the paper
        adds mistaken instances only; docs/algorithms/sop.md#compat-modes). #updates stay the mistakes.

    ``coef_`` is the current w = A⁻¹v (without the next instance's term); ``decision_function`` applies
    SOP's own prediction vᵀ(A + xxᵀ)⁻¹x to each row, so it is not ``X @ coef_.T``.

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> res = olkit.evaluate_online(olkit.make("sop"), X, y)
    >>> round(res.mistake_rate, 3)  # german in file order: deterministic
    0.32

    References
    ----------
    Cesa-Bianchi, N., Conconi, A., Gentile, C. (2005). A second-order perceptron algorithm.
    SIAM J. Computing 34(3).
    """

    _rule = SOP_RULE
    _multiclass = False
    _parameter_constraints = COVARIANCE_CONSTRAINTS

    def __init__(
        self,
        a=1.0,
        covariance="full",
        compat="none",
        *,
        fit_intercept=False,
        intercept_scaling=1.0,
        average=False,
        class_weight=None,
        shuffle=True,
        random_state=None,
    ):
        self._set_linear_params(a, covariance, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _linear_spec(self):
        # A⁻¹ starts at I/a: the model's covariance slot holds A⁻¹
        return {**super()._linear_spec(), "a": 1.0 / float(self.a)}
