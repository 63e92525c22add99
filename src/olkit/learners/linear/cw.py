"""Exact confidence-weighted learning CW (Crammer, Dredze, Pereira 2008; the "CW" of the SCW paper §2.3),
docs/algorithms/cw.md. The weights are a Gaussian N(μ, Σ); φ = Φ⁻¹(η).

Slow reference: tests/reference/linear.py (``second_order``)."""

import math
from typing import NamedTuple

from ..._compile import njit_helper
from ...base import EPS
from ...params import CONFIDENCES
from ...spec import register
from ..records import rule_params
from .base import CONFIDENCE, COVARIANCE_CONSTRAINTS, COVARIANCE_DOC, LinearLearner, phi_of
from .engine import NO_STEP, TRIGGERED_NO_STEP, PrimalRule, Step


class CWParams(NamedTuple):
    """Parameters of CW and CW-var."""

    phi: float  # φ = Φ⁻¹(η)
    v_floor: float  # a round with v ≤ v_floor takes no step (cw.md#degenerate-rounds): 0 diagonal, EPS full


CANCELLED = 2.0**-20
"""A difference a − b of positive terms counts as cancelled when it is below CANCELLED·b: the formula as written
has then lost ~20 or more of its 53 bits, and the rule switches to its cancellation-free form (issue 9,
item 1): √u = ½(−t + sqrt(t² + 4v)) in :func:`cw_covariance_step`, SCW-II's α numerator
(:func:`.scw.scw2_alpha`). Above it the formula is evaluated as written, bit for bit: the held results (the
LIBOL-compatible reference runs, the SCW Table 3 reproduction) were computed with it, and CW/SCW on rows
that repeat (whose trigger φ√v − m > 0 then sits exactly on its boundary) or on noisy data change #updates
or mistakes on a change of the last bit."""


@njit_helper
def cw_alpha(phi, m, v):
    """α = max(0, (−mψ + S)/(vζ)), S = sqrt(m²φ⁴/4 + vφ²ζ), ψ = 1 + φ²/2, ζ = 1 + φ² (SCW §2.3), v > 0.

    The formula as written unless it overflowed (m²φ⁴/4 or vφ²ζ beyond float64: NaN/inf); then its
    scale-safe, cancellation-free equivalent :func:`cw_alpha_stable` (issue 9, item 1).

    The numerator of the formula as written also cancels as m → φ√v, but it is kept there: the small α it
    gives is finite and harmless, and on rows that repeat (where ℓ is rounding noise after the update on
    the first copy) the last bits of α decide whether the next copy triggers, i.e. the LIBOL-compatible
    #updates and the held SCW Table 3 numbers (measured: switching at CANCELLED·mψ moves #updates on w7a).
    """
    phi2 = phi * phi
    psi = 1.0 + phi2 / 2.0
    zeta = 1.0 + phi2
    num = -m * psi + math.sqrt(max(m * m * phi2 * phi2 / 4.0 + v * phi2 * zeta, 0.0))
    if math.isfinite(num) or not (math.isfinite(m) and math.isfinite(v)):  # (m, v themselves overflowed: as it was)
        return max(0.0, num / (v * zeta))
    return cw_alpha_stable(phi, m, v)


@njit_helper
def cw_alpha_stable(phi, m, v):
    """CW's α (:func:`cw_alpha`, φ > 0, v > 0) in a scale-safe, cancellation-free form, equal in exact
    arithmetic:

    * S = hypot(mφ²/2, φ·sqrt(vζ)): the same square root, with no m² or m²φ⁴ formed;
    * m ≤ 0: −mψ ≥ 0, the numerator S − mψ adds two non-negative terms: α = (S − mψ)/ζ/v;
    * m > 0: multiplying by (S + mψ)/(S + mψ), S² − m²ψ² = m²φ⁴/4 + vφ²ζ − m²(1 + φ² + φ⁴/4) = ζ(φ²v − m²),
      so α = (φ²v − m²)/(v(S + mψ)) = (ℓ/√v)·((φ√v + m)/√v)/(S + mψ) with ℓ = φ√v − m — a product and
      quotient of positive terms whose only small factor is the loss ℓ itself (α = 0 when ℓ ≤ 0).
    """
    phi2 = phi * phi
    psi = 1.0 + phi2 / 2.0
    zeta = 1.0 + phi2
    s = math.hypot(m * phi2 / 2.0, phi * math.sqrt(v * zeta))
    if m <= 0.0:
        return (s - m * psi) / zeta / v
    sv = math.sqrt(v)
    loss = phi * sv - m
    if loss <= 0.0:
        return 0.0
    return (loss / sv) * ((phi * sv + m) / sv) / (s + m * psi)


@njit_helper
def cw_covariance_step(alpha, phi, v):
    """The step of CW / SCW for a given α > 0 (and v > 0, φ > 0): u = ¼(−αvφ + sqrt(α²v²φ² + 4v))²,
    β = αφ/(√u + vαφ), and for the diagonal inverse form c = αφ/√u (not SOL's inverted √u).

    With t = αvφ > 0, √u = ½(−t + sqrt(t² + 4v)) loses its digits once t² ≫ 4v: it rounded to 0 (and
    c = αφ/√u divided by zero) on rows of magnitude 1e6..1e29 with a diagonal Σ. The formula as written is
    kept while the difference w = −t + sqrt(t² + 4v) is at least CANCELLED·t (t² ≲ 2¹⁹·4v); otherwise
    (issue 9, item 1) its cancellation-free equivalent :func:`cw_inverse_constant_stable` gives c, and
    β = c/(1 + cv) (exact: √u + vαφ = √u(1 + vc), so β = αφ/(√u(1 + vc)) = c/(1 + cv)).
    """
    w = -alpha * v * phi + math.sqrt(max(alpha * alpha * v * v * (phi * phi) + 4.0 * v, 0.0))
    if math.isfinite(w) and w >= CANCELLED * (alpha * v * phi):
        sqrt_u = 0.5 * abs(w)  # u = ¼ w², √u = |w|/2
        beta = alpha * phi / (sqrt_u + v * alpha * phi)
        return Step(True, alpha, 1.0, beta, alpha * phi / sqrt_u, 1.0)
    c = cw_inverse_constant_stable(alpha, phi, v)
    return Step(True, alpha, 1.0, c / (1.0 + c * v), c, 1.0)


