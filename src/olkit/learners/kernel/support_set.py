"""The support set shared by every kernel learner: the arrays that hold it (:class:`SupportSet`, with the
slots of its ``meta`` array and the :data:`SVArrays` view that compiled code receives).

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
* ``sw[i]``, the weight s of the example SV i was stored from (docs/algorithms/options.md#weights; 1 for a point
  that is no stream row), for rules whose bound on an SV's coefficient is its own example's (DUOL's box
  [0, s_i C], docs/algorithms/duol.md#weights; Online-SVM's box [0, s_i C]); it moves and leaves with the SV;
* an optional SV Gram cache ``gram[i, j] = κ(x_i, x_j)`` (:mod:`~olkit.learners.kernel.gram`), used by
  algorithms that need SV–SV kernel values (DUOL, Online-SVM, Projectron, Ahpatron, kernel SCW); a learner may
  cap its memory (``gram_limit_bytes``), SV rows are then computed on demand;
* named SV×SV matrices ``mats[m]`` (n × n each) for algorithms that keep a matrix over the SVs (kernel
  SCW's π of docs/algorithms/scw1.md, an inverse Gram matrix); new SVs enter with a zero row and column, and
  ``SupportSet.matrix(name)`` returns one by name;
* optional per-class member lists (``members``, ``member_other``, ``n_members``), an index of ``hr``/``hs``
  kept for speed only (:mod:`~olkit.learners.kernel.members`), and with them, for dense SVs of at most
  LOW_DIM_FEATURES features, the *class pool*: a copy of each list's SV inputs and squared norms in list
  order (``class_X``, ``class_norm2``; class c's segment starts at row ``class_seg[0, c]`` and holds
  ``class_seg[1, c]`` rows), so that the SV–SV kernel rows of M-DUOL read contiguous rows
  (:func:`~olkit.learners.kernel.gram.load_gram_row_related`), and the scratch ``class_sel``;
* a scratch kernel row ``krow`` of the current example against all SVs, and ``grow`` of an SV against
  all SVs (``gsel``, ``gnorm2``: scratch for a packed partial one, see
  :func:`~olkit.learners.kernel.gram.load_gram_row_related`);
* ``added[i]``, the number of examples the learner had seen when SV i was added (its arrival time), and
  ``arrival[0..n−1]``, the slots in the order their SVs were added (oldest first; a removal keeps the
  others' order). Budgeted rules that remove "the oldest" or "the k-th SV" read it, so their choices do
  not depend on slots, which removals permute depending on block boundaries;
* with ``average`` (docs/algorithms/options.md#kernel-learners), the running sums of the averaged
  model: per SV ``avg_sum[i]`` (P_i, K outputs) and ``avg_last[i]`` (the coefficient row as the bookkeeping last
  saw it), and for the set ``avg = [q, N]`` (q: the averaged rounds so far as the weight of a stored coefficient,
  N: the averaged rounds). Σ over the averaged rounds t of a_i(t) = P_i + q·A_i; the averaged model is
  f̄ = Σ_i (P_i + q·A_i)/N κ(x_i, ·). Without ``average`` the two per-SV arrays have no rows;
* the block-product bookkeeping of :mod:`~olkit.learners.kernel.kernel_rows`: the SVs covered by the block
  product are the slots 0..NPRE−1, and ``gcol[j]`` is the block-product column of slot j (``moved``: the
  covered slots a removal refilled in this block).

Sparse SV inputs live in a pool of non-zeros addressed by ``start[j]``/``stop[j]``; a removal leaves a hole,
compacted between blocks (:meth:`SupportSet.compact`) when the pool fills up or a block product needs a CSR
matrix.

The Python class owns the arrays (with spare capacity, grown between blocks), saves and restores them
(a block of rounds undone, pickling, model files: :mod:`olkit.persist`) and checks loaded ones; the compiled
code sees them as the :data:`SVArrays` named tuple and updates them in place. That code lives beside this
module, one job a module:

* :mod:`~olkit.learners.kernel.stream`: the in-memory stream record the compiled loops read;
* :mod:`~olkit.learners.kernel.kernel_rows`: the kernel row of the current example against the SVs, blocked;
* :mod:`~olkit.learners.kernel.dots`: dot products and distances between rows, the arithmetic of every
  kernel value;
* :mod:`~olkit.learners.kernel.scores`: the scores f_c(x_t) from a kernel row;
* :mod:`~olkit.learners.kernel.gram`: the Gram cache and the SV–SV kernel rows;
* :mod:`~olkit.learners.kernel.members`: the per-class member lists (speed only);
* :mod:`~olkit.learners.kernel.sv_edit`: adding, scaling and removing SVs.
"""

