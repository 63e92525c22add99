"""Projectron and Projectron++ (Orabona, Keshet, Caputo ICML 2008 / JMLR 2009; spec:
docs/algorithms/projectron.md and docs/algorithms/projectronpp.md).

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
step of ~1e-16 (MIRA's ``MARGIN_TIE``). Multiclass (docs/algorithms/projectron.md#multiclass-and-multi-label): one
shared dictionary (one K_S⁻¹, one row per SV); δ is the
per-class residual. ``B`` gives LSOKL's fixed-budget variant: once |S| = B every update projects.

Per addition O(|S|²) (d* and the rank-one update of K_S⁻¹), memory O(|S|²): the Projectrons are not
budgeted by default (the AHP experiments run them with η ∈ {0.1, 0.9} and report the SV count).
Diagnostics: ``projections``, ``additions`` and (Projectron++) ``margin_updates``.

``compat`` (docs/algorithms/projectron.md#compat-modes, docs/algorithms/projectronpp.md#compat-modes; details in
the class docstrings): "ahp-r" the AHP R scripts
``Projectron.R`` / ``Projectron++.R`` (binary), "dogma" DOGMA's ``k_projectron_train.m`` /
``k_projectron2_train.m`` / ``k_projectron2_multi_train.m`` (per-class dictionaries on multiclass data),
"lsokl" LSOKL's fixed-budget ``projectron.m`` / ``proplus.m`` (binary and multiclass).

Slow reference: tests/reference/budget.py (``run_reference``); the ``compat`` modes:
tests/reference/budget_compat.py (``run_compat``).
"""

import math
from typing import NamedTuple

import numpy as np

from ..._compile import njit_helper
from ...params import BOOLEAN, NON_NEGATIVE, POSITIVE, Interval, Options
from ...spec import register
from ..kernel.base import EPS, MARGIN_TIE
from ..kernel.engine import relevant_pair
from ..kernel.gram import sync_gram
from ..kernel.support_set import N
from ..kernel.sv_edit import sv_append
from ..records import rule_params
from .common import (
    D0,
    DOGMA_MISTAKES,
    BudgetLearner,
    CompatRule,
    add_along,
    append_direction,
    margin_direction,
)

PROJECTIONS, ADDITIONS, MARGIN_UPDATES = 0, 1, 2  # diagnostic slots
DOGMA, PAPER = 0, 1
MARGIN_RULES = {"dogma": DOGMA, "paper": PAPER}


class ProjectronParams(NamedTuple):
    """Parameters of Projectron and Projectron++, resolved."""

    eta: float  # threshold on the projection residual
    squared: bool  # threshold on the squared residual
    plus: bool  # Projectron++: also learn from margin errors
    margin_rule: int  # the form of the margin step (MARGIN_RULES)
    B: int  # budget (0: none)
    U: float  # compat="lsokl": proplus.m's U = ¼√((B+1)/ln(B+1)); 0 otherwise


@njit_helper
def project(sv, kself):
    """d* = K_S⁻¹k_t into ``sv.grow``; returns (δ², k_tᵀd*).

    When x_t is an SV's input in the kernel's feature space (κ(x_j, x_t) = κ_t = κ_jj: equality in
    Cauchy–Schwarz), k_t is column j of K_S and exactly d* = e_j, δ² = 0: taken as such, so that a
    projection onto a duplicate cancels coefficients exactly instead of leaving ~1e-16 (an SV that exact
    arithmetic removes)."""
    kd = solve_dstar(sv, kself, True)
    return max(kself - kd, 0.0), kd


