"""Budgeted DUOL: DUOL's double updating with at most B support vectors (spec: docs/algorithms/duol-budget.md).

While the support set holds at most B SVs the round is exactly DUOL's (JMLR Algorithm 1, docs/algorithms/duol.md):
the same auxiliary search, the same closed form of problem (1), the same cached margins F_i = y_i f(x_i), so
that with B ≥ T the learner is ``duol`` bit for bit. When the round's append makes |S| = B + 1, one SV r is
removed after the update (docs/algorithms/duol-budget.md#removal), never the new SV nor the auxiliary SV b that
the round's double update changed:

* ``removal="oldest"`` (default): the oldest SV (as the Forgetron, without its shrinking);
* ``removal="smallest"``: the smallest ‖α_r κ(x_r, ·)‖ = γ_r √κ(x_r, x_r);
* ``removal="margin"``: the largest leave-one-out margin F_r − γ_r κ(x_r, x_r);
* ``removal="dual"``: the smallest loss of DUOL's dual objective, γ_r (1 − F_r + ½ γ_r κ(x_r, x_r));

ties (within a relative ``tol``) to the oldest. The default was chosen by measured mistake rates
(docs/algorithms/duol-budget.md#what-was-tried). Every cached margin stays exact: F_i -= y_i α_r κ(x_i, x_r), one
row of the SV Gram cache (≤ (B + 1)² entries, always kept), then r is removed.

Removals permute the slots, so DUOL's tie rule of the auxiliary search (the last tied minimiser) reads the
arrival order (``added``), not the slot order: the result does not depend on where blocks started.

Multiclass and multi-label data run M-DUOL's round (docs/algorithms/duol-budget.md#multiclass): SV i holds γ_i H_i,
H_i = e_{r_i} − e_{s_i}, and caches F_i = f(x_i)·H_i; the auxiliary search takes the *first* tied minimiser (M-DUOL's
rule) in arrival order, and a removal corrects F_i −= γ_r (H_r·H_i) κ(x_i, x_r). M-DUOL's passes over per-class
member lists are replaced by full passes over the ≤ B + 1 SVs (lists would be rebuilt after every removal); the
values are the same bit for bit, so with B ≥ T the learner is multiclass ``duol`` bit for bit. The removal keys
use ‖H_i‖² = 2 (``_removal_key_multi``).

Cost per round: the kernel row of x_t against ≤ B SVs, the auxiliary search and the margin updates (O(B)), the
Gram rows of b and r (from the cache, O(B)), and the removal's moves in the cache (O(B)).

Diagnostics: DUOL's (``double_updates``, ``strong_double_updates``, ``weak_double_updates``, ``qp_fallbacks``)
and ``removals``.

Slow reference: tests/reference/duol_budget.py (``run_reference``; multiclass and multi-label
``run_reference_multi``).
"""

import math
from typing import ClassVar, NamedTuple

from ..._compile import min2, njit_helper
from ...params import NON_NEGATIVE, POSITIVE, Interval, Options
from ...spec import register
from ..kernel.base import DIAG, EPS
from ..kernel.duol import (
    D_DOUBLE,
    D_FALLBACK,
    D_STRONG,
    D_WEAK,
    EXACT,
    JMLR,
    _binary_step,
    duol_gate,
    label_weights,
    mduol_auxiliary,
    mduol_gate,
    mduol_round_start,
    solve_double,
    tie_bound,
)
from ..kernel.duol_scans import direction_margins, direction_weights, double_direction_margins
from ..kernel.gram import load_gram_row
from ..kernel.multiclass import h_dot, set_direction
from ..kernel.pa import paper_C
from ..kernel.support_set import N
from ..kernel.sv_edit import sv_append, sv_remove
from ..records import rule_params
from .common import BUDGET, BudgetLearner

SMALLEST, OLDEST, MARGIN, DUAL = 0, 1, 2, 3
REMOVALS = {"smallest": SMALLEST, "oldest": OLDEST, "margin": MARGIN, "dual": DUAL}

D_REMOVED = DIAG + 4  # after DUOL's four counters (docs/algorithms/duol.md#strong-and-weak-double-updates)


class DUOLBudgetParams(NamedTuple):
    """Parameters of budgeted DUOL. ``variant`` and ``solver`` are DUOL's fields, fixed to
    the JMLR algorithm and the exact solver (the rule reuses DUOL's round)."""

    C: float
    rho: float  # a double update needs w_min ≤ −ρ
    tol: float  # losses and margins within tol count as zero (ties)
    variant: int  # JMLR
    solver: int  # EXACT
    B: int  # at most B SVs after every round
    removal: int  # SMALLEST or OLDEST


