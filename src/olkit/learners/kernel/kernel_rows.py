"""Kernel rows: κ(x_i, x_t) of the current example x_t against every SV, computed in blocks.

Kernel rows are computed in blocks (see :mod:`olkit.protocol`): for an in-memory stream the dot products
of the next block of examples with the SVs present at the start of the block come from one BLAS product
(``SupportSet.dots``); the compiled loop turns them into kernel values and computes one by one only the
entries for SVs added inside the block. The SVs covered by the block product are always the slots
0..NPRE−1, and ``gcol[j]`` is the block-product column of slot j (removals inside a block keep it so,
:mod:`~olkit.learners.kernel.sv_edit`).

:func:`begin_block` sets a block up; :func:`kernel_row_dense` and :func:`kernel_row_sparse` fill one row (the
hot loop binds the one of its storage and calls it with plain arrays); :func:`fill_kernel_row` does the same
for callers outside the hot loop.
"""

from ..._compile import min2, njit_helper, njit_inline
from ...kernels import kernel_from_dot, kernel_row_from_dots
from .dots import dense_dots, near_pairs_dense, near_pairs_sparse, sparse_dot
from .gram import sync_gram
from .support_set import HAS_GRAM, NMOVED, NPRE, N


@njit_inline
def begin_block(sv, n_block_columns):
    """Set up a block: the first ``n_block_columns`` slots are covered by the block product, in order."""
    sv.meta[NPRE] = min2(n_block_columns, sv.meta[N])
    sv.meta[NMOVED] = 0
    for j in range(sv.meta[NPRE]):
        sv.gcol[j] = j
    if sv.meta[HAS_GRAM]:
        sync_gram(sv)


@njit_helper
def fill_kernel_row(sv, s, t, G, p):
    """Fill ``sv.krow[:n]`` with κ(x_i, x_t) for all SVs and return κ(x_t, x_t) (see :func:`kernel_row`;
    for callers outside the hot loop)."""
    return kernel_row(
        sv.krow,
        G,
        p,
        sv.meta,
        sv.gcol,
        sv.moved,
        sv.norm2,
        sv.X,
        sv.start,
        sv.stop,
        sv.indices,
        sv.data,
        s.X,
        s.indptr,
        s.indices,
        s.data,
        s.work,
        s.norm2,
        s.kp,
        t,
    )


@njit_helper
def kernel_row(
    krow,
    G,
    p,
    meta,
    gcol,
    moved,
    sv_norm2,
    sv_X,
    sv_start,
    sv_stop,
    sv_indices,
    sv_data,
    X,
    indptr,
    indices,
    data,
    work,
    norm2,
    kp,
    t,
):
    """Fill ``krow[:n]`` with κ(x_i, x_t) for all SVs and return κ(x_t, x_t) (the support set's and the
    stream's arrays, as :func:`fill_kernel_row` passes them): :func:`kernel_row_sparse` or
    :func:`kernel_row_dense`, as the SVs are stored. The compiled loop binds one of the two (a run compiles
    only its own storage's code; here ``sv_indices`` is None for dense SVs, which leaves the sparse branch out)."""
    if sv_indices is not None:
        return kernel_row_sparse(
            krow,
            G,
            p,
            meta,
            gcol,
            moved,
            sv_norm2,
            sv_X,
            sv_start,
            sv_stop,
            sv_indices,
            sv_data,
            X,
            indptr,
            indices,
            data,
            work,
            norm2,
            kp,
            t,
        )
    return kernel_row_dense(
        krow,
        G,
        p,
        meta,
        gcol,
        moved,
        sv_norm2,
        sv_X,
        sv_start,
        sv_stop,
        sv_indices,
        sv_data,
        X,
        indptr,
        indices,
        data,
        work,
        norm2,
        kp,
        t,
    )


@njit_helper
def kernel_row_dense(
    krow,
    G,
    p,
    meta,
    gcol,
    moved,
    sv_norm2,
    sv_X,
    sv_start,
    sv_stop,
    sv_indices,
    sv_data,
    X,
    indptr,
    indices,
    data,
    work,
    norm2,
    kp,
    t,
):
    """:func:`kernel_row` for dense SVs and stream rows.

    Entries of the covered slots (the first ``meta[NPRE]``) come from row p of the block of dot products
    G (column ``gcol[j]``); the rest (SVs added since the block started) are computed here. The dot
    products are copied (or computed) first and turned into kernel values by one vectorised pass over the row
    (:func:`olkit.kernels.kernel_row_from_dots`: a row in the L2 cache, measured faster than one pass
    over the whole block). Gaussian values of near pairs are then computed from the differences
    (:data:`olkit.kernels.NEAR`).

    The hot loop calls this with plain arrays: a compiled call (or an inlined function) that takes the
    named tuples copies their ~30 arrays with a reference count each, ~0.1 µs a call, about a third of
    the loop's per-example cost when the rows are short. For the same reason the row is built with few
    compiled calls (each array argument of a call costs an atomic increment and decrement).
    """
    n = meta[N]
    npre = min2(meta[NPRE], n)
    xn = norm2[t]
    _covered_dots(krow, G, p, npre, gcol, moved, meta[NMOVED])
    if npre < n:
        dense_dots(sv_X, X[t], krow, npre, n)
    if kernel_row_from_dots(kp, krow, xn, sv_norm2, n):
        near_pairs_dense(krow, n, sv_X, X, t, kp)
    return kernel_from_dot(kp, xn, xn, xn)


@njit_helper
def kernel_row_sparse(
    krow,
    G,
    p,
    meta,
    gcol,
    moved,
    sv_norm2,
    sv_X,
    sv_start,
    sv_stop,
    sv_indices,
    sv_data,
    X,
    indptr,
    indices,
    data,
    work,
    norm2,
    kp,
    t,
):
    """:func:`kernel_row_dense` for CSR SVs and stream rows."""
    n = meta[N]
    npre = min2(meta[NPRE], n)
    xn = norm2[t]
    lo, hi = indptr[t], indptr[t + 1]
    _covered_dots(krow, G, p, npre, gcol, moved, meta[NMOVED])
    if npre < n:
        _sparse_dots(krow, npre, n, sv_start, sv_stop, sv_indices, sv_data, lo, hi, indices, data, work)
    if kernel_row_from_dots(kp, krow, xn, sv_norm2, n):
        near_pairs_sparse(krow, n, sv_start, sv_stop, sv_indices, sv_data, lo, hi, indices, data, work, kp)
    return kernel_from_dot(kp, xn, xn, xn)


@njit_inline
def _covered_dots(krow, G, p, npre, gcol, moved, n_moved):
    """krow[:npre] ← the dot products of row p of the block product; the covered slots a removal refilled
    (listed in ``moved``) read their column ``gcol[j]``, the others column j (one contiguous copy)."""
    for j in range(npre):
        krow[j] = G[p, j]
    for q in range(n_moved):
        j = moved[q]
        if j < npre:
            krow[j] = G[p, gcol[j]]


@njit_helper
def _sparse_dots(krow, npre, n, start, stop, indices, data, q0, q1, x_indices, x_data, work):
    """krow[npre:n] ← x_j·x for the SVs added since the block started (x: CSR entries q0..q1−1, scattered
    into ``work`` and cleared again)."""
    for q in range(q0, q1):
        work[x_indices[q]] = x_data[q]
    for j in range(npre, n):
        krow[j] = sparse_dot(start, stop, indices, data, j, work)
    for q in range(q0, q1):
        work[x_indices[q]] = 0.0
