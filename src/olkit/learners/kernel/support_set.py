"""The support set shared by every kernel learner.

A kernel model is f(·) = Σ_i a_i κ(x_i, ·) over stored support vectors (SVs) x_i. The support set holds

* the SV inputs, dense rows or CSR rows (a sparse stream is never densified), with cached squared norms
  and κ(x_i, x_i);
* a coefficient *vector* per SV (``coef[i, :]``; binary learners use column 0, multiclass learners one
  column per class);
* per-SV labels ``y`` and cached scores ``F`` (e.g. DUOL's margins F_i = y_i f(x_i)) where an algorithm
  needs them;
* an optional SV Gram cache ``gram[i, j] = κ(x_i, x_j)``, filled for free when an SV is added (its kernel
  row against the current SVs was just computed to predict) and used by algorithms that need SV–SV
  kernel values (DUOL, Online-SVM, later Projectron, Ahpatron, kernel SCW). Rows are written when an SV
  is added; the mirrored column entries are filled once per block by ``sync_gram`` (writing a column
  per added SV touches one cache line per entry and was the largest cost of DUOL). Read SV–SV values
  through ``load_gram_row`` (compiled code) or ``gram_matrix()`` (Python), which handle the
  not-yet-mirrored part; ``load_gram_row`` computes the row on demand when there is no cache (a
  learner may cap the cache's memory, see ``gram_limit_bytes``);
* an optional SV-pair matrix ``pair`` (n × n) for algorithms that keep a matrix over the SVs
  (kernel SCW's π of ALGORITHMS.md C14); new SVs enter with a zero row and column;
* a scratch kernel row ``krow`` of the current example against all SVs;
* ``added[i]``, the number of examples the learner had seen when SV i was added (its arrival time).

Kernel rows are computed in blocks (see :mod:`olkit.protocol`): for an in-memory stream the dot products
of the next block of examples with the SVs present at the start of the block come from one BLAS product
(``dots``); the compiled loop turns them into kernel values and computes one by one only the entries for
SVs added inside the block. ``meta[NPRE]`` is the number of leading SVs covered by the block product; a
removal at position r lowers it to r, so the engine stays exact when budgeted learners remove SVs.

The Python class owns the arrays (with spare capacity, grown between blocks); the compiled code sees
them as the :data:`SVArrays` named tuple and updates them in place.
"""
import math
from collections import namedtuple

import numpy as np
import scipy.sparse as sp

from ..._compile import njit, njit_reassoc
from ...kernels import GAUSSIAN, dot_block, kernel_from_dot, kernel_from_gram

# meta slots: #SVs, #SVs covered by the block product, sparse flag, Gram flag, examples seen (clock),
# #SVs whose Gram column is filled (see sync_gram)
N, NPRE, SPARSE, HAS_GRAM, CLOCK, GSYNC = 0, 1, 2, 3, 4, 5

SVArrays = namedtuple(
    "SVArrays", ["X", "indptr", "indices", "data", "norm2", "kself", "y", "coef", "F", "gram", "krow", "grow", "added",
                 "meta", "pair"]
)
"""Arrays of a support set as the compiled code sees them (full capacity; ``meta[N]`` are in use)."""

Stream = namedtuple("Stream", ["X", "indptr", "indices", "data", "norm2", "y", "kp", "work"])
"""An in-memory stream as the compiled code sees it: dense ``X`` (n × d) or CSR arrays, squared row
norms, labels in the learner's internal coding, kernel parameters and a length-d scatter buffer."""


def make_stream(X, y_internal, kp):
    """Pack validated data (dense float64 C array or CSR) for the compiled loop."""
    from ...kernels import row_norms2

    norm2 = row_norms2(X)
    if sp.issparse(X):
        X = X.tocsr()
        return Stream(np.empty((0, X.shape[1])), X.indptr.astype(np.int64), X.indices.astype(np.int64),
                      X.data.astype(np.float64), norm2, y_internal, kp, np.zeros(X.shape[1]))
    empty_i = np.zeros(1, np.int64)
    return Stream(np.ascontiguousarray(X, dtype=np.float64), empty_i, empty_i, np.empty(0), norm2,
                  y_internal, kp, np.empty(0))


