"""The support set shared by every kernel learner.

A kernel model is f(·) = Σ_i a_i κ(x_i, ·) over stored support vectors (SVs) x_i. The support set holds

* the SV inputs, dense rows or CSR rows (a sparse stream is never densified), with cached squared norms
  and κ(x_i, x_i);
* a coefficient *vector* per SV (``coef[i, :]``: K outputs; binary learners K = 1, multiclass and
  multi-label learners one column per class);
* per-SV labels ``y`` (binary ±1, or the class index), the multiclass direction
  ``(hr[i], hs[i]) = (r_i, s_i)`` (H_i = e_r − e_s, docs/algorithms/multiclass.md#setting-and-notation) with its
  weight ``hw[i]`` (coef[i] = hw[i] H_i; hr = hs = −1 for an SV whose coefficient vector is not a direction; separate
  contiguous arrays, so the O(#SV) loops over them vectorise) and cached scores ``F`` (e.g. DUOL's
  margins F_i = y_i f(x_i)) where an algorithm needs them;
* an optional SV Gram cache ``gram[i, j] = κ(x_i, x_j)``, filled for free when an SV is added (its kernel
  row against the current SVs was just computed to predict) and used by algorithms that need SV–SV
  kernel values (DUOL, Online-SVM, later Projectron, Ahpatron, kernel SCW). Rows are written when an SV
  is added; the mirrored column entries are filled once per block by ``sync_gram`` (writing a column
  per added SV touches one cache line per entry and was the largest cost of DUOL). Read SV–SV values
  through ``load_gram_row`` (compiled code) or ``gram_matrix()`` (Python), which handle the
  not-yet-mirrored part; ``load_gram_row`` computes the row on demand when there is no cache (a
  learner may cap the cache's memory, see ``gram_limit_bytes``);
* named SV×SV matrices ``mats[m]`` (n × n each) for algorithms that keep a matrix over the SVs (kernel
  SCW's π of docs/algorithms/scw1.md, an inverse Gram matrix); new SVs enter with a zero row and column, and
  ``SupportSet.matrix(name)`` returns one by name;
* optional per-class member lists (``members[c, :n_members[c]]``: the slots, increasing, whose direction
  contains class c, i.e. r_i = c or s_i = c, and ``member_other[c, k]`` = 2·(the direction's other class)
  + (1 if c = s_i)), for multiclass rules that visit only the SVs whose direction shares a class with a
  given one (M-DUOL: about 4/K of the SVs), reading H·H_i from the list (:func:`listed_h_dot`) instead of
  from ``hr``/``hs`` at scattered slots. They are an index of
  ``hr``/``hs``, brought up to date by :func:`list_members` (slots ``meta[LISTED]``..n−1 are appended;
  anything but an append resets ``meta[LISTED]`` to 0 and the next call rebuilds them, O(#SV));
* a scratch kernel row ``krow`` of the current example against all SVs, and ``grow`` of an SV against
  all SVs (``gsel``, ``gnorm2``: scratch for a packed partial one, see :func:`load_gram_row_related`);
* ``added[i]``, the number of examples the learner had seen when SV i was added (its arrival time), and
  ``arrival[0..n−1]``, the slots in the order their SVs were added (oldest first; a removal keeps the
  others' order). Budgeted rules that remove "the oldest" or "the k-th SV" read it, so their choices do
  not depend on slots, which removals permute depending on block boundaries.

Kernel rows are computed in blocks (see :mod:`olkit.protocol`): for an in-memory stream the dot products
of the next block of examples with the SVs present at the start of the block come from one BLAS product
(``dots``); the compiled loop turns them into kernel values and computes one by one only the entries for
SVs added inside the block. The SVs covered by the block product are always the slots 0..NPRE−1, and
``gcol[j]`` is the block-product column of slot j.

Removal is O(1) in the number of SVs moved (:func:`sv_remove`): the last SV moves into the freed slot
(two moves when the freed slot is covered by the block product: the last covered SV fills it, and the
last SV fills the covered one's slot, so the covered slots stay a prefix and ``gcol`` follows them).
Each move copies one SV (its input and one row and column of each SV×SV matrix). Order is not kept;
``added`` records each SV's arrival time for the budgeted rules that remove the oldest. Sparse SV
inputs live in a pool of non-zeros addressed by ``start[j]``/``stop[j]``; a removal leaves a hole,
compacted between blocks when the pool fills up or a block product needs a CSR matrix.
Points that are not stream rows (merged or projected SVs) are added by :func:`sv_append_point`.

The Python class owns the arrays (with spare capacity, grown between blocks); the compiled code sees
them as the :data:`SVArrays` named tuple and updates them in place.
"""
from collections import namedtuple

import numpy as np
import scipy.sparse as sp

from ..._compile import (
    max2,
    min2,
    njit_helper,
    njit_helper_reassoc,
    njit_helper_sum,
    njit_inline,
)
from ...base import all_finite
from ...kernels import (
    NEAR_PAIR,
    dot_block,
    exp_nonpositive,
    fix_near_pairs,
    kernel_from_dot,
    kernel_from_gram,
    kernel_row_from_dots,
)
from ...limits import check_state_bytes, state_limit_bytes

# meta slots: #SVs, #SVs covered by the block product (slots 0..NPRE-1), sparse flag, Gram flag, examples
# seen (clock), #SVs whose Gram column is filled (see sync_gram), #entries of ``moved`` (covered slots
# refilled by removals in this block, see sv_remove),
# next free position of the sparse pool, holes in the sparse pool, #slots in the member lists (list_members)
N, NPRE, SPARSE, HAS_GRAM, CLOCK, GSYNC, NMOVED, POOL, HOLES, LISTED = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
META_SIZE = 10

