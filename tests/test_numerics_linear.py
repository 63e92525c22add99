"""Numerics of the linear second-order learners (issue 9, item 1, linear family).

* CW / SCW-I / SCW-II with a diagonal covariance divided by zero on rows of ~1e6..1e29 (the square root in
  √u = ½(−αvφ + sqrt(α²v²φ² + 4v)) cancelled to 0): the streams of tests/test_properties.py now run with
  finite scores, and ``cw_inverse_constant_stable`` (the cancellation-free c = αφ/√u) matches the formula
  evaluated in 800-digit decimal arithmetic across magnitudes 1e-150..1e150;
* SCW-II's α overflowed (φ²m²v², n² beyond float64, NaN from rows of ~1e53): ``scw2_alpha_stable``;
  CW's and CW-var's α get the same scale-safe forms where their products overflow;
* negative covariance diagonals (NAROW, CW-var, SOP, NHERD, AROW; full covariance and NHERD's "drop"
  diagonal): the fuzzer's streams now keep every diagonal non-negative; the full downdate replaces a
  computed Σ_ii ≤ 0 by its exact lower bound ρΣ_ii, ρ = 1/(1 + cv);
* once the downdates have cancelled, u = Σx is kept within its Cauchy–Schwarz bound u_i² ≤ Σ_ii v (Σ and μ
  overflowed from rows of ~1e36 before); SCW-II compat="libol" keeps LIBOL's expression where it overflows;
* the held results: wherever the formula as written has not cancelled or overflowed, the compiled rules
  return it bit for bit (checked against the formula evaluated in Python on ordinary inputs).
"""

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest

import olkit
from fuzzing import checks as fuzz
from helpers import CW_1E6, CW_1E6_Y, SCW2_1E13, SCW2_1E13_Y
from olkit.base import EPS as GUARD
from olkit.learners.linear.base import phi_of
from olkit.learners.linear.cw import (
    CANCELLED,
    CWParams,
    cw_alpha,
    cw_alpha_stable,
    cw_covariance_step,
    cw_inverse_constant_stable,
    cw_step,
)
from olkit.learners.linear.cw_var import cw_var_alpha_stable, cw_var_step
from olkit.learners.linear.engine import TRIGGERED_NO_STEP, _full_cov_step
from olkit.learners.linear.nherd import NHERDParams, nherd_step
from olkit.learners.linear.scw import scw2_alpha, scw2_alpha_stable

EPS = np.finfo(float).eps
ETAS = (0.55, 0.7, 0.75, 0.9, 0.95, 0.99)
PREC = 800
"""Digits of the decimal reference: the formulas as written cancel up to ~300 digits at magnitudes 1e±150."""


