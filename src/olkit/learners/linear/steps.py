"""Step rules of the second-order linear learners (ALGORITHMS.md Part C), in the form the engine uses.

Each rule receives the margin m = μ·Δ, the confidence v = ΔᵀΣΔ, dn2 = ‖Δ‖² and the mistake flag of the
round (Δ = y x for binary data, e_y⊗x − e_s⊗x for multiclass data, C16) and returns
``(triggered, alpha, gamma, beta, c, kappa)``:

* μ ← μ + α ΣΔ (with the covariance *before* the update); ``gamma`` is 1 (no rescaling of μ);
* full covariance: Σ ← κ (Σ − β ΣΔΔᵀΣ);
* diagonal covariance, the inverse form Σ⁻¹ ← Σ⁻¹/κ + c ΔΔᵀ restricted to the diagonal:
  Σ_jj ← κ Σ_jj / (1 + c Σ_jj Δ_j²) — c = β/(1 − βv) is the same update written for Σ⁻¹.
* ``triggered``: LIBOL's loss l_t > 0 (counted as an update under ``compat="libol"``).

v ≤ 1e-12 (a zero row, or a covariance collapsed along x) skips the step (ALGORITHMS.md §0.7, C6).
"""
import math

from ..._compile import njit
from ...base import EPS
from .first_order import AUX, NO_STEP, TRIGGERED_NO_STEP

CW_EXACT, SCW_I, SCW_II = 0, 1, 2


@njit
def cw_step(prm, fst, m, v, dn2, mistake):
    """Exact CW (C7), SCW-I (C12) and SCW-II (C13); prm = [φ, C, variant, libol_scw2_typo].

    Update iff ℓ^φ = φ√v − m > 0, with ψ = 1 + φ²/2, ζ = 1 + φ²:
      CW:     α = max(0, (−mψ + sqrt(m²φ⁴/4 + vφ²ζ))/(vζ))                       (SCW §2.3)
      SCW-I:  α = min(C, that)                                                     (SCW eq. (4))
      SCW-II: n = v + 1/(2C), γ = φ sqrt(φ²m²v² + 4nv(n + vφ²)),
              α = max(0, (−(2mn + φ²mv) + γ)/(2(n² + nvφ²)))                       (SCW eq. (5))
      u = ¼(−αvφ + sqrt(α²v²φ² + 4v))², β = αφ/(√u + vαφ), c = αφ/√u.
    ``compat="libol"`` reproduces the two typos of LIBOL's SCW2.m inside the square root
    (v·2 for v², φ·2 for φ²), ALGORITHMS.md C13 [IMPL-DIFF].
    """
    phi, C, variant, libol_typo = prm[0], prm[1], prm[2], prm[3]
    if phi * math.sqrt(max(v, 0.0)) - m <= 0.0:
        return NO_STEP
    if v <= EPS:
        return TRIGGERED_NO_STEP
    phi2 = phi * phi
    if variant == SCW_II:
        n = v + 1.0 / (2.0 * C)
        if libol_typo:
            root = math.sqrt(max(phi2 * phi2 * m * m * v * 2.0 + 4.0 * n * v * phi2 * (n + v * phi * 2.0), 0.0))
        else:
            root = phi * math.sqrt(max(phi2 * m * m * v * v + 4.0 * n * v * (n + v * phi2), 0.0))
        alpha = max(0.0, (-(2.0 * m * n + phi2 * m * v) + root) / (2.0 * (n * n + n * v * phi2)))
    else:
        psi = 1.0 + phi2 / 2.0
        zeta = 1.0 + phi2
        alpha = max(0.0, (-m * psi + math.sqrt(max(m * m * phi2 * phi2 / 4.0 + v * phi2 * zeta, 0.0)))
                    / (v * zeta))
        if variant == SCW_I:
            alpha = min(C, alpha)
    if alpha <= 0.0:
        return TRIGGERED_NO_STEP
    w = -alpha * v * phi + math.sqrt(max(alpha * alpha * v * v * phi2 + 4.0 * v, 0.0))
    sqrt_u = 0.5 * abs(w)  # u = ¼ w², √u = |w|/2
    beta = alpha * phi / (sqrt_u + v * alpha * phi)
    return (True, alpha, 1.0, beta, alpha * phi / sqrt_u, 1.0)