class SupportSet:
    """Storage of support vectors, coefficients and caches, with amortised growth.

    Parameters
    ----------
    n_features : int
    sparse : bool
        Store SVs as CSR rows (for sparse streams) instead of dense rows.
    n_outputs : int
        Length of the coefficient vector of each SV (1 for binary learners).
    gram : bool
        Keep the SV Gram cache (memory O(#SV²)).
    gram_limit_bytes : int or None
        Drop the cache (and compute SV rows on demand from then on) when it would outgrow this size;
        None keeps it whatever its size (for rules that cannot work without it, e.g. Online-SVM).
    pair : bool
        Keep the SV-pair matrix ``pair`` (memory O(#SV²)).
    """

    GRAM_LIMIT_BYTES = 1 << 30
    """Default limit of an optional Gram cache: 1 GiB, i.e. about 11,000 SVs."""

    def __init__(self, n_features, sparse, n_outputs=1, gram=False, gram_limit_bytes=None, pair=False):
        self.n_features = int(n_features)
        self.sparse = bool(sparse)
        self.n_outputs = int(n_outputs)
        self.use_gram = bool(gram)
        self.gram_limit_bytes = gram_limit_bytes
        self.use_pair = bool(pair)
        self.meta = np.zeros(6, np.int64)
        self.meta[SPARSE] = int(self.sparse)
        self.meta[HAS_GRAM] = int(self.use_gram)
        self._allocate(0, 0)

    # -- storage ---------------------------------------------------------------------------------
    def _allocate(self, cap, nnz_cap):
        # np.empty: only the first n entries are ever read, and sv_append initialises each new slot.
        d = self.n_features
        self.X = np.empty((0 if self.sparse else cap, d))
        self.indptr = np.zeros(cap + 1, np.int64)
        self.indices = np.empty(nnz_cap, np.int64)
        self.data = np.empty(nnz_cap)
        self.norm2 = np.empty(cap)
        self.kself = np.empty(cap)
        self.y = np.empty(cap)
        self.coef = np.empty((cap, self.n_outputs))
        self.F = np.empty(cap)
        self.added = np.empty(cap, np.int64)
        self.gram = np.empty((cap, cap) if self.use_gram else (0, 0))
        self.pair = np.empty((cap, cap) if self.use_pair else (0, 0))
        self.krow = np.empty(cap + 1)
        self.grow = np.empty(cap + 1)
        self.capacity = cap

    @property
    def n(self):
        """Number of stored SVs."""
        return int(self.meta[N])

    def reserve(self, n_more, nnz_more=0):
        """Make room for ``n_more`` further SVs (and ``nnz_more`` further non-zeros when sparse)."""
        n = self.n
        need = n + n_more
        nnz = int(self.indptr[n])
        need_nnz = nnz + nnz_more
        if need <= self.capacity and need_nnz <= len(self.indices):
            return
        # odd capacities: a power-of-two row stride of the Gram cache makes copies and column
        # accesses collide in the CPU caches (measured 40x slower at 4096)
        new_cap = max(need, 2 * self.capacity) | 1
        new_nnz = max(need_nnz, 2 * len(self.indices)) if self.sparse else 0
        if self.use_gram and self.gram_limit_bytes is not None and new_cap * new_cap * 8 > self.gram_limit_bytes:
            self.use_gram = False  # too large: load_gram_row computes rows on demand from now on
            self.meta[HAS_GRAM] = 0
        old = {name: getattr(self, name) for name in
               ("X", "indptr", "indices", "data", "norm2", "kself", "y", "coef", "F", "added", "gram", "pair")}
        self._allocate(new_cap, new_nnz)
        if not self.sparse:
            self.X[:n] = old["X"][:n]
        self.indptr[: n + 1] = old["indptr"][: n + 1]
        self.indices[:nnz] = old["indices"][:nnz]
        self.data[:nnz] = old["data"][:nnz]
        for name in ("norm2", "kself", "y", "coef", "F", "added"):
            getattr(self, name)[:n] = old[name][:n]
        if self.use_gram:
            sync_gram(self.arrays_of(old["gram"]))
            self.gram[:n, :n] = old["gram"][:n, :n]
        if self.use_pair:
            self.pair[:n, :n] = old["pair"][:n, :n]

    def arrays(self):
        """The :data:`SVArrays` view handed to compiled code."""
        return self.arrays_of(self.gram)

    def arrays_of(self, gram):
        return SVArrays(self.X, self.indptr, self.indices, self.data, self.norm2, self.kself, self.y,
                        self.coef, self.F, gram, self.krow, self.grow, self.added, self.meta, self.pair)

    # -- read access -----------------------------------------------------------------------------
    def vectors(self, n=None):
        """The first ``n`` (default: all) SV inputs as a dense view or a CSR matrix."""
        n = self.n if n is None else n
        if self.sparse:
            nnz = int(self.indptr[n])
            return sp.csr_matrix((self.data[:nnz], self.indices[:nnz], self.indptr[: n + 1]),
                                 shape=(n, self.n_features))
        return self.X[:n]

    def gram_matrix(self):
        """The SV Gram matrix κ(x_i, x_j) (n × n, symmetric); needs the cache (``gram=True``)."""
        if not self.use_gram:
            raise ValueError("this support set keeps no Gram cache (not requested, or dropped beyond gram_limit_bytes)")
        sync_gram(self.arrays())
        return self.gram[: self.n, : self.n]

    def dots(self, rows):
        """Dot products of the given data rows with every stored SV (one BLAS / sparse product)."""
        return np.ascontiguousarray(dot_block(rows, self.vectors()), dtype=np.float64)

    def kernel(self, rows, norm2_rows, kp):
        """Kernel matrix of the given rows against the stored SVs."""
        return kernel_from_gram(kp, self.dots(rows), norm2_rows, self.norm2[: self.n])

    # -- pickling: store only what is in use ----------------------------------------------------------
    def __getstate__(self):
        n = self.n
        state = self.__dict__.copy()
        nnz = int(self.indptr[n])
        for name in ("X", "norm2", "kself", "y", "coef", "F", "added", "krow"):
            state[name] = getattr(self, name)[:n].copy()
        state["indptr"] = self.indptr[: n + 1].copy()
        state["indices"] = self.indices[:nnz].copy()
        state["data"] = self.data[:nnz].copy()
        if self.use_gram:
            sync_gram(self.arrays())
            state["gram"] = self.gram[:n, :n].copy()
        if self.use_pair:
            state["pair"] = self.pair[:n, :n].copy()
        state["capacity"] = n
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.krow = np.zeros(self.capacity + 1)
        self.grow = np.zeros(self.capacity + 1)


