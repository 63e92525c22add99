"""BOGD and BOGD++: Budgeted Online Gradient Descent (Zhao, Wang, Wu, Jin, Hoi, ICML 2012; spec:
docs/algorithms/bogd.md and docs/algorithms/bogdpp.md).

Kernel OGD on ½λ‖f‖² + hinge loss with a budget B. Every round, after predicting, A ← (1 − ηλ)A. On a
margin error m_t < 1: while |S| < B, x_t is added with the row ηD_t; with a full budget one SV is removed
first and the others are rescaled so that the kept part is an unbiased estimate of f:

* BOGD: j uniform; A ← A·B/(B − 1);
* BOGD++: j drawn with p_i = 1 − s w_i, w_i = ‖A_i‖₂√κ_ii, s = (B − 1)/Σ_j w_j (Σ p_i = 1: large
  coefficients are rarely removed); each kept row A_i ← (1 − ηλ)A_i/(1 − p_i) (per SV, the unbiased form;
  this replaces the round's decay). If some p_i < 0 (one SV holds more than 1/(B − 1) of Σw) they are
  clamped to 0 and p renormalised; if Σw = 0, p is uniform.

then every entry is clipped to |A_i[r]| ≤ ηγ (sign kept; the per-coefficient bound of JSAT and the AHP R code,
BOGD's default) — BOGD clips after adding x_t with ηD_t (docs/algorithms/bogd.md#update-rule: append, then enforce
the bound), BOGD++ before (docs/algorithms/bogdpp.md#update-rule: rescale, clip, then append), so its new row is
never clipped; the two orders differ only when γ < 1. Rows added while |S| < B are never clipped (the bound is
enforced on budget rounds). Draws are indices into the arrival order (BOGD) or a uniform u walked along the arrival
order's cumulative p (BOGD++), from olkit's seeded generator.

The paper selects η (AHP: {10⁻³..10³}/√T) and λ ∈ 2^{−3..3}/T², which need the stream length T; the
defaults here are fixed numbers (η = 0.5, λ = 10⁻⁵: LSOKL's ``Experiment.m``; γ = 1: the AHP R script).
Diagnostics: ``removals``, ``clipped`` (entries clipped).

``compat`` (docs/algorithms/bogd.md#compat-modes, docs/algorithms/bogdpp.md#compat-modes; details in the class
docstrings): BOGD "lsokl" (LSOKL's
``BOGD.m``, binary and multiclass), BOGD++ "ahp-r" (the AHP R script ``BOGD++.R``, binary).

Slow reference: tests/reference/budget.py (``run_reference``); the ``compat`` modes:
tests/reference/budget_compat.py (``run_compat``).
"""

import math
from typing import NamedTuple

from ..._compile import njit_helper, njit_helper_sum, njit_inline
from ..._rng import next_index, next_uniform
from ...params import NON_NEGATIVE, POSITIVE, POWERS_OF_TWO
from ...spec import register
from ..kernel.base import EPS
from ..kernel.support_set import N
from ..kernel.sv_edit import scale_rows, sv_remove, sv_scale
from ..records import rule_params
from .common import (
    D0,
    BudgetLearner,
    CompatRule,
    append_direction,
    clip_above,
    clip_entries,
    margin_direction,
    margin_of,
    remove_by_age,
    row_norm,
    scale_row,
)

REMOVALS, CLIPPED = 0, 1  # diagnostic slots


class BOGDParams(NamedTuple):
    """Parameters of BOGD and BOGD++."""

    eta: float  # step size
    lam: float  # regularisation λ (decay 1 − ηλ)
    gamma: float  # bound on the coefficients
    B: int  # budget
    weighted: bool  # BOGD++: removal weighted by coefficient size


