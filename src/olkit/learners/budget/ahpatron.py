"""Ahpatron (Liao, Li et al., AAAI 2024, Algorithm 2, eqs (6)–(9); spec: docs/algorithms/ahpatron.md).

AVP with a budget B (even) kept by *halving and projection*. On a margin error m_t < 1 − ε:

* |S| < B: add x_t with the row λD_t, ‖f‖² += 2λm_t + c_Dλ²κ_t, project onto ‖f‖ ≤ U;
* |S| = B: split S by ‖A_i‖₂ (binary |α_i|): the B/2 largest are kept (S₂), the other B/2 (S₁) removed,
  ties broken by arrival order. The removed part f₁ is projected onto span(S₂) with a ridge η (eq. (6)):

      Θ* = (K₂ + ηI)⁻¹ K₂₁ A₁                                   (eq. (9); one factorisation, K' columns)

  A₂' = A₂ + Θ*, and f̄ is rescaled onto the sphere of radius c_t U (eq. (7)), c_t = ‖f_t‖/U as in the
  experiments and AHP Theorem 6: A₂'' = (‖f_t‖/N)A₂', N² = tr(A₂'ᵀK₂A₂') (N = 0: left as is). Then
  f_{t+1} = Proj_U(f̄ + λD_tκ(x_t, ·)) (eq. (8)) with f̄(x_t) from the new coefficients; |S| = B/2 + 1.

η is a ridge, not a step size. Reading of Algorithm 2's line 8: its λ_t is the constant λ. A halving costs
O(B³) once every B/2 additions (O(B²) amortised); every other round is O(dB) (the kernel row).

Defaults are the AHP experiments' (eq. numbers of the paper): η = 0.0005, U = √B/2, λ = U/(2√B) (= ¼),
ε = 0.5 (the low end of the grid {0.5, …, 0.9} the paper selects from in hindsight), B = 600 (the R
script's; Table 2: 400 phishing/SUSY, 600 ijcnn1/cod-rna, 300 w8a, 150 a9a), σ = 1. On multiclass data
the defaults are their image under the K = 2 map of docs/algorithms/multiclass.md#budgeted-learners, U = √(B/8) and λ
= U/(2√(2B)) (= ⅛).

Diagnostics: ``n_T``, the rounds with 0 < m_t < 1 − ε (|N_T| of AHP Table 3), and ``halvings``.

``compat="ahp-r"`` reproduces the AHP authors' ``Ahpatron.R`` (binary; docs/algorithms/ahpatron.md#ahp-r; details in
the class docstring).

Slow reference: tests/reference/budget.py (``run_reference``); the ``compat`` mode: tests/reference/budget_compat.py
(``run_compat``).
"""

import math
from typing import NamedTuple

import numpy as np

from ..._compile import njit_helper, njit_inline
from ...params import PROBABILITY_OPEN, Interval
from ...spec import register
from ..kernel.base import EPS
from ..kernel.gram import sync_gram
from ..kernel.scores import expansion_scores
from ..kernel.support_set import N
from ..kernel.sv_edit import sv_remove_set
from ..records import rule_params
from .common import (
    D0,
    RADIUS,
    BudgetLearner,
    CompatRule,
    append_direction,
    epsilon_margin_gate,
    gram_blocks,
    margin_direction,
    project_to_ball,
    rescale_norm,
    row_norm,
)

N_T, HALVINGS = 0, 1  # diagnostic slots


class AhpatronParams(NamedTuple):
    """Parameters of Ahpatron, resolved."""

    lam: float  # step λ
    epsilon: float  # update iff m_t < 1 − ε
    U: float  # radius of the projection ball
    eta: float  # ridge of the projection of the removed half
    B: int  # budget


