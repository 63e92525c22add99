"""Edits of a support set by compiled code: adding an SV (a stream row, :func:`sv_append`, or a point that
is not one, e.g. a merged or projected SV, :func:`sv_append_point`), scaling every coefficient
(:func:`sv_scale`), and removing one SV (:func:`sv_remove`), a set of them (:func:`sv_remove_set`) or all
(:func:`sv_clear`); and the bookkeeping of the averaged model: a coefficient written with its change recorded at
once (:func:`set_coef`), and the step after a round (:func:`average_all`, :func:`average_appended`,
:func:`average_written`).

Removal is O(1) in the number of SVs moved (:func:`sv_remove`): the last SV moves into the freed slot
(two moves when the freed slot is covered by the block product: the last covered SV fills it, and the
last SV fills the covered one's slot, so the covered slots stay a prefix and ``gcol`` follows them).
Each move copies one SV (its input and one row and column of each SV×SV matrix). Order is not kept;
``added`` and ``arrival`` record each SV's arrival for the budgeted rules that remove the oldest. A removed
sparse SV leaves a hole in the pool of non-zeros (``SupportSet.compact`` closes them between blocks), and
any removal makes the next :func:`~olkit.learners.kernel.members.list_members` rebuild the member lists.
"""

import numpy as np

from ..._compile import min2, njit_helper, njit_inline
from .gram import sync_gram
from .support_set import CLOCK, GSYNC, HAS_GRAM, HOLES, LISTED, NMOVED, NPRE, POOL, SPARSE, N


@njit_inline
def _fill(a, value):
    """a[:] = value as a loop: slice assignment would compile numba's broadcast-error formatting (seconds
    of a cold start)."""
    for k in range(a.shape[0]):
        a[k] = value


@njit_inline
def _copy(src, dst):
    for k in range(src.shape[0]):
        dst[k] = src[k]


@njit_helper
def _new_slot(sv, P, mats, norm2, kself, label):
    """Initialise slot n for a new SV (everything but its input) and return n. ``P`` and ``mats`` are ``sv.avg_sum``
    and ``sv.mats``, None for a set without ``average`` or without SV×SV matrices: their branches are then not
    compiled (:data:`~olkit.learners.kernel.support_set.SVArrays`)."""
    n = sv.meta[N]
    if sv.xt_n[0] > n:  # slot n's input is new: the transposed copy (SupportSet.transposed) is stale from n on
        sv.xt_n[0] = n
    sv.norm2[n] = norm2
    sv.kself[n] = kself
    sv.y[n] = label
    sv.hr[n] = -1
    sv.hs[n] = -1
    sv.hw[n] = 0.0
    _fill(sv.coef[n], 0.0)
    if P is not None:  # averaged: the SV enters with no past (P = 0, last seen coefficients 0)
        _fill(P[n], 0.0)
        _fill(sv.avg_last[n], 0.0)
    sv.F[n] = 0.0
    sv.sw[n] = 1.0
    sv.added[n] = sv.meta[CLOCK]
    if sv.meta[HAS_GRAM]:
        for j in range(n):
            sv.gram[n, j] = sv.krow[j]
        sv.gram[n, n] = kself
    if mats is not None:
        for m in range(mats.shape[0]):
            for j in range(n + 1):
                mats[m, n, j] = 0.0
                mats[m, j, n] = 0.0
    sv.krow[n] = kself
    sv.arrival[n] = n
    sv.meta[N] = n + 1
    return n


@njit_inline
def _store_row(pool_indices, sv, s, t, n):
    """Stream row t as SV n's input: into the pool of non-zeros (CSR SVs), or a dense row (``pool_indices`` is
    None: a dense run compiles no sparse branch, see :data:`~olkit.learners.kernel.support_set.SVArrays`)."""
    if pool_indices is not None:
        lo = s.indptr[t]
        _pool_append(pool_indices, sv, n, s.indices, s.data, lo, s.indptr[t + 1] - lo)
    else:
        _copy(s.X[t], sv.X[n])


@njit_inline
def _pool_append(pool_indices, sv, n, idx, val, lo, m):
    """The m non-zeros ``val[lo:lo+m]`` at features ``idx[lo:lo+m]`` as SV n's row, at the end of the pool."""
    pos = sv.meta[POOL]
    for q in range(m):
        pool_indices[pos + q] = idx[lo + q]
        sv.data[pos + q] = val[lo + q]
    sv.start[n] = pos
    sv.stop[n] = pos + m
    sv.meta[POOL] = pos + m