@njit_helper
def draw_by_weight(sv, st, p, n, total):
    """BOGD++'s draw: with w_i = p[i] (by slot) and their sum ``total`` on entry, p_i = 1 − s w_i,
    s = (B − 1)/Σw (negative p_i clamped to 0 and p renormalised; Σw = 0: uniform). Leaves the clamped
    weights v_i in ``p`` and returns (j, mass): p_i = v_i/mass, and the slot j drawn with probability p_j by
    one uniform u walked along the arrival order: the first j whose running Σ v_i exceeds u·mass (the same
    draw as Σ p_i > u without a division per step: the walk was a third of BOGD++'s extra time over BOGD)."""
    if total > 0.0:
        mass = _clamp_weights(p, n, (n - 1.0) / total)
    else:
        mass = float(n)
        for i in range(n):
            p[i] = 1.0
    u = next_uniform(st.rng) * mass
    j = sv.arrival[n - 1]
    acc = 0.0
    for q in range(n):
        acc += p[sv.arrival[q]]
        if acc > u:
            j = sv.arrival[q]
            break
    return j, mass


@njit_helper_sum
def _sum(a, n):
    """Σ_{i<n} a[i], vectorised (reassociated: the last bits differ from the sequential sum)."""
    acc = 0.0
    for i in range(n):
        acc += a[i]
    return acc


@njit_helper_sum
def _clamp_weights(p, n, scale):
    """p[i] ← max(1 − scale·p[i], 0) (each product rounded once: no fused multiply-add) and their sum,
    vectorised like :func:`_sum`."""
    mass = 0.0
    for i in range(n):
        v = max(1.0 - scale * p[i], 0.0)
        p[i] = v
        mass += v
    return mass


@njit_helper
def remove_weighted(sv, st, decay, bound):
    """BOGD++'s removal (docs/algorithms/bogdpp.md#update-rule): draw j ~ p over the arrival order, rescale
    every kept row by decay/(1 − p_i),
    clip its entries to ±bound and remove j; returns the number of entries clipped."""
    n = sv.meta[N]
    p = sv.grow  # p_i by slot (scratch)
    if sv.coef.shape[1] == 1:  # one pass for the weights and their sum, one for the rescale and the clip
        j, mass = draw_by_weight(sv, st, p, n, _weights_binary(sv.coef, sv.kself, p, n))
        clipped = _rescale_clip_binary(sv.coef, p, mass, n, j, decay, bound)
        sv_remove(sv, j)
        return clipped
    for i in range(n):
        p[i] = row_norm(sv, i) * math.sqrt(sv.kself[i])
    j, mass = draw_by_weight(sv, st, p, n, _sum(p, n))
    scaled = decay * mass
    for i in range(n):
        if i != j:
            scale_row(sv, i, scaled / (mass - p[i]))
    sv_remove(sv, j)
    return clip_entries(sv, bound)


@njit_helper_sum
def _weights_binary(coef, kself, w, n):
    """w_i = |α_i|·√κ(x_i, x_i) (the binary ‖A_i‖·‖x_i‖_H) and their sum (one vectorised loop, as
    :func:`_sum`)."""
    total = 0.0
    for i in range(n):
        v = abs(coef[i, 0]) * math.sqrt(kself[i])
        w[i] = v
        total += v
    return total


@njit_helper
def _rescale_clip_binary(coef, v, mass, n, j, decay, bound):
    """α_i ← clamp(α_i·decay/(1 − v_i/mass), ±bound) for i ≠ j (row j, removed next, is left as it is), in
    one vectorised loop, the factor as decay·mass/(mass − v_i) (one division); returns how many were
    clipped."""
    clipped = 0
    scaled = decay * mass
    for i in range(n):
        keep = i != j
        g = scaled / (mass - v[i]) if keep else 1.0
        a = coef[i, 0] * g
        c = min(max(a, -bound), bound) if keep else a
        clipped += c != a
        coef[i, 0] = c
    return clipped


@njit_inline
def bogd_gate(prm, Y, t, y, f, kself, mistake, coef, hw, n):
    """The engine's gate for :func:`bogd_update`: a round without an update (m_t ≥ 1 or κ_t ≤ EPS) only
    decays f by 1 − ηλ, which the gate does itself (the same products as the rule's ``sv_scale``); the
    other rounds go to the rule."""
    if margin_of(Y, t, y, f) < 1.0 and kself > EPS:
        return True
    decay = 1.0 - prm.eta * prm.lam
    if decay != 1.0:
        scale_rows(coef, hw, n, decay)
    return False


