"""Forgetron, self-tuned (Dekel, Shalev-Shwartz, Singer, NIPS 2005 / SIAM J. Computing 2008; ALGORITHMS.md
D5, D13.5).

A kernel Perceptron with a budget B that forgets the oldest SV. On every m_t ≤ 0 (binary y f ≤ 0,
multiclass Γ_t ≤ 0): M ← M + 1 and x_t is added with the unit row D_t (f' = f + D_tκ(x_t,·)). If then
|S| > B, r = the oldest SV, σ = its weight (|α_r|; multiclass the row is σH_r), μ = its margin under f'
(y_r f'(x_r); multiclass ½H_r·F'(x_r)), and every coefficient is shrunk by the largest φ ∈ (0, 1] with

    Ψ(σφ, φμ) + Q ≤ 15M/32,   Ψ(λ, μ) = λ² + 2λ − 2λμ,

i.e. with a = σ² − 2σμ, b = 2σ, c = Q − 15M/32: φ = 1 if a + b + c ≤ 0, otherwise the root of
aφ² + bφ + c in (0, 1), computed as φ = −2c/(b + √(b² − 4ac)) (the same root for either sign of a, and
−c/b when a = 0, without cancellation). Then Q ← Q + Ψ(σφ, φμ) and r is removed. O(B) per round (the
margin of x_r from the SV Gram cache).

Diagnostics: ``removals``, ``Q``, ``M`` and ``phi_min`` (the smallest φ applied; 1 if none).
"""
import math

from ..._compile import njit_helper
from ...spec import register
from ..kernel.base import EPS
from ..kernel.support_set import N, load_gram_row, sv_remove, sv_scale
from .common import D0, BudgetLearner, append_direction, margin_direction

REMOVALS = 0  # diagnostic slot
Q_SLOT, M_SLOT, PHI_MIN = 0, 1, 2  # fst slots


@njit_helper
def forgetron_update(sv, st, s, t, kself, y, f, mistake):
    B = int(st.prm[0])
    r, c, m, cD = margin_direction(s, t, y, f)
    if m > 0.0 or kself <= EPS:
        return False
    st.fst[M_SLOT] += 1.0
    append_direction(sv, s, t, kself, y, r, c, 1.0)
    if sv.meta[N] <= B:
        return True
    old = sv.arrival[0]
    load_gram_row(sv, old, s)  # κ(x_r, x_i) for every SV, the new one included
    n = sv.meta[N]
    if c < 0:
        sigma = abs(sv.coef[old, 0])
        acc = 0.0
        for i in range(n):
            acc += sv.coef[i, 0] * sv.grow[i]
        mu = sv.y[old] * acc
    else:
        sigma = abs(sv.hw[old])
        ro, so = sv.hr[old], sv.hs[old]
        acc = 0.0
        for i in range(n):
            acc += (sv.coef[i, ro] - sv.coef[i, so]) * sv.grow[i]
        mu = 0.5 * acc
    a = sigma * sigma - 2.0 * sigma * mu
    b = 2.0 * sigma
    cc = st.fst[Q_SLOT] - 15.0 * st.fst[M_SLOT] / 32.0
    phi = 1.0
    if a + b + cc > 0.0:
        phi = -2.0 * cc / (b + math.sqrt(max(b * b - 4.0 * a * cc, 0.0)))
    if phi < 1.0:
        sv_scale(sv, phi)
        st.fst[PHI_MIN] = min(st.fst[PHI_MIN], phi)
    lam = sigma * phi
    st.fst[Q_SLOT] += lam * lam + 2.0 * lam - 2.0 * lam * phi * mu
    sv_remove(sv, old)
    st.cnt[D0 + REMOVALS] += 1
    return True


@register("forgetron", "Forgetron (self-tuned): budgeted Perceptron that shrinks all weights and forgets the "
                       "oldest SV (Dekel et al. 2008)", data=("binary", "multiclass"),
          sources={"B": "AHP R scripts' budget (600)", "sigma": "AHP Experiments (σ = 1)"})
class Forgetron(BudgetLearner):
    """Self-tuned Forgetron (Dekel, Shalev-Shwartz, Singer 2008): a kernel Perceptron on a budget.

    Parameters
    ----------
    B : int >= 2, default 600
        Budget: at most B SVs after every round.
    kernel, sigma, degree, coef0 : the kernel (σ = 1 as in the AHP experiments).
    compat : "none"

    Diagnostics: ``removals``, ``Q``, ``M``, ``phi_min``.

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
    _gram = "cache"

    def __init__(self, B=600, kernel="gaussian", sigma=1.0, degree=3, coef0=1.0, compat="none"):
        self.B = B
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)

    def _rule_params(self):
        return [float(self.B)]

    def _initial_fst(self):
        return [0.0, 0.0, 1.0]  # Q, M, smallest φ

    def diagnostics(self):
        fst = self.state_.fst
        return {"removals": self._counter(REMOVALS), "Q": float(fst[Q_SLOT]), "M": int(fst[M_SLOT]),
                "phi_min": float(fst[PHI_MIN])}