# ---- compiled helpers ----------------------------------------------------------------------------

@njit
def scatter(s, t):
    """Write CSR row t of the stream into the dense buffer ``s.work`` (for sparse SV dot products)."""
    for q in range(s.indptr[t], s.indptr[t + 1]):
        s.work[s.indices[q]] = s.data[q]


@njit
def unscatter(s, t):
    for q in range(s.indptr[t], s.indptr[t + 1]):
        s.work[s.indices[q]] = 0.0


@njit_reassoc
def _dense_dot(a, b):
    acc = 0.0
    for k in range(a.shape[0]):
        acc += a[k] * b[k]
    return acc


@njit
def _sparse_dot(indptr, indices, data, j, work):
    acc = 0.0
    for q in range(indptr[j], indptr[j + 1]):
        acc += data[q] * work[indices[q]]
    return acc


@njit
def fill_kernel_row(sv, s, t, G, p):
    """Fill ``sv.krow[:n]`` with κ(x_i, x_t) for all SVs and return κ(x_t, x_t).

    Entries of the first ``meta[NPRE]`` SVs come from row p of the block of dot products G; the rest
    (SVs added since the block started) are computed here. (Hot loops take plain arrays: passing the
    named tuples to a helper per entry costs reference counting on every array, ~0.5 µs a call.)
    """
    n = sv.meta[N]
    npre = min(sv.meta[NPRE], n)
    xn = s.norm2[t]
    krow, sv_norm2, kp = sv.krow, sv.norm2, s.kp
    if kp[0] == GAUSSIAN:  # the hot loop, kept free of the kernel switch
        gamma = kp[1]
        for j in range(npre):
            krow[j] = math.exp(-max(xn + sv_norm2[j] - 2.0 * G[p, j], 0.0) * gamma)
    else:
        for j in range(npre):
            krow[j] = kernel_from_dot(kp, G[p, j], xn, sv_norm2[j])
    if npre < n:
        if sv.meta[SPARSE]:
            indptr, indices, data, work = sv.indptr, sv.indices, sv.data, s.work
            scatter(s, t)
            for j in range(npre, n):
                krow[j] = kernel_from_dot(kp, _sparse_dot(indptr, indices, data, j, work), xn, sv_norm2[j])
            unscatter(s, t)
        else:
            svX, x = sv.X, s.X[t]
            for j in range(npre, n):
                krow[j] = kernel_from_dot(kp, _dense_dot(svX[j], x), xn, sv_norm2[j])
    return kernel_from_dot(kp, xn, xn, xn)


