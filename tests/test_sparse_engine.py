"""High-dimensional sparse streams stay sparse end to end (CSR SV storage, sparse in-block dot products,
on-demand SV rows for DUOL) and give the same results as the dense engine on the same data."""

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from olkit.learners.kernel.base import dense_is_cheap
from reference.kernel_binary import run_reference


def sparse_stream(seed, n=300, d=3000, nnz_per_row=12):
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), nnz_per_row)
    cols = rng.integers(0, d, size=n * nnz_per_row)
    X = sp.csr_matrix((rng.uniform(0.2, 1.0, size=n * nnz_per_row), (rows, cols)), shape=(n, d))
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.3 * rng.normal(size=n) >= 0, 1, -1)
    return X, y


@pytest.mark.parametrize(
    "name",
    ["perceptron", "pa1", "romma", "agg-romma", "alma", "duol", "duol-iter", "duol-appr", "duol-rand", "online-svm"],
)
def test_sparse_equals_dense(name):
    X, y = sparse_stream(seed=hash(name) % 1000)
    assert not dense_is_cheap(X)
    sparse_clf, dense_clf = olkit.make(name, sigma=1.0), olkit.make(name, sigma=1.0)
    a = olkit.evaluate_online(sparse_clf, X, y)
    b = olkit.evaluate_online(dense_clf, X.toarray(), y)
    assert sparse_clf.support_.sparse and not dense_clf.support_.sparse
    assert (a.mistakes, a.n_sv, a.n_updates, a.diagnostics) == (b.mistakes, b.n_sv, b.n_updates, b.diagnostics)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name,params", [("duol", {}), ("duol", {"variant": "nips2009"}), ("pa1", {})])
