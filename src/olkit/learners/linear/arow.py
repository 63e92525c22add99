"""AROW (Crammer, Kulesza, Dredze 2009), NAROW (Orabona & Crammer 2010) and NHERD (Crammer & Lee 2010):
ALGORITHMS.md C9–C11."""
from ...base import check_number
from ...registry import register
from .base import COVARIANCE_DOC, LinearLearner

_COMMON = COVARIANCE_DOC + """
    compat : {{"none", "libol"}}, default "none"
        "libol" counts as updates all rounds with positive loss, as LIBOL does ({libol})."""


@register("arow", "AROW: adaptive regularisation of weights, hinge-loss second-order update "
                  "(Crammer et al. 2009)")
class AROW(LinearLearner):
    __doc__ = """AROW.

    Update iff ℓ = 1 − m > 0: β = 1/(v + r), α = ℓβ, μ ← μ + αΣΔ, Σ ← Σ − βΣΔΔᵀΣ (SCW §2.4).

    Parameters
    ----------
    r : float > 0, default 1
        Regularisation (LIBOL default 1; LIBOL passes its tuned "C" as r).
""" + _COMMON.format(c="1/r", libol="no other difference") + """

    References
    ----------
    Crammer, K., Kulesza, A., Dredze, M. (2009). Adaptive regularization of weight vectors. NIPS.
    """

    _rule = "arow"

    def __init__(self, r=1.0, a=1.0, covariance="full", compat="none"):
        self.r = r
        self.a = a
        self.covariance = covariance
        self.compat = compat

    def _check_params(self):
        super()._check_params()
        check_number("r", self.r, low=0, low_open=True)

    def _rule_params(self):
        return [float(self.r)]


@register("narow", "NAROW: AROW with an adaptive, data-dependent regulariser r_t (Orabona & Crammer 2010)")
class NAROW(LinearLearner):
    __doc__ = """NAROW, as LIBOL's NAROW.m.

    Update iff 1 − m > 0 and v > 1/b: r_t = v/(bv − 1), then the AROW step with r_t; v ≤ 1/b means
    r_t = ∞ (no change).

    Parameters
    ----------
    b : float > 0, default 1
        LIBOL default 1 (LIBOL stores its tuned "C" as b).
""" + _COMMON.format(c="1/r_t", libol="including rounds with r_t = ∞") + """

    Settled uncertainty (ALGORITHMS.md C11 [UNCERTAIN]): the rule is LIBOL's; it was not re-verified
    against the NIPS 2010 text.

    References
    ----------
    Orabona, F., Crammer, K. (2010). New adaptive algorithms for online classification. NIPS.
    """

    _rule = "narow"

    def __init__(self, b=1.0, a=1.0, covariance="full", compat="none"):
        self.b = b
        self.a = a
        self.covariance = covariance
        self.compat = compat

    def _check_params(self):
        super()._check_params()
        check_number("b", self.b, low=0, low_open=True)

    def _rule_params(self):
        return [float(self.b)]


NHERD_DIAGONALS = {"project": 0, "exact": 1, "drop": 2}


@register("nherd", "NHERD: normal herding, a Gaussian over weights moved to the loss-minimising "
                   "position (Crammer & Lee 2010)")
class NHERD(LinearLearner):
    __doc__ = """Normal Herding (NHERD).

    Update iff 1 − m > 0: α = (1 − m)/(v + 1/C), μ ← μ + αΣΔ (old Σ),
    Σ ← Σ − ΣΔΔᵀΣ (C²v + 2C)/(1 + Cv)² (LIBOL NHERD.m).

    Parameters
    ----------
    C : float > 0, default 1
        Aggressiveness (γ = 1/C).
    diagonal : {"project", "exact", "drop"}, default "project"
        Diagonal form used with covariance="diagonal" (Crammer & Lee's variants): "project" is the
        inverse form with c = C²v + 2C; "exact" Σ_jj ← Σ_jj/(1 + C x_j² Σ_jj)²; "drop" keeps the
        diagonal of the full update, Σ_jj − (Σ_jj x_j)²(C²v + 2C)/(1 + Cv)².
""" + _COMMON.format(c="C²v + 2C", libol="no other difference") + """

    References
    ----------
    Crammer, K., Lee, D. D. (2010). Learning via Gaussian herding. NIPS.
    """

    _rule = "nherd"

    def __init__(self, C=1.0, a=1.0, covariance="full", diagonal="project", compat="none"):
        self.C = C
        self.a = a
        self.covariance = covariance
        self.diagonal = diagonal
        self.compat = compat

    def _check_params(self):
        super()._check_params()
        check_number("C", self.C, low=0, low_open=True)
        if self.diagonal not in NHERD_DIAGONALS:
            raise ValueError(f"diagonal={self.diagonal!r} is not valid for nherd; valid choices: "
                             f"{', '.join(map(repr, NHERD_DIAGONALS))}")

    def _rule_params(self):
        return [float(self.C)]

    def _diag_mode(self):
        return NHERD_DIAGONALS[self.diagonal]
