"""Closed-form identities of the second-order linear learners (docs/algorithms/linear-family.md#verified-identities).

Each check reads the model before and after one round (two runs from scratch: the stream's prefix, and the
prefix plus the round) and verifies an identity that the update must satisfy, independently of how the
update is computed:

* first update from μ = 0, Σ = aI: CW and SCW-I (below its cap C) give α = φ/sqrt(vζ), i.e.
  μ' = α a y x (binary) / μ'_y = α a x, μ'_s = −α a x (multiclass, v = 2a‖x‖²); SCW-I above the cap: α = C.
* after an update (random Σ reached after a few updates, full covariance, binary): exact CW and SCW-I
  below the cap make the constraint active, y μ'·x = φ sqrt(xᵀΣ'x); SCW-II satisfies
  φ sqrt(xᵀΣ'x) = m + α(v + 1/(2C)); CW-var makes its constraint active, y μ'·x = φ xᵀΣ'x.
  α is read off the mean step: μ' − μ = α y Σx.
* inverse form: the full-covariance updates of AROW, NHERD, NAROW, CW, CW-var, SCW-I, SCW-II equal the inverse form
  Σ' = (Σ⁻¹ + c xxᵀ)⁻¹ (Sherman–Morrison) with each algorithm's c; the diagonal-covariance updates are
  Σ'_jj = Σ_jj/(1 + c Σ_jj x_j²) with the same c computed from the diagonal v.

Every identity is checked on olkit's learners and on the slow reference (tests/reference/linear.py), so the
reference is validated by the same identities.
"""

import math

import numpy as np
import pytest

from reference.linear import phi_of, run_linear_reference

BACKENDS = ("olkit", "reference")
TOL = dict(rtol=1e-9, atol=1e-9)


def run_model(backend, name, X, y, **params):
    """(coef (n_out, d), covariance) after one online pass over (X, y)."""
    if backend == "reference":
        ref = run_linear_reference(name, X, y, **params)
        return np.array(ref.coef), np.array(ref.cov)
    import olkit

    clf = olkit.make(name, **params)
    olkit.evaluate_online(clf, X, y)
    return np.array(clf.coef_, float), np.array(clf.covariance_, float)


# ---------------------------------------------------------------------------------------------------------
# first update from μ = 0, Σ = aI
# ---------------------------------------------------------------------------------------------------------
FIRST = [
    ("cw", {"eta": 0.7}),
    ("cw", {"eta": 0.9, "a": 0.5}),
    ("scw1", {"eta": 0.75, "C": 1.0}),
    ("scw1", {"eta": 0.6, "C": 4.0, "a": 0.5}),
    ("scw1", {"eta": 0.9, "C": 0.25}),
]


def first_update_stream(x, label, n_classes):
    """Zero rows carrying the other labels (a zero row never triggers CW/SCW: φ√0 − 0 = 0), then x."""
    labels = list(range(n_classes))
    others = [c for c in labels if c != label]
    X = np.vstack([np.zeros((len(others), x.size)), x[None, :]])
    y = np.array(others + [label])
    return X, y


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("covariance", ["full", "diagonal"])
@pytest.mark.parametrize("n_classes", [2, 3, 4], ids=lambda k: "binary" if k == 2 else f"{k}classes")
@pytest.mark.parametrize(
    "name,params", FIRST, ids=[f"{n}-" + "-".join(f"{k}{v}" for k, v in p.items()) for n, p in FIRST]
)
def test_first_update_alpha(name, params, n_classes, covariance, backend):
    rng = np.random.default_rng(11 + n_classes)
    phi = phi_of(params["eta"])
    zeta = 1.0 + phi * phi
    a = params.get("a", 1.0)
    C = params.get("C", math.inf)
    capped = below = 0
    for trial in range(12):
        d = 3 + trial % 5
        x = rng.normal(size=d) * (0.1, 0.3, 1.0, 2.0)[trial % 4]
        label = int(rng.integers(n_classes))
        X, y = first_update_stream(x, label, n_classes)
        coef, _ = run_model(backend, name, X, y, covariance=covariance, **params)
        v = a * float(x @ x) * (1 if n_classes == 2 else 2)  # v = xᵀΣx (multiclass: Σ_y + Σ_s)
        alpha = phi / math.sqrt(v * zeta)  # α = φ/sqrt(vζ) (cw.md)
        if alpha >= C:
            alpha = C  # SCW-I: α = min(C, …)
            capped += 1
        else:
            below += 1
        expected = np.zeros((1 if n_classes == 2 else n_classes, d))
        if n_classes == 2:
            expected[0] = alpha * a * (1.0 if label == 1 else -1.0) * x  # μ' = α y Σx
        else:
            s = min(c for c in range(n_classes) if c != label)  # all scores 0: s = smallest index ≠ y
            expected[label] = alpha * a * x
            expected[s] = -alpha * a * x
        np.testing.assert_allclose(coef, expected, **TOL, err_msg=f"trial {trial}: coef_ ≠ α y Σx")
    assert below > 0
    if name == "scw1" and params["C"] <= 1.0:
        assert capped > 0