@njit_helper
def sv_append(sv, s, t, kself, label):
    """Store stream row t as a new SV with zero coefficients and return its slot.

    Needs ``sv.krow`` to hold the kernel row of x_t (it fills the Gram cache from it) and sets
    ``krow[new] = κ(x_t, x_t)`` so that cache updates can treat the new SV like the others.
    """
    _store_row(sv.indices, sv, s, t, sv.meta[N])
    j = _new_slot(sv, sv.avg_sum, sv.mats, s.norm2[t], kself, label)
    sv.sw[j] = s.sw[t]  # the example's weight goes with it (docs/algorithms/options.md#weights)
    return j


@njit_helper
def sv_append_point(sv, idx, val, kself, label):
    """Store a point that is not a stream row (a merged or projected SV): non-zeros ``val`` at features
    ``idx``. ``sv.krow`` must hold its kernel row against the current SVs (as for :func:`sv_append`).
    The caller reserves room for it (``SupportSet.reserve``)."""
    n = sv.meta[N]
    norm2 = 0.0
    for q in range(idx.shape[0]):
        norm2 += val[q] * val[q]
    _store_point(sv.indices, sv, n, idx, val)
    return _new_slot(sv, sv.avg_sum, sv.mats, norm2, kself, label)


@njit_inline
def _store_point(pool_indices, sv, n, idx, val):
    """Non-zeros ``val`` at features ``idx`` as SV n's input (see :func:`_store_row`)."""
    if pool_indices is not None:
        _pool_append(pool_indices, sv, n, idx, val, 0, idx.shape[0])
    else:
        _fill(sv.X[n], 0.0)
        for q in range(idx.shape[0]):
            sv.X[n, idx[q]] = val[q]


@njit_helper
def sv_scale(sv, factor):
    """Multiply every coefficient by ``factor`` (ROMMA, ALMA, BOGD shrinkage)."""
    scale_rows(sv.coef, sv.hw, sv.meta[N], factor)


@njit_inline
def scale_rows(coef, hw, n, factor):
    """:func:`sv_scale` on plain arrays (the first n rows of ``coef`` and of the direction weights ``hw``)."""
    scale_flat(coef.reshape(-1), n * coef.shape[1], factor)  # rows 0..n−1 of a C-ordered array
    if coef.shape[1] > 1:  # one output: no row is a direction, hw stays 0
        scale_flat(hw, n, factor)


@njit_helper
def scale_flat(a, m, factor):
    """a[:m] *= factor (one vectorised loop)."""
    for k in range(m):
        a[k] *= factor


@njit_helper
def sv_clear(sv):
    """Remove every SV (agg-ROMMA's reset case)."""
    sv.meta[N] = 0
    sv.meta[NPRE] = 0
    sv.meta[GSYNC] = 0
    sv.meta[POOL] = 0
    sv.meta[HOLES] = 0
    sv.meta[LISTED] = 0


@njit_inline
def _copy_average_row(P, last, src, dst):
    """Averaged (``P`` not None): SV ``src``'s sums to slot ``dst``."""
    if P is not None:
        _copy(P[src], P[dst])
        _copy(last[src], last[dst])


@njit_helper
def _copy_values(sv, src, dst):
    """Slot ``dst`` ← SV ``src``: its input and every per-SV value (not its place in ``arrival`` nor its
    rows and columns of the SV×SV matrices)."""
    if sv.meta[SPARSE]:
        sv.start[dst] = sv.start[src]
        sv.stop[dst] = sv.stop[src]
    else:
        _copy(sv.X[src], sv.X[dst])
        if sv.xt_n[0] > dst:  # the transposed copy (SupportSet.transposed) is stale from dst on
            sv.xt_n[0] = dst
    sv.norm2[dst] = sv.norm2[src]
    sv.kself[dst] = sv.kself[src]
    sv.y[dst] = sv.y[src]
    sv.hr[dst] = sv.hr[src]
    sv.hs[dst] = sv.hs[src]
    sv.hw[dst] = sv.hw[src]
    _copy(sv.coef[src], sv.coef[dst])
    _copy_average_row(sv.avg_sum, sv.avg_last, src, dst)
    sv.F[dst] = sv.F[src]
    sv.sw[dst] = sv.sw[src]
    sv.added[dst] = sv.added[src]
    sv.gcol[dst] = sv.gcol[src]
    sv.krow[dst] = sv.krow[src]


@njit_helper
def _move_sv(sv, src, dst):
    """Copy SV ``src`` into slot ``dst`` (its input, per-SV values, and its row and column of every SV×SV
    matrix); the Gram cache must be fully mirrored."""
    _copy_values(sv, src, dst)
    n = sv.meta[N]
    for p in range(n):  # the moved SV keeps its place in the arrival order
        if sv.arrival[p] == src:
            sv.arrival[p] = dst
    if sv.meta[HAS_GRAM]:
        _move_row_and_column(sv.gram, src, dst, n)
    _move_matrices(sv.mats, src, dst, n)