@njit
def cw_var_step(prm, fst, m, v, dn2, mistake):
    """CW, variance form (C6; Dredze, Crammer, Pereira 2008); prm = [φ].

    Update iff m < φv: α = [−(1 + 2φm) + sqrt((1 + 2φm)² − 8φ(m − φv))]/(4φv), Σ⁻¹ += 2αφ ΔΔᵀ
    (c = 2αφ, β = 2αφ/(1 + 2αφv)).
    """
    phi = prm[0]
    if m >= phi * v:
        return NO_STEP
    if v <= EPS:
        return TRIGGERED_NO_STEP
    b = 1.0 + 2.0 * phi * m
    alpha = (-b + math.sqrt(max(b * b - 8.0 * phi * (m - phi * v), 0.0))) / (4.0 * phi * v)
    if alpha <= 0.0:
        return TRIGGERED_NO_STEP
    c = 2.0 * alpha * phi
    return (True, alpha, 1.0, c / (1.0 + c * v), c, 1.0)


@njit
def arow_step(prm, fst, m, v, dn2, mistake):
    """AROW (C9; SCW §2.4); prm = [r]. Update iff ℓ = 1 − m > 0: β = 1/(v + r), α = ℓβ, c = 1/r."""
    loss = 1.0 - m
    if loss <= 0.0:
        return NO_STEP
    if v <= EPS:
        return TRIGGERED_NO_STEP
    return _arow_with(prm[0], loss, v)


@njit
def _arow_with(r, loss, v):
    """The AROW step with regulariser r: β = 1/(v + r), α = ℓβ, c = 1/r."""
    beta = 1.0 / (v + r)
    return (True, loss * beta, 1.0, beta, 1.0 / r, 1.0)


@njit
def narow_step(prm, fst, m, v, dn2, mistake):
    """NAROW (C11, as LIBOL's NAROW.m); prm = [b].

    Update iff 1 − m > 0 and v > 1/b: r = v/(bv − 1), then the AROW step with r (β = 1/(v + r),
    α = (1 − m)β, c = 1/r). v ≤ 1/b means r = ∞: no change (LIBOL still counts the round).
    """
    b = prm[0]
    loss = 1.0 - m
    if loss <= 0.0:
        return NO_STEP
    if v <= EPS or v <= 1.0 / b:
        return TRIGGERED_NO_STEP
    return _arow_with(v / (b * v - 1.0), loss, v)


@njit
def nherd_step(prm, fst, m, v, dn2, mistake):
    """NHERD (C10; Crammer & Lee 2010); prm = [C].

    Update iff 1 − m > 0: α = (1 − m)/(v + 1/C) (with the old Σ);
    full Σ ← Σ − ΣΔΔᵀΣ (C²v + 2C)/(1 + Cv)²  (β);  diagonal "project": c = C²v + 2C.
    The diagonal "exact" and "drop" variants are applied by the engine from C and β.
    """
    C = prm[0]
    loss = 1.0 - m
    if loss <= 0.0:
        return NO_STEP
    if v <= EPS:
        return TRIGGERED_NO_STEP
    alpha = loss / (v + 1.0 / C)
    beta = (C * C * v + 2.0 * C) / ((1.0 + C * v) * (1.0 + C * v))
    return (True, alpha, 1.0, beta, C * C * v + 2.0 * C, 1.0)


@njit
def iellip_step(prm, fst, m, v, dn2, mistake):
    """IELLIP (C8, as LIBOL's IELLIP.m); prm = [b], fst[AUX] = c_t.

    On a mistake with v > 0: μ ← μ + (1 − m)/v · ΣΔ (the new margin is exactly 1) and
    Σ ← (Σ − c_t ΣggᵀΣ)/(1 − c_t), g = Δ/√v, i.e. β = c_t/v, κ = 1/(1 − c_t) and, for the diagonal
    inverse form, c = c_t/((1 − c_t) v). After every round c_t ← c_t·b.
    """
    b = prm[0]
    ct = fst[AUX]
    fst[AUX] = ct * b
    if not mistake:
        return NO_STEP
    if v <= EPS:
        return TRIGGERED_NO_STEP
    return (True, (1.0 - m) / v, 1.0, ct / v, ct / ((1.0 - ct) * v), 1.0 / (1.0 - ct))