@njit_helper
def bogd_update(sv, st, s, t, kself, y, f, mistake):
    """BOGD (prm.weighted False) and BOGD++ (True)."""
    eta, lam, gamma, B, weighted = st.prm.eta, st.prm.lam, st.prm.gamma, st.prm.B, st.prm.weighted
    decay = 1.0 - eta * lam
    r, c, m, cD = margin_direction(s, t, y, f)
    update = m < 1.0 and kself > EPS
    full = sv.meta[N] >= B
    if update and full and weighted:  # BOGD++: rescale the kept rows (the round's decay in it), clip, then append
        st.cnt[D0 + CLIPPED] += remove_weighted(sv, st, decay, eta * gamma)
    elif decay != 1.0:
        sv_scale(sv, decay)
    if not update:
        return False
    if full:
        if not weighted:
            remove_by_age(sv, next_index(st.rng, sv.meta[N]))
            sv_scale(sv, B / (B - 1.0))
        st.cnt[D0 + REMOVALS] += 1
    # the hinge loss weighted by s_t: the new row η s_t D_t; the decay and the bound ηγ are not the example's
    # (docs/algorithms/bogd.md#weights)
    append_direction(sv, s, t, kself, y, r, c, eta * s.sw[t])
    if full and not weighted:  # BOGD: append, then clip every row
        st.cnt[D0 + CLIPPED] += clip_entries(sv, eta * gamma)
    return True


# ---- compat modes (docs/algorithms/bogd.md#compat-modes) -----------------------------------------------------------


@njit_helper
def bogd_lsokl_update(sv, st, s, t, kself, y, f, mistake):
    """LSOKL ``binary/BOGD.m`` and ``multiclass/BOGD.m``."""
    eta, lam, gamma, B = st.prm.eta, st.prm.lam, st.prm.gamma, st.prm.B
    r, c, m, cD = margin_direction(s, t, y, f)
    if (c < 0 and m > 1.0) or (c >= 0 and m >= 1.0):  # binary: update iff y f ≤ 1; multiclass iff ℓ > 0
        sv_scale(sv, 1.0 - eta * lam)
        return False
    if sv.meta[N] < B:
        sv_scale(sv, 1.0 - eta * lam)
        append_direction(sv, s, t, kself, y, r, c, eta)
        return True
    st.cnt[D0 + REMOVALS] += 1
    if c < 0:  # uniform removal, B(1 − λη)/(B − 1) rescale, then the global bound
        sv_scale(sv, B * (1.0 - lam * eta) / (B - 1.0))
        remove_by_age(sv, next_index(st.rng, sv.meta[N]))
        append_direction(sv, s, t, kself, y, r, c, eta)
        big = 0.0
        for i in range(sv.meta[N]):
            big = max(big, abs(sv.coef[i, 0]))
        factor = min(eta * gamma / big, 1.0)
        if factor < 1.0:
            sv_scale(sv, factor)
            st.cnt[D0 + CLIPPED] += 1
        return True
    remove_by_age(sv, 0)  # multiclass: the oldest SV, no rescale
    sv_scale(sv, 1.0 - lam * eta)
    append_direction(sv, s, t, kself, y, r, c, eta)
    st.cnt[D0 + CLIPPED] += clip_above(sv, eta * gamma)
    return True