@njit_helper
def solve_dstar(sv, kself, duplicates):
    """d* = M k_t into ``sv.grow`` with M = ``sv.mats[0]`` (the kept K⁻¹); returns k_tᵀd*. With
    ``duplicates``, a duplicate of SV j (κ(x_j, x_t) = κ_t = κ_jj) gives d* = e_j and κ_t exactly."""
    n = sv.meta[N]
    kinv, k, d = sv.mats[0], sv.krow, sv.grow
    if duplicates:
        for j in range(n):
            if k[j] == kself and sv.kself[j] == kself:
                for a in range(n):
                    d[a] = 0.0
                d[j] = 1.0
                return kself
    for a in range(n):
        acc = 0.0
        for b in range(n):
            acc += kinv[a, b] * k[b]
        d[a] = acc
    kd = 0.0
    for a in range(n):
        kd += k[a] * d[a]
    return kd


@njit_helper
def extend_inverse(M, d, j, delta2):
    """K⁻¹ of the SVs 0..j−1 (in M) extended to the new SV j: [[K⁻¹, 0], [0, 0]] + (1/δ²)[d*; −1][d*; −1]ᵀ
    (rows with d*_a = 0 are unchanged; M's row and column j start at 0)."""
    inv = 1.0 / delta2
    for a in range(j):
        if d[a] != 0.0:
            g = d[a] * inv
            for b in range(j):
                M[a, b] += g * d[b]
            M[a, j] = -g
            M[j, a] = -g
    M[j, j] = inv


@njit_helper
def add_with_inverse(sv, s, t, kself, y, r, c, delta2, v):
    """Add x_t with the row v·D_t and extend K_S⁻¹ by the block formula (d* in ``sv.grow``)."""
    j = append_direction(sv, s, t, kself, y, r, c, v)
    extend_inverse(sv.mats[0], sv.grow, j, delta2)


@njit_helper
def projectron_update(sv, st, s, t, kself, y, f, mistake):
    """Projectron, and Projectron++'s margin step when ``prm.plus``."""
    eta, squared, plus, rule, B = st.prm.eta, st.prm.squared, st.prm.plus, st.prm.margin_rule, st.prm.B
    if kself <= EPS:
        return False
    r, c, m, cD = margin_direction(s, t, y, f)
    n = sv.meta[N]
    wt = s.sw[t]  # the Perceptron step s_t; the margin step's cap 1 → s_t (docs/algorithms/projectron.md#weights)
    if m <= 0.0:
        if n == 0:
            append_direction(sv, s, t, kself, y, r, c, wt)
            sv.mats[0, 0, 0] = 1.0 / kself
            st.cnt[D0 + ADDITIONS] += 1
            return True
        delta2, kd = project(sv, kself)
        small = delta2 <= eta if squared else math.sqrt(delta2) <= eta
        if small or (B > 0 and n >= B) or delta2 <= EPS * kself:
            add_along(sv, sv.grow, y, r, c, wt)
            st.cnt[D0 + PROJECTIONS] += 1
        else:
            add_with_inverse(sv, s, t, kself, y, r, c, delta2, wt)
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
        tau = min(loss / norm2, wt, 2.0 * gap / norm2)
    else:
        tau = min(loss / norm2, wt)
        if tau * (2.0 * loss - tau * norm2 - 2.0 * math.sqrt(delta2) / eta) < 0.0:
            return False
    add_along(sv, sv.grow, y, r, c, tau)
    st.cnt[D0 + MARGIN_UPDATES] += 1
    return True


# ---- compat modes (docs/algorithms/projectron.md#compat-modes) -----------------------------------------------------


@njit_helper
def project_unit_diagonal(sv, kself):
    """d* = K̃⁻¹k_t into ``sv.grow`` for the AHP R scripts, whose K̃ is the SV Gram with the unit diagonal they
    assume; returns k_tᵀd*. A duplicate of SV j (κ(x_j, x_t) = κ_t = κ_jj = 1) gives d* = e_j exactly."""
    return solve_dstar(sv, kself, kself == 1.0)


