"""Soft confidence-weighted learning SCW-I and SCW-II (Wang, Zhao, Hoi, ICML 2012), the primal step
rule: ALGORITHMS.md C12, C13.

The learners are ``scw1`` and ``scw2`` (:mod:`olkit.learners.kernel.scw`): with the default
``kernel="linear"`` they run this rule on an explicit Gaussian N(μ, Σ) (full or diagonal Σ); with any
other kernel, kernel SCW (C14), whose compiled rule calls the same :func:`scw_step`.
"""
import math

from ..._compile import njit
from ...base import EPS
from .cw import cw_alpha, cw_covariance_step
from .engine import NO_STEP, TRIGGERED_NO_STEP, PrimalRule

SCW_I, SCW_II = 1, 2


@njit
def scw2_alpha(phi, C, m, v, libol_typo):
    """SCW-II (eq. (5)): n = v + 1/(2C), γ = φ sqrt(φ²m²v² + 4nv(n + vφ²)),
    α = max(0, (−(2mn + φ²mv) + γ)/(2(n² + nvφ²))). ``libol_typo`` reproduces the two typos of LIBOL's
    SCW2.m inside the square root (v·2 for v², φ·2 for φ²), ALGORITHMS.md C13 [IMPL-DIFF]."""
    phi2 = phi * phi
    n = v + 1.0 / (2.0 * C)
    if libol_typo:
        root = math.sqrt(max(phi2 * phi2 * m * m * v * 2.0 + 4.0 * n * v * phi2 * (n + v * phi * 2.0), 0.0))
    else:
        root = phi * math.sqrt(max(phi2 * m * m * v * v + 4.0 * n * v * (n + v * phi2), 0.0))
    return max(0.0, (-(2.0 * m * n + phi2 * m * v) + root) / (2.0 * (n * n + n * v * phi2)))


@njit
def scw_step(prm, fst, m, v, dn2, mistake):
    """SCW-I (eq. (4)) and SCW-II (eq. (5)); prm = [φ, C, variant, libol_typo].

    Update iff ℓ^φ = φ√v − m > 0: SCW-I α = min(C, CW's α), SCW-II α from :func:`scw2_alpha`; then u, β
    and c as CW (:func:`.cw.cw_covariance_step`, β from the capped α).
    """
    phi, C, variant, libol_typo = prm[0], prm[1], prm[2], prm[3]
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