@njit_helper
def spd_solve(A, Bm):
    """A⁻¹Bm for a symmetric positive definite A (K₂ + ηI with η > 0): one Cholesky factorisation (half the
    work of LU) and two triangular solves; LU (np.linalg.solve) when rounding leaves A not numerically
    positive definite."""
    if not np.isfinite(A).all():  # overflowed kernel values: NaN steps, refused by the protocol's check
        return np.full(Bm.shape, np.nan)  # (numba's Cholesky raises past the handler on non-finite input)
    L = np.empty((0, 0))
    factored = True
    try:
        L = np.linalg.cholesky(A)
    except Exception:  # noqa: BLE001  (numba raises LinAlgError: not positive definite)
        factored = False
    if not factored:  # outside the handler: numba cannot raise from inside one (LU may raise LinAlgError)
        return np.linalg.solve(A, Bm)
    n, K = Bm.shape
    X = Bm.copy()
    for q in range(K):
        for i in range(n):  # L z = b
            acc = X[i, q]
            for j in range(i):
                acc -= L[i, j] * X[j, q]
            X[i, q] = acc / L[i, i]
        for i in range(n - 1, -1, -1):  # Lᵀ x = z
            acc = X[i, q]
            for j in range(i + 1, n):
                acc -= L[j, i] * X[j, q]
            X[i, q] = acc / L[i, i]
    return X


@njit_helper
def halve(sv, ridge, target_norm):
    """Keep the B/2 SVs of largest ‖A_i‖ (ties: arrival order), project the others onto them with the ridge
    (eq. (9)), rescale to ‖f̄‖ = target_norm (eq. (7)); returns ‖f̄‖²."""
    sync_gram(sv)
    n = sv.meta[N]
    h = n // 2
    # rank in arrival order: a stable sort by −‖A_i‖ keeps the older of tied SVs first
    order = sv.arrival[:n].copy()
    key = np.empty(n)
    for p in range(n):
        key[p] = -row_norm(sv, order[p])
    rank = np.argsort(key, kind="mergesort")
    keep_pos = np.sort(rank[:h])  # positions in arrival order
    drop_pos = np.sort(rank[h:])
    keep = order[keep_pos]
    drop = order[drop_pos]
    K = sv.coef.shape[1]
    K2, K21 = gram_blocks(sv, keep, drop)
    theta = spd_solve(_ridged(K2, ridge), K21 @ _coefs_of(sv, drop, K))  # (K₂ + ηI)⁻¹K₂₁A₁
    for a in range(h):
        i = keep[a]
        for q in range(K):
            sv.coef[i, q] += theta[a, q]
        if K > 1:
            sv.hr[i] = -1  # a general row now
    # N² = tr(A₂'ᵀK₂A₂') (K₂ without the ridge)
    norm2 = 0.0
    for a in range(h):
        for b in range(h):
            g = K2[a, b]
            acc = 0.0
            for q in range(K):
                acc += sv.coef[keep[a], q] * sv.coef[keep[b], q]
            norm2 += g * acc
    sv_remove_set(sv, drop)  # S₁
    return rescale_norm(sv, norm2, target_norm)


@njit_inline
def _ridged(K2, ridge):
    """K₂ + ηI (a copy)."""
    ridged = K2.copy()
    for a in range(K2.shape[0]):
        ridged[a, a] += ridge
    return ridged


@njit_inline
def _coefs_of(sv, slots, K):
    """The coefficient rows of the SVs at ``slots`` (len(slots) × K)."""
    A = np.empty((slots.shape[0], K))
    for b in range(slots.shape[0]):
        for q in range(K):
            A[b, q] = sv.coef[slots[b], q]
    return A