@njit_helper
def projectron_ahp_r_update(sv, st, s, t, kself, y, f, mistake):
    """``Projectron.R`` (not ``prm.plus``: on mistakes ŷ ≠ y, ŷ = −1 iff f < 0) and the AHP simplified
    ``Projectron++.R`` (``prm.plus``: on every y f < 1), binary."""
    eta, plus = st.prm.eta, st.prm.plus
    if sv.meta[N] == 0:  # round 1: x_1 stored with y_1, K⁻¹ = 1 (κ taken as 1; counted a mistake)
        append_direction(sv, s, t, kself, y, 0, -1, 1.0)
        sv.mats[0, 0, 0] = 1.0
        st.cnt[D0 + ADDITIONS] += 1
        return True
    if plus:
        m = y * f[0]
        if m >= 1.0 or (m > 0.0 and 1.0 - m <= MARGIN_TIE * max(1.0, abs(f[0]))):
            return False
    elif not mistake:
        return False
    inter = 1.0 - project_unit_diagonal(sv, kself)  # 1 − kᵀd*
    if abs(inter) < 1e-10:
        inter = 0.0
    if math.sqrt(max(inter, 0.0)) <= eta:  # R: sqrt of a negative 1 − kᵀd* stops the script; taken as 0
        add_along(sv, sv.grow, y, 0, -1, 1.0)
        st.cnt[D0 + PROJECTIONS] += 1
    else:
        add_with_inverse(sv, s, t, kself, y, 0, -1, inter, 1.0)  # divides by the unclamped 1 − kᵀd*
        st.cnt[D0 + ADDITIONS] += 1
    return True


@njit_helper
def projectron_dogma_update(sv, st, s, t, kself, y, f, mistake):
    """DOGMA ``k_projectron_train.m`` (not ``prm.plus``) and ``k_projectron2_train.m`` (``prm.plus``), binary."""
    eta, plus = st.prm.eta, st.prm.plus
    m = y * f[0]
    n = sv.meta[N]
    if m <= 0.0:
        if n == 0:  # K⁻¹ = 0: d* = 0, δ² = κ_t
            if kself <= eta:
                st.cnt[D0 + PROJECTIONS] += 1  # a projection onto the empty span: nothing changes
                return True
            append_direction(sv, s, t, kself, y, 0, -1, 1.0)
            sv.mats[0, 0, 0] = 1.0 / kself
            st.cnt[D0 + ADDITIONS] += 1
            return True
        delta2, kd = project(sv, kself)
        if delta2 <= eta:
            add_along(sv, sv.grow, y, 0, -1, 1.0)
            st.cnt[D0 + PROJECTIONS] += 1
        else:
            add_with_inverse(sv, s, t, kself, y, 0, -1, delta2, 1.0)
            st.cnt[D0 + ADDITIONS] += 1
        return True
    loss = 1.0 - m
    if not plus or loss <= MARGIN_TIE * max(1.0, abs(f[0])):  # m ≥ 1, or a tie of rounding size
        return False
    delta2, kd = project(sv, kself)
    norm2 = max(kself - delta2, 0.0)
    gap = loss - delta2 / eta
    if gap <= 0.0:
        return False
    tau = min(min(loss / norm2, 1.0), 2.0 * gap / norm2) if norm2 > 0.0 else 1.0  # MATLAB: x/0 = Inf
    add_along(sv, sv.grow, y, 0, -1, tau)
    st.cnt[D0 + MARGIN_UPDATES] += 1
    return True


DOGMA_EPS = 2.220446049250313e-16
"""MATLAB's ``eps`` (2⁻⁵²), DOGMA's "this residual is zero" test."""