@njit_helper
def cw_inverse_constant_stable(alpha, phi, v):
    """c = αφ/√u, √u = ½(−t + sqrt(t² + 4v)), t = αvφ > 0 (:func:`cw_covariance_step`), without the
    cancellation and without forming t², u or any square beyond p² inside hypot. Times
    (t + sqrt(t² + 4v))/(t + sqrt(t² + 4v)), √u = 2v/(t + sqrt(t² + 4v)); dividing numerator and
    denominator by 2v, with p = αφ/2 = t/(2v): √u = 1/(p + q), q = sqrt(p² + 1/v) = hypot(p, 1/√v), so
    c = αφ/√u = 2p(p + q) — exact identities, every term positive."""
    p = 0.5 * alpha * phi
    return 2.0 * p * (p + math.hypot(p, 1.0 / math.sqrt(v)))


@njit_helper
def cw_step(prm, fst, m, v, dn2, mistake, wt):
    """Exact CW (docs/algorithms/cw.md#update-rule), prm: :class:`CWParams`: update iff ℓ^φ = φ√v − m > 0, α from
    :func:`cw_alpha`.

    The weight ``wt`` > 0 does not enter (docs/algorithms/cw.md#weights): CW's constraint Pr[correct] ≥ η has no
    constant on a loss, it is the same for every weight, so a weight only switches the example on (s > 0) or off
    (s = 0, a round that never reaches the rule).

    Degenerate rounds (docs/algorithms/cw.md#degenerate-rounds): only v = 0 (ΣΔ = 0, no direction to move in)
    skips the step, not the library-wide v ≤ EPS of the other second-order rules. CW's α grows as 1/v while its
    step αΣΔ keeps the size of the margin, so a tiny v is a full step, not a negligible one: with
    ``fit_intercept`` the bias's variance falls below 1e-12 on w8a, and a guard there froze the bias for the rest
    of the stream (5.9 ± 3.3 % mistakes instead of 2.6 %). An α that overflowed (inf) is refused as a step."""
    phi = prm.phi
    if phi * math.sqrt(max(v, 0.0)) - m <= 0.0:
        return NO_STEP
    if v <= prm.v_floor:
        return TRIGGERED_NO_STEP
    alpha = cw_alpha(phi, m, v)
    if not 0.0 < alpha < math.inf:
        return TRIGGERED_NO_STEP
    step = cw_covariance_step(alpha, phi, v)
    if not (math.isfinite(step.beta) and math.isfinite(step.c)):
        return TRIGGERED_NO_STEP
    return step


CW_RULE = PrimalRule("cw", cw_step)


@register(
    "cw",
    "CW (exact): confidence-weighted learning, Pr[correct] >= eta under N(mu, Sigma) (Crammer, Dredze, Pereira 2008)",
    data=("binary", "multiclass"),
    tuning=(("eta", CONFIDENCES),),
    sources={"eta": "LIBOL default 0.7 (the SCW experiments select it)", "a": "LIBOL default"},
    position=140,
    sweep={"grid": {"eta": [0.7, 0.9]}},
    weight="on/off: the constraint Pr[correct] ≥ η has no constant, it is the same for every s > 0",
)
class CW(LinearLearner):
    __doc__ = (
        """Exact confidence-weighted learning (the "CW" of the SCW paper, §2.3).

    Update iff φ√v − m > 0, ψ = 1 + φ²/2, ζ = 1 + φ²:
    α = max(0, (−mψ + sqrt(m²φ⁴/4 + vφ²ζ))/(vζ)), u = ¼(−αvφ + sqrt(α²v²φ² + 4v))²,
    β = αφ/(√u + vαφ), μ ← μ + αΣΔ, Σ ← Σ − βΣΔΔᵀΣ (diagonal: c = αφ/√u — not SOL's inverted √u).

    Parameters
    ----------
    eta : float in (0.5, 1), default 0.7
        Confidence η (LIBOL default 0.7; the SCW experiments select it from 0.55..0.95).
"""
        + COVARIANCE_DOC.format(c="αφ/√u")
        + """
    compat : {"none", "libol"}, default "none"
        "libol" counts rounds with positive loss as updates (no other difference).

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> res = olkit.evaluate_online(olkit.make("cw"), X, y)
    >>> round(res.mistake_rate, 3)  # german in file order: deterministic
    0.344

    References
    ----------
    Crammer, K., Dredze, M., Pereira, F. (2008). Exact convex confidence-weighted learning. NIPS.
    Wang, J., Zhao, P., Hoi, S. C. H. (2012). Exact soft confidence-weighted learning. ICML.
    """
    )

    _rule = CW_RULE
    _parameter_constraints = {**COVARIANCE_CONSTRAINTS, "eta": [CONFIDENCE]}

    def __init__(
        self,
        eta=0.7,
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
        self.eta = eta
        self._set_linear_params(a, covariance, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _rule_params(self):
        return rule_params(CWParams, phi=phi_of(self.eta), v_floor=0.0 if self.covariance == "diagonal" else EPS)
