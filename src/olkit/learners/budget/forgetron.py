"""Forgetron, self-tuned (Dekel, Shalev-Shwartz, Singer, NIPS 2005 / SIAM J. Computing 2008; spec:
docs/algorithms/forgetron.md).

A kernel Perceptron with a budget B that forgets the oldest SV. On every m_t ≤ 0 (binary y f ≤ 0,
multiclass Γ_t ≤ 0): M ← M + 1 and x_t is added with the unit row D_t (f' = f + D_tκ(x_t,·)). If then
|S| > B, r = the oldest SV, σ = its weight (|α_r|; multiclass the row is σH_r), μ = its margin under f'
(y_r f'(x_r); multiclass ½H_r·F'(x_r)), and every coefficient is shrunk by the largest φ ∈ (0, 1] with

    Ψ(σφ, φμ) + Q ≤ 15M/32,   Ψ(λ, μ) = λ² + 2λ − 2λμ,

i.e. with a = σ² − 2σμ, b = 2σ, c = Q − 15M/32: φ = 1 if a + b + c ≤ 0, otherwise the root of
aφ² + bφ + c in (0, 1), computed as φ = −2c/(b + √(b² − 4ac)) (the same root for either sign of a, and
−c/b when a = 0, without cancellation). Then Q ← Q + Ψ(σφ, φμ) and r is removed. O(B) per round without a
second kernel row: since r is the oldest SV, f'(x_r) = F_r + r's own term, with the per-SV sums
F_i = Σ_{j added after i} (A_j·D_i) κ(x_j, x_i) kept up to date from the kernel row of each new SV (and scaled
with the coefficients); removals take the oldest first, so no SV ever leaves F_i's sum before i itself.

Diagnostics: ``removals``, ``Q``, ``M`` and ``phi_min`` (the smallest φ applied; 1 if none).

``compat`` (docs/algorithms/forgetron.md#compat-modes; details in the class docstring): "dogma" DOGMA's
``k_forgetron_st_train.m`` (binary), "lsokl" LSOKL's ``forgetron.m`` with its root choice (binary and
multiclass).

Slow reference: tests/reference/budget.py (``run_reference``); the ``compat`` modes:
tests/reference/budget_compat.py (``run_compat``).
"""

import math

import numpy as np

from ..._compile import njit_helper
from ...spec import register
from ..kernel.base import EPS
from ..kernel.gram import load_gram_row
from ..kernel.multiclass import h_dot
from ..kernel.support_set import N
from ..kernel.sv_edit import scale_flat, sv_remove, sv_scale
from ..records import rule_params
from .common import (
    D0,
    DOGMA_MISTAKES,
    BudgetLearner,
    BudgetParams,
    CompatRule,
    append_direction,
    margin_direction,
    nonpositive_margin_gate,
)

REMOVALS, WRONG_ROOT = 0, 1  # diagnostic slots
Q_SLOT, M_SLOT, PHI_MIN = 0, 1, 2  # fst slots


@njit_helper
def forgetron_update(sv, st, s, t, kself, y, f, mistake):
    B = st.prm.B
    r, c, m, cD = margin_direction(s, t, y, f)
    if m > 0.0 or kself <= EPS:
        return False
    # weight s_t: the row s_t D_t and M counts the weighted mistakes (docs/algorithms/forgetron.md#weights)
    st.fst[M_SLOT] += s.sw[t]
    j = append_direction(sv, s, t, kself, y, r, c, s.sw[t])
    _add_to_later_sums(sv, j, c)
    if sv.meta[N] <= B:
        return True
    old = sv.arrival[0]  # every other SV came later: f'(x_old) = F_old + old's own term
    if c < 0:
        sigma = abs(sv.coef[old, 0])
        mu = sv.y[old] * (sv.F[old] + sv.coef[old, 0] * sv.kself[old])
    else:
        sigma = abs(sv.hw[old])
        mu = 0.5 * sv.F[old] + sv.hw[old] * sv.kself[old]  # ½(F_old + (A_old[r] − A_old[s]) κ(x_old, x_old))
    a = sigma * sigma - 2.0 * sigma * mu
    b = 2.0 * sigma
    cc = st.fst[Q_SLOT] - 15.0 * st.fst[M_SLOT] / 32.0
    phi = 1.0
    if a + b + cc > 0.0:
        phi = -2.0 * cc / (b + math.sqrt(max(b * b - 4.0 * a * cc, 0.0)))
    if phi < 1.0:
        sv_scale(sv, phi)
        scale_flat(sv.F, sv.meta[N], phi)
        st.fst[PHI_MIN] = min(st.fst[PHI_MIN], phi)
    lam = sigma * phi
    st.fst[Q_SLOT] += lam * lam + 2.0 * lam - 2.0 * lam * phi * mu
    sv_remove(sv, old)
    st.cnt[D0 + REMOVALS] += 1
    return True