@njit_helper
def ahpatron_update(sv, st, s, t, kself, y, f, mistake):
    lam, eps, U, ridge, B = st.prm.lam, st.prm.epsilon, st.prm.U, st.prm.eta, st.prm.B
    lam *= s.sw[t]  # the step λ s_t (docs/algorithms/ahpatron.md#weights)
    r, c, m, cD = margin_direction(s, t, y, f)
    if m >= 1.0 - eps or kself <= EPS:
        return False
    if m > 0.0:
        st.cnt[D0 + N_T] += 1
    norm2 = st.fst[0]
    if sv.meta[N] >= B:  # halving and projection
        norm2 = halve(sv, ridge, math.sqrt(norm2))
        st.cnt[D0 + HALVINGS] += 1
        fbar = np.empty(f.shape[0])
        expansion_scores(sv, fbar)  # f̄(x_t): the kernel row follows the SVs through removals
        m = y * fbar[0] if c < 0 else fbar[r] - fbar[c]
    append_direction(sv, s, t, kself, y, r, c, lam)
    norm2 += 2.0 * lam * m + cD * lam * lam * kself
    st.fst[0] = project_to_ball(sv, norm2, U)  # Proj_U (eq. (8))
    return True


# ---- compat="ahp-r": the AHP authors' Ahpatron.R (docs/algorithms/ahpatron.md#ahp-r) ------------------------


@njit_helper
def r_median(v):
    """R's ``median``: the middle value, or the mean of the two middle values for an even count (R computes
    the mean exactly in long double and rounds once; (a + b)/2 in double rounds a + b once and halves it
    exactly, the same number)."""
    w = np.sort(v)
    h = w.shape[0] // 2
    if w.shape[0] % 2:
        return w[h]
    return (w[h - 1] + w[h]) / 2.0


@njit_helper
def halve_ahp_r(sv, ridge, target_norm):
    """Ahpatron.R's halving (binary): keep, in storage (= arrival) order, the first B/2 SVs with
    |α_i| ≥ median(|α|); θ = (K₂ + ηI)⁻¹(K₂₁α₁) with an explicit inverse and the unit Gram diagonal the
    script assumes; rescale the merged α₂ + θ to ‖f̄‖ = target_norm (N = 0: left as is, the script would
    divide by 0). Returns ‖f̄‖²."""
    sync_gram(sv)
    n = sv.meta[N]
    h = n // 2
    order = sv.arrival[:n].copy()
    mag = np.empty(n)
    for p in range(n):
        mag[p] = abs(sv.coef[order[p], 0])
    med = r_median(mag)
    keep = np.empty(h, np.int64)
    drop = np.empty(n - h, np.int64)
    nk = 0
    nd = 0
    for p in range(n):
        # at least h values are ≥ the median, so keep fills up; NaN magnitudes (overflowed kernel values)
        # compare false: then the last SVs fill it, never fewer than h kept (nor more than n - h dropped)
        if nk < h and (mag[p] >= med or n - p <= h - nk):
            keep[nk] = order[p]
            nk += 1
        else:
            drop[nd] = order[p]
            nd += 1
    K2, K21 = gram_blocks(sv, keep, drop)
    for a in range(h):
        K2[a, a] = 1.0  # the script's Gram starts as a matrix of ones and never writes its diagonal
    a1 = _coefs_of(sv, drop, 1).ravel()
    theta = np.linalg.inv(_ridged(K2, ridge)) @ (K21 @ a1)  # inver_Gram_1 %*% (Gram_12 %*% small_svpara)
    merged = np.empty(h)
    for a in range(h):
        merged[a] = sv.coef[keep[a], 0] + theta[a]
    norm2 = 0.0
    for a in range(h):
        acc = 0.0
        for b in range(h):
            acc += K2[a, b] * merged[b]
        norm2 += merged[a] * acc
    for a in range(h):
        sv.coef[keep[a], 0] = merged[a]
    sv_remove_set(sv, drop)
    return rescale_norm(sv, norm2, target_norm)  # (N² < 0 only with a non-Gaussian kernel: κ(x, x) taken as 1)