SVArrays = namedtuple(
    "SVArrays", ["X", "start", "stop", "indices", "data", "norm2", "kself", "y", "hr", "hs", "hw", "coef", "F",
                 "gram", "krow", "grow", "gsel", "gnorm2", "added", "gcol", "meta", "mats", "arrival", "moved",
                 "members", "member_other", "n_members"]
)
"""Arrays of a support set as the compiled code sees them (full capacity; ``meta[N]`` are in use)."""

Stream = namedtuple("Stream", ["X", "indptr", "indices", "data", "norm2", "y", "Y", "info", "kp", "work"])
"""An in-memory stream as the compiled code sees it: dense ``X`` (n × d) or CSR arrays, squared row
norms, labels in the learner's internal coding (``y``: binary ±1 or the class index; ``Y``: the n × K
0/1 label-set matrix of multiclass and multi-label data), ``info`` = [data kind, K], kernel parameters
and a length-d scatter buffer."""

BINARY, MULTICLASS, MULTILABEL = 0, 1, 2
"""Data kinds (``Stream.info[0]``)."""


def make_stream(X, y_internal, kp, n_outputs=1):
    """Pack validated data (dense float64 C array or CSR) for the compiled loop.

    ``y_internal``: binary ±1 labels, class indices (multiclass, ``n_outputs`` = K classes) or an n × K
    0/1 matrix (multi-label).
    """
    from ...kernels import row_norms2

    norm2 = row_norms2(X)
    y_internal = np.asarray(y_internal)
    if y_internal.ndim == 2:
        kind, Y = MULTILABEL, np.ascontiguousarray(y_internal, dtype=np.int8)
        y = np.zeros(Y.shape[0])
    elif n_outputs > 1:
        kind, y = MULTICLASS, np.ascontiguousarray(y_internal, dtype=np.float64)
        Y = np.zeros((y.shape[0], n_outputs), np.int8)
        Y[np.arange(y.shape[0]), y.astype(np.int64)] = 1
    else:
        kind, y, Y = BINARY, np.ascontiguousarray(y_internal, dtype=np.float64), np.zeros((0, 1), np.int8)
    info = np.array([kind, n_outputs], np.int64)
    if sp.issparse(X):
        X = X.tocsr()
        return Stream(np.empty((0, X.shape[1])), X.indptr.astype(np.int64), X.indices.astype(np.int64),
                      X.data.astype(np.float64), norm2, y, Y, info, kp, np.zeros(X.shape[1]))
    empty_i = np.zeros(1, np.int64)
    return Stream(np.ascontiguousarray(X, dtype=np.float64), empty_i, empty_i, np.empty(0), norm2,
                  y, Y, info, kp, np.empty(0))


