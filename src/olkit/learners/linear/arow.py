"""AROW: adaptive regularisation of weights (Crammer, Kulesza, Dredze 2009): docs/algorithms/arow.md.

Slow reference: tests/reference/linear.py (``second_order``)."""

from typing import NamedTuple

from ..._compile import njit_helper
from ...base import EPS
from ...params import POSITIVE, POWERS_OF_TWO
from ...spec import register
from ..records import rule_params
from .base import COVARIANCE_CONSTRAINTS, COVARIANCE_DOC, LinearLearner
from .engine import NO_STEP, TRIGGERED_NO_STEP, PrimalRule, Step


class AROWParams(NamedTuple):
    """Parameters of AROW."""

    r: float  # regulariser


LIBOL_COMPAT_DOC = """
    compat : {{"none", "libol"}}, default "none"
        "libol" counts as updates all rounds with positive loss, as LIBOL does ({libol})."""
"""The ``compat`` doc of the hinge-loss second-order learners (AROW, NAROW, NHERD)."""


@njit_helper
def arow_step(prm, fst, m, v, dn2, mistake, wt):
    """docs/algorithms/arow.md#update-rule (SCW §2.4), prm: :class:`AROWParams`: update iff ℓ = 1 − m > 0:
    β = 1/(v + r), α = ℓβ, c = 1/r.

    Weight s = ``wt`` > 0: r ← r/s for the round (docs/algorithms/arow.md#weights: the objective's two loss terms
    ℓ²/(2r) and xᵀΣx/(2r) count the example s times, s/(2r) = 1/(2(r/s)))."""
    loss = 1.0 - m
    if loss <= 0.0:
        return NO_STEP
    if v <= EPS:
        return TRIGGERED_NO_STEP
    return arow_step_with(prm.r / wt, loss, v)


@njit_helper
def arow_step_with(r, loss, v):
    """The AROW step with regulariser r: β = 1/(v + r), α = ℓβ, c = 1/r (also NAROW's, with r_t)."""
    beta = 1.0 / (v + r)
    return Step(True, loss * beta, 1.0, beta, 1.0 / r, 1.0)


AROW_RULE = PrimalRule("arow", arow_step)


@register(
    "arow",
    "AROW: adaptive regularisation of weights, hinge-loss second-order update (Crammer et al. 2009)",
    data=("binary", "multiclass"),
    tuning=(("r", POWERS_OF_TWO),),
    sources={"r": "LIBOL default 1 (the SCW experiments select it)", "a": "LIBOL default"},
    position=310,
    sweep={"cases": [{"r": 0.1}], "grid": {"r": [1.0, 0.1, 10.0]}},
    weight="r ← r/s: the loss terms weighted 1/(2r) count s times (Σ⁻¹ += (s/r) xxᵀ)",
)
class AROW(LinearLearner):
    __doc__ = (
        """AROW.

    Update iff ℓ = 1 − m > 0: β = 1/(v + r), α = ℓβ, μ ← μ + αΣΔ, Σ ← Σ − βΣΔΔᵀΣ (SCW §2.4).

    Parameters
    ----------
    r : float > 0, default 1
        Regularisation (LIBOL default 1; LIBOL passes its tuned "C" as r).
"""
        + COVARIANCE_DOC.format(c="1/r")
        + LIBOL_COMPAT_DOC.format(libol="no other difference")
        + """

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> res = olkit.evaluate_online(olkit.make("arow"), X, y)
    >>> round(res.mistake_rate, 3)  # german in file order: deterministic
    0.253

    References
    ----------
    Crammer, K., Kulesza, A., Dredze, M. (2009). Adaptive regularization of weight vectors. NIPS.
    """
    )

    _rule = AROW_RULE
    _parameter_constraints = {**COVARIANCE_CONSTRAINTS, "r": [POSITIVE]}

    def __init__(
        self,
        r=1.0,
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
        self.r = r
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
        return rule_params(AROWParams, r=self.r)