from collections import namedtuple

import numpy as np
import scipy.sparse as sp

from ...base import all_finite
from ...kernels import dot_block, fix_near_pairs, kernel_from_gram
from ...limits import check_state_bytes, state_limit_bytes

# meta slots: #SVs, #SVs covered by the block product (slots 0..NPRE-1), sparse flag, Gram flag, examples
# seen (clock), #SVs whose Gram column is filled (see sync_gram), #entries of ``moved`` (covered slots
# refilled by removals in this block, see sv_remove),
# next free position of the sparse pool, holes in the sparse pool, #slots in the member lists (list_members)
N, NPRE, SPARSE, HAS_GRAM, CLOCK, GSYNC, NMOVED, POOL, HOLES, LISTED = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
META_SIZE = 10
CLASS_POOL_SLACK = 16
"""Spare rows of a class's segment of the class pool beyond twice its count, at each layout."""

CLASS_POOL_ARRAYS = ("class_X", "class_norm2", "class_seg", "class_sel")
"""The class pool's arrays (an index, not saved: rebuilt with the member lists)."""

SVArrays = namedtuple(
    "SVArrays",
    [
        "X",
        "start",
        "stop",
        "indices",
        "data",
        "norm2",
        "kself",
        "y",
        "hr",
        "hs",
        "hw",
        "coef",
        "F",
        "sw",
        "gram",
        "krow",
        "grow",
        "gsel",
        "gnorm2",
        "added",
        "gcol",
        "meta",
        "mats",
        "arrival",
        "moved",
        "members",
        "member_other",
        "n_members",
        "avg_sum",
        "avg_last",
        "avg",
        "XT",
        "xt_n",
        "class_X",
        "class_norm2",
        "class_seg",
        "class_sel",
    ],
)
"""Arrays of a support set as the compiled code sees them (full capacity; ``meta[N]`` are in use).

The arrays a set's configuration never uses are None (:meth:`SupportSet.arrays_of`): the pool of non-zeros
(``indices``, ``data``) of a set of dense SVs, ``avg_sum``/``avg_last`` of a set without ``average``, the member
lists and class pool of a set without member lists, and ``mats`` of a set without SV×SV matrices. numba removes a
branch ``if a is not None:`` on a function argument ``a`` typed None before it types the branch, so code for the
other configuration (the sparse kernel rows, the averaged model's bookkeeping) is not compiled for these sets: a
helper with such a branch takes the field as an argument of its own (e.g.
:func:`~olkit.learners.kernel.gram.load_gram_row`'s on-demand part). A dense run thus compiles no sparse code, and
every compiled call passes a smaller tuple (both cut a cold start's compile time)."""