def _properties_hold(name, params, X, y, cuts=(1,)):
    """tools/fuzz.py's checks (finite scores and model, non-negative covariance diagonal, counts, chunks =
    one pass) on (X, y), plus the same checked directly on one pass."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    outcome, info = fuzz.evaluate_run(name, params, X, y, list(cuts))
    assert outcome == "ok", f"{name} {params}: {outcome}: {info.get('kind')}: {info.get('message')}"
    clf = olkit.make(name, **params)
    res = olkit.evaluate_online(clf, X, y)
    assert np.all(np.isfinite(res.scores))
    cov = np.asarray(clf.covariance_, dtype=float)
    diag = cov if cov.ndim == 2 and params.get("covariance") == "diagonal" else np.diagonal(cov, axis1=-2, axis2=-1)
    assert np.all(np.isfinite(cov)) and np.all(diag >= 0.0), diag
    return res


# ---------------------------------------------------------------------------------------------------------
# The formulas as written (docs/algorithms/{cw-var,cw,nherd,scw1,scw2}.md), in float64 and in PREC-digit decimals
# ---------------------------------------------------------------------------------------------------------
def cw_alpha_formula(phi, m, v):
    phi2 = phi * phi
    psi = 1.0 + phi2 / 2.0
    zeta = 1.0 + phi2
    return max(0.0, (-m * psi + math.sqrt(max(m * m * phi2 * phi2 / 4.0 + v * phi2 * zeta, 0.0))) / (v * zeta))


def cw_step_formula(alpha, phi, v):
    """(β, c) of CW/SCW: u = ¼(−αvφ + sqrt(α²v²φ² + 4v))², β = αφ/(√u + vαφ), c = αφ/√u."""
    w = -alpha * v * phi + math.sqrt(max(alpha * alpha * v * v * (phi * phi) + 4.0 * v, 0.0))
    sqrt_u = 0.5 * abs(w)
    return alpha * phi / (sqrt_u + v * alpha * phi), alpha * phi / sqrt_u


def scw2_alpha_formula(phi, C, m, v):
    phi2 = phi * phi
    n = v + 1.0 / (2.0 * C)
    root = phi * math.sqrt(max(phi2 * m * m * v * v + 4.0 * n * v * (n + v * phi2), 0.0))
    return max(0.0, (-(2.0 * m * n + phi2 * m * v) + root) / (2.0 * (n * n + n * v * phi2)))


def cw_var_alpha_formula(phi, m, v):
    b = 1.0 + 2.0 * phi * m
    return (-b + math.sqrt(max(b * b - 8.0 * phi * (m - phi * v), 0.0))) / (4.0 * phi * v)


def _dec(*xs):
    return [Decimal(float(x)) for x in xs]


def exact_cw_alpha(phi, m, v):
    with localcontext() as ctx:
        ctx.prec = PREC
        phi, m, v = _dec(phi, m, v)
        psi, zeta = 1 + phi * phi / 2, 1 + phi * phi
        return (-m * psi + (m * m * phi**4 / 4 + v * phi * phi * zeta).sqrt()) / (v * zeta)


def exact_cw_step(alpha, phi, v):
    """(β, c) from u = ¼(−αvφ + sqrt(α²v²φ² + 4v))²."""
    with localcontext() as ctx:
        ctx.prec = PREC
        alpha, phi, v = _dec(alpha, phi, v)
        t = alpha * v * phi
        sqrt_u = ((t * t + 4 * v).sqrt() - t) / 2
        return alpha * phi / (sqrt_u + t), alpha * phi / sqrt_u


def exact_scw2_alpha(phi, C, m, v):
    with localcontext() as ctx:
        ctx.prec = PREC
        phi, C, m, v = _dec(phi, C, m, v)
        n = v + 1 / (2 * C)
        gamma = phi * (phi * phi * m * m * v * v + 4 * n * v * (n + v * phi * phi)).sqrt()
        return (-(2 * m * n + phi * phi * m * v) + gamma) / (2 * (n * n + n * v * phi * phi))


def exact_cw_var_alpha(phi, m, v):
    with localcontext() as ctx:
        ctx.prec = PREC
        phi, m, v = _dec(phi, m, v)
        b = 1 + 2 * phi * m
        return (-b + (b * b - 8 * phi * (m - phi * v)).sqrt()) / (4 * phi * v)


def _rel(approx, exact):
    return abs(Decimal(float(approx)) - exact) / abs(exact)


def _representable(exact):
    return Decimal("1e-300") < abs(exact) < Decimal("1e300")


def _margins(rng, n):
    """m/bound ratios r: very negative, ordinary, and close to the trigger's boundary r → 1."""
    r = np.concatenate([-(10.0 ** rng.uniform(0, 8, n)), rng.uniform(-1, 1, n), 1 - 10.0 ** rng.uniform(-12, -1, n)])
    return r.tolist()


# ---------------------------------------------------------------------------------------------------------
# 1. CW / SCW-I / SCW-II with a diagonal covariance: the streams that divided by zero
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("scale", [1e-3, 1.0, 10.0, 1e7, 1e13, 1e18, 1e23, 1e29])
@pytest.mark.parametrize(
    "name,params",
    [
        ("cw", {"covariance": "diagonal", "eta": 0.9}),
        ("scw1", {"covariance": "diagonal", "C": 1.0, "eta": 0.9}),
        ("scw2", {"covariance": "diagonal", "C": 0.1, "eta": 0.9}),
    ],
)
def test_cw_scw_diagonal_streams_run_finite(name, params, scale):
    _properties_hold(name, params, np.asarray(CW_1E6) * scale, CW_1E6_Y, cuts=(6,))


@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e7, 1e-13, 1e10])
@pytest.mark.parametrize(
    "name,params",
    [
        ("scw2", {"covariance": "diagonal", "C": 0.1, "eta": 0.9}),
        ("scw2", {"covariance": "full", "C": 0.1, "eta": 0.9}),
        ("cw", {"covariance": "diagonal", "eta": 0.9}),
    ],
)
def test_scw2_1e13_stream_runs_finite(name, params, scale):
    _properties_hold(name, params, np.asarray(SCW2_1E13) * scale, SCW2_1E13_Y, cuts=(6,))


def test_cw_inverse_constant_matches_the_formula_in_high_precision():
    """c = αφ/√u, √u = ½(−t + sqrt(t² + 4v)), t = αvφ: the cancellation-free form to ~1e-15 for
    v in 1e-150..1e150 and t²/(4v) from 1e-30 (no cancellation) to 1e60 (the formula as written gives 0)."""
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(1500):
        v = 10.0 ** rng.uniform(-150, 150)
        phi = phi_of(rng.choice(ETAS))
        t = 2.0 * math.sqrt(v) * 10.0 ** rng.uniform(-15, 30)  # t/(2√v) from 1e-15 to 1e30
        alpha = t / (v * phi)
        exact_beta, exact_c = exact_cw_step(alpha, phi, v)
        if not (_representable(exact_c) and _representable(exact_beta)):
            continue
        c = cw_inverse_constant_stable(alpha, phi, v)
        worst = max(worst, _rel(c, exact_c))
        # the whole step: the formula as written while it keeps ≥ ~32 bits, else the stable form
        step = cw_covariance_step(alpha, phi, v)
        a, beta, c2 = step.alpha, step.beta, step.c
        assert a == alpha and math.isfinite(beta) and c2 > 0.0
        assert _rel(beta, exact_beta) < 4 * 2**20 * EPS and _rel(c2, exact_c) < 4 * 2**20 * EPS
    assert worst < 8 * EPS, worst


