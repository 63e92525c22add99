"""The kernel-row lower bound of a kernel learner's run.

Almost all of a kernel learner's time is spent computing κ(x_t, x_i) between each example and the
support vectors present when it arrives. The lower bound is the time to compute exactly those entries
(exp included) with blocked BLAS products and nothing else: for each block of the ordered stream, the
dot products with the SVs that arrived before the block in one matrix product, plus a small product for
the SVs that arrived inside the block, then the kernel transform. It is measured in the same process
as the run it bounds.

Details that keep it a *lower* bound and nothing else:

* the number of entries is counted outside the clock (it is Σ_i (T − 1 − a_i) for SV arrival
  positions a_i: an SV added at stream position a is present for the examples at positions > a);
* the compiled kernel transform is loaded (or compiled) before the clock starts;
* the Gaussian transform is the faster of two vectorised ones (``transform="best"``, the default:
  both are timed, the faster run is the bound): numpy's exp (``"simd"``, AVX-512 where the CPU has it)
  and olkit's own compiled transform :func:`olkit.kernels.kernel_from_gram` (``"olkit"``, a vectorised
  table exp, faster than numpy's where numpy has no SIMD exp for float64 and about as fast otherwise) —
  the learners use the latter, so a bound with numpy's exp alone could be slower than what they do;
* the SVs added inside a block get one small rectangular product over the rows after the first of
  them arrived (a few entries more than needed; ``computed_entries`` reports how many were computed).

With CSR input the products are scipy's sparse products (the ones the learners use for CSR data), with
dense input they are BLAS (one thread, as the learners).
"""

import time

import numba
import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from olkit.kernels import GAUSSIAN, dot_block, kernel_from_gram, row_norms2

BLOCK = 256


def count_entries(arrival, T):
    """Number of kernel entries κ(x_t, x_i) a run of length T needs: Σ_i (T − 1 − a_i)."""
    arrival = np.asarray(arrival, dtype=np.int64)
    return int(np.sum(np.maximum(T - 1 - arrival, 0)))


def _gaussian_simd(G, norms_rows, norms_cols, gamma):
    """In place: G ← exp(−γ max(‖x‖² + ‖z‖² − 2 x·z, 0)) with numpy's vectorised exp."""
    G *= 2.0 * gamma
    G -= (gamma * norms_rows)[:, None]
    G -= (gamma * norms_cols)[None, :]
    np.minimum(G, 0.0, out=G)
    np.exp(G, out=G)
    return G


def _transform(kind, kp, G, norms_rows, norms_cols):
    if kind == "simd" and kp[0] == GAUSSIAN:
        return _gaussian_simd(G, norms_rows, norms_cols, kp[1])
    return kernel_from_gram(kp, G, norms_rows, norms_cols)


def kernel_row_lower_bound_detail(X_ordered, arrival, kp, repeats=3, transform="best"):
    """Like :func:`kernel_row_lower_bound`, with the time split into products and kernel transform.

    Returns a dict: ``seconds`` (best of ``repeats``), ``dot_seconds`` and ``kernel_seconds`` (the split
    of that best repetition), ``entries`` (needed), ``computed_entries`` (computed, ≥ entries),
    ``sparse`` (whether the products were sparse), ``transform``, ``repeats`` and ``all_seconds``.
    ``transform="best"`` measures "simd" and "olkit" (``repeats`` each) and returns the faster, with
    ``seconds_by_transform``.
    """
    if transform == "best":
        runs = {
            kind: kernel_row_lower_bound_detail(X_ordered, arrival, kp, repeats, kind) for kind in ("simd", "olkit")
        }
        best = dict(min(runs.values(), key=lambda d: d["seconds"]))
        best["seconds_by_transform"] = {kind: d["seconds"] for kind, d in runs.items()}
        return best
    if transform not in ("simd", "olkit"):
        raise ValueError(f"transform must be 'best', 'simd' or 'olkit', got {transform!r}")
    arrival = np.sort(np.asarray(arrival, dtype=np.int64))
    kp = np.asarray(kp, dtype=np.float64)
    T = X_ordered.shape[0]
    SV = X_ordered[arrival]
    norms = row_norms2(X_ordered)
    sv_norms = norms[arrival]
    # load the compiled transform before any timing
    kernel_from_gram(kp, np.zeros((1, 1)), norms[:1], norms[:1])
    best = None
    all_seconds = []
    with threadpool_limits(limits=1):
        for _ in range(max(1, int(repeats))):
            t_dot = t_ker = 0.0
            computed = 0
            start = time.perf_counter()
            for s in range(0, T, BLOCK):
                e = min(T, s + BLOCK)
                before = int(np.searchsorted(arrival, s))  # SVs present for the whole block
                inside = int(np.searchsorted(arrival, e - 1))  # plus those added inside it (needed by later rows)
                if before:
                    t0 = time.perf_counter()
                    G = np.ascontiguousarray(dot_block(X_ordered[s:e], SV[:before]))
                    t1 = time.perf_counter()
                    _transform(transform, kp, G, norms[s:e], sv_norms[:before])
                    t_dot += t1 - t0
                    t_ker += time.perf_counter() - t1
                    computed += G.size
                if inside > before:
                    r0 = int(arrival[before]) + 1  # first row that needs any of them
                    t0 = time.perf_counter()
                    G = np.ascontiguousarray(dot_block(X_ordered[r0:e], SV[before:inside]))
                    t1 = time.perf_counter()
                    _transform(transform, kp, G, norms[r0:e], sv_norms[before:inside])
                    t_dot += t1 - t0
                    t_ker += time.perf_counter() - t1
                    computed += G.size
            elapsed = time.perf_counter() - start
            all_seconds.append(elapsed)
            if best is None or elapsed < best["seconds"]:
                best = {"seconds": elapsed, "dot_seconds": t_dot, "kernel_seconds": t_ker, "computed_entries": computed}
    best.update(
        entries=count_entries(arrival, T),
        sparse=bool(sp.issparse(X_ordered)),
        transform=transform,
        repeats=len(all_seconds),
        all_seconds=all_seconds,
    )
    return best


