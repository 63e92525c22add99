"""The SV Gram cache ``gram[i, j] = κ(x_i, x_j)`` of a support set, and the SV–SV kernel rows read from it.

The cache is filled for free when an SV is added: its kernel row against the current SVs was just computed
to predict, and :func:`~olkit.learners.kernel.sv_edit.sv_append` writes it as the new SV's row. The mirrored
column entries are filled once per block by :func:`sync_gram` (writing a column per added SV touches one
cache line per entry and was the largest cost of DUOL). Read SV–SV values through :func:`load_gram_row`
(compiled code) or ``SupportSet.gram_matrix()`` (Python), which handle the not-yet-mirrored part;
:func:`load_gram_row` computes the row on demand when there is no cache (a learner may cap the cache's
memory, see ``SupportSet``'s ``gram_limit_bytes``). :func:`load_gram_row_related` reads only the entries of
the SVs whose direction shares a class with a given one, through the member lists
(:mod:`~olkit.learners.kernel.members`).
"""

from ..._compile import max2, min2, njit_helper, njit_inline
from ...kernels import NEAR_PAIR, kernel_row_from_dots, near_gaussian
from .dots import (
    dense_dots,
    near_pairs_dense,
    near_pairs_sparse,
    packed_dense_dots,
    sparse_dot,
    sq_dist_dense,
    sq_dist_sparse,
)
from .support_set import GSYNC, HAS_GRAM, N


@njit_helper
def sync_gram(sv):
    """Mirror the rows of SVs added since the last call into their Gram columns.

    Row-major over the destination (each row j gets a contiguous segment), so the copy streams through
    memory instead of touching one cache line per entry. Nothing to do without a Gram cache.
    """
    if not sv.meta[HAS_GRAM]:
        return
    n, done = sv.meta[N], sv.meta[GSYNC]
    for j in range(n):
        for i in range(max2(done, j + 1), n):
            sv.gram[j, i] = sv.gram[i, j]
    sv.meta[GSYNC] = n


@njit_helper
def sync_transposed(sv):
    """Bring the transposed inputs ``sv.XT`` (see ``SupportSet.transposed``) up to date: copy the columns of the
    SVs from ``xt_n[0]`` on (row-major over the destination: each feature's row gets a contiguous segment)."""
    n, done = sv.meta[N], sv.xt_n[0]
    if done >= n:
        return
    XT, X = sv.XT, sv.X
    for k in range(XT.shape[0]):
        for i in range(done, n):
            XT[k, i] = X[i, k]
    sv.xt_n[0] = n


@njit_helper
def transposed_dots(XT, x, out, n):
    """out[i] = x·x_i for i < n from the transposed SVs ``XT``: the rows of x's non-zero features only, each
    added in turn (the sum over the features in increasing order, sequential for each i; the vectorised loop
    runs over the SVs). On a9a (14 of 123 features non-zero) this reads a ninth of the memory of
    :func:`~olkit.learners.kernel.dots.dense_dots` (docs/algorithms/duol.md#complexity). Adding four features a
    pass (the same sums) took 10.6 instead of 14.8 µs a row of 9,500 SVs (a9a DUOL ~2 % faster) but 0.3 s more
    compile on every cold start of binary DUOL (measured): not kept."""
    for i in range(n):
        out[i] = 0.0
    for k in range(x.shape[0]):
        v = x[k]
        if v != 0.0:
            row = XT[k]
            for i in range(n):
                out[i] += v * row[i]


@njit_helper
def load_gram_row(sv, b, s):
    """Fill ``sv.grow[:n]`` with κ(x_b, x_i) for every SV i.

    From the Gram cache when the support set keeps one; otherwise computed on demand (O(#SV·nnz)), for dense SVs
    from their transposed inputs when the set keeps them (``SupportSet.transposed``).
    """
    n = sv.meta[N]
    if sv.meta[HAS_GRAM]:
        split = max2(sv.meta[GSYNC], b + 1)
        for i in range(min2(split, n)):
            sv.grow[i] = sv.gram[b, i]
        for i in range(split, n):  # columns not mirrored yet: read the (complete) rows of the new SVs
            sv.grow[i] = sv.gram[i, b]
        return
    _gram_row_on_demand(sv.indices, sv, b, s, n)


@njit_inline
def _gram_row_on_demand(indices, sv, b, s, n):
    """:func:`load_gram_row` without a cache. ``indices`` is the pool's (``sv.indices``): None for dense SVs, so
    that a dense run compiles no sparse branch (:data:`~olkit.learners.kernel.support_set.SVArrays`)."""
    grow, norm2 = sv.grow, sv.norm2
    if indices is not None:
        start, stop, data, work = sv.start, sv.stop, sv.data, s.work
        for q in range(start[b], stop[b]):
            work[indices[q]] = data[q]
        for i in range(n):
            grow[i] = sparse_dot(start, stop, indices, data, i, work)
        for q in range(start[b], stop[b]):
            work[indices[q]] = 0.0
        if kernel_row_from_dots(s.kp, grow, norm2[b], norm2, n):
            near_pairs_sparse(grow, n, start, stop, indices, data, start[b], stop[b], indices, data, work, s.kp)
        return
    if sv.XT.shape[0]:
        sync_transposed(sv)
        transposed_dots(sv.XT, sv.X[b], grow, n)
    else:
        dense_dots(sv.X, sv.X[b], grow, 0, n)
    if kernel_row_from_dots(s.kp, grow, norm2[b], norm2, n):
        near_pairs_dense(grow, n, sv.X, sv.X, b, s.kp)