@njit
def expansion_score(sv, col):
    """f_col(x_t) = Σ_i coef[i, col] κ(x_i, x_t) from the current kernel row."""
    coef, krow = sv.coef, sv.krow
    acc = 0.0
    for j in range(sv.meta[N]):
        acc += coef[j, col] * krow[j]
    return acc


@njit
def sv_append(sv, s, t, kself, label):
    """Store stream row t as a new SV with zero coefficients and return its index.

    Needs ``sv.krow`` to hold the kernel row of x_t (it fills the Gram cache from it) and sets
    ``krow[new] = κ(x_t, x_t)`` so that cache updates can treat the new SV like the others.
    """
    n = sv.meta[N]
    if sv.meta[SPARSE]:
        start = sv.indptr[n]
        m = s.indptr[t + 1] - s.indptr[t]
        for q in range(m):
            sv.indices[start + q] = s.indices[s.indptr[t] + q]
            sv.data[start + q] = s.data[s.indptr[t] + q]
        sv.indptr[n + 1] = start + m
    else:
        sv.X[n, :] = s.X[t, :]
    sv.norm2[n] = s.norm2[t]
    sv.kself[n] = kself
    sv.y[n] = label
    sv.coef[n, :] = 0.0
    sv.F[n] = 0.0
    sv.added[n] = sv.meta[CLOCK]
    if sv.meta[HAS_GRAM]:
        for j in range(n):
            sv.gram[n, j] = sv.krow[j]
        sv.gram[n, n] = kself
    if sv.pair.shape[0] > 0:
        for j in range(n + 1):
            sv.pair[n, j] = 0.0
            sv.pair[j, n] = 0.0
    sv.krow[n] = kself
    sv.meta[N] = n + 1
    return n


@njit
def sv_scale(sv, factor):
    """Multiply every coefficient by ``factor`` (ROMMA, ALMA, BOGD shrinkage)."""
    for j in range(sv.meta[N]):
        for c in range(sv.coef.shape[1]):
            sv.coef[j, c] *= factor


@njit
def sv_clear(sv):
    """Remove every SV (agg-ROMMA's reset case)."""
    sv.meta[N] = 0
    sv.meta[NPRE] = 0
    sv.meta[GSYNC] = 0
    sv.indptr[0] = 0


