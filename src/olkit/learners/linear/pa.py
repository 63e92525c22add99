"""Passive-Aggressive PA, PA-I, PA-II (Crammer et al. 2006), primal form: docs/algorithms/pa.md#linear-form (the
kernel rule with κ(u, v) = u·v; SCW paper eqs (1)–(2)).

The learners are ``pa``, ``pa1``, ``pa2`` (:mod:`olkit.learners.kernel.pa`); with ``kernel="linear"`` they
keep an explicit weight vector and run this rule on Δ = y x (binary) or e_y⊗x − e_s⊗x (multiclass,
docs/algorithms/linear-family.md).
"""

from typing import NamedTuple

from ..._compile import njit_inline
from ...base import EPS
from .engine import NO_STEP, TRIGGERED_NO_STEP, PrimalRule, Step

PA_PLAIN, PA_I, PA_II = 0, 1, 2


class PAParams(NamedTuple):
    """Parameters of PA / PA-I / PA-II (kernel and linear forms)."""

    variant: int  # PA_PLAIN, PA_I or PA_II
    C: float  # aggressiveness (not read by plain PA)


@njit_inline
def pa_step(prm, fst, m, v, dn2, mistake, wt):
    """prm: :class:`PAParams`. On ℓ = 1 − m > 0, w ← w + τΔ with τ = ℓ/‖Δ‖² (PA), min(C, ℓ/‖Δ‖²)
    (PA-I), ℓ/(‖Δ‖² + 1/(2C)) (PA-II)."""
    # C_t = s_t C: the example's loss counts s_t times (docs/algorithms/pa1.md#weights, docs/algorithms/pa2.md#weights);
    # plain PA reads no C, its weight only switches the example on (docs/algorithms/pa.md#weights)
    variant, C = prm.variant, prm.C * wt
    loss = 1.0 - m
    if loss <= 0.0:
        return NO_STEP
    if dn2 <= EPS:
        return TRIGGERED_NO_STEP
    if variant == PA_PLAIN:
        tau = loss / dn2
    elif variant == PA_I:
        tau = min(C, loss / dn2)
    else:
        tau = loss / (dn2 + 1.0 / (2.0 * C))
    return Step(True, tau, 1.0, 0.0, 0.0, 1.0)


PA_PRIMAL = PrimalRule("pa", pa_step)
