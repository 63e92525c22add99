"""Scores of the current example from its kernel row: f_c(x_t) = Σ_i coef[i, c] κ(x_i, x_t) for every
output c.

One output (binary data): one vectorised dot product (:func:`_first_column_dot`, reassociated). Several
outputs: an SV whose coefficient vector is a direction adds its two non-zero terms only
(:func:`direction_scores`, the same sums bit for bit as the full K-vector).
"""

from ..._compile import min2, njit_helper, njit_helper_sum, njit_inline
from .support_set import N


@njit_helper_sum
def _first_column_dot(A, x, n):
    """Σ_{j<n} A[j, 0] x[j], vectorised (reassociated: the last bits differ from the sequential sum)."""
    acc = 0.0
    for j in range(n):
        acc += A[j, 0] * x[j]
    return acc


@njit_helper
def expansion_scores(sv, fv):
    """f_c(x_t) = Σ_i coef[i, c] κ(x_i, x_t) for every output c, from the current kernel row (see
    :func:`scores_from_row`)."""
    scores_from_row(sv.coef, sv.krow, sv.meta[N], sv.hr, sv.hs, sv.hw, fv)


@njit_helper
def binary_scores(coef, krow, n, hr, hs, hw, fv):
    """:func:`scores_from_row` for one output (binary data: the loop binds it, see
    :func:`olkit.learners.kernel.engine.block_loop`)."""
    fv[0] = _first_column_dot(coef, krow, n)


@njit_inline
def scores_from_row(coef, krow, n, hr, hs, hw, fv):
    """The K scores from the kernel row ``krow[:n]`` (plain arrays, for the hot loop: see :func:`kernel_row`)."""
    if fv.shape[0] == 1:
        fv[0] = _first_column_dot(coef, krow, n)
    else:
        direction_scores(coef, krow, n, hr, hs, hw, fv)


@njit_helper
def direction_scores(coef, krow, n, hr, hs, hw, fv):
    """The K scores of a multi-output model. An SV whose coefficient vector is a direction γ(e_r − e_s)
    (``(hr[i], hs[i]) = (r, s)``, set by :func:`olkit.learners.kernel.multiclass.set_direction`; every
    other entry is 0) adds its two non-zero terms only: the same additions, bit for bit, as the full
    K-vector (adding 0 changes no sum), at 2 instead of K operations per SV.

    When every SV is a direction (M-DUOL, multiclass PA), one branch-free pass (a vectorised min over ``hr``)
    says so and the scores are the plain scatter loop, without the per-SV test: the same additions in the
    same order (in M-DUOL's loop on letter, K = 26, the scores' share of the loop fell from 15-18 % to 10-12 %)."""
    K = fv.shape[0]
    for c in range(K):
        fv[c] = 0.0
    if _all_directions(hr, n):
        for j in range(n):
            g = hw[j] * krow[j]  # hw[j] = coef[j, r], contiguous: a 4x faster loop than reading coef's rows
            fv[hr[j]] += g
            fv[hs[j]] -= g
        return
    for j in range(n):
        kj = krow[j]
        r = hr[j]
        if r >= 0:
            g = hw[j] * kj
            fv[r] += g
            fv[hs[j]] -= g
        elif kj != 0.0:
            for c in range(K):
                fv[c] += coef[j, c] * kj


@njit_inline
def _all_directions(hr, n):
    """Whether hr[:n] ≥ 0 (every SV's coefficient vector a direction), as one branch-free min reduction."""
    lo = 0
    for j in range(n):
        lo = min2(lo, hr[j])
    return lo >= 0
