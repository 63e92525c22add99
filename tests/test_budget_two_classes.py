"""The K = 2 correspondence of the multiclass budgeted learners (docs/algorithms/multiclass.md#budgeted-learners,
docs/algorithms/budget-family.md#invariants).

A two-class problem learned by the multiclass rule (rows A_i ∈ R², directions H_t = e_y − e_s) equals the binary
rule under the parameter maps of the learner pages' multiclass sections: with binary +1 ↦ class index 0, g := f_0 −
f_1 is the binary score, and multiclass (λ, η, U, λ_reg) ≡ binary (2λ, 2η, √2U, λ_reg/2) for the margin learners
(f_b = g), the same parameters for the scale-free Perceptron-type learners (f_b = g/2). Two-class data normally take
the binary path; the test forces the multiclass one (``_binary_as_multiclass``) and feeds it −y, so that +1 becomes
index 0 and the multiclass tie rule (smallest index) predicts +1 like sign(0) = +1. Projectron++ is not in the list:
its multiclass step is the binary rule with the unit step doubled
(docs/algorithms/projectronpp.md#multiclass-and-multi-label), not the binary rule itself.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp

import olkit

R2 = math.sqrt(2.0)
# (name, multiclass params, binary params, binary score = factor × g)
CASES = [
    ("avp", {"lam": 0.4, "epsilon": 0.7, "U": 3.0}, {"lam": 0.8, "epsilon": 0.7, "U": 3.0 * R2}, 1.0),
    (
        "ahpatron",
        {"B": 6, "lam": 0.3, "U": 2.0, "epsilon": 0.6, "eta": 0.01},
        {"B": 6, "lam": 0.6, "U": 2.0 * R2, "epsilon": 0.6, "eta": 0.01},
        1.0,
    ),
    ("projectron", {"eta": 0.4}, {"eta": 0.4}, 0.5),
    ("forgetron", {"B": 5}, {"B": 5}, 0.5),
    ("rbp", {"B": 5, "seed": 3}, {"B": 5, "seed": 3}, 0.5),
    ("bogd", {"B": 6, "eta": 0.3, "lam": 0.2, "gamma": 0.8}, {"B": 6, "eta": 0.6, "lam": 0.1, "gamma": 0.8}, 1.0),
    ("bogd++", {"B": 6, "eta": 0.3, "lam": 0.2, "gamma": 0.8}, {"B": 6, "eta": 0.6, "lam": 0.1, "gamma": 0.8}, 1.0),
    ("pomdr", {"B": 10, "B0": 3, "M": 4, "U": 3.0, "a": 0.4}, {"B": 10, "B0": 3, "M": 4, "U": 3.0 * R2, "a": 0.4}, 1.0),
]


def two_class_stream(seed, n=120, d=4):
    """Continuous features (no exact score ties after the first round), a noisy linear rule."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.5 * rng.normal(size=n) >= 0, 1.0, -1.0)
    y[0] = -1.0 if seed % 2 else 1.0
    return X, y


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("name,multi,binary,factor", CASES, ids=[c[0] for c in CASES])
def test_two_classes_as_multiclass_equal_the_binary_rule(name, multi, binary, factor, seed):
    X, y = two_class_stream(seed)
    if seed % 2:
        X = sp.csr_matrix(X)
    b = olkit.make(name, sigma=1.5, **binary)
    rb = olkit.evaluate_online(b, X, y)
    m = olkit.make(name, sigma=1.5, **multi)
    m._binary_as_multiclass = True
    rm = olkit.evaluate_online(m, X, -y)  # +1 ↦ internal −1 ↦ class index 0
    assert rm.scores.shape == (len(y), 2)
    g = rm.scores[:, 0] - rm.scores[:, 1]
    np.testing.assert_array_equal(rm.mistake_flags, rb.mistake_flags)
    np.testing.assert_allclose(np.ravel(rb.scores), factor * g, rtol=1e-9, atol=1e-9)
    assert (rm.n_sv, rm.n_updates) == (rb.n_sv, rb.n_updates)
    rows = m.support_.coef[: m.support_.n]
    # Σ_r A_i[r] = 0 (docs/algorithms/budget-family.md#invariants)
    np.testing.assert_allclose(rows.sum(axis=1), 0.0, atol=1e-12)