@njit_helper
def pick_removal(sv, removal, tol, keep1, keep2):
    """The SV to remove (docs/algorithms/duol-budget.md#removal), among all SVs but the slots keep1 and keep2:
    ``OLDEST`` the oldest; otherwise the smallest :func:`_removal_key`, ties (values within a relative ``tol``
    of the smallest) to the oldest, and the oldest when no key is a number. Never −1 when |S| > B ≥ 2."""
    n = sv.meta[N]
    if removal == OLDEST:
        for p in range(n):
            i = sv.arrival[p]
            if i != keep1 and i != keep2:
                return i
        return -1
    v_min = math.inf
    for i in range(n):
        if i != keep1 and i != keep2:
            v_min = min(v_min, _removal_key(sv, removal, i))
    bound = tie_bound(v_min, tol)
    oldest = -1
    for p in range(n):
        i = sv.arrival[p]
        if i != keep1 and i != keep2:
            if oldest < 0:
                oldest = i
            if _removal_key(sv, removal, i) <= bound:
                return i
    # no key compares (NaN from a kernel value that overflowed): the oldest, never an index outside the set; the
    # protocol then refuses the round, whose scores are not finite (olkit.protocol)
    return oldest


@njit_helper
def _removal_key(sv, removal, i):
    """The value the removal minimises, with γ_i = |α_i|: γ_i √κ_ii (``SMALLEST``), −(F_i − γ_i κ_ii) (``MARGIN``:
    the margin SV i keeps under the model without it) or γ_i (1 − F_i + ½ γ_i κ_ii) (``DUAL``: the loss of
    DUOL's dual objective Σ γ_j − ½‖f‖² when SV i is removed). Multiclass: :func:`_removal_key_multi`."""
    if sv.coef.shape[1] > 1:
        return _removal_key_multi(sv, removal, i)
    g = abs(sv.coef[i, 0])
    if removal == SMALLEST:
        return g * math.sqrt(max(sv.kself[i], 0.0))
    if removal == DUAL:
        return g * (1.0 - sv.F[i] + 0.5 * g * sv.kself[i])
    return -(sv.F[i] - g * sv.kself[i])


@njit_helper
def _removal_key_multi(sv, removal, i):
    """:func:`_removal_key` of M-DUOL's SV i, A_i = γ_i H_i with ‖H_i‖² = 2 (docs/algorithms/duol-budget.md#multiclass):
    γ_i √(2κ_ii), −(F_i − 2γ_i κ_ii) or γ_i (1 − F_i + γ_i κ_ii)."""
    g = sv.hw[i]
    k = sv.kself[i]
    if removal == SMALLEST:
        return g * math.sqrt(max(2.0 * k, 0.0))
    if removal == DUAL:
        return g * (1.0 - sv.F[i] + g * k)
    return -(sv.F[i] - 2.0 * g * k)


@njit_helper
def remove_exactly_multi(sv, st, s, r):
    """M-DUOL's :func:`remove_exactly`: F_i −= γ_r (H_r·H_i) κ(x_i, x_r) for the SVs sharing a class with H_r (one
    Gram row), then the removal."""
    load_gram_row(sv, r, s)
    n = sv.meta[N]
    F, grow, hr, hs = sv.F, sv.grow, sv.hr, sv.hs
    rr, sr, g = hr[r], hs[r], sv.hw[r]
    for i in range(n):
        h = h_dot(rr, sr, hr[i], hs[i])
        if h != 0.0:
            F[i] -= g * h * grow[i]
    sv_remove(sv, r)
    st.cnt[D_REMOVED] += 1


@njit_helper
def remove_exactly(sv, st, s, r):
    """Remove SV r keeping every cached margin exact: F_i -= y_i α_r κ(x_i, x_r) for every SV (one Gram row),
    then the removal."""
    load_gram_row(sv, r, s)
    n = sv.meta[N]
    F, grow = sv.F, sv.grow
    a = sv.coef[r, 0]
    for i in range(n):
        F[i] -= sv.y[i] * a * grow[i]
    sv_remove(sv, r)
    st.cnt[D_REMOVED] += 1


@njit_helper
def newest_tied(values, F, F_max, n, bound, added):
    """DUOL's auxiliary example among the tied minimisers (docs/algorithms/duol.md#ties: the last one) in
    *arrival* order: the candidate (F_i ≤ F_max) with values[i] ≤ bound added last; −1 if none. Without
    removals slots are in arrival order and this is DUOL's pick; removals permute the slots."""
    b = -1
    for i in range(n):
        if F[i] <= F_max and values[i] <= bound and (b < 0 or added[i] > added[b]):
            b = i
    return b


