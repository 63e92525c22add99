"""Projectron and Projectron++ (Orabona, Keshet, Caputo ICML 2008 / JMLR 2009; ALGORITHMS.md D3, D4,
D13.3, D13.4).

A Perceptron that adds x_t only when it is far from the span of the SVs. With K_S⁻¹ kept by the block
formula, d* = K_S⁻¹k_t gives the projection Pκ(x_t,·) = Σ_i d*_i κ(x_i,·) and its residual
δ² = κ_t − k_tᵀd* (clamped at 0). On a mistake (m_t ≤ 0, binary y f ≤ 0, multiclass Γ_t ≤ 0):

* δ ≤ η (δ² ≤ η with ``threshold_on_squared``, as in the author's DOGMA code): A ← A + d* D_tᵀ, no new SV;
* else: add x_t with the row D_t and K_S⁻¹ ← [[K_S⁻¹, 0], [0, 0]] + (1/δ²)[d*; −1][d*; −1]ᵀ.

The first SV is always added (K_S⁻¹ = 1/κ_11). Projectron++ also learns from margin errors 0 < m_t < 1
without adding SVs: ℓ = 1 − m_t, N = c_D k_tᵀd* (the squared norm of the projected direction),

* ``margin_rule="dogma"`` (default; the author's code): update iff ℓ − δ²/η > 0, τ = min(ℓ/N, 1, 2(ℓ − δ²/η)/N);
* ``margin_rule="paper"``: τ = min(ℓ/N, 1), update iff τ(2ℓ − τN − 2δ/η) ≥ 0;

then A ← A + τ d* D_tᵀ. A loss within 1e-9 (relative to the scores) of 0 is no margin error: after a
margin step onto a duplicate the margin is exactly 1 in exact arithmetic, and rounding must not decide a
step of ~1e-16 (MIRA's ``MARGIN_TIE``). Multiclass (D13.3): one shared dictionary (one K_S⁻¹, one row per SV); δ is the
per-class residual. ``B`` gives LSOKL's fixed-budget variant: once |S| = B every update projects.

Per addition O(|S|²) (d* and the rank-one update of K_S⁻¹), memory O(|S|²): the Projectrons are not
budgeted by default (the AHP experiments run them with η ∈ {0.1, 0.9} and report the SV count).
Diagnostics: ``projections``, ``additions`` and (Projectron++) ``margin_updates``.
"""
import math

from ..._compile import njit_helper
from ...params import BOOLEAN, NON_NEGATIVE, POSITIVE, Interval, Options
from ...spec import register
from ..kernel.base import EPS, MARGIN_TIE
from ..kernel.support_set import N
from .common import D0, BudgetLearner, add_along, append_direction, margin_direction

PROJECTIONS, ADDITIONS, MARGIN_UPDATES = 0, 1, 2  # diagnostic slots
DOGMA, PAPER = 0, 1
MARGIN_RULES = {"dogma": DOGMA, "paper": PAPER}


@njit_helper
def project(sv, kself):
    """d* = K_S⁻¹k_t into ``sv.grow``; returns (δ², k_tᵀd*).

    When x_t is an SV's input in the kernel's feature space (κ(x_j, x_t) = κ_t = κ_jj: equality in
    Cauchy–Schwarz), k_t is column j of K_S and exactly d* = e_j, δ² = 0: taken as such, so that a
    projection onto a duplicate cancels coefficients exactly instead of leaving ~1e-16 (an SV that exact
    arithmetic removes)."""
    n = sv.meta[N]
    kinv, k, d = sv.mats[0], sv.krow, sv.grow
    for j in range(n):
        if k[j] == kself and sv.kself[j] == kself:
            for a in range(n):
                d[a] = 0.0
            d[j] = 1.0
            return 0.0, kself
    for a in range(n):
        acc = 0.0
        for b in range(n):
            acc += kinv[a, b] * k[b]
        d[a] = acc
    kd = 0.0
    for a in range(n):
        kd += k[a] * d[a]
    return max(kself - kd, 0.0), kd


@njit_helper
def add_with_inverse(sv, s, t, kself, y, r, c, delta2, v):
    """Add x_t with the row v·D_t and extend K_S⁻¹ by the block formula (d* in ``sv.grow``)."""
    n = sv.meta[N]
    d = sv.grow
    j = append_direction(sv, s, t, kself, y, r, c, v)
    kinv = sv.mats[0]
    inv = 1.0 / delta2
    for a in range(n):
        g = d[a] * inv
        for b in range(n):
            kinv[a, b] += g * d[b]
        kinv[a, j] = -g
        kinv[j, a] = -g
    kinv[j, j] = inv


