"""The scans of DUOL's rounds over the support vectors, written for speed: the auxiliary example's argmin
as a branch-free min reduction (LLVM vectorises it), and M-DUOL's passes over the per-class member lists
(:mod:`.members`) instead of every SV. They compute exactly what the plain loops of the algorithm would (the
same minimum, the same first index among ties, the same margins); the algorithm itself, and why each
pass is what it is, is in :mod:`.duol` (docs/algorithms/duol.md).
"""

import math

from ..._compile import max2, min2, njit_helper, njit_helper_nonan, njit_inline
from .members import listed_h_dot
from .multiclass import h_dot, shares_class


@njit_inline
def tied_pick(values, F, F_max, n, bound, last):
    """The auxiliary example among the tied minimisers (docs/algorithms/duol.md#ties): every candidate i
    (F_i ≤ F_max) with values[i] ≤ bound (:func:`.duol.tie_bound`) is tied; pick the last (JMLR binary, Algorithm
    1's "≤") or the first (NIPS 2009, M-DUOL's strict "<"); −1 if none."""
    # branch-free index reductions (vectorised; an early exit is slower)
    if last:
        b = -1
        for i in range(n):
            b = max2(b, i if F[i] <= F_max and values[i] <= bound else -1)
        return b
    b = n
    for i in range(n):
        b = min2(b, i if F[i] <= F_max and values[i] <= bound else n)
    return b if b < n else -1


@njit_helper_nonan
def label_weights(y, sv_y, krow, F, F_max, w_start, out, n):
    """out[i] = y_i y_t κ(x_i, x_t) for every SV; returns min(w_start, their minimum over the candidates
    F_i ≤ F_max)."""
    for i in range(n):
        out[i] = sv_y[i] * y * krow[i]
    w_min = w_start
    for i in range(n):
        w_min = min2(w_min, out[i] if F[i] <= F_max else math.inf)
    return w_min


# The passes of M-DUOL over the member lists of r and w (the SVs sharing a class with H_t = e_r − e_w). A
# list is given as its slots, its ``member_other`` codes, sign = +1 (r's list) or −1 (w's) and the partner
# class (w or r): H_t·H_i = listed_h_dot(sign, partner, code), without reading hr/hs at scattered slots.


@njit_helper_nonan
def listed_weights(slots, codes, sign, partner, krow, F, F_max, out):
    """out[k] = (H_t·H_i) κ(x_t, x_i) for the k-th SV i of one list if it is a candidate (F_i ≤ F_max), else +inf;
    returns their minimum (+inf if none). :func:`first_tied` then reads ``out`` (contiguous) instead of
    gathering the kernel values and margins of the list's scattered slots again."""
    for k in range(slots.shape[0]):
        i = slots[k]
        out[k] = listed_h_dot(sign, partner, codes[k]) * krow[i] if F[i] <= F_max else math.inf
    w_min = math.inf
    for k in range(slots.shape[0]):
        w_min = min2(w_min, out[k])
    return w_min


@njit_helper
def first_tied(slots, weights, F, F_max, bound, n):
    """The first slot of one list (increasing) that is a candidate with (H_t·H_i) κ(x_t, x_i) ≤ bound (``weights``:
    :func:`listed_weights` of the list); n if none."""
    for k in range(slots.shape[0]):
        if weights[k] <= bound and F[slots[k]] <= F_max:  # (F: a non-candidate's +inf is no tie with bound = inf)
            return slots[k]
    return n


@njit_helper
def first_unrelated_candidate(r, w, hr, hs, F, F_max, n):
    """The first SV that is a candidate and shares no class with H_t (its weight is 0); n if none."""
    for i in range(n):
        if F[i] <= F_max and not shares_class(r, w, hr[i], hs[i]):
            return i
    return n


@njit_helper
def listed_margins(F, slots, codes, sign, partner, krow, gamma, ex1, ex2, ex3):
    """F_i += γ (H_t·H_i) κ(x_t, x_i) for the SVs of one list whose other class is none of ex1, ex2, ex3
    (−1: no exclusion). w's list excludes r (the SVs on both lists, updated from r's); in a double update
    both lists exclude b's classes (those SVs get both terms at once)."""
    for k in range(slots.shape[0]):
        o = codes[k] >> 1
        if o != ex1 and o != ex2 and o != ex3:
            i = slots[k]
            F[i] += gamma * listed_h_dot(sign, partner, codes[k]) * krow[i]


@njit_inline
def lists(sv, r, w):
    """The member lists of r and w: (slots, codes) of each."""
    nr, nw = sv.n_members[r], sv.n_members[w]
    return sv.members[r, :nr], sv.member_other[r, :nr], sv.members[w, :nw], sv.member_other[w, :nw]


# Full passes of budgeted M-DUOL (docs/algorithms/duol-budget.md#multiclass): with at most B + 1 SVs a pass over
# every SV costs what the kernel row already costs, and it needs no member lists (which removals would make
# rebuild every round). The values are those of M-DUOL's passes over the member lists, bit for bit: the SVs
# that share no class with a direction get exactly 0 (weights) or no update (margins).


@njit_helper_nonan
def direction_weights(r, w, hr, hs, krow, F, F_max, out, n):
    """out[i] = (H_t·H_i) κ(x_t, x_i) for every SV (H_t = e_r − e_w; exactly 0 for an SV sharing no class with
    H_t); returns their minimum over the candidates F_i ≤ F_max (+inf if none)."""
    for i in range(n):
        h = h_dot(r, w, hr[i], hs[i])
        out[i] = h * krow[i] if h != 0.0 else 0.0
    w_min = math.inf
    for i in range(n):
        w_min = min2(w_min, out[i] if F[i] <= F_max else math.inf)
    return w_min


@njit_helper
def direction_margins(F, r, w, hr, hs, krow, gamma, n):
    """F_i += γ (H_t·H_i) κ(x_t, x_i) for the SVs sharing a class with H_t = e_r − e_w (M-DUOL's single step)."""
    for i in range(n):
        h = h_dot(r, w, hr[i], hs[i])
        if h != 0.0:
            F[i] += gamma * h * krow[i]


@njit_helper
def double_direction_margins(F, r, w, rb, sb, hr, hs, krow, grow, ga, d, n):
    """F_i += γ_a (H_t·H_i) κ(x_t, x_i) + d (H_b·H_i) κ(x_b, x_i) (M-DUOL's double update; ``grow`` the kernel
    row of x_b): both terms in one expression for the SVs sharing a class with H_b, the first alone for those
    sharing one with H_t only, nothing for the others."""
    for i in range(n):
        ri, si = hr[i], hs[i]
        hb = h_dot(rb, sb, ri, si)
        if hb != 0.0:
            F[i] += ga * h_dot(r, w, ri, si) * krow[i] + d * hb * grow[i]
        else:
            h = h_dot(r, w, ri, si)
            if h != 0.0:
                F[i] += ga * h * krow[i]
