"""Issue 9 item 1: never a NaN or inf in a model. A round whose score or update is not finite in float64 is
refused with a ValueError naming the example (olkit.protocol.UnlearnableExample), and the model is left as
it was before that round; σ is validated against what the Gaussian can represent; the crashes the fuzzer
found (ZeroDivisionError, numba's re-raise) are gone."""

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import olkit
from olkit import registry
from olkit.protocol import UnlearnableExample

ISSUE_POISONED = ("pa", "pa2", "agg-romma", "alma", "duol-iter", "online-svm", "cw-var", "sop")
"""The learners issue 9 found permanently poisoned by one row of ~1e160 in a 300-example stream."""


def _stream(n=300, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    return X, y


def _check_refused_or_finite(name, X, y, bad, **params):
    """Either every score is finite, or the first bad row is refused with the model of the rounds before it."""
    clf = olkit.make(name, **params)
    clean = np.delete(X, bad, axis=0)
    try:
        res = olkit.evaluate_online(clf, X, y)
    except UnlearnableExample as exc:
        first = min(bad)
        assert exc.index == first and exc.position == first
        assert f"example {first}" in str(exc) and "model is as it was before" in str(exc)
        assert clf.n_seen_ == first
        ref = olkit.make(name, **params)
        ref.partial_fit(X[:first], y[:first], classes=np.unique(y))
        # the rounds before were learned exactly (one example at a time: scores up to summation order)
        np.testing.assert_allclose(clf.decision_function(clean), ref.decision_function(clean), rtol=1e-9, atol=1e-12)
        # and learning continues from there
        clf.partial_fit(clean[first:], np.delete(y, bad)[first:])
        assert np.all(np.isfinite(clf.decision_function(clean)))
        return "refused"
    assert np.all(np.isfinite(res.scores))
    assert np.all(np.isfinite(clf.decision_function(clean)))
    return "finite"


@pytest.mark.parametrize("name", ISSUE_POISONED)
def test_issue_example_huge_row(name):
    """The issue's case: X[10] *= 1e160 no longer gives NaN scores and a plausible mistake rate."""
    X, y = _stream()
    X[10] *= 1e160
    _check_refused_or_finite(name, X, y, [10])


@pytest.mark.parametrize("name", registry.names())
def test_every_learner_huge_row(name):
    """Every registered learner on binary data with one row at 1e160 and one at 1e-160: finite or refused."""
    X, y = _stream(120, 4, seed=1)
    X[30] *= 1e160
    X[60] *= 1e-160
    _check_refused_or_finite(name, X, y, [30])


@pytest.mark.parametrize("name", ["pa", "duol", "scw1", "arow", "ahpatron", "bogd", "fogd", "projectron++"])
def test_every_row_huge(name):
    """Every row ×1e300: finite scores, or the first row refused (nothing learned, model empty)."""
    X, y = _stream(60, 3, seed=2)
    X *= 1e300
    clf = olkit.make(name)
    try:
        res = olkit.evaluate_online(clf, X, y)
    except UnlearnableExample as exc:
        assert exc.position >= 0 and clf.n_seen_ == exc.position
        return
    assert np.all(np.isfinite(res.scores))


def test_refusal_names_the_row_of_x_under_an_order():
    X, y = _stream()
    X[42] *= 1e160
    order = np.r_[np.arange(100, 300), np.arange(100)]
    with pytest.raises(UnlearnableExample) as info:
        olkit.evaluate_online(olkit.make("pa"), X, y, order=order)
    assert info.value.index == 42 and info.value.position == 242
    assert "example 42 (round 243" in str(info.value)


def test_refusal_is_a_value_error_for_fit_and_sparse_input():
    X, y = _stream()
    X[7] *= 1e200
    for data in (X, sp.csr_matrix(X)):
        with pytest.raises(ValueError, match="cannot learn example 7"):
            olkit.make("pa2").partial_fit(data, y)


def test_state_restored_exactly_within_a_block():
    """A refusal in the middle of a block leaves the learner's arrays exactly as a run of the rounds before it
    one at a time leaves them."""
    X, y = _stream(200, 4, seed=3)
    X[150] *= 1e170
    clf = olkit.make("duol")
    with pytest.raises(UnlearnableExample):
        clf.partial_fit(X, y)
    ref = olkit.make("duol")
    ref.partial_fit(X[:1], y[:1], classes=[-1, 1])
    for i in range(1, 150):
        ref.partial_fit(X[i : i + 1], y[i : i + 1])
    n = clf.support_.n
    assert n == ref.support_.n
    np.testing.assert_array_equal(clf.support_.coef[:n], ref.support_.coef[:n])
    np.testing.assert_array_equal(clf.state_.cnt, ref.state_.cnt)


@pytest.mark.parametrize("sigma", [1e-160, 1e-300, 1e160])
@pytest.mark.parametrize("name", ["duol", "pa", "ahpatron", "fogd"])
def test_sigma_validated(name, sigma):
    X, y = _stream(20, 3)
    with pytest.raises(ValueError, match=r"sigma.*1/\(2σ²\)"):
        olkit.make(name, sigma=sigma).fit(X, y)


def test_sigma_range_edges_learn():
    X, y = _stream(50, 3)
    for sigma in (1e-154, 1e153):
        res = olkit.evaluate_online(olkit.make("pa", sigma=sigma), X, y)
        assert np.all(np.isfinite(res.scores))


@pytest.mark.parametrize("name", ["projectron", "projectron++"])
@pytest.mark.parametrize("kernel", [{"kernel": "linear"}, {"kernel": "poly", "degree": 2, "coef0": 0.0}])
def test_lsokl_zero_row(name, kernel):
    """LSOKL's Projectron divides by κ(x, x) = 0 on a zero row (fuzzer: ZeroDivisionError): not added now."""
    X = np.array([[0.0, 0.866400459662828], [0.0, 0.0], [0.5, 0.1], [0.0, 0.0]])
    res = olkit.evaluate_online(olkit.make(name, compat="lsokl", **kernel), sp.csr_matrix(X), [1, -1, 1, -1])
    assert np.all(np.isfinite(res.scores))


AHPATRON_1E85 = [
    [-8.744564250507944e84, -1.2199213398408457e85],
    [1.133803932727506e85, -1.8560793833327212e85],
    [5.312168055878893e84, 1.0795068635930839e85],
    [1.133803932727506e85, -1.8560793833327212e85],
    [-2.0233786605846708e85, 4.579155091533824e84],
    [1.133803932727506e85, -1.8560793833327212e85],
    [1.1807927571749615e85, 1.2470260110233985e85],
    [5.312168055878893e84, 1.0795068635930839e85],
    [1.1474208152879438e85, 1.2856682872895677e84],
    [-8.744564250507944e84, -1.2199213398408457e85],
    [-9.915189861827126e84, 3.890081644288032e84],
    [1.1807927571749615e85, 1.2470260110233985e85],
    [8.354716333975677e84, -1.699038313928135e84],
    [1.3083473326036799e85, -1.0909472094190072e85],
    [1.6164510462566408e85, 1.8937952529718125e84],
    [1.133803932727506e85, -1.8560793833327212e85],
    [1.6164510462566408e85, 1.8937952529718125e84],
    [1.1807927571749615e85, 1.2470260110233985e85],
    [1.133803932727506e85, -1.8560793833327212e85],
    [1.4514164962880598e85, 1.822640986245957e84],
    [-9.915189861827126e84, 3.890081644288032e84],
]
AHPATRON_1E85_Y = "ant ant bee ant cat ant bee bee ant ant bee bee ant ant ant ant ant bee cat ant ant".split()


def test_ahpatron_linear_kernel_overflow_refused():
    """Linear-kernel Ahpatron on rows ~1e85 (the fuzzer's run 486): K₂ overflows, and numba's Cholesky used to
    crash past its handler ('Unreachable condition reached'); the round is refused now."""
    clf = olkit.make("ahpatron", kernel="linear", B=8, U=float("inf"), lam=0.3, epsilon=0.8)
    with pytest.raises(UnlearnableExample):
        olkit.evaluate_online(clf, np.array(AHPATRON_1E85), np.array(AHPATRON_1E85_Y))


def test_ahpatron_singular_solve_refused():
    """Linear-kernel Ahpatron on rows ~1e26: K₂ + ηI is singular to machine precision (η = 5e-4 is lost next to
    1e52) and the solve raised numpy's LinAlgError from the loop; the round is refused and says why."""
    X = [
        [-1.9362816917018e26],
        [3.202432047275546e25],
        [-5.091553877844317e23],
        [-1.6884952118834912e26],
        [-4.313860318417984e25],
    ]
    clf = olkit.make("ahpatron", kernel="linear", B=4)
    with pytest.raises(UnlearnableExample, match="LinAlgError") as info:
        clf.partial_fit(np.array(X), np.array([2, 1, 1, 0, 1]))
    assert clf.n_seen_ == info.value.position


def test_decision_function_refuses_nonfinite_scores():
    X, y = _stream(50, 3)
    clf = olkit.make("pa", kernel="poly", degree=3, coef0=1.0).fit(X, y)
    Z = X[:5].copy()
    Z[3] *= 1e120
    with pytest.raises(ValueError, match="score of row 3 of X is NaN or infinite"):
        clf.decision_function(Z)


def _cli_error(tmp_path, X, y, *args):
    """stderr lines and exit code of ``python -m olkit run ARGS --data FILE`` on (X, y) written as LIBSVM."""
    path = tmp_path / "d.libsvm"
    path.write_text(
        "".join(
            f"{label:+d} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(row)) + "\n"
            for row, label in zip(X, y)
        )
    )
    out = subprocess.run(
        [sys.executable, "-m", "olkit", "run", *args, "--data", str(path), "--repeats", "1"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out.returncode, out.stderr.strip().splitlines()


def test_cli_refusal_is_one_line(tmp_path):
    X, y = _stream(40, 3)
    X[12] *= 1e200
    code, lines = _cli_error(tmp_path, X, y, "pa2")
    assert code != 0 and len(lines) == 1 and "cannot learn example 12" in lines[0], lines


def test_cli_tiny_sigma_is_one_line(tmp_path):
    X, y = _stream(20, 3)
    code, lines = _cli_error(tmp_path, X, y, "duol", "--set", "sigma=1e-160")
    assert code != 0 and len(lines) == 1 and "sigma" in lines[0], lines


# ---- the Gaussian kernel of near pairs (olkit.kernels.NEAR) ------------------------------------------------


def _copies(scale, d=5, seed=3):
    """Rows at the given scale with every row repeated (duplicates of earlier rows later in the stream)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(12, d)) * scale
    X = np.vstack([X, X[::-1], X[:4]])
    y = np.where(rng.random(X.shape[0]) > 0.5, 1, -1)
    return X, y


@pytest.mark.parametrize("scale", [835.0, 1e10, 1e100])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_gaussian_of_copies_is_one_on_every_path(scale, fmt):
    """κ(x, x') = 1 for copies of a row at any magnitude: the kernel matrix, the compiled loop (block product
    and loop tail) and decision_function (the expansion ‖x‖² + ‖z‖² − 2 x·z alone gave 1 − 1.8e-12 at norm 835
    and anything in [0, 1] at 1e10, depending on the code path)."""
    from olkit.kernels import KernelSpec, kernel_matrix

    X, y = _copies(scale)
    Z = sp.csr_matrix(X) if fmt == "csr" else X
    sigma = 8.0
    K = kernel_matrix(Z, Z, KernelSpec("gaussian", sigma))
    same = (X[:, None, :] == X[None, :, :]).all(-1)
    assert np.all(K[same] == 1.0)
    assert np.all(K[~same] == 0.0) if scale > 1e3 else np.all(K[~same] < 1.0)
    # the loop: one pass against chunks (block product against loop tail for the same pairs)
    one = olkit.evaluate_online(olkit.make("perceptron", sigma=sigma), Z, y)
    for cut in (1, 7, 13, 20):
        clf = olkit.make("perceptron", sigma=sigma)
        clf.partial_fit(Z[:cut], y[:cut], classes=[-1, 1])
        rest = olkit.evaluate_online(clf, Z[cut:], y[cut:], reset=False)
        assert np.array_equal(rest.mistake_flags, one.mistake_flags[cut:])
        assert np.array_equal(rest.scores, one.scores[cut:])
    full = olkit.make("perceptron", sigma=sigma, shuffle=False).fit(Z, y)
    ref = olkit.make("perceptron", sigma=sigma)
    ref.partial_fit(Z[:7], y[:7], classes=[-1, 1])
    ref.partial_fit(Z[7:], y[7:])
    assert np.array_equal(full.decision_function(Z), ref.decision_function(Z))


def test_gaussian_near_pair_is_accurate():
    """A near pair (‖x − z‖² ≤ NEAR (‖x‖² + ‖z‖²)) is computed from the differences: accurate to rounding,
    where the expansion loses every digit."""
    from olkit.kernels import KernelSpec, kernel_matrix

    x = np.array([[3e4, -2e4, 1e4, 5e3]])
    delta = np.array([[0.5, -1.0, 0.25, 2.0]])
    z = x + delta
    sigma = 2.0
    want = np.exp(-np.sum((z - x) ** 2) / (2 * sigma * sigma))
    for A, B in ((x, z), (sp.csr_matrix(x), sp.csr_matrix(z)), (x, sp.csr_matrix(z))):
        got = kernel_matrix(A, B, KernelSpec("gaussian", sigma))[0, 0]
        assert got == pytest.approx(want, rel=1e-12)
    # the compiled loop: z is an SV, x the row being scored (block product and loop tail)
    X = np.vstack([z, x, x])
    y = np.array([-1, 1, 1])  # round 0 is a mistake (f = 0 predicts +1): z becomes an SV with coefficient -1
    for Z in (X, sp.csr_matrix(X)):
        res = olkit.evaluate_online(olkit.make("perceptron", sigma=sigma), Z, y)
        assert -res.scores[1] == pytest.approx(want, rel=1e-12)
        clf = olkit.make("perceptron", sigma=sigma)
        clf.partial_fit(Z[:1], y[:1], classes=[-1, 1])
        assert -clf.decision_function(Z[1:2])[0] == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("kernel", [{"kernel": "linear"}, {"kernel": "poly", "degree": 1, "coef0": 0.0}])
def test_near_pair_mark_is_gaussian_only(kernel):
    """A linear or polynomial kernel value of exactly -1 (the Gaussian near-pair mark) is a value, not a mark."""
    from olkit.kernels import KernelSpec, kernel_matrix

    A, B = np.array([[1.0, 0.0], [0.0, -1.0]]), np.array([[-1.0, 0.0]])
    spec = KernelSpec(kernel["kernel"], degree=kernel.get("degree", 3), coef0=kernel.get("coef0", 1.0))
    assert np.array_equal(kernel_matrix(A, B, spec), [[-1.0], [0.0]])
    X = np.array([[-1.0, 0.0], [1.0, 0.0]])
    y = np.array([-1, 1])  # round 0: f = 0 predicts +1, a mistake: x_0 becomes an SV with coefficient -1
    res = olkit.evaluate_online(olkit.make("perceptron", **kernel), X, y)
    assert res.scores[1] == 1.0  # -1 * kappa(x_0, x_1) = -1 * -1
    one = olkit.make("perceptron", **kernel)
    one.partial_fit(X[:1], y[:1], classes=[-1, 1])
    assert one.decision_function(X[1:2])[0] == 1.0