@njit_helper
def _class_projection(sv, q, kself, d):
    """DOGMA's per-class dictionaries (the SVs that received ±1 in class q; their K_q⁻¹ is ``sv.mats[q]``, zero
    outside them, a member's diagonal entry > 0): d = K_q⁻¹k_t over the members (0 elsewhere). Returns
    (δ_q², the dictionary is not empty); an empty dictionary gives δ_q² = κ_t. A duplicate of member j gives
    d = e_j, δ_q² = 0 exactly."""
    n = sv.meta[N]
    M, k = sv.mats[q], sv.krow
    members = 0
    for j in range(n):
        d[j] = 0.0
        if M[j, j] != 0.0:
            members += 1
    if members == 0:
        return kself, False
    for j in range(n):
        if M[j, j] != 0.0 and k[j] == kself and sv.kself[j] == kself:
            d[j] = 1.0
            return 0.0, True
    kd = 0.0
    for a in range(n):
        if M[a, a] != 0.0:
            acc = 0.0
            for b in range(n):
                acc += M[a, b] * k[b]
            d[a] = acc
            kd += k[a] * acc
    return max(kself - kd, 0.0), True


@njit_helper
def _move_class(sv, q, d, v):
    """A[i, q] += v d_i over class q's dictionary (d is 0 elsewhere)."""
    for i in range(sv.meta[N]):
        if d[i] != 0.0:
            sv.coef[i, q] += v * d[i]
            sv.hr[i] = -1


@njit_helper
def _extend_class(sv, q, j, d, delta2, kself, had):
    """Add the new SV j to class q's dictionary: K_q⁻¹ by the block formula, or 1/κ_t for the first member."""
    if not had:
        sv.mats[q, j, j] = 1.0 / kself
        return
    extend_inverse(sv.mats[q], d, j, delta2)


@njit_helper
def projectron_dogma_multi_update(sv, st, s, t, kself, y, f, mistake):
    """DOGMA ``k_projectron2_multi_train.m`` (compat="dogma" on multiclass data): per-class dictionaries; the
    mistake branch (Γ_t ≤ 0, DOGMA's mistake) and, for Projectron++ (``prm.plus``), the margin branch."""
    eta, plus = st.prm.eta, st.prm.plus
    r, c = relevant_pair(s.Y, t, f)
    m = f[r] - f[c]
    if m >= 1.0:
        return False
    if not mistake and (not plus or 1.0 - m <= MARGIN_TIE * max(1.0, abs(f[r]) + abs(f[c]))):
        return False
    n = sv.meta[N]
    dy = np.empty(n + 1)
    ds = np.empty(n + 1)
    dl_y, has_y = _class_projection(sv, r, kself, dy)
    dl_s, has_s = _class_projection(sv, c, kself, ds)
    if not mistake:  # margin error 0 < Γ < 1: one step along both projections
        loss = 1.0 - m
        delta = dl_y + dl_s
        gap = loss - delta / (2.0 * eta)  # η bounds each single projection
        if gap <= 0.0:
            return False
        den = 2.0 * kself - delta
        tau = min(min(loss / den, 1.0), 2.0 * gap / den) if den != 0.0 else 1.0
        _move_class(sv, r, dy, tau)
        _move_class(sv, c, ds, -tau)
        st.cnt[D0 + MARGIN_UPDATES] += 1
        return True
    small = dl_y <= eta and dl_s <= eta
    add_y = not (small or dl_y < DOGMA_EPS)
    add_s = not (small or dl_s < DOGMA_EPS)
    if not add_y:
        _move_class(sv, r, dy, 1.0)
    if not add_s:
        _move_class(sv, c, ds, -1.0)
    if dl_y > eta or dl_s > eta:  # x_t is stored, with ±1 in the classes that did not project
        j = sv_append(sv, s, t, kself, float(r))
        if add_y:
            sv.coef[j, r] = 1.0
            _extend_class(sv, r, j, dy, dl_y, kself, has_y)
        if add_s:
            sv.coef[j, c] = -1.0
            _extend_class(sv, c, j, ds, dl_s, kself, has_s)
        st.cnt[D0 + ADDITIONS] += 1
    else:
        st.cnt[D0 + PROJECTIONS] += 1
    return True