@njit_helper
def _add_to_later_sums(sv, j, c):
    """F_i += (A_j·D_i) κ(x_j, x_i) for the SVs i older than the new SV j (``sv.krow``: κ(x_j, ·)), where D_i is
    1 (binary) or H_i (multiclass; A_j·H_i = γ_j H_j·H_i)."""
    F, krow = sv.F, sv.krow
    if c < 0:
        a = sv.coef[j, 0]
        for i in range(j):
            F[i] += a * krow[i]
        return
    g, r, s, hr, hs = sv.hw[j], sv.hr[j], sv.hs[j], sv.hr, sv.hs
    for i in range(j):
        F[i] += g * h_dot(r, s, hr[i], hs[i]) * krow[i]


# ---- compat modes (docs/algorithms/forgetron.md#compat-modes) ------------------------------------------------------


@njit_helper
def _score_of_oldest(sv, old, q):
    """Σ_i A_i[q] κ(x_i, x_old) (``sv.grow`` holds κ(x_old, x_i))."""
    acc = 0.0
    for i in range(sv.meta[N]):
        acc += sv.coef[i, q] * sv.grow[i]
    return acc


@njit_helper
def forgetron_dogma_update(sv, st, s, t, kself, y, f, mistake):
    """DOGMA ``k_forgetron_st_train.m`` (binary)."""
    B = st.prm.B
    if y * f[0] > 0.0:
        return False
    st.fst[M_SLOT] += 1.0  # errTot: this round's mistake included
    append_direction(sv, s, t, kself, y, 0, -1, 1.0)
    if sv.meta[N] <= B:
        return True
    old = sv.arrival[0]
    load_gram_row(sv, old, s)
    fp = _score_of_oldest(sv, old, 0)  # f'(x_r), the new SV included
    beta = sv.coef[old, 0]
    a = beta * beta - 2.0 * beta * fp
    b = 2.0 * abs(beta)
    c = st.fst[Q_SLOT] - 15.0 / 32.0 * st.fst[M_SLOT]
    d = b * b - 4.0 * a * c
    if a > 0.0 or (a < 0.0 and d > 0.0 and (-b - math.sqrt(abs(d))) / (2.0 * a) > 1.0):
        phi = min(1.0, (-b + math.sqrt(max(d, 0.0))) / (2.0 * a))  # (d > 0 here whenever c < 0)
    elif a == 0.0:
        phi = min(1.0, -c / b) if b > 0.0 else 1.0
    else:
        phi = 1.0
    sv_scale(sv, phi)  # the new coefficient included
    fpp = _score_of_oldest(sv, old, 0)  # f''(x_r) after the scaling
    e = abs(sv.coef[old, 0])
    sgn = 1.0 if sv.coef[old, 0] > 0.0 else (-1.0 if sv.coef[old, 0] < 0.0 else 0.0)
    st.fst[Q_SLOT] += e * e + 2.0 * e - 2.0 * e * sgn * fpp
    st.fst[PHI_MIN] = min(st.fst[PHI_MIN], phi)
    sv_remove(sv, old)
    st.cnt[D0 + REMOVALS] += 1
    return True


