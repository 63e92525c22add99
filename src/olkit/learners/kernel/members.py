"""The per-class member lists of a support set: an index of the SVs' directions, kept for speed only.

``members[c, :n_members[c]]`` are the slots, increasing, whose direction contains class c (r_i = c or
s_i = c), and ``member_other[c, k]`` = 2·(the direction's other class) + (1 if c = s_i). Multiclass rules
that visit only the SVs whose direction shares a class with a given one (M-DUOL: about 4/K of the SVs) read
H·H_i from the list (:func:`listed_h_dot`) instead of from ``hr``/``hs`` at scattered slots, and those SVs'
kernel values through :func:`~olkit.learners.kernel.gram.load_gram_row_related`.

The lists hold nothing that ``hr``/``hs`` do not: they are brought up to date by :func:`list_members`
(slots ``meta[LISTED]``..n−1 are appended; anything but an append resets ``meta[LISTED]`` to 0 and the next
call rebuilds them, O(#SV)), and a model file does not store them.

With dense SVs of few features the support set also keeps the *class pool* (``class_X``, ``class_norm2``):
row ``class_seg[0, c] + k`` is a copy of the input and squared norm of SV ``members[c, k]``, so that a pass
over a list reads its SVs' inputs as one contiguous run. :func:`list_members` keeps it in step with the lists:
an appended member is copied into its class's segment, and when a segment is full (or the lists were
rebuilt) every segment is laid out again with room for 2·(its count) + CLASS_POOL_SLACK rows (at most
4·capacity + CLASS_POOL_SLACK·K rows in all; amortised O(d) a member).
"""

from ..._compile import njit_helper, njit_inline
from .support_set import CLASS_POOL_SLACK, LISTED, N


@njit_helper
def list_members(sv):
    """Bring the member lists up to date (see the module docstring): append the slots added since the
    last call to the lists of the classes of their directions (an SV without a direction, ``hr = −1``, is
    in none); rebuild them from scratch after anything but appends (``meta[LISTED] = 0``)."""
    members, other, counts, hr, hs = sv.members, sv.member_other, sv.n_members, sv.hr, sv.hs
    first = sv.meta[LISTED]
    pool = sv.class_X.shape[0] > 0
    full = first == 0  # a new layout of the class pool is needed
    if first == 0:
        for c in range(counts.shape[0]):  # a loop: counts[:] = 0 would compile numba's broadcast-error formatting
            counts[c] = 0
    for i in range(first, sv.meta[N]):
        r, s = hr[i], hs[i]
        if r >= 0:  # a direction has r ≠ s, both ≥ 0
            if pool and not full:
                full = not (_pool_copy(sv, r, counts[r], i) and _pool_copy(sv, s, counts[s], i))
            members[r, counts[r]] = i
            other[r, counts[r]] = 2 * s
            counts[r] += 1
            members[s, counts[s]] = i
            other[s, counts[s]] = 2 * r + 1
            counts[s] += 1
    if pool and full:
        _pool_layout(sv)
    sv.meta[LISTED] = sv.meta[N]


@njit_inline
def _pool_copy(sv, c, k, i):
    """Copy SV i, member k of class c, into the class pool; False (nothing copied) if c's segment is full."""
    if k >= sv.class_seg[1, c]:
        return False
    row = sv.class_seg[0, c] + k
    for q in range(sv.X.shape[1]):
        sv.class_X[row, q] = sv.X[i, q]
    sv.class_norm2[row] = sv.norm2[i]
    return True


@njit_helper
def _pool_layout(sv):
    """Lay the class pool out again from the member lists: class c gets 2·(its count) + CLASS_POOL_SLACK rows."""
    counts, members, seg = sv.n_members, sv.members, sv.class_seg
    start = 0
    for c in range(counts.shape[0]):
        seg[0, c] = start
        seg[1, c] = 2 * counts[c] + CLASS_POOL_SLACK
        start += seg[1, c]
        for k in range(counts[c]):
            row = seg[0, c] + k
            i = members[c, k]
            for q in range(sv.X.shape[1]):
                sv.class_X[row, q] = sv.X[i, q]
            sv.class_norm2[row] = sv.norm2[i]


@njit_inline
def listed_h_dot(sign, partner, code):
    """H·H_i for H = e_r − e_w and an SV i on the member list of c ∈ {r, w} with ``member_other`` entry
    ``code``: sign = +1 if c = r, −1 if c = w; partner = the other of r, w. The value of
    :func:`~olkit.learners.kernel.multiclass.h_dot` (a small integer, exact)."""
    h = 1 + ((code >> 1) == partner)
    return float(sign * h if code & 1 == 0 else -sign * h)