@njit_helper
def ahpatron_ahp_r_update(sv, st, s, t, kself, y, f, mistake):
    """Ahpatron.R (binary): x_1 always stored with λy_1 and ‖f‖ = λ; κ(x, x) taken as 1 in the norm
    (‖f‖² += λ² + 2λ y f); the halving of :func:`halve_ahp_r`; the projection to U after the append in both
    branches."""
    lam, eps, U, ridge, B = st.prm.lam, st.prm.epsilon, st.prm.U, st.prm.eta, st.prm.B
    if sv.meta[N] == 0:  # round 1 (the script's first instance; counted a mistake by BudgetLearner)
        append_direction(sv, s, t, kself, y, 0, -1, lam)
        st.fst[0] = lam * lam
        return True
    m = y * f[0]
    if m >= 1.0 - eps:
        return False
    if m > 0.0:
        st.cnt[D0 + N_T] += 1
    norm2 = st.fst[0]
    if sv.meta[N] >= B:
        norm2 = halve_ahp_r(sv, ridge, math.sqrt(norm2))
        st.cnt[D0 + HALVINGS] += 1
        fbar = 0.0
        for j in range(sv.meta[N]):  # tem_fx: the rescaled merged α against the kept SVs' stored kt
            fbar += sv.coef[j, 0] * sv.krow[j]
        m = y * fbar
    append_direction(sv, s, t, kself, y, 0, -1, lam)
    norm2 = max(norm2 + lam * lam + 2.0 * lam * m, 0.0)
    st.fst[0] = project_to_ball(sv, norm2, U)
    return True


_AHP_R = CompatRule(ahpatron_ahp_r_update, first_round_mistake=True, source="the AHP R script Ahpatron.R")