@njit_inline
def _pool_rows(rows, seg, counts, other, rb, sb):
    """The class-pool rows of the SVs :func:`load_gram_row_related` selects, in its order (rb's segment, then
    sb's without the SVs on both lists); returns their number."""
    m = counts[rb]
    for k in range(m):
        rows[k] = seg[0, rb] + k
    for k in range(counts[sb]):
        rows[m] = seg[0, sb] + k
        m += (other[sb, k] >> 1) != rb
    return m


@njit_helper
def load_gram_row_related(sv, b, s, rb, sb):
    """κ(x_b, x_i) for the SVs i whose direction shares a class with b's, H_b·H_i ≠ 0 (H = e_r − e_s, ``(rb, sb)``
    = b's direction; an SV without a direction shares none), packed: returns m, with ``sv.gsel[:m]`` those
    slots (the member list of rb, then the rest of sb's) and ``sv.grow[:m]`` their kernel values. Needs
    the member lists (:func:`list_members`) up to date.

    For multiclass rules whose update is a multiple of H_b κ(x_b, ·): the other SVs' terms are 0. With K
    classes about 4/K of the SVs share a class with b (15 % on letter, K = 26), so this costs about that
    fraction of :func:`load_gram_row`. The values are those of :func:`load_gram_row` bit for bit (the same dot
    product code and the same vectorised kernel transform, over the packed dot products and squared norms).
    Dense SVs with a class pool (:mod:`~olkit.learners.kernel.members`) are read from their copies there: the
    same numbers in contiguous rows (the scattered slots' rows were mostly cache misses: on letter, M-DUOL, a
    first pass of the dot products over them took about 2.5 times a second pass over the same rows)."""
    if rb < 0:
        return 0
    sel, grow, members, other, counts = sv.gsel, sv.grow, sv.members, sv.member_other, sv.n_members
    m = counts[rb]
    for k in range(m):
        sel[k] = members[rb, k]
    for k in range(counts[sb]):  # sb's list without the SVs already in rb's (direction (rb, sb) or (sb, rb))
        sel[m] = members[sb, k]
        m += (other[sb, k] >> 1) != rb
    if sv.meta[HAS_GRAM]:
        split = max2(sv.meta[GSYNC], b + 1)  # columns from split on are not mirrored yet: read the rows
        for k in range(m):
            i = sel[k]
            grow[k] = sv.gram[b, i] if i < split else sv.gram[i, b]
        return m
    return _related_on_demand(sv.indices, sv, b, s, rb, sb, m)


@njit_inline
def _related_on_demand(indices, sv, b, s, rb, sb, m):
    """:func:`load_gram_row_related` without a cache, for the m SVs in ``sv.gsel[:m]``; returns m. ``indices``: as
    in :func:`_gram_row_on_demand`."""
    sel, grow, other, counts = sv.gsel, sv.grow, sv.member_other, sv.n_members
    if indices is not None:
        start, stop, data, work = sv.start, sv.stop, sv.data, s.work
        for q in range(start[b], stop[b]):
            work[indices[q]] = data[q]
        for k in range(m):
            grow[k] = sparse_dot(start, stop, indices, data, sel[k], work)
        for q in range(start[b], stop[b]):
            work[indices[q]] = 0.0
        for k in range(m):
            sv.gnorm2[k] = sv.norm2[sel[k]]
        if kernel_row_from_dots(s.kp, grow, sv.norm2[b], sv.gnorm2, m):
            for k in range(m):
                if grow[k] == NEAR_PAIR:
                    d2 = sq_dist_sparse(start, stop, indices, data, sel[k], start[b], stop[b], indices, data, work)
                    grow[k] = near_gaussian(d2, s.kp)
        return m
    if sv.class_X.shape[0] > 0:  # the class pool: the same rows, read as two contiguous runs
        rows = sv.class_sel
        m = _pool_rows(rows, sv.class_seg, counts, other, rb, sb)
        packed_dense_dots(sv.class_X, sv.X[b], rows, grow, m)
        for k in range(m):
            sv.gnorm2[k] = sv.class_norm2[rows[k]]
    else:
        packed_dense_dots(sv.X, sv.X[b], sel, grow, m)
        for k in range(m):
            sv.gnorm2[k] = sv.norm2[sel[k]]
    if kernel_row_from_dots(s.kp, grow, sv.norm2[b], sv.gnorm2, m):
        for k in range(m):
            if grow[k] == NEAR_PAIR:
                grow[k] = near_gaussian(sq_dist_dense(sv.X, sel[k], sv.X, b), s.kp)
    return m