class SupportSet:
    """Storage of support vectors, coefficients and caches, with amortised growth.

    Parameters
    ----------
    n_features : int
    sparse : bool
        Store SVs as sparse rows (for sparse streams) instead of dense rows.
    n_outputs : int
        K, the length of the coefficient vector of each SV (1 for binary learners).
    gram : bool
        Keep the SV Gram cache (memory O(#SV²)).
    gram_limit_bytes : int or None
        Drop the cache (and compute SV rows on demand from then on) when it would outgrow this size;
        None keeps it whatever its size (for rules that cannot work without it, e.g. Online-SVM).
    matrices : tuple of str
        Names of the SV×SV matrices to keep (e.g. ("pair",) for kernel SCW's π); memory O(#SV²) each.
    members : bool
        Keep the per-class member lists (see the module docstring): two K × capacity int32 arrays, the
        size of ``coef``.
    """

    GRAM_LIMIT_BYTES = 1 << 30
    """Default limit of an optional Gram cache: 1 GiB, i.e. about 11,000 SVs."""

    LOW_DIM_FEATURES = 64
    LOW_DIM_GRAM_LIMIT_BYTES = 64 << 20
    """Limit of an optional Gram cache for dense SVs of at most LOW_DIM_FEATURES features (64 MiB, about
    2,900 SVs): there a row computed on demand (d multiply-adds and a vectorised exp an entry) costs
    about as much as reading it from a large cache, and a large cache costs its upkeep (the kernel zeroing
    fresh pages, copies when it grows). Measured on letter (d = 16, 13,152 SVs), M-DUOL, same loaded
    machine: 1 GiB 3.7 s, 64 MiB 2.4 s, no cache 2.1–2.5 s."""

    def __init__(self, n_features, sparse, n_outputs=1, gram=False, gram_limit_bytes=None, matrices=(),
                 members=False):
        self.n_features = int(n_features)
        self.sparse = bool(sparse)
        self.n_outputs = int(n_outputs)
        self.use_gram = bool(gram)
        if gram and gram_limit_bytes is not None and not self.sparse and self.n_features <= self.LOW_DIM_FEATURES:
            gram_limit_bytes = min(gram_limit_bytes, self.LOW_DIM_GRAM_LIMIT_BYTES)
        self.gram_limit_bytes = gram_limit_bytes
        self.matrix_names = tuple(matrices)
        self.use_members = bool(members)
        self.meta = np.zeros(META_SIZE, np.int64)
        self.meta[SPARSE] = int(self.sparse)
        self.meta[HAS_GRAM] = int(self.use_gram)
        self._allocate(0, 0)

    # -- storage ---------------------------------------------------------------------------------
    def _allocate(self, cap, nnz_cap):
        # np.empty: only the first n entries are ever read, and sv_append initialises each new slot.
        d = self.n_features
        self.X = np.empty((0 if self.sparse else cap, d))
        self.start = np.zeros(cap, np.int64)
        self.stop = np.zeros(cap, np.int64)
        self.indices = np.empty(nnz_cap, np.int64)
        self.data = np.empty(nnz_cap)
        self.norm2 = np.empty(cap)
        self.kself = np.empty(cap)
        self.y = np.empty(cap)
        self.hr = np.empty(cap, np.int64)
        self.hs = np.empty(cap, np.int64)
        self.hw = np.empty(cap)
        self.coef = np.empty((cap, self.n_outputs))
        self.F = np.empty(cap)
        self.added = np.empty(cap, np.int64)
        self.gcol = np.empty(cap, np.int64)
        self.arrival = np.empty(cap, np.int64)
        self.moved = np.empty(cap, np.int64)
        self.gram = np.empty((cap, cap) if self.use_gram else (0, 0))
        self.mats = np.empty((len(self.matrix_names), cap, cap))
        self.krow = np.empty(cap + 1)
        self.grow = np.empty(cap + 1)
        self.gsel = np.empty(cap + 1, np.int64)
        self.gnorm2 = np.empty(cap + 1)
        self._allocate_members(cap)
        self.capacity = cap

    def _allocate_members(self, cap):
        """Empty member lists (rebuilt by the next :func:`list_members`)."""
        K = self.n_outputs if self.use_members else 0
        self.members = np.empty((K, cap), np.int32)
        self.member_other = np.empty((K, cap), np.int32)
        self.n_members = np.zeros(K, np.int64)
        self.meta[LISTED] = 0

    @property
    def n(self):
        """Number of stored SVs."""
        return int(self.meta[N])

    def matrix(self, name):
        """The named SV×SV matrix (n × n view)."""
        return self.mats[self.matrix_names.index(name), : self.n, : self.n]

    def compact(self):
        """Close the holes that removals left in the sparse pool (SV j's non-zeros end up in slot order)."""
        n = self.n
        if not self.sparse or (self.meta[HOLES] == 0 and (n == 0 or self.start[0] == 0)
                                and np.array_equal(self.start[1:n], self.stop[: max(n - 1, 0)])):
            return
        parts = [np.arange(self.start[j], self.stop[j]) for j in range(n)]
        take = np.concatenate(parts) if parts else np.zeros(0, np.int64)
        lengths = self.stop[:n] - self.start[:n]
        self.indices[: take.size] = self.indices[take]
        self.data[: take.size] = self.data[take]
        self.stop[:n] = np.cumsum(lengths)
        self.start[:n] = self.stop[:n] - lengths
        self.meta[POOL] = take.size
        self.meta[HOLES] = 0

    def reserve(self, n_more, nnz_more=0, owner="the support set", cheaper="use a budgeted learner"):
        """Make room for ``n_more`` further SVs (and ``nnz_more`` further non-zeros when sparse).

        Growth that cannot fit (:func:`olkit.limits.check_state_bytes`) is refused before allocating, with
        a ValueError naming ``owner`` (the learner) and the ``cheaper`` choice: the capacity doubles, and
        only when the doubled arrays cannot fit does it grow by exactly ``n_more``."""
        n = self.n
        need = n + n_more
        nnz_more = nnz_more if self.sparse else 0
        if self.sparse and self.meta[POOL] + nnz_more > len(self.indices):
            self.compact()
        pool = int(self.meta[POOL])
        need_nnz = pool + nnz_more
        if need <= self.capacity and need_nnz <= len(self.indices):
            return
        # odd capacities: a power-of-two row stride of the Gram cache makes copies and column
        # accesses collide in the CPU caches (measured 40x slower at 4096)
        new_cap = max(need, 2 * self.capacity) | 1
        new_nnz = max(need_nnz, 2 * len(self.indices)) if self.sparse else 0
        if self.use_gram and self.gram_limit_bytes is not None and new_cap * new_cap * 8 > self.gram_limit_bytes:
            self.drop_gram()  # too large
        if self.nbytes(new_cap, new_nnz) > state_limit_bytes():
            new_cap, new_nnz = need | 1, need_nnz if self.sparse else 0
            square = f" (its {'Gram cache' if self.use_gram else 'SV x SV matrices'}: O(#SV²) memory)" \
                if self.use_gram or self.matrix_names else ""
            check_state_bytes(owner, f"the support set grown to {new_cap} SVs{square}", self.nbytes(new_cap, new_nnz),
                              cheaper)
        self._grow(new_cap, new_nnz)

    def nbytes(self, cap, nnz_cap):
        """Bytes of the arrays :meth:`_allocate` makes for ``cap`` SVs and ``nnz_cap`` pooled non-zeros."""
        K = self.n_outputs
        per_sv = 8 * (len(self._PER_SV) - 1 + K + 5) + (8 * K if self.use_members else 0)  # + coef (K), scratch
        per_sv += 0 if self.sparse else 8 * self.n_features
        square = 8 * cap * cap * (int(self.use_gram) + len(self.matrix_names))
        return cap * per_sv + square + 16 * nnz_cap

    def drop_gram(self):
        """Stop keeping the SV Gram cache (``load_gram_row`` computes rows on demand from then on)."""
        self.use_gram = False
        self.meta[HAS_GRAM] = 0
        self.gram = np.empty((0, 0))

    def _grow(self, cap, nnz_cap):
        """New arrays of capacity ``cap`` (and ``nnz_cap`` pooled non-zeros) holding the n SVs in use."""
        n, pool = self.n, int(self.meta[POOL])
        old = {name: getattr(self, name) for name in self._PER_SV + ("X", "indices", "data", "gram", "mats")}
        self._allocate(cap, nnz_cap)
        if not self.sparse:
            self.X[:n] = old["X"][:n]
        self.indices[:pool] = old["indices"][:pool]
        self.data[:pool] = old["data"][:pool]
        for name in self._PER_SV:
            getattr(self, name)[:n] = old[name][:n]
        if self.use_gram:
            self._sync_gram(old["gram"])
            self.gram[:n, :n] = old["gram"][:n, :n]
        self.mats[:, :n, :n] = old["mats"][:, :n, :n]

    def _sync_gram(self, gram):
        """:func:`sync_gram` in numpy, for Python callers (no compiled twin to build on a cold start)."""
        n, done = int(self.meta[N]), int(self.meta[GSYNC])
        if done < n:
            gram[:done, done:n] = gram[done:n, :done].T
            iu = np.triu_indices(n - done, 1)
            new = gram[done:n, done:n]
            new[iu] = new.T[iu]
        self.meta[GSYNC] = n

    _PER_SV = ("start", "stop", "norm2", "kself", "y", "hr", "hs", "hw", "coef", "F", "added", "gcol", "arrival")

    def arrays(self):
        """The :data:`SVArrays` view handed to compiled code."""
        return self.arrays_of(self.gram)

    def arrays_of(self, gram):
        return SVArrays(self.X, self.start, self.stop, self.indices, self.data, self.norm2, self.kself, self.y,
                        self.hr, self.hs, self.hw, self.coef, self.F, gram, self.krow, self.grow, self.gsel,
                        self.gnorm2, self.added, self.gcol, self.meta, self.mats, self.arrival, self.moved,
                        self.members, self.member_other, self.n_members)

    # -- read access -----------------------------------------------------------------------------
    def vectors(self, n=None):
        """The first ``n`` (default: all) SV inputs as a dense view or a CSR matrix (slot order)."""
        n = self.n if n is None else n
        if self.sparse:
            self.compact()
            indptr = np.zeros(n + 1, np.int64)
            indptr[1:] = self.stop[:n]
            nnz = int(indptr[n])
            return sp.csr_matrix((self.data[:nnz], self.indices[:nnz], indptr), shape=(n, self.n_features))
        return self.X[:n]

    def gram_matrix(self):
        """The SV Gram matrix κ(x_i, x_j) (n × n, symmetric); needs the cache (``gram=True``)."""
        if not self.use_gram:
            raise ValueError("this support set keeps no Gram cache (not requested, or dropped beyond gram_limit_bytes)")
        self._sync_gram(self.gram)
        return self.gram[: self.n, : self.n]

    def dots(self, rows):
        """Dot products of the given data rows with every stored SV (one BLAS / sparse product)."""
        return np.ascontiguousarray(dot_block(rows, self.vectors()), dtype=np.float64)

    def kernel(self, rows, norm2_rows, kp):
        """Kernel matrix of the given rows against the stored SVs."""
        K = kernel_from_gram(kp, self.dots(rows), norm2_rows, self.norm2[: self.n])
        return fix_near_pairs(K, rows, self.vectors(), kp)

    # -- undoing rounds (see olkit.protocol.run_online) ---------------------------------------------------
    def save(self, inputs):
        """A copy of what a block of rounds can change: the per-SV values of the n SVs, ``meta`` and the SV×SV
        matrices, and with ``inputs`` also the SV inputs. Without ``inputs`` the block must only append SVs
        (a learner without a budget): the inputs and Gram entries of the n SVs stay as they are."""
        n = self.n
        saved = {name: getattr(self, name)[:n].copy() for name in self._PER_SV}
        saved["meta"] = self.meta.copy()
        saved["mats"] = self.mats[:, :n, :n].copy()
        if inputs:
            pool = int(self.meta[POOL])
            saved["inputs"] = (self.X[:n].copy(), self.indices[:pool].copy(), self.data[:pool].copy())
        return saved

    def restore(self, saved, kp):
        """Put back a :meth:`save` copy (the arrays may have grown since: the values go to the first slots).
        With the inputs, the Gram cache is recomputed from them (kernel parameters ``kp``): equal to the
        cached values up to the rounding of the dot products; copying it every block would cost more than
        the rest of the copy."""
        self.meta[:] = saved["meta"]
        self.meta[HAS_GRAM] = int(self.use_gram)  # a Gram cache dropped when the arrays grew stays dropped
        self.meta[LISTED] = 0  # the member lists are rebuilt
        n = self.n
        for name in self._PER_SV:
            getattr(self, name)[:n] = saved[name]
        self.mats[:, :n, :n] = saved["mats"]
        if "inputs" in saved:
            X, indices, data = saved["inputs"]
            self.X[:n] = X
            self.indices[: len(indices)] = indices
            self.data[: len(data)] = data
            if self.use_gram:
                vectors = self.vectors()
                self.gram[:n, :n] = self.kernel(vectors, self.norm2[:n], kp)
                self.meta[GSYNC] = n

    def is_finite(self):
        """True if no coefficient, cached score, norm or SV×SV matrix entry is NaN or infinite."""
        n = self.n
        return all_finite((self.coef[:n], self.hw[:n], self.F[:n], self.norm2[:n], self.kself[:n],
                           self.mats[:, :n, :n]))

    # -- pickling: store only what is in use ----------------------------------------------------------
    def __getstate__(self):
        self.compact()
        n = self.n
        state = self.__dict__.copy()
        for name in self._PER_SV + ("X", "krow"):
            state[name] = getattr(self, name)[:n].copy()
        pool = int(self.meta[POOL])
        state["indices"] = self.indices[:pool].copy()
        state["data"] = self.data[:pool].copy()
        if self.use_gram:
            self._sync_gram(self.gram)
            state["gram"] = self.gram[:n, :n].copy()
        state["mats"] = self.mats[:, :n, :n].copy()
        state["capacity"] = n
        for name in ("moved", "gsel", "gnorm2", "members", "member_other", "n_members"):  # scratch, and an index
            del state[name]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "hw" not in state:  # saved before the direction weights existed: coef[i] = hw[i] H_i
            h = state["h"]
            del self.h
            self.hr, self.hs = h[:, 0].copy(), h[:, 1].copy()
            self.hw = np.where(self.hr >= 0, self.coef[np.arange(len(self.hr)), np.maximum(self.hr, 0)], 0.0)
        if "arrival" not in state:  # saved before the arrival order was kept
            self.arrival = np.argsort(self.added, kind="stable").astype(np.int64)
        # a copy (the loaded one may be read-only, e.g. memory-mapped by joblib), padded if it was saved before
        # the member lists existed (their LISTED entry is reset below: the lists are not saved)
        self.meta = np.concatenate([self.meta, np.zeros(META_SIZE - len(self.meta), np.int64)])
        self.use_members = state.get("use_members", False)
        self._allocate_members(self.capacity)
        self.krow = np.zeros(self.capacity + 1)
        self.grow = np.zeros(self.capacity + 1)
        self.gsel = np.zeros(self.capacity + 1, np.int64)
        self.gnorm2 = np.zeros(self.capacity + 1)
        self.moved = np.zeros(self.capacity, np.int64)

    def saved_shapes(self, n, pool, capacity):
        """{array: shape} of a set of n SVs and ``pool`` pooled non-zeros as :meth:`__getstate__` keeps it (the
        used part; ``grow`` at the saved set's ``capacity``): the layout a model file must hold
        (:mod:`olkit.persist`), known before any array is read."""
        d, K = self.n_features, self.n_outputs
        shapes = {name: (n,) for name in self._PER_SV}
        shapes.update(coef=(n, K), X=(0 if self.sparse else n, d), indices=(pool,), data=(pool,),
                      gram=(n, n) if self.use_gram else (0, 0), mats=(len(self.matrix_names), n, n),
                      meta=(META_SIZE,), grow=(capacity + 1,))
        return shapes

    def grown_bytes(self, capacity, pool_capacity):
        """Bytes the arrays take at ``capacity`` SVs and ``pool_capacity`` pooled non-zeros (what
        :meth:`restore_capacity` allocates), so that a file claiming an absurd capacity is refused first."""
        per_sv = 8 * (len(self._PER_SV) + self.n_outputs + (0 if self.sparse else self.n_features) + 6
                      + 2 * self.n_outputs * self.use_members)
        gram = 8 * capacity * capacity if self.use_gram and (
            self.gram_limit_bytes is None or 8 * capacity * capacity <= self.gram_limit_bytes) else 0
        return per_sv * capacity + 16 * pool_capacity + gram + 8 * len(self.matrix_names) * capacity * capacity

    def check_loaded(self, class_labels):
        """Raise ValueError naming the first array of a loaded set (:mod:`olkit.persist`; n SVs in their first
        slots) that compiled code could not use safely: every index and loop bound in range, the arrival
        order a permutation of the slots, sparse rows contiguous in the pool, values finite.
        ``class_labels``: the SV labels ``y`` are class indices (multiclass data), else ±1 or 0/1 values."""
        n, pool, d, K = self.n, int(self.meta[POOL]), self.n_features, self.n_outputs
        meta = self.meta
        clock = int(meta[CLOCK])
        # (array, values, lowest valid, highest valid + 1): what compiled code indexes with or loops to
        ranges = [("meta[N]", meta[N:N + 1], 0, self.capacity + 1),
                  ("meta[NPRE]", meta[NPRE:NPRE + 1], 0, n + 1),
                  ("meta[NMOVED]", meta[NMOVED:NMOVED + 1], 0, len(self.moved) + 1),
                  ("meta[GSYNC]", meta[GSYNC:GSYNC + 1], 0, n + 1),
                  ("meta[LISTED]", meta[LISTED:LISTED + 1], 0, n + 1),
                  ("meta[HOLES]", meta[HOLES:HOLES + 1], 0, np.iinfo(np.int64).max),
                  ("meta[CLOCK]", meta[CLOCK:CLOCK + 1], 0, np.iinfo(np.int64).max),
                  ("meta[POOL]", meta[POOL:POOL + 1], 0, len(self.indices) + 1),
                  ("hr", self.hr[:n], -1, K), ("hs", self.hs[:n], -1, K),
                  ("arrival", self.arrival[:n], 0, n), ("added", self.added[:n], 0, clock + 1)]
        if self.sparse:
            ranges += [("indices", self.indices[:pool], 0, d), ("start", self.start[:n], 0, pool + 1),
                       ("stop", self.stop[:n], 0, pool + 1)]
        for name, values, low, high in ranges:
            if values.size and (values.min() < low or values.max() >= high):
                bad = values[(values < low) | (values >= high)][0]
                raise ValueError(f"support_.{name} holds {bad}, outside {low}..{high - 1}")
        if meta[SPARSE] != int(self.sparse) or meta[HAS_GRAM] != int(self.use_gram):
            raise ValueError("support_.meta: its sparse / Gram flags disagree with the support set")
        if np.any(np.bincount(self.arrival[:n], minlength=n) != 1):
            raise ValueError(f"support_.arrival is not a permutation of the {n} slots")
        hr, hs = self.hr[:n], self.hs[:n]
        if np.any((hr >= 0) & ((hs < 0) | (hs == hr))):
            raise ValueError("support_.hr / hs: a direction (r, s) needs two different classes")
        if self.sparse and n and (self.start[0] != 0 or self.stop[n - 1] != pool
                                  or np.any(self.stop[:n] < self.start[:n])
                                  or np.any(self.start[1:n] != self.stop[: n - 1])):
            raise ValueError("support_.start / stop: the rows are not consecutive runs of the pool of non-zeros")
        finite = {"X": self.X[: 0 if self.sparse else n], "data": self.data[:pool], "norm2": self.norm2[:n],
                  "kself": self.kself[:n], "y": self.y[:n], "hw": self.hw[:n], "coef": self.coef[:n],
                  "F": self.F[:n], "gram": self.gram[:n, :n] if self.use_gram else self.gram,
                  "mats": self.mats[:, :n, :n]}
        for name, values in finite.items():
            if not np.isfinite(values).all():
                raise ValueError(f"support_.{name} holds NaN or infinite values")
        y = self.y[:n]
        if class_labels and np.any((y != np.floor(y)) | (y < 0) | (y >= K)):
            raise ValueError(f"support_.y: the class index of an SV is not one of 0..{K - 1}")

    def restore_capacity(self, capacity, pool_capacity):
        """After :meth:`__setstate__` (arrays of exactly n SVs): check that the arrays agree with ``meta``,
        then grow them to the capacities the saved set had (:mod:`olkit.persist`), so that the loaded set
        grows, and drops an outgrown Gram cache, exactly when the saved one would have."""
        n, pool = self.n, int(self.meta[POOL])
        expected = self.saved_shapes(n, pool, self.capacity)
        for name, shape in expected.items():
            if name not in ("grow", "meta") and getattr(self, name).shape != shape:
                raise ValueError(f"support set array {name} has shape {getattr(self, name).shape}, expected {shape}")
        if self.sparse and n and (self.start[:n].min() < 0 or self.stop[:n].max() > pool
                                  or np.any(self.start[:n] > self.stop[:n])):
            raise ValueError("support set rows point outside the pool of non-zeros")
        if self.meta[HAS_GRAM] != int(self.use_gram) or self.meta[SPARSE] != int(self.sparse):
            raise ValueError("support set flags disagree with its meta data")
        if capacity > n or (self.sparse and pool_capacity > pool):
            self._grow(max(capacity, n), max(pool_capacity, pool) if self.sparse else 0)