@njit_helper
def forgetron_lsokl_update(sv, st, s, t, kself, y, f, mistake):
    """LSOKL ``binary/forgetron.m`` (update iff y f ≤ 0) and ``multiclass/forgetron.m`` (update iff ŷ ≠ y); M
    counts mistakes ŷ ≠ y; the budget is checked before the append; the code's root choice."""
    B = st.prm.B
    r, c, m, cD = margin_direction(s, t, y, f)
    if mistake:  # err_count (counted before the update)
        st.fst[M_SLOT] += 1.0
    if (c < 0 and m > 0.0) or (c >= 0 and not mistake):
        return False
    full = sv.meta[N] >= B
    append_direction(sv, s, t, kself, y, r, c, 1.0)
    if not full:
        return True
    old = sv.arrival[0]
    load_gram_row(sv, old, s)
    if c < 0:
        yr = sv.y[old]
        mu = yr * _score_of_oldest(sv, old, 0)  # y_r f'(x_r)
        delta = sv.coef[old, 0] / yr  # signed
    else:
        yr = int(sv.y[old])  # the class of the removed SV's constraint
        mu = _score_of_oldest(sv, old, yr)  # f'_{y_r}(x_r)
        delta = abs(sv.coef[old, yr])
    A = delta * delta - 2.0 * delta * mu
    Bc = 2.0 * delta
    C = st.fst[Q_SLOT] - 15.0 / 32.0 * st.fst[M_SLOT]
    if A == 0.0:
        if Bc != 0.0:
            phi = max(0.0, min(1.0, -C / Bc))
        else:
            phi = 0.0 if C > 0.0 else 1.0  # MATLAB: −C/0 = ∓Inf (NaN for C = 0, which min ignores)
    elif A + Bc + C <= 0.0:
        phi = 1.0
    elif A > 0.0:
        phi = (-Bc + math.sqrt(max(Bc * Bc - 4.0 * A * C, 0.0))) / (2.0 * A)
    else:  # the larger root (> 1: coefficients grow), the code's choice
        phi = (-Bc - math.sqrt(max(Bc * Bc - 4.0 * A * C, 0.0))) / (2.0 * A)
        st.cnt[D0 + WRONG_ROOT] += 1
    sv_scale(sv, phi)
    st.fst[Q_SLOT] += (delta * phi) ** 2 + 2.0 * delta * phi * (1.0 - phi * mu)
    st.fst[PHI_MIN] = min(st.fst[PHI_MIN], phi)
    sv_remove(sv, old)
    st.cnt[D0 + REMOVALS] += 1
    return True


