"""The support set under random add / add-a-point / remove / replace sequences (docs/dev/architecture.md#k-outputs).

Within a block, kernel rows come from the block product for the SVs present at its start and one by one
for SVs added since; removals move SVs between slots. These tests drive the compiled support-set
operations directly and check, after every operation, that

* the kernel row filled by the engine equals κ(x_t, x_i) recomputed from scratch for every stored SV
  (the block product stays valid: covered slots and ``gcol`` follow the moves),
* per-SV cached scores maintained incrementally (F_i = Σ_j coef_j κ(x_i, x_j), as DUOL's caches are)
  equal a from-scratch recomputation, K = 3 outputs,
* the Gram cache and a named SV×SV matrix equal their recomputation,

all to 1e-12, for dense and sparse storage.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from olkit.kernels import KernelSpec, kernel_matrix
from olkit.learners.kernel.gram import load_gram_row, load_gram_row_related, sync_gram
from olkit.learners.kernel.kernel_rows import begin_block, fill_kernel_row
from olkit.learners.kernel.members import list_members
from olkit.learners.kernel.stream import make_stream
from olkit.learners.kernel.support_set import N, SupportSet
from olkit.learners.kernel.sv_edit import sv_append, sv_append_point, sv_remove

K_OUT = 3


def _dense(s):
    V = s.vectors()
    return V.toarray() if sp.issparse(V) else np.array(V)


def _check_members(s):
    """The member lists, brought up to date, hold every class's slots in increasing order, each with the code
    2·(the direction's other class) + (1 if the class is the direction's s)."""
    list_members(s.arrays())
    for c in range(s.n_outputs):
        expect = [
            (i, 2 * int(s.hs[i])) if s.hr[i] == c else (i, 2 * int(s.hr[i]) + 1)
            for i in range(s.n)
            if c in (s.hr[i], s.hs[i])
        ]
        got = list(zip(s.members[c, : s.n_members[c]].tolist(), s.member_other[c, : s.n_members[c]].tolist()))
        assert got == expect


def _recompute(s, spec):
    V = s.vectors()
    return kernel_matrix(V, V, spec) if s.n else np.zeros((0, 0))


@pytest.mark.parametrize("storage", ["dense", "sparse"])
@pytest.mark.parametrize("seed", range(6))
def test_random_add_remove_replace_keeps_caches_exact(storage, seed):
    rng = np.random.default_rng(seed)
    d, n = 6, 400
    X = rng.integers(-2, 3, size=(n, d)).astype(float)  # small integers: duplicates and ties
    X[rng.random((n, d)) < 0.4] = 0.0
    X[1::7] = X[0::7][: len(X[1::7])]  # duplicate rows
    Xs = sp.csr_matrix(X) if storage == "sparse" else X
    spec = KernelSpec("gaussian", 1.3)
    stream = make_stream(Xs, np.ones(n), spec.params())
    s = SupportSet(d, storage == "sparse", n_outputs=K_OUT, gram=True, matrices=("pair",), members=True)
    F = {}  # arrival id -> cached score vector, maintained incrementally
    pos = 0
    clock = 0
    for _block in range(12):
        rows = list(range(pos, min(pos + 30, n)))
        pos += 30
        s.reserve(len(rows) + 5, len(rows) * d + 5 * d)
        G = s.dots(X[rows] if storage == "dense" else Xs[rows])
        arr = s.arrays()
        begin_block(arr, G.shape[1])
        for p, t in enumerate(rows):
            kself = fill_kernel_row(arr, stream, t, G, p)
            nsv = int(s.meta[N])
            # kernel row valid despite the moves of earlier removals in this block
            if nsv:
                expect = kernel_matrix(X[t : t + 1], _dense(s), spec)[0]
                np.testing.assert_allclose(s.krow[:nsv], expect, rtol=1e-12, atol=1e-12)
            op = rng.random()
            if op < 0.15 and nsv > 2:  # remove a random SV: its contribution leaves every cache
                r = int(rng.integers(nsv))
                load_gram_row(arr, r, stream)
                gone = s.coef[r].copy()
                aid = int(s.added[r])
                for i in range(nsv):
                    F[int(s.added[i])] -= gone * s.grow[i]
                del F[aid]
                sv_remove(arr, r)
                continue
            if op < 0.25:  # a point that is not a stream row (as a merged / projected SV would be)
                idx = np.flatnonzero(X[t] != 0).astype(np.int64)
                val = X[t, idx] * 0.5
                point = np.zeros(d)
                point[idx] = val
                kself = float(kernel_matrix(point[None], point[None], spec)[0, 0])
                if nsv:
                    s.krow[:nsv] = kernel_matrix(point[None], _dense(s), spec)[0]
                arr.meta[4] = clock
                j = sv_append_point(arr, idx, val, kself, 1.0)
            else:
                arr.meta[4] = clock
                j = sv_append(arr, stream, t, kself, 1.0)
            clock += 1
            if rng.random() < 0.8:  # a direction (the member lists follow it), or none
                s.hr[j], s.hs[j] = rng.choice(K_OUT, size=2, replace=False)
            if rng.random() < 0.2:
                _check_members(s)  # extended by appends, rebuilt after removals
            coef = rng.normal(size=K_OUT)
            s.coef[j] = coef
            s.mats[0, j, : j + 1] = rng.normal(size=j + 1)  # something to carry along
            s.mats[0, : j + 1, j] = s.mats[0, j, : j + 1]
            F[int(s.added[j])] = np.zeros(K_OUT)
            for i in range(j + 1):  # the new SV's contribution, from the kernel row (krow[j] = κ_jj)
                F[int(s.added[i])] += coef * s.krow[i]
            F[int(s.added[j])] += sum((s.coef[i] * s.krow[i] for i in range(j)), np.zeros(K_OUT))
        # after every block: caches, Gram cache and the named matrix against a recomputation
        Kfull = _recompute(s, spec)
        nsv = s.n
        cached = np.array([F[int(a)] for a in s.added[:nsv]])
        np.testing.assert_allclose(cached, Kfull @ s.coef[:nsv], rtol=1e-12, atol=1e-12)
        sync_gram(s.arrays())
        np.testing.assert_allclose(s.gram_matrix(), Kfull, rtol=1e-12, atol=1e-12)
        P = s.matrix("pair")
        np.testing.assert_array_equal(P, P.T)
        # the arrival order lists every slot once, oldest first, whatever the moves
        arrival = s.arrival[:nsv]
        assert sorted(arrival) == list(range(nsv))
        assert np.all(np.diff(s.added[arrival]) > 0)
        _check_members(s)
    assert s.n > 20


def test_removal_moves_at_most_two_svs():
    """O(1) removal: only the freed slot and the last covered slot change their SV."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 3))
    spec = KernelSpec("gaussian", 1.0)
    stream = make_stream(X, np.ones(50), spec.params())
    s = SupportSet(3, False, gram=False)
    s.reserve(50)
    arr = s.arrays()
    G = np.zeros((50, 0))
    begin_block(arr, 0)
    for t in range(50):
        kself = fill_kernel_row(arr, stream, t, G, t)
        sv_append(arr, stream, t, kself, 1.0)
        arr.meta[4] += 1
    before = s.added[: s.n].copy()
    sv_remove(arr, 10)
    after = s.added[: s.n]
    changed = np.flatnonzero(after != before[: s.n])
    assert list(changed) == [10] and after[10] == before[-1]