def test_cw_covariance_step_is_the_formula_where_it_has_not_cancelled():
    """The held results: on ordinary inputs (t² ≤ 2¹⁹·4v) the compiled step returns the formula's bits."""
    rng = np.random.default_rng(1)
    n_checked = 0
    for _ in range(2000):
        v = 10.0 ** rng.uniform(-6, 6)
        phi = phi_of(rng.choice(ETAS))
        alpha = 10.0 ** rng.uniform(-3, 3) / math.sqrt(v)
        t = alpha * v * phi
        w = -t + math.sqrt(t * t + 4.0 * v)
        if w < CANCELLED * t:
            continue
        n_checked += 1
        step = cw_covariance_step(alpha, phi, v)
        beta, c = step.beta, step.c
        assert (beta, c) == cw_step_formula(alpha, phi, v)
    assert n_checked > 1000


def test_cw_alpha_stable_matches_the_formula_in_high_precision():
    """CW's α (also SCW-I's before its cap) in the scale-safe form: m ≤ 0 and m > 0 up to the trigger's
    boundary m → φ√v, v in 1e-150..1e150. The only error amplification left is that of the loss
    ℓ = φ√v − m itself (φ√v is rounded), so the bound grows with (φ√v + |m|)/ℓ."""
    rng = np.random.default_rng(2)
    for r in _margins(rng, 300):
        v = 10.0 ** rng.uniform(-150, 150)
        phi = phi_of(rng.choice(ETAS))
        m = r * phi * math.sqrt(v)
        exact = exact_cw_alpha(phi, m, v)
        if not _representable(exact) or exact <= 0:
            continue
        loss_condition = (phi * math.sqrt(v) + abs(m)) / float(
            Decimal(float(phi)) * Decimal(float(v)).sqrt() - Decimal(float(m))
        )
        assert _rel(cw_alpha_stable(phi, m, v), exact) < 16 * EPS * (1 + loss_condition)


def test_cw_alpha_is_the_formula_unless_it_overflows():
    rng = np.random.default_rng(3)
    for r in _margins(rng, 300):
        v = 10.0 ** rng.uniform(-12, 12)
        phi = phi_of(rng.choice(ETAS))
        m = r * phi * math.sqrt(v)
        assert cw_alpha(phi, m, v) == cw_alpha_formula(phi, m, v)
    # m²φ⁴/4 overflows: the formula gives NaN or inf, the rule its stable form
    phi, v = phi_of(0.9), 1e-10
    for m in (-1e160, -1e200, -1e300):
        assert not math.isfinite(cw_alpha_formula(phi, m, v)) or cw_alpha_formula(phi, m, v) == 0.0
        exact = exact_cw_alpha(phi, m, v)
        if _representable(exact):
            assert _rel(cw_alpha(phi, m, v), exact) < 16 * EPS


# ---------------------------------------------------------------------------------------------------------
# 2. SCW-II's α: overflowing products (NaN from rows of ~1e53) and the cancellation as m → φ√v
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("exponent", [40, 53, 55, 60, 70, 77])
@pytest.mark.parametrize("covariance", ["full", "diagonal"])
def test_scw2_large_rows_run_finite(covariance, exponent):
    """A zero row then one of 2·10^e (fuzz seed 1, run 52: NaN at 1e55, where 4nv(n + vφ²) overflows), and an
    ordinary stream with one outlier row of 10^e (run 73: 1e54)."""
    params = {"covariance": covariance, "C": 0.1, "eta": 0.75}
    _properties_hold("scw2", params, [[0.0], [-2.0 * 10.0**exponent]], [0, 1])
    rng = np.random.default_rng(exponent)
    X = rng.normal(size=(14, 8))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    X[-1] *= 10.0**exponent
    _properties_hold("scw2", {"covariance": covariance, "C": 10.0, "eta": 0.9}, X, y, cuts=(7,))


def _scw2_case(rng, r, lo, hi):
    """An SCW-II round: v = 10^U(lo, hi), φ of a paper η, C a power of two, margin m = r φ √v."""
    v = 10.0 ** rng.uniform(lo, hi)
    phi = phi_of(rng.choice(ETAS))
    return v, phi, float(2.0 ** rng.integers(-4, 5)), r * phi * math.sqrt(v)


def test_scw2_alpha_stable_matches_the_formula_in_high_precision():
    rng = np.random.default_rng(4)
    for r in _margins(rng, 300):
        v, phi, C, m = _scw2_case(rng, r, -150, 150)
        exact = exact_scw2_alpha(phi, C, m, v)
        if not _representable(exact) or exact <= 0:
            continue
        loss_condition = (phi * math.sqrt(v) + abs(m)) / float(
            Decimal(float(phi)) * Decimal(float(v)).sqrt() - Decimal(float(m))
        )
        assert _rel(scw2_alpha_stable(phi, C, m, v), exact) < 32 * EPS * (1 + loss_condition)
        # the rule: the formula where it neither overflowed nor lost more than ~20 bits, else the stable form
        assert _rel(scw2_alpha(phi, C, m, v, False), exact) < 32 * EPS * (2**20 + loss_condition)