@njit_inline
def _move_matrices(mats, src, dst, n):
    """:func:`_move_row_and_column` for every SV×SV matrix (``mats``: as in :func:`_new_slot`)."""
    if mats is not None:
        for m in range(mats.shape[0]):
            _move_row_and_column(mats[m], src, dst, n)


@njit_helper
def _move_row_and_column(M, src, dst, n):
    """Row and column ``dst`` of the leading n × n block of a symmetric-layout SV×SV matrix ← ``src``'s."""
    for j in range(n):
        M[dst, j] = M[src, j]
    for i in range(n):
        M[i, dst] = M[i, src]
    M[dst, dst] = M[src, src]


@njit_helper
def sv_remove(sv, r):
    """Remove SV r in O(1) moves (each move O(d + #SV)); the other SVs keep their values but not their
    slots: the last SV (and, if r is covered by the block product, the last covered one) change slot.

    The others keep their order in ``arrival`` (O(#SV)). The block product stays valid: covered slots
    remain the prefix 0..NPRE−1 and ``gcol`` maps them to their block-product columns.
    """
    n = sv.meta[N]
    p = 0
    while sv.arrival[p] != r:
        p += 1
    for q in range(p, n - 1):
        sv.arrival[q] = sv.arrival[q + 1]
    if sv.meta[HAS_GRAM]:
        sync_gram(sv)
    if sv.meta[SPARSE] and sv.stop[r] > sv.start[r]:
        sv.meta[HOLES] += 1
    npre = min2(sv.meta[NPRE], n)
    last = n - 1
    if r < npre:
        # keep the covered slots a prefix: the last covered SV fills r, the last SV fills its slot
        cov = npre - 1
        if cov != r:
            _move_sv(sv, cov, r)
            sv.moved[sv.meta[NMOVED]] = r  # at most one entry per covered removal: ≤ NPRE at the block start
            sv.meta[NMOVED] += 1
        if last != cov:
            _move_sv(sv, last, cov)
        sv.meta[NPRE] = npre - 1
    elif r != last:
        _move_sv(sv, last, r)
    sv.meta[N] = n - 1
    sv.meta[GSYNC] = n - 1
    sv.meta[LISTED] = 0


@njit_helper
def sv_remove_set(sv, slots):
    """Remove the SVs in ``slots`` (distinct) at once: O(n² + n·d) for the whole set, where removing them
    one by one moves up to two SVs (rows and columns of every SV×SV matrix) per removal.

    The kept SVs are compacted in slot order, covered ones first (the block product stays valid: the
    covered slots remain the prefix 0..NPRE−1 and ``gcol`` follows them), and keep their order in
    ``arrival``; ``krow`` follows the SVs.
    """
    n = sv.meta[N]
    if sv.meta[HAS_GRAM]:
        sync_gram(sv)
    drop = np.zeros(n, np.bool_)
    for q in range(slots.shape[0]):
        drop[slots[q]] = True
    npre = min2(sv.meta[NPRE], n)
    newpos = np.full(n, -1, np.int64)
    k = 0
    for j in range(npre):
        if not drop[j]:
            newpos[j] = k
            k += 1
    npre_new = k
    for j in range(npre, n):
        if not drop[j]:
            newpos[j] = k
            k += 1
    for j in range(n):
        if drop[j] and sv.meta[SPARSE] and sv.stop[j] > sv.start[j]:
            sv.meta[HOLES] += 1
    # newpos[j] ≤ j, increasing over the covered and over the uncovered slots: moving in slot order
    # never overwrites an SV that is still to be moved, and each matrix entry (i, j) goes to
    # (newpos[i], newpos[j]), at or before it in row-major order, read before it is written.
    for j in range(n):
        d = newpos[j]
        if d >= 0 and d != j:
            _copy_values(sv, j, d)
    if sv.meta[HAS_GRAM]:
        _compact_matrix(sv.gram, newpos, n)
    _compact_matrices(sv.mats, newpos, n)
    a = 0
    for p in range(n):
        d = newpos[sv.arrival[p]]
        if d >= 0:
            sv.arrival[a] = d
            a += 1
    sv.meta[N] = k
    sv.meta[NPRE] = npre_new
    sv.meta[GSYNC] = k
    sv.meta[LISTED] = 0
    moved = 0
    for j in range(npre_new):  # covered slots whose block-product column is not their own
        if sv.gcol[j] != j:
            sv.moved[moved] = j
            moved += 1
    sv.meta[NMOVED] = moved