@register(
    "forgetron",
    "Forgetron (self-tuned): budgeted Perceptron that shrinks all weights and forgets the "
    "oldest SV (Dekel et al. 2008)",
    data=("binary", "multiclass"),
    sources={"B": "AHP R scripts' budget (600)", "sigma": "AHP Experiments (σ = 1)"},
    position=220,
    weight="the Perceptron step s: the new row s D_t and M ← M + s (weighted mistakes)",
    weight_repeats=False,
    sweep={"small": {"B": 4}, "cases": [{"B": 2}], "grid": {"B": [2, 3, 4, 6, 8]}},
)
class Forgetron(BudgetLearner):
    """Self-tuned Forgetron (Dekel, Shalev-Shwartz, Singer 2008): a kernel Perceptron on a budget.

    Parameters
    ----------
    B : int >= 2, default 600
        Budget: at most B SVs after every round.
    kernel, sigma, degree, coef0 : the kernel (σ = 1 as in the AHP experiments).
    compat : {"none", "dogma", "lsokl"}, default "none"
        Reproduce a reference implementation (docs/algorithms/forgetron.md#compat-modes):

        * "dogma" — Orabona's DOGMA ``k_forgetron_st_train.m`` (denizyuret/dogma), binary data: a mistake is
          sign(f) ≠ y with sign(0) = 0 (f = 0 is a mistake; the update on y f ≤ 0 is as by default); M
          includes the current round; with β_r the oldest SV's signed coefficient, f′ = f + y_tκ(x_t, ·),
          a = β_r² − 2β_r f′(x_r), b = 2|β_r|, c = Q − 15M/32, d = b² − 4ac: φ = min(1, (−b + √d)/(2a)) if
          a > 0 or (a < 0, d > 0 and (−b − √|d|)/(2a) > 1); φ = min(1, −c/b) if a = 0; else φ = 1; φ scales
          every coefficient (the new one included), then Q += e² + 2e − 2e·sign(β_r)·f″(x_r) with e = φ|β_r|
          and f″ recomputed after the scaling.
        * "lsokl" — the Hoi group's LSOKL ``binary/forgetron.m`` and ``multiclass/forgetron.m``
          (jingcoco/Online-Kernel-Learning): prediction sign(0) → +1 (as by default); binary updates on
          y f ≤ 0, multiclass on ŷ ≠ y; M counts mistakes ŷ ≠ y (not updates); the budget is checked
          before the append; μ = y_r f′(x_r) and δ = α_r/y_r (binary), μ = f′_{y_r}(x_r) and δ = |A_r[y_r]|
          (multiclass); with A = δ² − 2δμ, B' = 2δ, C = Q − 15M/32: φ = max(0, min(1, −C/B')) if A = 0,
          φ = 1 if A + B' + C ≤ 0, else (−B' + √(B'² − 4AC))/(2A) for A > 0 and the code's (−B' −
          √(B'² − 4AC))/(2A) for A < 0 — the wrong root, > 1, which makes the coefficients grow (counted in
          the diagnostic ``wrong_root``); Q += (δφ)² + 2δφ(1 − φμ). A negative discriminant (possible only
          after rounds that update without a mistake) is taken as 0 where MATLAB goes complex.

    Diagnostics: ``removals``, ``Q``, ``M``, ``phi_min`` (and ``wrong_root`` under compat="lsokl").

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> clf = olkit.make("forgetron", B=50, sigma=8)
    >>> olkit.evaluate_online(clf, X, y).n_sv <= 50
    True

    References
    ----------
    Dekel, O., Shalev-Shwartz, S., Singer, Y. (2008). The Forgetron: a kernel-based perceptron on a budget.
    SIAM J. Computing 37(5).
    """

    _update = staticmethod(forgetron_update)
    _update_gate = staticmethod(nonpositive_margin_gate)
    _kernel_compat = ("none", "dogma", "lsokl")
    _compat_rules = {
        "dogma": CompatRule(forgetron_dogma_update, mistakes=DOGMA_MISTAKES, source="DOGMA k_forgetron_st_train.m"),
        "lsokl": CompatRule(
            forgetron_lsokl_update, forgetron_lsokl_update, source="LSOKL binary/forgetron.m, multiclass/forgetron.m"
        ),
    }

    def __init__(
        self,
        B=600,
        kernel="gaussian",
        sigma=1.0,
        degree=3,
        coef0=1.0,
        compat="none",
        *,
        fit_intercept=False,
        intercept_scaling=1.0,
        average=False,
        class_weight=None,
        shuffle=True,
        random_state=None,
    ):
        self.B = B
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _rule_params(self):
        return rule_params(BudgetParams, B=self.B)

    @property
    def _gram(self):  # the compat rules read the oldest SV's kernel row; the default keeps the sums F_i
        return "none" if self.compat == "none" else "cache"

    def _initial_fst(self):
        return [0.0, 0.0, 1.0]  # Q, M, smallest φ

    def _later_sums(self):
        """The sums F_i of the default rule recomputed from the SVs (numpy):
        F_i = Σ_{j added after i} (A_j·D_i) κ(x_j, x_i)."""
        sv = self.support_
        n = sv.n
        K = sv.kernel(sv.vectors(), sv.norm2[:n], self._kernel_spec().params())
        rank = np.empty(n, np.int64)
        rank[sv.arrival[:n]] = np.arange(n)
        later = rank[None, :] > rank[:, None]  # [i, j]: SV j came after SV i
        coef = sv.coef[:n]
        if self._multiclass_model():
            P = (coef[:, sv.hr[:n]] - coef[:, sv.hs[:n]]).T  # [i, j] = A_j[r_i] − A_j[s_i]
        else:
            P = np.broadcast_to(coef[:, 0], (n, n))
        return (P * K * later).sum(axis=1)

    _migrated_support_settings = ("use_gram",)
    """Support-set settings a model file may hold otherwise than a fresh learner (:mod:`olkit.persist` lets
    them differ; the arrays must still have the shapes they imply): ``_after_load`` migrates them."""

    def _after_load(self):
        """A model file written before the default rule cached F_i (its support set keeps a Gram cache and
        F = 0): compute the sums and drop the cache."""
        super()._after_load()
        sv = getattr(self, "support_", None)
        if self.compat == "none" and sv is not None and sv.use_gram:
            sv.F[: sv.n] = self._later_sums()
            sv.drop_gram()

    def diagnostics(self):
        fst = self.state_.fst
        out = {
            "removals": self._counter(REMOVALS),
            "Q": float(fst[Q_SLOT]),
            "M": int(fst[M_SLOT]),
            "phi_min": float(fst[PHI_MIN]),
        }
        if self.compat == "lsokl":
            out["wrong_root"] = self._counter(WRONG_ROOT)
        return out