# ---- compiled helpers ----------------------------------------------------------------------------

@njit_helper_reassoc
def _dense_dots(X, x, out, lo, hi):
    """out[i] = X[i]·x for lo ≤ i < hi (one loop nest: no array view per row)."""
    d = x.shape[0]
    for i in range(lo, hi):
        acc = 0.0
        for k in range(d):
            acc += X[i, k] * x[k]
        out[i] = acc


@njit_helper_reassoc
def _packed_dense_dots(X, x, sel, out, m):
    """out[k] = X[sel[k]]·x for k < m (the arithmetic of :func:`_dense_dots`)."""
    d = x.shape[0]
    for k in range(m):
        i = sel[k]
        acc = 0.0
        for j in range(d):
            acc += X[i, j] * x[j]
        out[k] = acc


@njit_inline
def _sparse_dot(start, stop, indices, data, j, work):
    acc = 0.0
    for q in range(start[j], stop[j]):
        acc += data[q] * work[indices[q]]
    return acc


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
    return kernel_row(sv.krow, G, p, sv.meta, sv.gcol, sv.moved, sv.norm2, sv.X, sv.start, sv.stop, sv.indices,
                      sv.data, s.X, s.indptr, s.indices, s.data, s.work, s.norm2, s.kp, t)


@njit_helper
def kernel_row(krow, G, p, meta, gcol, moved, sv_norm2, sv_X, sv_start, sv_stop, sv_indices, sv_data,
               X, indptr, indices, data, work, norm2, kp, t):
    """Fill ``krow[:n]`` with κ(x_i, x_t) for all SVs and return κ(x_t, x_t) (the support set's and the
    stream's arrays, as :func:`fill_kernel_row` passes them): :func:`kernel_row_sparse` or
    :func:`kernel_row_dense`, as the SVs are stored. The compiled loop binds one of the two (a run compiles
    only its own storage's code)."""
    if meta[SPARSE]:
        return kernel_row_sparse(krow, G, p, meta, gcol, moved, sv_norm2, sv_X, sv_start, sv_stop, sv_indices,
                                 sv_data, X, indptr, indices, data, work, norm2, kp, t)
    return kernel_row_dense(krow, G, p, meta, gcol, moved, sv_norm2, sv_X, sv_start, sv_stop, sv_indices, sv_data,
                            X, indptr, indices, data, work, norm2, kp, t)