@njit_inline
def _compact_matrices(mats, newpos, n):
    """:func:`_compact_matrix` for every SV×SV matrix (``mats``: as in :func:`_new_slot`)."""
    if mats is not None:
        for m in range(mats.shape[0]):
            _compact_matrix(mats[m], newpos, n)


@njit_helper
def _compact_matrix(M, newpos, n):
    """M[newpos[i], newpos[j]] ← M[i, j] for the kept i, j (newpos[i] ≤ i, −1: dropped), in place."""
    for i in range(n):
        a = newpos[i]
        if a < 0:
            continue
        for j in range(n):
            b = newpos[j]
            if b >= 0:
                M[a, b] = M[i, j]


# ---- the averaged model (docs/algorithms/options.md#kernel-learners) -----------------------------------
#
# Per SV i the support set keeps P_i (``avg_sum[i]``) and the coefficient row the bookkeeping last saw
# (``avg_last[i]``); for the set, q and N (``avg``). Invariant after each round: Σ over the averaged rounds t of
# a_i(t) = P_i + q·A_i, A_i the stored coefficients. A change δ of A_i made in a round is seen at the end of the
# round, before the round counts: P_i −= q·δ keeps the sum of the past rounds; then q += 1 and N += 1 (no learner
# keeps a lazy global scale of its coefficients: every scaling is written into A, and seen as a change). A new
# SV enters with P_i = 0 and last 0, so its first coefficient A_i gives P_i = −q·A_i; a removed SV takes its P_i
# with it. The averaged model is f̄ = Σ_i (P_i + q·A_i)/N κ(x_i, ·).
#
# A rule may instead record a change when it makes it (:func:`set_coef`, O(1) a coefficient): P_i −= q·δ with the
# same q (the round has not counted yet) and ``last`` follows the write, so a row comparison later finds nothing
# more; with every write of a rule recorded so, its step only counts the round (:func:`average_written`, O(1)).


@njit_inline
def set_coef(sv, i, c, value):
    """A_i[c] ← value, the change recorded in the averaged model's sums at once: P_i[c] −= q·(value − A_i[c])
    (docs/algorithms/options.md#kernel-learners). Without ``average`` it is the plain store (the arrays are None,
    :data:`~olkit.learners.kernel.support_set.SVArrays`: the record is not compiled). Before the first averaged
    round q = 0 and P stays (no 0·∞ = NaN)."""
    _record_coef(sv.avg_sum, sv.avg_last, sv.avg, sv.coef, i, c, value)
    sv.coef[i, c] = value


@njit_inline
def _record_coef(P, last, avg, coef, i, c, value):
    """:func:`set_coef`'s record in the averaged model's sums (``P`` not None: the set keeps them)."""
    if P is not None:
        q = avg[0]
        if q != 0.0:
            P[i, c] -= q * (value - coef[i, c])
        last[i, c] = value


@njit_inline
def no_average(sv, n0, seen, start):
    """The loop's averaging step when the learner keeps no average: nothing."""


@njit_helper
def _average_rows(sv, lo, seen, start):
    if seen < start:  # not averaged yet: q = 0, nothing to record (the first averaged round sees every change)
        return
    n = sv.meta[N]
    q = sv.avg[0]
    coef, P, last = sv.coef, sv.avg_sum, sv.avg_last
    for i in range(lo, n):
        for c in range(coef.shape[1]):
            a = coef[i, c]
            if a != last[i, c]:
                P[i, c] -= q * (a - last[i, c])
                last[i, c] = a
    sv.avg[0] = q + 1.0
    sv.avg[1] += 1.0


@njit_inline
def average_all(sv, n0, seen, start):
    """The averaging step after round ``seen`` (1-based) of a rule that may change any SV's coefficients (a
    scaling, a projection, a merge, a double update): every SV's row is compared with the last one seen,
    O(#SV·K), the order of the rule's own work on such rounds."""
    _average_rows(sv, 0, seen, start)


@njit_inline
def average_appended(sv, n0, seen, start):
    """The averaging step of a rule that only sets the coefficients of the SVs it appends in the round (slots
    n0.. , n0 = #SV before the round): O(1) a round, O(K) per new SV. An SV appended before the averaging starts
    keeps its coefficients, P_i = 0 gives its sum q·A_i."""
    _average_rows(sv, n0, seen, start)


@njit_inline
def average_written(sv, n0, seen, start):
    """The averaging step of a rule that writes every coefficient it changes through :func:`set_coef` (the DUOL
    family: the new SV and the auxiliary SV b, O(K) each): the changes are already in the sums, the step only
    counts the round, O(1)."""
    if seen < start:
        return
    sv.avg[0] += 1.0
    sv.avg[1] += 1.0
