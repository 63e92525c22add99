"""Confidence-weighted learning, variance form (Dredze, Crammer, Pereira 2008): docs/algorithms/cw-var.md.

Slow reference: tests/reference/linear.py (``second_order``)."""

import math

from ..._compile import njit_helper
from ...params import CONFIDENCES
from ...spec import register
from .base import COVARIANCE_DOC
from .cw import CW
from .engine import NO_STEP, TRIGGERED_NO_STEP, PrimalRule, Step


@njit_helper
def cw_var_step(prm, fst, m, v, dn2, mistake, wt):
    """docs/algorithms/cw-var.md#update-rule, prm: :class:`.cw.CWParams` (φ): update iff m < φv:
    α = [−(1 + 2φm) + sqrt((1 + 2φm)² − 8φ(m − φv))]/(4φv), Σ⁻¹ += 2αφ ΔΔᵀ
    (c = 2αφ, β = 2αφ/(1 + 2αφv)).

    α is the formula as written unless it overflowed (b² beyond float64: NaN/inf); then its scale-safe,
    cancellation-free equivalent :func:`cw_var_alpha_stable` (issue 9, item 1). The formula's numerator
    also cancels as m → φv; it is kept there, as CW's α (:func:`.cw.cw_alpha`): after an update the
    constraint is active, so a repeated row sits on the trigger's boundary and the last bits of α decide
    #updates.

    The weight ``wt`` > 0 does not enter (docs/algorithms/cw-var.md#weights): the constraint m ≥ φv has no constant
    on a loss, it is the same for every weight, so a weight only switches the example on (s > 0) or off (s = 0).

    Degenerate rounds: v ≤ ``prm.v_floor`` takes no step — 0 with a diagonal Σ, EPS with a full one — and so does
    a step that float64 cannot hold (α, c or β infinite), as CW's (:func:`.cw.cw_step`, cw.md#degenerate-rounds)."""
    phi = prm.phi
    if m >= phi * v:
        return NO_STEP
    if v <= prm.v_floor:
        return TRIGGERED_NO_STEP
    b = 1.0 + 2.0 * phi * m
    num = -b + math.sqrt(max(b * b - 8.0 * phi * (m - phi * v), 0.0))
    if math.isfinite(num) or not (math.isfinite(m) and math.isfinite(v)):  # (m, v themselves overflowed: as it was)
        alpha = num / (4.0 * phi * v)
    else:
        alpha = cw_var_alpha_stable(phi, m, v)
    if not 0.0 < alpha < math.inf:
        return TRIGGERED_NO_STEP
    c = 2.0 * alpha * phi
    beta = c / (1.0 + c * v)
    if not (math.isfinite(c) and math.isfinite(beta)):
        return TRIGGERED_NO_STEP
    return Step(True, alpha, 1.0, beta, c, 1.0)


@njit_helper
def cw_var_alpha_stable(phi, m, v):
    """CW-var's α = [−b + sqrt(b² − 8φ(m − φv))]/(4φv), b = 1 + 2φm (φ, v > 0, m < φv), without cancellation
    or overflowing squares, equal in exact arithmetic: with g = φv − m > 0, R = sqrt(b² + 8φg) =
    hypot(b, sqrt(8φg)); for b ≤ 0, α = (R − b)/(4φv), non-negative terms; for b > 0, times (R + b)/(R + b),
    R² − b² = 8φg, so α = 8φg/(4φv(R + b)) = 2(g/v)/(b + R), all terms positive."""
    b = 1.0 + 2.0 * phi * m
    g = phi * v - m
    root = math.hypot(b, math.sqrt(8.0 * phi * g))
    if b > 0.0:
        return 2.0 * (g / v) / (b + root)
    return (root - b) / (4.0 * phi * v)


CW_VAR_RULE = PrimalRule("cw-var", cw_var_step)


@register(
    "cw-var",
    "CW (variance form): the original confidence-weighted update (Dredze, Crammer, Pereira 2008)",
    data=("binary", "multiclass"),
    tuning=(("eta", CONFIDENCES),),
    sources={"eta": "LIBOL's CW default 0.7 (the SCW experiments select it)", "a": "LIBOL default"},
    position=290,
    sweep={"grid": {"eta": [0.7, 0.9]}},
    weight="on/off: the constraint m ≥ φv has no constant, it is the same for every s > 0",
)
class CWVar(CW):
    __doc__ = (
        """Confidence-weighted learning, variance form (ICML 2008).

    Constraint m ≥ φv; update iff m < φv:
    α = [−(1 + 2φm) + sqrt((1 + 2φm)² − 8φ(m − φv))]/(4φv), μ ← μ + αΣΔ, Σ⁻¹ ← Σ⁻¹ + 2αφ ΔΔᵀ.

    Parameters
    ----------
    eta : float in (0.5, 1), default 0.7
"""
        + COVARIANCE_DOC.format(c="2αφ")
        + """
    compat : {"none", "libol"}, default "none"
        LIBOL has no variance-form CW; "libol" only counts rounds with positive
        loss as updates.

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> res = olkit.evaluate_online(olkit.make("cw-var"), X, y)
    >>> round(res.mistake_rate, 3)  # german in file order: deterministic
    0.329

    References
    ----------
    Dredze, M., Crammer, K., Pereira, F. (2008). Confidence-weighted linear classification. ICML.
    """
    )

    _rule = CW_VAR_RULE  # parameters, constraints and rule parameters [φ] as CW's
