"""Soft confidence-weighted learning SCW-I and SCW-II (Wang, Zhao, Hoi, ICML 2012), the primal step
rule: docs/algorithms/scw1.md, docs/algorithms/scw2.md.

The learners are ``scw1`` and ``scw2`` (:mod:`olkit.learners.kernel.scw`): with the default
``kernel="linear"`` they run this rule on an explicit Gaussian N(μ, Σ) (full or diagonal Σ); with any
other kernel, kernel SCW (docs/algorithms/scw1.md#kernel-scw), whose compiled rule calls the same :func:`scw_step`.
"""

import math
from typing import NamedTuple

from ..._compile import njit_helper
from ...base import EPS
from .cw import CANCELLED, cw_alpha, cw_covariance_step
from .engine import NO_STEP, TRIGGERED_NO_STEP, PrimalRule

SCW_I, SCW_II = 1, 2


class SCWParams(NamedTuple):
    """Parameters of SCW-I and SCW-II (the primal step; kernel SCW adds its a)."""

    phi: float  # φ = Φ⁻¹(η)
    C: float
    variant: int  # SCW_I or SCW_II
    libol_typo: bool  # compat="libol": SCW-II's α with LIBOL's typo


@njit_helper
def scw2_alpha(phi, C, m, v, libol_typo):
    """SCW-II (eq. (5)): n = v + 1/(2C), γ = φ sqrt(φ²m²v² + 4nv(n + vφ²)),
    α = max(0, (−(2mn + φ²mv) + γ)/(2(n² + nvφ²))). ``libol_typo`` reproduces the two typos of LIBOL's
    SCW2.m inside the square root (v·2 for v², φ·2 for φ²), docs/algorithms/scw2.md#compat-modes.

    The paper's formula (v > 0) is evaluated as written unless its numerator cancelled (m > 0 and
    γ − m(2n + φ²v) < CANCELLED·m(2n + φ²v), as m → φ√v) or a product overflowed (φ²m²v², n² beyond
    float64: it gave NaN from rows of magnitude ~1e53); then its cancellation-free, scale-safe equivalent
    :func:`scw2_alpha_stable` (issue 9, item 1). LIBOL's expression is kept as it is (its cancellation too)
    unless it overflows (4nvφ²(n + 2vφ) ~ v³ beyond float64 from rows of ~1e51); then the same expression
    divided through by v: with ñ = n/v, R = sqrt(2φ⁴m²v + 4nvφ²(n + 2vφ)) = v·hypot(φ²m·sqrt(2/v),
    2φ·√v·sqrt(ñ(ñ + 2φ))), α = (R/v − m(2ñ + φ²))/(2v·ñ(ñ + φ²)).
    """
    phi2 = phi * phi
    n = v + 1.0 / (2.0 * C)
    if libol_typo:
        root = math.sqrt(max(phi2 * phi2 * m * m * v * 2.0 + 4.0 * n * v * phi2 * (n + v * phi * 2.0), 0.0))
        num = -(2.0 * m * n + phi2 * m * v) + root
        den = 2.0 * (n * n + n * v * phi2)
        if (math.isfinite(num) and math.isfinite(den)) or not (math.isfinite(m) and math.isfinite(v)):
            return max(0.0, num / den)
        nt = 1.0 + 1.0 / (2.0 * C * v)  # ñ = n/v
        root_v = math.hypot(phi2 * m * math.sqrt(2.0 / v), 2.0 * phi * math.sqrt(v) * math.sqrt(nt * (nt + 2.0 * phi)))
        return max(0.0, (root_v - m * (2.0 * nt + phi2)) / (2.0 * v * nt * (nt + phi2)))
    root = phi * math.sqrt(max(phi2 * m * m * v * v + 4.0 * n * v * (n + v * phi2), 0.0))
    mb = 2.0 * m * n + phi2 * m * v
    den = 2.0 * (n * n + n * v * phi2)
    num = -mb + root
    if not (math.isfinite(m) and math.isfinite(v)) or (  # (m, v themselves overflowed: as it was)
        math.isfinite(num) and math.isfinite(den) and (m <= 0.0 or num >= CANCELLED * mb)
    ):
        return max(0.0, num / den)
    return scw2_alpha_stable(phi, C, m, v)