@njit_helper
def kernel_row_dense(krow, G, p, meta, gcol, moved, sv_norm2, sv_X, sv_start, sv_stop, sv_indices, sv_data,
                     X, indptr, indices, data, work, norm2, kp, t):
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
        _dense_dots(sv_X, X[t], krow, npre, n)
    if kernel_row_from_dots(kp, krow, xn, sv_norm2, n):
        near_pairs_dense(krow, n, sv_X, X, t, kp[1])
    return kernel_from_dot(kp, xn, xn, xn)


@njit_helper
def kernel_row_sparse(krow, G, p, meta, gcol, moved, sv_norm2, sv_X, sv_start, sv_stop, sv_indices, sv_data,
                      X, indptr, indices, data, work, norm2, kp, t):
    """:func:`kernel_row_dense` for CSR SVs and stream rows."""
    n = meta[N]
    npre = min2(meta[NPRE], n)
    xn = norm2[t]
    lo, hi = indptr[t], indptr[t + 1]
    _covered_dots(krow, G, p, npre, gcol, moved, meta[NMOVED])
    if npre < n:
        _sparse_dots(krow, npre, n, sv_start, sv_stop, sv_indices, sv_data, lo, hi, indices, data, work)
    if kernel_row_from_dots(kp, krow, xn, sv_norm2, n):
        near_pairs_sparse(krow, n, sv_start, sv_stop, sv_indices, sv_data, lo, hi, indices, data, work, kp[1])
    return kernel_from_dot(kp, xn, xn, xn)