# ---------------------------------------------------------------------------------------------------------
# Before/after pairs on random streams (binary, labels ±1)
# ---------------------------------------------------------------------------------------------------------
def update_pairs(backend, name, params, covariance, n_pairs=12, seed=0):
    """Yield (x, y, μ, Σ, μ', Σ') for rounds that update: a random prefix (4–25 rows, both labels), then a
    random x labelled against the current prediction (a mistake, so every learner's trigger fires)."""
    rng = np.random.default_rng(seed)
    for i in range(n_pairs):
        d = 3 + i % 6
        t = 4 + (i * 7) % 22
        scale = (0.5, 1.0, 2.0)[i % 3]
        Xp = rng.normal(size=(t, d)) * scale / math.sqrt(d) * 1.5
        yp = np.where(Xp @ rng.normal(size=d) + 0.3 * rng.normal(size=t) >= 0, 1, -1)
        yp[0], yp[1] = -1, 1
        mu, S = run_model(backend, name, Xp, yp, covariance=covariance, **params)
        x = rng.normal(size=d) * scale / math.sqrt(d) * 1.5
        y = -1 if float(mu[0] @ x) >= 0 else 1
        mu2, S2 = run_model(backend, name, np.vstack([Xp, x]), np.append(yp, y), covariance=covariance, **params)
        yield i, x, float(y), mu[0], S[0], mu2[0], S2[0]


def quad(S, x):
    """xᵀΣx for a full (d×d) or diagonal (d) Σ."""
    return float(x @ S @ x) if S.ndim == 2 else float(np.sum(S * x * x))


def times(S, x):
    return S @ x if S.ndim == 2 else S * x


def read_alpha(x, y, mu, S, mu2):
    """α from the mean step μ' − μ = α y Σx (and check that the step has that direction)."""
    Sx = times(S, x)
    alpha = float(y * (mu2 - mu) @ Sx / (Sx @ Sx))
    np.testing.assert_allclose(mu2, mu + alpha * y * Sx, **TOL, err_msg="μ' − μ is not a multiple of yΣx")
    return alpha


CONSTRAINT = [
    ("cw", {"eta": 0.7}),
    ("cw", {"eta": 0.9, "a": 0.5}),
    ("scw1", {"eta": 0.75, "C": 1.0}),
    ("scw1", {"eta": 0.6, "C": 4.0}),
    ("scw2", {"eta": 0.9, "C": 1.0}),
    ("scw2", {"eta": 0.6, "C": 0.25, "a": 0.5}),
    ("cw-var", {"eta": 0.7}),
    ("cw-var", {"eta": 0.9, "a": 2.0}),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "name,params", CONSTRAINT, ids=[f"{n}-" + "-".join(f"{k}{v}" for k, v in p.items()) for n, p in CONSTRAINT]
)
def test_constraint_active_after_update(name, params, backend):
    """Full covariance: the updated model satisfies the algorithm's constraint with equality
    (docs/algorithms/linear-family.md#verified-identities)."""
    phi = phi_of(params["eta"])
    active = 0
    for i, x, y, mu, S, mu2, S2 in update_pairs(backend, name, params, "full", seed=sum(map(ord, name))):
        m, v = y * float(mu @ x), quad(S, x)
        m2, v2 = y * float(mu2 @ x), quad(S2, x)
        alpha = read_alpha(x, y, mu, S, mu2)
        assert alpha > 0, f"pair {i}: no update"
        label = f"pair {i}: m={m} v={v} α={alpha} m'={m2} v'={v2}"
        if name == "scw2":
            n = v + 1.0 / (2.0 * params["C"])
            np.testing.assert_allclose(phi * math.sqrt(v2), m + alpha * n, **TOL, err_msg=label)  # φ√u = m + αn
            active += 1
        elif name == "cw-var":
            np.testing.assert_allclose(m2, phi * v2, **TOL, err_msg=label)  # m' = φ v'
            active += 1
        elif name == "scw1" and alpha >= params["C"] * (1 - 1e-12):
            np.testing.assert_allclose(alpha, params["C"], **TOL, err_msg=label)  # capped
            assert m2 <= phi * math.sqrt(v2) + 1e-9, label  # not over-shot
        else:
            np.testing.assert_allclose(m2, phi * math.sqrt(v2), **TOL, err_msg=label)  # m' = φ√v'
            active += 1
    assert active >= 3


