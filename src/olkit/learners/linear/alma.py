"""ALMA_2(α) (Gentile 2001), primal form: docs/algorithms/alma.md#linear-form (the kernel
rule with κ(u, v) = u·v).

The learner is ``alma`` (:mod:`olkit.learners.kernel.alma`); with ``kernel="linear"`` it keeps an explicit
weight vector and runs this rule on x̂ = x/‖x‖ (``compat="libol"``: on x, as LIBOL's ALMA.m); the
projection w ← w'/max(1, ‖w'‖) is a lazy rescaling of the stored weights.
"""

import math
from typing import NamedTuple

import numpy as np

from ..._compile import njit_helper
from ...base import EPS
from .engine import AUX, N2, NO_STEP, TRIGGERED_NO_STEP, PrimalRule, Step


class ALMAParams(NamedTuple):
    """Parameters of ALMA_2(α) (kernel and linear forms)."""

    alpha: float
    C: float
    libol: bool  # compat="libol": strict trigger m < (1 − α)γ_k, counted rounds, and x instead of x/‖x‖


@njit_helper
def alma_step(prm, fst, m, v, dn2, mistake, wt):
    """prm: :class:`ALMAParams`. Update iff m ≤ (1 − α) γ_k (LIBOL: <), w' = w + η_k Δ̂,
    w ← w'/max(1, ‖w'‖), k ← k + 1, with γ_k = B/√k, η_k = C/√k, B = 1/α (p = 2); fst[AUX] holds k.
    """
    alpha, C, strict = prm.alpha, prm.C, prm.libol
    k = fst[AUX]
    bound = (1.0 - alpha) * (1.0 / alpha) / math.sqrt(k)
    triggered = (m < bound) if strict else (m <= bound)
    if not triggered:
        return NO_STEP
    if strict:
        fst[AUX] = k + 1.0  # LIBOL counts every triggered round, even a zero row
    if dn2 <= EPS:
        return TRIGGERED_NO_STEP
    if not strict:
        fst[AUX] = k + 1.0
    eta = C / math.sqrt(k) * wt  # the step η_k s_t (docs/algorithms/alma.md#weights)
    norm2 = fst[N2] + 2.0 * eta * m + eta * eta * dn2
    gamma = 1.0 / max(1.0, math.sqrt(max(norm2, 0.0)))
    return Step(True, eta * gamma, gamma, 0.0, 0.0, 1.0)


@njit_helper
def alma_input_scale(prm, xn2):
    """x̂ = x/‖x‖ (Gentile); compat="libol" works on x itself."""
    if prm.libol:
        return 1.0
    return 1.0 / math.sqrt(xn2) if xn2 > EPS else 0.0


@njit_helper
def alma_norm(fst, gamma, alpha, m, dn2):
    """‖γw + αΔ‖² = γ²‖w‖² + 2γα m + α²‖Δ‖²: ALMA's ‖w‖ ≤ 1 enters only its projection, with no
    cancellation, so the O(1) recurrence is as accurate as recomputing."""
    fst[N2] = gamma * gamma * fst[N2] + 2.0 * gamma * alpha * m + alpha * alpha * dn2


class _ALMARule(PrimalRule):
    def decision(self, model, X, W=None):
        """ALMA scores x̂ = x/‖x‖ (not under compat="libol")."""
        scores = super().decision(model, X, W)
        if model.state.prm.libol:
            return scores
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        return scores / np.where(norms > EPS, norms, np.inf)[:, None]


ALMA_PRIMAL = _ALMARule("alma", alma_step, input_scale=alma_input_scale, after_update=alma_norm)
