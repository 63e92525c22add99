"""Shared pieces of the multiclass / multi-label kernel rules (docs/algorithms/multiclass.md#setting-and-notation).

A multiclass round has a worst relevant class r_t and a best irrelevant class s_t (see
:func:`olkit.learners.kernel.engine.relevant_pair`); an update along H_t = e_r − e_s stores the pair
(r_t, s_t) with the new SV (``sv.hr``, ``sv.hs``), so that H_a·H_b can be computed without storing H.
"""

from ..._compile import njit_inline
from .sv_edit import set_coef


@njit_inline
def h_dot(r1, s1, r2, s2):
    """H_1·H_2 for H = e_r − e_s: in {−2, …, 2}, negative iff r_1 = s_2 or s_1 = r_2 (JMLR Prop. 3)."""
    return float((r1 == r2) + (s1 == s2) - (r1 == s2) - (s1 == r2))


@njit_inline
def shares_class(r, s, ri, si):
    """Whether direction (ri, si) contains class r or s: H·H_i ≠ 0 for H = e_r − e_s (an SV without a
    direction, ri = si = −1, shares none)."""
    return ri == r or si == r or ri == s or si == s


@njit_inline
def set_direction(sv, j, r, s, gamma):
    """Coefficient vector of SV j ← γ H with H = e_r − e_s (and remember (r, s)).

    The SV's other coefficients must be 0 (a new SV, or the same (r, s) again): the kernel expansion
    (``scores.expansion_scores``) then adds only these two entries."""
    sv.hr[j] = r
    sv.hs[j] = s
    sv.hw[j] = gamma
    set_coef(sv, j, r, gamma)  # the averaged model sees the change at once (sv_edit.set_coef)
    set_coef(sv, j, s, -gamma)
