"""Kernel SCW / kernel CW (SCW ICML 2012 §4.2, Lemma 1), ALGORITHMS.md C14 — the compiled rule.

The learners are ``scw1``/``scw2`` with a non-linear ``kernel`` (:mod:`olkit.learners.linear.confidence_weighted`).
After round i−1, μ = Σ_p ν_p φ(x_p) and Σ = aI + Σ_pq π_pq φ(x_p)φ(x_q)ᵀ over the SVs. For x_i with
kernel row k: m = y ν·k, c = π k, v = kᵀπk + a κ_ii; α, β as in linear SCW (C12/C13); if α > 0, x_i
joins the SVs and with g = [c; a]: ν ← [ν; 0] + α y g, π ← [[π, 0], [0, 0]] − β g gᵀ. The coefficients
ν are the support set's ``coef`` and π its SV×SV matrix "pair" (``sv.mats[0]``). O(#SV²) per round.
"""
from ..._compile import njit
from ..linear.steps import cw_step
from .support_set import N, sv_append


@njit
def kernel_scw_update(sv, st, s, t, kself, y, fv, mistake):
    f = fv[0]
    """prm = [φ, C, variant, libol_typo, a] (the first four as :func:`cw_step`)."""
    n = sv.meta[N]
    a = st.prm[4]
    P, krow, g, coef = sv.mats[0], sv.krow, sv.grow, sv.coef
    v = a * kself
    for i in range(n):
        acc = 0.0
        for j in range(n):
            acc += P[i, j] * krow[j]
        g[i] = acc  # c = π k
        v += krow[i] * acc
    triggered, alpha, gamma, beta, c, kappa = cw_step(st.prm, st.fst, y * f, v, kself, mistake)
    if alpha == 0.0:
        return False
    j = sv_append(sv, s, t, kself, y)
    g[j] = a
    for i in range(n + 1):
        coef[i, 0] += alpha * y * g[i]
        bi = beta * g[i]
        for l in range(n + 1):
            P[i, l] -= bi * g[l]
    return True
