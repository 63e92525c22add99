"""Exact confidence-weighted learning CW (Crammer, Dredze, Pereira 2008; the "CW" of the SCW paper §2.3),
ALGORITHMS.md C7. The weights are a Gaussian N(μ, Σ); φ = Φ⁻¹(η)."""
import math

from ..._compile import njit
from ...base import EPS
from ...params import CONFIDENCES
from ...spec import register
from .base import CONFIDENCE, COVARIANCE_CONSTRAINTS, COVARIANCE_DOC, LinearLearner, phi_of
from .engine import NO_STEP, TRIGGERED_NO_STEP, PrimalRule


@njit
def cw_alpha(phi, m, v):
    """α = max(0, (−mψ + sqrt(m²φ⁴/4 + vφ²ζ))/(vζ)), ψ = 1 + φ²/2, ζ = 1 + φ² (SCW §2.3)."""
    phi2 = phi * phi
    psi = 1.0 + phi2 / 2.0
    zeta = 1.0 + phi2
    return max(0.0, (-m * psi + math.sqrt(max(m * m * phi2 * phi2 / 4.0 + v * phi2 * zeta, 0.0))) / (v * zeta))


@njit
def cw_covariance_step(alpha, phi, v):
    """The step of CW / SCW for a given α > 0: u = ¼(−αvφ + sqrt(α²v²φ² + 4v))², β = αφ/(√u + vαφ),
    and for the diagonal inverse form c = αφ/√u (not SOL's inverted √u)."""
    w = -alpha * v * phi + math.sqrt(max(alpha * alpha * v * v * (phi * phi) + 4.0 * v, 0.0))
    sqrt_u = 0.5 * abs(w)  # u = ¼ w², √u = |w|/2
    beta = alpha * phi / (sqrt_u + v * alpha * phi)
    return (True, alpha, 1.0, beta, alpha * phi / sqrt_u, 1.0)


@njit
def cw_step(prm, fst, m, v, dn2, mistake):
    """Exact CW (C7), prm = [φ]: update iff ℓ^φ = φ√v − m > 0, α from :func:`cw_alpha`."""
    phi = prm[0]
    if phi * math.sqrt(max(v, 0.0)) - m <= 0.0:
        return NO_STEP
    if v <= EPS:
        return TRIGGERED_NO_STEP
    alpha = cw_alpha(phi, m, v)
    if alpha <= 0.0:
        return TRIGGERED_NO_STEP
    return cw_covariance_step(alpha, phi, v)


CW_RULE = PrimalRule("cw", cw_step)


@register("cw", "CW (exact): confidence-weighted learning, Pr[correct] >= eta under N(mu, Sigma) "
                "(Crammer, Dredze, Pereira 2008)", data=("binary", "multiclass"),
          tuning=(("eta", CONFIDENCES),),
          sources={"eta": "LIBOL default 0.7 (the SCW experiments select it)", "a": "LIBOL default"})
class CW(LinearLearner):
    __doc__ = """Exact confidence-weighted learning (the "CW" of the SCW paper, §2.3).

    Update iff φ√v − m > 0, ψ = 1 + φ²/2, ζ = 1 + φ²:
    α = max(0, (−mψ + sqrt(m²φ⁴/4 + vφ²ζ))/(vζ)), u = ¼(−αvφ + sqrt(α²v²φ² + 4v))²,
    β = αφ/(√u + vαφ), μ ← μ + αΣΔ, Σ ← Σ − βΣΔΔᵀΣ (diagonal: c = αφ/√u — not SOL's inverted √u).

    Parameters
    ----------
    eta : float in (0.5, 1), default 0.7
        Confidence η (LIBOL default 0.7; the SCW experiments select it from 0.55..0.95).
""" + COVARIANCE_DOC.format(c="αφ/√u") + """
    compat : {"none", "libol"} — "libol" counts rounds with positive loss as updates (no other difference).

    References
    ----------
    Crammer, K., Dredze, M., Pereira, F. (2008). Exact convex confidence-weighted learning. NIPS.
    Wang, J., Zhao, P., Hoi, S. C. H. (2012). Exact soft confidence-weighted learning. ICML.
    """

    _rule = CW_RULE
    _parameter_constraints = {**COVARIANCE_CONSTRAINTS, "eta": [CONFIDENCE]}

    def __init__(self, eta=0.7, a=1.0, covariance="full", compat="none"):
        self.eta = eta
        self.a = a
        self.covariance = covariance
        self.compat = compat

    def _rule_params(self):
        return [phi_of(self.eta)]