@njit_helper
def duol_budget_update(sv, st, s, t, kself, y, f, mistake):
    """Binary: DUOL's round (docs/algorithms/duol.md#update-rule), then, if |S| > B, one removal."""
    tol = st.prm.tol
    loss = 1.0 - y * f[0]
    if loss <= tol or kself <= EPS:
        return False
    n = sv.meta[N]
    w_min = label_weights(y, sv.y, sv.krow, sv.F, 1.0 + tol, math.inf, sv.grow, n)
    b = newest_tied(sv.grow, sv.F, 1.0 + tol, n, tie_bound(w_min, tol), sv.added) if w_min < math.inf else -1
    double = b >= 0 and w_min <= -st.prm.rho
    _binary_step(sv, st, s, t, kself, y, f[0], mistake, loss, b, w_min)
    if sv.meta[N] > st.prm.B:
        r = pick_removal(sv, st.prm.removal, tol, sv.meta[N] - 1, b if double else -1)
        remove_exactly(sv, st, s, r)
    return True


@njit_helper
def oldest_tied(values, F, F_max, n, bound, added):
    """M-DUOL's auxiliary example among the tied minimisers (docs/algorithms/duol.md#ties: the first one) in
    *arrival* order: the candidate (F_i ≤ F_max) with values[i] ≤ bound added first; −1 if none. Without
    removals slots are in arrival order and this is M-DUOL's pick; removals permute the slots."""
    b = -1
    for i in range(n):
        if F[i] <= F_max and values[i] <= bound and (b < 0 or added[i] < added[b]):
            b = i
    return b


@njit_helper
def mduol_budget_update(sv, st, s, t, kself, y, f, mistake):
    """Multiclass and multi-label: M-DUOL's round (docs/algorithms/duol.md#multiclass-and-multi-label) with full
    passes over the ≤ B SVs and its tie rule read in arrival order, then, if |S| > B, one removal
    (docs/algorithms/duol-budget.md#multiclass)."""
    C0, rho, tol = st.prm.C, st.prm.rho, st.prm.tol
    go, C, r, w, margin = mduol_round_start(st, s, t, kself, f)
    if not go:
        return False
    loss = 1.0 - margin
    n = sv.meta[N]
    krow, hr, hs, F = sv.krow, sv.hr, sv.hs, sv.F
    F_max = 1.0 + tol
    # auxiliary example: argmin (H_t·H_i) κ(x_t, x_i) over the candidates F_i ≤ 1 + tol, ties to the first arrived
    w_min = direction_weights(r, w, hr, hs, krow, F, F_max, sv.grow, n)
    b = oldest_tied(sv.grow, F, F_max, n, tie_bound(w_min, tol), sv.added) if w_min < math.inf else -1
    double = b >= 0 and w_min <= -2.0 * rho
    rb, sb, w_ab, gb_hat, Fb = -1, -1, 0.0, 0.0, 0.0
    if double:
        rb, sb, w_ab, gb_hat, Fb = mduol_auxiliary(sv, st, b, r, w, mistake)
    j = sv_append(sv, s, t, kself, float(r))
    F[j] = margin
    if not double:
        gamma = min2(C, loss / (2.0 * kself))
        set_direction(sv, j, r, w, gamma)
        direction_margins(F, r, w, hr, hs, krow, gamma, j + 1)
    else:
        st.cnt[D_DOUBLE] += 1
        Cb = C0 * sv.sw[b]  # the auxiliary SV's own box [0, s_b C]
        ga, d = solve_double(
            EXACT, JMLR, loss, 1.0 - Fb, 2.0 * kself, 2.0 * sv.kself[b], w_ab, C, gb_hat, rho, 0.5, st, Cb
        )
        set_direction(sv, j, r, w, ga)
        set_direction(sv, b, rb, sb, gb_hat + d)
        load_gram_row(sv, b, s)
        double_direction_margins(F, r, w, rb, sb, hr, hs, krow, sv.grow, ga, d, j + 1)
    if sv.meta[N] > st.prm.B:
        rem = pick_removal(sv, st.prm.removal, tol, j, b if double else -1)
        remove_exactly_multi(sv, st, s, rem)
    return True


_DATA = ("binary", "multiclass", "multilabel")