@njit_helper
def near_pairs_dense(krow, n, sv_X, X, t, gamma):
    """krow[j] ← exp(−γ ‖x − x_j‖²) from the explicit differences wherever krow[j] is NEAR_PAIR (see
    :data:`olkit.kernels.NEAR`), for x = row t of X and dense SVs."""
    for j in range(n):
        if krow[j] == NEAR_PAIR:
            krow[j] = exp_nonpositive(-_sq_dist_dense(sv_X, j, X, t) * gamma)


@njit_inline
def _sq_dist_dense(A, i, B, j):
    """‖A[i] − B[j]‖² from the differences."""
    acc = 0.0
    for k in range(A.shape[1]):
        v = B[j, k] - A[i, k]
        acc += v * v
    return acc


@njit_helper
def near_pairs_sparse(krow, n, start, stop, indices, data, lo, hi, x_indices, x_data, work, gamma):
    """:func:`near_pairs_dense` for CSR SVs and x = the CSR entries lo..hi−1 of ``x_indices``/``x_data``
    (through the all-zero scatter buffer ``work``, left all zero)."""
    for j in range(n):
        if krow[j] == NEAR_PAIR:
            krow[j] = exp_nonpositive(-_sq_dist_sparse(start, stop, indices, data, j, lo, hi, x_indices, x_data, work)
                                      * gamma)