def test_scw2_alpha_is_the_formula_where_it_has_not_cancelled():
    rng = np.random.default_rng(5)
    n_checked = 0
    for r in _margins(rng, 300):
        v, phi, C, m = _scw2_case(rng, r, -12, 12)
        n = v + 1.0 / (2.0 * C)
        mb = 2.0 * m * n + phi * phi * m * v
        num = -mb + phi * math.sqrt(phi * phi * m * m * v * v + 4.0 * n * v * (n + v * phi * phi))
        if m > 0 and num < CANCELLED * mb:
            continue
        n_checked += 1
        assert scw2_alpha(phi, C, m, v, False) == scw2_alpha_formula(phi, C, m, v)
    assert n_checked > 600


# ---------------------------------------------------------------------------------------------------------
# 3. CW-var's α and NHERD's β: scale-safe where their squares overflow
# ---------------------------------------------------------------------------------------------------------
def test_cw_var_alpha_stable_matches_the_formula_in_high_precision():
    rng = np.random.default_rng(6)
    for r in _margins(rng, 300):
        v = 10.0 ** rng.uniform(-150, 150)
        phi = phi_of(rng.choice(ETAS))
        m = r * phi * v
        exact = exact_cw_var_alpha(phi, m, v)
        if not _representable(exact) or exact <= 0:
            continue
        gap_condition = (phi * v + abs(m)) / float(Decimal(float(phi)) * Decimal(float(v)) - Decimal(float(m)))
        assert _rel(cw_var_alpha_stable(phi, m, v), exact) < 16 * EPS * (1 + gap_condition)


def test_cw_var_alpha_is_the_formula_unless_it_overflows():
    rng = np.random.default_rng(7)
    fst = np.zeros(6)
    for r in _margins(rng, 300):
        v = 10.0 ** rng.uniform(-6, 12)
        phi = phi_of(rng.choice(ETAS))
        prm = CWParams(phi, GUARD)
        m = r * phi * v
        step = cw_var_step(prm, fst, m, v, 0.0, True, 1.0)
        triggered, alpha, beta, c = step.triggered, step.alpha, step.beta, step.c
        formula = cw_var_alpha_formula(phi, m, v)
        if formula > 0.0:
            assert triggered and alpha == formula and c == 2.0 * alpha * phi and beta == c / (1.0 + c * v)
    # b = 1 + 2φm beyond 1e154: b² overflows and the formula is inf or NaN; the rule gives the exact value
    phi = phi_of(0.7)
    prm = CWParams(phi, GUARD)
    for m, v in ((-1e160, 1.0), (-1e200, 1e-6), (-1e250, 1e100)):
        assert not math.isfinite(cw_var_alpha_formula(phi, m, v))
        alpha = cw_var_step(prm, fst, m, v, 0.0, True, 1.0).alpha
        assert _rel(alpha, exact_cw_var_alpha(phi, m, v)) < 16 * EPS


def test_nherd_beta_where_the_square_overflows():
    """β = (C²v + 2C)/(1 + Cv)²: (1 + Cv)² overflowed for Cv > ~1e154 (β = 0 where β ≈ 1/v)."""
    fst = np.zeros(6)
    for C in (2.0**-4, 1.0, 2.0**4):
        for v in (1e-6, 1.0, 1e100, 1e160, 1e200, 1e300):
            beta = nherd_step(NHERDParams(C), fst, 0.5, v, 0.0, True, 1.0).beta
            with localcontext() as ctx:
                ctx.prec = 60
                Cd, vd = Decimal(C), Decimal(v)
                exact = (Cd * Cd * vd + 2 * Cd) / (1 + Cd * vd) ** 2
            assert _rel(beta, exact) < 8 * EPS, (C, v, beta)
            if math.isfinite((1.0 + C * v) * (1.0 + C * v)):  # the formula itself, bit for bit
                assert beta == (C * C * v + 2.0 * C) / ((1.0 + C * v) * (1.0 + C * v))


ROWS_1E77 = ([[3e77, 3e77], [-2e77, -2e77], [0.0, 0.0], [-2e77, 3e77], [2e77, -2e77]], [-1, 1, 1, -1, 1])
"""fuzz seed 1, run 0: rows ~1e77 on which full-covariance AROW and NAROW (compat='libol') lost positive
definiteness."""


