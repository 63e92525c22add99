"""Dot products and squared distances between stored rows (the rows of a dense matrix, or CSR runs of a
pool of non-zeros) and one row: the arithmetic every kernel value of the support set comes from, shared by
the kernel rows of the current example (:mod:`~olkit.learners.kernel.kernel_rows`) and the SV–SV rows
(:mod:`~olkit.learners.kernel.gram`), so that both give the same bits.

A sparse row meets the stored ones through a dense scatter buffer (``work``, all zero between calls). The
``near_pairs_*`` functions recompute the Gaussian kernel values of near pairs from the explicit differences
(see :data:`olkit.kernels.NEAR`)."""

from ..._compile import njit_helper, njit_helper_reassoc, njit_inline
from ...kernels import NEAR_PAIR, near_gaussian


@njit_helper_reassoc
def dense_dots(X, x, out, lo, hi):
    """out[i] = X[i]·x for lo ≤ i < hi (one loop nest: no array view per row)."""
    d = x.shape[0]
    for i in range(lo, hi):
        acc = 0.0
        for k in range(d):
            acc += X[i, k] * x[k]
        out[i] = acc


@njit_helper_reassoc
def packed_dense_dots(X, x, sel, out, m):
    """out[k] = X[sel[k]]·x for k < m (the arithmetic of :func:`dense_dots`)."""
    d = x.shape[0]
    for k in range(m):
        i = sel[k]
        acc = 0.0
        for j in range(d):
            acc += X[i, j] * x[j]
        out[k] = acc


@njit_inline
def sparse_dot(start, stop, indices, data, j, work):
    acc = 0.0
    for q in range(start[j], stop[j]):
        acc += data[q] * work[indices[q]]
    return acc


@njit_helper
def near_pairs_dense(krow, n, sv_X, X, t, kp):
    """krow[j] ← exp(−γ ‖x − x_j‖²) (+ the intercept's offset) from the explicit differences wherever krow[j] is
    NEAR_PAIR (see :data:`olkit.kernels.NEAR`), for x = row t of X and dense SVs."""
    for j in range(n):
        if krow[j] == NEAR_PAIR:
            krow[j] = near_gaussian(sq_dist_dense(sv_X, j, X, t), kp)


@njit_inline
def sq_dist_dense(A, i, B, j):
    """‖A[i] − B[j]‖² from the differences."""
    acc = 0.0
    for k in range(A.shape[1]):
        v = B[j, k] - A[i, k]
        acc += v * v
    return acc


@njit_helper
def near_pairs_sparse(krow, n, start, stop, indices, data, lo, hi, x_indices, x_data, work, kp):
    """:func:`near_pairs_dense` for CSR SVs and x = the CSR entries lo..hi−1 of ``x_indices``/``x_data``
    (through the all-zero scatter buffer ``work``, left all zero)."""
    for j in range(n):
        if krow[j] == NEAR_PAIR:
            krow[j] = near_gaussian(sq_dist_sparse(start, stop, indices, data, j, lo, hi, x_indices, x_data, work), kp)


@njit_inline
def sq_dist_sparse(start, stop, indices, data, j, lo, hi, x_indices, x_data, work):
    """‖x − x_j‖² from the differences, for the CSR row j and x = the CSR entries lo..hi−1 of
    ``x_indices``/``x_data``, through the all-zero scatter buffer ``work`` (left all zero)."""
    for q in range(lo, hi):
        work[x_indices[q]] = x_data[q]
    acc = 0.0
    for q in range(start[j], stop[j]):
        v = work[indices[q]] - data[q]
        acc += v * v
        work[indices[q]] = 0.0  # consumed: the x entries left are those x_j does not have
    for q in range(lo, hi):
        v = work[x_indices[q]]
        acc += v * v
        work[x_indices[q]] = 0.0
    return acc