@njit_helper
def projectron_lsokl_update(sv, st, s, t, kself, y, f, mistake):
    """LSOKL ``projectron.m`` / ``proplus.m`` (``prm.plus``), binary and multiclass (``multiclass/*.m``): a
    fixed budget ``prm.B``; updates on mistakes ŷ ≠ y; K⁻¹ by the block formula with the first SV's
    κ(x, x) (fst[0]) as every κ_t. A first SV with κ(x, x) = 0 (the zero function, where LSOKL divides by
    0 and its model becomes NaN) is not added: it would change no score."""
    plus, B, U = st.prm.plus, st.prm.B, st.prm.U
    r, c, m, cD = margin_direction(s, t, y, f)
    n = sv.meta[N]
    if mistake:
        if n == 0:
            if kself <= EPS:  # the zero function (e.g. a zero row, linear kernel): LSOKL divides by κ_t = 0
                return False
            append_direction(sv, s, t, kself, y, r, c, 1.0)
            st.fst[0] = kself  # Kid
            sv.mats[0, 0, 0] = 1.0 / kself
            st.cnt[D0 + ADDITIONS] += 1
            return True
        kid = st.fst[0]
        _, kd = project(sv, kself)
        delta2 = max(kid - kd, 0.0)  # LSOKL takes the square root of a negative value here: taken as 0
        if n >= B or delta2 <= EPS * kid:  # budget full; or δ = 0, where LSOKL divides by 0
            add_along(sv, sv.grow, y, r, c, 1.0)
            st.cnt[D0 + PROJECTIONS] += 1
        else:
            if c < 0:
                q = math.sqrt(delta2)
                delta2 = q * q  # projectron.m divides by norm_delta_t^2
            add_with_inverse(sv, s, t, kself, y, r, c, delta2, 1.0)
            st.cnt[D0 + ADDITIONS] += 1
        return True
    if not plus or n == 0:
        return False
    loss = 1.0 - m
    scale = abs(f[0]) if c < 0 else abs(f[r]) + abs(f[c])
    if loss <= MARGIN_TIE * max(1.0, scale) or (c < 0 and loss >= 1.0):
        return False  # binary: 0 < ℓ < 1; multiclass: ℓ > 0 (ŷ = y)
    _, kd = project(sv, kself)
    delta = math.sqrt(max(st.fst[0] - kd, 0.0))
    d = sv.grow
    if c < 0:  # proplus.m: P = d*ᵀK_S d* with K_S recomputed
        sync_gram(sv)
        P = 0.0
        for a in range(n):
            acc = 0.0
            for b in range(n):
                acc += sv.gram[a, b] * d[b]
            P += d[a] * acc
    else:  # multiclass/proplus.m: P = k_tᵀK⁻¹k_t
        P = kd
    tau = min(loss / P, 1.0) if P != 0.0 else 1.0
    if tau * (2.0 * loss - tau * P - 2.0 * U * delta) >= 0.0:
        add_along(sv, d, y, r, c, tau)
        st.cnt[D0 + MARGIN_UPDATES] += 1
        return True
    return False


_COMPAT_RULES = {
    "ahp-r": CompatRule(
        projectron_ahp_r_update, first_round_mistake=True, source="the AHP R scripts Projectron.R / Projectron++.R"
    ),
    "dogma": CompatRule(
        projectron_dogma_update,
        projectron_dogma_multi_update,
        mistakes=DOGMA_MISTAKES,
        source="DOGMA k_projectron_train.m / k_projectron2_train.m / k_projectron2_multi_train.m",
    ),
    "lsokl": CompatRule(projectron_lsokl_update, projectron_lsokl_update, source="LSOKL projectron.m / proplus.m"),
}