def byte_integers(values):
    """Whether every value is an integer from 0 to 255 (exactly representable as a byte; NaN is not)."""
    return bool(np.all((values >= 0.0) & (values <= 255.0) & (np.floor(values) == values)))


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
    average : bool
        Keep the running sums of the averaged model (``avg_sum``, ``avg_last``: two more arrays the size of
        ``coef``; see the module docstring).
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

    def __init__(
        self,
        n_features,
        sparse,
        n_outputs=1,
        gram=False,
        gram_limit_bytes=None,
        matrices=(),
        members=False,
        average=False,
    ):
        self.n_features = int(n_features)
        self.sparse = bool(sparse)
        self.n_outputs = int(n_outputs)
        self.use_gram = bool(gram)
        if gram and gram_limit_bytes is not None and not self.sparse and self.n_features <= self.LOW_DIM_FEATURES:
            gram_limit_bytes = min(gram_limit_bytes, self.LOW_DIM_GRAM_LIMIT_BYTES)
        self.gram_limit_bytes = gram_limit_bytes
        self.matrix_names = tuple(matrices)
        self.use_members = bool(members)
        self.averaged = bool(average)
        self.avg = np.zeros(2)  # [q, N] (see the module docstring)
        self.meta = np.zeros(META_SIZE, np.int64)
        self.meta[SPARSE] = int(self.sparse)
        self.meta[HAS_GRAM] = int(self.use_gram)
        self.xt_bytes = self.may_transpose  # see admit
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
        self.avg_sum = np.empty((cap if self.averaged else 0, self.n_outputs))
        self.avg_last = np.empty((cap if self.averaged else 0, self.n_outputs))
        self.F = np.empty(cap)
        self.sw = np.empty(cap)
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
        self._allocate_transposed(cap)
        self._allocate_members(cap)
        self.capacity = cap

    @property
    def transposed(self):
        """Whether the set keeps ``XT``, the dense SV inputs transposed (d × capacity): a binary set of dense
        SVs whose Gram cache was asked for with a limit and dropped beyond it.
        :func:`~olkit.learners.kernel.gram.load_gram_row` then computes an SV's row on demand from the rows of
        ``XT`` of that SV's non-zero features (docs/algorithms/duol.md#complexity). ``XT`` is derived from ``X``
        and filled lazily: its first ``xt_n[0]`` columns are up to date (scratch, never saved)."""
        return self.may_transpose and not self.use_gram

    @property
    def may_transpose(self):
        """Whether the set may keep :attr:`transposed` inputs once its Gram cache is dropped."""
        limited = getattr(self, "gram_limit_bytes", None) is not None  # (a set pickled before the limit existed)
        return not self.sparse and limited and self.n_outputs == 1

    def _allocate_transposed(self, cap):
        dtype = np.uint8 if self.xt_bytes else np.float64
        self.XT = np.empty((self.n_features, cap) if self.transposed else (0, 0), dtype)
        self.xt_n = np.zeros(1, np.int64)

    def admit(self, rows):
        """Called with the rows of a block before any of them can become an SV: ``XT`` (:attr:`transposed`) holds
        bytes while every input of the set is an integer from 0 to 255 (a9a, w7a, mushrooms: indicator
        features), float64 from the first other value on (its filled columns converted exactly). The values
        are the same numbers either way, so :func:`~olkit.learners.kernel.gram.transposed_dots` multiplies
        the same float64 operands in the same order: rows bit for bit equal, reading an eighth of the
        memory (binary DUOL on a9a, 19k SVs: 4.29 → 3.91 s a run, docs/algorithms/duol.md#complexity). A learner's
        warm-up admits the whole run's data, so that a run compiles one of the two loops."""
        if self.xt_bytes and not byte_integers(rows.data if sp.issparse(rows) else rows):
            self.xt_bytes = False
            self.XT = self.XT.astype(np.float64)

    def _allocate_members(self, cap):
        """Empty member lists and class pool (rebuilt by the next
        :func:`~olkit.learners.kernel.members.list_members`)."""
        K = self.n_outputs if self.use_members else 0
        self.members = np.empty((K, cap), np.int32)
        self.member_other = np.empty((K, cap), np.int32)
        self.n_members = np.zeros(K, np.int64)
        rows = self.class_pool_rows(cap)
        self.class_X = np.empty((rows, self.n_features if rows else 0))
        self.class_norm2 = np.empty(rows)
        self.class_seg = np.zeros((2, K), np.int64)
        self.class_sel = np.empty(cap + 1 if rows else 0, np.int64)
        self.meta[LISTED] = 0

    def _class_pool(self):
        """Whether the member lists come with a class pool (see the module docstring): dense SVs of at most
        LOW_DIM_FEATURES features, where an SV–SV kernel entry costs a few multiply-adds and reading the row
        from a scattered slot (a cache miss) was most of it."""
        return self.use_members and not self.sparse and self.n_features <= self.LOW_DIM_FEATURES

    def class_pool_rows(self, cap):
        """Rows of the class pool at capacity ``cap``: each SV is on two lists, and a layout gives class c
        2·(its count) + CLASS_POOL_SLACK rows (:func:`~olkit.learners.kernel.members.list_members`)."""
        return 4 * cap + CLASS_POOL_SLACK * self.n_outputs if self._class_pool() else 0

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
        if not self.sparse or (
            self.meta[HOLES] == 0
            and (n == 0 or self.start[0] == 0)
            and np.array_equal(self.start[1:n], self.stop[: max(n - 1, 0)])
        ):
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
        if self.use_gram and self.gram_limit_bytes is not None and new_cap * new_cap * 8 > self._gram_limit():
            self.drop_gram()  # too large
        if self.nbytes(new_cap, new_nnz) > state_limit_bytes():
            new_cap, new_nnz = need | 1, need_nnz if self.sparse else 0
            square = (
                f" (its {'Gram cache' if self.use_gram else 'SV x SV matrices'}: O(#SV²) memory)"
                if self.use_gram or self.matrix_names
                else ""
            )
            check_state_bytes(
                owner, f"the support set grown to {new_cap} SVs{square}", self.nbytes(new_cap, new_nnz), cheaper
            )
        self._grow(new_cap, new_nnz)

    def nbytes(self, cap, nnz_cap):
        """Bytes of the arrays :meth:`_allocate` makes for ``cap`` SVs and ``nnz_cap`` pooled non-zeros."""
        K = self.n_outputs
        per_sv = 8 * (len(self._PER_SV) - 3 + K + 5) + (8 * K if self.use_members else 0)  # + coef (K), scratch
        per_sv += 8 * (4 * (self.n_features + 1) + 1) if self._class_pool() else 0  # class pool, class_sel
        per_sv += 16 * K if self.averaged else 0
        per_sv += 0 if self.sparse else 8 * self.n_features * (1 + self.transposed)
        square = 8 * cap * cap * (int(self.use_gram) + len(self.matrix_names))
        return cap * per_sv + square + 16 * nnz_cap

    def _gram_limit(self):
        """The size beyond which an optional Gram cache is dropped: ``gram_limit_bytes``, or LOW_DIM_GRAM_LIMIT_BYTES
        for a binary set of dense SVs with at most LOW_DIM_FEATURES non-zeros a row on average (counted when the
        cache would outgrow that size), whose rows :attr:`transposed` computes on demand from those features only.
        Measured on a9a (14 of 123 features non-zero), binary DUOL, same process: the run's loop took as long
        either way (41.7 s vs 41.6 s, loaded machine), while growing the cache to 8,255 SVs cost 2.9 s of
        copies (docs/algorithms/duol.md#complexity)."""
        limit = self.gram_limit_bytes
        n = self.n
        if self.sparse or self.n_outputs != 1 or n == 0 or limit <= self.LOW_DIM_GRAM_LIMIT_BYTES:
            return limit
        if np.count_nonzero(self.X[:n]) <= self.LOW_DIM_FEATURES * n:
            return self.LOW_DIM_GRAM_LIMIT_BYTES
        return limit

    def drop_gram(self):
        """Stop keeping the SV Gram cache (``load_gram_row`` computes rows on demand from then on)."""
        self.use_gram = False
        self.meta[HAS_GRAM] = 0
        self.gram = np.empty((0, 0))
        self._allocate_transposed(self.capacity)

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
        """:func:`~olkit.learners.kernel.gram.sync_gram` in numpy, for Python callers (no compiled twin to build on a
        cold start)."""
        n, done = int(self.meta[N]), int(self.meta[GSYNC])
        if done < n:
            gram[:done, done:n] = gram[done:n, :done].T
            iu = np.triu_indices(n - done, 1)
            new = gram[done:n, done:n]
            new[iu] = new.T[iu]
        self.meta[GSYNC] = n

    _PER_SV = (
        "start",
        "stop",
        "norm2",
        "kself",
        "y",
        "hr",
        "hs",
        "hw",
        "coef",
        "F",
        "sw",
        "added",
        "gcol",
        "arrival",
        "avg_sum",
        "avg_last",
    )
    """The per-SV arrays (one row per slot; ``coef``, ``avg_sum`` and ``avg_last`` have K columns, the last two
    no rows without ``average``)."""

    def arrays(self):
        """The :data:`SVArrays` view handed to compiled code."""
        return self.arrays_of(self.gram)

    def arrays_of(self, gram):
        """The :data:`SVArrays` view with the Gram cache ``gram``. The arrays a set's configuration never uses are
        None there, a *type* the compiled code sees (see :data:`SVArrays`): a set of dense SVs passes None for the
        pool of non-zeros (``indices``, ``data``), a set without ``average`` for ``avg_sum`` and ``avg_last``, and a
        set without member lists for those and the class pool (read only by the rules that keep them), and a set
        without SV×SV matrices for ``mats``."""
        sparse, averaged, listed = self.sparse, self.averaged, self.use_members
        return SVArrays(
            self.X,
            self.start,
            self.stop,
            self.indices if sparse else None,
            self.data if sparse else None,
            self.norm2,
            self.kself,
            self.y,
            self.hr,
            self.hs,
            self.hw,
            self.coef,
            self.F,
            self.sw,
            gram,
            self.krow,
            self.grow,
            self.gsel,
            self.gnorm2,
            self.added,
            self.gcol,
            self.meta,
            self.mats if self.matrix_names else None,
            self.arrival,
            self.moved,
            self.members if listed else None,
            self.member_other if listed else None,
            self.n_members if listed else None,
            self.avg_sum if averaged else None,
            self.avg_last if averaged else None,
            self.avg,
            self.XT,
            self.xt_n,
            self.class_X if listed else None,
            self.class_norm2 if listed else None,
            self.class_seg if listed else None,
            self.class_sel if listed else None,
        )

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
        saved["avg"] = self.avg.copy()
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
        self.avg[:] = saved["avg"]
        self.meta[HAS_GRAM] = int(self.use_gram)  # a Gram cache dropped when the arrays grew stays dropped
        self.meta[LISTED] = 0  # the member lists are rebuilt
        n = self.n
        for name in self._PER_SV:
            getattr(self, name)[:n] = saved[name]
        self.mats[:, :n, :n] = saved["mats"]
        self.xt_n[0] = 0 if "inputs" in saved else min(int(self.xt_n[0]), n)
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
        return all_finite(
            (
                self.coef[:n],
                self.hw[:n],
                self.F[:n],
                self.sw[:n],
                self.norm2[:n],
                self.kself[:n],
                self.mats[:, :n, :n],
                self.avg_sum[:n],
                self.avg,
            )
        )

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
        scratch = ("moved", "gsel", "gnorm2", "members", "member_other", "n_members", "XT", "xt_n", "xt_bytes")
        for name in scratch + CLASS_POOL_ARRAYS:
            del state[name]  # scratch, an index with its copies, and derived copies of the inputs (and their type)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "hw" not in state:  # saved before the direction weights existed: coef[i] = hw[i] H_i
            h = state["h"]
            del self.h
            self.hr, self.hs = h[:, 0].copy(), h[:, 1].copy()
            self.hw = np.where(self.hr >= 0, self.coef[np.arange(len(self.hr)), np.maximum(self.hr, 0)], 0.0)
        if "sw" not in state:  # saved before the examples' weights existed: every SV's example had weight 1
            self.sw = np.ones(len(self.kself))
        if "arrival" not in state:  # saved before the arrival order was kept
            self.arrival = np.argsort(self.added, kind="stable").astype(np.int64)
        if "avg" not in state:  # saved before the averaged models existed: none kept
            self.averaged = False
            self.avg = np.zeros(2)
            self.avg_sum = np.empty((0, self.n_outputs))
            self.avg_last = np.empty((0, self.n_outputs))
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
        self.xt_bytes = self.may_transpose and byte_integers(self.X[: self.n])  # see admit
        self._allocate_transposed(self.capacity)

    def saved_shapes(self, n, pool, capacity):
        """{array: shape} of a set of n SVs and ``pool`` pooled non-zeros as :meth:`__getstate__` keeps it (the
        used part; ``grow`` at the saved set's ``capacity``): the layout a model file must hold
        (:mod:`olkit.persist`), known before any array is read."""
        d, K = self.n_features, self.n_outputs
        shapes = {name: (n,) for name in self._PER_SV}
        shapes.update(
            coef=(n, K),
            avg_sum=(n if self.averaged else 0, K),
            avg_last=(n if self.averaged else 0, K),
            avg=(2,),
            X=(0 if self.sparse else n, d),
            indices=(pool,),
            data=(pool,),
            gram=(n, n) if self.use_gram else (0, 0),
            mats=(len(self.matrix_names), n, n),
            meta=(META_SIZE,),
            grow=(capacity + 1,),
        )
        return shapes

    def grown_bytes(self, capacity, pool_capacity):
        """Bytes the arrays take at ``capacity`` SVs and ``pool_capacity`` pooled non-zeros (what
        :meth:`restore_capacity` allocates), so that a file claiming an absurd capacity is refused first."""
        per_sv = 8 * (
            len(self._PER_SV)
            - 2
            + self.n_outputs * (1 + 2 * self.averaged)
            + (0 if self.sparse else self.n_features)
            + 6
            + 2 * self.n_outputs * self.use_members
            + (4 * (self.n_features + 1) + 1 if self._class_pool() else 0)
        )
        gram = (
            8 * capacity * capacity
            if self.use_gram and (self.gram_limit_bytes is None or 8 * capacity * capacity <= self.gram_limit_bytes)
            else 0
        )
        transposed = self.may_transpose and (not self.use_gram or gram == 0)  # counted as float64 (the most it takes)
        per_sv += 8 * self.n_features if transposed else 0
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
        ranges = [
            ("meta[N]", meta[N : N + 1], 0, self.capacity + 1),
            ("meta[NPRE]", meta[NPRE : NPRE + 1], 0, n + 1),
            ("meta[NMOVED]", meta[NMOVED : NMOVED + 1], 0, len(self.moved) + 1),
            ("meta[GSYNC]", meta[GSYNC : GSYNC + 1], 0, n + 1),
            ("meta[LISTED]", meta[LISTED : LISTED + 1], 0, n + 1),
            ("meta[HOLES]", meta[HOLES : HOLES + 1], 0, np.iinfo(np.int64).max),
            ("meta[CLOCK]", meta[CLOCK : CLOCK + 1], 0, np.iinfo(np.int64).max),
            ("meta[POOL]", meta[POOL : POOL + 1], 0, len(self.indices) + 1),
            ("hr", self.hr[:n], -1, K),
            ("hs", self.hs[:n], -1, K),
            ("arrival", self.arrival[:n], 0, n),
            ("added", self.added[:n], 0, clock + 1),
        ]
        if self.sparse:
            ranges += [
                ("indices", self.indices[:pool], 0, d),
                ("start", self.start[:n], 0, pool + 1),
                ("stop", self.stop[:n], 0, pool + 1),
            ]
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
        if (
            self.sparse
            and n
            and (
                self.start[0] != 0
                or self.stop[n - 1] != pool
                or np.any(self.stop[:n] < self.start[:n])
                or np.any(self.start[1:n] != self.stop[: n - 1])
            )
        ):
            raise ValueError("support_.start / stop: the rows are not consecutive runs of the pool of non-zeros")
        finite = {
            "X": self.X[: 0 if self.sparse else n],
            "data": self.data[:pool],
            "norm2": self.norm2[:n],
            "kself": self.kself[:n],
            "y": self.y[:n],
            "hw": self.hw[:n],
            "coef": self.coef[:n],
            "F": self.F[:n],
            "sw": self.sw[:n],
            "gram": self.gram[:n, :n] if self.use_gram else self.gram,
            "mats": self.mats[:, :n, :n],
            "avg_sum": self.avg_sum[:n],
            "avg_last": self.avg_last[:n],
            "avg": self.avg,
        }
        for name, values in finite.items():
            if not np.isfinite(values).all():
                raise ValueError(f"support_.{name} holds NaN or infinite values")
        if np.any(self.sw[:n] < 0.0):
            raise ValueError("support_.sw: an example's weight is negative")
        q, rounds = self.avg
        if q < 0 or rounds < 0 or rounds != np.floor(rounds) or (not self.averaged and (q or rounds)):
            raise ValueError(f"support_.avg: [q, N] = [{q}, {rounds}] is no count of averaged rounds")
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
        if (
            self.sparse
            and n
            and (self.start[:n].min() < 0 or self.stop[:n].max() > pool or np.any(self.start[:n] > self.stop[:n]))
        ):
            raise ValueError("support set rows point outside the pool of non-zeros")
        if self.meta[HAS_GRAM] != int(self.use_gram) or self.meta[SPARSE] != int(self.sparse):
            raise ValueError("support set flags disagree with its meta data")
        if capacity > n or (self.sparse and pool_capacity > pool):
            self._grow(max(capacity, n), max(pool_capacity, pool) if self.sparse else 0)
