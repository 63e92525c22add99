"""ROMMA and aggressive ROMMA (Li & Long 2002), primal form: docs/algorithms/romma.md#linear-form
(the kernel rules with κ(u, v) = u·v).

The learners are ``romma`` and ``agg-romma`` (:mod:`olkit.learners.kernel.romma`); with ``kernel="linear"``
they keep an explicit weight vector and run this rule. w ← c w + d Δ is a lazy rescaling of the stored
weights plus a sparse step; ROMMA's D = ‖Δ‖²‖w‖² − m² cancels, so ‖w‖² must be that of the stored weights
to the last bit (LIBOL recomputes norm(w), O(d) per update). The engine's ``move_mean_tracking_norm``
keeps ‖W‖² of the stored weights in double-double precision in O(nnz) per update (each step's change as
error-free sums of fma-exact squares; equal to the exact rational Σ W_j² to 1e-20 relative on streams whose
values span 1e-8..1e8, tests/test_numerics_linear.py; a recurrence or a plain running sum drifted).
"""

from typing import NamedTuple

from ..._compile import njit_helper
from ...base import EPS
from .engine import N2, NO_STEP, NORM_HI, NORM_LO, TRIGGERED_NO_STEP, WSCALE, PrimalRule, Step, move_mean_tracking_norm


class ROMMAParams(NamedTuple):
    """Parameters of ROMMA and aggressive ROMMA (kernel and linear forms)."""

    aggressive: bool  # update on every margin error y f < 1 (agg-ROMMA), not on mistakes only
    reset_case: bool  # agg-ROMMA restarts from Δ/‖Δ‖² when only the margin constraint is active
    libol_first: bool  # compat="libol": the first update is w = Δ (not Δ/‖Δ‖²)


@njit_helper
def romma_step(prm, fst, m, v, dn2, mistake, wt):
    """prm: :class:`ROMMAParams`. w ← c w + d Δ with c = (A − m)/D,
    d = N2 (1 − m)/D, A = ‖Δ‖² N2, D = A − m².

    The first update (N2 = 0) is the min-norm w = Δ/‖Δ‖² (LIBOL: w = Δ); D ≤ 1e-12·A skips the round;
    agg-ROMMA's reset case (m ≥ A, only the margin constraint active) restarts from Δ/‖Δ‖² (γ = 0).
    """
    # wt > 0 changes nothing: the constraints do not depend on it (docs/algorithms/romma.md#weights)
    aggressive, reset_case, libol_first = prm.aggressive, prm.reset_case, prm.libol_first
    triggered = (m < 1.0) if aggressive else mistake
    if not triggered:
        return NO_STEP
    if dn2 <= EPS:
        return TRIGGERED_NO_STEP
    norm2 = fst[N2]
    if norm2 <= 0.0:
        return Step(True, 1.0 if libol_first else 1.0 / dn2, 1.0, 0.0, 0.0, 1.0)
    A = dn2 * norm2
    if aggressive and reset_case and m >= A:
        return Step(True, 1.0 / dn2, 0.0, 0.0, 0.0, 1.0)
    D = A - m * m
    if D <= EPS * A:
        return TRIGGERED_NO_STEP
    return Step(True, norm2 * (1.0 - m) / D, (A - m) / D, 0.0, 0.0, 1.0)


@njit_helper
def romma_norm(fst, gamma, alpha, m, dn2):
    """‖w‖² = s²‖W‖², from the exactly tracked ‖W‖² of the stored weights."""
    fst[N2] = (fst[NORM_HI] + fst[NORM_LO]) * fst[WSCALE] * fst[WSCALE]


ROMMA_PRIMAL = PrimalRule("romma", romma_step, move_mean=move_mean_tracking_norm, after_update=romma_norm)
