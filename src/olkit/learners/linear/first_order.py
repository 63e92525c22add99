"""Primal (linear) step rules of the first-order learners: Perceptron, PA/PA-I/PA-II, ROMMA/agg-ROMMA
and ALMA_2 (ALGORITHMS.md C1–C4 = A1–A5 with κ(u, v) = u·v).

The learners themselves are the kernel classes (``perceptron``, ``pa`` ... ``alma``): with
``kernel="linear"`` they keep an explicit weight vector and run these rules (see :mod:`.model`).

Every step rule works on the joint-feature view of the round (ALGORITHMS.md C16): Δ = y_t x_t for binary
data, Δ = e_y ⊗ x − e_s ⊗ x for multiclass data (s the highest-scoring wrong class). It receives the
margin m = w·Δ, v = ΔᵀΣΔ (= ‖Δ‖² for first-order rules), dn2 = ‖Δ‖² and the mistake flag, and
returns ``(triggered, alpha, gamma, beta, c, kappa)``: the model becomes w ← γ w + α Σ Δ (Σ = I here);
``beta``/``c``/``kappa`` describe the covariance update of second-order rules (unused here).
``triggered`` is LIBOL's "loss l_t > 0" (what ``compat="libol"`` counts as an update).
"""
import math

from ..._compile import njit
from ...base import EPS


# fst slots shared by every linear rule (see model.py): weight scale s (w = s·W), ‖w‖², covariance
# scale, rule-specific scalar (ALMA's k, IELLIP's c_t), ‖W‖² of the stored weights as a double-double
WSCALE, N2, CSCALE, AUX, NORM_HI, NORM_LO = 0, 1, 2, 3, 4, 5

NO_STEP = (False, 0.0, 1.0, 0.0, 0.0, 1.0)
TRIGGERED_NO_STEP = (True, 0.0, 1.0, 0.0, 0.0, 1.0)  # LIBOL's loss is positive, but the model cannot change


@njit
def perceptron_step(prm, fst, m, v, dn2, mistake):
    """C1: w ← w + Δ on every mistake."""
    if not mistake:
        return NO_STEP
    return (True, 1.0, 1.0, 0.0, 0.0, 1.0)


@njit
def pa_step(prm, fst, m, v, dn2, mistake):
    """C2 (SCW eqs (1)–(2)): τ = ℓ/‖Δ‖² (PA), min(C, ℓ/‖Δ‖²) (PA-I), ℓ/(‖Δ‖² + 1/(2C)) (PA-II)."""
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


@njit
def romma_step(prm, fst, m, v, dn2, mistake):
    """C3/A2–A3: w ← c w + d Δ with c = (A − m)/D, d = N2 (1 − m)/D, A = ‖Δ‖² N2, D = A − m².

    The first update (N2 = 0) is the min-norm w = Δ/‖Δ‖² (LIBOL: w = Δ); D ≤ 1e-12·A skips the round;
    agg-ROMMA's reset case (m ≥ A, only the margin constraint active) restarts from Δ/‖Δ‖² (γ = 0).
    """
    aggressive, reset_case, libol_first = prm[0], prm[1], prm[2]
    triggered = (m < 1.0) if aggressive else mistake
    if not triggered:
        return NO_STEP
    if dn2 <= EPS:
        return TRIGGERED_NO_STEP
    norm2 = fst[N2]
    if norm2 <= 0.0:
        return (True, 1.0 if libol_first else 1.0 / dn2, 1.0, 0.0, 0.0, 1.0)
    A = dn2 * norm2
    if aggressive and reset_case and m >= A:
        return (True, 1.0 / dn2, 0.0, 0.0, 0.0, 1.0)
    D = A - m * m
    if D <= EPS * A:
        return TRIGGERED_NO_STEP
    return (True, norm2 * (1.0 - m) / D, (A - m) / D, 0.0, 0.0, 1.0)


@njit
def alma_step(prm, fst, m, v, dn2, mistake):
    """C4/A4: update iff m ≤ (1 − α) γ_k (LIBOL: <), w' = w + η_k Δ̂, w ← w'/max(1, ‖w'‖), k ← k + 1.

    The engine has already normalised Δ (Δ̂ = Δ/‖x‖) unless compat="libol"; γ_k = B/√k, η_k = C/√k
    with B = 1/α (p = 2). fst[AUX] holds k.
    """
    alpha, C, strict = prm[0], prm[1], prm[2]
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
    eta = C / math.sqrt(k)
    norm2 = fst[N2] + 2.0 * eta * m + eta * eta * dn2
    gamma = 1.0 / max(1.0, math.sqrt(max(norm2, 0.0)))
    return (True, eta * gamma, gamma, 0.0, 0.0, 1.0)