@njit_helper
def bogdpp_ahp_r_update(sv, st, s, t, kself, y, f, mistake):
    """The AHP R script ``BOGD++.R`` (binary)."""
    eta, lam, gamma, B = st.prm.eta, st.prm.lam, st.prm.gamma, st.prm.B
    decay = 1.0 - eta * lam
    sv_scale(sv, decay)  # every round (round 1: nothing stored yet)
    if y * f[0] >= 1.0:
        return False
    n = sv.meta[N]
    if n < B:
        append_direction(sv, s, t, kself, y, 0, -1, eta)
        return True
    p = sv.grow  # p_i by slot: 1 − s|α_i|, s = (B − 1)/Σ|α| (κ(x, x) taken as 1)
    for i in range(n):
        p[i] = abs(sv.coef[i, 0])
    j, mass = draw_by_weight(sv, st, p, n, _sum(p, n))  # (R's sample() would stop on a negative weight: clamped)
    keep = 1.0 - p[j] / mass
    if keep > 0.0:  # every coefficient: (1 − ηλ)α/(1 − p_j), the round's decay applied a second time
        for i in range(n):
            sv.coef[i, 0] = decay * sv.coef[i, 0] / keep
    sv_remove(sv, j)
    st.cnt[D0 + REMOVALS] += 1
    append_direction(sv, s, t, kself, y, 0, -1, eta)
    st.cnt[D0 + CLIPPED] += clip_entries(sv, eta * gamma)  # the new coefficient included
    return True


_DOC = """{title}

    Parameters
    ----------
    B : int >= 2, default 600
        Budget: the most support vectors kept.
    eta : float > 0, default 0.5
        Step size (LSOKL ``Experiment.m``; the papers select it from a grid that needs the stream length).
    lam : float >= 0, default 1e-5
        Regulariser λ of ½λ‖f‖² (LSOKL ``Experiment.m``).
    gamma : float > 0, default 1
        Coefficient bound |A_i[r]| ≤ ηγ (AHP R script).
    seed : int >= 0, default 0
        Seed of the removals' draws.
    kernel, sigma, degree, coef0 : the kernel (σ = 1 as in the AHP experiments).{compat}

    Diagnostics: ``removals``, ``clipped``.

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> olkit.evaluate_online(olkit.make("{name}", B=50, sigma=8), X, y).n_sv <= 50
    True

    References
    ----------
    Zhao, P., Wang, J., Wu, P., Jin, R., Hoi, S. C. H. (2012). Fast bounded online gradient descent
    algorithms for scalable kernel-based online learning. ICML.
    """
_SOURCES = {
    "B": "AHP R scripts' budget (600)",
    "eta": "LSOKL Experiment.m (0.5)",
    "lam": "LSOKL Experiment.m (1e-5)",
    "gamma": "AHP R BOGD++.R (1)",
    "sigma": "AHP Experiments (σ = 1)",
}
_ETA_GRID = tuple(10.0**k for k in range(-3, 4))


_COMPAT_BOGD = """
    compat : {"none", "lsokl"}, default "none"
        "lsokl" reproduces the Hoi group's LSOKL ``binary/BOGD.m`` and ``multiclass/BOGD.m``
        (jingcoco/Online-Kernel-Learning; docs/algorithms/bogd.md#lsokl): prediction sign(0) → +1 (as by default).
        Binary: update iff y f ≤ 1; while |S| < B, α ← (1 − ηλ)α and append ηy; with a full budget remove a
        uniform SV and rescale α ← B(1 − λη)/(B − 1)·α (one factor), append ηy, then rescale the whole α
        by min(ηγ/max|α|, 1) (``clipped`` counts the rounds where it is < 1); other rounds α ← (1 − ηλ)α.
        Multiclass: update iff ℓ = max(0, 1 − Γ) > 0; with a full budget remove the *oldest* SV (no B/(B−1)
        rescale), A ← (1 − λη)A, append ηH_t, then bound the entries from above only, A ← min(A, ηγ)
        (``clipped`` counts the entries changed); rows then no longer sum to 0."""
_COMPAT_BOGDPP = """
    compat : {"none", "ahp-r"}, default "none"
        "ahp-r" reproduces the AHP authors' R script ``BOGD++.R`` (alg4ml/Ahpatron; docs/algorithms/bogdpp.md#ahp-r),
        binary data: round 1 always counts as a mistake and stores x_1 with ηy_1; ŷ = −1 iff f < 0 (as by
        default); every later round α ← (1 − ηλ)α, then on y f < 1 with a full budget: p_i = 1 − s|α_i|
        with s = (B − 1)/Σ|α| (κ(x, x) taken as 1), j ~ p, *every* coefficient α_i ← (1 − ηλ)α_i/(1 − p_j)
        with the removed j's p_j (the decay applied a second time), x_j removed, ηy appended, and every
        coefficient — the new one included — clipped to |α_i| ≤ ηγ. Where R's ``sample`` would stop on a
        negative p_i, olkit clamps it to 0 and renormalises (as by default); the draws are olkit's own (same
        distribution as R's ``sample``). Kernel values as olkit computes them (the script's direct
        differences differ in the last bits; see ahpatron's compat)."""


