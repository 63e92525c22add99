"""Improved ellipsoid method IELLIP (Yang, Jin, Ye ICML 2009) as in LIBOL, ALGORITHMS.md C8."""
from ...base import check_number
from ...registry import register
from .base import LinearLearner


@register("iellip", "IELLIP: improved ellipsoid method, margin-1 step in the ellipsoid metric with decaying "
                    "shrinkage (Yang et al. 2009)")
class IELLIP(LinearLearner):
    """Improved Ellipsoid method.

    On a mistake with v = ΔᵀΣΔ > 0: μ ← μ + (1 − m)/v · ΣΔ (the new margin is exactly 1) and
    Σ ← (Σ − c_t ΣggᵀΣ)/(1 − c_t) with g = Δ/√v; after every round c_t ← c_t·b.

    Parameters
    ----------
    a : float, default 1
        Σ₁ = aI.
    b : float in (0, 1), default 0.3
        Decay of c (LIBOL default; the SCW experiments select it from 0.1..0.9).
    c : float in (0, 1), default 0.1
        Initial c_1 (LIBOL's IELLIP_c).
    covariance : {"full", "diagonal"}, default "full"
    compat : {"none", "libol"} — no difference: c decays every round in both (LIBOL's behaviour,
        ALGORITHMS.md C8 [UNCERTAIN]: the original paper's schedule was not re-verified).

    Round t uses c·b^(t−1): c_1 = c, as LIBOL's IELLIP.m (ALGORITHMS.md C8 writes c_t = c·b^t counting
    rounds from 0).

    Settled uncertainty (multiclass, ALGORITHMS.md C16): the covariance is the joint block-diagonal Σ, so
    the division by (1 − c_t) scales every class's block, not only the two classes of the round.

    References
    ----------
    Yang, L., Jin, R., Ye, J. (2009). Online learning by ellipsoid method. ICML.
    """

    _rule = "iellip"
    _poor_score = True  # mistake-driven with a fast-decaying step: one pass fits small toy data poorly

    def __init__(self, a=1.0, b=0.3, c=0.1, covariance="full", compat="none"):
        self.a = a
        self.b = b
        self.c = c
        self.covariance = covariance
        self.compat = compat

    def _check_params(self):
        super()._check_params()
        check_number("b", self.b, low=0, high=1, low_open=True, high_open=True)
        check_number("c", self.c, low=0, high=1, low_open=True, high_open=True)

    def _rule_params(self):
        return [float(self.b)]

    def _aux(self):
        return float(self.c)