def test_sparse_engine_matches_reference(name, params):
    X, y = sparse_stream(seed=7, n=400)
    res = olkit.evaluate_online(olkit.make(name, sigma=1.0, **params), X, y)
    ref = run_reference(name, X.toarray(), y, sigma=1.0, **params)
    assert (res.mistakes, res.n_sv) == (ref.mistakes, ref.n_sv)
    np.testing.assert_allclose(res.scores, ref.scores, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("storage", ["dense", "sparse"])
def test_gram_cache_dropped_beyond_its_limit(monkeypatch, storage):
    """A DUOL Gram cache that would outgrow its limit is dropped; rows are then computed on demand."""
    from olkit.learners.kernel.support_set import SupportSet

    if storage == "dense":
        rng = np.random.default_rng(5)
        X = rng.normal(size=(500, 6))
        y = np.where(X[:, 0] + 0.5 * rng.normal(size=500) > 0, 1, -1)
    else:
        X, y = sparse_stream(seed=11, n=500)
    cached = olkit.evaluate_online(olkit.make("duol", sigma=1.0), X, y)
    monkeypatch.setattr(SupportSet, "GRAM_LIMIT_BYTES", 300 * 300 * 8)
    clf = olkit.make("duol", sigma=1.0)
    dropped = olkit.evaluate_online(clf, X, y)
    assert not clf.support_.use_gram and clf.support_.n > 300
    assert clf.support_.sparse == (storage == "sparse")
    # dense SVs: rows on demand from the transposed inputs, kept up to date (SupportSet.transposed)
    assert clf.support_.transposed == (storage == "dense")
    if storage == "dense":
        assert clf.support_.XT.shape == (X.shape[1], clf.support_.capacity)
        done = int(clf.support_.xt_n[0])  # filled lazily, up to the last row computed
        assert 300 < done <= clf.support_.n
        np.testing.assert_array_equal(clf.support_.XT[:, :done], clf.support_.X[:done].T)
    assert (cached.mistakes, cached.n_sv, cached.diagnostics) == (dropped.mistakes, dropped.n_sv, dropped.diagnostics)
    np.testing.assert_allclose(cached.scores, dropped.scores, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("nonzeros", [3, 70])
def test_gram_cache_of_few_nonzeros_dropped_at_the_low_limit(monkeypatch, nonzeros):
    """Binary DUOL on dense SVs of more than 64 features: the Gram cache is dropped at the low-dimensional limit
    when the rows have at most 64 non-zeros on average (their rows on demand read those features only), at the
    general limit otherwise; the same mistakes and SVs either way."""
    from olkit.learners.kernel.support_set import SupportSet

    rng = np.random.default_rng(7)
    n, d = 500, 80
    X = np.zeros((n, d))
    for i in range(n):
        X[i, rng.choice(d, nonzeros, replace=False)] = rng.integers(1, 3, nonzeros)
    y = np.where(X[:, :40].sum(axis=1) > X[:, 40:].sum(axis=1), 1, -1)
    cached = olkit.evaluate_online(olkit.make("duol", sigma=2.0), X, y)
    monkeypatch.setattr(SupportSet, "LOW_DIM_GRAM_LIMIT_BYTES", 100 * 100 * 8)
    clf = olkit.make("duol", sigma=2.0)
    low = olkit.evaluate_online(clf, X, y)
    assert clf.support_.n > 300 and not clf.support_.sparse
    assert clf.support_.use_gram == (nonzeros > 64)
    assert clf.support_.transposed == (nonzeros <= 64)
    assert (cached.mistakes, cached.n_sv, cached.diagnostics) == (low.mistakes, low.n_sv, low.diagnostics)
    np.testing.assert_allclose(cached.scores, low.scores, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("later", ["integers", "fractions", "large"])
def test_transposed_inputs_in_bytes_are_the_same_numbers(monkeypatch, later):
    """SupportSet.admit: the transposed inputs are bytes while every input is an integer from 0 to 255, float64
    from the first other value on (here from row 450, inside the second block); the runs equal, bit for bit,
    runs whose transposed inputs are float64 throughout, and a pickled model re-derives the type from its SVs."""
    import pickle

    from olkit.learners.kernel.support_set import SupportSet

    rng = np.random.default_rng(3)
    n, d = 600, 80
    X = np.zeros((n, d))
    for i in range(n):
        X[i, rng.choice(d, 5, replace=False)] = rng.integers(1, 4, 5)
    if later != "integers":
        X[450:] *= 0.5 if later == "fractions" else 100.0
    y = np.where(X[:, :40].sum(axis=1) > X[:, 40:].sum(axis=1), 1, -1)
    monkeypatch.setattr(SupportSet, "LOW_DIM_GRAM_LIMIT_BYTES", 100 * 100 * 8)
    clf = olkit.make("duol", sigma=2.0, shuffle=False)
    in_bytes = olkit.evaluate_online(clf, X, y)
    assert clf.support_.transposed and clf.support_.n > 300
    assert clf.support_.XT.dtype == (np.uint8 if later == "integers" else np.float64)
    assert pickle.loads(pickle.dumps(clf)).support_.XT.dtype == clf.support_.XT.dtype

    def float64_throughout(self, rows):
        self.xt_bytes = False
        self.XT = self.XT.astype(np.float64)

    monkeypatch.setattr(SupportSet, "admit", float64_throughout)
    ref = olkit.make("duol", sigma=2.0, shuffle=False)
    in_float = olkit.evaluate_online(ref, X, y)
    assert ref.support_.XT.dtype == np.float64
    assert (in_bytes.mistakes, in_bytes.n_sv, in_bytes.diagnostics) == (
        in_float.mistakes,
        in_float.n_sv,
        in_float.diagnostics,
    )
    np.testing.assert_array_equal(in_bytes.scores, in_float.scores)
    np.testing.assert_array_equal(clf.support_.coef[: clf.support_.n], ref.support_.coef[: ref.support_.n])


def test_the_warm_up_admits_the_whole_run(monkeypatch):
    """evaluate_online's warm-up admits every row of the run (SupportSet.admit) before the loop is compiled: data
    whose first row is all integers and whose later rows are not compile the float64 loop only, not the bytes'
    loop first and the float64 one at the first block."""
    from olkit.learners.kernel.support_set import SupportSet

    seen = []
    admit = SupportSet.admit

    def recording(self, rows):
        seen.append((rows.shape[0], self.XT.dtype))
        admit(self, rows)

    monkeypatch.setattr(SupportSet, "admit", recording)
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(300, 8)).astype(np.float64)
    X[1:] += rng.uniform(size=(299, 8))
    y = np.where(X[:, 0] > X[:, 1], 1, -1)
    clf = olkit.make("duol", sigma=2.0)
    olkit.evaluate_online(clf, X, y)
    assert seen[0] == (300, np.uint8) and all(dtype == np.float64 for _, dtype in seen[1:])
    assert clf.support_.XT.dtype == np.float64 and len(seen) == 3  # the warm-up, then two blocks


@pytest.mark.parametrize("dtype", [np.uint8, np.float64])
def test_transposed_dots_are_the_sequential_sums(dtype):
    """gram.transposed_dots: the sums are bit for bit those of adding x's non-zero features one at a time in
    increasing order (0 to 9 non-zeros, byte and float64 copies), and nothing beyond the first n entries is
    written."""
    from olkit.learners.kernel.gram import transposed_dots

    rng = np.random.default_rng(0)
    d, n = 12, 50
    XT = rng.integers(0, 4, size=(d, n + 3)).astype(np.uint8) if dtype is np.uint8 else rng.normal(size=(d, n + 3))
    for m in range(10):
        x = np.zeros(d)
        x[rng.choice(d, m, replace=False)] = rng.normal(size=m)
        out = np.full(n + 3, np.nan)
        transposed_dots(XT, x, out, n)
        expected = np.zeros(n)
        for k in np.flatnonzero(x):
            expected = expected + x[k] * XT[k, :n].astype(np.float64)
        assert np.array_equal(out[:n].view(np.int64), expected.view(np.int64)), m
        assert np.isnan(out[n:]).all()


@pytest.mark.parametrize("storage", ["dense", "sparse"])
def test_sv_remove_keeps_storage_consistent(storage):
    """sv_remove (for budgeted learners) moves SVs between slots but keeps every SV's row, coefficient,
    arrival time and Gram entries; the model keeps predicting from the remaining SVs."""
    from olkit.kernels import kernel_matrix
    from olkit.learners.kernel.sv_edit import sv_remove

    X, y = sparse_stream(seed=3, n=200)
    data = X if storage == "sparse" else X.toarray()
    clf = olkit.make("duol", sigma=1.0, shuffle=False).fit(data, y)
    s = clf.support_

    def by_arrival():
        rows = s.vectors().toarray() if storage == "sparse" else s.vectors().copy()
        return {int(a): (rows[i], s.coef[i, 0]) for i, a in enumerate(s.added[: s.n])}

    before = by_arrival()
    for where in (0.0, 0.5, 1.0):  # first, middle, last
        r = int(where * (s.n - 1))
        del before[int(s.added[r])]
        sv_remove(s.arrays(), r)
    after = by_arrival()
    assert sorted(after) == sorted(before)
    for a, (row, coef) in after.items():
        np.testing.assert_array_equal(row, before[a][0])
        assert coef == before[a][1]
    K = kernel_matrix(s.vectors(), s.vectors(), clf._kernel_spec())
    np.testing.assert_allclose(s.gram_matrix(), K, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        clf.decision_function(data[:5]),
        kernel_matrix(data[:5], s.vectors(), clf._kernel_spec()) @ s.coef[: s.n, 0],
        rtol=1e-10,
        atol=1e-12,
    )
