"""Dot products and squared distances between stored rows (the rows of a dense matrix, or CSR runs of a
pool of non-zeros) and one row: the arithmetic every kernel value of the support set comes from, shared by
the kernel rows of the current example (:mod:`~olkit.learners.kernel.kernel_rows`) and the SV–SV rows
(:mod:`~olkit.learners.kernel.gram`), so that both give the same bits.

A sparse row meets the stored ones through a dense scatter buffer (``work``, all zero between calls). The
``near_pairs_*`` functions recompute the Gaussian kernel values of near pairs from the explicit differences
(see :data:`olkit.kernels.NEAR`)."""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ..._compile import min2, njit_helper, njit_helper_reassoc, njit_inline
from ...kernels import NEAR_PAIR, near_gaussian

PREFETCH_AHEAD = 8
"""How many rows ahead :func:`packed_dense_dots` asks the CPU to fetch."""


@intrinsic
def prefetch_row(typingctx, A, i):
    """A hint to fetch row i of the C-contiguous 2-D array A into the caches (every 64-byte line of its first
    512 bytes; the hardware prefetcher follows a longer row by itself). No effect on any value."""
    if not (isinstance(A, types.Array) and A.ndim == 2 and isinstance(i, types.Integer)):
        return None
    sig = types.void(A, i)

    def codegen(context, builder, signature, args):
        aryty, _ = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        row = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1], context.get_constant(types.intp, 0)])
        row = builder.bitcast(row, ir.IntType(8).as_pointer())
        fnty = ir.FunctionType(
            ir.VoidType(), [ir.IntType(8).as_pointer(), ir.IntType(32), ir.IntType(32), ir.IntType(32)]
        )
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        width = aryty.dtype.bitwidth // 8
        ncols = builder.extract_value(ary.shape, 1)
        nbytes = builder.mul(ncols, context.get_constant(types.intp, width))
        i32 = ir.IntType(32)
        for off in range(0, 512, 64):
            with builder.if_then(builder.icmp_signed(">", nbytes, context.get_constant(types.intp, off))):
                builder.call(fn, [builder.gep(row, [ir.Constant(ir.IntType(64), off)]), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


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
    for k in range(min2(PREFETCH_AHEAD, m)):
        prefetch_row(X, sel[k])
    for k in range(m):
        prefetch_row(X, sel[min2(k + PREFETCH_AHEAD, m - 1)])
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