# ---------------------------------------------------------------------------------------------------------
# 4. Negative covariance diagonals: the fuzzer's streams, and the rank-one downdate itself
# ---------------------------------------------------------------------------------------------------------
NEGATIVE_DIAGONAL = [
    # fuzz seed 0, run 956 (rows ~1e11)
    (
        "nherd",
        {"covariance": "full", "diagonal": "drop", "C": 1.0},
        [[-300000000000.0, -200000000000.0], [300000000000.0, 0.0]],
        [93, 65],
    ),
    # fuzz seed 1, run 137 (rows ~1e5)
    (
        "nherd",
        {"covariance": "full", "diagonal": "drop", "C": 1.0},
        [
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [-84041.6875, 102104.4921875, -115099.390625, -48484.04296875, -112421.3203125, 96973.046875],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [20228.576171875, -40829.3359375, 113586.28125, -31910.365234375, -213594.125, -32141.41796875],
            [-84041.6875, 102104.4921875, -115099.390625, -48484.04296875, -112421.3203125, 96973.046875],
            [-165829.703125, -31241.845703125, -8543.1044921875, -44925.046875, 109191.046875, -99215.5859375],
            [-84041.6875, 102104.4921875, -115099.390625, -48484.04296875, -112421.3203125, 96973.046875],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [-84041.6875, 102104.4921875, -115099.390625, -48484.04296875, -112421.3203125, 96973.046875],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [1105.3646240234375, 55872.86328125, 124220.84375, -1886.000732421875, -53575.57421875, 55562.7734375],
            [143477.0, -75840.5859375, -127568.78125, -3945.222412109375, -81732.875, 68376.3125],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [143477.0, -75840.5859375, -127568.78125, -3945.222412109375, -81732.875, 68376.3125],
            [-144484.9375, 77030.1015625, -44147.1640625, 77842.1484375, 80270.5, 6627.7685546875],
        ],
        [1, 1, 1, 1, 1, -1, 1, 1, 1, -1, 1, 1, -1, -1, 1, 1, 1, 1],
    ),
    # fuzz seed 1, run 24 (rows ~1e75)
    (
        "nherd",
        {"covariance": "diagonal", "diagonal": "drop", "C": 0.1},
        [
            [0.0, 1.9406939242146396e75, 0.0, 3.252770797504818e74],
            [0.0, 5.115231344831745e74, -3.3107451639560753e74, 8.413293204424105e74],
            [-4.3859914771667693e74, 0.0, 7.505727871756301e74, 1.922683793825629e75],
            [0.0, 0.0, 1.3892784711387258e75, 0.0],
            [-2.2380854978187523e74, 0.0, -2.758813315787056e75, -1.8146112320694183e75],
            [0.0, -6.496045552603808e74, 0.0, -1.1363515320673566e75],
            [0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 2.3507305832733094e74],
        ],
        [32, 32, 32, 32, 9, 9, 32, 32],
    ),
    # fuzz seed 1, run 0 (rows ~1e77)
    (
        "nherd",
        {"covariance": "full", "diagonal": "exact", "C": 0.1, "compat": "libol"},
        [[3e77, 3e77], [-2e77, -2e77], [0.0, 0.0], [-2e77, 3e77]],
        [-1, 1, 1, -1],
    ),
    # fuzz seed 1, run 0 (rows ~1e77)
    ("arow", {"covariance": "full", "r": 0.1, "compat": "libol"}, *ROWS_1E77),
    # fuzz seed 1, run 0 (rows ~1e77)
    ("narow", {"covariance": "full", "b": 0.1, "compat": "libol"}, *ROWS_1E77),
    # fuzz seed 0, run 1367 (rows ~1e39)
    (
        "cw-var",
        {"covariance": "full", "eta": 0.7, "compat": "libol"},
        [
            [-3e39, -1e39, -1e39, -2e39, 1e39, -3e39],
            [-3e39, -2e39, -2e39, 0.0, 2e39, 2e39],
            [3e39, 3e39, -1e39, 0.0, -1e39, 2e39],
            [-1e39, -1e39, -3e39, 0.0, -3e39, 3e39],
            [1e39, -2e39, 1e39, 3e39, -1e39, -1e39],
            [3e39, 1e39, 3e39, 2e39, -3e39, 2e39],
        ],
        [59, 59, 38, 38, 38, 38],
    ),
    # fuzz seed 1, run 14 (rows ~1e89)
    (
        "cw-var",
        {"covariance": "full", "eta": 0.9},
        [
            [-1.5299950814913262e87, 5.1220575426312e91, -2.2725527961955534e90],
            [-1.5789696073647631e88, 1.4589983953406544e92, 1.916287777601554e91],
            [-2.756238491648125e87, -7.651158491512833e91, 1.204070068278711e91],
        ],
        [2.0, 2.0, 1.0],
    ),
    # fuzz seed 1, run 14 (rows ~1e89)
    (
        "sop",
        {"covariance": "full", "compat": "libol"},
        [
            [-1.5299950814913262e87, 5.1220575426312e91, -2.2725527961955534e90],
            [-1.5789696073647631e88, 1.4589983953406544e92, 1.916287777601554e91],
            [-2.756238491648125e87, -7.651158491512833e91, 1.204070068278711e91],
        ],
        [2.0, 2.0, 1.0],
    ),
    # fuzz seed 1, run 68 (rows ~1e139)
    (
        "sop",
        {"covariance": "full"},
        [
            [0.0, 0.0, 0.0],
            [1.0031346222885636e139, -5.4037869210513234e138, 5.248908685530952e138],
            [-2.9774481782764374e137, 7.082172034836367e138, 7.829674191841963e138],
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0],
            [9.501867708932354e138, -1.4141833472942431e139, -9.93573340198271e138],
            [1.0521310644911834e139, -7.97156848091709e137, 3.384560798005465e138],
            [-1.6395800953624736e139, -3.069837004327177e138, -2.2477828364590363e138],
            [-1.3845767064396605e138, -4.2707566299109595e138, -9.425293297849761e138],
            [-9.284453508426938e138, 8.617938825700604e138, -5.951060810175638e137],
            [-1.0453008117627941e139, -7.75618006845514e137, 5.8029778748844366e138],
        ],
        [41, 41, 41, 52, 52, 41, 41, 52, 41, 41, 52, 52],
    ),
]
"""The shortest prefixes of the fuzzer's runs that ended with a negative covariance diagonal (tools/fuzz.py,
``sample_run(seed, run, [algorithm])``; seed 0 runs drawn over the linear family)."""


