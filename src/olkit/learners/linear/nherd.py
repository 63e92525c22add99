"""NHERD: normal herding (Crammer & Lee 2010): docs/algorithms/nherd.md.

Slow reference: tests/reference/linear.py (``second_order``)."""

import math
from typing import NamedTuple

from ..._compile import njit_helper
from ...base import EPS
from ...params import POSITIVE, POWERS_OF_TWO, Options
from ...spec import register
from ..records import rule_params
from .arow import LIBOL_COMPAT_DOC
from .base import COVARIANCE_CONSTRAINTS, COVARIANCE_DOC, LinearLearner
from .engine import DIAG_DROP, DIAG_INVERSE, DIAG_SQUARED, NO_STEP, TRIGGERED_NO_STEP, PrimalRule, Step


class NHERDParams(NamedTuple):
    """Parameters of NHERD."""

    C: float  # aggressiveness (γ = 1/C)


@njit_helper
def nherd_step(prm, fst, m, v, dn2, mistake, wt):
    """docs/algorithms/nherd.md#update-rule, prm: :class:`NHERDParams`: update iff 1 − m > 0: α = (1 − m)/(v + 1/C)
    (with the old Σ);
    full Σ ← Σ − ΣΔΔᵀΣ (C²v + 2C)/(1 + Cv)²  (β);  diagonal "project": c = C²v + 2C.
    The diagonal "exact" and "drop" variants are applied by the engine from C (:func:`nherd_squared_diagonal_C`) and β.

    Where (1 + Cv)² overflows (Cv > ~1e154; β became 0 where β ≈ 1/v), β is evaluated as
    (C/(1 + Cv))·((Cv + 2)/(1 + Cv)) — the same value, since C²v + 2C = C(Cv + 2) (issue 9, item 1).

    Weight s = ``wt`` > 0: C ← s·C for the round, in the mean's α and in every covariance form
    (docs/algorithms/nherd.md#weights: the objective's (C/2)·ℓ² counts the example s times)."""
    C = prm.C * wt
    loss = 1.0 - m
    if loss <= 0.0:
        return NO_STEP
    if v <= EPS:
        return TRIGGERED_NO_STEP
    alpha = loss / (v + 1.0 / C)
    den = (1.0 + C * v) * (1.0 + C * v)
    if math.isfinite(den):
        beta = (C * C * v + 2.0 * C) / den
    else:
        beta = (C / (1.0 + C * v)) * ((C * v + 2.0) / (1.0 + C * v))
    return Step(True, alpha, 1.0, beta, C * C * v + 2.0 * C, 1.0)


@njit_helper
def nherd_squared_diagonal_C(prm, wt):
    """The C of NHERD's "exact" diagonal Σ_jj/(1 + C x_j² Σ_jj)² (applied by the engine): s·C for an example of
    weight s = ``wt`` (docs/algorithms/nherd.md#weights)."""
    return prm.C * wt


NHERD_RULE = PrimalRule("nherd", nherd_step, squared_diagonal_C=nherd_squared_diagonal_C)

NHERD_DIAGONALS = {"project": DIAG_INVERSE, "exact": DIAG_SQUARED, "drop": DIAG_DROP}


@register(
    "nherd",
    "NHERD: normal herding, a Gaussian over weights moved to the loss-minimising position (Crammer & Lee 2010)",
    data=("binary", "multiclass"),
    tuning=(("C", POWERS_OF_TWO),),
    sources={"C": "LIBOL default 1 (the SCW experiments select it)", "a": "LIBOL default"},
    position=320,
    sweep={
        "cases": [{"covariance": "diagonal", "diagonal": "exact"}, {"covariance": "diagonal", "diagonal": "drop"}],
        "grid": {"diagonal": ["project", "exact", "drop"], "C": [1.0, 0.1]},
    },
    weight="C ← s·C: the squared hinge (C/2)ℓ² counts s times, in the mean's step and the covariance",
)
class NHERD(LinearLearner):
    __doc__ = (
        """Normal Herding (NHERD).

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
"""
        + COVARIANCE_DOC.format(c="C²v + 2C")
        + LIBOL_COMPAT_DOC.format(libol="no other difference")
        + """

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> res = olkit.evaluate_online(olkit.make("nherd"), X, y)
    >>> round(res.mistake_rate, 3)  # german in file order: deterministic
    0.258

    References
    ----------
    Crammer, K., Lee, D. D. (2010). Learning via Gaussian herding. NIPS.
    """
    )

    _rule = NHERD_RULE
    _parameter_constraints = {**COVARIANCE_CONSTRAINTS, "C": [POSITIVE], "diagonal": [Options(tuple(NHERD_DIAGONALS))]}

    def __init__(
        self,
        C=1.0,
        a=1.0,
        covariance="full",
        diagonal="project",
        compat="none",
        *,
        fit_intercept=False,
        intercept_scaling=1.0,
        average=False,
        class_weight=None,
        shuffle=True,
        random_state=None,
    ):
        self.C = C
        self.diagonal = diagonal
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
        return rule_params(NHERDParams, C=self.C)

    def _diag_mode(self):
        return NHERD_DIAGONALS[self.diagonal]