@register(
    "ahpatron",
    "Ahpatron: budgeted AVP, halving the SV set and projecting the removed half onto the kept "
    "one (Ahpatron AAAI 2024 Alg. 2)",
    data=("binary", "multiclass"),
    tuning=(("epsilon", (0.5, 0.6, 0.7, 0.8, 0.9)),),
    sources={
        "B": "AHP R script (600); Table 2 per dataset",
        "U": "AHP Experiments (U = √B/2)",
        "lam": "AHP Experiments (λ = U/(2√B))",
        "epsilon": "AHP Experiments (grid {0.5..0.9})",
        "eta": "AHP Experiments (η = 0.0005)",
        "sigma": "AHP Experiments (σ = 1)",
    },
    position=170,
    weight="λ ← s·λ: the new row λ s D_t (and ‖f‖² with it); halving and the ball are the model's, not the example's",
    weight_repeats=False,
    sweep={
        "small": {"B": 4},
        "cases": [{"B": 2}, {"B": 6, "U": 0.5, "lam": 0.3}],
        "grid": {
            "B": [2, 4, 6, 8],
            "U": [None, None, 0.5, math.inf],
            "lam": [None, 0.3],
            "epsilon": [0.5, 0.8],
            "eta": [0.0005, 0.1],
        },
    },
)
class Ahpatron(BudgetLearner):
    """Ahpatron (AAAI 2024, Algorithm 2): budgeted online kernel learning by halving and projection.

    Parameters
    ----------
    B : even int ≥ 2, default 600
        Budget (the halving keeps B/2 SVs).
    U : float > 0, math.inf or None, default None
        Radius of the ball ‖f‖ ≤ U. None: √B/2 (AHP experiments); multiclass √(B/8)
        (docs/algorithms/ahpatron.md#multiclass-and-multi-label).
    lam : float > 0 or None, default None
        Step size λ of an update. None: U/(2√B) (AHP experiments, = ¼ with the default U); multiclass U/(2√(2B)). With
        U = inf, the default U's value (¼, multiclass ⅛).
    epsilon : float in (0, 1), default 0.5
        Update on m_t < 1 − ε (the experiments select ε from {0.5, …, 0.9} in hindsight; the tuning grid).
    eta : float > 0, default 0.0005
        Ridge of the projection, eq. (9).
    kernel, sigma, degree, coef0 : the kernel (σ = 1 as in the AHP experiments).
    compat : {"none", "ahp-r"}, default "none"
        "ahp-r" reproduces the AHP authors' R script ``Ahpatron.R`` (alg4ml/Ahpatron;
        docs/algorithms/ahpatron.md#ahp-r), binary
        data only: round 1 always counts as a mistake and x_1 is always stored (λy_1, ‖f‖ = λ, no
        projection); prediction ŷ = −1 iff f < 0 (as by default); κ(x, x) is taken as 1 (‖f‖² += λ² +
        2λ y f, unit diagonal in K₂); the halving keeps, in storage (arrival) order, the first B/2 SVs with
        |α_i| ≥ median(|α|) (R's median: the mean of the two middle values; ties at the median then keep
        older SVs even over larger later ones), computes θ = (K₂ + ηI)⁻¹(K₂₁α₁) with an explicit inverse,
        rescales to the stored ‖f_t‖ and scores x_t with the rescaled coefficients and the kept SVs' kernel
        values; the projection to U follows the append in both branches; |N_T| counts 0 < y f < 1 − ε.
        Kernel values: the script computes ‖s − x‖² from the differences, olkit from ‖s‖² + ‖x‖² − 2s·x
        (clamped at 0), so κ differs by a relative O(γ‖x‖²·1e-16) (last bits on scaled data, up to ~1e-11
        on unscaled 300-feature data; a duplicate gets exactly 1 from the differences, 1 − O(that) here).
        No decision of the rule turns on it except at exact ties, and those come from duplicate SVs, whose
        kernel values are identical in either form; so olkit's kernel is kept. Where the script would
        divide by 0 (merged norm N = 0; N² < 0 is possible only with a non-Gaussian kernel, whose κ(x, x)
        the script takes as 1), olkit leaves the merged coefficients unscaled and ‖f̄‖ = 0.

    Diagnostics: ``n_T`` (AHP Table 3's |N_T|), ``halvings``, ``norm`` (‖f‖).

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> clf = olkit.make("ahpatron", B=100)
    >>> olkit.evaluate_online(clf, X, y).n_sv <= 100
    True

    References
    ----------
    Liao, S., Li, J. et al. (2024). Ahpatron: A new budgeted online kernel learning machine with tighter
    mistake bound. AAAI 2024.
    """

    _update = staticmethod(ahpatron_update)
    _update_gate = staticmethod(epsilon_margin_gate)
    _gram = "cache"
    _kernel_compat = ("none", "ahp-r")
    _compat_rules = {"ahp-r": _AHP_R}
    _parameter_constraints = {
        "B": [Interval(2, None, even=True)],
        "U": RADIUS,
        "lam": [Interval(0, None, closed="neither"), None],
        "epsilon": [PROBABILITY_OPEN],
        "eta": [Interval(0, None, closed="neither")],
    }

    def __init__(
        self,
        B=600,
        U=None,
        lam=None,
        epsilon=0.5,
        eta=0.0005,
        kernel="gaussian",
        sigma=1.0,
        degree=3,
        coef0=1.0,
        compat="none",
        *,
        fit_intercept=False,
        intercept_scaling=1.0,
        average=False,
        class_weight=None,
        shuffle=True,
        random_state=None,
    ):
        self.B = B
        self.U = U
        self.lam = lam
        self.epsilon = epsilon
        self.eta = eta
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _paper_U(self):
        return math.sqrt(self.B / 8.0) if self._multiclass_model() else math.sqrt(self.B) / 2.0

    def _U(self):
        return self._paper_U() if self.U is None else float(self.U)

    def _lam(self):
        if self.lam is not None:
            return float(self.lam)
        U = self._U() if math.isfinite(self._U()) else self._paper_U()
        return U / (2.0 * math.sqrt(2.0 * self.B)) if self._multiclass_model() else U / (2.0 * math.sqrt(self.B))

    def _rule_params(self):
        return rule_params(AhpatronParams, lam=self._lam(), epsilon=self.epsilon, U=self._U(), eta=self.eta, B=self.B)

    def _resolved_params(self):
        return {**self._algorithm_params(), "U": self._U(), "lam": self._lam()}

    def diagnostics(self):
        return {"n_T": self._counter(N_T), "halvings": self._counter(HALVINGS), "norm": math.sqrt(self.state_.fst[0])}
