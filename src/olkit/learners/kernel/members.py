"""The per-class member lists of a support set: an index of the SVs' directions, kept for speed only.

``members[c, :n_members[c]]`` are the slots, increasing, whose direction contains class c (r_i = c or
s_i = c), and ``member_other[c, k]`` = 2·(the direction's other class) + (1 if c = s_i). Multiclass rules
that visit only the SVs whose direction shares a class with a given one (M-DUOL: about 4/K of the SVs) read
H·H_i from the list (:func:`listed_h_dot`) instead of from ``hr``/``hs`` at scattered slots, and those SVs'
kernel values through :func:`~olkit.learners.kernel.gram.load_gram_row_related`.

The lists hold nothing that ``hr``/``hs`` do not: they are brought up to date by :func:`list_members`
(slots ``meta[LISTED]``..n−1 are appended; anything but an append resets ``meta[LISTED]`` to 0 and the next
call rebuilds them, O(#SV)), and a model file does not store them.
"""

from ..._compile import njit_helper, njit_inline
from .support_set import LISTED, N


@njit_helper
def list_members(sv):
    """Bring the member lists up to date (see the module docstring): append the slots added since the
    last call to the lists of the classes of their directions (an SV without a direction, ``hr = −1``, is
    in none); rebuild them from scratch after anything but appends (``meta[LISTED] = 0``)."""
    members, other, counts, hr, hs = sv.members, sv.member_other, sv.n_members, sv.hr, sv.hs
    first = sv.meta[LISTED]
    if first == 0:
        for c in range(counts.shape[0]):  # a loop: counts[:] = 0 would compile numba's broadcast-error formatting
            counts[c] = 0
    for i in range(first, sv.meta[N]):
        r, s = hr[i], hs[i]
        if r >= 0:  # a direction has r ≠ s, both ≥ 0
            members[r, counts[r]] = i
            other[r, counts[r]] = 2 * s
            counts[r] += 1
            members[s, counts[s]] = i
            other[s, counts[s]] = 2 * r + 1
            counts[s] += 1
    sv.meta[LISTED] = sv.meta[N]


@njit_inline
def listed_h_dot(sign, partner, code):
    """H·H_i for H = e_r − e_w and an SV i on the member list of c ∈ {r, w} with ``member_other`` entry
    ``code``: sign = +1 if c = r, −1 if c = w; partner = the other of r, w. The value of
    :func:`~olkit.learners.kernel.multiclass.h_dot` (a small integer, exact)."""
    h = 1 + ((code >> 1) == partner)
    return float(sign * h if code & 1 == 0 else -sign * h)
