"""Passive-Aggressive PA, PA-I, PA-II (Crammer et al. 2006), primal form: docs/algorithms/pa.md#linear-form (the
kernel rule with κ(u, v) = u·v; SCW paper eqs (1)–(2)).

The learners are ``pa``, ``pa1``, ``pa2`` (:mod:`olkit.learners.kernel.pa`); with ``kernel="linear"`` they
keep an explicit weight vector and run this rule on Δ = y x (binary) or e_y⊗x − e_s⊗x (multiclass,
docs/algorithms/linear-family.md).
"""
from ..._compile import njit
from ...base import EPS
from .engine import NO_STEP, TRIGGERED_NO_STEP, PrimalRule


@njit
def pa_step(prm, fst, m, v, dn2, mistake):
    """prm = [variant, C]: on ℓ = 1 − m > 0, w ← w + τΔ with τ = ℓ/‖Δ‖² (PA), min(C, ℓ/‖Δ‖²)
    (PA-I), ℓ/(‖Δ‖² + 1/(2C)) (PA-II)."""
    variant, C = prm[0], prm[1]
    loss = 1.0 - m
    if loss <= 0.0:
        return NO_STEP
    if dn2 <= EPS:
        return TRIGGERED_NO_STEP
    if variant == 0:
        tau = loss / dn2
    elif variant == 1:
        tau = min(C, loss / dn2)
    else:
        tau = loss / (dn2 + 1.0 / (2.0 * C))
    return (True, tau, 1.0, 0.0, 0.0, 1.0)


PA_PRIMAL = PrimalRule("pa", pa_step)