@pytest.mark.parametrize(
    "name,params,X,y", NEGATIVE_DIAGONAL, ids=[f"{c[0]}-{i}" for i, c in enumerate(NEGATIVE_DIAGONAL)]
)
def test_negative_diagonal_streams_keep_the_diagonal_non_negative(name, params, X, y):
    _properties_hold(name, params, X, y, cuts=(max(1, len(y) // 2),))


def test_full_downdate_replaces_a_cancelled_diagonal_by_its_bound():
    """Σ ← Σ − βuuᵀ with u = Σx (AROW, r = 1: β = 1/(v + 1), c = 1, ρ = 1/(1 + v)): on this Σ (one earlier
    update at ~1e8) both diagonals of the formula round below 0; the downdate puts ρΣ_ii there and leaves
    every off-diagonal entry as the formula's."""
    S = np.array([[0.9, 0.30000000000000004], [0.30000000000000004, 0.09999999999999987]])
    x = np.array([-2e8, 3e8])
    u = S @ x
    v = float(u @ x)
    beta, rho = 1.0 / (v + 1.0), 1.0 / (1.0 + v)
    formula = np.array([[S[i, j] - (beta * u[i]) * u[j] for j in range(2)] for i in range(2)])
    assert np.all(np.diag(formula) < 0.0)
    new = S.copy()
    _full_cov_step(new, beta, 1.0, u, rho)
    np.testing.assert_array_equal(np.diag(new), rho * np.diag(S))
    assert new[0, 1] == formula[0, 1] and new[1, 0] == formula[1, 0]
    # with IELLIP's κ = 1/(1 − c_t) the bound is scaled too
    kappa = 1.0 / (1.0 - 0.1)
    new = S.copy()
    _full_cov_step(new, beta, kappa, u, rho)
    np.testing.assert_array_equal(np.diag(new), kappa * (rho * np.diag(S)))


def test_full_downdate_is_the_formula_where_the_diagonal_stays_positive():
    rng = np.random.default_rng(8)
    for _ in range(200):
        d = int(rng.integers(1, 7))
        A = rng.normal(size=(d, d))
        S = A @ A.T + 0.1 * np.eye(d)
        x = rng.normal(size=d) * 10.0 ** rng.uniform(-3, 3)
        u = S @ x
        v = float(u @ x)
        r = 2.0 ** rng.integers(-4, 5)
        beta, rho, kappa = 1.0 / (v + r), r / (v + r), float(rng.choice([1.0, 1.0 / 0.9]))
        formula = np.array([[kappa * (S[i, j] - (beta * u[i]) * u[j]) for j in range(d)] for i in range(d)])
        new = S.copy()
        _full_cov_step(new, beta, kappa, u, rho)
        assert np.all(np.diag(formula) > 0.0)
        np.testing.assert_array_equal(new, formula)


@pytest.mark.parametrize(
    "name,params",
    [
        ("arow", {}),
        ("narow", {}),
        ("nherd", {}),
        ("cw-var", {}),
        ("cw", {}),
        ("scw1", {}),
        ("scw2", {}),
        ("iellip", {}),
        ("sop", {}),
        ("nherd", {"covariance": "diagonal", "diagonal": "drop"}),
    ],
)
@pytest.mark.parametrize("exponent", [10, 40, 77])
def test_repeated_and_parallel_rows_at_large_magnitudes(name, params, exponent):
    """Rows along a few directions, repeated, at 10^e: after the first update Σ has almost no variance
    left along them (cv ≫ 1), where the downdate cancels."""
    rng = np.random.default_rng(exponent)
    base = rng.integers(-3, 4, size=(4, 3)).astype(float)
    pick = rng.integers(0, 4, size=30)
    X = base[pick] * 10.0**exponent
    y = np.where(pick % 2 == 0, 1, -1)
    y[:2] = (1, -1)
    _properties_hold(name, {"covariance": "full", **params}, X, y, cuts=(11,))


# ---------------------------------------------------------------------------------------------------------
# 5. After the downdates cancelled: u = Σx within its Cauchy–Schwarz bound (Σ and μ overflowed before)
# ---------------------------------------------------------------------------------------------------------
CANCELLED_COVARIANCE = [
    # fuzz seed 0, run 2931 over the second-order learners (rows ~1e55): μ = A⁻¹v overflowed
    (
        "sop",
        {"covariance": "full", "compat": "libol"},
        [
            [0.0, -3e55, 0.0, -2e55],
            [2e55, 0.0, -3e55, 3e55],
            [0.0, 0.0, 3e55, -2e55],
            [1e55, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0],
            [0.0, -3e55, -3e55, 1e55],
            [0.0, 0.0, 0.0, 0.0],
            [3e55, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, -3e55],
        ],
        [1, 1, -1, 1, 1, 1, 1, 1, 1, 1],
    ),
    # fuzz seed 0, run 14550 (rows ~1e92): the update would have put inf into Σ (a refusal)
    (
        "narow",
        {"covariance": "full", "b": 1.0},
        [
            [0.0, 8.131524449996199e92, -7.957727636608246e90, 0.0],
            [-8.262745442623813e94, 0.0, -4.639295714508497e90, 1.2657070248582997e90],
            [-1.2688508966343675e95, 0.0, -2.1632469355653125e90, -2.3927794212830235e89],
            [0.0, 4.635964547995852e92, 0.0, 1.41896159778218e90],
            [-1.2688508966343675e95, 0.0, -2.1632469355653125e90, -2.3927794212830235e89],
            [-2.4859156354138748e94, 0.0, 0.0, 0.0],
            [0.0, 2.9844980669401693e92, 0.0, 0.0],
            [0.0, 0.0, 0.0, -3.091355216320349e89],
            [1.66897597946035e95, 0.0, 0.0, 0.0],
        ],
        ["ant", "bee", "bee", "bee", "bee", "bee", "ant", "ant", "ant"],
    ),
]


@pytest.mark.parametrize("name,params,X,y", CANCELLED_COVARIANCE, ids=[c[0] for c in CANCELLED_COVARIANCE])
def test_cancelled_covariance_streams_are_learned_finite(name, params, X, y):
    """Every round is learned (a refusal would be fuzz's "value_error"), with finite scores and model and
    non-negative diagonals."""
    _properties_hold(name, params, X, y, cuts=(4,))


def test_cauchy_schwarz_bound_leaves_a_semidefinite_sigma_alone():
    from olkit.learners.linear.engine import _bound_by_cauchy_schwarz

    rng = np.random.default_rng(9)
    for _ in range(300):
        d = int(rng.integers(1, 8))
        A = rng.normal(size=(d, d)) * 10.0 ** rng.uniform(-50, 50)
        S = A @ A.T
        if rng.random() < 0.3:  # rank-deficient: the bound is tight along the null space's complement
            S = np.outer(A[0], A[0])
        x = rng.normal(size=d) * 10.0 ** rng.uniform(-50, 50)
        if rng.random() < 0.3:  # a row along one axis: u_i² = Σ_ii v exactly
            x = np.zeros(d)
            x[rng.integers(d)] = 10.0 ** rng.uniform(-50, 50)
        u = S @ x
        v = float(u @ x)
        before = u.copy()
        _bound_by_cauchy_schwarz(S, u, v)
        np.testing.assert_array_equal(u, before)


def test_cauchy_schwarz_bound_clamps_what_a_cancelled_sigma_gives():
    """Σ as the downdates leave it at ~1e140 (fuzz seed 0, run 1397 over the 16 linear learners): diagonals ~1e-280,
    off-diagonal
    residues ~1e-16; Σx along the second axis then has u_1 ~ 1e123 against a bound of ~1e-143."""
    from olkit.learners.linear.engine import _bound_by_cauchy_schwarz

    S = np.array([[1.392e-280, -1.1e-16], [-1.1e-16, 2.427e-284]])
    x = np.array([0.0, -2.129e139])
    u = S @ x
    v = float(u @ x)
    _bound_by_cauchy_schwarz(S, u, v)
    bound = np.sqrt(np.diag(S)) * math.sqrt(v)
    assert np.all(np.abs(u) <= bound * (1 + 4 * EPS))
    assert u[0] == math.copysign(math.sqrt(S[0, 0]) * math.sqrt(v), (S @ x)[0]) and u[1] == (S @ x)[1]


# ---------------------------------------------------------------------------------------------------------
# 6. SCW-II compat="libol": LIBOL's expression (its typos kept) where it overflows
# ---------------------------------------------------------------------------------------------------------
def scw2_libol_formula(phi, C, m, v):
    phi2 = phi * phi
    n = v + 1.0 / (2.0 * C)
    root = math.sqrt(max(phi2 * phi2 * m * m * v * 2.0 + 4.0 * n * v * phi2 * (n + v * phi * 2.0), 0.0))
    return max(0.0, (-(2.0 * m * n + phi2 * m * v) + root) / (2.0 * (n * n + n * v * phi2)))


def exact_scw2_libol_alpha(phi, C, m, v):
    with localcontext() as ctx:
        ctx.prec = PREC
        phi, C, m, v = _dec(phi, C, m, v)
        n = v + 1 / (2 * C)
        root = (phi**4 * m * m * v * 2 + 4 * n * v * phi * phi * (n + v * phi * 2)).sqrt()
        mb = 2 * m * n + phi * phi * m * v
        alpha = (-mb + root) / (2 * (n * n + n * v * phi * phi))
        return alpha, float((abs(mb) + root) / abs(root - mb))  # (α, condition of its numerator)


def test_scw2_libol_alpha_where_its_expression_overflows():
    rng = np.random.default_rng(10)
    n_overflow = 0
    for r in _margins(rng, 100):
        v, phi, C, m = _scw2_case(rng, r, -12, 300)
        alpha = scw2_alpha(phi, C, m, v, True)
        formula = scw2_libol_formula(phi, C, m, v)
        if v < 1e90:
            assert alpha == formula  # LIBOL's expression, bit for bit
            continue
        exact, condition = exact_scw2_libol_alpha(phi, C, m, v)
        if not _representable(exact) or exact <= 0:
            continue
        n_overflow += not math.isfinite(formula) or formula == 0.0
        assert _rel(alpha, exact) < 64 * EPS * condition, (v, m, alpha, exact)
    assert n_overflow > 30


@pytest.mark.parametrize("name,params", [("romma", {}), ("agg-romma", {}), ("agg-romma", {"romma_reset_case": True})])
@pytest.mark.parametrize("seed", range(3))
def test_romma_tracked_norm_is_the_exact_sum_of_squares(name, params, seed):
    """ROMMA's D = ‖Δ‖²‖w‖² − m² cancels, so the engine tracks ‖W‖² of the stored weights (NORM_HI + NORM_LO,
    updated in O(nnz) per step by error-free sums of fma-exact squares, engine._sum2_square). After long sparse
    streams whose rows span 1e-8..1e8, with repeated features, it equals Σ W_j² computed exactly in rationals to
    1e-20 relative — far below the last bit of the float64 ‖w‖² ROMMA uses."""
    from fractions import Fraction

    import scipy.sparse as sp

    from olkit.learners.linear.engine import NORM_HI, NORM_LO

    rng = np.random.default_rng(seed)
    n, d = 1500, 400
    X = sp.random(n, d, density=0.05, random_state=seed, format="csr")
    X.data = rng.normal(size=X.data.size) * 10.0 ** rng.integers(-8, 9, size=X.data.size)
    y = np.where(rng.random(n) < 0.5, 1, -1)
    clf = olkit.make(name, kernel="linear", **params).fit(X, y)
    W, fst = clf.model_.W, clf.model_.state.fst
    exact = sum((Fraction(float(w)) ** 2 for w in W.ravel()), Fraction(0))
    tracked = Fraction(float(fst[NORM_HI])) + Fraction(float(fst[NORM_LO]))
    assert exact > 0
    assert abs(tracked - exact) <= Fraction(1, 10**20) * exact


def test_cw_steps_on_a_tiny_diagonal_variance_and_refuses_an_unrepresentable_step():
    """cw.md#degenerate-rounds: with a diagonal Σ (v_floor = 0) CW and CW-var step on every v > 0, and the step
    αv keeps the size of the margin however small v is; with a full Σ (v_floor = GUARD = 1e-12) v ≤ 1e-12 takes no step;
    near underflow, where α or c overflow float64, the round triggers without a step (no inf or NaN)."""
    fst = np.zeros(6)
    phi = phi_of(0.7)
    for step_rule in (cw_step, cw_var_step):
        for v in (1e-13, 1e-40, 1e-100):
            m = -0.5  # a mistake by half a unit on a direction with almost no variance left
            diagonal = step_rule(CWParams(phi, 0.0), fst, m, v, 0.0, True, 1.0)
            assert diagonal.triggered and diagonal.alpha > 0.0
            assert 0.1 < diagonal.alpha * v < 10.0  # the move of the margin, αv, stays O(|m|)
            assert all(math.isfinite(z) for z in diagonal)
            full = step_rule(CWParams(phi, GUARD), fst, m, v, 0.0, True, 1.0)
            assert full == TRIGGERED_NO_STEP
        for v in (1e-310, 5e-324):  # α ≈ |m|/v or c ≈ α² beyond float64
            step = step_rule(CWParams(phi, 0.0), fst, -0.5, v, 0.0, True, 1.0)
            assert step == TRIGGERED_NO_STEP or all(math.isfinite(z) for z in step)
        assert step_rule(CWParams(phi, 0.0), fst, -0.5, 0.0, 0.0, True, 1.0) == TRIGGERED_NO_STEP