@pytest.mark.parametrize("storage", ["dense", "sparse"])
@pytest.mark.parametrize("gram", [False, True])
@pytest.mark.parametrize("K", [3, 7, 26])
def test_related_gram_row_is_the_full_rows_entries(storage, gram, K):
    """load_gram_row_related (M-DUOL's κ(x_b, ·) where H_b·H_i ≠ 0, from the member lists) gives exactly, bit for
    bit, the entries of load_gram_row for those SVs, each once, on rows with duplicates, near pairs at a large
    norm and SVs without a direction; the member lists are every class's slots in increasing order."""
    rng = np.random.default_rng(K)
    d, n = 9, 300
    X = rng.normal(size=(n, d)) * rng.choice([1.0, 3.7, 1e3], size=(n, 1))
    X[rng.random((n, d)) < 0.3] = 0.0
    X[1::9] = X[0::9][: len(X[1::9])]  # copies
    X[2::11] = X[0::11][: len(X[2::11])] * (1 + 1e-9)  # near pairs
    Xs = sp.csr_matrix(X) if storage == "sparse" else X
    spec = KernelSpec("gaussian", 2.0)
    stream = make_stream(Xs, np.zeros(n), spec.params(), n_outputs=K)
    s = SupportSet(d, storage == "sparse", n_outputs=K, gram=gram, members=True)
    s.reserve(n, n * d)
    arr = s.arrays()
    G = s.dots(X[:0] if storage == "dense" else Xs[:0])
    begin_block(arr, G.shape[1])
    for t in range(n):
        kself = fill_kernel_row(arr, stream, t, G, 0)
        j = sv_append(arr, stream, t, kself, 0.0)
        if rng.random() < 0.9:
            r, w = rng.choice(K, size=2, replace=False)
            s.hr[j], s.hs[j] = r, w
        if t % 50 == 0:
            list_members(arr)  # extended in steps, as the rule does
    sync_gram(arr)  # (nothing to do without a Gram cache)
    list_members(arr)
    for c in range(K):
        assert list(s.members[c, : s.n_members[c]]) == [i for i in range(n) if c in (s.hr[i], s.hs[i])]
    for b in rng.choice(n, size=40, replace=False):
        load_gram_row(arr, b, stream)
        full = s.grow[:n].copy()
        rb, sb = int(s.hr[b]), int(s.hs[b])
        m = load_gram_row_related(arr, b, stream, rb, sb)
        related = [i for i in range(n) if s.hr[i] >= 0 and len({rb, sb} & {int(s.hr[i]), int(s.hs[i])}) > 0]
        assert sorted(s.gsel[:m]) == related
        np.testing.assert_array_equal(s.grow[:m], full[s.gsel[:m]])
        np.testing.assert_allclose(full, kernel_matrix(X[b : b + 1], X, spec)[0], rtol=1e-12, atol=1e-300)