class _BOGDBase(BudgetLearner):
    _update = staticmethod(bogd_update)
    _update_gate = staticmethod(bogd_gate)
    _weighted = False
    _parameter_constraints = {"eta": [POSITIVE], "lam": [NON_NEGATIVE], "gamma": [POSITIVE]}

    def __init__(
        self,
        B=600,
        eta=0.5,
        lam=1e-5,
        gamma=1.0,
        seed=0,
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
        self.eta = eta
        self.lam = lam
        self.gamma = gamma
        self.seed = seed
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _check_params(self):
        super()._check_params()
        if self.eta * self.lam >= 1.0:
            raise ValueError(
                f"{self.algorithm_name}: eta*lam = {self.eta * self.lam:g} must be < 1 (the decay "
                "1 - eta*lam of every round must stay positive)"
            )

    def _rule_params(self):
        return rule_params(BOGDParams, eta=self.eta, lam=self.lam, gamma=self.gamma, B=self.B, weighted=self._weighted)

    def diagnostics(self):
        return {"removals": self._counter(REMOVALS), "clipped": self._counter(CLIPPED)}


@register(
    "bogd",
    "BOGD: budgeted kernel OGD, uniform removal with unbiased rescaling (Zhao et al. 2012)",
    data=("binary", "multiclass"),
    tuning=(("eta", _ETA_GRID), ("lam", POWERS_OF_TWO)),
    sources=_SOURCES,
    position=190,
    weight="η ← s·η on the hinge gradient: the new row η s D_t; the decay 1 − ηλ and the bound ηγ unchanged",
    weight_repeats=False,
    sweep={
        "small": {"B": 4},
        "cases": [{"B": 2, "gamma": 0.6, "lam": 0.01}],
        "grid": {"B": [2, 3, 4, 6, 8], "gamma": [1.0, 0.6], "lam": [1e-5, 0.01], "eta": [0.5, 0.2], "seed": [0, 5]},
    },
)
class BOGD(_BOGDBase):
    __doc__ = _DOC.format(
        title="BOGD (Zhao et al. 2012): budgeted OGD with uniform removal.", name="bogd", compat=_COMPAT_BOGD
    )
    _kernel_compat = ("none", "lsokl")
    _compat_rules = {
        "lsokl": CompatRule(bogd_lsokl_update, bogd_lsokl_update, source="LSOKL binary/BOGD.m, multiclass/BOGD.m")
    }


@register(
    "bogd++",
    "BOGD++: budgeted kernel OGD, removal by coefficient size with unbiased rescaling (Zhao et al. 2012)",
    data=("binary", "multiclass"),
    tuning=(("eta", _ETA_GRID),),
    sources=_SOURCES,
    position=200,
    weight="η ← s·η on the hinge gradient: the new row η s D_t; the decay 1 − ηλ and the bound ηγ unchanged",
    weight_repeats=False,
    sweep={
        "small": {"B": 4},
        "cases": [{"B": 3, "lam": 0.3}],
        "grid": {"B": [2, 3, 4, 6, 8], "gamma": [1.0, 0.6], "lam": [1e-5, 0.01, 1.0], "eta": [0.5, 1.0]},
    },
)
class BOGDPP(_BOGDBase):
    __doc__ = _DOC.format(
        title="BOGD++ (Zhao et al. 2012): budgeted OGD, small coefficients removed first.",
        name="bogd++",
        compat=_COMPAT_BOGDPP,
    )
    _kernel_compat = ("none", "ahp-r")
    _compat_rules = {
        "ahp-r": CompatRule(bogdpp_ahp_r_update, first_round_mistake=True, source="the AHP R script BOGD++.R")
    }
    _weighted = True