@register(
    "duol-budget",
    "Budgeted DUOL: DUOL's exact double update with at most B SVs, removing the oldest other SV with exact "
    "cached margins; multiclass/multi-label: M-DUOL's",
    data=_DATA,
    tuning=(("C", (0.0625, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)),),
    sources={
        "B": "the budgeted learners' default (AHP R scripts' 600)",
        "C": "DUOL JMLR §5.1 (5)",
        "rho": "DUOL JMLR §5.1 (0)",
        "sigma": "the budgeted learners' default (AHP Experiments, σ = 1)",
        "removal": "docs/algorithms/duol-budget.md#what-was-tried (measured)",
        "tol": "docs/algorithms/duol.md#settled-questions (rounding decides the literal algorithm)",
    },
    position=275,
    weight="C ← s·C as DUOL's (the example's box [0, sC], an SV's own s_i C); a removed SV takes its weight",
    weight_repeats=False,
    sweep={
        "small": {"B": 5},
        "cases": [{"B": 2}, {"removal": "smallest"}, {"removal": "margin"}, {"removal": "dual", "C": 0.5, "rho": 0.2}],
        "grid": {"B": [2, 3, 5, 8], "removal": list(REMOVALS), "C": [None, 0.5], "rho": [0.0, 0.2]},
    },
)
class DUOLBudget(BudgetLearner):
    """Budgeted DUOL: DUOL's exact double update (JMLR Algorithm 1) with at most B SVs; on multiclass and
    multi-label data M-DUOL's (JMLR Algorithm 2) with the same budget and removal rules.

    Parameters
    ----------
    B : int >= 2, default 600
        Budget: at most B SVs after every round; with B ≥ the stream's length the learner is ``duol``.
    C : float > 0 or None, default None
        Upper bound of every weight γ_i, as DUOL's. None: 5 (DUOL JMLR §5.1), 10 on multiclass and multi-label
        data (§5.5). On a budget a smaller C is much
        better (docs/algorithms/duol-budget.md#what-was-tried): tune it.
    rho : float in [0, 1), default 0
        Double-update threshold, as DUOL's (update x_b only if w_ab ≤ −ρ; M-DUOL: w_ab ≤ −2ρ).
    removal : {"oldest", "smallest", "margin", "dual"}, default "oldest"
        The SV removed when the round's append exceeds B (never the new SV nor the auxiliary SV just updated):
        the oldest; the smallest γ_i √κ(x_i, x_i); the largest leave-one-out margin F_i − γ_i κ(x_i, x_i); the
        smallest loss of the dual objective γ_i (1 − F_i + ½ γ_i κ(x_i, x_i)) (ties to the oldest).
    tol : float, default 1e-9
        DUOL's tolerance of the candidate test, the update test and the ties (also the ties of the removal).
    kernel, sigma, degree, coef0 : the kernel (σ = 1 as the other budgeted learners).
    compat : {"none"}, default "none"
        No reference code exists: the rule of docs/algorithms/duol-budget.md.

    Diagnostics: DUOL's (``double_updates``, ``strong_double_updates``, ``weak_double_updates``,
    ``qp_fallbacks``) and ``removals``.

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> clf = olkit.make("duol-budget", B=100, sigma=8)
    >>> olkit.evaluate_online(clf, X, y).n_sv <= 100
    True
    """

    _update = staticmethod(duol_budget_update)
    _update_multi = staticmethod(mduol_budget_update)
    _update_gate = staticmethod(duol_gate)
    _update_gate_multi = staticmethod(mduol_gate)
    _gram = "cache"
    _average_writes = "written"  # DUOL's writes (set_coef: the new SV's and b's); a removal takes P_r with it
    _kernel_data: ClassVar[tuple[str, ...]] = _DATA
    _parameter_constraints = {
        "B": [BUDGET],
        "C": [POSITIVE, None],
        "rho": [Interval(0, 1, closed="left")],
        "removal": [Options(tuple(REMOVALS))],
        "tol": [NON_NEGATIVE],
    }

    def __init__(
        self,
        B=600,
        C=None,
        rho=0.0,
        removal="oldest",
        tol=1e-9,
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
        self.C = C
        self.rho = rho
        self.removal = removal
        self.tol = tol
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _C(self):
        return paper_C(self)

    def _resolved_params(self):
        return {**self._algorithm_params(), "C": self._C()}

    def _rule_params(self):
        return rule_params(
            DUOLBudgetParams,
            C=self._C(),
            rho=self.rho,
            tol=self.tol,
            variant=JMLR,
            solver=EXACT,
            B=self.B,
            removal=REMOVALS[self.removal],
        )

    def diagnostics(self):
        cnt = self.state_.cnt
        return {
            "double_updates": int(cnt[D_DOUBLE]),
            "strong_double_updates": int(cnt[D_STRONG]),
            "weak_double_updates": int(cnt[D_WEAK]),
            "qp_fallbacks": int(cnt[D_FALLBACK]),
            "removals": int(cnt[D_REMOVED]),
        }