@njit_helper
def scw2_alpha_stable(phi, C, m, v):
    """SCW-II's α (the paper's formula in :func:`scw2_alpha`; φ, C, v > 0) in a cancellation-free,
    scale-safe form, equal in exact arithmetic. Divide n, γ and the numerator by v: ñ = n/v = 1 + 1/(2Cv),
    γ = v·φ·H with H = hypot(φm, 2·√v·sqrt(ñ(ñ + φ²))) (= sqrt(φ²m² + 4vñ(ñ + φ²)), no m²v² or n² formed),
    2mn + φ²mv = m·v·(2ñ + φ²) and 2(n² + nvφ²) = 2v²·ñ(ñ + φ²). Then

    * m ≤ 0: α = (φH − m(2ñ + φ²))/(2v·ñ(ñ + φ²)), a sum of non-negative terms (the formula itself);
    * m > 0: the numerator γ − m(2n + φ²v) cancels as m → φ√v. With B = 2n + φ²v,
      γ² − m²B² = φ⁴m²v² + 4φ²nv(n + vφ²) − m²(4n² + 4nφ²v + φ⁴v²) = 4n(n + φ²v)(φ²v − m²), so
      α = (γ² − m²B²)/((γ + mB)·2n(n + vφ²)) = 2(φ²v − m²)/(γ + mB)
        = 2·(ℓ/√v)·((φ√v + m)/√v)/(φH + m(2ñ + φ²)),  ℓ = φ√v − m,
      with only positive terms (ℓ > 0 is the update's condition; α = 0 when ℓ ≤ 0).
    """
    phi2 = phi * phi
    nt = 1.0 + 1.0 / (2.0 * C * v)  # ñ = n/v
    sv = math.sqrt(v)
    h = math.hypot(phi * m, 2.0 * sv * math.sqrt(nt * (nt + phi2)))
    if m <= 0.0:
        return (phi * h - m * (2.0 * nt + phi2)) / (2.0 * v * nt * (nt + phi2))
    loss = phi * sv - m
    if loss <= 0.0:
        return 0.0
    return 2.0 * (loss / sv) * ((phi * sv + m) / sv) / (phi * h + m * (2.0 * nt + phi2))


@njit_helper
def scw_step(prm, fst, m, v, dn2, mistake, wt):
    """SCW-I (eq. (4)) and SCW-II (eq. (5)); prm: :class:`SCWParams`.

    Update iff ℓ^φ = φ√v − m > 0: SCW-I α = min(C, CW's α), SCW-II α from :func:`scw2_alpha`; then u, β
    and c as CW (:func:`.cw.cw_covariance_step`, β from the capped α).

    Weight s = ``wt`` > 0: C ← s·C for the round (docs/algorithms/scw1.md#weights, docs/algorithms/scw2.md#weights:
    the objective's C·ℓ^φ, resp. C·(ℓ^φ)², counts the example s times). The trigger and CW's α do not depend on C.
    """
    phi, C, variant, libol_typo = prm.phi, prm.C * wt, prm.variant, prm.libol_typo
    if phi * math.sqrt(max(v, 0.0)) - m <= 0.0:
        return NO_STEP
    if v <= EPS:
        return TRIGGERED_NO_STEP
    if variant == SCW_II:
        alpha = scw2_alpha(phi, C, m, v, libol_typo)
    else:
        alpha = min(C, cw_alpha(phi, m, v))
    if alpha <= 0.0:
        return TRIGGERED_NO_STEP
    return cw_covariance_step(alpha, phi, v)


SCW_RULE = PrimalRule("scw", scw_step)