@njit_inline
def _sq_dist_sparse(start, stop, indices, data, j, lo, hi, x_indices, x_data, work):
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
        krow[j] = _sparse_dot(start, stop, indices, data, j, work)
    for q in range(q0, q1):
        work[x_indices[q]] = 0.0


@njit_helper_sum
def _first_column_dot(A, x, n):
    """Σ_{j<n} A[j, 0] x[j], vectorised (reassociated: the last bits differ from the sequential sum)."""
    acc = 0.0
    for j in range(n):
        acc += A[j, 0] * x[j]
    return acc


@njit_helper
def expansion_scores(sv, fv):
    """f_c(x_t) = Σ_i coef[i, c] κ(x_i, x_t) for every output c, from the current kernel row (see
    :func:`scores_from_row`)."""
    scores_from_row(sv.coef, sv.krow, sv.meta[N], sv.hr, sv.hs, sv.hw, fv)


@njit_helper
def binary_scores(coef, krow, n, hr, hs, hw, fv):
    """:func:`scores_from_row` for one output (binary data: the loop binds it, see
    :func:`olkit.learners.kernel.engine.block_loop`)."""
    fv[0] = _first_column_dot(coef, krow, n)


@njit_inline
def scores_from_row(coef, krow, n, hr, hs, hw, fv):
    """The K scores from the kernel row ``krow[:n]`` (plain arrays, for the hot loop: see :func:`kernel_row`)."""
    if fv.shape[0] == 1:
        fv[0] = _first_column_dot(coef, krow, n)
    else:
        direction_scores(coef, krow, n, hr, hs, hw, fv)


@njit_helper
def direction_scores(coef, krow, n, hr, hs, hw, fv):
    """The K scores of a multi-output model. An SV whose coefficient vector is a direction γ(e_r − e_s)
    (``(hr[i], hs[i]) = (r, s)``, set by :func:`olkit.learners.kernel.multiclass.set_direction`; every
    other entry is 0) adds its two non-zero terms only: the same additions, bit for bit, as the full
    K-vector (adding 0 changes no sum), at 2 instead of K operations per SV."""
    K = fv.shape[0]
    for c in range(K):
        fv[c] = 0.0
    for j in range(n):
        kj = krow[j]
        r = hr[j]
        if r >= 0:
            g = hw[j] * kj  # hw[j] = coef[j, r], contiguous: a 4x faster loop than reading coef's rows
            fv[r] += g
            fv[hs[j]] -= g
        elif kj != 0.0:
            for c in range(K):
                fv[c] += coef[j, c] * kj


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
def _new_slot(sv, norm2, kself, label):
    """Initialise slot n for a new SV (everything but its input) and return n."""
    n = sv.meta[N]
    sv.norm2[n] = norm2
    sv.kself[n] = kself
    sv.y[n] = label
    sv.hr[n] = -1
    sv.hs[n] = -1
    sv.hw[n] = 0.0
    _fill(sv.coef[n], 0.0)
    sv.F[n] = 0.0
    sv.added[n] = sv.meta[CLOCK]
    if sv.meta[HAS_GRAM]:
        for j in range(n):
            sv.gram[n, j] = sv.krow[j]
        sv.gram[n, n] = kself
    for m in range(sv.mats.shape[0]):
        for j in range(n + 1):
            sv.mats[m, n, j] = 0.0
            sv.mats[m, j, n] = 0.0
    sv.krow[n] = kself
    sv.arrival[n] = n
    sv.meta[N] = n + 1
    return n


@njit_helper
def sv_append(sv, s, t, kself, label):
    """Store stream row t as a new SV with zero coefficients and return its slot.

    Needs ``sv.krow`` to hold the kernel row of x_t (it fills the Gram cache from it) and sets
    ``krow[new] = κ(x_t, x_t)`` so that cache updates can treat the new SV like the others.
    """
    n = sv.meta[N]
    if sv.meta[SPARSE]:
        pos = sv.meta[POOL]
        lo = s.indptr[t]
        m = s.indptr[t + 1] - lo
        for q in range(m):
            sv.indices[pos + q] = s.indices[lo + q]
            sv.data[pos + q] = s.data[lo + q]
        sv.start[n] = pos
        sv.stop[n] = pos + m
        sv.meta[POOL] = pos + m
    else:
        _copy(s.X[t], sv.X[n])
    return _new_slot(sv, s.norm2[t], kself, label)