def _compat_doc(plus):
    """The ``compat`` entry of the parameter list (docs/algorithms/projectron.md#compat-modes,
    docs/algorithms/projectronpp.md#compat-modes), wrapped."""
    import textwrap

    r = (
        "the AHP authors' R script ``{}`` (alg4ml/Ahpatron), binary data: round 1 always counts as a mistake "
        "and stores x_1 (y_1, K⁻¹ = 1); {}; κ(x, x) is taken as 1 (δ² = 1 − kᵀd*, unit diagonal in K⁻¹); "
        "δ = sqrt(1 − kᵀd*) with |1 − kᵀd*| < 1e-10 → δ = 0; project iff δ ≤ η, else add x_t and divide the "
        "K⁻¹ update by the unclamped 1 − kᵀd*. Where the script would stop on the square root of a negative "
        "1 − kᵀd* < −1e-10, olkit takes δ = 0. Kernel values as olkit computes them (the script's direct "
        "differences differ in the last bits; see ahpatron's compat)."
    ).format(
        "Projectron++.R" if plus else "Projectron.R",
        "the AHP simplification of Projectron++: the add-or-project step of Projectron.R on every margin error "
        "y f < 1, no τ step and no β test"
        if plus
        else "updates only on mistakes ŷ ≠ y (ŷ = −1 iff f < 0)",
    )
    d = (
        "Orabona's DOGMA ``{}`` (denizyuret/dogma), binary data: a mistake is sign(f) ≠ y with sign(0) = 0 "
        "(f = 0 is a mistake and triggers the update); the first SV is added only if κ_t > η (K⁻¹ starts at "
        "0, so δ² = κ_t), with K⁻¹ = 1/κ_t; δ² = max(κ_t − kᵀd*, 0), project iff δ² ≤ η (non-strict; "
        "``threshold_on_squared`` is implied)."
    ).format("k_projectron2_train.m" if plus else "k_projectron_train.m")
    if plus:
        d += (
            " Margin branch only for 0 < y f < 1: ℓ = 1 − y f, N = max(κ_t − δ², 0); update iff ℓ − δ²/η > 0 "
            "(strict) with τ = min(ℓ/N, 1, 2(ℓ − δ²/η)/N) (N = 0: τ = 1, MATLAB's x/0 = Inf)."
        )
    d += (
        " Multiclass data (``k_projectron2_multi_train.m``{}): a mistake is Γ_t ≤ 0 (a tie for the top "
        "is a mistake); class r keeps its own dictionary S_r (the SVs that received ±1 in class r) and K_r⁻¹, "
        "and δ_y², δ_s², d*_y, d*_s are taken against S_y, S_s (an empty one: δ² = κ_t). On a mistake, if "
        "δ_y² ≤ η and δ_s² ≤ η: A[S_y, y] += d*_y, A[S_s, s] −= d*_s (no SV); otherwise x_t is stored with "
        "+1 at y_t (unless δ_y² < 2⁻⁵², then class y projects instead) and −1 at s_t (the same with δ_s²), "
        "and the K_r⁻¹ of each class that received ±1 grows by the block formula."
    ).format(" and its margin branch" if plus else "")
    if plus:
        d += (
            " Margin errors 0 < Γ_t < 1: ℓ = 1 − Γ_t, δ² = δ_y² + δ_s²; update iff ℓ − δ²/(2η) > 0 with "
            "τ = min(ℓ/(2κ_t − δ²), 1, 2(ℓ − δ²/(2η))/(2κ_t − δ²)): A[S_y, y] += τd*_y, A[S_s, s] −= τd*_s."
        )
    d += " Memory: one |S| × |S| matrix per class."
    lk = (
        "the Hoi group's LSOKL ``{}`` (jingcoco/Online-Kernel-Learning ``binary/`` and ``multiclass/``), "
        "binary and multiclass: a fixed budget B (B=None: the experiment scripts' 50 on binary, 200 on "
        "multiclass data); prediction sign(0) → +1 (as by default); updates on mistakes ŷ ≠ y only (the "
        "first SV too: f = 0 with y = +1 stores nothing); add x_t while |S| < B, then always project (η is "
        "not used); κ(x, x) of the first SV is used as every κ_t (δ² = κ_1 − kᵀd*, clamped at 0 where LSOKL "
        "takes the root of a negative number; where δ² = 0 LSOKL divides by 0 and olkit projects "
        "instead)."
    ).format("proplus.m" if plus else "projectron.m")
    if plus:
        lk += (
            " Margin branch (ŷ = y; binary 0 < ℓ < 1, multiclass ℓ > 0): τ = min(ℓ/P, 1), update iff "
            "τ(2ℓ − τP − 2U'δ) ≥ 0 with U' = ¼√((B+1)/ln(B+1)), δ = √(κ_1 − kᵀd*), P = d*ᵀK_S d* (binary, "
            "K_S recomputed) or kᵀd* (multiclass); no SV is added."
        )
    out = [
        "",
        '    compat : {"none", "ahp-r", "dogma", "lsokl"}, default "none"',
        f"        Reproduce a reference implementation (docs/algorithms/{'projectronpp' if plus else 'projectron'}.md"
        "#compat-modes; η, B and the rule are then the reference's):",
        "",
    ]
    for value, text in (("ahp-r", r), ("dogma", d), ("lsokl", lk)):
        out.append(
            textwrap.fill(
                f'"{value}" — {text}',
                110,
                initial_indent="        * ",
                subsequent_indent="          ",
                break_on_hyphens=False,
            )
        )
    out += ["", "        Margin ties: as by default, a loss within 1e-9 (relative) of 0 is no margin error."]
    return "\n".join(out)


