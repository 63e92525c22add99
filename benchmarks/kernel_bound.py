"""The kernel-row lower bound of a kernel learner's run.

Almost all of a kernel learner's time is spent computing κ(x_t, x_i) between each example and the
support vectors present when it arrives. The lower bound is the time to compute exactly those entries
(exp included) with blocked BLAS products and nothing else: for each block of the ordered stream, the
dot products with the SVs that arrived before the block in one matrix product, plus a small product for
the SVs that arrived inside the block, then the kernel transform. It is measured in the same process
as the run it bounds.
"""
import time

import numpy as np
from threadpoolctl import threadpool_limits

from olkit.kernels import dot_block, kernel_from_gram, row_norms2

BLOCK = 256


def kernel_row_lower_bound(X_ordered, arrival, kp, repeats=3):
    """Best-of-``repeats`` seconds to compute the kernel entries a run needed.

    X_ordered: the stream in presentation order (dense or CSR); arrival: stream position at which each
    SV was added (a learner that never removes SVs keeps them all); kp: packed kernel parameters.
    Returns (seconds, number of kernel entries).
    """
    arrival = np.sort(np.asarray(arrival))
    SV = X_ordered[arrival]
    norms = row_norms2(X_ordered)
    sv_norms = norms[arrival]
    T = X_ordered.shape[0]
    best = np.inf
    entries = 0
    with threadpool_limits(limits=1):
        for _ in range(repeats):
            entries = 0
            start = time.perf_counter()
            for s in range(0, T, BLOCK):
                e = min(T, s + BLOCK)
                before = np.searchsorted(arrival, s)       # SVs present for the whole block
                inside = np.searchsorted(arrival, e - 1)   # plus those added inside it
                rows = X_ordered[s:e]
                if before:
                    G = np.ascontiguousarray(dot_block(rows, SV[:before]))
                    kernel_from_gram(kp, G, norms[s:e], sv_norms[:before])
                if inside > before:
                    G = np.ascontiguousarray(dot_block(rows, SV[before:inside]))
                    kernel_from_gram(kp, G, norms[s:e], sv_norms[before:inside])
                entries += (e - s) * before + int(np.sum(np.maximum(0, np.arange(s, e)[:, None] - arrival[before:inside][None, :]) > 0))
            best = min(best, time.perf_counter() - start)
    return best, entries
