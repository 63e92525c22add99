"""NAROW: AROW with an adaptive regulariser (Orabona & Crammer 2010), as LIBOL's NAROW.m:
docs/algorithms/narow.md.

Slow reference: tests/reference/linear.py (``second_order``)."""

from typing import NamedTuple

from ..._compile import njit_helper
from ...base import EPS
from ...params import POSITIVE, POWERS_OF_TWO
from ...spec import register
from ..records import rule_params
from .arow import LIBOL_COMPAT_DOC, arow_step_with
from .base import COVARIANCE_CONSTRAINTS, COVARIANCE_DOC, LinearLearner
from .engine import NO_STEP, TRIGGERED_NO_STEP, PrimalRule


class NAROWParams(NamedTuple):
    """Parameters of NAROW."""

    b: float  # r_t = v/(bv − 1) where v > 1/b


@njit_helper
def narow_step(prm, fst, m, v, dn2, mistake, wt):
    """docs/algorithms/narow.md#update-rule (LIBOL's NAROW.m), prm: :class:`NAROWParams`: update iff 1 − m > 0 and
    v > 1/b: r = v/(bv − 1), then the AROW step with r (β = 1/(v + r), α = (1 − m)β, c = 1/r).
    v ≤ 1/b means r = ∞: no change (LIBOL still counts the round).

    Weight s = ``wt`` > 0: r_t ← r_t/s, as AROW's r (docs/algorithms/narow.md#weights: the loss terms weighted
    1/(2r_t) count the example s times); r_t = ∞ stays ∞."""
    b = prm.b
    loss = 1.0 - m
    if loss <= 0.0:
        return NO_STEP
    if v <= EPS or v <= 1.0 / b:
        return TRIGGERED_NO_STEP
    return arow_step_with(v / (b * v - 1.0) / wt, loss, v)


NAROW_RULE = PrimalRule("narow", narow_step)


@register(
    "narow",
    "NAROW: AROW with an adaptive, data-dependent regulariser r_t (Orabona & Crammer 2010)",
    data=("binary", "multiclass"),
    tuning=(("b", POWERS_OF_TWO),),
    sources={"b": "LIBOL default 1 (the SCW experiments select it)", "a": "LIBOL default"},
    position=330,
    sweep={"grid": {"b": [1.0, 0.1]}},
    weight="r_t ← r_t/s, as AROW's r (r_t = ∞ stays ∞)",
)
class NAROW(LinearLearner):
    __doc__ = (
        """NAROW, as LIBOL's NAROW.m.

    Update iff 1 − m > 0 and v > 1/b: r_t = v/(bv − 1), then the AROW step with r_t; v ≤ 1/b means
    r_t = ∞ (no change).

    Parameters
    ----------
    b : float > 0, default 1
        LIBOL default 1 (LIBOL stores its tuned "C" as b).
"""
        + COVARIANCE_DOC.format(c="1/r_t")
        + LIBOL_COMPAT_DOC.format(libol="including rounds with r_t = ∞")
        + """

    Settled uncertainty (docs/algorithms/narow.md#settled-questions): the rule is LIBOL's; it was not re-verified
    against the NIPS 2010 text.

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> res = olkit.evaluate_online(olkit.make("narow"), X, y)
    >>> round(res.mistake_rate, 3)  # german in file order: deterministic
    0.263

    References
    ----------
    Orabona, F., Crammer, K. (2010). New adaptive algorithms for online classification. NIPS.
    """
    )

    _rule = NAROW_RULE
    _parameter_constraints = {**COVARIANCE_CONSTRAINTS, "b": [POSITIVE]}

    def __init__(
        self,
        b=1.0,
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
        self.b = b
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
        return rule_params(NAROWParams, b=self.b)