@njit_helper
def sv_append_point(sv, idx, val, kself, label):
    """Store a point that is not a stream row (a merged or projected SV): non-zeros ``val`` at features
    ``idx``. ``sv.krow`` must hold its kernel row against the current SVs (as for :func:`sv_append`).
    The caller reserves room for it (``SupportSet.reserve``)."""
    n = sv.meta[N]
    norm2 = 0.0
    for q in range(idx.shape[0]):
        norm2 += val[q] * val[q]
    if sv.meta[SPARSE]:
        pos = sv.meta[POOL]
        for q in range(idx.shape[0]):
            sv.indices[pos + q] = idx[q]
            sv.data[pos + q] = val[q]
        sv.start[n] = pos
        sv.stop[n] = pos + idx.shape[0]
        sv.meta[POOL] = pos + idx.shape[0]
    else:
        _fill(sv.X[n], 0.0)
        for q in range(idx.shape[0]):
            sv.X[n, idx[q]] = val[q]
    return _new_slot(sv, norm2, kself, label)


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
def load_gram_row(sv, b, s):
    """Fill ``sv.grow[:n]`` with κ(x_b, x_i) for every SV i.

    From the Gram cache when the support set keeps one; otherwise computed on demand (O(#SV·nnz)).
    """
    n = sv.meta[N]
    if sv.meta[HAS_GRAM]:
        split = max2(sv.meta[GSYNC], b + 1)
        for i in range(min2(split, n)):
            sv.grow[i] = sv.gram[b, i]
        for i in range(split, n):  # columns not mirrored yet: read the (complete) rows of the new SVs
            sv.grow[i] = sv.gram[i, b]
        return
    start, stop, indices, data, work, grow, norm2 = sv.start, sv.stop, sv.indices, sv.data, s.work, sv.grow, sv.norm2
    if sv.meta[SPARSE]:
        for q in range(start[b], stop[b]):
            work[indices[q]] = data[q]
        for i in range(n):
            grow[i] = _sparse_dot(start, stop, indices, data, i, work)
        for q in range(start[b], stop[b]):
            work[indices[q]] = 0.0
    else:
        _dense_dots(sv.X, sv.X[b], grow, 0, n)
    if kernel_row_from_dots(s.kp, grow, norm2[b], norm2, n):
        if sv.meta[SPARSE]:
            near_pairs_sparse(grow, n, start, stop, indices, data, start[b], stop[b], indices, data, work, s.kp[1])
        else:
            near_pairs_dense(grow, n, sv.X, sv.X, b, s.kp[1])


@njit_helper
def list_members(sv):
    """Bring the member lists up to date (see the module docstring): append the slots added since the
    last call to the lists of the classes of their directions (an SV without a direction, ``hr = −1``, is
    in none); rebuild them from scratch after anything but appends (``meta[LISTED] = 0``)."""
    members, other, counts, hr, hs = sv.members, sv.member_other, sv.n_members, sv.hr, sv.hs
    first = sv.meta[LISTED]
    if first == 0:
        _fill(counts, 0)
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


@njit_helper
def load_gram_row_related(sv, b, s, rb, sb):
    """κ(x_b, x_i) for the SVs i whose direction shares a class with b's, H_b·H_i ≠ 0 (H = e_r − e_s, ``(rb, sb)``
    = b's direction; an SV without a direction shares none), packed: returns m, with ``sv.gsel[:m]`` those
    slots (the member list of rb, then the rest of sb's) and ``sv.grow[:m]`` their kernel values. Needs
    the member lists (:func:`list_members`) up to date.

    For multiclass rules whose update is a multiple of H_b κ(x_b, ·): the other SVs' terms are 0. With K
    classes about 4/K of the SVs share a class with b (15 % on letter, K = 26), so this costs about that
    fraction of :func:`load_gram_row`. The values are those of :func:`load_gram_row` bit for bit (the same dot
    product code and the same vectorised kernel transform, over the packed dot products and squared norms)."""
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
    start, stop, indices, data, work = sv.start, sv.stop, sv.indices, sv.data, s.work
    if sv.meta[SPARSE]:
        for q in range(start[b], stop[b]):
            work[indices[q]] = data[q]
        for k in range(m):
            grow[k] = _sparse_dot(start, stop, indices, data, sel[k], work)
        for q in range(start[b], stop[b]):
            work[indices[q]] = 0.0
    else:
        _packed_dense_dots(sv.X, sv.X[b], sel, grow, m)
    for k in range(m):
        sv.gnorm2[k] = sv.norm2[sel[k]]
    if kernel_row_from_dots(s.kp, grow, sv.norm2[b], sv.gnorm2, m):
        for k in range(m):
            if grow[k] == NEAR_PAIR:
                i = sel[k]
                d2 = (_sq_dist_sparse(start, stop, indices, data, i, start[b], stop[b], indices, data, work)
                      if sv.meta[SPARSE] else _sq_dist_dense(sv.X, i, sv.X, b))
                grow[k] = exp_nonpositive(-d2 * s.kp[1])
    return m


@njit_helper
def _copy_values(sv, src, dst):
    """Slot ``dst`` ← SV ``src``: its input and every per-SV value (not its place in ``arrival`` nor its
    rows and columns of the SV×SV matrices)."""
    if sv.meta[SPARSE]:
        sv.start[dst] = sv.start[src]
        sv.stop[dst] = sv.stop[src]
    else:
        _copy(sv.X[src], sv.X[dst])
    sv.norm2[dst] = sv.norm2[src]
    sv.kself[dst] = sv.kself[src]
    sv.y[dst] = sv.y[src]
    sv.hr[dst] = sv.hr[src]
    sv.hs[dst] = sv.hs[src]
    sv.hw[dst] = sv.hw[src]
    _copy(sv.coef[src], sv.coef[dst])
    sv.F[dst] = sv.F[src]
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
    for m in range(sv.mats.shape[0]):
        _move_row_and_column(sv.mats[m], src, dst, n)


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
    for m in range(sv.mats.shape[0]):
        _compact_matrix(sv.mats[m], newpos, n)
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