def kernel_row_lower_bound(X_ordered, arrival, kp, repeats=3):
    """Best-of-``repeats`` seconds to compute the kernel entries a run needed.

    X_ordered: the stream in presentation order (dense or CSR); arrival: stream position at which each
    SV was added (a learner that never removes SVs keeps them all); kp: packed kernel parameters.
    Returns (seconds, number of kernel entries).
    """
    d = kernel_row_lower_bound_detail(X_ordered, arrival, kp, repeats=repeats)
    return d["seconds"], d["entries"]


@numba.njit(nogil=True)
def _scatter(n_present, hr, hs, hw, krow, f):
    """The K scores' loop of :func:`expansion_floor`: for each example t, f ← Σ_{j < n_present[t]} hw_j krow_j
    (e_{hr_j} − e_{hs_j}), sequentially in slot order."""
    for t in range(n_present.shape[0]):
        for c in range(f.shape[0]):
            f[c] = 0.0
        for j in range(n_present[t]):
            g = hw[j] * krow[j]
            f[hr[j]] += g
            f[hs[j]] -= g
    return f[0]


def expansion_floor(arrival, T, hr, hs, repeats=3):
    """Best-of-``repeats`` seconds of the K-class kernel expansion alone, over the entries of a run.

    A multiclass kernel learner computes, besides the kernel row of each example, its K scores
    f_c(x_t) = Σ_i coef[i, c] κ(x_i, x_t); with coefficient vectors γ_i (e_{r_i} − e_{s_i}) that is one
    multiply and two scattered additions per SV present (olkit's
    :func:`~olkit.learners.kernel.scores.direction_scores`, in slot order, so that the sums are the
    sequential ones bit for bit). This times exactly that loop, compiled with numba and nothing else in
    it (fixed kernel values and weights, the run's own directions ``hr``/``hs`` in arrival order), over the
    same entries as :func:`kernel_row_lower_bound`: SV i takes part for the T − 1 − a_i examples after its
    arrival a_i. Bound + this floor is the least time of kernel rows plus scores."""
    arrival = np.sort(np.asarray(arrival, dtype=np.int64))
    hr = np.ascontiguousarray(hr, dtype=np.int64)
    hs = np.ascontiguousarray(hs, dtype=np.int64)
    K = int(max(hr.max(initial=0), hs.max(initial=0))) + 1
    n_present = np.searchsorted(arrival, np.arange(T), side="left").astype(np.int64)  # SVs with a_i < t
    rng = np.random.default_rng(0)
    hw = rng.random(len(arrival))
    krow = rng.random(len(arrival))
    f = np.zeros(K)
    _scatter(n_present[:2], hr, hs, hw, krow, f)  # compile (once per process) before timing
    best = None
    for _ in range(max(1, int(repeats))):
        start = time.perf_counter()
        _scatter(n_present, hr, hs, hw, krow, f)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best