# ---------------------------------------------------------------------------------------------------------
# full updates = inverse form (Sherman–Morrison); diagonal updates = inverse form on the diagonal
# ---------------------------------------------------------------------------------------------------------
INVERSE = [
    ("arow", {"r": 1.0}),
    ("arow", {"r": 0.5, "a": 0.5}),
    ("nherd", {"C": 1.0}),
    ("nherd", {"C": 4.0}),
    ("narow", {"b": 1.0}),
    ("narow", {"b": 2.0}),
    ("cw", {"eta": 0.7}),
    ("cw-var", {"eta": 0.7}),
    ("scw1", {"eta": 0.75, "C": 1.0}),
    ("scw2", {"eta": 0.9, "C": 1.0}),
]


def inverse_form_c(name, params, m, v, alpha):
    """Each algorithm's c in Σ'⁻¹ = Σ⁻¹ + c xxᵀ (docs/algorithms/linear-family.md#inverse-form)."""
    if name == "arow":
        return 1.0 / params["r"]  # arow.md: c = 1/r
    if name == "nherd":
        C = params["C"]
        return C * C * v + 2.0 * C  # nherd.md: c = C²v + 2C
    if name == "narow":
        b = params["b"]
        r_t = v / (b * v - 1.0)  # narow.md: r_t = v/(bv − 1)
        return 1.0 / r_t
    phi = phi_of(params["eta"])
    if name == "cw-var":
        return 2.0 * alpha * phi  # cw-var.md: c = 2αφ
    u = 0.25 * (-alpha * v * phi + math.sqrt(alpha**2 * v**2 * phi**2 + 4.0 * v)) ** 2
    return alpha * phi / math.sqrt(u)  # cw.md, scw1.md, scw2.md: c = αφ/√u


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("covariance", ["full", "diagonal"])
@pytest.mark.parametrize(
    "name,params", INVERSE, ids=[f"{n}-" + "-".join(f"{k}{v}" for k, v in p.items()) for n, p in INVERSE]
)
def test_inverse_form(name, params, covariance, backend):
    checked = 0
    for i, x, y, mu, S, mu2, S2 in update_pairs(backend, name, params, covariance, seed=17 + len(name)):
        m, v = y * float(mu @ x), quad(S, x)
        if name == "narow" and v <= 1.0 / params["b"]:
            np.testing.assert_array_equal(S2, S)  # NAROW: no update when v ≤ 1/b
            continue
        alpha = read_alpha(x, y, mu, S, mu2)
        c = inverse_form_c(name, params, m, v, alpha)
        if covariance == "full":
            expected = np.linalg.inv(np.linalg.inv(S) + c * np.outer(x, x))  # Σ' = (Σ⁻¹ + c xxᵀ)⁻¹
        else:
            expected = S / (1.0 + c * S * x * x)  # Σ'_jj = Σ_jj/(1 + cΣ_jj x_j²)
        np.testing.assert_allclose(S2, expected, **TOL, err_msg=f"pair {i}: c={c} m={m} v={v}")
        checked += 1
    assert checked >= 3