@njit_helper
def projectron_update(sv, st, s, t, kself, y, f, mistake):
    """Projectron (D3, D13.3), and Projectron++'s margin step (D4, D13.4) when prm[2] = 1."""
    eta, squared, plus, rule, B = st.prm[0], st.prm[1] > 0, st.prm[2] > 0, int(st.prm[3]), int(st.prm[4])
    if kself <= EPS:
        return False
    r, c, m, cD = margin_direction(s, t, y, f)
    n = sv.meta[N]
    if m <= 0.0:
        if n == 0:
            append_direction(sv, s, t, kself, y, r, c, 1.0)
            sv.mats[0, 0, 0] = 1.0 / kself
            st.cnt[D0 + ADDITIONS] += 1
            return True
        delta2, kd = project(sv, kself)
        small = delta2 <= eta if squared else math.sqrt(delta2) <= eta
        if small or (B > 0 and n >= B) or delta2 <= EPS * kself:
            add_along(sv, sv.grow, y, r, c, 1.0)
            st.cnt[D0 + PROJECTIONS] += 1
        else:
            add_with_inverse(sv, s, t, kself, y, r, c, delta2, 1.0)
            st.cnt[D0 + ADDITIONS] += 1
        return True
    loss = 1.0 - m
    scale = abs(f[0]) if c < 0 else abs(f[r]) + abs(f[c])
    if not plus or loss <= MARGIN_TIE * max(1.0, scale) or n == 0:
        return False  # a loss of rounding size is a tie (MIRA's rule): no step of ~1e-16
    delta2, kd = project(sv, kself)
    norm2 = cD * max(kd, 0.0)  # ‖P(D_tκ(x_t,·))‖²
    if norm2 <= EPS * kself:
        return False
    if rule == DOGMA:
        gap = loss - delta2 / eta
        if gap <= 0.0:
            return False
        tau = min(loss / norm2, 1.0, 2.0 * gap / norm2)
    else:
        tau = min(loss / norm2, 1.0)
        if tau * (2.0 * loss - tau * norm2 - 2.0 * math.sqrt(delta2) / eta) < 0.0:
            return False
    add_along(sv, sv.grow, y, r, c, tau)
    st.cnt[D0 + MARGIN_UPDATES] += 1
    return True


_DOC = """{title}

    Parameters
    ----------
    eta : float >= 0 (Projectron++: > 0), default 0.9
        Projection threshold: project when δ ≤ η (the AHP experiments select η from {{0.1, 0.9}}; 0.9 is the
        AHP authors' script).
    threshold_on_squared : bool, default False
        Test δ² ≤ η instead (the author's DOGMA code, ``k_projectron2_train.m``).{extra}
    B : int >= 1 or None, default None
        Optional hard budget (LSOKL's variant): once |S| = B, every update projects.
    kernel, sigma, degree, coef0 : the kernel (σ = 1 as in the AHP experiments).
    compat : "none"

    Diagnostics: ``projections``, ``additions``{diag}.

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> clf = olkit.make("{name}", sigma=8, eta=0.3)
    >>> res = olkit.evaluate_online(clf, X, y)
    >>> clf.diagnostics()["additions"] == res.n_sv
    True

    References
    ----------
    Orabona, F., Keshet, J., Caputo, B. (2009). Bounded kernel-based online learning. JMLR 10.
    """
_MARGIN_DOC = """
    margin_rule : {"dogma", "paper"}, default "dogma"
        The margin-error step (see the module docstring): the author's DOGMA code (``k_projectron2_train.m``)
        or the paper's acceptance test β ≥ 0."""

_SOURCES = {"eta": "AHP Experiments (η ∈ {0.1, 0.9}); AHP R script 0.9", "sigma": "AHP Experiments (σ = 1)"}


class _ProjectronBase(BudgetLearner):
    _update = staticmethod(projectron_update)
    _matrices = ("kinv",)
    _plus = False
    _parameter_constraints = {"eta": [NON_NEGATIVE], "threshold_on_squared": [BOOLEAN],
                              "B": [Interval(1, None, integer=True), None],
                              "margin_rule": [Options(tuple(MARGIN_RULES))]}

    def _rule_params(self):
        rule = MARGIN_RULES[getattr(self, "margin_rule", "dogma")]
        return [float(self.eta), float(bool(self.threshold_on_squared)), float(self._plus), float(rule),
                float(self.B or 0)]

    def _max_support(self):
        return None if self.B is None else int(self.B)

    def diagnostics(self):
        out = {"projections": self._counter(PROJECTIONS), "additions": self._counter(ADDITIONS)}
        if self._plus:
            out["margin_updates"] = self._counter(MARGIN_UPDATES)
        return out


@register("projectron", "Projectron: Perceptron that projects x_t onto the span of the SVs when its residual "
                        "is below eta (Orabona et al. 2009)", data=("binary", "multiclass"),
          tuning=(("eta", (0.1, 0.9)),), sources=_SOURCES)
class Projectron(_ProjectronBase):
    __doc__ = _DOC.format(title="Projectron (Orabona, Keshet, Caputo 2009): a bounded kernel Perceptron.",
                          extra="", diag="", name="projectron")

    def __init__(self, eta=0.9, threshold_on_squared=False, B=None, kernel="gaussian", sigma=1.0, degree=3,
                 coef0=1.0, compat="none"):
        self.eta = eta
        self.threshold_on_squared = threshold_on_squared
        self.B = B
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)


@register("projectron++", "Projectron++: Projectron that also learns from margin errors by projected steps "
                          "(Orabona et al. 2009)", data=("binary", "multiclass"),
          tuning=(("eta", (0.1, 0.9)),), sources={**_SOURCES, "margin_rule": "DOGMA k_projectron2_train.m"})
class ProjectronPP(_ProjectronBase):
    __doc__ = _DOC.format(title="Projectron++ (Orabona, Keshet, Caputo 2009): Projectron with margin updates.",
                          extra=_MARGIN_DOC, diag=", ``margin_updates``", name="projectron++")
    _plus = True
    _parameter_constraints = {"eta": [POSITIVE]}  # the margin rules divide by η

    def __init__(self, eta=0.9, threshold_on_squared=False, margin_rule="dogma", B=None, kernel="gaussian",
                 sigma=1.0, degree=3, coef0=1.0, compat="none"):
        self.eta = eta
        self.threshold_on_squared = threshold_on_squared
        self.margin_rule = margin_rule
        self.B = B
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