@njit
def sync_gram(sv):
    """Mirror the rows of SVs added since the last call into their Gram columns.

    Row-major over the destination (each row j gets a contiguous segment), so the copy streams through
    memory instead of touching one cache line per entry.
    """
    n, done = sv.meta[N], sv.meta[GSYNC]
    for j in range(n):
        for i in range(max(done, j + 1), n):
            sv.gram[j, i] = sv.gram[i, j]
    sv.meta[GSYNC] = n


@njit
def load_gram_row(sv, b, s):
    """Fill ``sv.grow[:n]`` with κ(x_b, x_i) for every SV i.

    From the Gram cache when the support set keeps one; otherwise computed on demand (O(#SV·nnz)).
    """
    n = sv.meta[N]
    if sv.meta[HAS_GRAM]:
        split = max(sv.meta[GSYNC], b + 1)
        for i in range(min(split, n)):
            sv.grow[i] = sv.gram[b, i]
        for i in range(split, n):  # columns not mirrored yet: read the (complete) rows of the new SVs
            sv.grow[i] = sv.gram[i, b]
        return
    indptr, indices, data, work, grow, norm2 = sv.indptr, sv.indices, sv.data, s.work, sv.grow, sv.norm2
    if sv.meta[SPARSE]:
        for q in range(indptr[b], indptr[b + 1]):
            work[indices[q]] = data[q]
        for i in range(n):
            grow[i] = kernel_from_dot(s.kp, _sparse_dot(indptr, indices, data, i, work), norm2[i], norm2[b])
        for q in range(indptr[b], indptr[b + 1]):
            work[indices[q]] = 0.0
    else:
        svX = sv.X
        for i in range(n):
            grow[i] = kernel_from_dot(s.kp, _dense_dot(svX[i], svX[b]), norm2[i], norm2[b])


@njit
def sv_remove(sv, r):
    """Remove SV r, keeping the order of the others (FIFO budgets rely on it); O(#SV·d + #SV²).

    For budgeted learners. SVs after r move up one place, so the block product covers only the SVs
    before r from here on (``meta[NPRE]``).
    """
    n = sv.meta[N]
    if sv.meta[HAS_GRAM]:
        sync_gram(sv)
    if sv.meta[SPARSE]:
        start, stop = sv.indptr[r], sv.indptr[r + 1]
        width = stop - start
        for q in range(stop, sv.indptr[n]):
            sv.indices[q - width] = sv.indices[q]
            sv.data[q - width] = sv.data[q]
        for j in range(r + 1, n + 1):
            sv.indptr[j - 1] = sv.indptr[j] - width
    else:
        for j in range(r + 1, n):
            sv.X[j - 1, :] = sv.X[j, :]
    for j in range(r + 1, n):
        sv.norm2[j - 1] = sv.norm2[j]
        sv.kself[j - 1] = sv.kself[j]
        sv.y[j - 1] = sv.y[j]
        sv.coef[j - 1, :] = sv.coef[j, :]
        sv.F[j - 1] = sv.F[j]
        sv.added[j - 1] = sv.added[j]
        sv.krow[j - 1] = sv.krow[j]
    if sv.meta[HAS_GRAM]:
        _remove_row_and_column(sv.gram, r, n)
    if sv.pair.shape[0] > 0:
        _remove_row_and_column(sv.pair, r, n)
    sv.meta[N] = n - 1
    sv.meta[GSYNC] = n - 1
    if sv.meta[NPRE] > r:
        sv.meta[NPRE] = r


@njit
def _remove_row_and_column(M, r, n):
    """Delete row and column r of the leading n × n block of an SV×SV matrix, keeping the order."""
    for i in range(n):
        for j in range(r + 1, n):
            M[i, j - 1] = M[i, j]
    for i in range(r + 1, n):
        for j in range(n - 1):
            M[i - 1, j] = M[i, j]