_DOC = """{title}

    Parameters
    ----------
    eta : float >= 0 (Projectron++: > 0), default 0.9
        Projection threshold: project when δ ≤ η (the AHP experiments select η from {{0.1, 0.9}}; 0.9 is the
        AHP authors' script).
    threshold_on_squared : bool, default False
        Test δ² ≤ η instead (the author's DOGMA code, ``k_projectron2_train.m``).{extra}
    B : int >= 1 or None, default None
        Optional hard budget (LSOKL's variant): once |S| = B, every update projects. Only with compat="none"
        or "lsokl".
    kernel, sigma, degree, coef0 : the kernel (σ = 1 as in the AHP experiments).{compat}

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
    _plus = False
    _parameter_constraints = {
        "eta": [NON_NEGATIVE],
        "threshold_on_squared": [BOOLEAN],
        "B": [Interval(1, None, integer=True), None],
        "margin_rule": [Options(tuple(MARGIN_RULES))],
    }
    _kernel_compat = ("none", "ahp-r", "dogma", "lsokl")
    _compat_rules = _COMPAT_RULES

    @property
    def _matrices(self):
        """K_S⁻¹; under compat="dogma" on multiclass data one K_r⁻¹ per class (DOGMA's per-class dictionaries)."""
        if self.compat == "dogma" and self._multiclass_model():
            return tuple(f"kinv_{q}" for q in range(self._n_outputs()))
        return ("kinv",)

    @property
    def _gram(self):
        """LSOKL's ``proplus.m`` recomputes K_S on binary margin steps: the SV Gram cache; otherwise none."""
        return "cache" if self._plus and self.compat == "lsokl" else "none"

    def _check_params(self):
        super()._check_params()
        compat = self.compat
        if compat == "none":
            return
        if compat != "lsokl" and self.B is not None:
            raise ValueError(f"{self.algorithm_name}: compat={compat!r} has no budget; B={self.B!r} must be None")
        if self.threshold_on_squared and compat != "dogma":
            raise ValueError(
                f"{self.algorithm_name}: compat={compat!r} fixes the projection test (its reference "
                "code does not threshold δ²); threshold_on_squared must be False"
            )
        if getattr(self, "margin_rule", "dogma") != "dogma":
            raise ValueError(
                f"{self.algorithm_name}: compat={compat!r} fixes the margin step; margin_rule="
                f"{self.margin_rule!r} needs compat='none'"
            )

    def _budget(self):
        """B, or under compat="lsokl" with B=None the budget of LSOKL's experiment scripts (``binary/experiment.m``
        50, ``multiclass/Experiment.m`` 200); None: no budget."""
        if self.B is not None:
            return int(self.B)
        if self.compat == "lsokl":
            return 200 if self._multiclass_model() else 50
        return None

    def _rule_params(self):
        rule = MARGIN_RULES[getattr(self, "margin_rule", "dogma")]
        U = 0.0
        if self.compat == "lsokl":  # proplus.m's U = ¼√((B+1)/ln(B+1))
            B = float(self._budget())
            U = 0.25 * math.sqrt((B + 1.0) / math.log(B + 1.0))
        return rule_params(
            ProjectronParams,
            eta=self.eta,
            squared=bool(self.threshold_on_squared),
            plus=self._plus,
            margin_rule=rule,
            B=self._budget() or 0,
            U=U,
        )

    def _max_support(self):
        return self._budget()

    def _resolved_params(self):
        if self.compat == "lsokl" and hasattr(self, "classes_"):
            return {**self._algorithm_params(), "B": self._budget()}
        return self._algorithm_params()

    def diagnostics(self):
        out = {"projections": self._counter(PROJECTIONS), "additions": self._counter(ADDITIONS)}
        if self._plus:
            out["margin_updates"] = self._counter(MARGIN_UPDATES)
        return out


@register(
    "projectron",
    "Projectron: Perceptron that projects x_t onto the span of the SVs when its residual "
    "is below eta (Orabona et al. 2009)",
    data=("binary", "multiclass"),
    tuning=(("eta", (0.1, 0.9)),),
    sources=_SOURCES,
    position=240,
    weight="the Perceptron step s: the new row (or projected step) s D_t",
    weight_repeats=False,
    sweep={
        "cases": [{"B": 3}, {"eta": 0.3, "threshold_on_squared": True}],
        "grid": {"B": [None, 2, 3, 5, 8], "eta": [0.9, 0.3, 0.0], "threshold_on_squared": [False, True]},
    },
)
class Projectron(_ProjectronBase):
    __doc__ = _DOC.format(
        title="Projectron (Orabona, Keshet, Caputo 2009): a bounded kernel Perceptron.",
        extra="",
        diag="",
        name="projectron",
        compat=_compat_doc(False),
    )

    def __init__(
        self,
        eta=0.9,
        threshold_on_squared=False,
        B=None,
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
        self.eta = eta
        self.threshold_on_squared = threshold_on_squared
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


@register(
    "projectron++",
    "Projectron++: Projectron that also learns from margin errors by projected steps (Orabona et al. 2009)",
    data=("binary", "multiclass"),
    tuning=(("eta", (0.1, 0.9)),),
    sources={**_SOURCES, "margin_rule": "DOGMA k_projectron2_train.m"},
    position=250,
    weight="the Perceptron step s; the margin step's cap 1 → s: τ = min(ℓ/N, s, …)",
    weight_repeats=False,
    sweep={
        "cases": [{"B": 3, "margin_rule": "paper"}],
        "grid": {
            "B": [None, 2, 3, 5, 8],
            "eta": [0.9, 0.3],
            "threshold_on_squared": [False, True],
            "margin_rule": ["dogma", "paper"],
        },
    },
)
class ProjectronPP(_ProjectronBase):
    __doc__ = _DOC.format(
        title="Projectron++ (Orabona, Keshet, Caputo 2009): Projectron with margin updates.",
        extra=_MARGIN_DOC,
        diag=", ``margin_updates``",
        name="projectron++",
        compat=_compat_doc(True),
    )
    _plus = True
    _parameter_constraints = {"eta": [POSITIVE]}  # the margin rules divide by η

    def __init__(
        self,
        eta=0.9,
        threshold_on_squared=False,
        margin_rule="dogma",
        B=None,
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
        self.eta = eta
        self.threshold_on_squared = threshold_on_squared
        self.margin_rule = margin_rule
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
